"""``engine.check_ruleset``: every bundled ruleset passes it, on its examples and on the small
encounters it builds; a ruleset that breaks one of its promises fails it with one clear error
naming the encounter, the seed and the seq. (brawl, the documented installed ruleset, is held
to it by tests/cli/test_ruleset_plugin.py, through the installed package.)"""

from __future__ import annotations

import importlib.machinery
import pkgutil
import random
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from initiative.engine import (
    ActionUnit,
    Fight,
    Rules,
    RulesetConformanceError,
    check_ruleset,
    find_ruleset,
    rulesets,
)
from initiative.engine._ruleset import _REGISTRY
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
    """Its examples and the built duel and skirmish, three seeds each, pass every check (the
    examples under another hash seed too)."""
    examples = sorted(EXAMPLES.glob(f"{name}-*.toml"))
    assert examples
    report = check_ruleset(name, encounters=examples, seeds=range(3))
    built = check_ruleset(name, seeds=range(3), other_hash_seed=False)  # (once is enough)
    assert report.fights == 3 * len(examples)
    assert built.fights == 3 * 2
    assert report.offers > report.decisions > 100
    assert "Attack" in report.offered and "Attack" in built.offered
    assert report.hash_seed is not None


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
        return [Offer(action=self.action(target=e.id), cost=0) for e in fight.enemies_of(who)]

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
        "ruleset 'openings': a bundled ruleset has that name: give a variant a name of its own"
    )


class Pricey(Openings):
    """Offers its moves at the units' cost, and asks 5 AP more for them in its cost hook."""

    name = "pricey"

    def cost(self, fight: Rules, who: str, action: Any, window: Window) -> int:
        return super().cost(fight, who, action, window) + 5


def test_a_cost_that_disagrees_with_the_offer_is_named_as_such() -> None:
    """An offer whose cost hook asks more than the offer says (more than the AP there are) is
    a cost mismatch, not an offer the ruleset's own check rejects."""
    err = _fails(Pricey)
    assert str(err) == (
        "ruleset 'pricey', encounter 'duel', seed 1, seq 10: offered Move to=(2.75, 0) to a"
        " (turn) at 1 AP, but its cost (the ruleset's cost hook) is 6 AP"
    )


class Strike(Action, frozen=True, tag="duel-lite.Strike"):
    """Strike an enemy."""

    target: str


class Striking(Grumbling):
    """A unit offering a strike at every enemy, at no cost, with words of its own."""

    action = Strike  # type: ignore[assignment]

    def told(self, action: Any, say: Any) -> str:
        return f"strikes {say.name(action.target)}"


class Mistagged(Openings):
    """Its own action is tagged with another ruleset's name."""

    name = "mistagged"
    units = (*Openings.units, Striking())


def test_a_tag_of_another_name_is_printed_plainly() -> None:
    """The tag it has and the tag it should have are both quoted whole."""
    err = _fails(Mistagged)
    assert str(err).endswith(
        "offered Strike(target='b') to a: its tag 'duel-lite.Strike' should be"
        " 'mistagged.Strike': the log names it by its tag, screens and narration by its class"
        " name, and both should agree"
    ), str(err)


class Lunge(Action, frozen=True, tag="Lunge"):
    """Lunge at an enemy."""

    target: str


class Lunging(Striking):
    """The strike's unit, for an action whose tag has no ruleset's name."""

    action = Lunge  # type: ignore[assignment]


class Bare(Openings):
    """Its own action's tag is not namespaced."""

    name = "bare"
    units = (*Openings.units, Lunging())


def test_an_unnamespaced_tag_is_a_conformance_error_with_the_right_name() -> None:
    """The error names the tag the action should have, under the ruleset's own name."""
    err = _fails(Bare)
    assert str(err) == (
        "ruleset 'bare': action Lunge: its tag 'Lunge' is not namespaced by the ruleset:"
        ' declare it with tag="bare.Lunge"'
    )


class Guessed(Openings):
    """Its round-start hook takes the round number, which the engine does not pass."""

    name = "guessed"

    def round_started(self, fight: Rules, round: int) -> Any:  # type: ignore[override]
        return
        yield


def test_a_hook_with_the_wrong_signature_is_one_line_naming_it() -> None:
    """Refused before any fight, naming the hook and the signature the engine calls."""
    err = _fails(Guessed)
    assert str(err) == (
        "ruleset 'guessed': Guessed's hook round_started(fight: Rules, round: int) does not take"
        " the arguments the engine passes: expected round_started(fight: Rules) -> Hook"
    )


class Hashed(Openings):
    """Orders its offers by the hash of their words: the same in one process, not in another."""

    name = "hashed"

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        offers = super().offers(fight, who, window)
        return sorted(offers, key=lambda o: hash(o.action.describe()))


