"""Finding a policy by name: a built-in, ``path/to/file.py:name``, or an entry point."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from initiative.events import EncounterSpec, PolicyLoadError, did_you_mean

from ._builtin import BUILTIN
from ._context import PolicyContext

#: Entry-point group through which installed packages offer policies.
ENTRY_POINT_GROUP = "initiative.policies"


@dataclass
class LoadedPolicy:
    """A policy ready to use, and whether it is trusted to run inline (built-ins are)."""

    name: str
    policy: Any
    trusted: bool
    plain: bool = False
    """From a file or an entry point, and plain (:func:`plain_code`): the in-line executor
    may call it directly, as it does the built-ins (the actors still host it in a thread)."""


#: Modules a plain policy's module may import: the project's, and standard modules that
#: compute without touching files, sockets, processes or the clock.
PURE_MODULES = frozenset(
    {
        "__future__",
        "abc",
        "bisect",
        "collections",
        "copy",
        "dataclasses",
        "decimal",
        "enum",
        "fractions",
        "functools",
        "heapq",
        "initiative",
        "itertools",
        "math",
        "numbers",
        "operator",
        "random",
        "re",
        "statistics",
        "string",
        "types",
        "typing",
    }
)

#: Built-in names whose use makes a policy's module not plain (input and output, code run).
IMPURE_NAMES = frozenset(
    {"open", "input", "print", "exec", "eval", "compile", "__import__", "breakpoint"}
)

_PLAIN: dict[str, bool] = {}


def plain_code(obj: Any) -> bool:
    """Whether the module that defines ``obj`` is plain: it imports only :data:`PURE_MODULES`
    (and the project), names none of :data:`IMPURE_NAMES`, and defines no ``async`` code; and
    ``obj`` does not say ``in_line = False``. Such a policy is synchronous and does no input or
    output, so calling it in line (no thread, no deadline) changes nothing but the speed. Read
    from the module's source once per module."""
    if getattr(obj, "in_line", None) is False:
        return False
    module = inspect.getmodule(obj)
    if module is None:
        return False
    name = module.__name__
    if name not in _PLAIN:
        try:
            tree = ast.parse(inspect.getsource(module))
        except (OSError, TypeError, SyntaxError):
            _PLAIN[name] = False
        else:
            _PLAIN[name] = _plain_tree(tree)
    return _PLAIN[name]


