"""One fight of a batch: its task, what it is read into (:class:`FightStats`), its summary row.

An encounter of a batch is an ordinary fight with a seed and a policy choice, so any one of them
can be fought again, or its kept log verified, from the seed alone (:func:`rerun_command`).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from initiative.actors import make_runners, play_fight
from initiative.engine import Fight, LogSink
from initiative.events import (
    ActionDeclared,
    ActionRejected,
    AttackResolved,
    CombatantDefeated,
    CombatantJoined,
    CombatantLeft,
    DamageDealt,
    DecisionFailed,
    EncounterEnded,
    EncounterSpec,
    Event,
    Healed,
    InitiativeError,
    RoundEnded,
    RoundStarted,
)

from ._curves import Curves, attack_kind


class BatchError(InitiativeError):
    """A batch could not go on (a worker process failed, or a results database mismatch)."""


@dataclass(frozen=True)
class Task:
    """One encounter of a batch: its seed and the policy overrides (ID or SIDE -> name)."""

    seed: int
    policies: tuple[tuple[str, str], ...] = ()
    label: str = ""
    """Added to the kept log's name (a duel fights each seed twice, ``.swapped`` the second)."""


@dataclass
class CombatantRecord:
    """What one combatant did and suffered in one fight."""

    dealt: int = 0
    """Damage it dealt (to anyone, as the log's ``DamageDealt`` events attribute it)."""
    taken: int = 0
    """Damage it took."""
    kills: int = 0
    """Others it defeated: the damage (or action) that caused their defeat was its own."""
    fell: int | None = None
    """The round it was defeated in; ``None`` if it never was."""
    side: str = ""
    hp: int | None = None
    """Its hit points at the end (0 once defeated; one who fled keeps his); ``None`` for a row
    stored before it was kept, or one that never joined."""
    attacks: dict[str, list[int]] = field(default_factory=dict)
    """Its attack tests by kind (the weapon, see :func:`~initiative.batch.attack_kind`):
    ``[hits, misses]``."""


STALEMATE_ROUNDS = 10
"""The rounds without any change in hit points (nor anyone joining, falling or leaving) that
make a fight which reached ``max_rounds`` a stalemate, unless the encounter gives its own
``stalemate_rounds``."""


