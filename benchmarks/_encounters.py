"""Encounters the benchmarks fight, built in code so every version of the engine reads them."""

from __future__ import annotations


def melee_lines(
    per_side: int, *, ruleset: str = "openings", max_rounds: int = 30, policy: str = "aggressive"
) -> str:
    """Two facing lines of melee fighters (``per_side`` each), as encounter-file TOML text.

    Fighters stand 1 m apart along a line; the lines are 1 m apart, so each fighter starts
    with an enemy in reach. Every fighter uses ``policy``."""
    lines = [
        f'ruleset = "{ruleset}"',
        f'name = "{per_side}v{per_side} melee lines"',
        "seed = 1",
        'sides = ["red", "blue"]',
        f"max_rounds = {max_rounds}",
    ]
    for side, y in (("red", 0), ("blue", 1)):
        for i in range(per_side):
            lines += [
                "[[combatants]]",
                f'id = "{side}{i}"',
                f'side = "{side}"',
                "hp = 12",
                f"position = [{i}, {y}]",
                "speed = 5",
                "stats = { agility = 2, strength = 2, defense = 2 }",
                'weapons = [{ name = "sword", damage = "1d8" }]',
                f'policy = "{policy}"',
            ]
    return "\n".join(lines) + "\n"
