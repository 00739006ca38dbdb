"""The policy API: functions, async functions and classes; observation; faults; budgets."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import msgspec
import pytest
from initiative.actors import PolicyContext, Tactician
from initiative.engine import policy_rng
from initiative.engine.rulesets.tactical import OpportunityAttack
from initiative.events import (
    Action,
    Attack,
    Dodge,
    EndTurn,
    Move,
    Offer,
    Parry,
    Pass,
    Position,
    Trigger,
    Window,
)

from tests.helpers import afight, encounter, fight, of_type, sword_duel

DUEL = sword_duel()


def write(tmp_path: Path, source: str) -> str:
    path = tmp_path / "pol.py"
    path.write_text(source)
    return str(path)


def test_a_class_policy_observes_every_event_of_the_encounter(tmp_path: Path) -> None:
    """``observe`` is called once with each event, in order, through EncounterEnded."""
    pol = write(
        tmp_path,
        "from initiative.actors import aggressive\n"
        "SEEN = []\n"
        "class Watcher:\n"
        "    def observe(self, event):\n"
        "        SEEN.append(event.seq)\n"
        "    def decide(self, view):\n"
        "        return aggressive(view)\n",
    )
    result = fight(DUEL, policies={"a": f"{pol}:Watcher"})
    import sys

    module = next(m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == pol)
    seen = module.SEEN
    assert seen == list(range(len(result.events)))
    assert type(result.events[-1]).__name__ == "EncounterEnded"


def test_a_class_policy_keeps_memory_across_decisions(tmp_path: Path) -> None:
    """One instance per combatant lives the whole encounter."""
    pol = write(
        tmp_path,
        "from initiative.events import EndTurn, Pass\n"
        "class Counter:\n"
        "    def __init__(self, ctx):\n"
        "        self.calls = 0\n"
        "    def decide(self, view):\n"
        "        self.calls += 1\n"
        "        if self.calls > 3:\n"
        "            raise RuntimeError(f'call {self.calls}')\n"
        "        return EndTurn() if view.window.is_turn else Pass()\n",
    )
    result = fight(DUEL, policies={"a": f"{pol}:Counter"})
    failed = [e for e in of_type(result.events, "DecisionFailed") if e.who == "a"]
    assert failed[0].detail.startswith("RuntimeError: call 4")
    assert (
        len(failed)
        == len([e for e in of_type(result.events, "PriorityGranted") if e.who == "a"]) - 3
    )


async def test_an_async_policy_over_its_budget_is_recorded_and_the_fight_goes_on(
    tmp_path: Path,
) -> None:
    """A decision past the timeout is a ``DecisionFailed`` of kind timeout; it passes. (An
    async policy from a file runs in a Trio loop of its own in a worker thread, cancelled at
    the deadline, so this runs on the real clock.)"""
    pol = write(
        tmp_path,
        "import trio\n"
        "from initiative.actors import aggressive\n"
        "async def slow(view):\n"
        "    if view.window.is_turn:\n"
        "        await trio.sleep(60)\n"
        "    return aggressive(view)\n",
    )
    result = await afight(DUEL, policies={"a": f"{pol}:slow"}, timeout=0.5)
    timeouts = of_type(result.events, "DecisionFailed")
    turns_of_a = [e for e in of_type(result.events, "TurnStarted") if e.who == "a"]
    assert [e.kind for e in timeouts] == ["timeout"] * len(turns_of_a)
    assert timeouts[0].detail == "no decision within 0.5 s"
    assert result.winner == "blue"


def test_an_illegal_action_is_rejected_and_asked_again(tmp_path: Path) -> None:
    """An action never offered is an ``ActionRejected``; the combatant is asked again."""
    pol = write(
        tmp_path,
        "from initiative.events import Attack\ndef wrong(view):\n    return Attack(target='nobody')\n",
    )
    result = fight(DUEL, policies={"a": f"{pol}:wrong"})
    rejected = of_type(result.events, "ActionRejected")
    assert rejected and {e.who for e in rejected} == {"a"}
    assert result.winner == "blue"


def test_each_policy_gets_its_own_stream_from_the_seed() -> None:
    """``ctx.rng`` is ``policy/<id>`` under the seed: the same for the same seed and id."""
    spec = encounter(DUEL)
    ctx = PolicyContext(spec.combatants[0], spec, policy_rng(5, "a"))
    assert (ctx.rng.seed, ctx.rng.stream) == (5, "policy/a")
    assert [policy_rng(5, "a").below(100) for _ in range(2)] == [policy_rng(5, "a").below(100)] * 2
    assert policy_rng(5, "a").next64() != policy_rng(5, "b").next64()


def test_the_view_cannot_be_changed() -> None:
    """Views are frozen; changing one raises, so only the decision reaches the fight."""
    seen = []

    def grab(view):
        seen.append(view)
        return EndTurn() if view.window.is_turn else Pass()

    from initiative.engine import Decision, simulate

    simulate(encounter(DUEL), 1, lambda t: Decision(action=grab(t.view)))
    with pytest.raises(AttributeError):
        seen[0].me = None


# --- tactician's reactions ---------------------------------------------------------------------


def view_with(offers: list[Offer], *, hp: int = 20, target: str = "a", kind: str = "opening"):
    """A view of ``a`` (hp of 20) facing ``b``, in a window of ``kind`` with ``offers``."""
    from initiative.engine import CombatantState, View

    spec = encounter(DUEL)
    me = CombatantState(id="a", side="red", hp=hp, max_hp=20, ap=3, position=Position(0, 0))
    enemy = CombatantState(id="b", side="blue", hp=20, max_hp=20, ap=3, position=Position(1, 0))
    trigger = None if kind == "turn" else Trigger(kind="attack", by="b", target=target)
    closing = EndTurn() if kind == "turn" else Pass()
    return View(
        me=me,
        spec=spec.combatants[0],
        allies=(),
        enemies=(enemy,),
        window=Window(kind=kind, trigger=trigger),  # type: ignore[arg-type]
        legal=(*offers, Offer(action=closing, cost=0)),
        round=1,
        active="b",
        order=("a", "b"),
        ruleset="openings",
        seq=1,
    )


def test_tactician_takes_an_attack_of_opportunity() -> None:
    """Free damage is always taken, even over a defence."""
    aoo = OpportunityAttack(target="b")
    view = view_with([Offer(action=Parry(), cost=1), Offer(action=aoo, cost=1)])
    assert Tactician().decide(view) == aoo


def test_tactician_parries_when_hurt_and_strikes_back_when_not() -> None:
    """A defence pays when hurt; when healthy, an offered attack is the better use of AP."""
    offers = [Offer(action=Parry(), cost=1), Offer(action=Attack(target="b"), cost=2)]
    assert Tactician().decide(view_with(offers, hp=8)) == Parry()
    assert Tactician().decide(view_with(offers, hp=20)) == Attack(target="b")


def test_tactician_dodges_a_blow_at_itself_when_nothing_else_is_offered() -> None:
    """With no attack to make, a defence against an attack on itself is taken."""
    assert Tactician().decide(view_with([Offer(action=Dodge(), cost=1)])) == Dodge()
    assert Tactician().decide(view_with([Offer(action=Dodge(), cost=1)], target="c")) == Pass()


class Bide(Action, frozen=True, tag="test.Bide"):
    """A ruleset's own way to hold a turn: policies know it by its marker, not its name."""

    is_hold: ClassVar[bool] = True


def test_tactician_holds_its_turn_while_the_enemy_comes_to_it() -> None:
    """With no one in reach and the enemy closing in, an offer to hold the turn (an action
    marked ``is_hold``, whatever its name) is taken."""
    replace = msgspec.structs.replace
    policy = Tactician()
    step = Move(to=Position(3, 0))
    far = view_with([Offer(action=step, cost=1)], kind="turn")
    far = replace(far, enemies=(replace(far.enemies[0], position=Position(9, 0)),))
    assert policy.decide(far) == step
    near = replace(
        far,
        round=2,
        enemies=(replace(far.enemies[0], position=Position(6, 0)),),
        legal=(Offer(action=Bide(), cost=0), *far.legal),
    )
    assert policy.decide(near) == Bide()
