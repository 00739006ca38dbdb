"""The designer's statistics of ``batch`` and ``duel``: per-combatant records read from real
fights, their aggregates with intervals, stalemates (counted, and ended early by the encounter's
``stalemate_rounds`` in every ruleset), and the ``combatants`` table of the results database."""

from __future__ import annotations

import json
import sqlite3
import tomllib
from pathlib import Path

import cli_support
import pytest
from initiative.actors import run_encounter_sync
from initiative.batch import (
    CombatantRecord,
    FightStats,
    Summary,
    combatant_stats,
    fight_one,
    mean_ci,
    outcomes,
    t95,
)
from initiative.events import (
    ActionDeclared,
    Attack,
    CombatantDefeated,
    CombatantJoined,
    DamageDealt,
    EncounterEnded,
    Position,
    RoundEnded,
    RoundStarted,
    encode_lines,
    parse_log,
    read_log,
)
from initiative.replays import verify_log

from initiative import engine
from tests.helpers import DUEL, ROOT

GOLDEN = ROOT / "tests" / "golden"


def cli(*args: object) -> tuple[int, str, str]:
    done = cli_support.run(*args)
    return done.returncode, done.stdout, done.stderr


# --- one fight, counted by hand ----------------------------------------------------------------


def records_of(events: object, encounter: engine.EncounterSpec) -> FightStats:
    stats = FightStats(encounter)
    for e in events:  # type: ignore[attr-defined]
        stats.see(e)
    return stats


def test_the_duel_of_seed_3_counted_by_hand() -> None:
    """tests/golden/openings-duel.seed3.jsonl, read line by line: tomas hits ilse for 11 (seq 58,
    round 1), 6 (130, round 3), 11 (198, round 5) and 9 (264, round 7: she is at -3, defeated
    at 265); ilse hits tomas for 6 (153), 7 (186) and 8 (221); the hound flees at seq 25
    (round 1) without a blow. South wins in round 7. Ilse's rapier tests: 3 hits, 4 misses;
    Tomas's longsword: 4 hits, 4 misses; Tomas ends with 22 - 21 = 1 hit point, the hound
    (fled) with its 9."""
    log = read_log(GOLDEN / "openings-duel.seed3.jsonl")
    spec = log.events[0].encounter
    stats = records_of(log.events, spec)
    expected = {
        "ilse": CombatantRecord(
            dealt=6 + 7 + 8, taken=11 + 6 + 11 + 9, kills=0, fell=7, side="north", hp=0,
            attacks={"rapier": [3, 4]},
        ),
        "tomas": CombatantRecord(
            dealt=11 + 6 + 11 + 9, taken=6 + 7 + 8, kills=1, side="south", hp=1,
            attacks={"longsword": [4, 4]},
        ),
        "hound": CombatantRecord(side="south", hp=9),  # fled: never fell, so it survived
    }  # fmt: skip
    assert stats.records == expected
    assert not stats.stalemate
    # The batch worker reads the same fight, fought again from its seed, the same way.
    summary = fight_one(engine.load_encounter(DUEL), 3, {})
    assert (summary.winner, summary.rounds, summary.combatants) == ("south", 7, expected)
    assert summary.damage == {"north": 21, "south": 37}


def test_the_skirmish_of_seed_7_counted_by_hand() -> None:
    """tests/golden/openings-skirmish.seed7.jsonl: every DamageDealt summed by its source and by
    its target; each CombatantDefeated credited to the source of the DamageDealt that caused it
    (goblin-2 to wren in round 1, goblin-5 to brenna in 2, goblin-4 to wren in 4, goblin-3 to
    osric in 5, the boss to osric in 7, goblin-1 to wren in 8)."""
    log = read_log(GOLDEN / "openings-skirmish.seed7.jsonl")
    stats = records_of(log.events, log.events[0].encounter)
    got = {k: (r.dealt, r.taken, r.kills, r.fell) for k, r in stats.records.items()}
    assert got == {
        "brenna": (25, 12, 1, None),
        "osric": (28, 9, 2, None),
        "wren": (36, 0, 3, None),
        "goblin-1": (6, 9, 0, 8),
        "goblin-2": (0, 9, 0, 1),
        "goblin-3": (0, 15, 0, 5),
        "goblin-4": (1, 14, 0, 4),
        "goblin-5": (0, 17, 0, 2),
        "boss": (14, 25, 0, 7),
    }