class FightStats:
    """Reads one fight's events as they come and keeps its per-combatant records and whether it
    was a stalemate; :meth:`see` every event, in order.

    Damage is credited to the event's ``source``; when it has none, to whoever declared the
    action it came from (its ``cause`` chain, walked back to an ``ActionDeclared``). A defeat is
    a kill of whoever the damage (or action) that caused it is credited to, unless that is the
    defeated combatant itself.
    """

    def __init__(self, encounter: EncounterSpec) -> None:
        self.records: dict[str, CombatantRecord] = {
            c.id: CombatantRecord(side=c.side) for c in encounter.combatants
        }
        self.max_rounds = encounter.max_rounds
        self.window = encounter.stalemate_window or STALEMATE_ROUNDS
        self.stalemate = False
        self._round = 0
        self._cause: dict[int, int | None] = {}
        self._credit: dict[int, str] = {}
        """Who each ``ActionDeclared`` and each credited ``DamageDealt`` is credited to."""
        self._hp: dict[str, tuple[int, bool]] = {}
        self._before: tuple[tuple[str, int, bool], ...] | None = None
        self._calm_since = 0
        self.curves = Curves(encounter)
        """Each side's hit points and damage dealt by round."""
        self._weapons = {c.id: c.weapons for c in encounter.combatants}
        self._weapon_names = {c.id: {w.name for w in c.weapons} for c in encounter.combatants}
        self._kinds: dict[tuple[str, str], str] = {}
        """The kind of each attacker's ``detail`` that names one of its weapons, once found."""
        self._declared_at: dict[int, ActionDeclared] = {}
        """Each ``ActionDeclared`` by its ``seq`` (for the weapon an attack test came from)."""

    def _credited(self, seq: int | None) -> str | None:
        while seq is not None:
            if seq in self._credit:
                return self._credit[seq]
            seq = self._cause.get(seq)
        return None

    def see(self, event: Event) -> None:
        self._cause[event.seq] = event.cause
        if type(event) not in _COUNTED:  # most events: one lookup, not a match over classes
            return
        match event:
            case ActionDeclared(who=who):
                self._credit[event.seq] = who
                self._declared_at[event.seq] = event
            case AttackResolved(who=who, hit=hit, detail=detail):
                if who in self.records:
                    kind = self._kinds.get((who, detail))
                    if kind is None:
                        kind = attack_kind(self._weapons[who], detail, None)
                        if kind in self._weapon_names[who]:  # else it may be the action's
                            self._kinds[who, detail] = kind
                        else:
                            declared = self._declared(event.cause, who)
                            kind = attack_kind(self._weapons[who], detail, declared)
                    tally = self.records[who].attacks.setdefault(kind, [0, 0])
                    tally[0 if hit else 1] += 1
            case DamageDealt(who=who, amount=amount, hp=hp, source=source):
                by = source if source is not None else self._credited(event.cause)
                if by is not None:
                    self._credit[event.seq] = by
                    if by in self.records:
                        self.records[by].dealt += amount
                        self.curves.dealt(self.records[by].side, self._round, amount)
                if who in self.records:
                    self.records[who].taken += amount
                self._hp[who] = (hp, self._hp.get(who, (hp, True))[1])
            case Healed(who=who, hp=hp):
                self._hp[who] = (hp, self._hp.get(who, (hp, True))[1])
            case CombatantJoined(who=who, hp=hp):
                self._hp[who] = (hp, True)
            case CombatantDefeated(who=who):
                killer = self._credited(event.cause)
                if killer is not None and killer != who and killer in self.records:
                    self.records[killer].kills += 1
                if who in self.records and self.records[who].fell is None:
                    self.records[who].fell = self._round
                self._hp[who] = (self._hp.get(who, (0, True))[0], False)
            case CombatantLeft(who=who):
                self._hp[who] = (self._hp.get(who, (0, True))[0], False)
            case RoundStarted(round=number):
                self._round = number
                if self._before is None:
                    self._before = self._print()
            case RoundEnded(round=number):
                now = self._print()
                if now != self._before:
                    self._calm_since = number
                self._before = now
                self.curves.standing(number, self._hp, self.records)
            case EncounterEnded(winner=winner, reason=reason, rounds=rounds):
                self.curves.standing(rounds, self._hp, self.records)
                for who, (hp, _) in self._hp.items():
                    if who in self.records:  # one who fled keeps his
                        self.records[who].hp = (
                            0 if self.records[who].fell is not None else max(0, hp)
                        )
                self.stalemate = reason.startswith("stalemate") or (
                    winner is None
                    and rounds >= self.max_rounds
                    and rounds - self._calm_since >= self.window
                )

    def _declared(self, seq: int | None, who: str) -> str | None:
        """The weapon named by the action ``who`` declared that ``seq`` came from, if any."""
        while seq is not None:
            declared = self._declared_at.get(seq)
            if declared is not None:
                weapon = getattr(declared.action, "weapon", None)
                return weapon if declared.who == who and isinstance(weapon, str) else None
            seq = self._cause.get(seq)
        return None

    def _print(self) -> tuple[tuple[str, int, bool], ...]:
        return tuple((who, hp, standing) for who, (hp, standing) in self._hp.items())


#: The events :meth:`FightStats.see` reads beyond their causes.
_COUNTED = frozenset(
    {
        ActionDeclared,
        AttackResolved,
        DamageDealt,
        Healed,
        CombatantJoined,
        CombatantDefeated,
        CombatantLeft,
        RoundStarted,
        RoundEnded,
        EncounterEnded,
    }
)


