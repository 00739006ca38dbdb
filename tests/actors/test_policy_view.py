"""A policy author's view (issue 36, item 8): what the table knows of enemies, the odds of an
offer, and plain file policies played in line, as a user writing a focus-fire policy meets
them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cli_support
import pytest
from initiative.engine import load_encounter
from initiative.events import Attack, InitiativeError, read_log

import initiative

EXAMPLES = Path(__file__).parents[2] / "examples"
SKIRMISH = EXAMPLES / "openings-skirmish.toml"

FOCUS = '''"""Focus fire, written from docs/policies.md."""

import math

from initiative.actors import aggressive
from initiative.engine import parse_dice
from initiative.events import Attack

SEEN = []


def focus(view):
    attacks = view.offers_of(Attack)
    if not attacks:
        return aggressive(view)
    hp = {e.id: e.hp for e in view.enemies}

    def worth(offer):
        seen = view.sighted(offer.action.target)
        threat = max(parse_dice(w.damage).mean for w in seen.weapons)
        odds = view.odds(offer)
        SEEN.append((view.me.id, offer.action, odds, seen, dict(view.known)))
        return threat * odds.expected / max(hp[offer.action.target], 1)

    return max(attacks, key=worth).action
'''


def write(folder: Path, text: str, name: str = "mine.py") -> Path:
    path = folder / name
    path.write_text(text)
    return path


def test_a_plain_file_policy_plays_in_line_and_writes_the_same_log(tmp_path: Path) -> None:
    """Reproduction (issue 36, item 9): a file policy ran only in threads (2.7x slower than a
    built-in of the same cost) unless marked ``@in_line``. A plain one now qualifies for the
    in-line executor, and its log is the one the Trio actors write, byte for byte."""
    focus = write(tmp_path, FOCUS)
    policies = {"wardens": f"{focus}:focus", "goblins": f"{focus}:focus"}
    inline = initiative.run(
        SKIRMISH, 3, policies=policies, executor="inline", out=tmp_path / "a.jsonl"
    )
    trio = initiative.run(SKIRMISH, 3, policies=policies, executor="trio", out=tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert inline.winner == trio.winner
    struck = [e for e in inline.events if type(e).__name__ == "ActionDeclared"]
    assert any(isinstance(e.action, Attack) for e in struck)


def test_the_focus_policy_reads_what_the_table_knows(tmp_path: Path) -> None:
    """``view.known`` holds every enemy of the encounter and no ally, as the file states them;
    ``view.odds`` is the ruleset's own (openings: 1d20 + strength against 10 + defense)."""
    focus = write(tmp_path, FOCUS, "seen.py")
    initiative.run(SKIRMISH, 2, policies={"wardens": f"{focus}:focus"}, executor="inline")
    (module,) = [m for n, m in sys.modules.items() if n.startswith("initiative_user_policy_")
                 and getattr(m, "__file__", "") == str(focus)]  # fmt: skip
    assert module.SEEN
    spec = load_encounter(SKIRMISH)
    goblins = {c.id: c for c in spec.combatants if c.side == "goblins"}
    for me, action, odds, seen, known in module.SEEN:
        assert set(known) == set(goblins)
        target = goblins[action.target]
        assert (seen.weapons, seen.armor) == (target.weapons, target.armor)
        mine = next(c for c in spec.combatants if c.id == me)
        weapon = next(w for w in mine.weapons if w.name == (action.weapon or mine.weapons[0].name))
        bonus = mine.stats.get("agility" if weapon.ranged else "strength", 0) + weapon.bonus
        needed = 10 + target.stats.get("defense", 0) - bonus
        assert odds.hit == max(0, min(20, 21 - needed)) / 20


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("import os\n", "imports a module that does input or output"),
        ("", "prints"),
        ("", "says in_line = False"),
    ],
)
def test_a_policy_that_is_not_plain_keeps_its_thread(tmp_path: Path, source: str, why: str) -> None:
    """Only plain code goes in line: importing ``os``, calling ``print`` or saying
    ``in_line = False`` keeps the thread host (and its deadline)."""
    body = "    return aggressive(view)\n"
    if why == "prints":
        body = "    print(view.round)\n" + body
    text = f"{source}from initiative.actors import aggressive\n\n\ndef policy(view):\n{body}"
    if why == "says in_line = False":
        text += "\n\npolicy.in_line = False\n"
    path = write(tmp_path, text, f"p{len(why)}.py")
    with pytest.raises(InitiativeError, match="in-line executor runs only"):
        initiative.run(SKIRMISH, 1, policies={"wardens": f"{path}:policy"}, executor="inline")
    assert initiative.run(SKIRMISH, 1, policies={"wardens": f"{path}:policy"}).winner


def test_batch_plays_the_focus_policy_from_a_file(tmp_path: Path) -> None:
    """``initiative batch`` with the file policy: every fight decided or counted, no faults."""
    focus = write(tmp_path, FOCUS, "batch_focus.py")
    done = cli_support.run(
        "batch", SKIRMISH, "--runs", "4", "--policy", f"wardens={focus}:focus", "--json"
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["fought"] == 4
    assert report["faults_by_policy"][f"{focus}:focus"] == 0


SIZER = """from initiative.actors import aggressive

MET = []


class Sizer:
    def __init__(self, ctx):
        self.known = ctx.known

    def decide(self, view):
        MET.append((self.known, dict(view.known)))
        return aggressive(view)
"""


def test_the_context_knows_what_every_view_knows(tmp_path: Path) -> None:
    """``PolicyContext.known``, for a class sizing up its enemies once, is ``View.known``."""
    sizer = write(tmp_path, SIZER, "sizer.py")
    initiative.run(SKIRMISH, 1, policies={"goblins": f"{sizer}:Sizer"}, executor="inline")
    (module,) = [m for n, m in sys.modules.items() if n.startswith("initiative_user_policy_")
                 and getattr(m, "__file__", "") == str(sizer)]  # fmt: skip
    assert module.MET
    for from_context, from_view in module.MET:
        assert from_context == from_view
        assert set(from_view) == {"brenna", "osric", "wren"}
        assert from_view["wren"].range == 30.0 and from_view["brenna"].reach == 2.5


CHILD = """from initiative.actors import aggressive
from initiative.events import Attack


def policy(view):
    assert set(view.known) == {"brenna", "osric", "wren"}
    for offer in view.offers_of(Attack):
        assert view.sighted(offer.action.target).name
        assert view.odds(offer) is None  # the odds stay with the process that has the fight
    return aggressive(view)
"""


@pytest.mark.slow  # a real child process
def test_a_policy_in_a_process_knows_the_enemies_but_gets_no_odds(tmp_path: Path) -> None:
    """The process host sends ``known`` with the view and leaves ``estimate`` behind."""
    child = write(tmp_path, CHILD, "child.py")
    log = tmp_path / "child.jsonl"
    done = cli_support.run(
        "run", SKIRMISH, "--seed", "2", "--policy", f"goblins={child}:policy",
        "--host", "goblins=process", "--out", log,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = read_log(log).events
    assert not [e for e in events if type(e).__name__ == "DecisionFailed"]
    assert any(type(e).__name__ == "ActionDeclared" and e.who.startswith("goblin") for e in events)