def test_a_ruleset_ordering_by_hash_fails_under_another_hash_seed() -> None:
    """Two runs in one process agree; the same fight in a process of another
    ``PYTHONHASHSEED`` does not, and the check says so."""
    err = _fails(Hashed)
    assert (err.encounter, err.seed) == ("duel", 1)
    assert "hooks depend on the hash seed: under PYTHONHASHSEED=" in str(err), str(err)


def test_a_conforming_ruleset_passes_under_another_hash_seed() -> None:
    """A bundled ruleset's fights give the same logs in the other process."""
    report = check_ruleset("openings", seeds=[1])
    assert report.hash_seed in ("1", "2")
    assert report.fights == 2


def test_a_class_no_other_process_can_import_is_checked_in_this_one_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ruleset of a module made in this process (nothing another process could import) is
    checked here, and the pass under another hash seed is left out, not failed."""
    made = types.ModuleType("made_in_this_process")
    made.__spec__ = importlib.machinery.ModuleSpec("made_in_this_process", None)
    monkeypatch.setitem(sys.modules, made.__name__, made)
    made.Local = type("Local", (Openings,), {"name": "local", "__module__": made.__name__})
    report = check_ruleset(made.Local, seeds=[1])
    assert (report.fights, report.hash_seed) == (2, None)


VARIETY = '''
from typing import Any

from initiative.engine import ActionUnit
from initiative.engine.rulesets.openings import Openings
from initiative.events import Action


class Variety(Openings):
    """An installed ruleset."""

    name = "variety"


class Louder(Variety):
    """A variant of it, under its name, as its author tests a change before installing it."""


class Sway(Action, frozen=True, tag="Sway"):
    """Sway out of reach."""


class Swaying(ActionUnit[Sway]):
    """Words for the sway."""

    action = Sway

    def told(self, action: Sway, say: Any) -> str:
        return "sways"


class Loose(Openings):
    """Its own action's tag has no ruleset's name."""

    name = "loose"
    units = (*Openings.units, Swaying())


class Crooked(Openings):
    """Its turn-start hook misses the combatant's id."""

    name = "crooked"

    def turn_started(self, fight: Any) -> Any:
        return None
        yield
'''


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A package ``variety`` installed in a folder on ``sys.path``, with two rulesets in the
    ``initiative.rulesets`` entry point group; afterwards none of it is found any more."""
    (tmp_path / "variety.py").write_text(VARIETY)
    info = tmp_path / "variety-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: variety\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[initiative.rulesets]\nvariety = variety:Variety\ncrooked = variety:Crooked\n"
        "loose = variety:Loose\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        yield
    finally:
        sys.modules.pop("variety", None)
        for name in ("variety", "crooked", "loose"):
            _REGISTRY.pop(name, None)


@pytest.mark.usefixtures("installed")
def test_a_variant_of_an_installed_ruleset_is_checked() -> None:
    """A class under an installed ruleset's name is checked (installed or not, as the docs
    say), and afterwards the name finds the installed class again."""
    import variety

    assert find_ruleset("variety") is variety.Variety
    report = check_ruleset(variety.Louder, seeds=[1])
    assert report.fights == 2
    assert report.hash_seed is not None
    assert find_ruleset("variety") is variety.Variety


@pytest.mark.usefixtures("installed")
def test_an_installed_hook_with_the_wrong_signature_is_one_line() -> None:
    """Checked by name, the installed ruleset's crooked hook is a conformance error; found by
    name for a fight, one line naming the hook."""
    with pytest.raises(RulesetConformanceError) as caught:
        check_ruleset("crooked")
    expected = (
        "Crooked's hook turn_started(fight: Any) does not take the arguments the engine"
        " passes: expected turn_started(fight: Rules, who: str) -> Hook"
    )
    assert str(caught.value) == f"ruleset 'crooked': {expected}"
    with pytest.raises(UnknownRulesetError) as found:
        find_ruleset("crooked")
    assert str(found.value) == f"ruleset 'crooked': {expected}"


@pytest.mark.usefixtures("installed")
def test_an_installed_unnamespaced_tag_names_the_tag_it_should_have() -> None:
    """Checked by name it is a conformance error, not an unknown ruleset; found by name for a
    fight, one line; both name the tag under the ruleset's own name, not ``myruleset``."""
    expected = (
        "action Sway: its tag 'Sway' is not namespaced by the ruleset: declare it with"
        ' tag="loose.Sway"'
    )
    with pytest.raises(RulesetConformanceError) as caught:
        check_ruleset("loose")
    assert str(caught.value) == f"ruleset 'loose': {expected}"
    with pytest.raises(UnknownRulesetError) as found:
        find_ruleset("loose", where="duel.toml")
    assert str(found.value) == f"duel.toml: ruleset 'loose': {expected}"
