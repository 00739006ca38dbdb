"""Each package's public surface, and dependencies that point one way only."""

from __future__ import annotations

import ast
import importlib
import itertools
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


def _module_names(root: Path) -> dict[str, Path]:
    """Every module of the project's packages under ``root``, by the dotted name it imports by
    once installed (``engine/_fight.py`` is ``initiative.engine._fight``)."""
    found = {}
    for folder in ORDER:
        for path in sorted((root / folder).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if parts[0] != "initiative":
                parts.insert(0, "initiative")
            found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.AST) -> bool:
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``): imports for the type checker only."""
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _imports(node: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement under ``node``, at any depth (inside functions, methods, ``try``
    and ``if``), those under ``if TYPE_CHECKING:`` left out (its ``else`` kept)."""
    found: list[ast.Import | ast.ImportFrom] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            found.append(child)
        elif _is_type_checking(child):
            assert isinstance(child, ast.If)
            for other in child.orelse:
                found += _imports(ast.Module(body=[other], type_ignores=[]))
        else:
            found += _imports(child)
    return found


def import_graph(root: Path) -> dict[str, dict[str, int]]:
    """From each module of the project to each module of the project it imports: the line of
    the first such import. ``from a import b`` points at ``a.b`` when that is a module, else at
    ``a`` (the package's ``__init__``)."""
    modules = _module_names(root)
    graph: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        out = graph.setdefault(name, {})
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in _imports(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                if node.level:
                    base = package[: len(package) - node.level + 1]
                    source = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    source = node.module or ""
                targets = [f"{source}.{alias.name}" for alias in node.names]
                targets = [t if _canonical(t) in modules else source for t in targets]
            for target in map(_canonical, targets):
                if target in modules and target != name:
                    out.setdefault(target, node.lineno)
    return graph


def _canonical(module: str) -> str:
    """``engine._fight`` (imported as a top-level package) as ``initiative.engine._fight``."""
    return module if module.split(".")[0] == "initiative" else f"initiative.{module}"


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One circle of imports through each group of modules that reach each other: the modules
    in order, the first repeated at the end (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in graph[module]:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = {stack.pop()}
            while module not in group:
                group.add(stack.pop())
            if len(group) > 1:
                groups.append(group)

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return [_circle(graph, group) for group in groups]


def _circle(graph: dict[str, dict[str, int]], group: set[str]) -> list[str]:
    """A shortest circle through ``group``'s first module, staying inside the group."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for module in frontier:
            for other in sorted(graph[module]):
                if other == start:
                    return [*paths[module], start]
                if other in group and other not in paths:
                    paths[other] = [*paths[module], other]
                    nxt.append(other)
        frontier = nxt
    raise AssertionError(f"no circle through {start}")  # (a group always holds one)


def described(graph: dict[str, dict[str, int]], circle: list[str]) -> str:
    """A circle as ``a (line 3) -> b (line 40) -> a``: each import and where it is."""
    steps = [f"{a} (line {graph[a][b]})" for a, b in itertools.pairwise(circle)]
    return " -> ".join([*steps, circle[-1]])


def test_no_circle_of_imports_not_even_through_a_late_import():
    """No module imports another that imports it back, at module level or from inside a
    function (a circle dodged by a late import is still a circle); only ``TYPE_CHECKING``
    imports are left out."""
    graph = import_graph(ROOT)
    assert [described(graph, c) for c in cycles(graph)] == []


def test_the_circle_finder_sees_a_late_import_and_not_a_type_checking_one(tmp_path):
    """The check above finds a circle closed by an import inside a function, and names its
    modules and lines; one closed only under ``TYPE_CHECKING`` is none."""
    engine = tmp_path / "engine"
    engine.mkdir()
    (engine / "__init__.py").write_text("")
    (engine / "_a.py").write_text("from ._b import B\n")
    (engine / "_b.py").write_text("def late():\n    from initiative.engine._a import A\n")
    (engine / "_c.py").write_text(
        "from typing import TYPE_CHECKING\nfrom . import _d\nif TYPE_CHECKING:\n"
        "    from ._d import D\n"
    )
    (engine / "_d.py").write_text("import typing\nif typing.TYPE_CHECKING:\n    from . import _c\n")
    graph = import_graph(tmp_path)
    assert [described(graph, c) for c in cycles(graph)] == [
        "initiative.engine._a (line 1) -> initiative.engine._b (line 2) -> initiative.engine._a"
    ]


#: The most lines a function of ``initiative/`` may have.
MOST_LINES = 80

#: Functions of ``initiative/`` still over :data:`MOST_LINES` (by qualified name, wherever their
#: module moves), each with the length it may not exceed: they are to be split by those who
#: work on them. None may be added and none may grow; ``serve`` was split (its options are one
#: ``ServeOptions`` value), and so were the commands and the report pages (each command's
#: options are one value of ``initiative.cli._options``): they are no longer here.
STILL_LONG: dict[str, int] = {}


def function_lengths(node: ast.AST, prefix: str = "") -> list[tuple[str, int, int]]:
    """Every function under ``node``: its qualified name (``Class.method``), first line and
    length in lines (its signature and decorators' line included)."""
    found = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            name = prefix + child.name
            assert child.end_lineno is not None
            found.append((name, child.lineno, child.end_lineno - child.lineno + 1))
            found += function_lengths(child, name + ".")
        elif isinstance(child, ast.ClassDef):
            found += function_lengths(child, prefix + child.name + ".")
        else:
            found += function_lengths(child, prefix)
    return found


def test_no_function_in_initiative_is_over_80_lines():
    """Functions that fit on a screen: none in ``initiative/`` over 80 lines, but those listed
    above, none of them longer than it was."""
    over = []
    for path in sorted((ROOT / "initiative").rglob("*.py")):
        for name, line, length in function_lengths(ast.parse(path.read_text())):
            if length > STILL_LONG.get(name, MOST_LINES):
                over.append(f"{path.relative_to(ROOT)}:{line}: {name} has {length} lines")
    assert over == []


MOST_METHODS = 35
"""The most methods one class in ``engine/`` may define (issue 38: ``Fight`` had 48 on top of
its 16-method base before it was split into a recorder, queries, endings and the flow)."""


def method_counts(tree: ast.AST) -> list[tuple[str, int, int]]:
    """Every class in ``tree``: (name, line, how many ``def`` its body holds: properties, their
    setters, ``__init__`` and private helpers count)."""
    return [
        (
            node.name,
            node.lineno,
            sum(isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) for f in node.body),
        )
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    ]


def test_no_class_in_engine_has_over_35_methods():
    """Classes of a size one can hold in mind: none in ``engine/`` (rulesets included) defines
    over 35 methods. Parts held by composition are classes of their own; a ruleset's hooks
    are counted where they are defined (the base ``Ruleset``, and each ruleset's overrides)."""
    over = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for name, line, count in method_counts(ast.parse(path.read_text())):
            if count > MOST_METHODS:
                over.append(f"{path.relative_to(ROOT)}:{line}: {name} has {count} methods")
    assert over == []


def test_the_method_count_counts_properties_setters_and_nested_classes():
    """A property and its setter are two methods; a class inside a class is counted apart."""
    source = (
        "class Outer:\n"
        "    def a(self): ...\n"
        "    @property\n"
        "    def p(self): ...\n"
        "    @p.setter\n"
        "    def p(self, v): ...\n"
        "    async def b(self): ...\n"
        "    x = 1\n"
        "    class Inner:\n"
        "        def c(self): ...\n"
    )
    assert method_counts(ast.parse(source)) == [("Outer", 1, 4), ("Inner", 9, 1)]
