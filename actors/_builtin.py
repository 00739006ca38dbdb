"""The built-in policies by name: the plain ones, look-ahead, search and a person.

The registry sits above every policy module, so that each of them imports what it needs from
below (:class:`PolicyContext`, the plain policies it rolls out with) and none imports the
registry back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._context import PolicyContext
from ._human import Human
from ._lookahead import Lookahead
from ._policies import PLAIN
from ._search import tuned


def _lookahead(ctx: PolicyContext) -> Any:
    """Tries each candidate on forks of the fight (see actors._lookahead)."""
    return Lookahead(ctx)


def _search(ctx: PolicyContext) -> Any:
    """Monte Carlo tree search over forks of the fight, set for the encounter's ruleset (see
    actors._search)."""
    return tuned(ctx)


def _human(ctx: PolicyContext) -> Any:
    """A person at this terminal chooses from numbered offers (see actors._human)."""
    return Human(ctx)


#: Built-in policies by name: factories from a :class:`PolicyContext` to a policy.
BUILTIN: dict[str, Callable[[PolicyContext], Any]] = {
    **PLAIN,
    "lookahead": _lookahead,
    "search": _search,
    "human": _human,
}
