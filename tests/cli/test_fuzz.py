"""Damaged and crafted logs and encounter files through every read command: never a traceback.

Each example mutates a real log (or encounter file) the way a crash, a bad disk or a hostile
sender would, then runs the commands a user would run on it, in this process. Every outcome is
either success, a one-line error (exit 2), or a verdict (exit 1); an uncaught exception fails.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import msgspec
import pytest
import typer.main
import typer.testing
from cli_support import run as cli_run
from hypothesis import HealthCheck, given, settings, strategies as st
from initiative.actors import run_encounter_sync
from initiative.events import EncounterFileError, InitiativeError
from typer.testing import CliRunner

from initiative import engine
from initiative.cli._main import app

ROOT = Path(__file__).resolve().parents[2]

TINY = """
ruleset = "openings"
name = "tiny"
[[combatants]]
id = "a"
name = "Ann"
side = "x"
hp = 6
position = [0, 0]
weapons = [{ name = "club", damage = "1d4", reach = 1.5 }]
[[combatants]]
id = "b"
side = "y"
hp = 6
position = [1, 0]
weapons = [{ name = "club", damage = "1d4", reach = 1.5 }]
"""

HOSTILE_TEXT = st.sampled_from(
    ["[red]", "[/x]", "[link=https://example.invalid]x[/link]", "\x1b[2J", "\x1b]0;t\x07", "\\"]
)
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    HOSTILE_TEXT,
    st.lists(st.integers(-3, 3), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


_COMMAND = typer.main.get_command(app)


@pytest.fixture(autouse=True)
def _command_built_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The click command of ``app`` built once for the module: Typer's runner builds it anew from
    the app on every invoke, which took most of the time of these hundreds of invocations. The
    command is the one the ``initiative`` script builds; each invoke still parses and runs anew."""
    monkeypatch.setattr(typer.testing, "_get_command", lambda _app: _COMMAND)


