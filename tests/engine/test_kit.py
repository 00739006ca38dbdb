"""``initiative.engine.kit`` is all a ruleset needs to import: every name the bundled rulesets
import from the engine's modules and from ``initiative.events``, and every name the documented
example (``brawl`` in docs/rulesets.md) imports, is in it."""

from __future__ import annotations

import ast
from pathlib import Path

from initiative.engine import kit

ROOT = Path(__file__).parents[2]
RULESETS = ROOT / "engine" / "rulesets"


def engine_module(path: Path, node: ast.ImportFrom) -> str | None:
    """The module of the engine or events ``node`` imports from, relative to the repository
    (``engine._rules``, ``engine.rulesets._common``, ``events``), or ``None`` for a module of
    the ruleset's own package or outside the project."""
    if node.level == 0:
        name = node.module or ""
        if name.startswith("initiative."):
            name = name.removeprefix("initiative.")
        return name if name.split(".")[0] in ("engine", "events") else None
    here = path.relative_to(ROOT).with_suffix("").parts[:-1]
    base = here[: len(here) - node.level + 1]
    name = ".".join([*base, *([node.module] if node.module else [])])
    own = ".".join(path.relative_to(ROOT).parts[:3])  # engine.rulesets.<ruleset>
    if name.startswith(own.removesuffix(".py")) and name != "engine.rulesets._common":
        return None
    return name


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
