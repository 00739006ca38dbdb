"""The hooks as a typed Protocol (``engine.RulesetHooks``): the table of hooks in
docs/rulesets.md is made from it, and the base ``Ruleset`` has every hook it names."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from initiative.engine import Ruleset, RulesetHooks, find_ruleset
from initiative.engine._hooks import HOOKS, signature, summary, wrong_hook

DOCS = Path(__file__).parents[2] / "docs" / "rulesets.md"
BEGIN = "<!-- hooks: made from engine.RulesetHooks by python tests/engine/test_hooks.py -->"
END = "<!-- end of hooks -->"


def hook_table() -> str:
    """The docs' table of hooks, one row per hook of the Protocol: its signature (``self``
    left out) and what its docstring says."""
    rows = ["| hook | when, and what it answers |", "| --- | --- |"]
    for name in HOOKS:
        shown = signature(name).replace("|", "\\|")
        rows.append(f"| `{shown}` | {summary(name).replace('``', '`')} |")
    return "\n".join([BEGIN, *rows, END])


def test_the_docs_list_every_hook_with_its_signature():
    """docs/rulesets.md's table of hooks is the Protocol's, signature for signature (to update
    it, paste what ``python tests/engine/test_hooks.py`` prints)."""
    text = DOCS.read_text()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    assert text[start:end] == hook_table()


def test_the_base_ruleset_has_every_hook_with_the_protocols_parameters():
    """``Ruleset``'s own hooks take the Protocol's parameters, by name and in order."""
    for name in HOOKS:
        mine = list(inspect.signature(getattr(Ruleset, name)).parameters)
        theirs = list(inspect.signature(getattr(RulesetHooks, name)).parameters)
        assert mine == theirs, name
    assert wrong_hook(Ruleset) is None


@pytest.mark.parametrize("name", ["openings", "percentile", "tactical", "thriller"])
def test_every_bundled_rulesets_hooks_take_what_the_engine_passes(name):
    """The check an installed ruleset meets when it is found, passed by the bundled ones."""
    assert wrong_hook(find_ruleset(name)) is None


def test_the_round_hooks_take_the_fight_alone():
    """``round_started(fight)``, not ``round_started(fight, round)``: the round is
    ``fight.state.round``."""
    assert signature("round_started") == "round_started(fight: Rules) -> Hook"
    assert signature("round_ended") == "round_ended(fight: Rules) -> Hook"


if __name__ == "__main__":  # python tests/engine/test_hooks.py: the table to paste in the docs
    print(hook_table())
