"""The ``search`` policy: Monte Carlo tree search over forks, deterministic for its budget."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import msgspec
import pytest
from initiative.actors import (
    PolicyContext,
    Search,
    check_policy,
    load_policy,
    run_encounter_sync,
)
from initiative.actors._lookahead import hp_balance
from initiative.actors._search import ROUNDS, STEPS, outcome, profile_settings
from initiative.actors._value import Value
from initiative.engine import Fight, Stepper, View, policy_rng
from initiative.events import Attack, EncounterSpec, Move, PolicyLoadError, read_log
from initiative.replays import verify_log

from initiative import engine

SMALL = """
ruleset = "{ruleset}"
max_rounds = 8

[[combatants]]
id = "ann"
side = "a"
hp = 12
position = [0, 0]
stats = {{ {stats} }}
weapons = [{{ name = "sword", damage = "1d6" }}]

[[combatants]]
id = "bob"
side = "b"
hp = 12
position = [{gap}, 0]
stats = {{ {stats} }}
weapons = [{{ name = "axe", damage = "1d6" }}]
"""

STATS = {
    "openings": "agility = 3, strength = 3, defense = 3",
    "tactical": "str = 12, ag = 12, int = 10",
    "thriller": "agility = 10, strength = 10, perception = 10, willpower = 10",
    "percentile": "weapon_skill = 40, strength = 30, toughness = 30, agility = 30",
}


def small(ruleset: str, gap: float = 3) -> EncounterSpec:
    """A one-against-one fight ``gap`` metres apart (small enough to search in a test)."""
    text = SMALL.format(ruleset=ruleset, stats=STATS[ruleset], gap=gap)
    return engine.decode_encounter(tomllib.loads(text), name="t.toml")


def search_for(spec: EncounterSpec, who: str, seed: int, **kwargs: Any) -> Search:
    c = next(c for c in spec.combatants if c.id == who)
    return Search(PolicyContext(combatant=c, encounter=spec, rng=policy_rng(seed, c.id)), **kwargs)


def first_view(spec: EncounterSpec, who: str, seed: int) -> View:
    """``who``'s first turn decision of the fight (the others end their turns meanwhile)."""
    stepper = Stepper(Fight(spec, seed))
    while (token := stepper.token) is not None:
        if token.who == who and token.window.is_turn and len(token.legal) > 1:
            return token.view
        stepper.apply(token.legal[-1].action)
    raise AssertionError(f"{who} never had a choice")


@pytest.mark.parametrize("ruleset", ["openings", "tactical", "thriller", "percentile"])
def test_search_plays_a_whole_fight_in_every_ruleset(ruleset: str, tmp_path: Path) -> None:
    """With a small budget it searches its choices to the fight's end; the log verifies."""
    spec = small(ruleset)
    search = search_for(spec, "ann", 2, rollouts=3)
    out = tmp_path / "f.jsonl"
    result = run_encounter_sync(spec, 2, policies={"ann": search}, out=out)
    assert result.events[-1].__class__.__name__ == "EncounterEnded"
    assert search.searched > 0 and search.iterations == 3 * search.searched
    faults = [e for e in result.events if type(e).__name__ in ("DecisionFailed", "ActionRejected")]
    assert faults == []
    assert verify_log(read_log(out)).ok


def test_same_seed_and_budget_give_the_same_log(tmp_path: Path) -> None:
    """Two runs with the same seed and budget write byte-identical logs."""
    spec = small("openings")
    logs = []
    for run in range(2):
        out = tmp_path / f"{run}.jsonl"
        run_encounter_sync(spec, 5, policies={"a": "search:rollouts=4", "b": "search"}, out=out)
        logs.append(out.read_bytes())
    assert logs[0] == logs[1]


@pytest.mark.parametrize(
    "policies",
    [
        {"a": "search:rollouts=4,paired=true", "b": "search:rollouts=3,paired=true"},
        {"a": "search:evaluate=value,rounds=0,rollouts=6", "b": "tactician"},
    ],
    ids=["paired", "value"],
)
def test_a_search_variant_gives_the_same_log_for_a_seed_and_budget(
    tmp_path: Path, policies: dict[str, str]
) -> None:
    """With paired dice (``paired=true``), or scored by the learned value, as with the
    defaults: the same seed and budget write byte-identical logs."""
    spec = small("openings")
    logs = []
    for run in range(2):
        out = tmp_path / f"{run}.jsonl"
        run_encounter_sync(spec, 5, policies=dict(policies), out=out)
        logs.append(out.read_bytes())
    assert logs[0] == logs[1]
    assert b"ActionDeclared" in logs[0]


