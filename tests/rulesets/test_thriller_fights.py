"""The thriller ruleset end to end: the ambush example with every built-in policy, determinism,
the fold, re-simulation from recorded decisions, and bad encounter files."""

from __future__ import annotations

import tomllib
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings, strategies as st
from initiative.actors import run_encounter_sync
from initiative.engine import Decision, fold, simulate, state_to_builtins
from initiative.events import (
    DECISION_EVENTS,
    EncounterFileError,
    Pass,
    PriorityGranted,
    PriorityPassed,
)

from initiative import engine

from ._thriller import events, fighter, run

EXAMPLE = Path(__file__).parents[2] / "examples" / "thriller-ambush.toml"


def ambush(seed: int = 7, policies: dict[str, str] | None = None):
    return run_encounter_sync(engine.load_encounter(EXAMPLE), seed, policies=policies)


@pytest.mark.parametrize("policy", ["aggressive", "cautious", "random"])
def test_the_ambush_example_ends_with_every_builtin_policy(policy):
    """The example fights to a winner or the round limit with each built-in policy."""
    r = ambush(policies={"investigators": policy, "cult": policy})
    end = r.events[-1]
    assert type(end).__name__ == "EncounterEnded"
    assert end.winner in ("investigators", "cult") or end.reason == "round limit (12) reached"


def test_the_ambush_example_is_an_ambush():
    """Seed 000: "If one group is ambushed or caught unaware, they may not act in the first
    round." — the example tests every investigator for surprise and Sanity."""
    r = ambush()
    checks = [
        (e.who, e.check.split(":")[0])
        for e in events(r, "CheckResolved")
        if e.check.startswith(("surprise", "sanity"))
    ]
    assert sorted(checks) == sorted(
        [(w, k) for w in ("marlowe", "ada", "sully") for k in ("surprise", "sanity (willpower)")]
    )
    surprised = [e.who for e in events(r, "ConditionAdded", condition="surprised")]
    assert surprised and all(
        e.reason == "surprised"
        for e in events(r, "TurnEnded")
        if e.who in surprised and e.seq < events(r, "RoundStarted")[1].seq
    )


def test_same_seed_same_bytes():
    """The same encounter, seed and policies give the same events, byte for byte."""
    a, b = ambush(seed=11), ambush(seed=11)
    assert msgspec.json.encode(a.events) == msgspec.json.encode(b.events)
    assert msgspec.json.encode(a.events) != msgspec.json.encode(ambush(seed=12).events)


def test_fold_of_the_log_is_the_engine_state():
    """The state rebuilt from the log alone (``initiative state``) is the engine's state."""
    r = ambush()
    assert fold(r.events) == r.fight.state
    snapshot = state_to_builtins(fold(r.events, upto=60))
    assert snapshot["round"] == 1 and set(snapshot["combatants"]["ada"]) >= {
        "ap",
        "hp",
        "conditions",
        "position",
        "defeated",
    }


def test_recorded_decisions_re_simulate_the_same_log():
    """Replaying the recorded decisions (as ``initiative verify`` does) gives the same events."""
    r = ambush(policies={"investigators": "random", "cult": "cautious"})
    granted = {e.seq for e in r.events if isinstance(e, PriorityGranted)}
    decisions = [e for e in r.events if isinstance(e, DECISION_EVENTS) and e.cause in granted]

    def decide(token):
        e = decisions.pop(0)
        return Decision(action=Pass() if isinstance(e, PriorityPassed) else e.action)

    again = simulate(r.fight.encounter, r.fight.seed, decide)
    assert msgspec.json.encode(again.events) == msgspec.json.encode(r.events)


def test_scripted_policies_play_the_ruleset():
    """Scripted combatants: a scripted duel resolves through the same rules."""
    me = fighter("me", "x", initiative_roll="20", script='[{ type = "Attack", target = "foe" }] ')
    r = run(me, fighter("foe", "y", x=1.0, hp="1"), options="defense_base = -100", rounds=1)
    assert events(r, "CombatantDefeated")[0].who == "foe"
    assert r.winner == "x"


def decode(text: str):
    return engine.decode_encounter(tomllib.loads('ruleset = "thriller"\n' + text), name="t.toml")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            fighter("a", "x", stats="agility = 10, luck = 3") + fighter("b", "y"),
            "unknown stat 'luck'",
        ),
        (
            fighter("a", "x", stats="strength = 10") + fighter("b", "y"),
            "ruleset 'thriller' needs stat 'agility'",
        ),
        (
            '[options]\nambush_by = "ninjas"\n' + fighter("a", "x") + fighter("b", "y"),
            "ambush_by = 'ninjas' is not a side",
        ),
        (
            '[options]\nambush_initiative = "luck"\n' + fighter("a", "x") + fighter("b", "y"),
            "options.ambush_initiative",
        ),
        (
            fighter("a", "x", specials='[{ name = "rite", ap = 0 }]') + fighter("b", "y"),
            "special action 'rite' needs ap >= 1",
        ),
    ],
    ids=["stat", "agility", "ambush_by", "ambush_initiative", "special"],
)
def test_bad_encounter_files_name_the_problem(text, message):
    """Bad input is a clear EncounterFileError naming the file and the problem."""
    with pytest.raises(EncounterFileError, match=r"t\.toml") as err:
        decode(text)
    assert message in str(err.value)


@pytest.mark.parametrize("policy", ["aggressive", "cautious", "random"])
def test_offered_actions_are_always_legal(policy):
    """Every action the ruleset offers passes its own check: built-in policies, which only pick
    offers, are never rejected, and AP never goes negative."""
    for seed in range(8):
        r = ambush(seed=seed, policies={"investigators": policy, "cult": policy})
        assert events(r, "ActionRejected") == []
        assert events(r, "DecisionFailed") == []
        assert min(e.ap for e in events(r, "APChanged")) >= 0


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_invariants_hold_for_any_seed(seed):
    """Any seed: one turn per combatant per round, AP never negative, every decision made by
    the one who was granted priority, and the fold of the log equals the engine's state."""
    r = ambush(seed=seed, policies={"investigators": "random", "cult": "aggressive"})
    turns = [(e.who, e.round) for e in events(r, "TurnStarted")]
    assert len(turns) == len(set(turns))
    assert all(e.ap >= 0 for e in events(r, "APChanged"))
    granted = {e.seq: e.who for e in r.events if isinstance(e, PriorityGranted)}
    answers = [e for e in r.events if isinstance(e, DECISION_EVENTS) and e.cause in granted]
    assert all(e.who == granted[e.cause] for e in answers)
    assert fold(r.events) == r.fight.state
