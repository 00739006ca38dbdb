"""Each command's options as one typed value: its fields hold every option's default (the
command's signature takes them from here), it is made from what the command line parsed, and
it prints itself back as arguments (the command a stopped fight or batch goes on with), so no
default is written twice.

A command's function still declares its options for Typer (each option's flag and help), with
the defaults of its :class:`Options` class; it reads them back as one value with
:meth:`Options.from_params` of its context's parameters. ``arguments()`` prints only the
command's own options: an option of the whole program (``--log-level``) is not one of them.
"""

from __future__ import annotations

import dataclasses
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

from ._app import UsageProblem, parse_policies


@dataclass(frozen=True, kw_only=True)
class Options:
    """The base of every command's options: how they are read from the command line and
    printed back. A field without a default is one the command requires."""

    COMMAND: ClassVar[str] = ""
    """The command's name (``initiative COMMAND``)."""
    POSITIONAL: ClassVar[tuple[str, ...]] = ()
    """The fields given as the command's arguments, in order, before its options."""
    FLAGS: ClassVar[dict[str, str]] = {}
    """Each field whose flag is not ``--`` and its name in dashes: ``as_json`` is ``--json``."""
    PARAMS: ClassVar[dict[str, str]] = {}
    """Each parameter of the command's function that names its field otherwise."""
    TOGETHER: ClassVar[tuple[str, ...]] = ()
    """The fields whose values all follow one flag (``--tls CERT KEY``); the other tuples
    repeat their flag before each value (``--seat a --seat b``)."""

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> Self:
        """The options from the parameters the command line parsed (``ctx.params``): by each
        field's name, a list as a tuple."""
        given = {
            cls.PARAMS.get(name, name): tuple(value) if isinstance(value, list) else value
            for name, value in params.items()
        }
        return cls(**given)

    def flag(self, name: str) -> str:
        """The flag of the field ``name``."""
        return self.FLAGS.get(name, "--" + name.replace("_", "-"))

    def arguments(self) -> list[str]:
        """The options as the command takes them: its arguments first, then each option left
        out where it has its default."""
        fields = {f.name: f for f in dataclasses.fields(self)}
        given = [getattr(self, name) for name in self.POSITIONAL]
        parts = [w for value in given if value is not None for w in _words(value)]
        for name, f in fields.items():
            value = getattr(self, name)
            if name in self.POSITIONAL or value == f.default:
                continue
            flag = self.flag(name)
            if isinstance(value, bool):
                parts.append(flag if value else flag.replace("--", "--no-", 1))
            elif name in self.TOGETHER:
                parts += [flag, *_words(value)]
            elif isinstance(value, tuple):
                for item in value:
                    parts += [flag, *_words(item)]
            else:
                parts += [flag, *_words(value)]
        return parts

    def command_line(self, **changes: Any) -> str:
        """``initiative COMMAND ARGUMENTS`` for these options, with ``changes``, for a shell."""
        again = dataclasses.replace(self, **changes)
        return shlex.join(["initiative", self.COMMAND, *again.arguments()])


def _words(value: object) -> list[str]:
    """A value as the words of a command line: a number as it reads back exactly."""
    if isinstance(value, tuple):
        return [w for item in value for w in _words(item)]
    if isinstance(value, float):
        short = f"{value:g}"
        return [short if float(short) == value else repr(value)]
    return [str(value)]


@dataclass(frozen=True, kw_only=True)
class RunOptions(Options):
    """``run``: one fight of an encounter, narrated, its log written."""

    COMMAND = "run"
    POSITIONAL = ("encounter",)
    PARAMS: ClassVar[dict[str, str]] = {"out_path": "out"}

    encounter: Path
    seed: int | None = None
    out: Path | None = None
    policy: tuple[str, ...] = ()
    timeout: float | None = None
    quiet: bool = False
    verbose: bool = False
    force: bool = False
    dice: str | None = None
    host: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ResumeOptions(Options):
    """``resume``: an interrupted fight gone on with (the line ``run``, ``fork`` and ``resume``
    say on Ctrl-C)."""

    COMMAND = "resume"
    POSITIONAL = ("log",)
    PARAMS: ClassVar[dict[str, str]] = {"trust": "trust_log_policies"}

    log: Path
    policy: tuple[str, ...] = ()
    quiet: bool = False
    trust_log_policies: bool = False
    dice: str | None = None
    host: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ReviewOptions(Options):
    """``review``: a log's decisions graded by rollouts, or a folder of logs added up."""

    COMMAND = "review"
    POSITIONAL = ("log",)
    FLAGS: ClassVar[dict[str, str]] = {"as_json": "--json"}

    log: Path
    as_json: bool = False
    rollouts: int | None = None
    width: int = 4
    model: str = "tactician"
    seconds: float | None = None
    jobs: int = 1
    seed: int = 0
    report: Path | None = None
    policy: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class AtScale(Options):
    """What the commands that fight many encounters share: workers, seeds, a time limit per
    decision, and where the results go besides the screen."""

    FLAGS: ClassVar[dict[str, str]] = {"as_json": "--json"}

    jobs: int = 1
    seed_start: int = 1
    timeout: float | None = None
    as_json: bool = False
    report: Path | None = None
    csv: Path | None = None
    csv_combatants: Path | None = None