def test_paired_forks_roll_other_dice_than_plain_ones() -> None:
    """``paired`` is what its forks roll with: the same search on paired forks scores its
    rollouts differently from one on plain forks (other dice), and the same again when
    repeated."""

    def scores(paired: bool) -> list[float]:
        spec = small("openings", gap=1)
        view = first_view(spec, "ann", 2)
        seen: list[float] = []

        def keep(state: Any, side: str) -> float:
            seen.append(outcome(state, side))
            return seen[-1]

        search_for(spec, "ann", 2, rollouts=8, rounds=1, evaluate=keep, paired=paired).decide(view)
        return seen

    assert scores(True) == scores(True)
    assert scores(True) != scores(False)


def test_a_decision_is_the_same_whatever_came_before() -> None:
    """The search's stream is derived from the seed, the combatant and the decision's seq,
    so a fresh policy (a resumed fight) chooses as the one that made every earlier decision."""
    spec = small("openings", gap=1)
    view = first_view(spec, "ann", 4)
    used = search_for(spec, "ann", 4, rollouts=8)
    used.decide(view)  # a decision made before: it must not move the next one
    assert used.decide(view) == search_for(spec, "ann", 4, rollouts=8).decide(view)


def spare_them(state: Any, side: str) -> float:
    """An evaluation for a pacifist: the hit points its enemies have left."""
    return float(sum(c.hp for c in state.combatants.values() if c.side != side))


def test_the_evaluation_decides_what_it_plays() -> None:
    """Next to its enemy it attacks when scored by hit points, and not when the enemies' hit
    points are what it wants to keep (every try of a blow that landed scored lower)."""
    spec = small("openings", gap=1)
    view = first_view(spec, "ann", 4)
    assert view.offers_of(Attack) and view.offers_of(Move)
    chosen = search_for(spec, "ann", 4, rollouts=16, rounds=0).decide(view)
    assert isinstance(chosen, Attack)
    spared = search_for(spec, "ann", 4, rollouts=16, rounds=0, evaluate=spare_them).decide(view)
    assert not isinstance(spared, Attack)


def test_a_budget_in_steps_stops_the_search_where_the_same_budget_does() -> None:
    """``steps`` caps the decisions made in all of a search's forks: it stops before its
    rollouts are spent (each rollout of the whole fight makes many decisions), and the same
    seed and budget make the same iterations and the same choice."""
    spec = small("openings", gap=1)
    view = first_view(spec, "ann", 3)
    runs = []
    for _ in range(2):
        search = search_for(spec, "ann", 3, rollouts=1_000, steps=40, rounds=None)
        runs.append((search.decide(view), search.iterations))
    assert runs[0] == runs[1]
    assert 1 <= runs[0][1] < 40


def test_outcome_scores_the_end_of_a_fight() -> None:
    """``outcome``: one for a win (minus one for a loss) plus half the difference between the
    sides' mean shares of hit points left, computed here by hand on a finished fight."""
    spec = small("openings", gap=1)
    result = run_encounter_sync(spec, 6, policies={"ann": "aggressive", "bob": "aggressive"})
    state = engine.fold(result.events)
    assert state.ended and state.winner is not None
    ann, bob = (state.combatants[c] for c in ("ann", "bob"))
    share = {c.id: max(c.hp, 0) / c.max_hp for c in (ann, bob)}
    won = 1.0 if state.winner == "a" else -1.0
    assert outcome(state, "a") == pytest.approx(won + 0.5 * (share["ann"] - share["bob"]))
    assert outcome(state, "b") == pytest.approx(-outcome(state, "a"))


def test_the_opponent_model_is_what_the_enemies_play_in_the_forks() -> None:
    """With ``opponent`` the enemies of the forks play that model: one that only ends its
    turns never hurts the searcher, so every rollout scores at least what it started with."""
    spec = small("openings", gap=1)
    view = first_view(spec, "ann", 2)
    seen: list[float] = []

    def keep(state: Any, side: str) -> float:
        value = outcome(state, side)
        seen.append(value)
        return value

    def idle(view: View) -> Any:
        return view.legal[-1].action

    search = search_for(spec, "ann", 2, rollouts=6, rounds=1, opponent=idle, evaluate=keep)
    search.decide(view)
    assert len(seen) == 6 and min(seen) >= 0.0


def test_turns_ends_every_fork_where_its_next_turn_begins() -> None:
    """With ``turns=1`` a fork is scored as the searcher's next turn begins (everyone else
    has had one turn since its decision), or where the fight ends before that."""
    spec = small("openings", gap=1)
    view = first_view(spec, "ann", 3)
    seen: list[tuple[bool, str | None, int]] = []

    def keep(state: Any, side: str) -> float:
        seen.append((state.ended, state.active, state.round))
        return outcome(state, side)

    search_for(spec, "ann", 3, rollouts=8, turns=1, evaluate=keep).decide(view)
    assert len(seen) == 8
    assert all(ended or (active, at) == ("ann", view.round + 1) for ended, active, at in seen)
    assert any(not ended for ended, _, _ in seen)


