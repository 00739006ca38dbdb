"""Each package's public surface, and dependencies that point one way only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
ORDER = ["events", "engine", "actors", "replays", "initiative"]


def imported_packages(package: str) -> set[str]:
    found = set()
    for path in (ROOT / package).rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.split(".")[0])
    return found & set(ORDER)


@pytest.mark.parametrize("package", ORDER)
def test_no_import_points_upward(package):
    """events <- engine <- actors <- replays <- initiative: nothing imports upward."""
    allowed = set(ORDER[: ORDER.index(package) + 1])
    assert imported_packages(package) <= allowed


def test_events_knows_only_msgspec_and_the_standard_library():
    """The vocabulary imports no other project package and no third-party package but msgspec."""
    third_party = {"trio", "structlog", "typer", "rich"}
    for path in (ROOT / "events").rglob("*.py"):
        text = path.read_text()
        for name in third_party:
            assert f"import {name}" not in text, path


@pytest.mark.parametrize(
    ("package", "names"),
    [
        (
            "events",
            {
                "Attack",
                "EndTurn",
                "Pass",
                "EncounterStarted",
                "EncounterEnded",
                "read_log",
                "LogWriter",
                "InitiativeError",
                "AnyEvent",
                "AnyAction",
            },
        ),
        (
            "engine",
            {
                "Fight",
                "Ruleset",
                "fold",
                "apply",
                "load_encounter",
                "Rng",
                "View",
                "find_ruleset",
                "simulate",
                "Stepper",
                "LiveState",
                "Snapshot",
            },
        ),
        (
            "actors",
            {
                "run_encounter",
                "load_policy",
                "PolicyContext",
                "aggressive",
                "in_line",
                "play_fight",
            },
        ),
        ("replays", {"verify_log", "state_at", "Narrator", "select", "resimulate"}),
        ("initiative", {"run", "load", "verify", "state", "InitiativeError"}),
    ],
)
def test_public_names(package, names):
    """Each package exposes its deliberate public names."""
    module = __import__(package)
    assert names <= set(dir(module))
