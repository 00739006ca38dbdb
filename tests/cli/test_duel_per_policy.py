"""``duel`` gives each combatant's figures under each policy (issue 36, item 7): a row per
combatant and policy, not one row that merges both (``search, tactician``)."""

from __future__ import annotations

import json
from pathlib import Path

import cli_support

ROOT = Path(__file__).parents[2]
DUEL = "examples/openings-duel.toml"


def run(*args: object) -> tuple[int, str, str]:
    done = cli_support.run(*args, cwd=ROOT, env={"COLUMNS": "200"})
    return done.returncode, done.stdout, done.stderr


def test_each_combatant_has_a_row_per_policy_equal_to_a_batch_of_those_games() -> None:
    """Ilse under ``aggressive`` is the batch where north plays aggressive and south cautious
    on the same seeds; under ``cautious`` the batch the other way round."""
    code, out, err = run(
        "duel", DUEL, "--policies", "aggressive", "cautious", "--runs", 4, "--json"
    )
    assert code == 0, err
    rows = json.loads(out)["combatants"]
    assert [(r["id"], r["policies"]) for r in rows] == [
        (c, [p]) for c in ("ilse", "tomas", "hound") for p in ("aggressive", "cautious")
    ]
    assert all(r["fights"] == 4 for r in rows)
    for north, south in (("aggressive", "cautious"), ("cautious", "aggressive")):
        code, out, err = run(
            "batch", DUEL, "--runs", 4, "--policy", f"north={north}", "--policy",
            f"south={south}", "--json",
        )  # fmt: skip
        assert code == 0, err
        for expected in json.loads(out)["combatants"]:
            got = next(
                r
                for r in rows
                if r["id"] == expected["id"] and r["policies"] == expected["policies"]
            )
            assert got == expected


def test_the_table_has_no_merged_policy_rows() -> None:
    code, out, err = run("duel", DUEL, "--policies", "aggressive", "cautious", "--runs", 2)
    assert code == 0, err
    assert "aggressive, cautious" not in out
    ilse = [line for line in out.splitlines() if line.startswith("│ ilse")]
    assert [line.split("│")[3].strip() for line in ilse] == ["aggressive", "cautious"]
