"""``engine.check_ruleset``: every bundled ruleset passes it, on its examples and on the small
encounters it builds; a ruleset that breaks one of its promises fails it with one clear error
naming the encounter, the seed and the seq. (brawl, the documented installed ruleset, is held
to it by tests/cli/test_ruleset_plugin.py, through the installed package.)"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any, ClassVar

import pytest
from initiative.engine import (
    Fight,
    Rules,
    RulesetConformanceError,
    check_ruleset,
    ruleset_names,
)
from initiative.engine.rulesets.openings import Openings
from initiative.events import Action, Attack, CombatantSpec, EncounterSpec, Offer, Window

EXAMPLES = Path(__file__).parents[2] / "examples"
BUNDLED = ["openings", "percentile", "tactical", "thriller"]


@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_ruleset_conforms(name: str) -> None:
    """Its examples and the built duel and skirmish, three seeds each, pass every check."""
    examples = sorted(EXAMPLES.glob(f"{name}-*.toml"))
    assert examples
    report = check_ruleset(name, encounters=examples, seeds=range(3))
    built = check_ruleset(name, seeds=range(3))
    assert report.fights == 3 * len(examples)
    assert built.fights == 3 * 2
    assert report.offers > report.decisions > 100
    assert "Attack" in report.offered and "Attack" in built.offered


def test_the_bundled_rulesets_are_the_four_checked() -> None:
    assert [n for n in ruleset_names() if n in BUNDLED] == BUNDLED


# -- rulesets that break a promise (each a name and tags of its own) ---------------------------


class Overreach(Openings):
    """Offers an attack on every enemy, in reach or not; the check (openings') refuses those
    out of reach."""

    name = "overreach"

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        cost = self.options.attack_cost
        if not window.is_turn or fight.get(who).ap < cost:
            return []
        return [Offer(action=Attack(target=e.id), cost=cost) for e in fight.enemies_of(who)]


class Unseeded(Openings):
    """Rolls initiative modifiers with Python's own ``random``, not the fight's dice."""

    name = "unseeded"

    def initiative_modifier(self, c: CombatantSpec) -> int:
        return random.randint(0, 10**9)


class Taunt(Action, frozen=True, tag="undeclared.Taunt"):
    """Shout at an enemy."""

    target: str


class Undeclared(Openings):
    """Offers an action of its own that it never declares in ``actions``."""

    name = "undeclared"

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        taunts = [Offer(action=Taunt(target=e.id), cost=0) for e in fight.enemies_of(who)]
        return super().offers(fight, who, window) + (taunts if window.is_turn else [])

    def check(self, fight: Rules, who: str, action: Any, window: Window) -> str | None:
        return None if isinstance(action, Taunt) else super().check(fight, who, action, window)

    def cost(self, fight: Rules, who: str, action: Any, window: Window) -> int:
        return 0 if isinstance(action, Taunt) else super().cost(fight, who, action, window)


class Mumble(Action, frozen=True, tag="wordless.Mumble"):
    target: str


class Wordless(Undeclared):
    """Declares its action, which has no docstring for screens to show."""

    name = "wordless"
    actions: ClassVar[tuple[type[Action], ...]] = (Mumble,)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        mumbles = [Offer(action=Mumble(target=e.id), cost=0) for e in fight.enemies_of(who)]
        return Openings.offers(self, fight, who, window) + (mumbles if window.is_turn else [])

    def check(self, fight: Rules, who: str, action: Any, window: Window) -> str | None:
        return (
            None if isinstance(action, Mumble) else Openings.check(self, fight, who, action, window)
        )


def _fails(ruleset: type[Openings], **kwargs: Any) -> RulesetConformanceError:
    with pytest.raises(RulesetConformanceError) as caught:
        check_ruleset(ruleset, seeds=[1], **kwargs)
    return caught.value


def test_an_offer_its_own_check_rejects_fails_it() -> None:
    err = _fails(Overreach)
    assert (err.ruleset, err.encounter, err.seed) == ("overreach", "duel", 1)
    assert err.seq is not None
    assert re.fullmatch(
        r"ruleset 'overreach', encounter 'duel', seed 1, seq \d+: offered Attack target=(a|b)"
        r" to (a|b) \(turn\), which the ruleset's own check rejects: (a|b) is 4 m away, out of"
        r" the sword's reach",
        str(err),
    ), str(err)


def test_a_hook_using_unseeded_random_fails_it() -> None:
    err = _fails(Unseeded)
    assert (err.encounter, err.seed) == ("duel", 1)
    assert "hooks are not deterministic" in str(err)
    assert '"type":"InitiativeRolled"' in str(err)
    assert str(err).startswith(f"ruleset 'unseeded', encounter 'duel', seed 1, seq {err.seq}: ")


def test_an_undeclared_action_fails_it() -> None:
    err = _fails(Undeclared)
    assert str(err).endswith("Taunt is neither a core action nor in Undeclared.actions"), str(err)


def test_an_action_without_words_fails_it() -> None:
    err = _fails(Wordless)
    assert str(err).endswith("Mumble has no docstring (the help a screen shows for it)"), str(err)


def test_a_given_encounter_of_another_ruleset_is_refused() -> None:
    with pytest.raises(RulesetConformanceError, match="the encounter's ruleset is 'openings'"):
        check_ruleset("thriller", encounters=[EXAMPLES / "openings-duel.toml"])


def test_a_failing_check_leaves_no_ruleset_behind() -> None:
    """The class is found by its name only while it is checked."""
    _fails(Overreach)
    with pytest.raises(Exception, match="unknown ruleset 'overreach'"):
        Fight(EncounterSpec(ruleset="overreach", combatants=()), 1)
