"""``replays.odds``: each side's chance from where a log stands, as the review finds it (the live
odds of ``serve --gm-odds``)."""

from __future__ import annotations

import json
from pathlib import Path

from initiative.events import parse_log
from initiative.replays import Budget, odds, review

GOLDEN = Path(__file__).parents[1] / "golden" / "openings-duel.seed3.jsonl"
BUDGET = Budget(rollouts=8, width=3)


def cut_at(data: bytes, seq: int) -> bytes:
    """The log's lines up to and with the event ``seq`` (a served fight's log as it stands)."""
    lines = data.splitlines(keepends=True)
    return b"".join(
        lines[: 1 + next(i for i, x in enumerate(lines) if json.loads(x)["seq"] == seq)]
    )


def test_the_odds_of_a_position_are_the_reviews_chance_before_that_decision() -> None:
    """Cut where a decision waits, the log's odds are the ``win`` the review gives it."""
    data = GOLDEN.read_bytes()
    reviewed = review(parse_log(data), BUDGET)["decisions"][:5]
    for decision in reviewed:
        found = odds(parse_log(cut_at(data, decision["seq"])), BUDGET)
        assert found is not None
        assert (found.seq, found.who, found.round) == (
            decision["seq"], decision["who"], decision["round"]
        )  # fmt: skip
        assert found.win == decision["win"]
        assert found.rollouts == 8 and not found.ended
        assert {s: list(i) for s, i in found.interval.items()} == decision["interval"]


def test_a_finished_log_has_its_result_for_odds() -> None:
    """Once the fight is over: 1 for the winner, 0 for the others, no rollout."""
    contents = parse_log(GOLDEN.read_bytes())
    winner = json.loads(GOLDEN.read_bytes().splitlines()[-1])["winner"]
    found = odds(contents)
    assert found is not None and found.ended and found.rollouts == 0 and found.who is None
    assert found.win == {"north": float(winner == "north"), "south": float(winner == "south")}


def test_odds_dropped_for_a_newer_position_are_none() -> None:
    """When ``stop`` says a newer position came, the work is dropped: ``None``."""
    data = GOLDEN.read_bytes()
    asked = []

    def stop() -> bool:
        asked.append(True)
        return len(asked) > 3

    seq = review(parse_log(data), Budget(rollouts=1, width=2))["decisions"][0]["seq"]
    assert odds(parse_log(cut_at(data, seq)), BUDGET, stop=stop) is None
    assert len(asked) == 4
