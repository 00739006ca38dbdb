"""A conformance check for rulesets (in the spirit of PettingZoo's ``api_test``).

:func:`check_ruleset` plays a ruleset with a seeded random policy and holds it to what the rest
of initiative takes for granted of every ruleset:

- **Offers are legal.** The engine takes an offered action without asking the ruleset again,
  so every offer must pass the ruleset's own ``check`` at the offered cost, affordably.
- **Actions survive the log.** Every action offered is encoded as the log encodes it and decoded
  back equal; its type is declared (a core action, or one of ``Ruleset.actions`` tagged
  ``"<ruleset>.<ClassName>"``), so a log of the ruleset can be read back.
- **Actions have words.** Screens and narration word an action through its unit
  (:class:`~initiative.engine.ActionUnit`, found by the ruleset's registry): so each action
  type offered has a unit in ``Ruleset.units`` with words of its own for the narration
  (:meth:`~initiative.engine.ActionUnit.told`), and its words for a screen and for the table
  come out, as text, for every action offered. Its class name reads as words and agrees with
  its tag, and it has a docstring (the help a screen shows for it).
- **Hooks are deterministic.** The same encounter, seed and decisions give byte-identical logs
  twice, and the log re-simulates from its own header and recorded decisions (what
  ``initiative verify`` does) to the same bytes.

  Within one process a hook that depends on the iteration order of a set of strings (or on
  ``hash()``) cannot be seen (Python keeps that order for the whole process), so the fights are
  then played once more in another process under another ``PYTHONHASHSEED``.

The check lives in ``engine`` and needs only ``engine`` and ``events``: it re-simulates through
the :class:`Stepper` itself rather than through ``replays``.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import subprocess
import sys
import typing
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec
from initiative.events import (
    Action,
    ActionDeclared,
    ActionRejected,
    AnyAction,
    DecisionFailed,
    EncounterSpec,
    EncounterStarted,
    EndTurn,
    Event,
    InitiativeError,
    Pass,
    Position,
    PriorityGranted,
    PriorityPassed,
    Trigger,
    decode_event,
    encode_event,
    parse_log,
)

from ._encounter import decode_encounter, load_encounter
from ._fight import Fight
from ._protocol import Decision, PriorityToken
from ._rng import Rng
from ._ruleset import (
    _BUNDLED,
    _REGISTRY,
    Ruleset,
    _discover,
    _installed,
    find_ruleset,
    installed_class,
    unfit,
)
from ._sink import LogSink
from ._stepper import Stepper
from ._units import ActionUnit

_CORE = frozenset(typing.get_args(AnyAction))


class RulesetConformanceError(InitiativeError):
    """A ruleset failed :func:`check_ruleset`: the message names the ruleset, the encounter,
    the seed and the seq of the event where it failed, and what failed there."""

    def __init__(
        self,
        ruleset: str,
        problem: str,
        *,
        encounter: str | None = None,
        seed: int | None = None,
        seq: int | None = None,
    ) -> None:
        where = [f"ruleset {ruleset!r}"]
        if encounter is not None:
            where.append(f"encounter {encounter!r}")
        if seed is not None:
            where.append(f"seed {seed}")
        if seq is not None:
            where.append(f"seq {seq}")
        super().__init__(f"{', '.join(where)}: {problem}")
        self.ruleset = ruleset
        self.encounter = encounter
        """The encounter's name (``None`` when the failure is not in a fight)."""
        self.seed = seed
        self.seq = seq
        """The seq of the event where it failed (a grant, for an offer), or ``None``."""
        self.problem = problem


@dataclass
class RulesetCheck:
    """What :func:`check_ruleset` played and checked (it raises on the first failure)."""

    ruleset: str
    fights: int = 0
    """Fights played (each twice, and re-simulated once)."""
    decisions: int = 0
    offers: int = 0
    """Offers checked against the ruleset's ``check`` and round-tripped through the codec."""
    offered: set[str] = field(default_factory=set)
    """Tags of the action types offered at least once."""
    never_offered: list[str] = field(default_factory=list)
    """Tags of ``Ruleset.actions`` no fight offered (so not checked: give encounters that
    make them possible)."""
    hash_seed: str | None = None
    """The ``PYTHONHASHSEED`` the fights were played again under, in another process (``None``
    when they were not: see :func:`check_ruleset`)."""


