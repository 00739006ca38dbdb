"""``initiative.engine.kit`` is all a ruleset needs to import: the bundled rulesets import only
what a plugin can (``initiative.engine``, ``initiative.engine.kit``, ``initiative.events``, their
own package, the standard library and msgspec), every name they import from the engine and events
is in the kit, and so is every name the documented example (``brawl`` in docs/rulesets.md)
imports."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest
from initiative.engine import find_ruleset, kit

ROOT = Path(__file__).parents[2]
RULESETS = ROOT / "engine" / "rulesets"


def engine_module(path: Path, node: ast.ImportFrom) -> str | None:
    """The module of the engine or events ``node`` imports from, relative to the repository
    (``engine.kit``, ``engine``, ``events``), or ``None`` for a module of the ruleset's own
    package or outside the project."""
    if node.level == 0:
        name = node.module or ""
        if name.startswith("initiative."):
            name = name.removeprefix("initiative.")
        return name if name.split(".")[0] in ("engine", "events") else None
    here = path.relative_to(ROOT).with_suffix("").parts[:-1]
    base = here[: len(here) - node.level + 1]
    name = ".".join([*base, *([node.module] if node.module else [])])
    own = ".".join(path.relative_to(ROOT).parts[:3])  # engine.rulesets.<ruleset>
    if name.startswith(own.removesuffix(".py")):
        return None
    return name


#: What a plugin ruleset can import of the project: the engine's public package, the kit and
#: the vocabulary. Anything else of it (``engine._rules``, a sibling ruleset) is private.
PUBLIC = {"initiative.engine", "initiative.engine.kit", "initiative.events"}

#: Outside the project, a ruleset may use the standard library and msgspec (the vocabulary's
#: own dependency), as a plugin can count on both being there.
OUTSIDE = set(sys.stdlib_module_names) | {"msgspec"}


def refused_imports(path: Path, text: str) -> list[str]:
    """The imports of ``text`` (the source at ``path``, a bundled ruleset's module) that a
    plugin could not make, as ``line: module``: every import counts, those for the type
    checker and those inside functions too."""
    rel = path.relative_to(ROOT).with_suffix("").parts  # engine, rulesets, <ruleset>, ...
    own = "initiative." + ".".join(rel[:3])  # the ruleset's package (or its one module)
    here = list(rel[:-1])  # the package a relative import starts from
    refused = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                parts = [*base, *([node.module] if node.module else [])]
                modules = ["initiative." + ".".join(parts)]
            else:
                modules = [node.module or ""]
        else:
            continue
        for module in modules:
            top = module.split(".")[0]
            mine = module == own or module.startswith(own + ".")
            if not (module in PUBLIC or mine or (top != "initiative" and top in OUTSIDE)):
                refused.append(f"{path.relative_to(ROOT)}:{node.lineno}: {module}")
    return refused


def bundled_modules() -> list[Path]:
    return sorted(p for p in RULESETS.rglob("*.py") if p != RULESETS / "__init__.py")


def test_bundled_rulesets_import_only_what_a_plugin_can():
    """Every import of every bundled ruleset (for the type checker and inside functions too)
    is of ``initiative.engine``, its kit, ``initiative.events``, the ruleset's own package,
    the standard library or msgspec: nothing a plugin could not import."""
    refused = [line for p in bundled_modules() for line in refused_imports(p, p.read_text())]
    assert refused == []


@pytest.mark.parametrize(
    ("source", "refused"),
    [
        ("from ..._rules import HIDDEN", "initiative.engine._rules"),
        ("from .._common import weapons", "initiative.engine.rulesets._common"),
        ("from ..thriller import Thriller", "initiative.engine.rulesets.thriller"),
        ("import initiative.actors", "initiative.actors"),
        ("import numpy", "numpy"),
        ("if TYPE_CHECKING:\n    from ..._rules import Rules", "initiative.engine._rules"),
        ("def f():\n    from initiative.engine._fight import Fight", "initiative.engine._fight"),
    ],
)
def test_the_import_check_refuses_a_private_module(source: str, refused: str):
    """The check above refuses an engine module, a sibling ruleset, another package of the
    project and a third-party package, wherever the import stands."""
    path = RULESETS / "tactical" / "_units.py"
    assert [line.split(": ", 1)[1] for line in refused_imports(path, source)] == [refused]


@pytest.mark.parametrize(
    "source",
    [
        "from initiative.engine.kit import HIDDEN, Rules",
        "from initiative.engine import Fight",
        "from initiative.events import Attack",
        "from ._marks import AIMED",
        "from . import _attacks",
        "import msgspec",
        "from collections.abc import Mapping",
    ],
)
def test_the_import_check_accepts_what_a_plugin_can_import(source: str):
    """The public packages, the ruleset's own modules, msgspec and the standard library."""
    assert refused_imports(RULESETS / "tactical" / "_units.py", source) == []


def imported_names(path: Path, text: str) -> set[str]:
    """The names ``text`` (the source at ``path``) imports from the engine and events."""
    names = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and engine_module(path, node) is not None:
            names.update(a.name for a in node.names)
    return names


def brawl_module() -> str:
    """The example ruleset's ``brawl/__init__.py`` as docs/rulesets.md shows it."""
    docs = (ROOT / "docs" / "rulesets.md").read_text()
    after = docs.split("`brawl/__init__.py`:\n\n```python\n", 1)[1]
    return after.split("\n```\n", 1)[0]


def test_the_kit_has_every_name_a_bundled_ruleset_imports():
    """Nothing a bundled ruleset takes from the engine or events is missing from the kit."""
    wanted = set()
    for path in sorted(RULESETS.rglob("*.py")):
        wanted |= imported_names(path, path.read_text())
    assert {"HIDDEN", "Rules", "Ruleset", "Offer", "Trigger", "attack_offers"} <= wanted
    assert sorted(wanted - set(dir(kit))) == []


def test_the_kit_has_every_name_the_documented_example_imports():
    """brawl (docs/rulesets.md) imports from ``initiative.engine``, the kit and events; all of
    it is in the kit."""
    wanted = imported_names(RULESETS / "brawl.py", brawl_module())
    assert {"Ruleset", "ActionUnit", "Offer", "Window", "resolve_attack"} <= wanted
    assert sorted(wanted - set(dir(kit))) == []


#: The files every bundled ruleset's package has: the class, its units, its options.
LAYOUT = {"__init__.py", "_ruleset.py", "_units.py", "_options.py"}


@pytest.mark.parametrize("name", ["openings", "percentile", "tactical", "thriller"])
def test_every_bundled_ruleset_is_a_package_of_one_layout(name: str):
    """Each bundled ruleset is a package with the same files: ``_ruleset.py`` (the class),
    ``_units.py`` (``UNITS``, one unit per action, the class's ``units``), ``_options.py``;
    ``_marks.py`` exactly when it declares conditions or counters and ``_actions.py`` exactly
    when it declares actions of its own."""
    folder = RULESETS / name
    files = {p.name for p in folder.glob("*.py")}
    assert files >= LAYOUT
    cls = find_ruleset(name)
    assert cls.__module__ == f"initiative.engine.rulesets.{name}._ruleset"
    units = importlib.import_module(f"initiative.engine.rulesets.{name}._units")
    assert cls.units is units.UNITS
    assert ("_marks.py" in files) == bool(cls.conditions or cls.counters)
    assert ("_actions.py" in files) == bool(cls.actions)
