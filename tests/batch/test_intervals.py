"""Intervals that respect their quantity (issue 36, item 1): nothing that cannot be negative
gets a negative bound, rates stay in [0, 1], small and all-equal samples get an honest
interval (Student's t clipped to the range, Garwood's exact interval for a count when every
value is the same, none for a single value), as docs/batch.md says."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import cli_support
import pytest
from hypothesis import given, settings, strategies as st
from initiative.batch import mean_ci, poisson_ci, wilson

ROOT = Path(__file__).parents[2]
BRIDGE = Path("examples/tactical-bridge.toml")
#: Reproduction 1 of issue 36: the shaman fell twice, in rounds far apart.
REPRODUCTION = ("batch", BRIDGE, "--runs", 10, "--policy", "watch=tactician")
REPRODUCTION += ("--policy", "raiders=tactician")

#: (floor, ceiling) of the quantities a batch reports: damage, kills; rounds and the round of
#: a fall under an encounter's max_rounds.
RANGES = [(0, math.inf), (1, 100), (1, 12)]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(RANGES), st.data())
def test_every_interval_is_inside_its_quantity_and_holds_its_mean(
    bounds: tuple[float, float], data: st.DataObject
) -> None:
    """Samples of 1 to 10 values anywhere in the quantity's range (all equal ones included):
    the interval, when there is one, is inside the range and holds the mean; two or more
    values always get one, and it has a width."""
    floor, ceiling = bounds
    top = 60 if math.isinf(ceiling) else int(ceiling)
    values = data.draw(st.lists(st.integers(int(floor), top), min_size=1, max_size=10))
    m = mean_ci(values, floor=floor, ceiling=ceiling)
    assert m.mean == pytest.approx(sum(values) / len(values))
    if len(values) == 1:
        assert (m.low, m.high, m.method) == (None, None, None)
        return
    assert m.low is not None and m.high is not None
    assert floor <= m.low <= m.mean <= m.high <= ceiling
    assert m.high > m.low or m.mean in (floor, ceiling)
    assert m.method == ("poisson" if len(set(values)) == 1 else "t")


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10), st.integers(0, 10))
def test_rates_stay_between_zero_and_one(wins: int, more: int) -> None:
    """Wilson's interval for wins out of 1 to 20 fights is in [0, 1] and holds the rate."""
    n = wins + more
    if n == 0:
        assert wilson(0, 0) == (0.0, 1.0)
        return
    low, high = wilson(wins, n)
    assert 0 <= low <= wins / n <= high <= 1


def test_an_all_equal_sample_is_not_a_certainty() -> None:
    """Two fights that both ended in round 2 do not make the round sure to 2.0-2.0 (t's width
    0): Garwood's exact interval for the one extra round counted over them; ten fights where a
    combatant took no damage give 0 to -ln(0.025)/10."""
    fell = mean_ci([2, 2], floor=1, ceiling=100)
    assert fell.text() == "2.0 (1.1-4.6)"
    untouched = mean_ci([0] * 10, floor=0)
    assert (untouched.low, untouched.high) == (0, pytest.approx(-math.log(0.025) / 10))
    # Garwood's bounds are chi-square quantiles: chi2(0.025; 2·3) / 2 and chi2(0.975; 2·4) / 2.
    assert poisson_ci(3, 1) == (pytest.approx(0.6187, abs=1e-4), pytest.approx(8.7673, abs=1e-4))


def run(*args: object) -> tuple[int, str, str]:
    done = cli_support.run(*args, cwd=ROOT, env={"COLUMNS": "200"})
    return done.returncode, done.stdout, done.stderr


def intervals(data: Any) -> list[tuple[str, dict[str, Any]]]:
    """Every ``{n, mean, ci95}`` of a batch's JSON, with its name."""
    found = [("rounds", data["rounds"])]
    found += [(f"{s['side']}.damage", s["damage"]) for s in data["sides"]]
    for c in data["combatants"]:
        for key in ("damage_dealt", "damage_taken", "fell_round"):
            found.append((f"{c['id']}.{key}", c[key]))
    return found


def test_the_bridge_reproduction_has_no_impossible_bound() -> None:
    """Issue 36, reproduction 1: the shaman's round of fall was ``4.0 (-8.7-16.7)`` and its
    damage taken ``(-1.5-6.9)``. Now no printed interval has a negative bound, every round
    interval is within 1 to max_rounds, and the JSON agrees."""
    code, out, err = run(*REPRODUCTION)
    assert code == 0, err
    shaman = next(line for line in out.splitlines() if "shaman" in line)
    assert "(-" not in out and "-8.7" not in shaman
    assert shaman.split("│")[-2].strip() == "4.0 (1.0-16.7)"
    code, out, err = run(*REPRODUCTION, "--json")
    data = json.loads(out)
    for name, m in intervals(data):
        floor = 1 if "round" in name else 0
        if m["n"] >= 2:
            low, high = m["ci95"]
            assert floor <= low <= m["mean"] <= high, name
            assert high > low or m["mean"] == floor, name
        if name.endswith("round") or name == "rounds":
            assert m["ci95"] is None or m["ci95"][1] <= 20, name  # the bridge's max_rounds
