"""The library as a notebook user meets it: callables as policies, quiet output, stepping."""

import os
import subprocess
import sys

import trio
from initiative.events import Attack, EncounterEnded, EndTurn, Pass

import initiative
from tests.helpers import DUEL, ROOT

SKIRMISH = ROOT / "examples" / "openings-skirmish.toml"


def first_offer(view):
    return view.legal[0].action


class Stubborn:
    """An object policy: attacks when it can, else closes."""

    def decide(self, view):
        attacks = view.offers_of(Attack)
        if attacks:
            return attacks[0].action
        return EndTurn() if view.window.is_turn else Pass()


def test_a_notebook_script_prints_only_what_it_prints(tmp_path):
    """A script with a lambda as a policy, then verify and state, prints nothing of its own."""
    script = tmp_path / "notebook.py"
    script.write_text(
        "import initiative\n"
        f"r = initiative.run({str(DUEL)!r}, seed=3, out={str(tmp_path / 'f.jsonl')!r},\n"
        "                   policies={'north': lambda view: view.legal[0].action})\n"
        f"assert initiative.verify({str(tmp_path / 'f.jsonl')!r}).ok\n"
        f"initiative.state({str(tmp_path / 'f.jsonl')!r})\n"
        "print('winner', r.winner)\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    expected = initiative.run(DUEL, seed=3, policies={"north": first_offer}).winner
    assert done.stdout == f"winner {expected}\n"
    assert done.stderr == ""


def test_policies_as_functions_objects_classes_and_names(tmp_path):
    """Each kind of policy plays, and the log it writes verifies."""
    for choice in (first_offer, Stubborn(), Stubborn, "aggressive", lambda v: first_offer(v)):
        out = tmp_path / f"{id(choice)}.jsonl"
        result = initiative.run(DUEL, seed=5, out=out, policies={"north": choice})
        assert initiative.verify(out).ok
        assert result.state.winner == result.winner


def test_a_callable_policy_plays_the_same_as_the_same_builtin():
    """A function given directly decides exactly like the same function loaded by name."""
    from initiative.actors import aggressive

    by_name = initiative.run(SKIRMISH, seed=2, policies={"wardens": "aggressive"})
    by_function = initiative.run(SKIRMISH, seed=2, policies={"wardens": aggressive})
    assert by_name.events == by_function.events


def test_async_policies_and_run_async():
    """``run_async`` runs inside Trio code with an async policy."""

    async def patient(view):
        await trio.sleep(0)
        return first_offer(view)

    async def main():
        return await initiative.run_async(DUEL, seed=4, policies={"south": patient})

    result = trio.run(main)
    assert isinstance(result.events[-1], EncounterEnded)
    assert result.events[-1].winner == result.winner


def test_to_dicts_gives_one_plain_dict_per_event():
    """``to_dicts`` is one dict per event, with its type and seq, for pandas or polars."""
    result = initiative.run(DUEL, seed=1)
    rows = result.to_dicts()
    assert [r["seq"] for r in rows] == list(range(len(result.events)))
    assert rows[0]["type"] == "EncounterStarted"
    assert rows[-1]["type"] == "EncounterEnded"


def test_stepping_by_hand_writes_a_log_that_verifies(tmp_path):
    """``initiative.step`` answers one decision at a time and writes a normal log."""
    out = tmp_path / "stepped.jsonl"
    fight = initiative.step(DUEL, seed=6, out=out)
    decisions = 0
    while not fight.over:
        fight.send(fight.offers[0].action)
        decisions += 1
    assert decisions > 0
    assert out.read_bytes() == b"".join(fight.lines)
    assert initiative.verify(out).ok
    assert fight.winner == initiative.state(out).winner


def test_a_file_run_again_is_read_again_only_once_it_changed(tmp_path):
    """``run(path)`` in a loop reuses the file's encounter while its size and modification time
    are the same, and fights the new one as soon as the file changes."""
    path = tmp_path / "duel.toml"
    text = DUEL.read_text()
    path.write_text(text)
    first = initiative.run(path, seed=3, out=tmp_path / "a.jsonl")
    initiative.run(str(path), seed=3, out=tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    before = path.stat()
    path.write_text(text.replace("hp = 34", "hp = 43", 1))  # the same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    changed = initiative.run(path, seed=3)
    assert [c.hp for c in first.events[0].encounter.combatants][:1] == [34]
    assert [c.hp for c in changed.events[0].encounter.combatants][:1] == [43]