def test_damage_without_a_source_is_credited_to_the_declared_action() -> None:
    """A ``DamageDealt`` without ``source`` is credited by walking ``cause`` back to the action
    it came from; the defeat it causes is a kill of the same combatant."""
    spec = engine.load_encounter(DUEL)
    attack = Attack(target="tomas")
    events = [
        CombatantJoined(seq=0, who="ilse", side="north", hp=5, ap=3, position=Position(0, 0)),
        CombatantJoined(seq=1, who="tomas", side="south", hp=5, ap=3, position=Position(1, 0)),
        RoundStarted(seq=2, round=1),
        ActionDeclared(seq=3, cause=2, who="ilse", action=attack),
        DamageDealt(seq=4, cause=3, who="tomas", amount=2, hp=3),
        DamageDealt(seq=5, cause=4, who="tomas", amount=4, hp=-1),  # (a second, chained blow)
        CombatantDefeated(seq=6, cause=5, who="tomas"),
        RoundEnded(seq=7, round=1),
        EncounterEnded(seq=8, winner="north", reason="only north is left standing", rounds=1),
    ]
    stats = records_of(events, spec)
    assert stats.records["ilse"] == CombatantRecord(dealt=6, kills=1, side="north", hp=5)
    assert stats.records["tomas"] == CombatantRecord(taken=6, fell=1, side="south", hp=0)


# --- aggregates --------------------------------------------------------------------------------


def test_means_have_t_intervals() -> None:
    """mean ± t(n-1)·sd/√n: [1, 2, 3] has sd 1, t(2) = 4.303, so 2 ± 2.484."""
    m = mean_ci([1, 2, 3])
    assert (m.n, m.mean) == (3, 2.0)
    assert m.low == pytest.approx(2 - 4.303 / 3**0.5)
    assert m.high == pytest.approx(2 + 4.303 / 3**0.5)
    assert mean_ci([4]).low is None and mean_ci([]).text() == "-"
    assert t95(30) == 2.042 and t95(60) == pytest.approx(2.000, abs=1e-3)
    assert t95(1000) == pytest.approx(1.962, abs=1e-3)


def test_combatant_stats_aggregate_the_records() -> None:
    """Three fights of the duel, their records set by hand: survival, means, falls."""
    spec = engine.load_encounter(DUEL)

    def fight(seed: int, winner: str | None, **records: CombatantRecord) -> Summary:
        names = {c.id: c.policy for c in spec.combatants}
        return Summary(seed, winner, 5, 10, {}, {}, names, combatants=records)

    results = [
        fight(1, "north", ilse=CombatantRecord(10, 4, 1), tomas=CombatantRecord(4, 10, 0, 3)),
        fight(2, "south", ilse=CombatantRecord(6, 12, 0, 5), tomas=CombatantRecord(12, 6, 1)),
        fight(3, None, ilse=CombatantRecord(8, 8, 0, 6), tomas=CombatantRecord(8, 8, 0, 6)),
    ]
    ilse, tomas, hound = combatant_stats(spec, results)
    assert (ilse.fights, ilse.survived, ilse.kills) == (3, 1, 1)
    assert (ilse.dealt.mean, ilse.taken.mean) == (8.0, 8.0)
    assert ilse.dealt.low == pytest.approx(8 - 4.303 * 2 / 3**0.5)
    assert (ilse.fell.n, ilse.fell.mean) == (2, 5.5)
    # t would reach 5.5 - 12.706 · 0.5 = -0.85: a round of fall is at least 1 (issue 36).
    assert (ilse.fell.low, ilse.fell.method) == (1, "t")
    assert ilse.fell.high == pytest.approx(5.5 + 12.706 * 0.5**0.5 / 2**0.5)
    assert (tomas.survived, tomas.fell.n, tomas.fell.mean) == (1, 2, 4.5)
    assert hound.fights == 0 and hound.dealt.text() == "-"
    assert ilse.policies == ["cautious"]


# --- stalemates --------------------------------------------------------------------------------

