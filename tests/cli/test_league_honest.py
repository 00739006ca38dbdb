"""A league that says what it does not know (issue 36, item 2): no rating interval narrower
than its games allow, and "no decisive game yet" where no game had a winner."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cli_support

from initiative.analysis._league import ELO, Z95, Game, League

ROOT = Path(__file__).parents[2]
DUEL = "examples/openings-duel.toml"

#: Two fighters 50 m apart who cannot move: every game is undecided.
STANDOFF = """
ruleset = "openings"
name = "Standoff"
max_rounds = 6

[options]
idle_rounds = 0

[[combatants]]
id = "a"
side = "north"
hp = 10
stats = { agility = 3, strength = 3, defense = 3 }
speed = 0.0
weapons = [{ name = "club", damage = "1d4" }]

[[combatants]]
id = "b"
side = "south"
hp = 10
position = [50, 0]
stats = { agility = 3, strength = 3, defense = 3 }
speed = 0.0
weapons = [{ name = "club", damage = "1d4" }]
"""


def run(*args: object) -> tuple[int, str, str]:
    done = cli_support.run(*args, cwd=ROOT, env={"COLUMNS": "200"})
    return done.returncode, done.stdout, done.stderr


def test_four_even_games_are_not_a_certainty() -> None:
    """Issue 36, reproduction 2: after four games split 2-2 (each seed one game each way) the
    bootstrap over seeds said ``+0 to +0``. The interval is now at least the model's: for two
    policies after n games, ±1.96 · 400/ln 10 / √(n + 1) (the prior's drawn game counted)."""
    code, out, err = run("league", DUEL, "--policies", "tactician", "cautious", "--runs", 2)
    assert code == 0, err
    assert "+0 to +0" not in out
    code, out, err = run(
        "league", DUEL, "--policies", "tactician", "cautious", "--runs", 2, "--json"
    )
    data = json.loads(out)
    assert data["games"] == 4
    half = Z95 * ELO / math.sqrt(4 + 1)
    for r in data["ratings"]:
        low, high = r["ci95"]
        assert low <= r["rating"] <= high
        assert high - low >= 2 * half - 0.2, r
    pair = data["pairings"][0]
    if pair["decided_seeds"] == 0:
        assert "1 (every seed even)" in run("league", DUEL, "--policies", "tactician",
                                            "cautious", "--runs", 2)[1]  # fmt: skip


def test_a_league_without_a_decisive_game_says_so(tmp_path: Path) -> None:
    """Every game undecided: the ratings are the prior's, and the table, the pairs and the
    JSON say "no decisive game yet" instead of a rating that looks measured."""
    path = tmp_path / "standoff.toml"
    path.write_text(STANDOFF)
    code, out, err = run("league", path, "--policies", "first", "random", "--runs", 2)
    assert code == 0, err
    assert "no decisive game yet: all 4 games were undecided" in out
    pairs = next(line for line in out.splitlines() if "first" in line and "random" in line)
    assert "no decisive game yet" in pairs
    code, out, err = run("league", path, "--policies", "first", "random", "--runs", 2, "--json")
    data = json.loads(out)
    assert data["unknown"].startswith("no decisive game yet")
    assert [r["decisive_games"] for r in data["ratings"]] == [0, 0]
    assert data["pairings"][0]["decisive_games"] == 0


def test_the_interval_is_never_narrower_than_the_model_allows() -> None:
    """Twelve seeds where the first policy won every game: the bootstrap over seeds gives the
    same games each time (width 0); the model's interval still spans its uncertainty."""
    games = tuple(
        Game("e", seed, "x", "y", swapped, "x", 5)
        for seed in range(12)
        for swapped in (False, True)
    )
    league = League(("x", "y"), ("e",), 12, 0, games)
    x, y = league.ratings()
    assert (x.policy, y.policy) == ("x", "y")
    assert x.low < x.rating < x.high and y.low < y.rating < y.high
    assert x.high - x.low > 50 and x.decisive == 24