#: Encounter-file tables for :func:`check_ruleset` when none are given: a duel and a two-a-side
#: skirmish with a ranged weapon, kept short.
_BUILT: tuple[tuple[str, list[dict[str, Any]]], ...] = (
    (
        "duel",
        [
            {"id": "a", "side": "red", "position": [0, 0]},
            {"id": "b", "side": "blue", "position": [4, 0]},
        ],
    ),
    (
        "skirmish",
        [
            {"id": "a1", "side": "red", "position": [0, 0]},
            {"id": "a2", "side": "red", "position": [0, 3], "ranged": True},
            {"id": "b1", "side": "blue", "position": [6, 0]},
            {"id": "b2", "side": "blue", "position": [6, 3], "ranged": True},
        ],
    ),
)


def _built(cls: type[Ruleset]) -> list[dict[str, Any]]:
    """Small encounters of ``cls``: every stat it names at the middle of its range (3 when it
    documents none), a sword, and a sling for the ranged."""
    stats = {s: sum(cls.stat_ranges.get(s, (3, 3))) // 2 for s in sorted(cls.stats)}
    out = []
    for name, people in _BUILT:
        combatants = []
        for p in people:
            weapons: list[dict[str, Any]] = [{"name": "sword", "damage": "1d6"}]
            if p.get("ranged"):
                weapons.insert(0, {"name": "sling", "damage": "1d4", "range": 12})
            combatants.append(
                {
                    "id": p["id"],
                    "side": p["side"],
                    "hp": 10,
                    "position": p["position"],
                    "stats": dict(stats),
                    "weapons": weapons,
                }
            )
        out.append({"ruleset": cls.name, "name": name, "max_rounds": 8, "combatants": combatants})
    return out


@contextlib.contextmanager
def _lent(cls: type[Ruleset]) -> Iterator[None]:
    """``cls`` found by its name while the check runs, installed or not (a class a test or a
    notebook defines, or a variant of an installed ruleset under the installed one's name),
    and its actions known to the log codec; afterwards the name finds what it found before."""
    _discover()
    known = _REGISTRY.get(cls.name)
    if cls.name in _BUNDLED and known is not cls:
        raise RulesetConformanceError(
            cls.name, "a bundled ruleset has that name: give a variant a name of its own"
        )
    problem = unfit(cls)
    if problem is not None:
        raise RulesetConformanceError(cls.name, problem)
    _REGISTRY[cls.name] = cls
    try:
        yield
    finally:
        if known is None:
            del _REGISTRY[cls.name]
        else:
            _REGISTRY[cls.name] = known


def _named(name: str) -> type[Ruleset]:
    """The ruleset class called ``name``: bundled, or an installed one's class as its entry
    point gives it (not yet checked: the check reports what is wrong with it)."""
    _discover()
    installed = _installed()
    if name not in _REGISTRY and name in installed:
        return installed_class(name, installed[name])
    return find_ruleset(name)


def check_ruleset(
    ruleset: type[Ruleset] | str,
    *,
    encounters: Iterable[EncounterSpec | Mapping[str, Any] | str | os.PathLike[str]] | None = None,
    seeds: Iterable[int] = (1, 2),
    max_decisions: int = 1500,
    other_hash_seed: bool = True,
) -> RulesetCheck:
    """Play ``ruleset`` and check it conforms (see the module's docs); raise
    :class:`RulesetConformanceError` naming the first failure, or return what was checked.

    ``ruleset`` is a :class:`Ruleset` subclass (installed or not) or a ruleset's name.
    ``encounters`` are encounters of it (specs, encounter-file tables, or paths of encounter
    files); by default a duel and a two-a-side skirmish built from its stats. Each is played
    with each of ``seeds``, every decision a uniformly random pick among the offers (seeded),
    up to ``max_decisions`` decisions a fight.

    With ``other_hash_seed`` (the default), the same fights are then played once more in
    another Python process under another ``PYTHONHASHSEED``, and must give the same logs: a
    hook that depends on the order of a set or dict of strings fails there. That process
    imports the class by its module and name, so the pass is left out (``hash_seed`` is then
    ``None`` in the result) for a class no other process can import (one defined inside a
    function, in ``__main__``, or in a module made in this process).
    """
    cls = _named(ruleset) if isinstance(ruleset, str) else ruleset
    report = RulesetCheck(ruleset=cls.name)
    seeds = list(seeds)
    with _lent(cls):
        given = _built(cls) if encounters is None else list(encounters)
        played: list[tuple[EncounterSpec, int, list[bytes]]] = []
        for item in given:
            spec = _spec(item)
            if spec.ruleset != cls.name:
                raise RulesetConformanceError(
                    cls.name, f"the encounter's ruleset is {spec.ruleset!r}", encounter=spec.name
                )
            for seed in seeds:
                played.append((spec, seed, _check_one(cls, spec, seed, max_decisions, report)))
    where = _importable(cls, ruleset)
    if other_hash_seed and where is not None and played:
        report.hash_seed = _in_another_process(cls, where, played, max_decisions)
    report.never_offered = sorted(
        tag for a in cls.actions if (tag := str(a.__struct_config__.tag)) not in report.offered
    )
    return report


def _spec(item: EncounterSpec | Mapping[str, Any] | str | os.PathLike[str]) -> EncounterSpec:
    if isinstance(item, EncounterSpec):
        return item
    if isinstance(item, Mapping):
        return decode_encounter(dict(item), name=str(item.get("name") or "<encounter>"))
    return load_encounter(item)


def _check_one(
    cls: type[Ruleset], spec: EncounterSpec, seed: int, most: int, report: RulesetCheck
) -> list[bytes]:
    """Play one fight twice, check it as it goes and verify its log; the log's lines."""
    name = spec.name or "<encounter>"

    def fail(seq: int | None, problem: str) -> RulesetConformanceError:
        return RulesetConformanceError(cls.name, problem, encounter=name, seed=seed, seq=seq)

    first = _play(cls, spec, seed, most, report, fail)
    second = _play(cls, spec, seed, most, None, fail)
    if (seq := _first_difference(first, second)) is not None:
        raise fail(
            seq,
            "hooks are not deterministic: the same seed and decisions gave a different log"
            f" (first run {_line(first, seq)}, second run {_line(second, seq)}); a hook"
            " depends on something other than the fight (an unseeded random, the clock,"
            " set or dict order, state kept between fights)",
        )
    _verify(spec, first, fail)
    report.fights += 1
    return first


def _play(
    cls: type[Ruleset],
    spec: EncounterSpec,
    seed: int,
    most: int,
    report: RulesetCheck | None,
    fail: Any,
) -> list[bytes]:
    """One fight with a seeded random policy; its log lines. With ``report``, every offer of
    every decision is checked and counted."""
    sink = LogSink(keep_lines=True)
    fight = Fight(spec, seed, sink=sink)
    pick = Rng(seed, "check_ruleset")
    checked: set[type[Action]] = set()

    def decide(token: PriorityToken) -> Decision:
        if report is not None:
            for offer in token.legal:
                _check_offer(cls, fight, token, offer.action, offer.cost, checked, fail)
                report.offers += 1
                report.offered.add(str(type(offer.action).__struct_config__.tag))
            report.decisions += 1
        return Decision(action=token.legal[pick.below(len(token.legal))].action)

    stepper = Stepper(fight)
    try:
        stepper.play(decide, limit=most)
    except RulesetConformanceError:
        raise
    except Exception as err:
        raise fail(fight.next_seq - 1, f"a hook raised {type(err).__name__}: {err}") from err
    return sink.lines


def _check_offer(
    cls: type[Ruleset],
    fight: Fight,
    token: PriorityToken,
    action: Action,
    cost: int,
    checked: set[type[Action]],
    fail: Any,
) -> None:
    who, window = token.who, token.window
    kind = type(action)
    if kind not in checked:
        if problem := _declared(cls, kind) or _words(kind):
            raise fail(token.seq, f"offered {action!r} to {who}: {problem}")
        checked.add(kind)
    text = action.describe()
    if not (isinstance(text, str) and text.strip()):
        raise fail(token.seq, f"offered {action!r} to {who}: its describe() gives no words")
    declared = ActionDeclared(who=who, action=action, cost=cost)  # type: ignore[arg-type]
    back = decode_event(encode_event(declared))
    if not (isinstance(back, ActionDeclared) and back.action == action):
        got = back.action if isinstance(back, ActionDeclared) else back
        raise fail(
            token.seq,
            f"offered {action!r} to {who}, which the log codec reads back as {got!r}",
        )
    if isinstance(action, EndTurn | Pass):
        return
    if problem := _said(cls, fight, token, action):
        raise fail(token.seq, f"offered {action.describe()} to {who}: {problem}")
    offered = f"offered {action.describe()} to {who} ({window.kind})"
    reason = fight.ruleset.check(fight.rules, who, action, window)
    if reason is not None:
        raise fail(token.seq, f"{offered}, which the ruleset's own check rejects: {reason}")
    wanted = fight.ruleset.cost(fight.rules, who, action, window)
    if wanted != cost:
        raise fail(
            token.seq,
            f"{offered} at {cost} AP, but its cost (the ruleset's cost hook) is {wanted} AP",
        )
    if (ap := fight.rules.get(who).ap) < cost:
        raise fail(token.seq, f"{offered} at {cost} AP, which it cannot pay: it has {ap} AP")


def _declared(cls: type[Ruleset], kind: type[Action]) -> str | None:
    """Why an action of type ``kind`` cannot be in a log of ``cls``, or ``None``."""
    if kind in _CORE:
        return None
    if kind not in cls.actions:
        return f"{kind.__name__} is neither a core action nor in {cls.__name__}.actions"
    tag = kind.__struct_config__.tag
    if tag != f"{cls.name}.{kind.__name__}":
        return (
            f"its tag {tag!r} should be '{cls.name}.{kind.__name__}': the log names it by its"
            " tag, screens and narration by its class name, and both should agree"
        )
    return None


def _words(kind: type[Action]) -> str | None:
    """Why screens and narration cannot word an action of type ``kind``, or ``None``."""
    if not re.fullmatch(r"[A-Z][A-Za-z0-9]*", kind.__name__):
        return (
            f"its class name {kind.__name__!r} does not read as words (screens and narration"
            " word an action from its CamelCase class name)"
        )
    if not (kind.__dict__.get("__doc__") or "").strip():
        return f"{kind.__name__} has no docstring (the help a screen shows for it)"
    return None


class _Say:
    """Words for the check: display names from the encounter, the weapon as named."""

    def __init__(self, fight: Fight, token: PriorityToken) -> None:
        self._names = {c.id: c.display for c in fight.rules.specs()}
        self.actor: str | None = token.who
        self.trigger: Trigger | None = token.window.trigger

    def name(self, who: str | None) -> str:
        return self._names.get(who, who) if who is not None else "someone"

    def known(self, text: str) -> bool:
        return text in self._names

    def weapon(self, name: str | None) -> str:
        return name or "first weapon"

    def point(self, to: Position) -> str:
        return f"to {to}"


def _said(cls: type[Ruleset], fight: Fight, token: PriorityToken, action: Action) -> str | None:
    """Why ``action`` cannot be worded (no unit, no words of its unit's own, words that fail
    or come out empty), or ``None``."""
    if isinstance(action, EndTurn | Pass):
        return None
    kind = type(action)
    unit = cls.unit_of(kind)
    if unit is None:
        return (
            f"{cls.__name__}.units has no unit for {kind.__name__}, so nothing words it for"
            " screens and narration"
        )
    if type(unit).told is ActionUnit.told:
        return (
            f"the unit {type(unit).__name__} has no words of its own for the narration (its"
            " told method)"
        )
    say = _Say(fight, token)
    for form in ("offered", "told"):
        try:
            said = getattr(unit, form)(action, say)
        except Exception as err:
            return f"its unit's {form}() raised {type(err).__name__}: {err}"
        if not (isinstance(said, str) and said.strip()):
            return f"its unit's {form}() gives no words ({said!r})"
    return None


def _first_difference(a: list[bytes], b: list[bytes]) -> int | None:
    for seq, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return seq
    return None if len(a) == len(b) else min(len(a), len(b))


def _line(lines: list[bytes], seq: int) -> str:
    return lines[seq].decode().strip() if seq < len(lines) else "<no event>"


def _decisions(events: list[Event]) -> list[Decision]:
    """The recorded decisions of a log, in order: the event answering each grant."""
    grants: set[int] = set()
    out: list[Decision] = []
    for event in events:
        if isinstance(event, PriorityGranted):
            grants.add(event.seq)
        elif event.cause in grants:
            grants.discard(event.cause)
            match event:
                case ActionDeclared(action=action) | ActionRejected(action=action):
                    out.append(Decision(action=action))
                case PriorityPassed():
                    out.append(Decision(action=Pass()))
                case DecisionFailed(kind=kind, detail=detail):
                    out.append(Decision(failure=kind, detail=detail))
                case _:
                    grants.add(event.cause)
    return out


def _verify(spec: EncounterSpec, lines: list[bytes], fail: Any) -> None:
    """Read the log back (every line decodes and encodes to itself) and re-simulate it from
    its own header and recorded decisions, as ``initiative verify`` does."""
    try:
        contents = parse_log(b"".join(lines), name="<check>")
    except InitiativeError as err:
        raise fail(None, f"its log does not read back: {err}") from None
    for event, line in zip(contents.events, lines, strict=True):
        if encode_event(event) != line:
            raise fail(
                event.seq,
                f"the log codec reads a line back differently: {line.decode().strip()}",
            )
    header = contents.events[0]
    assert isinstance(header, EncounterStarted)
    decisions = _decisions(contents.events)
    sink = LogSink(keep_lines=True)
    fight = Fight(header.encounter, header.seed, sink=sink, engine_version=header.engine)
    queue = iter(decisions)
    Stepper(fight).play(lambda token: next(queue), limit=len(decisions))
    if (seq := _first_difference(lines, sink.lines)) is not None:
        raise fail(
            seq,
            "the log does not re-simulate from its header and recorded decisions (as"
            f" `initiative verify` does): recorded {_line(lines, seq)}, re-simulated"
            f" {_line(sink.lines, seq)}",
        )


# -- the second pass: the same fights in another process, under another hash seed ------------


class _Pass(msgspec.Struct, frozen=True):
    """What the other process is asked to play: the ruleset (a name it is found by, or
    ``module:qualname``), the fights (encounter and seed) and the decision limit."""

    ruleset: str
    by_name: bool
    fights: list[tuple[EncounterSpec, int]]
    most: int


def _importable(cls: type[Ruleset], asked: type[Ruleset] | str) -> tuple[str, bool] | None:
    """How another process finds ``cls``: its name (asked for by name), else its module and
    qualified name; ``None`` when it cannot (a class of ``__main__`` or of a function)."""
    if isinstance(asked, str):
        return asked, True
    module = sys.modules.get(cls.__module__)
    if cls.__module__ == "__main__" or "<locals>" in cls.__qualname__ or module is None:
        return None
    if getattr(module, "__spec__", None) is None:
        return None
    return f"{cls.__module__}:{cls.__qualname__}", False


def _other_hash_seed() -> str:
    """A ``PYTHONHASHSEED`` other than this process's."""
    return "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"


def _in_another_process(
    cls: type[Ruleset],
    where: tuple[str, bool],
    played: list[tuple[EncounterSpec, int, list[bytes]]],
    most: int,
) -> str | None:
    """Play ``played``'s fights again in a Python process under another hash seed; raise when
    one gives another log. The hash seed, or ``None`` when that process could not import the
    class (a module only this process could import: the pass is left out)."""
    hash_seed = _other_hash_seed()
    asked = _Pass(where[0], where[1], [(spec, seed) for spec, seed, _ in played], most)
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=msgspec.json.encode(asked),
        capture_output=True,
        env=env,
        check=False,
    )
    if done.returncode == _NOT_FOUND:
        return None
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines() or ["(nothing)"]
        raise RulesetConformanceError(
            cls.name,
            f"playing the fights again under PYTHONHASHSEED={hash_seed} in another process"
            f" failed: {said[-1]}",
        )
    logs = msgspec.json.decode(done.stdout, type=list[list[str]])
    for (spec, seed, mine), theirs in zip(played, logs, strict=True):
        other = [line.encode() for line in theirs]
        if (seq := _first_difference(mine, other)) is not None:
            raise RulesetConformanceError(
                cls.name,
                f"hooks depend on the hash seed: under PYTHONHASHSEED={hash_seed} the same seed"
                f" and decisions gave a different log (here {_line(mine, seq)}; there"
                f" {_line(other, seq)}); a hook orders something by a set or dict of strings,"
                " or by hash()",
                encounter=spec.name or "<encounter>",
                seed=seed,
                seq=seq,
            )
    return hash_seed


_CHILD = "from initiative.engine._conformance import _play_asked; _play_asked()"
_NOT_FOUND = 3
"""The other process's exit status when it cannot import the class."""


def _play_asked() -> None:
    """The other process: read a :class:`_Pass` on stdin, play its fights, write their logs
    (a JSON list of each log's lines) on stdout."""
    asked = msgspec.json.decode(sys.stdin.buffer.read(), type=_Pass)
    if asked.by_name:
        cls = _named(asked.ruleset)
    else:
        module, qualname = asked.ruleset.split(":")
        try:
            found: Any = importlib.import_module(module)
            for part in qualname.split("."):
                found = getattr(found, part)
        except (ImportError, AttributeError):
            sys.exit(_NOT_FOUND)
        cls = found

    def fail(seq: int | None, problem: str) -> RulesetConformanceError:
        return RulesetConformanceError(cls.name, problem, seq=seq)

    with _lent(cls):
        logs = [
            [line.decode() for line in _play(cls, spec, seed, asked.most, None, fail)]
            for spec, seed in asked.fights
        ]
    sys.stdout.buffer.write(msgspec.json.encode(logs))