STATS = {
    "openings": {"agility": 3, "strength": 3, "defense": 3},
    "thriller": {"agility": 10, "strength": 10, "perception": 10, "willpower": 10, "sanity": 40},
    "percentile": {
        "weapon_skill": 40,
        "ballistic_skill": 40,
        "strength": 30,
        "toughness": 30,
        "agility": 30,
    },
    "tactical": {"str": 12, "con": 12, "ag": 12, "int": 12},
}


def standoff(ruleset: str, **top: object) -> dict[str, object]:
    """Two combatants 50 m apart who cannot move and carry only clubs: nobody can hurt anybody.
    (``idle_rounds = 0``: the fight does not end for want of actions, as it would by default.)"""
    stats = STATS[ruleset]
    return {
        "ruleset": ruleset,
        "max_rounds": 12,
        **top,
        "options": {"idle_rounds": 0},
        "combatants": [
            {
                "id": who,
                "side": side,
                "hp": 10,
                "stats": stats,
                "position": [x, 0.0],
                "speed": 0.0,
                "weapons": [{"name": "club", "damage": "1d4"}],
                "policy": policy,
            }
            for who, side, x, policy in (
                ("a", "north", 0.0, "aggressive"),
                ("b", "south", 50.0, "cautious"),
            )
        ],
    }


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_stalemate_rounds_ends_a_standoff_in_every_ruleset(ruleset: str) -> None:
    """With ``stalemate_rounds = 4`` the standoff ends after round 4 as a stalemate, the log
    verifies, and its header records the option; without it the same fight goes to its
    ``max_rounds`` (12) and is counted a stalemate all the same (no change in its last 10)."""
    spec = engine.decode_encounter(standoff(ruleset, stalemate_rounds=4), name="<standoff>")
    run = run_encounter_sync(spec, 1)
    end = run.events[-1]
    assert isinstance(end, EncounterEnded)
    assert (end.winner, end.rounds) == (None, 4)
    assert end.reason == "stalemate: no hit points changed in 4 rounds"
    raw = encode_lines(run.events)
    assert b'"stalemate_rounds":4' in raw.split(b"\n")[0]
    assert verify_log(parse_log(raw)).ok
    assert records_of(run.events, spec).stalemate

    plain = engine.decode_encounter(standoff(ruleset), name="<standoff>")
    events = run_encounter_sync(plain, 1).events
    assert (events[-1].reason, events[-1].rounds) == ("round limit (12) reached", 12)
    assert b"stalemate_rounds" not in encode_lines(events[:1])
    assert records_of(events, plain).stalemate


def test_a_hit_in_the_last_rounds_is_no_stalemate() -> None:
    """At the round limit, a change of hit points within the last 10 rounds makes the fight
    undecided, not a stalemate; outside them, a stalemate."""
    spec = engine.decode_encounter(standoff("openings"), name="<standoff>")

    def ended_after_a_hit_in(hit_round: int) -> bool:
        events: list[object] = [
            CombatantJoined(seq=0, who="a", side="north", hp=10, ap=3, position=Position(0, 0)),
            CombatantJoined(seq=1, who="b", side="south", hp=10, ap=3, position=Position(9, 0)),
        ]
        for n in range(1, 13):
            events.append(RoundStarted(seq=len(events), round=n))
            if n == hit_round:
                events.append(DamageDealt(seq=len(events), who="b", amount=1, hp=9, source="a"))
            events.append(RoundEnded(seq=len(events), round=n))
        events.append(EncounterEnded(seq=len(events), winner=None, reason="limit", rounds=12))
        return records_of(events, spec).stalemate

    assert ended_after_a_hit_in(2)  # rounds 3-12 unchanged: the last 10
    assert not ended_after_a_hit_in(3)


