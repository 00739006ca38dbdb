"""``run_encounter``: the nursery with the scheduler and one task per combatant.

The scheduler task drives :class:`engine.Fight` and talks to combatants only through their
mailboxes (see :mod:`actors._mailbox`): a token to each combatant's inbox and its decision back
in its answers. It waits on exactly the combatant that holds priority, so the order of play
never depends on Trio's scheduling. Each mailbox is closed by the task that sends into it, so
every task ends when the encounter does.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import msgspec
import structlog
import trio
from initiative.engine import (
    Decision,
    DiceSource,
    EncounterState,
    Fight,
    LogSink,
    Stepper,
    policy_rng,
)
from initiative.events import EncounterSpec, Event, InitiativeError

from ._combatant import FightOver, Message, PolicyRunner, combatant
from ._context import PolicyContext
from ._inline import Executor, choose, play_inline
from ._joiners import joiner_runner
from ._loading import PolicyChoice, check_names, load_policy
from ._mailbox import Mailbox
from ._wire import Hello

log = structlog.get_logger("initiative.actors")


@dataclass
class Result:
    """The outcome of one encounter."""

    fight: Fight
    events: list[Event] = field(default_factory=list)

    @property
    def winner(self) -> str | None:
        return self.fight.state.winner

    @property
    def rounds(self) -> int:
        return self.fight.state.round

    @property
    def state(self) -> EncounterState:
        """The final state of the encounter (an immutable value)."""
        return self.fight.state.freeze()

    def to_dicts(self) -> list[dict[str, Any]]:
        """The events as plain dicts (one per event, ``type`` first): what
        ``pandas.DataFrame(result.to_dicts())`` or ``polars.DataFrame(...)`` take."""
        return [msgspec.to_builtins(event) for event in self.events]


def make_runners(
    encounter: EncounterSpec,
    seed: int,
    policies: Mapping[str, PolicyChoice] | None = None,
    *,
    timeout: float | None = None,
    hosts: Mapping[str, str] | None = None,
) -> dict[str, PolicyRunner]:
    """Load every combatant's policy (``policies`` overrides by combatant id or side, each a
    name, a function, an object with ``decide`` or a class; see :data:`PolicyChoice`).

    ``hosts`` chooses where a policy runs, by combatant id or side (``process`` to run it in a
    child process that is killed at its deadline); a policy named ``process:NAME`` runs NAME in
    a child process too. A person at the terminal (``human``) has no deadline unless
    ``timeout`` is given.
    """
    if timeout is not None and not timeout > 0:
        raise InitiativeError(
            f"the decision timeout must be a positive number of seconds, got {timeout:g}"
        )
    chosen = dict(policies or {})
    where = dict(hosts or {})
    check_names(encounter, chosen)
    check_names(encounter, where, what="hosts")
    runners = {}
    for c in encounter.combatants:
        name = chosen[c.id] if c.id in chosen else chosen.get(c.side, c.policy)
        host = where.get(c.id) or where.get(c.side)
        if isinstance(name, str) and name.startswith("process:"):
            name, host = name.removeprefix("process:"), "process"
        ctx = PolicyContext(combatant=c, encounter=encounter, rng=policy_rng(seed, c.id))
        loaded = load_policy(name, ctx)
        limit: float | None = timeout if timeout is not None else encounter.decision_timeout
        if getattr(loaded.policy, "person", False):
            limit = timeout
            loaded.policy.timeout = timeout
        if host == "process" and not isinstance(name, str):
            raise InitiativeError(
                f"{c.id}: a policy given as a Python object cannot run in a child process;"
                " give it by name (built-in, file.py:function or entry point)"
            )
        label = name if isinstance(name, str) else loaded.name
        hello = Hello(policy=label, combatant=c.id, encounter=encounter, seed=seed)
        runners[c.id] = PolicyRunner(loaded, limit, host=host, hello=hello, who=c.id)
    return runners


class Interrupts(Protocol):
    """What may step in while a combatant decides (the game master's desk, see
    ``initiative._gm``): :meth:`wait` returns when something is waiting, :meth:`apply` applies
    all of it to the stepper (each recorded, or refused with its reason to whoever sent it)."""

    def waiting(self) -> bool: ...

    async def wait(self) -> None: ...

    def apply(self, stepper: Stepper) -> None: ...


async def schedule(
    fight: Fight,
    runners: Mapping[str, PolicyRunner],
    *,
    decisions: Sequence[Decision] = (),
    warm: bool = True,
    interrupts: Interrupts | None = None,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Run ``fight`` to its end with one combatant task per runner.

    The first ``len(decisions)`` tokens are answered with ``decisions`` (recorded ones, for a
    fork or a resumed fight), the rest by the live policies. With ``warm``, each replayed token
    is still shown to its combatant's policy and the answer dropped, so a policy with memory or
    its own random stream is in the state it would have been in had it made those decisions.

    With ``interrupts``, what waits there is applied while a combatant decides (an override):
    priority is granted again in the new state. A holder hosted in the fight's own loop (a
    seat, an async or in-line policy) has its call cancelled and is asked again (a seat gets a
    new priority frame); one in a thread or a process answers the new grant with the call
    under way (the rules check it again). A holder the override took out of the fight (or a
    fight it ended) is never asked again, and its call is cancelled.
    """
    try:
        async with trio.open_nursery() as nursery:
            await _schedule(nursery, fight, runners, decisions, warm, interrupts, task_status)
    except BaseExceptionGroup as group:
        raise unwrap(group) from None


