"""``value``: an evaluation of a live fight learned from finished ones, for ``search``.

The search's default evaluation (:func:`actors._search.outcome`) scores a fork by who won and
by the hit points left two rounds on; most forks end undecided, so it is a short-sighted
proxy. This one predicts the fight's result from the position: the chance that ``side`` wins
(a draw counting half), a logistic function of a few features that any ruleset has:

- ``hp``: the share of its side's hit points left (those standing, over the side's maximum),
  minus the enemies' share;
- ``standing``: the share of its side still standing, minus the enemies' share;
- ``race``: ``ln(T_them / T_us)``, clipped to +-4, where ``T_us`` is how many rounds the
  enemies' standing combatants need to take our side's hit points at the mean damage of their
  weapons (and ``T_them`` the same the other way): who wins a slugging match;
- ``late``: ``race`` times the share of ``max_rounds`` gone, so a race that cannot finish
  before the round limit counts less (an undecided fight is a draw).

Combatants that join later (``arrives``) count as standing at full hit points until they join.
Every feature is the side's value minus the enemies', so the two sides' chances add up to one
and the fit needs no intercept. The weights are data, learned per ruleset from self-play of
its bundled examples by ``benchmarks/train_value.py`` (deterministically): each ruleset
declares its own in its search profile (``SearchProfile.value``); a ruleset without weights of
its own uses those learned from all of them, shipped as ``value_weights.json`` beside this
module. A finished fight scores one, nought, or a half for no winner.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
from initiative.engine import parse_dice
from initiative.events import EncounterFileError, EncounterSpec, PolicyLoadError

from ._profile import search_profile

FEATURES = ("hp", "standing", "race", "late")
"""The features' names, in the order of the weights."""

WEIGHTS = Path(__file__).with_name("value_weights.json")
"""The weights shipped with the package."""


class Fit(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Weights and what they were learned from."""

    weights: tuple[float, ...]
    """One weight per feature, in the order of ``features``."""
    examples: tuple[str, ...] = ()
    """The bundled examples whose self-play taught them."""
    fights: int = 0
    """Finished fights played."""
    positions: int = 0
    """Positions (states) sampled from them."""
    log_loss: float = 0.0
    """The mean log loss on the positions held out (one in five fights)."""


class Weights(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The weights file: the fit learned from every bundled ruleset's fights together, for a
    ruleset that declares no weights of its own (each bundled one declares its own, in its
    ``search_profile``)."""

    features: tuple[str, ...]
    """The features' names, in order; they must be :data:`FEATURES`."""
    fit: Fit
    """The weights learned from all the bundled rulesets' fights."""
    seeds: str = ""
    """The self-play seeds they were learned on (kept apart from the benchmark's)."""


def load_weights(path: Path = WEIGHTS) -> Weights:
    """The weights in ``path``; :class:`PolicyLoadError`, saying which file and what is
    wrong, for a file that is missing, not JSON of this shape, or for other features."""
    try:
        weights = msgspec.json.decode(path.read_bytes(), type=Weights)
    except OSError as err:
        raise PolicyLoadError(f"value weights {path}: {err.strerror or err}") from None
    except msgspec.DecodeError as err:
        raise PolicyLoadError(f"value weights {path}: {err}") from None
    if weights.features != FEATURES:
        raise PolicyLoadError(
            f"value weights {path}: features {list(weights.features)}, expected {list(FEATURES)}"
        )
    fit = weights.fit
    if len(fit.weights) != len(FEATURES):
        raise PolicyLoadError(
            f"value weights {path}: {len(fit.weights)} weights, expected {len(FEATURES)}"
        )
    if not all(math.isfinite(w) for w in fit.weights):
        raise PolicyLoadError(f"value weights {path}: a weight that is not finite")
    return weights


@cache
def shipped() -> Weights:
    """The package's weights, read once."""
    return load_weights()


class Value:
    """The learned evaluation for one encounter: ``value(state, side) -> [0, 1]``.

    ``weights`` defaults to those the encounter's ruleset declares (``SearchProfile.value``),
    else to the shipped weights learned from every bundled ruleset."""

    __slots__ = ("damage", "max_rounds", "pending", "weights")

    def __init__(self, encounter: EncounterSpec, weights: tuple[float, ...] | None = None) -> None:
        if weights is None:
            weights = search_profile(encounter.ruleset).value or shipped().fit.weights
        self.weights = weights
        self.damage = {c.id: _mean_damage(c.weapons) for c in encounter.combatants}
        """Each combatant's best weapon's mean damage (what it deals a round, roughly)."""
        self.pending = tuple((c.id, c.side, c.hp) for c in encounter.combatants if c.arrives > 1)
        """Those who join later: id, side and hit points."""
        self.max_rounds = encounter.max_rounds

    def features(self, state: Any, side: str) -> tuple[float, ...]:
        """The features of ``state`` from ``side``'s view (see the module's docs)."""
        hp = [0.0, 0.0]
        top = [0.0, 0.0]
        up = [0, 0]
        count = [0, 0]
        dealt = [0.0, 0.0]
        combatants = state.combatants
        damage = self.damage
        for c in combatants.values():
            i = 0 if c.side == side else 1
            count[i] += 1
            top[i] += c.max_hp
            if c.standing and c.hp > 0:
                hp[i] += c.hp
                up[i] += 1
                dealt[i] += damage.get(c.id, 3.5)
        for who, their_side, their_hp in self.pending:
            if who not in combatants:
                i = 0 if their_side == side else 1
                count[i] += 1
                top[i] += their_hp
                hp[i] += their_hp
                up[i] += 1
                dealt[i] += damage[who]
        share = [hp[i] / top[i] if top[i] > 0 else 0.0 for i in (0, 1)]
        standing = [up[i] / count[i] if count[i] else 0.0 for i in (0, 1)]
        # Rounds each side needs to take the other's hit points; +1 and +0.5 keep them finite.
        ours = (hp[0] + 1.0) / (dealt[1] + 0.5)
        theirs = (hp[1] + 1.0) / (dealt[0] + 0.5)
        race = max(-4.0, min(4.0, math.log(ours / theirs)))
        gone = min(1.0, state.round / self.max_rounds) if self.max_rounds > 0 else 0.0
        return (share[0] - share[1], standing[0] - standing[1], race, race * gone)

    def __call__(self, state: Any, side: str) -> float:
        """The chance that ``side`` wins from ``state`` (a draw counts half)."""
        if state.ended:
            return 0.5 if state.winner is None else (1.0 if state.winner == side else 0.0)
        z = sum(w * f for w, f in zip(self.weights, self.features(state, side), strict=True))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def _mean_damage(weapons: Any) -> float:
    """The highest mean damage of ``weapons`` (3.5, a d6, for none or dice it cannot read)."""
    best = 0.0
    for w in weapons:
        try:
            best = max(best, parse_dice(w.damage).mean)
        except EncounterFileError:  # a ruleset's own damage notation: the default below
            continue
    return best or 3.5