def test_batch_counts_stalemates_apart_and_the_option_is_checked(tmp_path: Path) -> None:
    """``batch --json`` counts the standoff's fights as stalemates, not as undecided; a bad
    ``stalemate_rounds`` is one line and exit 2."""
    path = tmp_path / "standoff.toml"
    path.write_text(_toml(standoff("openings", stalemate_rounds=3)))
    code, out, err = cli("batch", path, "--runs", 3, "--json")
    assert code == 0, err
    got = json.loads(out)
    assert (got["stalemates"], got["undecided"], got["no_winner"]) == (3, 0, 3)
    # Three fights of 3 rounds each: not a certainty of 3.0-3.0 (t's width 0) but Garwood's
    # exact interval for the 2 rounds each lasted beyond the first (issue 36).
    assert got["rounds"] == {"n": 3, "mean": 3.0, "ci95": [1.734, 5.3532], "method": "poisson"}
    code, out, _ = cli("batch", path, "--runs", 2)
    assert "no winner: 2 (2 stalemate(s): no hit points changed in the last 3 rounds;" in out

    path.write_text(_toml(standoff("openings", stalemate_rounds=-2)))
    code, out, err = cli("batch", path, "--runs", 1)
    assert code == 2
    assert err.splitlines() == [
        f"error: {path}: at key stalemate_rounds: must be at least 1 (or 0: off), got -2"
    ]


def test_league_counts_stalemates_among_its_undecided_games(tmp_path: Path) -> None:
    """Every game of a league on the standoff is undecided and a stalemate: its pairs table and
    ``--json`` say so."""
    path = tmp_path / "standoff.toml"
    path.write_text(_toml(standoff("thriller", stalemate_rounds=2)))
    code, out, err = cli("league", path, "--policies", "aggressive", "cautious", "--runs", 1)
    assert code == 0, err
    code, text, err = cli(
        "league", path, "--policies", "aggressive", "cautious", "--runs", 1, "--json"
    )
    assert code == 0, err
    got = json.loads(text)
    (pair,) = [p for p in got["pairings"] if p["encounter"] is None]
    assert (pair["undecided"], pair["stalemates"]) == (2, 2)
    assert "stalemates" in out.split("pairs (wins-losses-undecided of A against B)")[1]


def _toml(data: dict[str, object]) -> str:
    """The standoff as an encounter file (its few shapes only)."""

    def value(v: object) -> str:
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + "}"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return json.dumps(v)

    lines = [f"{k} = {value(v)}" for k, v in data.items() if k not in ("combatants", "options")]
    lines += ["[options]", *(f"{k} = {value(v)}" for k, v in data["options"].items())]  # type: ignore[attr-defined]
    for c in data["combatants"]:  # type: ignore[attr-defined]
        lines += ["[[combatants]]", *(f"{k} = {value(v)}" for k, v in c.items())]
    text = "\n".join(lines) + "\n"
    assert tomllib.loads(text) == data
    return text


# --- the command line and the database ---------------------------------------------------------


def test_duel_runs_n_seeds_both_ways_and_stores_every_combatant(tmp_path: Path) -> None:
    """``duel --runs 3`` fights seeds 1-3 twice each and says so; ``--json`` has the records'
    aggregates, and the database one ``combatants`` row per combatant and encounter, equal to
    the summary of that fight fought again."""
    db = tmp_path / "r.db"
    args = ("duel", DUEL, "--policies", "aggressive", "cautious", "--runs", 3, "--db", db)
    code, out, err = cli(*args)
    assert code == 0, err
    assert "Duel in the rain: 3 seeds, each fought both ways (6 duels)" in out
    code, text, err = cli(*args, "--json")
    got = json.loads(text)
    assert (got["runs"], got["seeds"], got["games"]) == (3, 3, 6)
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT ordinal, combatant, side, policy, dealt, taken, kills, fell FROM combatants"
        " WHERE run_id = 1 ORDER BY ordinal, combatant"
    ).fetchall()
    seeds = [s for (s,) in con.execute("SELECT seed FROM encounters WHERE run_id = 1")]
    con.close()
    assert seeds == [1, 1, 2, 2, 3, 3]
    assert len(rows) == 6 * 3
    spec = engine.load_encounter(DUEL)
    policies = {"north": "aggressive", "south": "cautious"}
    swapped = {"north": "cautious", "south": "aggressive"}
    for ordinal in (0, 3):  # seed 1 as A-B, seed 2 as B-A
        summary = fight_one(spec, seeds[ordinal], policies if ordinal % 2 == 0 else swapped)
        mine = [r[1:] for r in rows if r[0] == ordinal]
        assert mine == sorted(
            (who, r.side, summary.policies[who], r.dealt, r.taken, r.kills, r.fell)
            for who, r in summary.combatants.items()
        )
    # A row per combatant and policy (issue 36): Ilse's three games under each policy.
    for policy in ("aggressive", "cautious"):
        ilse = next(c for c in got["combatants"] if c["id"] == "ilse" and c["policies"] == [policy])
        mine = [r for r in rows if r[1] == "ilse" and r[3] == policy]
        assert ilse["fights"] == len(mine) == 3
        assert ilse["damage_dealt"]["mean"] == round(sum(r[4] for r in mine) / 3, 4)
        assert ilse["survived"] == 3 - sum(1 for r in mine if r[7] is not None)


