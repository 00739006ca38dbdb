"""Logs written before the vocabulary moved into the rulesets (log format 1) still read, verify,
replay and show, through the upcaster; a log's actions decode by the ruleset its header names.

tests/golden/format1/ holds five fights as format 1 wrote them (bare action tags such as
``"Block"``); tests/golden/format1/upcast/ holds the same fights in the current format
(``"tactical.Block"``). They were the golden logs until the built-in policies changed (the golden
logs were then fought again); neither folder is ever regenerated.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from debug_support import EXAMPLES, cli
from initiative.engine.rulesets.tactical import Block
from initiative.engine.rulesets.thriller import Retaliate
from initiative.events import (
    LOG_FORMAT,
    ActionDeclared,
    EncounterFileError,
    LogFormatError,
    parse_log,
    read_log,
)
from initiative.replays import check_chain, verify_log

from initiative import engine

OLD = Path(__file__).parents[1] / "golden" / "format1"
GOLDEN = OLD / "upcast"
"""The fights of ``OLD`` in the current format."""
NAMES = sorted(p.name for p in OLD.glob("*.jsonl"))


def test_every_old_log_is_kept_in_the_current_format_too() -> None:
    assert sorted(p.name for p in GOLDEN.glob("*.jsonl")) == NAMES
    for name in NAMES:
        assert b'"format":1,' in (OLD / name).read_bytes().split(b"\n", 1)[0]


@pytest.mark.parametrize("name", NAMES)
def test_an_old_log_reads_as_the_same_fight_in_the_current_format(name: str) -> None:
    """Upcast, a format-1 log is its format-2 twin byte for byte: the same events,
    dice, state digests and chain (recomputed over the current lines because the recorded one
    holds over the original bytes); only the encoding of actions and the header changed."""
    old = read_log(OLD / name)
    assert old.upcast_from == 1 and old.header.format == LOG_FORMAT
    assert b"".join(old.lines) == (GOLDEN / name).read_bytes()
    assert check_chain((OLD / name).read_bytes()).status == "ok"
    result = verify_log(old)
    assert result.ok and result.events == len(old.events)


def test_a_current_log_decodes_its_actions_by_its_header_ruleset() -> None:
    tactical = read_log(GOLDEN / "tactical-bridge.seed4.jsonl")
    assert tactical.upcast_from == 0
    blocks = [e for e in tactical.events if isinstance(e, ActionDeclared) and e.action == Block()]
    assert blocks and all(type(e.action) is Block for e in blocks)
    thriller = read_log(GOLDEN / "thriller-ambush.seed2.jsonl")
    (retaliation,) = [
        e
        for e in thriller.events
        if isinstance(e, ActionDeclared) and isinstance(e.action, Retaliate)
    ]
    assert retaliation.action.is_attack and retaliation.action.is_reaction


def test_a_fresh_process_reads_a_log_without_importing_its_ruleset_by_hand() -> None:
    """The reader finds the header's ruleset through its entry point, bundled ones too."""
    code = (
        "from initiative.events import read_log, ActionDeclared\n"
        f"c = read_log({str(GOLDEN / 'tactical-bridge.seed4.jsonl')!r})\n"
        "print(sorted({type(e.action).__struct_config__.tag for e in c.events"
        " if isinstance(e, ActionDeclared)}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "tactical.Block" in out.stdout and "Attack" in out.stdout


def _swap(data: bytes, old: bytes, new: bytes) -> bytes:
    assert old in data
    return data.replace(old, new, 1)


def test_an_action_of_another_ruleset_in_a_log_is_a_clear_error() -> None:
    """A thriller log that holds a tactical action names the line and the two rulesets."""
    data = (GOLDEN / "thriller-ambush.seed2.jsonl").read_bytes()
    forged = _swap(
        data, b'{"type":"thriller.Retaliate","target":"marlowe"}', b'{"type":"tactical.Block"}'
    )
    with pytest.raises(LogFormatError) as caught:
        parse_log(forged, name="ambush.jsonl")
    message = str(caught.value)
    assert message.startswith("ambush.jsonl: line 79: action 'tactical.Block' belongs to the")
    assert "tactical ruleset; a thriller log cannot hold it" in message
    # The same in a format-1 log: the old bare tag is known to be tactical's.
    old = (OLD / "thriller-ambush.seed2.jsonl").read_bytes()
    forged = _swap(old, b'{"type":"Retaliate","target":"marlowe"}', b'{"type":"Block"}')
    with pytest.raises(LogFormatError, match=r"line 79: action 'tactical\.Block' belongs to the"):
        parse_log(forged, name="old.jsonl")


def test_an_action_of_another_ruleset_in_a_log_of_a_ruleset_without_actions_of_its_own() -> None:
    """An openings log (a ruleset with only the shared actions) holding a tactical action is
    refused in the same words."""
    data = (GOLDEN / "openings-duel.seed3.jsonl").read_bytes()
    forged = _swap(
        data,
        b'"seq":39,"cause":38,"who":"ilse","action":{"type":"Attack","target":"tomas","weapon":"rapier"}',
        b'"seq":39,"cause":38,"who":"ilse","action":{"type":"tactical.Block"}',
    )
    with pytest.raises(LogFormatError) as caught:
        parse_log(forged, name="duel.jsonl")
    assert str(caught.value).startswith(
        "duel.jsonl: line 40: action 'tactical.Block' belongs to the tactical ruleset;"
        " a openings log cannot hold it"
    )


def test_an_unknown_action_tag_in_a_log_names_its_line() -> None:
    data = (GOLDEN / "thriller-ambush.seed2.jsonl").read_bytes()
    forged = _swap(data, b'"thriller.Retaliate"', b'"thriller.Cartwheel"')
    with pytest.raises(LogFormatError, match="line 79: not a valid event"):
        parse_log(forged)


def test_the_commands_work_on_an_old_log(tmp_path: Path) -> None:
    """verify, replay, state, show (--follow too), view and diff read a format-1 log through
    the upcaster."""
    old = tmp_path / "ambush-v1.jsonl"
    old.write_bytes((OLD / "thriller-ambush.seed2.jsonl").read_bytes())
    new = GOLDEN / "thriller-ambush.seed2.jsonl"
    assert "chain intact" in cli("verify", old, check=0).stdout
    assert "investigators win" in cli("replay", old, check=0).stdout
    state = json.loads(cli("state", old, "--json", check=0).stdout)
    assert state == json.loads(cli("state", new, "--json", check=0).stdout)
    shown = cli("show", old, "--type", "ActionDeclared", check=0).stdout
    assert "Retaliate" in shown
    followed = cli("show", old, "--follow", "--type", "ActionDeclared", check=0).stdout
    declared = [e for e in read_log(new).events if isinstance(e, ActionDeclared)]
    assert followed.count("ActionDeclared") == len(declared) and "Retaliate" in followed
    assert "identical" in cli("diff", old, new, check=0).stdout
    cli("view", old, "--out", tmp_path / "view.html", check=0)
    assert "thriller.Retaliate" in (tmp_path / "view.html").read_text()


def test_forking_an_old_log_writes_the_current_format(tmp_path: Path) -> None:
    old = tmp_path / "duel-v1.jsonl"
    old.write_bytes((OLD / "openings-duel.seed3.jsonl").read_bytes())
    fork = tmp_path / "fork.jsonl"
    cli("fork", old, "--at", 40, "--out", fork, "--quiet", check=0)
    contents = read_log(fork)
    assert contents.upcast_from == 0 and contents.header.format == LOG_FORMAT
    current = read_log(GOLDEN / "openings-duel.seed3.jsonl")
    assert contents.lines[1:41] == current.lines[1:41]  # the kept prefix, in the current format
    assert verify_log(contents).ok


def test_resuming_an_old_log_is_refused_with_advice_to_fork(tmp_path: Path) -> None:
    """An unfinished format-1 log is not appended to in format 2 (one file, one format)."""
    lines = (OLD / "openings-duel.seed3.jsonl").read_bytes().splitlines(keepends=True)
    old = tmp_path / "unfinished-v1.jsonl"
    old.write_bytes(b"".join(lines[:100]))
    proc = cli("resume", old, "--quiet", check=2)
    message = proc.stderr.strip()
    assert len(message.splitlines()) == 1, message
    assert "written in log format 1" in message and "initiative fork" in message
    assert old.read_bytes() == b"".join(lines[:100])  # nothing written


def test_a_bare_action_name_in_an_encounter_is_the_rulesets_own() -> None:
    """Encounter files may name a ruleset's own action by its bare name ("Block")."""
    data = tomllib.loads((EXAMPLES / "tactical-bridge.toml").read_text())
    data["combatants"][0]["policy"] = "scripted"
    data["combatants"][0]["reactions"] = [{"type": "Block"}, {"type": "tactical.Evade"}]
    spec = engine.decode_encounter(data)
    assert [type(a).__struct_config__.tag for a in spec.combatants[0].reactions] == [
        "tactical.Block",
        "tactical.Evade",
    ]


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (
            {"type": "Block"},
            r"combatants\[0\].reactions\[0\].type .*Invalid value 'Block' \(the percentile"
            r" ruleset's actions: Attack, Dodge, EndTurn, Move, Parry, Pass, ReadyWeapon\)",
        ),
        (
            {"type": "tactical.Block"},
            r"reactions\[0\]: action 'tactical.Block' belongs to the tactical ruleset, not to"
            r" percentile",
        ),
    ],
)
def test_an_action_of_another_ruleset_in_an_encounter_is_refused(
    action: object, message: str
) -> None:
    engine.find_ruleset("tactical")  # its actions are known to the codec, yet not percentile's
    data = tomllib.loads((EXAMPLES / "percentile-wilhelm.toml").read_text())
    data["combatants"][0]["reactions"] = [action]
    with pytest.raises(EncounterFileError, match=message):
        engine.decode_encounter(data, name="x.toml")
