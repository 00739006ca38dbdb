"""The command line: the ``initiative`` command's entry point, and the installed command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cli_support
import pytest

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "openings-skirmish.toml"
COMMAND = str(Path(sys.executable).parent / "initiative")


def initiative(*args: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None):
    """The command in this process (see cli_support); ``env`` adds to the environment."""
    return cli_support.run(*args, env={**os.environ, **(env or {})}, cwd=cwd)


def process(*args: str | Path, env: dict[str, str] | None = None):
    """The installed command in a process of its own."""
    return subprocess.run(
        [COMMAND, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture(scope="module")
def log(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "a.jsonl"
    done = initiative("run", EXAMPLE, "--seed", "7", "--out", path, "--quiet")
    assert done.returncode == 0, done.stderr
    return path


def test_run_twice_gives_identical_files(log, tmp_path):
    """Done-when: `run ... --seed 7 --out a.jsonl` run twice gives identical files."""
    again = tmp_path / "b.jsonl"
    assert initiative("run", EXAMPLE, "--seed", "7", "--out", again, "-q").returncode == 0
    assert again.read_bytes() == log.read_bytes()


@pytest.mark.slow  # real processes
def test_runs_in_processes_with_different_hash_seeds_give_identical_bytes(log, tmp_path):
    """Determinism across processes: PYTHONHASHSEED changes nothing in the log."""
    for hash_seed in ("1", "2"):
        out = tmp_path / f"h{hash_seed}.jsonl"
        done = process(
            "run", EXAMPLE, "--seed", "7", "--out", out, "-q", env={"PYTHONHASHSEED": hash_seed}
        )
        assert done.returncode == 0
        assert out.read_bytes() == log.read_bytes()


def test_run_narrates_the_fight(tmp_path):
    """`run` tells the fight as it happens and says where the log went."""
    done = initiative("run", EXAMPLE, "--seed", "7", "--out", tmp_path / "n.jsonl")
    assert done.returncode == 0
    assert "Skirmish at the ford" in done.stdout
    assert "-- Round 1 --" in done.stdout
    assert "Brenna's turn" in done.stdout
    assert f"log written to {tmp_path / 'n.jsonl'}" in done.stderr.replace("\n", "")


def test_run_writes_a_default_log_name(tmp_path):
    """Without --out the log goes to NAME.seedN.jsonl in the working directory."""
    done = initiative("run", EXAMPLE, "--seed", "5", "-q", cwd=tmp_path)
    assert done.returncode == 0
    assert (tmp_path / "openings-skirmish.seed5.jsonl").is_file()


def test_verify_passes_on_an_untouched_log(log):
    """Done-when: `initiative verify a.jsonl` exits 0."""
    done = initiative("verify", log)
    assert done.returncode == 0
    assert done.stdout.startswith("verified: all ")


def test_changing_one_die_makes_verify_fail_naming_its_seq(log, tmp_path):
    """Done-when: changing one die's value makes `verify` exit 1 and name that event's seq."""
    lines = log.read_bytes().splitlines(keepends=True)
    index = next(
        i
        for i, line in enumerate(lines)
        if b'"DiceRolled"' in line and b'"purpose":"attack on' in line
    )
    event = json.loads(lines[index])
    face = event["dice"][0]
    event["dice"][0] = face % 20 + 1
    lines[index] = json.dumps(event, separators=(",", ":")).encode() + b"\n"
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"".join(lines))
    done = initiative("verify", bad)
    assert done.returncode == 1
    assert done.stdout.startswith("tampered:")  # the edit also breaks the chain
    assert f"first line unlike the re-simulation: seq {index}" in done.stdout


def test_state_json_prints_the_pinned_keys(log):
    """Done-when: `state a.jsonl --json` prints the pinned keys."""
    done = initiative("state", log, "--json")
    assert done.returncode == 0
    data = json.loads(done.stdout)
    assert {"seq", "round", "active", "priority", "order", "combatants"} <= set(data)
    brenna = data["combatants"]["brenna"]
    assert {"ap", "hp", "conditions", "position", "defeated"} <= set(brenna)
    assert data["order"][0] in data["combatants"]


def test_state_at_a_seq_folds_only_that_far(log):
    """`state --at SEQ` is the state after that event."""
    done = initiative("state", log, "--at", "0", "--json")
    data = json.loads(done.stdout)
    assert (data["seq"], data["round"], data["combatants"]) == (0, 0, {})
    done = initiative("state", log, "--at", "1", "--json")
    assert list(json.loads(done.stdout)["combatants"]) == ["brenna"]


def test_state_table(log):
    """Without --json, a table of the combatants."""
    done = initiative("state", log)
    assert done.returncode == 0 and "brenna" in done.stdout and "goblin-1" in done.stdout


def test_show_filters_by_type_round_and_combatant(log):
    """`show` filters; --json prints the original lines."""
    done = initiative("show", log, "--type", "RoundStarted", "--json")
    rounds = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["round"] for r in rounds] == list(range(1, len(rounds) + 1))
    done = initiative(
        "show", log, "--round", "2", "--who", "osric", "--type", "TurnStarted", "--json"
    )
    (turn,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert (turn["who"], turn["round"]) == ("osric", 2)
    done = initiative("show", log, "--from", "3", "--to", "5")
    assert done.returncode == 0 and "3 of" in done.stderr


def test_replay_narrates_from_the_log_alone(log):
    """`replay` tells the fight without running rules or policies."""
    done = initiative("replay", log)
    assert done.returncode == 0
    assert "Skirmish at the ford" in done.stdout and "win after" in done.stdout


@pytest.mark.parametrize("command", ["run", "replay", "verify", "show", "state"])
def test_help_on_every_command(command):
    """Every command has --help."""
    done = initiative(command, "--help")
    assert done.returncode == 0 and "Usage" in done.stdout


def test_malformed_encounter_is_one_line_and_exit_2(tmp_path):
    """A bad file: one clear message with file and line, exit 2, no traceback."""
    bad = tmp_path / "bad.toml"
    bad.write_text('ruleset = "openings"\n[[combatants]\nid = 1\n')
    done = initiative("run", bad)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert f"{bad}: not valid TOML" in done.stderr.replace("\n", "")


def test_unknown_ruleset_is_exit_2(tmp_path):
    """An unknown ruleset: exit 2 with the known ones listed."""
    bad = tmp_path / "bad.toml"
    bad.write_text(EXAMPLE.read_text().replace('"openings"', '"poker"', 1))
    done = initiative("run", bad)
    assert done.returncode == 2 and "unknown ruleset 'poker'" in done.stderr


def test_unknown_policy_override_is_exit_2():
    """--policy for a combatant that does not exist."""
    done = initiative("run", EXAMPLE, "--policy", "zed=random", "-q")
    assert done.returncode == 2 and "no combatant or side 'zed'" in done.stderr


def test_torn_log_reads_with_a_warning(log, tmp_path):
    """A torn last line is dropped with a warning; the rest is used."""
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(log.read_bytes()[:-7])
    done = initiative("state", torn, "--json")
    assert done.returncode == 0
    assert "dropped a torn last line" in done.stderr
    assert json.loads(done.stdout)["seq"] == len(log.read_bytes().splitlines()) - 2


def test_corrupted_middle_line_is_exit_2_naming_the_line(log, tmp_path):
    """Damage before good lines is an error naming the line, exit 2."""
    lines = log.read_bytes().splitlines(keepends=True)
    lines[10] = b'{"type": "Turn' + lines[10][14:40] + b"\n"
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"".join(lines))
    done = initiative("verify", bad)
    assert done.returncode == 1
    assert done.stdout.startswith("tampered:")
    assert "line 11: not a valid event" in done.stdout and "Traceback" not in done.stderr
    done = initiative("state", bad)
    assert done.returncode == 2
    assert "line 11: not a valid event" in done.stderr and "Traceback" not in done.stderr


def test_missing_log_is_exit_2(tmp_path):
    """A log that does not exist."""
    done = initiative("replay", tmp_path / "none.jsonl")
    assert done.returncode == 2 and "cannot read" in done.stderr


def test_log_level_debug_shows_the_engine_log_on_stderr_only(tmp_path):
    """Structured logging of the engine is off by default and apart from the event log."""
    quiet = initiative("run", EXAMPLE, "-q", "--out", tmp_path / "q.jsonl")
    assert "round started" not in quiet.stderr
    loud = initiative("--log-level", "debug", "run", EXAMPLE, "-q", "--out", tmp_path / "l.jsonl")
    assert '"event": "round started"' in loud.stderr
    assert (tmp_path / "q.jsonl").read_bytes() == (tmp_path / "l.jsonl").read_bytes()


def test_state_at_out_of_range_is_exit_2(log):
    """--at beyond the log."""
    done = initiative("state", log, "--at", "999999")
    assert done.returncode == 2 and "no event 999999" in done.stderr


def test_a_timeout_that_is_not_positive_is_exit_2():
    """--timeout must be a positive number of seconds."""
    done = initiative("run", EXAMPLE, "--timeout", "-1", "-q")
    assert done.returncode == 2
    assert "decision timeout must be a positive number of seconds, got -1" in done.stderr
