"""Each command's options are one typed value (``initiative.cli._options``): its defaults are
the command's, and it prints itself back as arguments that the command reads as the same value;
the "continue with" line of an interrupted ``batch`` or ``duel`` is such a value printed, and
it runs and finishes the run."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import cli_support
import pytest
import typer.main

from initiative.cli._app import app
from initiative.cli._options import (
    BatchOptions,
    CompareOptions,
    DuelOptions,
    JoinOptions,
    LeagueOptions,
    Options,
    ResumeOptions,
    ReviewOptions,
    RunOptions,
    ServeOptions,
    SweepOptions,
)
from tests.helpers import DUEL

INITIATIVE = str(Path(sys.executable).parent / "initiative")

AT_SCALE: dict[str, Any] = {
    "jobs": 3,
    "seed_start": 7,
    "timeout": 0.125,
    "as_json": True,
    "report": Path("r.html"),
    "csv": Path("f.csv"),
    "csv_combatants": Path("c.csv"),
}

#: For each command, a value of its options that differs from the defaults in every field.
CHANGED: list[Options] = [
    RunOptions(
        encounter=Path("a.toml"),
        seed=5,
        out=Path("a.jsonl"),
        policy=("north=first", "bo=cautious"),
        timeout=1.5,
        quiet=True,
        verbose=True,
        force=True,
        dice="ask=bo",
        host=("north=thread",),
    ),
    ResumeOptions(
        log=Path("my fight.jsonl"),
        policy=("bo=first",),
        quiet=True,
        trust_log_policies=True,
        dice="rolls.txt",
        host=("bo=process", "north=thread"),
    ),
    ReviewOptions(
        log=Path("fight.jsonl"),
        as_json=True,
        rollouts=12,
        width=2,
        model="log",
        seconds=0.1,
        jobs=2,
        seed=4,
        report=Path("r.html"),
        policy=("tomas=random", "south=first"),
    ),
    BatchOptions(
        encounter=Path("a.toml"),
        runs=40,
        policy=("south=first",),
        db=Path("r.db"),
        keep_logs=Path("logs"),
        cluster="local:2",
        resume=True,
        **AT_SCALE,
    ),
    DuelOptions(
        encounter=Path("a.toml"),
        policies=("aggressive", "cautious"),
        runs=9,
        db=Path("r.db"),
        keep_logs=Path("logs"),
        cluster="tcp://h:8786",
        resume=True,
        **AT_SCALE,
    ),
    CompareOptions(
        encounters=(Path("a.toml"), Path("b.toml"), Path("c.toml")),
        runs=12,
        policy=("north=first",),
        **AT_SCALE,
    ),
    LeagueOptions(
        encounters=(Path("a.toml"), Path("b.toml")),
        policies=("first", "aggressive", "cautious"),
        runs=3,
        db=Path("r.db"),
        **AT_SCALE,
    ),
    SweepOptions(
        encounter=Path("a.toml"),
        vary=("combatants.bo.hp=1..9", "options.reaction_move=0..2"),
        step=0.5,
        points=3,
        runs=8,
        side="north",
        target=0.5,
        db=Path("r.db"),
        **AT_SCALE,
    ),
    JoinOptions(
        address="[::1]:4000",
        seat="north",
        token="t0k",
        watch=True,
        gm=True,
        out=Path("copy.jsonl"),
        reconnect=0.0,
        tls=True,
        ca=Path("ca.pem"),
        review_out=Path("r.html"),
    ),
    ServeOptions(
        encounter=Path("a.toml"),
        resume=Path("fight.jsonl"),
        seat=("north",),
        policy=("bo=first",),
        deadline=0.1 + 0.2,  # (a number that only its full digits give back)
        grace=0.0,
        timeout=2.0,
        host="::",
        hello_timeout=3.0,
        max_frame=1000,
        max_connections=2,
        tls=(Path("cert.pem"), Path("key.pem")),
        port=4000,
        seed=8,
        out=Path("o.jsonl"),
        wait=False,
        spectators="all",
        gm_odds=True,
        trust_log_policies=True,
        quiet=True,
    ),
]

#: The same commands with only what they require.
REQUIRED: list[Options] = [
    RunOptions(encounter=Path("a.toml")),
    ResumeOptions(log=Path("fight.jsonl")),
    ReviewOptions(log=Path("fight.jsonl")),
    BatchOptions(encounter=Path("a.toml"), runs=4),
    DuelOptions(encounter=Path("a.toml"), policies=("first", "cautious"), runs=4),
    CompareOptions(encounters=(Path("a.toml"), Path("b.toml")), runs=4),
    LeagueOptions(encounters=(Path("a.toml"),), policies=("first", "cautious")),
    SweepOptions(encounter=Path("a.toml"), vary=("combatants.bo.hp=1..9",)),
    JoinOptions(address="localhost:4000"),
    ServeOptions(),
]


def command(name: str) -> Any:
    """The click command Typer makes of ``initiative NAME``."""
    return typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]


def read_back(cls: type[Options], args: list[str]) -> Options:
    """The options ``initiative COMMAND ARGS`` runs with, as the command line parses them."""
    return cls.from_params(command(cls.COMMAND).make_context(cls.COMMAND, list(args)).params)


def name_of(options: Options) -> str:
    return options.COMMAND


def test_every_command_with_many_options_has_an_example():
    """The examples cover each command whose options are a value (and each once)."""
    assert sorted(map(name_of, CHANGED)) == sorted(map(name_of, REQUIRED))
    assert {o.COMMAND for o in CHANGED} == {
        "run",
        "resume",
        "review",
        "batch",
        "duel",
        "compare",
        "league",
        "sweep",
        "join",
        "serve",
    }


@pytest.mark.parametrize("options", CHANGED, ids=name_of)
def test_every_field_of_the_example_differs_from_its_default(options: Options) -> None:
    """The examples change every option, so the round trip checks each one."""
    for field in dataclasses.fields(options):
        assert getattr(options, field.name) != field.default, field.name


@pytest.mark.parametrize("options", CHANGED + REQUIRED, ids=name_of)
def test_options_read_back_as_themselves_from_the_arguments_they_print(options: Options):
    """arguments -> the command line's parse -> options -> arguments gives the same value."""
    args = options.arguments()
    assert read_back(type(options), args) == options
    assert read_back(type(options), args).arguments() == args


