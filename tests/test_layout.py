"""Each package's public surface, and dependencies that point one way only."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
from packages import FOLDERS, folder_of, import_name

ROOT = Path(__file__).parents[1]
ORDER = FOLDERS


def imported_modules(package: str) -> list[tuple[Path, int, str]]:
    """Every absolute import in ``package``'s files: (file, line, dotted name imported), with
    ``from a import b`` as ``a.b``."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [(path, node.lineno, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found += [(path, node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return found


def imported_packages(package: str) -> set[str]:
    """The project packages ``package`` imports (``initiative.engine`` counts as ``engine``)."""
    found = (folder_of(module) for _, _, module in imported_modules(package))
    return {where[0] for where in found if where is not None}


@pytest.mark.parametrize("package", ORDER)
def test_no_import_points_upward(package):
    """events <- engine <- actors <- replays <- batch <- initiative: nothing imports upward."""
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
        ("batch", {"run_batch", "iter_batch", "Summary", "side_stats", "duel", "ResultStore"}),
        ("initiative", {"run", "load", "verify", "state", "InitiativeError"}),
    ],
)
def test_public_names(package, names):
    """Each package exposes its deliberate public names."""
    module = importlib.import_module(import_name(package))
    assert names <= set(dir(module))


def private_imports(package: str) -> list[str]:
    """``from other._module import ...`` or ``import other._module`` in ``package``'s files."""
    found = []
    for path, line, module in imported_modules(package):
        where = folder_of(module)
        if where is None:
            continue
        folder, rest = where
        if folder != package and any(part.startswith("_") for part in rest):
            found.append(f"{path.relative_to(ROOT)}:{line}: {module}")
    return found


@pytest.mark.parametrize("package", ORDER)
def test_no_package_imports_another_packages_private_modules(package):
    """Packages meet through each other's ``__init__``: no ``from engine._fight import ...``
    outside ``engine``."""
    assert private_imports(package) == []


def is_ruleset_module(module: str) -> bool:
    """Whether ``module`` (a dotted name imported) is or lies under ``engine.rulesets``."""
    where = folder_of(module)
    return where is not None and where[0] == "engine" and where[1][:1] == ["rulesets"]


def ruleset_imports(package: str) -> list[str]:
    """Imports in ``package``'s files of a module under ``engine.rulesets`` (a ruleset's
    package, or one of its modules)."""
    return [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path, line, module in imported_modules(package)
        if is_ruleset_module(module)
    ]


@pytest.mark.parametrize("package", ["actors", "replays"])
def test_actors_and_replays_import_no_ruleset(package):
    """Screens and narration word an action through its ruleset's registry
    (``Ruleset.unit_of``), never by importing a ruleset's classes: an installed ruleset reads
    as well as a bundled one."""
    assert ruleset_imports(package) == []


@pytest.mark.parametrize(
    ("module", "ruleset"),
    [
        ("initiative.engine.rulesets.tactical.OpportunityAttack", True),
        ("initiative.engine.rulesets.thriller._actions.Intercept", True),
        ("engine.rulesets", True),
        ("initiative.engine.find_ruleset", False),
        ("initiative.engine.kit.AttackUnit", False),
    ],
)
def test_the_ruleset_rule_knows_a_ruleset_module(module, ruleset):
    """The rule above sees an import of a ruleset (as the screen's of tactical and thriller
    classes once were), and not the engine's public names."""
    assert is_ruleset_module(module) is ruleset