@pytest.fixture(scope="module")
def base_log(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    spec = engine.decode_encounter(tomllib.loads(TINY), name="tiny")
    path = tmp_path_factory.mktemp("fuzz") / "tiny.jsonl"
    run_encounter_sync(spec, 1, out=path)
    # The commands are there and read the unharmed log: a bare ``app`` (without the command
    # modules registered) refuses every command as a usage error, which this property allows.
    for template in COMMANDS:
        args = [a.format(log=path, html=path.with_suffix(".html"), base=path) for a in template]
        done = CliRunner().invoke(app, args)
        assert done.exit_code == 0, (template, done.output)
    return path.read_bytes()


@st.composite
def mutated(draw: st.DrawFn, data: bytes) -> bytes:
    lines = data.split(b"\n")[:-1]
    kind = draw(st.sampled_from(["byte", "cut", "drop", "dup", "swap", "field", "utf8"]))
    i = draw(st.integers(0, len(lines) - 1))
    if kind == "byte":
        raw = bytearray(data)
        raw[draw(st.integers(0, len(raw) - 1))] = draw(st.integers(0, 255))
        return bytes(raw)
    if kind == "cut":
        return data[: draw(st.integers(0, len(data)))]
    if kind == "drop":
        del lines[i]
    elif kind == "dup":
        lines.insert(i, lines[i])
    elif kind == "swap":
        j = draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "utf8":
        lines[i] = lines[i][:-1] + b',"zz":"\xff\xfe"}'
    else:
        obj = json.loads(lines[i])
        key = draw(st.sampled_from([*obj, "who", "format", "seq", "cause", "zz"]))
        obj[key] = draw(VALUES)
        if i == 0 and draw(st.booleans()):
            fighter = obj["encounter"]["combatants"][0]
            fighter[draw(st.sampled_from(["name", "side", "policy", "hp", "position"]))] = draw(
                VALUES
            )
        lines[i] = json.dumps(obj).encode()
    return b"".join(line + b"\n" for line in lines)


COMMANDS = [
    ["replay", "-v", "{log}"],
    ["show", "{log}"],
    ["show", "{log}", "--json"],
    ["state", "{log}"],
    ["state", "{log}", "--json", "--at", "5"],
    ["why", "{log}", "9", "--effects"],
    ["view", "{log}", "-o", "{html}", "--force"],
    ["verify", "{log}"],
    ["diff", "{log}", "{base}"],
]


def _run_all(tmp: Path, data: bytes, base: Path) -> None:
    log = tmp / "m.jsonl"
    log.write_bytes(data)
    runner = CliRunner()
    for template in COMMANDS:
        args = [a.format(log=log, html=tmp / "m.html", base=base) for a in template]
        result = runner.invoke(app, args)
        problem = result.exception
        if problem is not None and not isinstance(problem, InitiativeError | SystemExit):
            raise AssertionError(f"{' '.join(template)}: uncaught {problem!r}") from problem


_FUZZ = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.mark.slow
@settings(_FUZZ, max_examples=40)
@given(data=st.data())
def test_mutated_logs_never_raise(base_log: bytes, tmp_path: Path, data: st.DataObject) -> None:
    """A log cut, flipped, reordered, duplicated or with crafted fields: every read command
    ends in its one-line error or verdict, never an uncaught exception."""
    base = tmp_path / "base.jsonl"
    base.write_bytes(base_log)
    _run_all(tmp_path, data.draw(mutated(base_log)), base)


@settings(_FUZZ, max_examples=8)
@given(data=st.data())
def test_a_few_mutated_logs_never_raise(
    base_log: bytes, tmp_path: Path, data: st.DataObject
) -> None:
    """The same property on a small sample, for the quick tier."""
    base = tmp_path / "base.jsonl"
    base.write_bytes(base_log)
    _run_all(tmp_path, data.draw(mutated(base_log)), base)


EXAMPLE = tomllib.loads((ROOT / "examples" / "openings-duel.toml").read_text())


@settings(max_examples=150, deadline=None)
@given(
    index=st.integers(0, len(EXAMPLE["combatants"]) - 1),
    key=st.sampled_from(
        ["name", "side", "hp", "armor", "size", "count", "speed", "position", "ap", "stats"]
    ),
    value=st.one_of(VALUES, st.just(float("nan")), st.just(float("inf"))),
    top=st.sampled_from(["decision_timeout", "name", "max_rounds", "sides", "seed"]),
    top_value=st.one_of(VALUES, st.just(float("nan"))),
)
def test_fuzzed_encounters_are_loaded_or_refused(
    index: int, key: str, value: object, top: str, top_value: object
) -> None:
    """An encounter with any value in any of these keys loads, or is refused with
    EncounterFileError naming the file; nothing else escapes."""
    data = json.loads(json.dumps(EXAMPLE))
    data["combatants"][index][key] = value
    data[top] = top_value
    try:
        engine.decode_encounter(data, name="fuzzed.toml")
    except InitiativeError as problem:
        assert "fuzzed.toml" in str(problem)


EXAMPLES = {
    path.name: tomllib.loads(path.read_text())
    for path in sorted((ROOT / "examples").glob("*.toml"))
}


def _inner_struct(kind: object) -> tuple[type[msgspec.Struct] | None, bool]:
    """The Struct a field holds (directly, in a sequence or as an optional), and whether it is
    a sequence of them."""
    info = msgspec.inspect.type_info(kind)  # type: ignore[arg-type]
    many = isinstance(info, msgspec.inspect.CollectionType)
    if many:
        info = info.item_type  # type: ignore[union-attr]
    if isinstance(info, msgspec.inspect.UnionType):
        info = next((t for t in info.types if isinstance(t, msgspec.inspect.StructType)), info)
    return (info.cls if isinstance(info, msgspec.inspect.StructType) else None), many


@st.composite
def option_change(
    draw: st.DrawFn, struct: type[msgspec.Struct], now: dict[str, object]
) -> tuple[str, object]:
    """A key of ``struct`` (or one it lacks) and a value: any of :data:`VALUES`, or, for a key
    that holds tables (thriller's ``specials``, tactical's ``spells`` and ``shield``), a table
    with one of its own keys set to any value (added to the tables ``now`` holds)."""
    fields = {f.encode_name: f for f in msgspec.structs.fields(struct)}
    key = draw(st.sampled_from([*fields, "zz"]))
    inner, many = _inner_struct(fields[key].type) if key in fields else (None, False)
    if inner is None or draw(st.booleans()):
        return key, draw(VALUES)
    names = [f.encode_name for f in msgspec.structs.fields(inner)]
    table = {"name": "x", draw(st.sampled_from([*names, "zz"])): draw(VALUES)}
    before = now.get(key)
    return key, [*(before if isinstance(before, list) else ()), table] if many else table


@settings(max_examples=100, deadline=None)
@given(file=st.sampled_from(sorted(EXAMPLES)), data=st.data())
def test_fuzzed_ruleset_options_are_loaded_or_refused(file: str, data: st.DataObject) -> None:
    """Each ruleset's own options, a combatant's (thriller's perks and specials, tactical's
    shield and spells, percentile's sneak) and the encounter's, with any value: the file
    loads, or is refused with an EncounterFileError naming the file and the key."""
    encounter = json.loads(json.dumps(EXAMPLES[file]))
    ruleset = engine.find_ruleset(encounter["ruleset"])
    if data.draw(st.booleans(), label="combatant's own"):
        fighter = data.draw(st.sampled_from(encounter["combatants"]), label="combatant")
        options = fighter.setdefault("options", {})
        key, value = data.draw(option_change(ruleset.CombatantOptions, options), label="change")
        options[key] = value
    else:
        options = encounter.setdefault("options", {})
        key, value = data.draw(option_change(ruleset.Options, options), label="change")
        options[key] = value
    try:
        engine.decode_encounter(encounter, name="fuzzed.toml")
    except EncounterFileError as problem:
        assert str(problem).startswith("fuzzed.toml: ")
        # (emptying thriller's specials can leave a skill that only a special made known)
        assert key in str(problem) or "unknown skill" in str(problem)
        assert "\n" not in str(problem)


def test_a_perk_that_is_not_text_is_one_line_through_the_command(tmp_path: Path) -> None:
    """``options.perks = [1]`` in thriller-ambush (the case fuzzing found): one line naming
    the file, the combatant and the key, exit 2."""
    text = (ROOT / "examples" / "thriller-ambush.toml").read_text()
    assert 'perks = ["Combat Reflexes", "Quick Draw"]' in text
    bad = tmp_path / "ambush.toml"
    bad.write_text(text.replace('perks = ["Combat Reflexes", "Quick Draw"]', "perks = [1]"))
    done = cli_run("run", bad, "--out", tmp_path / "a.jsonl", "-q")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"error: {bad}: combatant 'marlowe': in options for ruleset 'thriller': Expected `str`,"
        " got `int` - at `options.perks[0]`"
    ]