@dataclass
class Summary:
    """One fought encounter, as a row of the results."""

    seed: int
    winner: str | None
    rounds: int
    events: int
    damage: dict[str, int]
    """Damage dealt by each side."""
    faults: dict[str, int]
    """Failed decisions (timeouts, errors, invalid answers) and rejected actions, by policy."""
    policies: dict[str, str]
    """The policy each combatant used."""
    side_faults: dict[str, int] = field(default_factory=dict)
    """Faults by side."""
    log: str | None = None
    combatants: dict[str, CombatantRecord] = field(default_factory=dict)
    """Each combatant's record (empty for a row stored before they were kept)."""
    stalemate: bool = False
    """It ended undecided with nothing changing (see :class:`FightStats`)."""
    curves: Curves | None = None
    """Each side's hit points and damage dealt by round (``None`` for a stored row)."""


def policy_of(encounter: EncounterSpec, chosen: dict[str, str]) -> dict[str, str]:
    """The policy name each combatant uses (overrides by id, then by side, then the file's)."""
    return {c.id: chosen.get(c.id) or chosen.get(c.side) or c.policy for c in encounter.combatants}


def log_name(encounter_path: str | Path, seed: int, label: str = "") -> str:
    return f"{Path(encounter_path).stem}.seed{seed}{label}.jsonl"


def fight_one(
    encounter: EncounterSpec,
    seed: int,
    policies: dict[str, str],
    *,
    out: str | Path | None = None,
    timeout: float | None = None,
) -> Summary:
    """Fight one encounter with live policies and summarize it: called in line when every
    policy is trusted and synchronous, else through the Trio actors (the log is the same)."""
    names = policy_of(encounter, policies)
    side_of = {c.id: c.side for c in encounter.combatants}
    damage = dict.fromkeys(encounter.sides, 0)
    faults: dict[str, int] = {}
    side_faults = dict.fromkeys(encounter.sides, 0)
    stats = FightStats(encounter)

    runners = make_runners(encounter, seed, policies, timeout=timeout)
    see = stats.see

    def tally(event: Event) -> None:
        see(event)
        kind = type(event)  # most events are neither: two identity checks, not a match
        if kind is DamageDealt:
            dealt = cast(DamageDealt, event)
            if dealt.source in side_of:
                damage[side_of[dealt.source]] += dealt.amount
        elif kind is DecisionFailed or kind is ActionRejected:
            who = cast("DecisionFailed | ActionRejected", event).who
            faults[names[who]] = faults.get(names[who], 0) + 1
            side_faults[side_of[who]] += 1

    # Without a log, the events are never encoded as lines nor chained (the summary reads the
    # events themselves; the end's chain and the round digests are left empty).
    with LogSink(out, encode=out is not None, on_event=tally) as sink:
        fight = Fight(encounter, seed, sink=sink)
        try:
            play_fight(fight, runners)  # in line when every policy is trusted and synchronous
        except BaseExceptionGroup as group:  # Ctrl-C inside the nursery arrives wrapped
            if group.subgroup(KeyboardInterrupt) is not None:
                raise KeyboardInterrupt from None
            raise
    return Summary(
        seed=seed,
        winner=fight.state.winner,
        rounds=fight.state.round,
        events=fight.next_seq,  # every event emitted went through the sink
        damage=damage,
        faults=faults,
        policies=names,
        side_faults=side_faults,
        log=str(out) if out is not None else None,
        combatants=stats.records,
        stalemate=stats.stalemate,
        curves=stats.curves,
    )


def rerun_command(
    encounter: str | Path, task: Task, log: str | None = None, timeout: float | None = None
) -> str:
    """The ``initiative run`` command that fights this encounter of the batch again."""
    words = ["initiative", "run", str(encounter), "--seed", str(task.seed)]
    for who, name in task.policies:
        words += ["--policy", f"{who}={name}"]
    if timeout is not None:
        words += ["--timeout", f"{timeout:g}"]
    if log:
        words += ["--out", log]
    return shlex.join([*words, "--quiet"])
