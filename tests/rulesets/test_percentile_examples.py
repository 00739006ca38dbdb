"""The percentile examples run with the built-in policies, end properly, and re-run alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from initiative.actors import run_encounter_sync
from initiative.engine import fold
from initiative.events import encode_lines, parse_log

from initiative import engine
from tests.helpers import of_type

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("percentile-*.toml"))
WILHELM = Path(__file__).parents[2] / "examples" / "percentile-wilhelm.toml"


def test_there_is_a_wilhelm_example() -> None:
    """The seed's worked example ships as an example encounter."""
    assert WILHELM in EXAMPLES


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
@pytest.mark.parametrize("policy", [None, "aggressive", "cautious", "random"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_example_ends_and_reruns_identically(path: Path, policy: str | None, seed: int) -> None:
    """Each example ends with a winner or at the round limit, and the same seed gives the
    same bytes."""
    spec = engine.load_encounter(path)
    policies = {c.side: policy for c in spec.combatants} if policy else None
    first = run_encounter_sync(spec, seed, policies=policies)
    again = run_encounter_sync(spec, seed, policies=policies)
    (end,) = of_type(first.events, "EncounterEnded")
    assert end.winner is not None or end.rounds == spec.max_rounds
    assert encode_lines(first.events) == encode_lines(again.events)
    parsed = parse_log(encode_lines(first.events))
    assert fold(parsed.events) == first.fight.state


def test_wilhelm_example_has_the_seeds_initiative() -> None:
    """Seed 001: "Wilhelm (41) will thus act first, followed by Gertrude (39) and then by the
    Goblins (30)." ... "In the new round, the revised Initiative order will be Wilhelm (41),
    Gertrude (39), the Orc (32) and finally the two remaining Goblins (30)." """
    result = run_encounter_sync(engine.load_encounter(WILHELM), 1)
    totals = [(e.who, e.total, e.given) for e in of_type(result.events, "InitiativeRolled")]
    assert totals == [
        (("wilhelm",), 41, True),
        (("gertrude",), 39, True),
        (("goblin-1", "goblin-2", "goblin-3"), 30, True),
        (("orc",), 32, True),
    ]
    joined = of_type(result.events, "CombatantJoined")[-1]
    assert (joined.who, joined.round) == ("orc", 4)
    first, revised = of_type(result.events, "InitiativeOrdered")
    assert first.order == ("wilhelm", "gertrude", "goblin-1", "goblin-2", "goblin-3")
    # With seed 1 (and the built-in policies), two Goblins have fallen by round 4; the order
    # drops the fallen.
    assert revised.order == ("wilhelm", "gertrude", "orc", "goblin-2")
