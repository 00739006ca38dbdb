"""Each ruleset declares how ``search`` plays it (``Ruleset.search_profile``, an
``engine.SearchProfile``): the bundled ones their tuned settings and learned weights, a plugin
without one the generic search; a malformed profile is refused in one line."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import cli_support
import pytest
from initiative.actors import PolicyContext, Search, load_policy
from initiative.actors._search import ROLLOUTS, ROUNDS, STEPS, outcome, profile_settings
from initiative.actors._value import Value, shipped
from initiative.engine import SearchProfile, find_ruleset, load_encounter, policy_rng
from initiative.engine._ruleset import _REGISTRY
from initiative.events import PolicyLoadError
from initiative.replays import default_rollouts
from initiative.replays._review import ROLLOUTS as REVIEW_ROLLOUTS

EXAMPLES = Path(__file__).parents[2] / "examples"

PLUGIN = '''
from initiative.engine.kit import Ruleset, SearchProfile
from initiative.engine.rulesets.openings import Openings


class Homebrew(Openings):
    """The openings rules under another name, declaring no search profile of its own."""

    name = "homebrew"
    search_profile = Ruleset.search_profile


class Zero(Openings):
    name = "zero"
    search_profile = SearchProfile(rollouts=0)


class Untyped(Openings):
    name = "untyped"
    search_profile = {"rollouts": 5}


class Endless(Openings):
    name = "endless"
    search_profile = SearchProfile(evaluate="value", value=(1.0, 1.0, float("inf"), 0.0))


class Shapeless(Openings):
    name = "shapeless"
    search_profile = SearchProfile(rounds="forever")
'''

NAMES = ("homebrew", "zero", "untyped", "endless", "shapeless")


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A package installed in a folder on ``sys.path`` with the rulesets above in the
    ``initiative.rulesets`` entry point group; yields the folder."""
    site = tmp_path / "site"
    info = site / "profiles-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "profiles.py").write_text(PLUGIN)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: profiles\nVersion: 0.1\n")
    points = "".join(f"{n} = profiles:{n.title()}\n" for n in NAMES)
    (info / "entry_points.txt").write_text("[initiative.rulesets]\n" + points)
    monkeypatch.syspath_prepend(str(site))
    try:
        yield tmp_path
    finally:
        sys.modules.pop("profiles", None)
        for name in NAMES:
            _REGISTRY.pop(name, None)


def duel(ruleset: str, folder: Path | None = None) -> Path:
    """``openings-duel`` under ``ruleset`` (written into ``folder``, else the example)."""
    if folder is None:
        return EXAMPLES / "openings-duel.toml"
    text = (EXAMPLES / "openings-duel.toml").read_text()
    path = folder / f"{ruleset}.toml"
    path.write_text(text.replace('ruleset = "openings"', f'ruleset = "{ruleset}"'))
    return path


def context(path: Path) -> PolicyContext:
    spec = load_encounter(path)
    return PolicyContext(combatant=spec.combatants[0], encounter=spec, rng=policy_rng(1, "ilse"))


def test_every_bundled_ruleset_declares_its_profile() -> None:
    """The four bundled rulesets each set their own settings, weights and review budget."""
    profiles = {
        n: find_ruleset(n).search_profile
        for n in ("openings", "percentile", "tactical", "thriller")
    }
    assert profile_settings(profiles["tactical"]) == {
        "rollouts": "20",
        "rounds": "0",
        "evaluate": "value",
    }
    assert profile_settings(profiles["thriller"]) == {
        "rollouts": "60",
        "steps": "3600",
        "turns": "1",
        "width": "10",
        "evaluate": "value",
    }
    for name, profile in profiles.items():
        assert isinstance(profile, SearchProfile) and profile != SearchProfile(), name
        assert profile.value is not None and profile.value != shipped().fit.weights, name
        assert default_rollouts(name) == profile.review, name
    assert {default_rollouts(n) for n in profiles} == {96, 32, 24, 48}


def test_the_value_of_a_bundled_ruleset_is_its_own() -> None:
    """``evaluate=value`` scores with the weights the ruleset declares."""
    search = load_policy("search", context(duel("openings"))).policy
    assert isinstance(search, Search) and isinstance(search.evaluate, Value)
    assert search.evaluate.weights == find_ruleset("openings").search_profile.value


def test_a_plugin_without_a_profile_plays_the_generic_search(plugin: Path) -> None:
    """A ruleset that declares no profile (``SearchProfile()``, the base class's) plays
    :class:`Search`'s own defaults, its learned value (when asked for) is the one learned from
    every bundled ruleset, and a review of its fights makes the review's default rollouts."""
    ctx = context(duel("homebrew", plugin))
    bare = load_policy("search", ctx).policy
    assert isinstance(bare, Search)
    assert (bare.rollouts, bare.steps, bare.rounds, bare.evaluate) == (
        ROLLOUTS,
        STEPS,
        ROUNDS,
        outcome,
    )
    valued = load_policy("search:evaluate=value", ctx).policy
    assert valued.evaluate.weights == shipped().fit.weights
    assert default_rollouts("homebrew") == REVIEW_ROLLOUTS


@pytest.mark.parametrize(
    ("ruleset", "message"),
    [
        ("zero", "ruleset 'zero': search_profile: Expected `int` >= 1 - at `$.rollouts`"),
        ("untyped", "ruleset 'untyped': search_profile is a dict, not an engine.SearchProfile"),
        (
            "endless",
            "ruleset 'endless': search_profile: a weight of value is not finite: (1.0, 1.0, inf, 0.0)",
        ),
        (
            "shapeless",
            "ruleset 'shapeless': search_profile: Invalid enum value 'forever' - at `$.rounds`",
        ),
    ],
)
def test_a_malformed_profile_is_refused_in_one_line(
    plugin: Path, ruleset: str, message: str
) -> None:
    """A profile that is not a SearchProfile, or has a field out of its type or range, or a
    learned weight that is not finite, is a PolicyLoadError naming the ruleset and the field."""
    with pytest.raises(PolicyLoadError) as caught:
        load_policy("search", context(duel(ruleset, plugin)))
    assert str(caught.value) == message


def test_the_command_refuses_a_malformed_profile_in_one_line(plugin: Path) -> None:
    """``run --policy SIDE=search`` under a ruleset with a malformed profile: one line, exit 2,
    no traceback."""
    done = cli_support.run("run", duel("zero", plugin), "--policy", "north=search", "--quiet")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().count("\n") == 0
    assert "ruleset 'zero': search_profile: Expected `int` >= 1 - at `$.rollouts`" in done.stderr