def unwrap(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one exception a library caller should see for ``group``: a Ctrl-C if there is one,
    else the first of the project's own errors, else the first exception."""
    leaves: list[BaseException] = []

    def walk(g: BaseExceptionGroup[BaseException]) -> None:
        for exc in g.exceptions:
            if isinstance(exc, BaseExceptionGroup):
                walk(exc)
            else:
                leaves.append(exc)

    walk(group)
    for kind in (KeyboardInterrupt, InitiativeError):
        for leaf in leaves:
            if isinstance(leaf, kind):
                return leaf
    return leaves[0]


async def _schedule(
    nursery: trio.Nursery,
    fight: Fight,
    runners: Mapping[str, PolicyRunner],
    decisions: Sequence[Decision],
    warm: bool,
    interrupts: Interrupts | None,
    task_status: trio.TaskStatus[None],
) -> None:
    links: dict[str, tuple[Mailbox[Message], Mailbox[Decision]]] = {}
    scopes: dict[str, trio.CancelScope] = {}

    def start(who: str, runner: PolicyRunner) -> None:
        """A task for ``who`` (anew when its last one was called off)."""
        links[who] = (Mailbox(), Mailbox())
        scopes[who] = trio.CancelScope()
        nursery.start_soon(_scoped, scopes[who], who, runner, *links[who], name=f"combatant {who}")

    for who, runner in runners.items():
        start(who, runner)
    task_status.started()
    seen = dict.fromkeys(runners, 0)
    called_off: set[str] = set()  # combatants whose task an override cut: anew when asked
    recorded = iter(decisions)
    try:
        stepper = Stepper(fight)
        while (token := stepper.token) is not None:
            if token.who not in links:  # a combatant the GM brought in
                runners = {**runners, token.who: joiner_runner(fight, token.who)}
                seen[token.who] = 0
                start(token.who, runners[token.who])
            elif token.who in called_off:  # its last call was cut: its task ended with it
                called_off.discard(token.who)
                start(token.who, runners[token.who])
            inbox, answers = links[token.who]
            runner = runners[token.who]
            replayed = next(recorded, None)
            if replayed is not None and replayed.override is not None:
                stepper.apply(replayed)  # the GM's, recorded: nobody is asked
                continue
            if replayed is None or (warm and runner.warm):
                if runner.observes:
                    token = msgspec.structs.replace(
                        token, news=tuple(fight.events[seen[token.who] :])
                    )
                    seen[token.who] = len(fight.events)
                inbox.put(token)
                if interrupts is None or replayed is not None:
                    decision = await answers.get()
                else:
                    # A holder whose call can be cut cleanly (a seat, an async or in-line
                    # policy) is asked again in the new state after an override; one in a
                    # thread or a process answers the new grant with the call under way.
                    again = runner.kind in ("task", "inline")
                    got = await _answer_or_interrupt(stepper, answers, interrupts, again)
                    if got is None:
                        # An override took the holder out of the fight, or ended it (it is
                        # never asked again), or it is to be asked again: the call is off.
                        # Its task ends with the call, whoever holds priority now; it gets a
                        # new one when it is next asked (an override that gave priority to
                        # another once left its mailboxes closed, and the fight crashed
                        # when it was asked again).
                        scopes[token.who].cancel()
                        called_off.add(token.who)
                        continue
                    decision = got
            stepper.apply(decision if replayed is None else replayed)
        for who, runner in runners.items():
            if runner.observes:
                links[who][0].put(FightOver(news=tuple(fight.events[seen[who] :])))
    finally:
        for inbox, _ in links.values():
            inbox.close()


async def _scoped(
    scope: trio.CancelScope,
    who: str,
    runner: PolicyRunner,
    inbox: Mailbox[Message],
    answers: Mailbox[Decision],
) -> None:
    """A combatant task that the scheduler can call off alone (see :func:`schedule`)."""
    with scope:
        await combatant(who, runner, inbox, answers)


async def _answer_or_interrupt(
    stepper: Stepper, answers: Mailbox[Decision], interrupts: Interrupts, again: bool
) -> Decision | None:
    """The holder's decision, applying interrupts while it decides; ``None`` when one of them
    gave priority to someone else (or ended the fight), or, with ``again``, applied at all.
    Overrides all refused record nothing and leave the same token: the call under way stands
    (a seat is not sent the same priority frame twice)."""
    who = stepper.who
    while True:
        if interrupts.waiting():
            asked = stepper.token
            interrupts.apply(stepper)
            if stepper.token is asked:
                continue
            if again or stepper.who != who:
                return None
            continue
        got = await _first_answer(answers, interrupts)
        if got is not None:
            return got


async def _first_answer(answers: Mailbox[Decision], interrupts: Interrupts) -> Decision | None:
    """The answer, or ``None`` as soon as an interrupt waits (the answer stays where it is)."""
    got: list[Decision] = []
    async with trio.open_nursery() as race:

        async def take() -> None:
            got.append(await answers.get())  # a cancelled get leaves the answer there
            race.cancel_scope.cancel()

        async def knock() -> None:
            await interrupts.wait()
            race.cancel_scope.cancel()

        race.start_soon(take)
        race.start_soon(knock)
    return got[0] if got else None


async def run_encounter(
    encounter: EncounterSpec,
    seed: int,
    *,
    policies: Mapping[str, PolicyChoice] | None = None,
    out: str | Path | LogSink | None = None,
    on_event: Callable[[Event], None] | None = None,
    timeout: float | None = None,
    parent: str | None = None,
    decisions: Sequence[Decision] = (),
    warm: bool = True,
    policy_seed: int | None = None,
    reseed: dict[int, int] | None = None,
    executor: Executor = "trio",
    dice: DiceSource | None = None,
    hosts: Mapping[str, str] | None = None,
    runners: Mapping[str, PolicyRunner] | None = None,
) -> Result:
    """Fight ``encounter`` with live policies; write the log to ``out`` as it happens.

    ``out`` is a path, or an open :class:`engine.LogSink` (a resumed log's, whose lock the
    caller took before reading the log, see :meth:`engine.LogSink.resume`); the sink is closed
    at the end. The log is written by the sink's one rule: whole lines, everything so far before
    anything is asked (a decision, a die at the table) and at the end, so what a person typed is
    on disk before the next prompt. ``on_event`` sees every event as it is recorded.

    To go on from a recorded fight (a fork, or a resumed one): ``decisions`` answers the first
    tokens (see :func:`schedule`). ``policy_seed`` seeds the policies' random streams (default
    ``seed``); ``reseed={seq: n}`` switches the dice to seed ``n`` after event ``seq`` (recorded
    as ``SeedChanged``). ``executor`` picks how policies are called (see
    :mod:`actors._inline`): ``trio`` (the default), ``inline`` or ``auto``; the log is the same.
    ``dice`` gives dice rolled at the table (see :mod:`engine._given`); ``hosts`` chooses where
    policies run (see :func:`make_runners`).
    """
    try:
        if runners is None:
            runners = make_runners(
                encounter,
                seed if policy_seed is None else policy_seed,
                policies,
                timeout=timeout,
                hosts=hosts,
            )
        seats = choose(runners, executor)
        sink = out if isinstance(out, LogSink) else LogSink(out)  # the log's lock, held to the end
    except BaseException:
        if isinstance(out, LogSink):
            out.close()
        raise
    with sink:
        sink.on_event = on_event
        fight = Fight(encounter, seed, sink=sink, parent=parent, reseed=reseed, dice=dice)
        structlog.contextvars.bind_contextvars(encounter=encounter.name or encounter.ruleset)
        try:
            if seats is not None:
                play_inline(fight, seats, decisions=decisions, warm=warm)
            else:
                await schedule(fight, runners, decisions=decisions, warm=warm)
        finally:
            structlog.contextvars.unbind_contextvars("encounter", "combatant")
    return Result(fight=fight, events=fight.events)


def play_fight(
    fight: Fight,
    runners: Mapping[str, Any],
    *,
    executor: Executor = "auto",
    decisions: Sequence[Decision] = (),
    warm: bool = True,
) -> str:
    """Run ``fight`` to its end from synchronous code with the executor asked for; the
    executor used (``"inline"`` or ``"trio"``). For batches: one call per encounter."""
    seats = choose(runners, executor)
    if seats is not None:
        play_inline(fight, seats, decisions=decisions, warm=warm)
        return "inline"
    trio.run(lambda: schedule(fight, runners, decisions=decisions, warm=warm))
    return "trio"


def run_encounter_sync(encounter: EncounterSpec, seed: int, **kwargs: Any) -> Result:
    """:func:`run_encounter` from synchronous code.

    A fight the in-line executor plays awaits nothing, so it runs without starting Trio (a
    ``trio.run`` costs about as much as a few decisions of a small fight)."""
    if kwargs.get("runners") is None:
        policy_seed = kwargs.get("policy_seed")
        kwargs["runners"] = make_runners(
            encounter,
            seed if policy_seed is None else policy_seed,
            kwargs.get("policies"),
            timeout=kwargs.get("timeout"),
            hosts=kwargs.get("hosts"),
        )
    if choose(kwargs["runners"], kwargs.get("executor", "trio")) is not None:
        fight = run_encounter(encounter, seed, **kwargs)
        try:  # in a copy of the context, as trio.run would: the caller's stays untouched
            contextvars.copy_context().run(fight.send, None)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        fight.close()
        raise RuntimeError("an in-line fight awaited")  # pragma: no cover - never awaits
    return trio.run(lambda: run_encounter(encounter, seed, **kwargs))
