"""``engine.check_ruleset``: every bundled ruleset passes it, on its examples and on the small
encounters it builds; a ruleset that breaks one of its promises fails it with one clear error
naming the encounter, the seed and the seq. (brawl, the documented installed ruleset, is held
to it by tests/cli/test_ruleset_plugin.py, through the installed package.)"""

from __future__ import annotations

import pkgutil
import random
from pathlib import Path
from typing import Any, ClassVar

import pytest
from initiative.engine import (
    ActionUnit,
    Fight,
    Rules,
    RulesetConformanceError,
    check_ruleset,
    rulesets,
)
from initiative.engine.rulesets.openings import Openings
from initiative.events import (
    Action,
    Attack,
    CombatantSpec,
    EncounterSpec,
    Offer,
    UnknownRulesetError,
    Window,
)

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
    """No bundled ruleset escapes the test above: one module each in ``engine.rulesets``."""
    found = [m.name for m in pkgutil.iter_modules(rulesets.__path__) if m.name[0] != "_"]
    assert sorted(found) == BUNDLED


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


class Chant(Action, frozen=True, tag="chanting.Chant"):
    """Chant the names of one's enemies."""

    names: tuple[str, ...]


class Chanting(Openings):
    """Offers a Chant built with a list where its field is a tuple: the log reads it back as a
    tuple, so the action read from the log is not the one offered."""

    name = "chanting"
    actions: ClassVar[tuple[type[Action], ...]] = (Chant,)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        names: Any = [e.id for e in fight.enemies_of(who)]  # a list, not the field's tuple
        chant = [Offer(action=Chant(names=names), cost=0)] if window.is_turn else []
        return super().offers(fight, who, window) + chant

    def check(self, fight: Rules, who: str, action: Any, window: Window) -> str | None:
        return None if isinstance(action, Chant) else super().check(fight, who, action, window)

    def cost(self, fight: Rules, who: str, action: Any, window: Window) -> int:
        return 0 if isinstance(action, Chant) else super().cost(fight, who, action, window)


class Grumble(Action, frozen=True, tag="mute.Grumble"):
    """Grumble at an enemy."""

    target: str


class Grumbling(ActionUnit[Grumble]):
    """A unit with rules, and no words of its own for the narration."""

    action = Grumble
    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        return [Offer(action=Grumble(target=e.id), cost=0) for e in fight.enemies_of(who)]

    def check(self, fight: Rules, who: str, action: Grumble, window: Window) -> str | None:
        return None

    def cost(self, fight: Rules, who: str, action: Grumble, window: Window) -> int:
        return 0


class Mute(Openings):
    """Its own action has a unit without words."""

    name = "mute"
    units = (*Openings.units, Grumbling())


class Hum(Action, frozen=True, tag="unworded.Hum"):
    """Hum a tune."""


class Unworded(Openings):
    """Declares and offers an action of its own that no unit of it owns."""

    name = "unworded"
    actions: ClassVar[tuple[type[Action], ...]] = (Hum,)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        hum = [Offer(action=Hum(), cost=0)] if window.is_turn else []
        return super().offers(fight, who, window) + hum

    def check(self, fight: Rules, who: str, action: Any, window: Window) -> str | None:
        return None if isinstance(action, Hum) else super().check(fight, who, action, window)

    def cost(self, fight: Rules, who: str, action: Any, window: Window) -> int:
        return 0 if isinstance(action, Hum) else super().cost(fight, who, action, window)


class Crashing(Openings):
    """Its round-end hook raises."""

    name = "crashing"

    def round_ended(self, fight: Rules) -> Any:
        raise KeyError("nobody")
        yield


def _fails(ruleset: type[Openings], **kwargs: Any) -> RulesetConformanceError:
    with pytest.raises(RulesetConformanceError) as caught:
        check_ruleset(ruleset, seeds=[1], **kwargs)
    return caught.value


