"""Kill a real ``initiative run`` with SIGKILL at random moments; ``resume`` loses nothing.

Each kill point is a random size the log must reach before the process is killed, so kills
land anywhere in the fight, mid-line included. The resumed log must equal, byte for byte, the
log of an uninterrupted run with the same seed, and ``verify`` must pass on it. The duel has a
``random`` policy, so this also proves a resumed policy picks up its own random stream.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from debug_support import EXAMPLES, INITIATIVE, cli, record
from initiative.events import parse_log
from initiative.replays import check_chain, verify_log

pytestmark = pytest.mark.slow  # dozens of real processes, killed and resumed

KILLS = 20
"""Kill points per run of the random test (the brief asks for at least 20)."""


def _kill_at(example: Path, log: Path, size: int) -> bool:
    """Run ``example`` and SIGKILL it once its log holds ``size`` bytes; False if it finished
    first."""
    proc = subprocess.Popen(
        [INITIATIVE, "run", str(example), "--quiet", "--out", str(log)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while proc.poll() is None:
            try:
                if log.stat().st_size >= size:
                    os.kill(proc.pid, signal.SIGKILL)
                    proc.wait()
                    return True
            except FileNotFoundError:
                # Still starting: look less often, leaving the start-up the core.
                time.sleep(0.005)
                continue
            time.sleep(0.0002)
        return False
    finally:
        if proc.poll() is None:  # pragma: no cover - only if the test itself fails mid-way
            proc.kill()
            proc.wait()


def _one(example: Path, reference: bytes, point: Path, size: int) -> tuple[bool, int, str]:
    killed = _kill_at(example, point, size)
    cut = point.stat().st_size
    if not killed or point.read_bytes() == reference:
        # It finished first, or was killed after its last line: nothing was interrupted.
        return False, cut, ""
    # A real process, as the kill was: an in-process command swaps this process's environment,
    # which a Popen in the other thread may be reading as it forks.
    resumed = subprocess.run(
        [INITIATIVE, "resume", str(point), "--quiet"], capture_output=True, text=True, timeout=300
    )
    return True, cut, _check(resumed, point, reference)


def _check(resumed: subprocess.CompletedProcess[str], point: Path, reference: bytes) -> str:
    """What is wrong with the log ``resumed`` left at ``point`` (empty if nothing)."""
    problems = []
    if resumed.returncode != 0:
        problems.append(f"resume exit {resumed.returncode}: {resumed.stderr}")
    data = point.read_bytes()
    contents = parse_log(data, name=str(point))
    if check_chain(data).status != "ok" or not verify_log(contents).ok:
        problems.append(f"the resumed log does not verify: {verify_log(contents).divergence}")
    if data != reference:
        problems.append("the resumed log differs from the uninterrupted one")
    return "; ".join(problems)


def test_sigkill_then_resume_at_chosen_points(tmp_path: Path) -> None:
    """Real SIGKILLs where a crash matters most: just after the header, mid-line early, on a
    line boundary, in the middle, and mid-line near the end. Each resumed log verifies and
    equals the uninterrupted run's byte for byte."""
    example = EXAMPLES / "openings-duel.toml"
    ref = record(example, tmp_path / "ref.jsonl").read_bytes()
    header = ref.index(b"\n") + 1
    boundary = ref.index(b"\n", len(ref) // 3) + 1
    sizes = [header + 1, header + 40, boundary, len(ref) // 2, len(ref) - 20]
    jobs = [(example, ref, tmp_path / f"kill{i}.jsonl", size) for i, size in enumerate(sizes)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda job: _one(*job), jobs))
    killed = [(cut, problem) for ok, cut, problem in results if ok]
    assert not [problem for _, problem in killed if problem]
    assert len(killed) >= 3, f"only {len(killed)} runs were killed before they finished"


@pytest.mark.slow
def test_sigkill_then_resume_at_random_points(tmp_path: Path) -> None:
    """At least 20 real SIGKILLs at random log sizes: every resumed log verifies and equals the
    uninterrupted run's log byte for byte (which ``initiative verify`` passes: checked once
    below, and the rest through the same library call).

    Each kill is of a real process. Kill points are drawn until 20 runs were killed before their
    end (a run can finish first); the cut logs are then resumed by the ``resume`` command in this
    process, one after another (the test of chosen points resumes in real processes)."""
    rng = random.Random(31337)
    examples = [EXAMPLES / "openings-skirmish.toml", EXAMPLES / "openings-duel.toml"]
    references = {ex: record(ex, tmp_path / f"{ex.stem}.ref.jsonl").read_bytes() for ex in examples}
    cut_logs: list[tuple[Path, bytes]] = []
    tried = 0
    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=2) as pool:
        while len(cut_logs) < KILLS and tried < 2 * KILLS:
            jobs = []
            for i in range(tried, tried + KILLS - len(cut_logs)):
                ex = examples[i % len(examples)]
                ref = references[ex]
                header = ref.index(b"\n") + 1
                jobs.append(
                    (ex, ref, tmp_path / f"kill{i}.jsonl", rng.randrange(header + 1, len(ref)))
                )
            tried += len(jobs)
            killed = pool.map(lambda job: _kill_at(job[0], job[2], job[3]), jobs)
            for (_, ref, point, _), was_killed in zip(jobs, killed, strict=True):
                # Killed after its last line, nothing was interrupted: not a kill point.
                if was_killed and point.read_bytes() != ref:
                    cut_logs.append((point, ref))
    cuts = [point.stat().st_size for point, _ in cut_logs]
    failures = [
        f"cut at {cut} bytes: {problem}"
        for cut, (point, ref) in zip(cuts, cut_logs, strict=True)
        if (problem := _check(cli("resume", point, "--quiet"), point, ref))
    ]
    elapsed = time.monotonic() - start
    assert not failures, failures
    assert len(cut_logs) >= KILLS, (
        f"only {len(cut_logs)} of {tried} runs were killed before they finished"
    )
    cli("verify", cut_logs[0][0], check=0)
    print(f"{len(cut_logs)} kill points of {tried} runs, cut sizes {sorted(cuts)}, {elapsed:.1f} s")
