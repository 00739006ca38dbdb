"""How the built-in ``search`` policy plays a ruleset: :class:`SearchProfile`, which each ruleset
declares as its :attr:`Ruleset.search_profile`.

The settings are the ruleset's to give because they are about its game: how far ahead a
decision's consequences show (the end of the round in one game, the searcher's next turn in
another), how many rollouts a decision there is worth, and the weights of the evaluation learned
from its own fights. The policy (``actors``) reads them from the ruleset; nothing is kept by
ruleset name elsewhere.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

Positive = Annotated[int, msgspec.Meta(ge=1)]
Count = Annotated[int, msgspec.Meta(ge=0)]


class SearchProfile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``search``'s settings for one ruleset: what the bare name ``search`` plays, and what
    ``search:KEY=VALUE,...`` starts from (its parameters override these). A field left
    ``None`` keeps the search's own default (docs/policies.md, *search*), so
    ``SearchProfile()``, every ruleset's default, plays the generic search.

    A Struct, so a profile is checked as a whole (:func:`msgspec.convert` against this type):
    the policy refuses a malformed one in one line naming the ruleset and the field."""

    rollouts: Positive | None = None
    """Iterations of the search per decision."""
    steps: Positive | None = None
    """The most decisions all the forks of one search make together (a budget of CPU time that
    stays deterministic)."""
    rounds: Count | Literal["end"] | None = None
    """The horizon: rounds played on after the decision's round (0: to the end of that round;
    ``"end"``: to the fight's end)."""
    turns: Count | None = None
    """The horizon in the searcher's own turns instead (1: to the start of its next turn)."""
    width: Positive | None = None
    """The candidates tried at the root."""
    exploration: Annotated[float, msgspec.Meta(ge=0)] | None = None
    """UCT's exploration constant below the root."""
    widening: Annotated[float, msgspec.Meta(gt=0)] | None = None
    """Progressive widening: a node visited ``n`` times tries ``ceil(widening * sqrt(n + 1))``
    of its offers."""
    confidence: Annotated[float, msgspec.Meta(ge=0)] | None = None
    """Standard errors by which the best candidate must beat the prior's choice."""
    evaluate: Literal["outcome", "hp_balance", "value"] | None = None
    """How a fork's position is scored: by name, as ``search:evaluate=...`` takes it."""
    rollout: str | None = None
    """The built-in policy that plays everyone in the forks (the prior too)."""
    paired: bool | None = None
    """Whether the forks' dice are keyed by who rolls and for what."""
    value: tuple[float, float, float, float] | None = None
    """The weights of the learned evaluation (``evaluate="value"``) for this ruleset, one per
    feature (``hp``, ``standing``, ``race``, ``late``; docs/policies.md, *A learned value*), as
    ``benchmarks/train_value.py`` learns them from its bundled examples; ``None``: the weights
    learned from every bundled ruleset's fights together."""
    review: Positive | None = None
    """The rollouts per candidate a game review (``initiative review``) makes by default for a
    fight of this ruleset; ``None``: the review's own default."""
