"""No silent mistakes: misspelled keys, failing policies under ``strict``, a class without
``decide``, an Offer sent for its action (issue 25, item 3)."""

from __future__ import annotations

import pytest
from initiative.actors import in_line, make_runners
from initiative.events import DecisionFailed

import initiative
from tests.helpers import DUEL


def test_a_misspelled_combatant_in_policies_is_refused_with_a_suggestion() -> None:
    """``policies={"ilsa": ...}`` names the key and suggests the combatant ``ilse``."""
    with pytest.raises(initiative.PolicyLoadError) as caught:
        initiative.run(DUEL, seed=1, policies={"ilsa": "aggressive"})
    assert str(caught.value) == (
        "policies: no combatant or side 'ilsa' in 'Duel in the rain' (did you mean 'ilse'?)"
    )


def test_a_misspelled_side_in_policies_is_refused_with_a_suggestion() -> None:
    """``{"nrth": "random"}`` is refused before any fight, suggesting the side ``north``."""
    with pytest.raises(initiative.PolicyLoadError, match=r"'nrth' .*\(did you mean 'north'\?\)"):
        initiative.run(DUEL, seed=1, policies={"nrth": "random"})


def test_a_key_far_from_every_name_lists_the_combatants_and_sides() -> None:
    """With no near miss, the message lists what the encounter has."""
    with pytest.raises(initiative.PolicyLoadError) as caught:
        initiative.run(DUEL, seed=1, policies={"zzz": "random"})
    assert str(caught.value).endswith(
        "no combatant or side 'zzz' in 'Duel in the rain'"
        " (combatants: ilse, tomas, hound; sides: north, south)"
    )


def test_a_misspelled_key_in_hosts_is_refused() -> None:
    """``hosts`` shares the check: a key that is no combatant or side is named."""
    spec = initiative.load_encounter(DUEL)
    with pytest.raises(initiative.PolicyLoadError, match=r"^hosts: .*'tomass'.*'tomas'"):
        make_runners(spec, 1, hosts={"tomass": "thread"})


def test_run_async_refuses_a_misspelled_key_too() -> None:
    """The Trio entry point goes through the same check."""
    import trio

    with pytest.raises(initiative.PolicyLoadError, match="did you mean 'ilse'"):
        trio.run(lambda: initiative.run_async(DUEL, seed=1, policies={"Ilse ": "random"}))


def returns_a_word(view):
    return "attack!"


def returns_nothing(view):
    return None


def divides_by_zero(view):
    return 1 / 0


@pytest.mark.parametrize(
    ("policy", "kind", "cause"),
    [
        (returns_a_word, "invalid", "TypeError(\"decide returned 'attack!', not an action\")"),
        (returns_nothing, "invalid", "TypeError('decide returned None, not an action')"),
        (divides_by_zero, "error", "ZeroDivisionError('division by zero')"),
    ],
)
def test_strict_raises_the_policys_fault_with_its_error_chained(policy, kind, cause) -> None:
    """``strict=True``: the first failed decision stops the fight as ``PolicyFailedError``
    (a thread-hosted policy under the actor executor), the policy's error as its cause."""
    with pytest.raises(initiative.PolicyFailedError) as caught:
        initiative.run(DUEL, seed=1, policies={"ilse": policy}, strict=True)
    assert str(caught.value).startswith(f"ilse (policy {policy.__name__!r}) failed a decision")
    assert f"({kind})" in str(caught.value)
    assert repr(caught.value.__cause__) == cause


def test_strict_raises_under_the_in_line_executor_too() -> None:
    """A policy called in line fails the same way, with the same chained error."""
    with pytest.raises(initiative.PolicyFailedError) as caught:
        initiative.run(
            DUEL,
            seed=1,
            policies={"ilse": in_line(divides_by_zero)},
            executor="inline",
            strict=True,
        )
    assert isinstance(caught.value.__cause__, ZeroDivisionError)


def test_without_strict_a_fault_is_recorded_and_the_fight_goes_on() -> None:
    """The default keeps today's behaviour: a ``DecisionFailed`` in the log, a winner."""
    result = initiative.run(DUEL, seed=1, policies={"ilse": divides_by_zero})
    failed = [e for e in result.events if isinstance(e, DecisionFailed)]
    assert failed and {e.who for e in failed} == {"ilse"}
    assert result.winner == "south"


class NoDecide:
    """A class whose objects cannot decide anything."""

    def choose(self, view):
        return view.legal[0].action


def test_a_class_without_decide_is_refused_at_load() -> None:
    """Refused once, before the fight, naming the class; not a fault at every decision."""
    with pytest.raises(initiative.PolicyLoadError) as caught:
        initiative.run(DUEL, seed=1, policies={"ilse": NoDecide})
    assert str(caught.value) == (
        "policy 'NoDecide': class NoDecide has no decide(view) method"
        " (and its objects are not callable)"
    )


def test_send_refuses_an_offer_and_names_its_action() -> None:
    """``fight.send(offer)`` is an error that says to send ``offer.action``; nothing is
    recorded, and sending the action then works."""
    fight = initiative.step(DUEL, seed=3)
    before = len(fight.events)
    offer = fight.offers[0]
    with pytest.raises(initiative.IllegalActionError, match=r"^send\(offer\.action\), not the"):
        fight.send(offer)
    assert len(fight.events) == before
    fight.send(offer.action)
    assert len(fight.events) > before


def test_a_forks_send_refuses_an_offer_too() -> None:
    """The look-ahead's ``view.fork().send`` refuses an Offer the same way."""
    fight = initiative.step(DUEL, seed=3)
    assert fight.view is not None
    branch = fight.view.fork()
    assert branch is not None and branch.token is not None
    with pytest.raises(initiative.IllegalActionError, match=r"send\(offer\.action\)"):
        branch.send(branch.token.legal[0])


def test_send_after_the_end_is_an_error_of_the_project() -> None:
    """Once over, ``send`` raises ``IllegalActionError`` saying nothing waits."""
    fight = initiative.step(DUEL, seed=3)
    while not fight.over:
        fight.send(fight.offers[0].action)
    with pytest.raises(initiative.IllegalActionError, match="the encounter has ended"):
        fight.send(None)