@dataclass(frozen=True, kw_only=True)
class BatchOptions(AtScale):
    """``batch``: many seeds of one encounter."""

    COMMAND = "batch"
    POSITIONAL = ("encounter",)

    encounter: Path
    runs: int
    policy: tuple[str, ...] = ()
    db: Path | None = None
    keep_logs: Path | None = None
    cluster: str | None = None
    resume: bool = False


@dataclass(frozen=True, kw_only=True)
class DuelOptions(AtScale):
    """``duel``: two policies on one encounter, each seed fought both ways."""

    COMMAND = "duel"
    POSITIONAL = ("encounter",)

    encounter: Path
    policies: tuple[str, str]
    runs: int
    db: Path | None = None
    keep_logs: Path | None = None
    cluster: str | None = None
    resume: bool = False

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> Self:
        """As :meth:`Options.from_params`, with the encounter and the two policies read from
        the command's words (see :func:`duel_words`)."""
        given = dict(params)
        encounter, policies = duel_words(given.pop("words"), given.pop("policies"))
        return super().from_params({**given, "encounter": encounter, "policies": policies})


def duel_words(words: list[Path], policies: list[str]) -> tuple[Path, tuple[str, str]]:
    """The encounter and the two policies of ``duel``. An option takes one value, so in
    ``--policies A B`` the word B arrives beside the encounter: the encounter is the word that
    ends in ``.toml`` or names an existing file, every other word a policy (as ``league``
    reads them). Anything but one encounter and two policies is one line and exit 2."""
    files, names = league_words(words, policies)
    if len(files) != 1:
        raise UsageProblem(
            f"duel takes one encounter file, got {len(files)}"
            + (f": {', '.join(map(str, files))}" if files else "")
        )
    if len(names) != 2:
        raise UsageProblem(
            f"--policies takes exactly two names (--policies A B), got {len(names)}"
            + (f": {' '.join(names)}" if names else "")
        )
    return files[0], (names[0], names[1])


@dataclass(frozen=True, kw_only=True)
class CompareOptions(AtScale):
    """``compare``: variants of an encounter on the same seeds."""

    COMMAND = "compare"
    POSITIONAL = ("encounters",)

    encounters: tuple[Path, ...]
    runs: int
    policy: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class LeagueOptions(AtScale):
    """``league``: a round robin of policies over encounters."""

    COMMAND = "league"
    POSITIONAL = ("encounters",)

    encounters: tuple[Path, ...]
    policies: tuple[str, ...]
    runs: int = 50
    db: Path | None = None

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> Self:
        """As :meth:`Options.from_params`, with the encounters and the policies read from the
        command's words (see :func:`league_words`)."""
        files, names = league_words(params["encounters"], params["policies"])
        return super().from_params({**params, "encounters": files, "policies": names})


def league_words(words: list[Path], policies: list[str]) -> tuple[list[Path], list[str]]:
    """The encounters and the policies. An option takes one value, so in ``--policies A B C``
    the words B and C arrive among the encounters: an encounter is a word that ends in
    ``.toml`` or names an existing file; every other word is a policy, in the order given
    (after those given to ``--policies`` itself, which may also be ``A,B,C``)."""
    files = [w for w in words if w.suffix == ".toml" or w.is_file()]
    names = [name for given in policies for name in given.split(",") if name]
    names += [str(w) for w in words if not (w.suffix == ".toml" or w.is_file())]
    return files, names


