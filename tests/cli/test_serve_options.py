"""``serve``'s options are one typed value that knows its defaults and prints itself back as
arguments: what it prints, the command reads back as the same options."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import typer.main

from initiative.cli._app import app
from initiative.cli._cmd_serve import ServeOptions

#: A value other than the default for every option.
CHANGED = ServeOptions(
    resume=Path("fight.jsonl"),
    seat=("ana", "blue"),
    policy=("bo=cautious",),
    deadline=12.5,
    grace=0.0,
    timeout=2.0,
    host="0.0.0.0",
    hello_timeout=3.0,
    max_frame=1024,
    max_connections=8,
    tls=(Path("cert.pem"), Path("key.pem")),
    port=7001,
    seed=9,
    out=Path("elsewhere.jsonl"),
    wait=False,
    spectators="all",
    gm_odds=True,
    trust_log_policies=True,
    quiet=True,
)

#: The command's parameter name of each option that the signature names otherwise.
RENAMED = {"out_path": "out", "trust": "trust_log_policies"}


def read_back(args: list[str]) -> ServeOptions:
    """The options ``initiative serve ARGS`` is called with, as the command line parses them."""
    command = typer.main.get_command(app).commands["serve"]  # type: ignore[attr-defined]
    params = command.make_context("serve", list(args)).params
    given = {RENAMED.get(k, k): v for k, v in params.items() if k != "encounter"}
    for name in ("seat", "policy"):
        given[name] = tuple(given[name])
    if given["tls"] is not None:
        given["tls"] = tuple(given["tls"])
    return ServeOptions(**given)


def test_every_option_differs_from_its_default_in_the_example():
    """The example below changes every option, so the round trip checks each one."""
    for field in dataclasses.fields(ServeOptions):
        assert getattr(CHANGED, field.name) != field.default, field.name


def test_the_options_print_themselves_as_the_arguments_they_are_read_from():
    """Printed as arguments, every option reads back as itself (the command's defaults are the
    value's: an option left out because it has its default reads back as that default)."""
    assert read_back(CHANGED.arguments()) == CHANGED
    assert read_back([]) == ServeOptions()
    assert ServeOptions().arguments() == []


def test_the_command_that_goes_on_names_the_log_and_the_port_and_no_seed():
    """``--resume LOG`` with the same seats and options, on the port it was served on; the
    seed and the log's name are the log's."""
    fresh = dataclasses.replace(CHANGED, resume=None)
    said = fresh.going_on(Path("yard.jsonl"), 40123)
    assert said.startswith("initiative serve --resume yard.jsonl --seat ana --seat blue")
    assert " --port 40123 " in said and "--seed" not in said and "--out" not in said
    assert " --gm-odds " in said  # (the GM's live odds go on too)