def test_a_budget_in_seconds_stops_the_search() -> None:
    """A CPU-time budget ends the search before its rollouts are spent (at least one runs)."""
    spec = small("openings", gap=1)
    view = first_view(spec, "ann", 1)
    search = search_for(spec, "ann", 1, rollouts=10_000, seconds=0.001)
    search.decide(view)
    assert 1 <= search.iterations < 10_000


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_the_bare_name_plays_its_rulesets_settings(ruleset: str) -> None:
    """``search`` is the search its encounter's ruleset declares (``search_profile``), and
    ``search:KEY=VALUE`` overrides those settings one by one, keeping the rest."""
    spec = small(ruleset)
    ctx = PolicyContext(combatant=spec.combatants[0], encounter=spec, rng=policy_rng(1, "ann"))
    settings = profile_settings(engine.find_ruleset(ruleset).search_profile)
    bare = load_policy("search", ctx).policy
    assert isinstance(bare, Search)
    assert bare.rollouts == int(settings["rollouts"])
    assert bare.steps == int(settings.get("steps", STEPS))
    assert bare.rounds == int(settings.get("rounds", ROUNDS))
    assert isinstance(bare.evaluate, Value)
    assert bare.confidence == float(settings.get("confidence", Search(ctx).confidence))
    assert bare.turns == (int(settings["turns"]) if "turns" in settings else None)
    assert bare.width == int(settings.get("width", 3))
    fewer = load_policy("search:rollouts=5", ctx).policy
    assert fewer.rollouts == 5
    assert (fewer.steps, fewer.rounds, fewer.confidence, fewer.turns, fewer.width) == (
        bare.steps,
        bare.rounds,
        bare.confidence,
        bare.turns,
        bare.width,
    )
    assert isinstance(fewer.evaluate, Value)
    assert load_policy("search:evaluate=outcome", ctx).policy.evaluate is outcome


def test_an_overridden_evaluation_is_never_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """A name that overrides the ruleset's learned value does not load it: with the value
    unloadable, ``search:evaluate=outcome`` still plays, and the bare name is refused in one
    line that says why."""
    from initiative.actors import _search

    def unloadable(encounter: EncounterSpec) -> Value:
        raise PolicyLoadError("value weights: missing")

    monkeypatch.setattr(_search, "Value", unloadable)
    spec = small("percentile")
    ctx = PolicyContext(combatant=spec.combatants[0], encounter=spec, rng=policy_rng(1, "ann"))
    assert load_policy("search:evaluate=outcome", ctx).policy.evaluate is outcome
    with pytest.raises(PolicyLoadError, match="value weights: missing"):
        load_policy("search", ctx)


def test_parameters_by_name() -> None:
    """``search:KEY=VALUE,...`` sets the budget, horizon and model; anything else is refused."""
    spec = small("openings")
    ctx = PolicyContext(combatant=spec.combatants[0], encounter=spec, rng=policy_rng(1, "ann"))
    loaded = load_policy("search:rollouts=7, rounds=2,rollout=aggressive", ctx)
    assert loaded.trusted
    search = loaded.policy
    assert isinstance(search, Search)
    assert (search.rollouts, search.rounds, search.model) == (7, 2, "aggressive")
    other = load_policy(
        "search:rounds=end,steps=90,width=4,opponent=tactician,evaluate=hp_balance", ctx
    ).policy
    assert (other.rounds, other.steps, other.width) == (None, 90, 4)
    assert (other.opponent_model, other.evaluate) == ("tactician", hp_balance)
    assert other.paired is False
    assert load_policy("search:paired=true", ctx).policy.paired is True
    assert load_policy("search:paired=False", ctx).policy.paired is False
    with pytest.raises(ValueError, match="'tactician' is not a built-in policy to roll out"):
        Search(opponent="tactician")  # a model by name needs a context to make it with
    bad_names = (
        "search:depth=3",
        "search:rollouts=0",
        "search:rollouts",
        "search:rollout=human",
        "search:opponent=search",
        "search:evaluate=luck",
        "search:steps=0",
        "search:width=1",
        "search:rounds=-1",
        "search:turns=0",
        "search:paired=maybe",
    )
    for bad in bad_names:
        with pytest.raises(PolicyLoadError, match="search"):
            load_policy(bad, ctx)


EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.mark.parametrize(
    "example",
    [
        "openings-duel",
        "percentile-wilhelm",
        # Every combatant searches: ten in the bridge, eight in the basement (seconds each).
        pytest.param("tactical-bridge", marks=pytest.mark.slow),
        pytest.param("thriller-ambush", marks=pytest.mark.slow),
    ],
)
def test_search_conforms(example: str) -> None:
    """The conformance check (every combatant plays ``search``) passes on a bundled example of
    each ruleset cut to two rounds, as ``lookahead``'s does: a search forks every decision."""
    spec = msgspec.structs.replace(
        engine.load_encounter(EXAMPLES / f"{example}.toml"), max_rounds=2
    )
    report = check_policy("search:rollouts=2", [spec], seeds=[1])
    assert report.problems == []
    assert report.windows == {"turn", "opening"}