@pytest.mark.parametrize("options", CHANGED, ids=name_of)
def test_the_command_line_reads_back_through_a_shell(options: Options):
    """The line said for a shell splits back into the command and its arguments (a path with
    a space stays one word)."""
    words = shlex.split(options.command_line())
    assert words == ["initiative", options.COMMAND, *options.arguments()]


@pytest.mark.parametrize("options", REQUIRED, ids=name_of)
def test_defaults_are_left_out(options: Options):
    """With only what the command requires, the arguments are those values alone."""
    required = [
        f.name
        for f in dataclasses.fields(options)
        if f.default is dataclasses.MISSING and f.name not in options.POSITIONAL
    ]
    flags = [a for a in options.arguments() if a.startswith("-")]
    assert flags == [options.flag(name) for name in required for _ in _values(options, name)]


def _values(options: Options, name: str) -> tuple[object, ...]:
    value = getattr(options, name)
    return value if isinstance(value, tuple) else (value,)


#: Parameters of a command's function that stand for fields by other names (read from words).
WORDS = {"duel": {"words": "encounter", "policies": "policies"}}


@pytest.mark.parametrize("options", REQUIRED, ids=name_of)
def test_the_command_signature_has_the_defaults_of_its_options(options: Options):
    """Each parameter of the command has its field's default (a list parameter: the empty
    tuple), and is required where the field has none; every field is a parameter."""
    cls = type(options)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    seen = set()
    for param in command(cls.COMMAND).params:
        assert param.name is not None
        name = WORDS.get(cls.COMMAND, {}).get(param.name) or cls.PARAMS.get(param.name, param.name)
        field = fields[name]
        seen.add(name)
        if field.default is dataclasses.MISSING:
            assert param.required, param.name
            continue
        assert not param.required, param.name
        default = param.default
        assert (tuple(default) if isinstance(default, list) else default) == field.default, name
    assert seen == set(fields)


def test_a_number_prints_as_it_reads_back():
    """A float prints short where that is exact, and in full otherwise."""
    assert "--deadline" not in ServeOptions(deadline=60.0).arguments()
    assert ServeOptions(grace=2.0).arguments() == ["--grace", "2"]
    assert ServeOptions(grace=0.1 + 0.2).arguments() == ["--grace", "0.30000000000000004"]


def test_serves_resume_line_leaves_out_what_the_log_says():
    """``serve``'s line to go on: the log for the encounter, the port it listened on, no seed
    and no --out."""
    served = ServeOptions(encounter=Path("yard.toml"), seat=("north",), seed=4, out=Path("o"))
    assert served.going_on(Path("o"), 4001) == (
        "initiative serve --resume o --seat north --port 4001"
    )


def _rows(db: Path) -> int:
    try:
        with sqlite3.connect(db) as con:
            return int(con.execute("SELECT count(*) FROM encounters").fetchone()[0])
    except sqlite3.Error:
        return 0


def _interrupted(args: list[str], folder: Path) -> str:
    """Start ``initiative ARGS`` in ``folder``, Ctrl-C it once a few rows are stored, and
    return the line it says to continue with."""
    proc = subprocess.Popen(
        [INITIATIVE, *args],
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while _rows(folder / "r.db") < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err[-800:]
    line = err.strip().splitlines()[-1]
    assert "; continue with: " in line, line
    return line.split("; continue with: ", 1)[1]


@pytest.mark.slow  # real batch processes interrupted with SIGINT
@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["batch", "duel.toml", "-n", "400", "--policy", "north=first", "--db", "r.db"],
            "initiative batch duel.toml --runs 400 --policy north=first --db r.db --resume",
        ),
        (
            ["duel", "duel.toml", "--policies", "first", "cautious", "-n", "200", "--db", "r.db"],
            "initiative duel duel.toml --policies first --policies cautious --runs 200"
            " --db r.db --resume",
        ),
    ],
)
def test_the_continue_line_of_an_interrupted_run_finishes_it(
    tmp_path: Path, args: list[str], said: str
) -> None:
    """Ctrl-C says the command with the same options and ``--resume`` (not the program's own
    ``--log-level``); run as said, it fights only the rest, and the run is whole."""
    (tmp_path / "duel.toml").write_bytes(DUEL.read_bytes())
    line = _interrupted(["--log-level", "error", *args], tmp_path)
    assert line == said
    kept = _rows(tmp_path / "r.db")
    words = shlex.split(line)
    assert words[0] == "initiative"
    done = cli_support.run(*words[1:], "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    total = 400  # (a duel fights each of its seeds twice)
    assert _rows(tmp_path / "r.db") == total
    assert json.loads(done.stdout)["fought"] == total - kept
