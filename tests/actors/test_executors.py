"""Two executors, one log: the Trio actors and the in-line executor give the same bytes."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from initiative.actors import BUILTIN, run_encounter_sync
from initiative.events import InitiativeError, encode_lines

from tests.helpers import encounter
from tests.test_determinism import encounters

#: Two combatants a metre apart, their policies given by each test.
NEIGHBOURS = encounter(
    """
ruleset = "openings"
[[combatants]]
id = "a"
side = "x"
hp = 6
position = [0, 0]
[[combatants]]
id = "b"
side = "y"
hp = 6
position = [1, 0]
"""
)


def _both(spec, seed, policies=None):
    trio_run = run_encounter_sync(spec, seed, policies=policies, executor="trio")
    inline_run = run_encounter_sync(spec, seed, policies=policies, executor="inline")
    return encode_lines(trio_run.events), encode_lines(inline_run.events)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(encounters(), st.data())
def test_both_executors_write_identical_logs(case, data):
    """Every ruleset, every built-in policy: the Trio and in-line executors agree byte for byte."""
    both_executors_agree(case, data)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(encounters(), st.data())
def test_a_few_encounters_give_identical_logs_on_both_executors(case, data):
    """The quick tier's sample of the property above."""
    both_executors_agree(case, data)


def both_executors_agree(case, data):
    spec, seed = case
    names = sorted(set(BUILTIN) - {"human"})  # a person is no executor test
    policies = {c.id: data.draw(st.sampled_from(names), label=c.id) for c in spec.combatants}
    if {"lookahead", "search"} & set(policies.values()):
        # Look-ahead and search fork the fight at every decision: keep their fights short,
        # and the search to a few rollouts (what is compared is the executors, not its play).
        spec = msgspec.structs.replace(spec, max_rounds=2)
        policies = {k: "search:rollouts=3" if v == "search" else v for k, v in policies.items()}
    via_trio, via_inline = _both(spec, seed, policies)
    assert via_trio == via_inline


def test_every_builtin_qualifies_and_auto_picks_inline():
    """The built-ins run in line under ``auto``; the log is the Trio executor's."""

    builtins = {"a": "aggressive", "b": "cautious"}
    auto = run_encounter_sync(NEIGHBOURS, 3, policies=builtins, executor="auto")
    assert encode_lines(auto.events) == _both(NEIGHBOURS, 3, builtins)[0]


def test_a_user_policy_runs_in_line_only_when_plain_or_marked(tmp_path):
    """A file policy runs in line when marked with ``in_line`` or when its module is plain
    (docs/policies.md, "Where a policy runs"); one that says ``in_line = False`` is not
    trusted (Trio, in a thread)."""

    (tmp_path / "p.py").write_text(
        "from initiative.actors import aggressive, in_line\n"
        "def plain(view):\n    return aggressive(view)\n"
        "@in_line\ndef marked(view):\n    return aggressive(view)\n"
        "def threaded(view):\n    return aggressive(view)\n"
        "threaded.in_line = False\n"
    )
    spec = NEIGHBOURS
    marked = {"a": f"{tmp_path}/p.py:marked", "b": "aggressive"}
    plain = {"a": f"{tmp_path}/p.py:plain", "b": "aggressive"}
    via_trio, via_inline = _both(spec, 5, marked)
    assert via_trio == via_inline
    assert encode_lines(run_encounter_sync(spec, 5, policies=plain, executor="inline").events) == (
        via_trio
    )
    threaded = {"a": f"{tmp_path}/p.py:threaded", "b": "aggressive"}
    with pytest.raises(InitiativeError, match="only trusted synchronous policies"):
        run_encounter_sync(spec, 5, policies=threaded, executor="inline")
    auto = run_encounter_sync(spec, 5, policies=threaded, executor="auto")
    assert encode_lines(auto.events) == via_trio


@pytest.mark.parametrize("executor", ["trio", "inline"])
def test_golden_logs_regenerate_identically(tmp_path, executor):
    """Each golden log, fought again from its example and seed, is written byte for byte."""
    from initiative import engine
    from tests.golden.regenerate import GOLDEN, ROOT, golden_path

    for example, seed in GOLDEN:
        spec = engine.load_encounter(ROOT / "examples" / example)
        out = tmp_path / f"{example}.jsonl"
        run_encounter_sync(spec, seed, out=out, executor=executor)
        assert out.read_bytes() == golden_path(example, seed).read_bytes(), example
