"""Every built-in policy passes the conformance check on random encounters of every ruleset."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

import msgspec
import pytest
from initiative.actors import BUILTIN, check_policy
from initiative.events import EncounterSpec

from initiative import engine

EXAMPLES = Path(__file__).parents[2] / "examples"


def random_encounters(ruleset: str, count: int, seed: int) -> list[EncounterSpec]:
    """Encounters of ``ruleset``: its examples with combatants placed and hurt at random."""
    rng = random.Random(seed)
    files = sorted(EXAMPLES.glob(f"{ruleset}-*.toml"))
    out = []
    for i in range(count):
        data = tomllib.loads(files[i % len(files)].read_text())
        for c in data["combatants"]:
            c["position"] = [rng.randint(-8, 8), rng.randint(-8, 8)]
            c["hp"] = rng.randint(3, 30)
        data["seed"] = rng.randint(0, 10_000)
        out.append(engine.decode_encounter(data, name=f"{files[i % len(files)].name}#{i}"))
    return out


def rulesets_with_examples() -> list[str]:
    return [r for r in engine.ruleset_names() if any(EXAMPLES.glob(f"{r}-*.toml"))]


@pytest.mark.parametrize("ruleset", rulesets_with_examples())
@pytest.mark.parametrize("policy", sorted(set(BUILTIN) - {"lookahead", "search", "human"}))
def test_builtin_policy_conforms(policy: str, ruleset: str) -> None:
    """A built-in answers every window with an offered action and never raises: three
    encounters (each of the ruleset's examples, placed and hurt at random) and two seeds give
    it both kinds of window and more than fifty decisions."""
    report = check_policy(policy, random_encounters(ruleset, 3, seed=11), seeds=range(2))
    assert report.problems == []
    assert report.decisions > 50
    if policy != "scripted":
        assert report.windows == {"turn", "opening"}


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", rulesets_with_examples())
@pytest.mark.parametrize("policy", sorted(set(BUILTIN) - {"lookahead", "search", "human"}))
def test_builtin_policy_conforms_on_more_encounters(policy: str, ruleset: str) -> None:
    """The same on six encounters and three seeds."""
    report = check_policy(policy, random_encounters(ruleset, 6, seed=11), seeds=range(3))
    assert report.problems == []


#: Rulesets whose look-ahead check is quick; the others' (ten times the work: more combatants,
#: more offers to fork) run in the slow tier.
LOOKAHEAD_QUICK = {"openings", "percentile"}


@pytest.mark.parametrize(
    "ruleset",
    [
        pytest.param(r, marks=() if r in LOOKAHEAD_QUICK else pytest.mark.slow)
        for r in rulesets_with_examples()
    ],
)
def test_lookahead_conforms(ruleset: str) -> None:
    """The look-ahead policy passes too, on one encounter of two rounds: it simulates many
    fights for each decision (each fork replays the fight so far), and two rounds already give
    it turns and openings."""
    short = [
        msgspec.structs.replace(spec, max_rounds=2)
        for spec in random_encounters(ruleset, 1, seed=5)
    ]
    report = check_policy("lookahead", short, seeds=[1])
    assert report.problems == []
    assert report.windows == {"turn", "opening"}


def test_conformance_check_catches_an_illegal_answer(tmp_path: Path) -> None:
    """The check names a policy that answers with something never offered."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from initiative.events import Attack\n"
        "def always_attack_nobody(view):\n"
        "    return Attack(target='nobody')\n"
    )
    report = check_policy(
        f"{bad}:always_attack_nobody", random_encounters("openings", 1, seed=1), seeds=[1]
    )
    assert not report.ok
    assert "Attack target=nobody is not among the offers" in report.problems[0]