OLD_SCHEMA = """
CREATE TABLE runs (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, encounter TEXT NOT NULL,
    policies TEXT NOT NULL, seed_start INTEGER NOT NULL, runs INTEGER NOT NULL,
    jobs INTEGER NOT NULL, started TEXT NOT NULL);
CREATE TABLE encounters (run_id INTEGER NOT NULL REFERENCES runs(id), ordinal INTEGER NOT NULL,
    seed INTEGER NOT NULL, winner TEXT, rounds INTEGER NOT NULL, events INTEGER NOT NULL,
    damage TEXT NOT NULL, faults TEXT NOT NULL, policies TEXT NOT NULL, log TEXT,
    rerun TEXT NOT NULL, side_faults TEXT, PRIMARY KEY (run_id, ordinal));
"""


def test_an_old_database_gets_the_new_table_and_resume_reads_the_records(tmp_path: Path) -> None:
    """A database from before the statistics gains the ``combatants`` table and the
    ``stalemate`` column; a run interrupted after two of its four fights, resumed, reports
    the statistics of all four, as a fresh run does."""
    db = tmp_path / "old.db"
    con = sqlite3.connect(db)
    con.executescript(OLD_SCHEMA)
    con.close()
    args = ("batch", DUEL, "--runs", 4, "--db", db, "--json")
    code, out, err = cli(*args)
    assert code == 0, err
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM combatants").fetchone() == (12,)
    assert con.execute("SELECT COUNT(*) FROM encounters WHERE stalemate = 0").fetchone() == (4,)
    with con:  # as if the run had stopped after its first two encounters
        con.execute("DELETE FROM encounters WHERE ordinal >= 2")
        con.execute("DELETE FROM combatants WHERE ordinal >= 2")
    con.close()
    code, resumed, err = cli(*args, "--resume")
    assert code == 0, err
    assert json.loads(resumed)["fought"] == 2
    assert json.loads(resumed)["combatants"] == json.loads(out)["combatants"]
    ended = outcomes([fight_one(engine.load_encounter(DUEL), s, {}) for s in (1, 2, 3, 4)])
    assert json.loads(out)["rounds"]["mean"] == round(ended.rounds.mean, 4)


@pytest.mark.parametrize("back", [0, 1])
def test_a_fork_ends_a_stalemate_where_its_parent_would(back: int) -> None:
    """A fork of a standoff at the first decision of round 3 (or one decision earlier, in round
    2) reads the calm rounds before it from its parent: played on, it ends after round 4, as
    the fight itself does."""
    spec = engine.decode_encounter(standoff("openings", stalemate_rounds=4), name="<standoff>")
    stepper = engine.Stepper(engine.Fight(spec, 1))
    while stepper.state.round < 3:
        stepper.apply(stepper.legal[-1].action)
    fight = stepper.fight
    branch = fight.fork(upto=len(fight.decisions) - back)
    assert branch.state.round == 3 - back
    while not branch.over:
        branch.send(branch.legal[-1].action)
    while not stepper.over:
        stepper.apply(stepper.legal[-1].action)
    ended = fight.events[-1]
    assert isinstance(ended, EncounterEnded)
    assert (ended.rounds, ended.reason) == (4, "stalemate: no hit points changed in 4 rounds")
    # (a fork keeps no events; without the rounds before it, it would go on to round 6 or 7)
    assert (branch.state.ended, branch.state.round, branch.state.winner) == (True, 4, None)
