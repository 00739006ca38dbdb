"""Forks ("what if") and resumed fights: recorded decisions up to a point, then live policies.

Both re-simulate a log's header with its recorded decisions, check that what the engine produces
is the log byte for byte, and then hand over to live policies through the Trio scheduler
(:func:`actors.run_encounter` with a prefix of ``decisions``). A fork writes a new log whose
header names its parent; a resumed fight appends to the log it continues, which then verifies as
if the fight had never stopped. Nothing in the log is executed: decisions are data.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from hashlib import blake2b
from pathlib import Path

import msgspec
from initiative.actors import FileDice, Result, names_file, run_encounter
from initiative.engine import DiceSource, LogSink, recorded_dice
from initiative.events import (
    LOG_FORMAT,
    DiceGiven,
    EncounterEnded,
    Event,
    LogContents,
    LogFormatError,
    PolicyLoadError,
    ReplayDivergedError,
    decode_event,
    encode_event,
    parse_log,
)

from ._resim import check_header, recorded_decisions, reseeds


def fork_description(contents: LogContents, data: bytes, at: int, seed: int | None) -> str:
    """What a fork's header says about its parent: the file's name, a hash of its bytes, the
    fork point (and the new seed, when asked)."""
    digest = blake2b(data, digest_size=16).hexdigest()
    name = Path(contents.path).name if contents.path else "<log>"
    text = f"fork of {name} (blake2b {digest}) at seq {at}"
    return text + (f", dice reseeded with {seed}" if seed is not None else "")


def _prefix_checker(lines: list[bytes], upto: int, *, name: str) -> Callable[[Event], None]:
    """An ``on_event`` hook that stops a fork if an event from 1 to ``upto`` differs from its
    parent log's line (the log does not re-simulate, so going on from it would be fiction).
    (A resumed fight's sink checks the lines it resumes itself: see ``LogSink.resume``.)"""

    def check(event: Event) -> None:
        if event.seq > upto or event.seq == 0:
            return
        line = lines[event.seq]
        if isinstance(event, EncounterEnded):
            # Its chain covers the header, which a fork changes; compare the rest.
            event = msgspec.structs.replace(event, chain="")
            line = encode_event(msgspec.structs.replace(decode_event(line), chain=""))
        if encode_event(event) != line:
            raise ReplayDivergedError(
                f"{name}: re-simulating the log differs from it at seq {event.seq};"
                " run `initiative verify` on it"
            )

    return check


class NothingToResume(Exception):
    """``resume`` was given a log whose encounter already ended (not an error: exit 0)."""


def live_policies(
    contents: LogContents,
    policies: Mapping[str, str] | None,
    *,
    trust_log_policies: bool = False,
) -> dict[str, str]:
    """The policy of every combatant for a fork or a resumed fight, by combatant id.

    A command-line choice (by id or side) wins; otherwise the policy the log's header names is
    used only when it is a built-in or an installed entry point, found by name. A header naming
    ``file.py:function`` would make reading a stranger's log run that file, so it is refused
    unless the combatant has a command-line choice or ``trust_log_policies`` is given.
    """
    chosen = dict(policies or {})
    resolved: dict[str, str] = {}
    refused: list[str] = []
    for c in contents.header.encounter.combatants:
        name = chosen.get(c.id) or chosen.get(c.side)
        if name is None:
            name = c.policy
            if names_file(name) and not trust_log_policies:
                refused.append(f"{c.id} ({name})")
        resolved[c.id] = name
    if refused:
        raise PolicyLoadError(
            f"{contents.path or '<log>'}: the log names policy files for {', '.join(refused)};"
            " a log never runs code it names, so give --policy ID=NAME for each (a built-in, an"
            " installed policy or a file you trust), or --trust-log-policies if you trust the"
            " log and those files"
        )
    return resolved


def _go_on(
    dice: DiceSource | None, contents: LogContents, upto: int, name: str
) -> DiceSource | None:
    """The dice after event ``upto`` of ``contents``: those the log gave up to there, then
    ``dice``. A dice file goes on from its first face the log has not used (and is refused if
    its used part is not what the log gave)."""
    if isinstance(dice, FileDice):
        given = [e for e in contents.events if isinstance(e, DiceGiven) and e.seq <= upto]
        dice.continue_after(given, log=name)
    return recorded_dice(contents.events, upto=upto, then=dice)


def _chain(*hooks: Callable[[Event], None] | None) -> Callable[[Event], None]:
    live = [h for h in hooks if h is not None]

    def call(event: Event) -> None:
        for hook in live:
            hook(event)

    return call


async def fork_log(
    contents: LogContents,
    data: bytes,
    at: int,
    *,
    out: str | os.PathLike[str],
    policies: Mapping[str, str] | None = None,
    seed: int | None = None,
    on_event: Callable[[Event], None] | None = None,
    trust_log_policies: bool = False,
    dice: DiceSource | None = None,
    hosts: Mapping[str, str] | None = None,
) -> Result:
    """Replay ``contents`` up to event ``at`` with its recorded decisions, then go on live.

    Decisions recorded at or before ``at`` are replayed; the first one after it is asked of the
    live policy, so ``at`` just before a decision undoes it. Events ``1..at`` of the fork equal
    the parent's; the header differs only in ``parent``. With ``seed``, the dice after ``at``
    come from that seed (recorded as ``SeedChanged``) and so do the policies' own streams.
    Policies come from ``policies`` and the built-ins; see :func:`live_policies`. Dice the
    parent gave up to ``at`` come from its log; ``dice`` gives the rest (a dice file from its
    first face the log has not used).
    """
    name = contents.path or "<log>"
    header = contents.header
    check_header(header, name)
    chosen = live_policies(contents, policies, trust_log_policies=trust_log_policies)
    last = len(contents.events) - 1
    if not 0 <= at <= last:
        raise LogFormatError(f"{name}: no event {at}: the log holds seq 0 to {last}")
    decisions = [r.decision for r in recorded_decisions(contents.events) if r.answer <= at]
    reseed = {k: v for k, v in reseeds(contents.events).items() if k < at}
    if seed is not None:
        reseed[at] = seed
    check = _prefix_checker(contents.lines, at, name=name)
    return await run_encounter(
        header.encounter,
        header.seed,
        policies=chosen,
        out=Path(out),
        on_event=_chain(check, on_event),
        parent=fork_description(contents, data, at, seed),
        decisions=decisions,
        policy_seed=seed,
        reseed=reseed,
        dice=_go_on(dice, contents, at, name),
        hosts=hosts,
    )


def read_to_resume(path: Path) -> LogContents:
    """Read the log at ``path`` to go on with it (``resume``, ``serve --resume``), once its
    write lock is held: one of the current format (appending would mix two), not finished
    (:class:`NothingToResume`), with a header these rules can play (:func:`check_header`)."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise LogFormatError(f"{path}: cannot read: {err.strerror}") from None
    contents = parse_log(data, name=str(path))
    if contents.upcast_from:
        raise LogFormatError(
            f"{path}: written in log format {contents.upcast_from}, older than the format"
            f" {LOG_FORMAT} this initiative writes; resuming would mix two formats in one"
            f" file. Fork it instead (initiative fork {path} --at {len(contents.events) - 1}),"
            " which goes on in a new log of the current format"
        )
    if contents.complete:
        raise NothingToResume(
            f"{path}: nothing to resume: the encounter already ended"
            f" (EncounterEnded is seq {len(contents.events) - 1})"
        )
    check_header(contents.header, str(path))
    return contents


async def resume_log(
    path: str | os.PathLike[str],
    *,
    policies: Mapping[str, str] | None = None,
    on_event: Callable[[Event], None] | None = None,
    on_ready: Callable[[LogContents], None] | None = None,
    trust_log_policies: bool = False,
    dice: DiceSource | None = None,
    hosts: Mapping[str, str] | None = None,
) -> Result:
    """Go on with an interrupted fight from its last complete event, appending to its log.

    The log's write lock is taken first (another writer makes this :class:`LogBusyError`), then
    the log is read: a finished one raises :class:`NothingToResume`. Its complete events are
    re-simulated with their recorded decisions and must match it byte for byte; a torn last
    line is cut off; then the same policies (see :func:`live_policies`: ``policies`` override
    as they did for ``run``) play on. ``on_ready`` sees the log as read, before anything runs.
    The policies are shown every replayed decision first, so ones with memory or randomness
    pick up where they were. Dice the log gave come from it; ``dice`` gives the rest (a dice
    file from its first face the log has not used; see :meth:`actors.FileDice.continue_after`).
    """
    p = Path(path)
    sink = LogSink(p, append=True)  # the log's lock, taken before the log is read
    try:
        contents = read_to_resume(p)
        header = contents.header
        chosen = live_policies(contents, policies, trust_log_policies=trust_log_policies)
        if on_ready is not None:
            on_ready(contents)
        decisions = [r.decision for r in recorded_decisions(contents.events)]
        given = _go_on(dice, contents, len(contents.events) - 1, str(p))
        sink.resume(contents)  # cuts a torn last line; the fight must give the rest again
    except BaseException:
        sink.close()
        raise
    return await run_encounter(
        header.encounter,
        header.seed,
        policies=chosen,
        out=sink,
        on_event=on_event,
        parent=header.parent,
        decisions=decisions,
        reseed=reseeds(contents.events),
        dice=given,
        hosts=hosts,
    )
