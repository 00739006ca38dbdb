"""A fifth game, shipped as its own package: installed, its ruleset is found by name through the
``initiative.rulesets`` entry-point group, and its encounters run, verify, show, view and batch
like the bundled ones. The package is the example of docs/rulesets.md ("Writing a ruleset")."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import cli_support
import pytest
from initiative.events import ActionDeclared, ConditionAdded, read_log

# Builds and installs a package, runs real processes; on one worker, which installs it once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("brawl-package")]

INITIATIVE = str(Path(sys.executable).parent / "initiative")

PYPROJECT = cli_support.pyproject(
    "initiative-test-brawl", ["brawl"], ("initiative.rulesets", "brawl", "brawl:Brawl")
)

MODULE = '''
"""brawl: fists and shoves. A small ruleset shipped as its own package.

- Initiative: 1d6 + might. Each combatant has 2 AP a turn (``ap`` in [options]).
- Attack (1 AP): an enemy in a melee weapon's reach; 1d6 + might against 4, and a hit deals
  the weapon's damage less the target's armor.
- Shove (1 AP, this ruleset's own action): an enemy in melee reach; 1d6 + might against the
  target's 1d6 + might, and on a win the target is staggered (this ruleset's own condition)
  and has 1 AP less next turn.
- Move (1 AP): up to one's speed, toward the nearest enemy or away from it.
- Duck (1 AP, a reaction; this ruleset's own action): when an enemy attacks you, before the
  blow lands, you may duck with an AP left from your own turn; the attack then needs 2 more.

Each action is one unit (``initiative.engine.ActionUnit``) holding its offers, its check, its
cost, what it does and its words. Offers, checks and the attack come from the kit
(``initiative.engine.kit``), so what brawl offers is what its check accepts, and its attacks
and moves are logged and told like the bundled ones.
"""

from __future__ import annotations

from typing import Any, ClassVar

from initiative.engine import ActionUnit, Condition, Hook, Options, Rules, Ruleset, Say
from initiative.engine.kit import (
    AttackUnit,
    MoveUnit,
    attack_offers,
    check_melee_target,
    check_move,
    check_plain_attack,
    move_offers,
    resolve_attack,
    weapon_named,
)
from initiative.events import Action, Attack, CombatantSpec, Move, Offer, Trigger, Window


class Shove(Action, frozen=True, tag="brawl.Shove"):
    """Shove an enemy in reach off balance."""

    is_attack: ClassVar[bool] = True
    target: str


class Staggered(Condition, frozen=True):
    """Shoved off balance: 1 AP less at the start of its next turn."""

    name = "brawl.staggered"


STAGGERED = Staggered()


class Duck(Action, frozen=True, tag="brawl.Duck"):
    """Duck the blow an enemy aims at you."""

    is_reaction: ClassVar[bool] = True
    is_defence: ClassVar[bool] = True


def might(fight: Rules, who: str) -> int:
    return fight.spec(who).stats.get("might", 0)


class Punching(AttackUnit):
    """Attack: the kit's offers and check; its words are the kit's too (``AttackUnit``)."""

    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        return attack_offers(fight, who, 1, melee_only=True) if fight.get(who).ap >= 1 else []

    def check(self, fight: Rules, who: str, action: Attack, window: Window) -> str | None:
        return check_plain_attack(fight, who, action)

    def perform(self, fight: Rules, who: str, action: Attack, window: Window) -> Hook:
        # Before the blow lands, an opening: the target may react (Ducking, below). The
        # opening pauses this generator while the target decides; it returns the reactions
        # taken, each with what its unit's perform returned (Reaction.result).
        attacked = Trigger(kind="attacked", by=who, target=action.target, event=fight.cause)
        reactions = yield from fight.opening(attacked, [action.target])
        ducked = any(r.result == "ducked" for r in reactions)
        weapon = weapon_named(fight, who, action.weapon)
        assert weapon is not None  # (the check refuses a weapon not carried)
        if not (fight.standing(who) and fight.standing(action.target)):
            return None
        against = 6 if ducked else 4
        bonus = might(fight, who)
        resolve_attack(fight, who, action.target, weapon, bonus=bonus, against=against, die="1d6")
        return None


class Shoving(ActionUnit[Shove]):
    """Shove: this ruleset's own action, with its own words."""

    action = Shove
    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        if fight.get(who).ap < 1:
            return []
        # Whoever one could hit in melee: the kit's check_melee_target accepts them.
        attacks = attack_offers(fight, who, 1, melee_only=True)
        targets = [a.action.target for a in attacks if isinstance(a.action, Attack)]
        return [Offer(action=Shove(target=t), cost=1) for t in targets]

    def check(self, fight: Rules, who: str, action: Shove, window: Window) -> str | None:
        return check_melee_target(fight, who, action.target)

    def resolve(self, fight: Rules, who: str, action: Shove, window: Window) -> None:
        target = action.target
        mine = fight.roll(who, f"shove {target}", f"1d6{might(fight, who):+d}")
        theirs = fight.roll(target, "stand firm", f"1d6{might(fight, target):+d}")
        if mine.total > theirs.total:
            fight.add_condition(target, STAGGERED, until="its next turn")

    def offered(self, action: Shove, say: Say) -> str:
        return f"Shove {say.name(action.target)} off balance"

    def told(self, action: Shove, say: Say) -> str:
        return f"shoves {say.name(action.target)}"


class Ducking(ActionUnit[Duck]):
    """Duck: a reaction, offered only in the opening an attack on oneself makes."""

    action = Duck
    when = ("opening",)  # never in one's own turn
    answers = ("attacked",)  # only in openings of this trigger kind (Punching's)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        if self.check(fight, who, Duck(), window) is not None:
            return []
        return [Offer(action=Duck(), cost=1)]

    def check(self, fight: Rules, who: str, action: Duck, window: Window) -> str | None:
        trigger = window.trigger
        if trigger is None or trigger.kind != "attacked" or trigger.target != who:
            return "one ducks only a blow aimed at oneself"
        if fight.get(who).ap < 1:
            return "no AP left to duck with"
        return None

    def resolve(self, fight: Rules, who: str, action: Duck, window: Window) -> str:
        return "ducked"  # the reaction's result, which the attack reads

    def offered(self, action: Duck, say: Say) -> str:
        return "Duck the blow"

    def told(self, action: Duck, say: Say) -> str:
        return "ducks"


class Walking(MoveUnit):
    """Move: the kit's offers and check, up to one's speed."""

    when = ("turn",)

    def offers(self, fight: Rules, who: str, window: Window) -> list[Offer]:
        if fight.get(who).ap < 1:
            return []
        return move_offers(fight, who, 1, fight.spec(who).speed)

    def check(self, fight: Rules, who: str, action: Move, window: Window) -> str | None:
        return check_move(fight, who, action.to, fight.spec(who).speed)

    def resolve(self, fight: Rules, who: str, action: Move, window: Window) -> None:
        fight.move(who, action.to)


class BrawlOptions(Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    ap: int = 2
    """Action points a turn."""


class Brawl(Ruleset):
    name = "brawl"
    version = 1
    Options = BrawlOptions
    stats = frozenset({"might"})
    initiative_die = 6
    roll_off_die = 6
    units = (Punching(), Shoving(), Walking(), Ducking())  # its offers, in this order
    conditions = (Staggered,)
    options: BrawlOptions

    def max_ap(self, c: CombatantSpec) -> int:
        return c.ap if c.ap is not None else self.options.ap

    def initiative_modifier(self, c: CombatantSpec) -> int:
        return c.stats.get("might", 0)

    def turn_started(self, fight: Rules, who: str) -> Hook:
        ap = self.max_ap(fight.spec(who))
        if fight.has(who, STAGGERED):
            fight.remove_condition(who, STAGGERED)
            ap -= 1
        fight.set_ap(who, ap, "turn start")
        return None
        yield

    def check(self, fight: Rules, who: str, action: Any, window: Window) -> str | None:
        # A rule every action shares: the unit's own check comes after it.
        if not window.is_turn and not isinstance(action, Duck):
            return "brawl's only reaction is Duck"
        return super().check(fight, who, action, window)
'''

ENCOUNTER = """
ruleset = "brawl"
name = "Tavern brawl"
seed = 2

[options]
ap = 2

[[combatants]]
id = "bruno"
side = "locals"
hp = 12
position = [0, 0]
stats = { might = 2 }
weapons = [{ name = "fists", damage = "1d3" }]
policy = "random"

[[combatants]]
id = "kasia"
side = "sailors"
hp = 10
position = [4, 0]
stats = { might = 1 }
weapons = [{ name = "bottle", damage = "1d4" }]
policy = "aggressive"
"""


ENV: dict[str, str] = {}  # the environment that sees the installed package (set by brawl)


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [INITIATIVE, *map(str, args)], capture_output=True, text=True, timeout=300, env=ENV or None
    )


@pytest.fixture(scope="module")
def brawl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The package built and installed offline into a folder of its own that the commands see
    (as site-packages, through PYTHONPATH); yields the encounter file."""
    src = tmp_path_factory.mktemp("brawl-package")
    (src / "pyproject.toml").write_text(PYPROJECT)
    (src / "brawl").mkdir()
    (src / "brawl" / "__init__.py").write_text(MODULE)
    site = tmp_path_factory.mktemp("brawl-site")
    ENV.update(cli_support.install(src, site))
    sys.path.insert(0, str(site))  # this process reads its logs too
    encounter = tmp_path_factory.mktemp("brawl") / "tavern.toml"
    encounter.write_text(ENCOUNTER)
    try:
        yield encounter
    finally:
        ENV.clear()
        sys.path.remove(str(site))


@pytest.fixture(scope="module")
def log(brawl: Path) -> Path:
    out = brawl.parent / "tavern.jsonl"
    done = run("run", brawl, "--seed", "2", "--out", out, "--quiet")
    assert done.returncode == 0, done.stderr
    return out


POSITION_TEST = '''
from initiative.engine import check_ruleset, position
from initiative.events import Attack, AttackResolved

from brawl import Brawl, Duck, Shove

TAVERN = [
    {"id": "bruno", "side": "locals", "hp": 12, "position": [0, 0], "stats": {"might": 2}},
    {"id": "kasia", "side": "sailors", "hp": 10, "position": [1, 0], "stats": {"might": 1}},
]


def test_a_won_shove_staggers_and_costs_an_ap():
    """brawl: "on a win the target is staggered ... and has 1 AP less next turn" """
    at = position("brawl", combatants=TAVERN, turn="bruno")
    assert Shove(target="kasia") in at.offers("bruno")
    at.act("bruno", Shove(target="kasia"), dice=[(3,), (2,)])  # 3+2 against 2+1
    assert at.get("kasia").conditions == ("brawl.staggered",)
    next_turn = position("brawl", combatants=TAVERN, conditions={"kasia": ["brawl.staggered"]})
    next_turn.hook("turn_started", "kasia")
    assert next_turn.get("kasia").ap == 1
    assert next_turn.get("kasia").conditions == ()


def test_a_duck_makes_the_blow_need_2_more():
    """brawl: "when an enemy attacks you ... you may duck ...; the attack then needs 2 more" """
    at = position("brawl", combatants=TAVERN, turn="bruno", ap={"kasia": 1})
    events = at.act("bruno", Attack(target="kasia"), dice=[(3,)], reactions={"kasia": Duck()})
    blow = next(e for e in events if isinstance(e, AttackResolved))
    assert (blow.roll, blow.against, blow.hit) == (5, 6, False)  # 3+2 would hit 4, not 6
    assert at.get("kasia").ap == 0


def test_brawl_conforms():
    """Every offer passes brawl's own check, its actions survive the log and have words, and
    its hooks are deterministic (small fights it builds, two seeds)."""
    report = check_ruleset(Brawl)
    assert {"brawl.Shove", "brawl.Duck"} <= set(report.offered)
'''


def test_a_rule_checked_at_a_position(brawl: Path, tmp_path: Path) -> None:
    """The docs' tests pass against the installed package: the Shove rule at a position, and
    ``engine.check_ruleset`` on the whole ruleset."""
    (tmp_path / "test_brawl_rules.py").write_text(POSITION_TEST)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=ENV or None,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_installed_ruleset_is_listed(brawl: Path) -> None:
    done = run("rulesets")
    assert done.returncode == 0, done.stderr
    assert "brawl (version 1)\n" in done.stdout


def test_it_runs_with_its_own_action_and_condition(log: Path) -> None:
    """The log holds the ruleset's own action (tag ``brawl.Shove``) and condition."""
    events = read_log(log).events
    assert events[0].ruleset == "brawl"
    shoves = [
        e
        for e in events
        if isinstance(e, ActionDeclared) and e.action.describe().startswith("Shove")
    ]
    assert shoves
    assert b'"type":"brawl.Shove"' in log.read_bytes()
    staggered = [e for e in events if isinstance(e, ConditionAdded)]
    assert staggered and {e.condition for e in staggered} == {"brawl.staggered"}
    assert type(events[-1]).__name__ == "EncounterEnded"


def test_its_actions_read_in_their_own_words(log: Path, brawl: Path) -> None:
    """The table's narration and a seat's screen word brawl's Shove through its unit, found by
    the ruleset's registry, as they word the bundled rulesets' actions."""
    from initiative.actors import Names, present
    from initiative.engine import Fight, Stepper, load_encounter
    from initiative.replays import TableNarrator

    narrate = TableNarrator()
    told = [line for event in read_log(log).events if (line := narrate(event))]
    assert any(line.startswith(("bruno shoves kasia", "kasia shoves bruno")) for line in told)
    close = brawl.parent / "close.toml"
    close.write_text(ENCOUNTER.replace("position = [4, 0]", "position = [1, 0]"))
    spec = load_encounter(close)
    step = Stepper(Fight(spec, 2))
    while step.token is not None and not step.token.window.is_turn:
        step.apply(step.token.legal[-1].action)
    assert step.token is not None
    shown = present(step.token.view, Names(spec))
    other = "kasia" if step.token.who == "bruno" else "bruno"
    assert f"Shove {other} off balance" in [c.text for c in shown.offers]


def test_its_log_verifies(log: Path) -> None:
    done = run("verify", log)
    assert done.returncode == 0, done.stdout + done.stderr


def test_show_lists_its_actions(log: Path) -> None:
    done = run("show", log, "--type", "ActionDeclared", "--json")
    assert done.returncode == 0, done.stderr
    tags = {json.loads(line)["action"]["type"] for line in done.stdout.splitlines()}
    assert "brawl.Shove" in tags
    table = run("show", log, "--type", "ConditionAdded")
    assert table.returncode == 0, table.stderr
    assert "brawl.staggered" in table.stdout


def test_view_writes_its_timeline(log: Path, tmp_path: Path) -> None:
    page = tmp_path / "tavern.html"
    done = run("view", log, "-o", page)
    assert done.returncode == 0, done.stderr
    assert "brawl.Shove" in page.read_text()


def test_it_batches(brawl: Path) -> None:
    done = run("batch", brawl, "--runs", "6", "--jobs", "2", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [side["side"] for side in result["sides"]] == ["locals", "sailors"]
    assert sum(side["wins"] for side in result["sides"]) + result["no_winner"] == 6


def test_docs_show_this_very_package() -> None:
    """docs/rulesets.md ("Writing a ruleset") shows the package this test installs, verbatim."""
    docs = (Path(__file__).parents[2] / "docs" / "rulesets.md").read_text()
    for text in (PYPROJECT, MODULE, ENCOUNTER, POSITION_TEST):
        assert text.strip() in docs