def test_an_offer_its_own_check_rejects_fails_it() -> None:
    """The first offer the ruleset's check refuses is named, with the grant it was offered at."""
    err = _fails(Overreach)
    assert (err.ruleset, err.encounter, err.seed, err.seq) == ("overreach", "duel", 1, 10)
    assert str(err) == (
        "ruleset 'overreach', encounter 'duel', seed 1, seq 10: offered Attack target=b to a"
        " (turn), which the ruleset's own check rejects: b is 4 m away, out of the sword's reach"
    )


def test_a_hook_using_unseeded_random_fails_it() -> None:
    """Two runs of one seed differ at the first initiative roll, and the error shows both."""
    err = _fails(Unseeded)
    assert (err.encounter, err.seed, err.seq) == ("duel", 1, 4)
    assert str(err).startswith(
        "ruleset 'unseeded', encounter 'duel', seed 1, seq 4: hooks are not deterministic: the"
        ' same seed and decisions gave a different log (first run {"type":"InitiativeRolled"'
    )


def test_an_undeclared_action_fails_it() -> None:
    """An offered action of a type not in ``actions`` could not be read back from a log."""
    err = _fails(Undeclared)
    assert str(err).endswith("Taunt is neither a core action nor in Undeclared.actions"), str(err)


def test_an_action_without_words_fails_it() -> None:
    """An action type with no docstring has no help for a screen to show."""
    err = _fails(Wordless)
    assert str(err).endswith("Mumble has no docstring (the help a screen shows for it)"), str(err)


def test_an_action_whose_unit_has_no_words_fails_it() -> None:
    """Narration tells a deed in its unit's words: a unit must have its own."""
    err = _fails(Mute)
    assert str(err).endswith(
        "offered Grumble target=b to a: the unit Grumbling has no words of its own for the"
        " narration (its told method)"
    ), str(err)


def test_an_action_of_no_unit_fails_it() -> None:
    """Screens and narration find an action's words through the ruleset's units."""
    err = _fails(Unworded)
    assert str(err).endswith(
        "offered Hum to a: Unworded.units has no unit for Hum, so nothing words it for screens"
        " and narration"
    ), str(err)


def test_an_action_the_log_reads_back_differently_fails_it() -> None:
    """An offered action that the codec decodes to another value is named with both."""
    err = _fails(Chanting)
    assert str(err).endswith(
        "offered Chant(names=['b']) to a, which the log codec reads back as Chant(names=('b',))"
    ), str(err)


def test_a_hook_that_raises_fails_it() -> None:
    """A hook's exception becomes the error, at the last event recorded before it (the end of
    round 1, seq 17, whose hook raised)."""
    err = _fails(Crashing)
    assert str(err) == (
        "ruleset 'crashing', encounter 'duel', seed 1, seq 17: a hook raised KeyError: 'nobody'"
    )
    assert isinstance(err.__cause__, KeyError)


def test_a_given_encounter_of_another_ruleset_is_refused() -> None:
    """An encounter given for the check must be of the ruleset checked."""
    with pytest.raises(RulesetConformanceError, match="the encounter's ruleset is 'openings'"):
        check_ruleset("thriller", encounters=[EXAMPLES / "openings-duel.toml"])


def test_a_failing_check_leaves_no_ruleset_behind() -> None:
    """The class is found by its name only while it is checked."""
    _fails(Overreach)
    with pytest.raises(UnknownRulesetError, match="unknown ruleset 'overreach'"):
        Fight(EncounterSpec(ruleset="overreach", combatants=()), 1)


def test_a_class_taking_a_bundled_name_is_refused() -> None:
    """A class cannot be checked under the name of another ruleset that is found by it."""

    class Impostor(Openings):
        """Claims the bundled name."""

    with pytest.raises(RulesetConformanceError) as caught:
        check_ruleset(Impostor)
    assert str(caught.value) == (
        "ruleset 'openings': another ruleset of that name is bundled or installed"
    )
