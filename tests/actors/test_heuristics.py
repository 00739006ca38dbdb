"""The built-in policies use what the rulesets offer: blows of any kind aimed at an enemy,
reloading, any move that closes in, reaction moves, stepping back out of reach only when that
provokes no blow, a defence's AP kept back (cautious), a blow kept for an opening (tactician)."""

from __future__ import annotations

from initiative.actors import Cautious, Tactician, aggressive
from initiative.engine import CombatantState, View
from initiative.engine.rulesets.tactical import CastMagic, Dash, Evade
from initiative.events import (
    Action,
    ActionDeclared,
    Attack,
    EndTurn,
    Move,
    Offer,
    Pass,
    Position,
    ReadyWeapon,
    Trigger,
    Window,
)

from tests.helpers import encounter, fight, sword_duel

PAIR = sword_duel("", a_stats=", initiative = 50")


def view(
    offers: list[Offer],
    *,
    ap: int = 3,
    at: float = 1.0,
    trigger: Trigger | None = None,
) -> View:
    """A view of ``a`` facing ``b`` ``at`` metres away: its turn, or an opening on ``trigger``."""
    spec = encounter(PAIR)
    me = CombatantState(id="a", side="red", hp=20, max_hp=20, ap=ap, position=Position(0, 0))
    enemy = CombatantState(id="b", side="blue", hp=20, max_hp=20, ap=0, position=Position(at, 0))
    window = Window(kind="opening", trigger=trigger) if trigger else Window(kind="turn")
    closing: Action = Pass() if trigger else EndTurn()
    return View(
        me=me,
        spec=spec.combatants[0],
        allies=(),
        enemies=(enemy,),
        window=window,
        legal=(*offers, Offer(action=closing, cost=0)),
        round=1,
        active="a",
        order=("a", "b"),
        ruleset="openings",
        seq=1,
    )


FAR = 6.0
TURN_ENDED = Trigger(kind="turn_ended", by="b")


def test_a_spell_aimed_at_an_enemy_is_a_blow_when_no_attack_is_offered() -> None:
    """An action whose target is an enemy is taken over moving (no marker needed)."""
    spell = CastMagic(spell="spirit bolt", target="b")
    offers = [Offer(action=Move(to=Position(5, 0)), cost=1), Offer(action=spell, cost=1)]
    assert aggressive(view(offers, at=FAR)) == spell
    assert Tactician().decide(view(offers, at=FAR)) == spell
    assert Cautious().decide(view(offers, at=FAR)) == spell


def test_an_empty_crossbow_is_reloaded_before_anything_but_a_blow() -> None:
    reload = ReadyWeapon(weapon="crossbow", mode="reload")
    offers = [Offer(action=Move(to=Position(5, 0)), cost=1), Offer(action=reload, cost=1)]
    assert aggressive(view(offers, at=FAR)) == reload
    assert Tactician().decide(view(offers, at=FAR)) == reload
    assert Cautious().decide(view(offers, at=FAR)) == reload


def test_a_dash_that_closes_in_is_taken_like_a_move() -> None:
    """Any action with a destination moves; the one ending nearest the enemy is taken."""
    dash = Dash(to=Position(5, 0))
    offers = [Offer(action=Move(to=Position(-3, 0)), cost=0), Offer(action=dash, cost=1)]
    assert aggressive(view(offers, at=FAR)) == dash


def test_an_evade_that_steps_is_not_a_move() -> None:
    """A defence with a destination is no way to close in."""
    offers = [Offer(action=Evade(to=Position(5, 0)), cost=1)]
    assert aggressive(view(offers, at=FAR)) == EndTurn()


def test_a_reaction_move_closes_in_when_there_is_no_blow_to_strike() -> None:
    closer = Move(to=Position(4, 0))
    offers = [Offer(action=Move(to=Position(-2, 0)), cost=1), Offer(action=closer, cost=1)]
    assert aggressive(view(offers, at=FAR, trigger=TURN_ENDED)) == closer
    assert aggressive(view(offers[:1], at=1.0, trigger=TURN_ENDED)) == Pass()  # in reach


def moves_of(ap: int) -> list[Action]:
    """What ``a`` (aggressive, first in the order) does in its first turn against ``b`` with at
    most ``ap`` AP, one metre apart, in a real fight."""
    text = PAIR.replace('id = "b"', f'id = "b"\nap = {ap}')
    events = fight(text, seed=1).events
    turn: list[Action] = []
    for e in events:
        if isinstance(e, ActionDeclared) and e.who == "a":
            turn.append(e.action)
            if isinstance(e.action, EndTurn):
                return turn
    raise AssertionError("a never ended its turn")


def test_it_hits_and_steps_back_when_leaving_gives_the_enemy_no_blow() -> None:
    """With 1 AP left after its blow, it steps out of reach of an enemy who could not strike
    at it for leaving (it has 1 AP, an attack costs 2)."""
    first, step, end = moves_of(1)
    assert isinstance(first, Attack) and isinstance(step, Move) and end == EndTurn()


def test_it_stays_when_stepping_back_would_give_the_enemy_a_blow() -> None:
    """The same, but the enemy holds 3 AP: leaving its space would open a free attack."""
    first, end = moves_of(3)
    assert isinstance(first, Attack) and end == EndTurn()


def test_cautious_strikes_again_only_while_a_defence_stays_in_hand() -> None:
    """Once offered a 1-AP defence, it keeps 1 AP: a second 1-AP blow from 3 AP, not a third."""
    policy = Cautious()
    attacked = Trigger(kind="attacked", by="b", target="a")
    assert policy.decide(view([Offer(action=Evade(), cost=1)], trigger=attacked)) == Evade()
    blow = Offer(action=Attack(target="b"), cost=1)
    assert policy.decide(view([blow], ap=3)) == blow.action
    assert policy.decide(view([blow], ap=2)) == blow.action
    assert policy.decide(view([blow], ap=1)) == EndTurn()


def test_tactician_keeps_a_blow_for_the_opening_once_it_knows_there_is_one() -> None:
    """Its blows cost 2; after an opening at a turn's end offered one, it does not spend AP
    on a step that leaves it unable to strike this turn."""
    policy = Tactician()
    closer = Offer(action=Move(to=Position(4, 0)), cost=1)
    assert policy.decide(view([closer], ap=2, at=FAR)) == closer.action  # it does not know yet
    blow = Offer(action=Attack(target="b"), cost=2)
    assert policy.decide(view([blow], ap=3)) == blow.action
    assert policy.decide(view([blow], trigger=TURN_ENDED)) == blow.action
    assert policy.decide(view([closer], ap=2, at=FAR)) == EndTurn()
    assert policy.decide(view([closer], ap=3, at=FAR)) == closer.action  # 2 AP left: a blow