def _plain_tree(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots = [alias.name.partition(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            roots = [(node.module or "").partition(".")[0]] if node.level == 0 else ["."]
        elif isinstance(node, ast.Name):
            if node.id in IMPURE_NAMES:
                return False
            continue
        elif isinstance(node, ast.AsyncFunctionDef | ast.Await | ast.AsyncFor | ast.AsyncWith):
            return False
        else:
            continue
        if any(root not in PURE_MODULES for root in roots):
            return False
    return True


def _instantiate(obj: Any, ctx: PolicyContext, name: str) -> Any:
    """A class is instantiated (with the context when its constructor takes an argument)."""
    if inspect.isclass(obj):
        try:
            params: Mapping[str, inspect.Parameter] = inspect.signature(obj).parameters
        except (TypeError, ValueError):
            params = {}
        try:
            factory: Callable[..., Any] = obj
            made = factory(ctx) if params else factory()
        except Exception as err:
            raise PolicyLoadError(f"policy {name!r}: constructing it failed: {err}") from None
        if not (hasattr(made, "decide") or callable(made)):
            # Refused here, once, rather than failing at every decision of the fight.
            raise PolicyLoadError(
                f"policy {name!r}: class {obj.__name__} has no decide(view) method"
                " (and its objects are not callable)"
            )
        return made
    if callable(obj) or hasattr(obj, "decide"):
        return obj
    raise PolicyLoadError(f"policy {name!r} is a {type(obj).__name__}, not a function or class")


_FILES: dict[tuple[str, str], str] = {}
"""The module name each policy file was imported as, by the folder it was named from and the
path as named (a batch names the same file for every combatant of every fight: it is found,
resolved and hashed once, not each time)."""


def _from_file(name: str) -> Any:
    path_text, _, attr = name.rpartition(":")
    try:
        key: tuple[str, str] | None = (os.getcwd(), path_text)
    except OSError:  # the folder it runs in is gone: the path is looked up as given
        key = None
    module_name = _FILES.get(key) if key is not None else None
    module = sys.modules.get(module_name) if module_name is not None else None
    if module is None:
        module = _import_file(name, path_text)
        if key is not None:
            _FILES[key] = module.__name__
    try:
        return getattr(module, attr)
    except AttributeError:
        raise PolicyLoadError(f"policy {name!r}: {path_text!r} defines no {attr!r}") from None


def _import_file(name: str, path_text: str) -> Any:
    """The module of the policy file ``path_text`` (imported once a process, under a name made
    from its resolved path)."""
    path = Path(path_text)
    if not path.is_file():
        raise PolicyLoadError(f"policy {name!r}: no such file {path_text!r}")
    digest = hashlib.blake2b(str(path.resolve()).encode(), digest_size=8).hexdigest()
    module_name = f"initiative_user_policy_{digest}"
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise PolicyLoadError(f"policy {name!r}: cannot load {path_text!r} as Python")
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as err:
            raise PolicyLoadError(
                f"policy {name!r}: importing {path_text!r} failed: {type(err).__name__}: {err}"
            ) from None
        sys.modules[module_name] = module
    return module


def _from_entry_point(name: str) -> Any | None:
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            try:
                return ep.load()
            except Exception as err:
                raise PolicyLoadError(
                    f"policy {name!r}: loading entry point {ep.value!r} failed: {err}"
                ) from None
    return None


def policy_names() -> list[str]:
    """Built-in policy names and those installed packages offer, sorted."""
    names = set(BUILTIN) | {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}
    return sorted(names)


PolicyChoice = Any
"""A policy as a caller gives it: a name (built-in, ``file.py:function`` or entry point), a
function or async function of a view, an object with a ``decide`` method, or a class of such
objects (instantiated with the :class:`PolicyContext` when its constructor takes one)."""


def policy_label(choice: PolicyChoice) -> str:
    """The name a policy goes by in results: its name, or its function's or class's name."""
    if isinstance(choice, str):
        return choice
    return str(getattr(choice, "__name__", None) or type(choice).__name__)


def names_file(name: str) -> bool:
    """Whether policy ``name`` is a ``path/to/file.py:function`` (loading it runs that file)."""
    return (
        name not in BUILTIN
        and ":" in name
        and (name.rpartition(":")[0].endswith(".py") or "/" in name)
    )


def load_policy(name: PolicyChoice, ctx: PolicyContext) -> LoadedPolicy:
    """Resolve ``name`` for the combatant in ``ctx``; raises :class:`PolicyLoadError`.

    A value that is not a string is used as the policy itself (a class is instantiated); it is
    not trusted to run in line, so a plain function runs in a worker thread under the timeout.
    """
    if not isinstance(name, str):
        label = policy_label(name)
        return LoadedPolicy(label, _instantiate(name, ctx, label), trusted=False)
    if name in BUILTIN:
        return LoadedPolicy(name, BUILTIN[name](ctx), trusted=True)
    if name.startswith("search:"):  # the built-in search with parameters: search:rollouts=64
        from ._search import tuned

        return LoadedPolicy(name, tuned(ctx, name.removeprefix("search:")), trusted=True)
    if names_file(name):
        found = _from_file(name)
        return LoadedPolicy(name, _instantiate(found, ctx, name), False, plain_code(found))
    found = _from_entry_point(name)
    if found is not None:
        return LoadedPolicy(name, _instantiate(found, ctx, name), False, plain_code(found))
    raise PolicyLoadError(
        f"unknown policy {name!r} for combatant {ctx.combatant.id!r}"
        f"{did_you_mean(name, policy_names())}: {_CHOICES.format(names=', '.join(policy_names()))}"
    )


_CHOICES = (
    "use a built-in ({names}), 'path/to/file.py:function', or an installed"
    f" '{ENTRY_POINT_GROUP}' entry point"
)


def _known_policy(name: str) -> bool:
    """Whether ``name`` names a policy without loading it: a built-in, ``search:...``, a
    ``file.py:function`` (the file is read when it is loaded), an entry point, any of them
    after ``process:``."""
    name = name.removeprefix("process:")
    return (
        name in BUILTIN or name.startswith("search:") or names_file(name) or name in policy_names()
    )


def check_policies(
    encounter: EncounterSpec,
    chosen: Mapping[str, PolicyChoice] | None = None,
    *,
    where: str | None = None,
    what: str = "--policy {key}={name}",
) -> None:
    """Refuse a policy name that names no policy, before anything is loaded or fought:
    :class:`PolicyLoadError` with a "did you mean" for a near miss. A name the encounter file
    gives is named by ``where`` (its file) and key (``combatants (combatant 'tomas').policy``);
    one of ``chosen`` (the overrides, by combatant id or side) by ``what``."""
    chosen = dict(chosen or {})
    for key, name in chosen.items():
        if isinstance(name, str) and not _known_policy(name):
            raise PolicyLoadError(
                f"{what.format(key=key, name=name)}: unknown policy {name!r}"
                f"{did_you_mean(name, policy_names())}; "
                + _CHOICES.format(names=", ".join(policy_names()))
            )
    place = where if where is not None else repr(encounter.name or encounter.ruleset)
    for c in encounter.combatants:
        if c.id in chosen or c.side in chosen:
            continue
        if not _known_policy(c.policy):
            raise PolicyLoadError(
                f"{place}: at key combatants (combatant {c.id!r}).policy: unknown policy"
                f" {c.policy!r}{did_you_mean(c.policy, policy_names())}; "
                + _CHOICES.format(names=", ".join(policy_names()))
            )


def check_names(
    encounter: EncounterSpec,
    names: Iterable[str],
    *,
    what: str = "policies",
    where: str | None = None,
) -> None:
    """Refuse a key of ``policies`` (or ``hosts``) that is neither a combatant id nor a side of
    ``encounter``, naming it, with a "did you mean" for a near miss; :class:`PolicyLoadError`.

    ``what`` says where the key was given (``{name}`` in it is replaced by the key: the command
    line passes ``"--policy {name}=..."``); ``where`` names the encounter (its file, or by
    default its name). The library, the environments and every command share this check, so a
    misspelled ``ilsa`` is never silently a policy for no one.
    """
    known = [c.id for c in encounter.combatants] + list(encounter.sides)
    for name in names:
        if name in known:
            continue
        place = where if where is not None else repr(encounter.name or encounter.ruleset)
        hint = did_you_mean(name, known) or (
            f" (combatants: {', '.join(c.id for c in encounter.combatants)};"
            f" sides: {', '.join(encounter.sides)})"
        )
        raise PolicyLoadError(
            f"{what.format(name=name)}: no combatant or side {name!r} in {place}{hint}"
        )


PolicyFactory = Callable[[PolicyContext], Any]
