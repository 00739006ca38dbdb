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
            },
        ),
        ("actors", {"run_encounter", "load_policy", "PolicyContext", "aggressive"}),
        ("replays", {"verify_log", "state_at", "Narrator", "select", "resimulate"}),
        ("initiative", {"run", "load", "verify", "state", "InitiativeError"}),
    ],
)
def test_public_names(package, names):
    """Each package exposes its deliberate public names."""
    module = __import__(package)
    assert names <= set(dir(module))


def private_imports(package: str) -> list[str]:
    """``from other._module import ...`` or ``import other._module`` in ``package``'s files."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                modules = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            for module in modules:
                top, *rest = module.split(".")
                if top in ORDER and top != package and any(p.startswith("_") for p in rest):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {module}")
    return found


@pytest.mark.parametrize("package", ORDER)
def test_no_package_imports_another_packages_private_modules(package):
    """Packages meet through each other's ``__init__``: no ``from engine._fight import ...``
    outside ``engine``."""
    assert private_imports(package) == []
