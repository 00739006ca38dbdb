"""The one rule for hidden information (``initiative/table/_sight.py``), frame by frame."""

from __future__ import annotations

import json

import msgspec
from initiative.actors import Seen, StateTable
from initiative.events import SetHp
from initiative.replays import gm_words

from initiative.table import _wire as wire
from initiative.table._sight import EVERYTHING, THE_GM, Sight, Told, Veiled

SIDES = {"ana": "north", "bo": "south", "cur": "south"}


def sight(*sides: str) -> Sight:
    return Sight(full=False, sides=frozenset(sides), side_of=SIDES.get)


def row(who: str, hp: int, distance: float | None) -> Seen:
    return Seen(
        id=who,
        name=who.title(),
        side=SIDES[who],
        role="",
        health="hurt",
        hp=hp,
        max_hp=20,
        ap=3,
        conditions=(),
        distance=distance,
        standing=True,
        acting=False,
    )


def token(who: str, *conditions: str) -> wire.Token:
    return wire.Token(
        id=who,
        name=who.title(),
        side=SIDES[who],
        at=(1.0, 2.0),
        size=2,
        reach=1.5,
        conditions=tuple((c, c, "") for c in conditions),
    )


TOLD = Told(
    said=(
        "Round 1",
        Veiled("The GM sets Bo's hit points to 7.", "bo", "The GM changes Bo's wounds: bloodied."),
        Veiled("Bo takes 13 damage", "bo", None),
        Veiled(
            "The GM sets Cur's hit points to 2.",
            "cur",
            "The GM changes Cur's wounds: hurt.",
            quiet=True,
        ),
    ),
    state=StateTable(
        seq=9, round=1, combatants=(row("ana", 12, None), row("bo", 7, 1.0), row("cur", 2, 3.0))
    ),
    board=wire.Board(
        tokens=(token("ana"), token("bo"), token("cur", "hidden")),
        last_move=("cur", (0.0, 0.0), (1.0, 2.0)),
    ),
    lines=10,
)


def test_a_seat_sees_its_side_in_numbers_and_the_rest_in_words() -> None:
    """North's sight: its own numbers; the south's hit points, most and AP null."""
    frame = json.loads(sight("north").out(TOLD) or b"")
    rows = {r["id"]: r for r in frame["state"]["combatants"]}
    assert (rows["ana"]["hp"], rows["ana"]["max_hp"], rows["ana"]["ap"]) == (12, 20, 3)
    assert (rows["bo"]["hp"], rows["bo"]["max_hp"], rows["bo"]["ap"]) == (None, None, None)
    assert rows["bo"]["health"] == "hurt" and frame["lines"] == 10


def test_an_override_is_told_in_the_words_the_sight_may_know() -> None:
    """Hidden: the wounds, not the number, nor the damage; quiet: not at all; the GM: all."""
    assert sight("north").said(TOLD.said) == ("Round 1", "The GM changes Bo's wounds: bloodied.")
    assert sight("south").said(TOLD.said) == (
        "Round 1",
        "The GM sets Bo's hit points to 7.",
        "Bo takes 13 damage",
    )
    assert EVERYTHING.said(TOLD.said) == tuple(
        s if isinstance(s, str) else s.full for s in TOLD.said
    )


def test_a_hidden_enemy_is_off_the_map_and_its_distance_unknown() -> None:
    """The ``hidden`` condition: the place is hidden from its enemies (the engine leaves it
    out of their views), so its token, its last move and its distance are too."""
    frame = json.loads(sight("north").out(TOLD) or b"")
    assert [t["id"] for t in frame["board"]["tokens"]] == ["ana", "bo"]
    assert frame["board"]["last_move"] is None
    rows = {r["id"]: r for r in frame["state"]["combatants"]}
    assert (rows["cur"]["distance"], rows["bo"]["distance"]) == (None, 1.0)
    own = json.loads(sight("south").out(TOLD) or b"")
    assert [t["id"] for t in own["board"]["tokens"]] == ["ana", "bo", "cur"]


def test_news_reaches_only_a_sight_that_sees_everything() -> None:
    """A log line holds every number: no news to a filtered sight."""
    line = b'{"type":"RoundStarted","seq":1,"cause":0,"round":1}'
    news = wire.News(event=msgspec.Raw(line))
    assert sight("north", "south").out(news) is None
    assert EVERYTHING.out(news) == b'{"type":"news","event":' + line + b"}\n"


def test_the_words_of_a_hit_point_override() -> None:
    """The GM's narration says a quiet one is quiet; a sight that may not see the number hears
    the wounds it leaves."""
    assert gm_words(SetHp(who="bo", hp=7, quiet=True), str) == (
        "The GM quietly sets bo's hit points to 7."
    )
    assert gm_words(SetHp(who="bo", hp=7), str, wounds="bloodied") == (
        "The GM changes bo's wounds: bloodied."
    )


def test_odds_and_the_review_reach_the_gm_alone() -> None:
    """The live odds and the review's progress go to the GM's sight only: not to a seat, a
    default spectator, nor one that sees every number (``--spectators all``)."""
    odds = wire.Odds(seq=31, round=2, win={"north": 0.7, "south": 0.3}, rollouts=32)
    status = wire.ReviewStatus(state="running", done=3, total=38)
    for frame in (odds, status):
        assert THE_GM.out(frame) == wire.encode(frame)
        for other in (EVERYTHING, sight("north"), sight("north", "south")):
            assert other.out(frame) is None
