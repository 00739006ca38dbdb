"""``verify`` with state digests and the tamper-evidence chain, through the installed command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from debug_support import cli, examples, record
from initiative.engine import chain_step, fold, state_digest
from initiative.events import EncounterEnded, StateDigested, decode_event, encode_event, read_log


@pytest.fixture(scope="module", params=examples(), ids=lambda p: p.stem)
def logged(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(request.param, tmp_path_factory.mktemp("verify") / "fight.jsonl")


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _reseal(lines: list[bytes]) -> list[bytes]:
    """Recompute the chain in the last line, as a careful forger would."""
    ended = decode_event(lines[-1])
    assert isinstance(ended, EncounterEnded)
    h = b""
    for line in lines[:-1]:
        h = chain_step(h, line)
    bare = type(ended)(**{**{f: getattr(ended, f) for f in ended.__struct_fields__}, "chain": ""})
    h = chain_step(h, encode_event(bare))
    return [*lines[:-1], encode_event(type(bare)(**{**_fields(bare), "chain": h.hex()}))]


def _fields(event: object) -> dict[str, object]:
    return {f: getattr(event, f) for f in event.__struct_fields__}  # type: ignore[attr-defined]


def test_a_digest_at_every_round_end_and_before_the_end(logged: Path) -> None:
    """Each RoundEnded is followed (after round-end effects) by a StateDigested of that round,
    and the line before EncounterEnded is a StateDigested."""
    events = read_log(logged).events
    rounds = [e.round for e in events if type(e).__name__ == "RoundEnded"]
    digests = [e for e in events if isinstance(e, StateDigested)]
    assert [d.round for d in digests][: len(rounds)] == rounds
    assert isinstance(events[-2], StateDigested)
    for d in digests:
        assert d.digest == state_digest(fold(events, d.seq - 1))


def test_verify_clean_log(logged: Path) -> None:
    """An untouched log verifies, with its digests and chain named."""
    events = read_log(logged).events
    n_digests = sum(isinstance(e, StateDigested) for e in events)
    proc = cli("verify", logged, check=0)
    assert proc.stdout.strip() == (
        f"verified: all {len(events)} events match the re-simulation,"
        f" {n_digests} state digests, chain intact"
    )


@pytest.mark.parametrize("how", ["edited", "removed", "reordered"])
def test_verify_reports_tampering(logged: Path, tmp_path: Path, how: str) -> None:
    """Lines edited, removed or reordered: "tampered", exit 1, not a re-simulation divergence."""
    lines = _lines(logged)
    k = len(lines) // 2
    if how == "edited":
        lines[k] = lines[k].replace(b'"cause":', b'"cause": ', 1)
    elif how == "removed":
        del lines[k]
    else:
        lines[k], lines[k + 1] = lines[k + 1], lines[k]
    bad = tmp_path / f"{how}.jsonl"
    bad.write_bytes(b"".join(lines))
    proc = cli("verify", bad, check=1)
    first = proc.stdout.splitlines()[0]
    assert first.startswith("tampered: the chain recorded in EncounterEnded does not match")
    assert "diverged" not in proc.stdout


def test_verify_tampered_damage_names_the_line(logged: Path, tmp_path: Path) -> None:
    """An edited damage amount is tampering, and the first line unlike the re-simulation is
    named."""
    lines = _lines(logged)
    k = next(i for i, line in enumerate(lines) if b'"type":"DamageDealt"' in line)
    obj = json.loads(lines[k])
    obj["amount"] += 1
    lines[k] = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
    bad = tmp_path / "damage.jsonl"
    bad.write_bytes(b"".join(lines))
    proc = cli("verify", bad, check=1)
    first, second = proc.stdout.splitlines()
    assert first == (
        "tampered: the chain recorded in EncounterEnded does not match the log's lines"
        " (lines were edited, reordered or removed)"
    )
    assert second.startswith(
        f"first line unlike the re-simulation: seq {k}: DamageDealt; amount: log has"
    )


def test_verify_names_first_round_whose_state_differs(logged: Path, tmp_path: Path) -> None:
    """A recorded state the log's own fold does not reach (as when the fold that wrote it
    differed), with the chain intact: "diverged", naming the round, before re-simulating."""
    lines = _lines(logged)
    events = read_log(logged).events
    second = [e for e in events if isinstance(e, StateDigested)][1]
    obj = json.loads(lines[second.seq])
    obj["digest"] = "0" * 32
    lines[second.seq] = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
    bad = tmp_path / "fold.jsonl"
    bad.write_bytes(b"".join(_reseal(lines)))
    proc = cli("verify", bad, check=1)
    assert proc.stdout.splitlines() == [
        f"diverged: the state at the end of round {second.round} differs"
        f" (seq {second.seq}: the log records digest {'0' * 32}, folding its events gives"
        f" {second.digest})"
    ]


def test_verify_unreadable_log_exits_2(tmp_path: Path) -> None:
    """A missing file: one line on stderr, exit 2."""
    proc = cli("verify", tmp_path / "missing.jsonl", check=2)
    assert proc.stderr.startswith("error: ")
    assert len(proc.stderr.strip().splitlines()) == 1


def test_verify_corrupt_line_is_tampered(logged: Path, tmp_path: Path) -> None:
    """Issue: "Structural damage is 'tampered' (exit 1) from verify whether the log is complete
    or not": garbage in the middle of an unfinished log names the line, exit 1."""
    lines = _lines(logged)[:20]
    lines[5] = b"{not json\n"
    bad = tmp_path / "corrupt.jsonl"
    bad.write_bytes(b"".join(lines))
    proc = cli("verify", bad, check=1)
    assert "tampered" in proc.stdout and "line 6" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_verify_checks_lines_forged_after_the_last_decision(logged: Path, tmp_path: Path) -> None:
    """Issue: "verify stops checking at the last pending decision of an incomplete log": a
    line added after it is a divergence, not "incomplete: all events match"."""
    lines = _lines(logged)
    grant = max(i for i, line in enumerate(lines[:60]) if b'"PriorityGranted"' in line)
    kept = lines[: grant + 1]
    forged = next(line for line in lines if b'"RoundStarted"' in line)
    obj = json.loads(forged)
    obj["seq"], obj["cause"] = grant + 1, 0
    cut = tmp_path / "forged.jsonl"
    cut.write_bytes(b"".join(kept) + json.dumps(obj, separators=(",", ":")).encode() + b"\n")
    proc = cli("verify", cut, check=1)
    assert "diverged" in proc.stdout and f"seq {grant + 1}" in proc.stdout
    assert "incomplete" not in proc.stdout