@dataclass(frozen=True, kw_only=True)
class SweepOptions(AtScale):
    """``sweep``: one value of an encounter varied over a range (two: a grid)."""

    COMMAND = "sweep"
    POSITIONAL = ("encounter",)

    encounter: Path
    vary: tuple[str, ...]
    step: float | None = None
    points: int | None = None
    runs: int = 100
    side: str | None = None
    target: float | None = None
    db: Path | None = None


@dataclass(frozen=True, kw_only=True)
class JoinOptions(Options):
    """``join``: a seat of a served fight taken from this terminal, or the fight watched."""

    COMMAND = "join"
    POSITIONAL = ("address",)
    PARAMS: ClassVar[dict[str, str]] = {"copy_path": "out"}

    address: str
    seat: str | None = None
    token: str | None = None
    watch: bool = False
    gm: bool = False
    out: Path | None = None
    reconnect: float = 300.0
    tls: bool = False
    ca: Path | None = None
    review_out: Path | None = None

    def check(self) -> str:
        """Refuse a combination no connection can be made with, as a :class:`UsageProblem`
        (one line); the token to connect with."""
        if (self.seat is not None) + self.watch + self.gm != 1:
            raise UsageProblem("give either --seat and --token, or --watch or --gm with --token")
        if self.review_out is not None and not self.gm:
            raise UsageProblem("--review-out is for the GM (--gm): only the GM asks for the review")
        if self.seat is not None and self.token is None:
            raise UsageProblem(f"--seat {self.seat}: the seat's --token is needed too")
        if not self.reconnect >= 0:
            raise UsageProblem(
                f"--reconnect must be zero or a number of seconds, got {self.reconnect:g}"
            )
        if self.token is None:
            raise UsageProblem(
                "--watch: the spectators' --token is needed too (printed by serve)"
                if self.watch
                else "--gm: the GM's --token is needed too (printed by serve)"
            )
        return self.token


@dataclass(frozen=True, kw_only=True)
class ServeOptions(Options):
    """Every option of ``serve``, each with its default; in the order :meth:`arguments` prints
    them (the order the resume command has always had)."""

    COMMAND = "serve"
    POSITIONAL = ("encounter",)
    FLAGS: ClassVar[dict[str, str]] = {"quiet": "-q"}
    PARAMS: ClassVar[dict[str, str]] = {"out_path": "out", "trust": "trust_log_policies"}
    TOGETHER = ("tls",)

    encounter: Path | None = None
    resume: Path | None = None
    seat: tuple[str, ...] = ()
    policy: tuple[str, ...] = ()
    deadline: float = 60.0
    grace: float = 30.0
    timeout: float | None = None
    host: str = "127.0.0.1"
    hello_timeout: float = 10.0
    max_frame: int = 64 * 1024
    max_connections: int = 64
    tls: tuple[Path, Path] | None = None
    port: int = 0
    seed: int | None = None
    out: Path | None = None
    wait: bool = True
    spectators: str = "seats"
    gm_odds: bool = False
    trust_log_policies: bool = False
    quiet: bool = False

    def check(self) -> dict[str, str]:
        """Refuse values no server can run with, as a :class:`UsageProblem` (one line); the
        policies ``--policy`` chose, by combatant or side."""
        if (self.encounter is None) == (self.resume is None):
            raise UsageProblem(
                "give either the ENCOUNTER file or --resume LOG (a served fight's log)"
            )
        if not self.seat:
            raise UsageProblem("name at least one --seat (a combatant id or a side)")
        chosen = parse_policies(list(self.policy))
        if self.spectators not in ("seats", "all"):
            raise UsageProblem(f"--spectators {self.spectators}: expected 'seats' or 'all'")
        for name, value, what in [
            ("--hello-timeout", self.hello_timeout, "seconds"),
            ("--max-frame", self.max_frame, "bytes"),
            ("--max-connections", self.max_connections, "connections"),
        ]:
            if not value > 0:
                raise UsageProblem(f"{name} must be a positive number of {what}, got {value:g}")
        if not self.grace >= 0:
            raise UsageProblem(
                f"--grace must be zero or a positive number of seconds, got {self.grace:g}"
            )
        if self.resume is not None:
            for given, option in [(self.seed, "--seed"), (self.out, "--out")]:
                if given is not None:
                    raise UsageProblem(f"{option} is not for --resume: the log says it")
        return chosen

    def going_on(self, log: Path, port: int) -> str:
        """The command that goes on with the fight in ``log``, served on ``port`` again."""
        return self.command_line(encounter=None, resume=log, port=port, seed=None, out=None)
