"""``review``: each side's chance to win before every decision, the choices graded, the turning
points of luck; on the golden logs of every ruleset, a planted blunder, a side that never
fights, live-table logs with typed dice and GM overrides, and bad input, through the library
and the installed command. Small budgets: the numbers are checked for what they must be (a
probability, a non-negative loss, the same bytes twice), not for their exact values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run
from initiative.engine import load_encounter
from initiative.events import CombatantDefeated, ReplayDivergedError, parse_log, read_log
from initiative.replays import Budget, grade, review, wilson

from initiative import SteppedFight

HERE = Path(__file__).parent
GOLDEN = HERE.parent / "golden"
EXAMPLES = HERE.parents[1] / "examples"
GRADES = {"best", "good", "inaccuracy", "mistake", "blunder"}

# Osric (the wardens) stands next to the boss, who is on 1 hit point; Osric's policy only ever
# ends its turn (``scripted`` with no script), the boss hits back hard.
LAST_BLOW = """
ruleset = "openings"
name = "The last blow"
seed = 1

[[combatants]]
id = "osric"
name = "Osric"
side = "wardens"
hp = 6
position = [0, 0]
stats = { agility = 5, strength = 4, defense = 3 }
weapons = [{ name = "sword", damage = "1d8+2", reach = 1.5 }]
policy = "scripted"

[[combatants]]
id = "boss"
name = "The boss"
side = "raiders"
hp = 1
position = [1, 0]
stats = { agility = 3, strength = 4, defense = 3 }
weapons = [{ name = "maul", damage = "2d6+6", reach = 1.5 }]
policy = "aggressive"
"""


def _check_shape(data: dict, *, complete: bool = True) -> None:
    """Every chance a probability inside its interval, every loss non-negative, every grade
    one of the five and consistent with its loss, ``best`` null exactly where nothing better
    was found."""
    sides = data["sides"]
    assert data["complete"] is complete
    assert data["winner"] is None or data["winner"] in sides
    assert data["decisions"], "a fight with choices has decisions to review"
    for d in data["decisions"]:
        assert set(d) >= {"seq", "who", "side", "win", "chosen", "best", "loss", "grade"}
        assert set(d["win"]) == set(sides)
        assert sum(d["win"].values()) <= 1.0 + 1e-9
        for side, p in d["win"].items():
            low, high = d["interval"][side]
            assert 0.0 <= low <= p <= high <= 1.0
        assert 0.0 <= d["chosen"]["win"] <= 1.0
        assert d["loss"] >= 0.0
        assert d["grade"] in GRADES
        assert d["grade"] == grade(d["loss"], d["best"] is None)
        if d["best"] is None:
            assert d["loss"] == 0.0
        else:
            assert d["best"]["win"] - d["chosen"]["win"] == pytest.approx(d["loss"], abs=1e-3)
    for t in data["turning_points"]:
        assert all(0.0 <= p <= 1.0 for p in t["before"].values())
        assert all(0.0 <= p <= 1.0 for p in t["after"].values())
    for c in data["combatants"]:
        assert 0.0 <= c["accuracy"] <= 100.0 and c["mean_loss"] >= 0.0
        assert sum(c["grades"].values()) == c["decisions"]


@pytest.mark.parametrize(
    "golden",
    [
        "openings-duel.seed3",
        "percentile-wilhelm.seed1",
        "tactical-bridge.seed4",
        "thriller-ambush.seed2",
    ],
)
def test_golden_logs_of_every_ruleset_are_reviewed_with_honest_numbers(golden: str) -> None:
    contents = read_log(GOLDEN / f"{golden}.jsonl")
    data = review(contents, Budget(rollouts=1, width=2))
    _check_shape(data)
    assert data["winner"] == contents.events[-1].winner  # type: ignore[attr-defined]
    assert data["ruleset"] == contents.header.ruleset


def test_the_same_log_budget_and_seed_give_the_same_json_and_another_seed_other_dice() -> None:
    contents = read_log(GOLDEN / "openings-duel.seed3.jsonl")
    a = json.dumps(review(contents, Budget(rollouts=2, width=3, seed=5)))
    b = json.dumps(review(contents, Budget(rollouts=2, width=3, seed=5)))
    c = json.dumps(review(contents, Budget(rollouts=2, width=3, seed=6)))
    assert a == b
    assert a != c  # the seed is what the rollouts' dice come from


@pytest.fixture(scope="module")
def last_blow(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("review")
    (folder / "last-blow.toml").write_text(LAST_BLOW)
    log = folder / "last-blow.seed1.jsonl"
    done = run("run", folder / "last-blow.toml", "--seed", "1", "-o", log, "-q")
    assert done.returncode == 0, done.stderr
    return log


def test_a_planted_blunder_is_graded_a_blunder(last_blow: Path) -> None:
    """Osric ends his turn beside the boss on 1 hit point: a blunder, the attack the best."""
    data = review(read_log(last_blow), Budget(rollouts=16))
    first = next(d for d in data["decisions"] if d["who"] == "osric")
    assert first["chosen"]["action"] == "Osric: end turn"
    assert first["grade"] == "blunder", first
    assert first["loss"] >= 0.2
    assert first["best"]["action"].startswith("Osric attacks The boss")
    assert "the wardens' chance falls from" in first["text"]
    osric = next(c for c in data["combatants"] if c["who"] == "osric")
    assert osric["grades"]["blunder"] >= 1 and osric["accuracy"] < 50


def test_a_side_that_only_ends_its_turns_gives_up_more_than_the_side_that_fights(
    tmp_path: Path,
) -> None:
    """An even duel: Osric only ever ends his turn (``scripted``), the boss fights
    (``aggressive``); Osric's side gives up more a decision, and makes the mistakes."""
    even = LAST_BLOW.replace("hp = 6", "hp = 16").replace("hp = 1\n", "hp = 16\n")
    (tmp_path / "even.toml").write_text(even.replace("2d6+6", "1d8+2"))
    log = tmp_path / "even.jsonl"
    done = run("run", tmp_path / "even.toml", "--seed", "2", "-o", log, "-q")
    assert done.returncode == 0, done.stderr
    data = review(read_log(log), Budget(rollouts=16, width=2))
    per_side = {s["side"]: s for s in data["per_side"]}
    wardens, raiders = per_side["wardens"], per_side["raiders"]
    assert wardens["mean_loss"] > raiders["mean_loss"]
    assert wardens["accuracy"] < raiders["accuracy"]
    assert wardens["grades"]["mistake"] + wardens["grades"]["blunder"] >= 1


@pytest.mark.parametrize("fight", ["thriller-ambush.seed2", "openings-duel.seed7"])
def test_the_winners_chance_at_the_last_decision_is_high_when_the_fight_ends_in_a_kill(
    fight: str, tmp_path: Path
) -> None:
    """The last decision of a fight won by felling the last foe: the winner is far ahead there
    (and further than on average over the fight)."""
    log = GOLDEN / f"{fight}.jsonl"
    if not log.exists():  # (not a golden: played here)
        example, seed = fight.split(".seed")
        log = tmp_path / f"{fight}.jsonl"
        done = run("run", EXAMPLES / f"{example}.toml", "--seed", seed, "-o", log, "-q")
        assert done.returncode == 0, done.stderr
    events = read_log(log).events
    assert any(isinstance(e, CombatantDefeated) for e in events[-6:])  # ended by a kill
    data = review(read_log(log), Budget(rollouts=3, width=2))
    winner = data["winner"]
    assert winner is not None
    last = data["decisions"][-1]
    assert last["win"][winner] >= 0.75
    mean = sum(d["win"][winner] for d in data["decisions"]) / len(data["decisions"])
    assert last["win"][winner] >= mean


def test_a_live_table_log_with_typed_dice_and_gm_overrides_is_reviewed(tmp_path: Path) -> None:
    """Dice typed at the table (a dice file) and the GM's overrides: the log verifies, so it is
    reviewed; each override is listed as what it is, with the swing it brought."""
    step = SteppedFight(load_encounter(EXAMPLES / "openings-duel.toml"), seed=1)
    step.override({"type": "SetHp", "who": "tomas", "hp": 7})
    while not step.over:
        step.send(step.offers[0].action)
    gm = tmp_path / "gm.jsonl"
    gm.write_bytes(b"".join(step.lines))
    data = review(read_log(gm), Budget(rollouts=2, width=2))
    _check_shape(data)
    assert [o["kind"] for o in data["overrides"]] == ["override"]
    assert "The GM sets Tomas's hit points to 7." in data["overrides"][0]["text"]
    assert data["overrides"][0] in data["turning_points"]

    (tmp_path / "rolls.txt").write_text("7 3\n5 9\n2 11 4\n")
    typed = tmp_path / "typed.jsonl"
    done = run(
        "run", EXAMPLES / "openings-duel.toml", "--dice", "rolls.txt", "-o", typed, "-q",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert b"DiceGiven" in typed.read_bytes()
    _check_shape(review(read_log(typed), Budget(rollouts=2, width=2)))


def test_an_incomplete_log_is_reviewed_up_to_its_end_and_says_so(tmp_path: Path) -> None:
    lines = (GOLDEN / "openings-duel.seed3.jsonl").read_bytes().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:150]))
    data = review(read_log(cut), Budget(rollouts=1, width=2))
    _check_shape(data, complete=False)
    assert data["winner"] is None
    assert max(d["seq"] for d in data["decisions"]) < 150
    done = run("review", cut, "--rollouts", "1")
    assert done.returncode == 0, done.stderr
    assert "the log stops before the fight ends" in done.stdout


def test_a_log_that_does_not_verify_is_refused_in_one_line_naming_the_divergence(
    tmp_path: Path,
) -> None:
    text = (GOLDEN / "openings-duel.seed3.jsonl").read_text()
    lines = text.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"DamageDealt"' in line)
    event = json.loads(lines[at])
    event["amount"] = event["amount"] + 1
    lines[at] = json.dumps(event, separators=(",", ":")) + "\n"
    forged = tmp_path / "forged.jsonl"
    forged.write_text("".join(lines))
    with pytest.raises(ReplayDivergedError, match=f"first divergence is at seq {at}"):
        review(parse_log(forged.read_bytes(), name=str(forged)), Budget(rollouts=1))
    done = run("review", forged)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: ") and f"seq {at}" in done.stderr


def test_an_unknown_ruleset_is_one_line(tmp_path: Path) -> None:
    text = (GOLDEN / "openings-duel.seed3.jsonl").read_text()
    odd = tmp_path / "odd.jsonl"
    odd.write_text(text.replace('"ruleset":"openings"', '"ruleset":"openingz"'))
    done = run("review", odd)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "openingz" in done.stderr


def test_the_command_prints_words_with_names_and_json_for_scripts(last_blow: Path) -> None:
    words = run("review", last_blow, "--rollouts", "8")
    assert words.returncode == 0, words.stderr
    assert "blunder" in words.stdout
    assert "Osric: end turn: the wardens' chance falls from" in words.stdout
    assert "Turning points" in words.stdout and "Accuracy" in words.stdout
    a = run("review", last_blow, "--rollouts", "8", "--json")
    b = run("review", last_blow, "--rollouts", "8", "--json", "--seed", "0")
    assert a.stdout == b.stdout
    data = json.loads(a.stdout)
    assert data["budget"]["rollouts"] == 8
    assert {"sides", "winner", "decisions", "turning_points"} <= set(data)
    assert {p["policy"] for p in data["policies"]} == {"scripted", "aggressive"}
    bad = run("review", last_blow, "--rollouts", "0")
    assert bad.returncode == 2 and "rollouts must be at least 1" in bad.stderr
    model = run("review", last_blow, "--model", "search")
    assert model.returncode == 2 and "cannot play everyone in a fork" in model.stderr
    typo = run("review", last_blow, "--model", "tactican")
    assert typo.returncode == 2 and "did you mean 'tactician'?" in typo.stderr
    assert typo.stderr.count("\n") == 1


@pytest.mark.slow  # starts worker processes
def test_jobs_give_the_same_json_as_one_process() -> None:
    contents = read_log(GOLDEN / "openings-duel.seed3.jsonl")
    one = review(contents, Budget(rollouts=2, width=2))
    two = review(contents, Budget(rollouts=2, width=2), jobs=2)
    assert json.dumps(one) == json.dumps(two)


def test_wilson_intervals_stay_inside_zero_and_one() -> None:
    for n in (1, 2, 7, 100):
        for k in range(n + 1):
            low, high = wilson(k / n, n)
            assert 0.0 <= low <= k / n <= high <= 1.0
    assert wilson(0.5, 0) == (0.0, 1.0)


def test_replay_with_review_annotates_the_blunder_and_the_luck_in_the_narration(
    last_blow: Path,
) -> None:
    done = run("replay", last_blow, "--review", "--rollouts", "8")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    blunder = next(i for i, line in enumerate(lines) if "review: blunder" in line)
    assert "Osric: end turn: the wardens' chance falls from" in lines[blunder]
    assert "Osric's turn" in lines[blunder - 1]  # told where the decision was made
    assert any("review: luck" in line for line in lines[blunder:])
    plain = run("replay", last_blow)
    assert "review:" not in plain.stdout


def test_a_folder_of_logs_is_reviewed_and_added_up_per_policy_and_combatant(
    last_blow: Path, tmp_path: Path
) -> None:
    """As ``batch --keep-logs`` leaves them: two fights of the last blow, and a file that is not
    a log (skipped with its reason, the others reviewed)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(last_blow.read_bytes())
    toml = last_blow.with_name("last-blow.toml")
    done = run("run", toml, "--seed", "2", "-o", folder / "b.jsonl", "-q")
    assert done.returncode == 0, done.stderr
    (folder / "broken.jsonl").write_text("not a log\n")
    done = run("review", folder, "--rollouts", "8", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [Path(log["log"]).name for log in data["logs"]] == ["a.jsonl", "b.jsonl"]
    assert [Path(s["log"]).name for s in data["skipped"]] == ["broken.jsonl"]
    policies = {p["policy"]: p for p in data["policies"]}
    assert sum(p["decisions"] for p in policies.values()) == data["decisions"]
    assert policies["scripted"]["mean_loss"] > policies["aggressive"]["mean_loss"]
    osric = next(c for c in data["combatants"] if c["who"] == "osric")
    assert osric["grades"]["blunder"] >= 2  # once in each fight
    assert data["worst"][0]["who"] == "osric"
    words = run("review", folder, "--rollouts", "8")
    assert "Per policy" in words.stdout and "skipped:" in words.stderr
    # A log names the encounter's policies, not one put in their place: the table says so.
    assert "a --policy given to run or batch" in " ".join(words.stdout.split())
    refused = run("review", folder, "--report", tmp_path / "r.html")
    assert refused.returncode == 2 and "one log" in refused.stderr


def test_the_log_model_plays_each_combatant_by_its_own_policy() -> None:
    """``--model log``: Ilse plays on as ``cautious``, Tomas as ``aggressive`` (and the hound,
    ``random`` in the log, as ``tactician``): other chances than the tactician's, as honest."""
    contents = read_log(GOLDEN / "openings-duel.seed3.jsonl")
    own = review(contents, Budget(rollouts=4, width=2, model="log"))
    _check_shape(own)
    assert own["budget"]["model"] == "log"
    modelled = review(contents, Budget(rollouts=4, width=2))
    assert [d["win"] for d in own["decisions"]] != [d["win"] for d in modelled["decisions"]]


@pytest.mark.slow  # a real process on a pseudo-terminal
def test_a_terminal_sees_a_progress_bar_of_the_decisions(tmp_path: Path) -> None:
    """On a terminal the review shows its bar (decisions done of the total) on standard error;
    into a pipe it shows none (the other tests read its plain output)."""
    import os
    import sys

    from pty_support import PtyProgram

    program = PtyProgram(
        [sys.executable, "-m", "initiative", "review", str(GOLDEN / "thriller-ambush.seed2.jsonl"),
         "--rollouts", "2", "--width", "2"],
        cwd=str(tmp_path),
        env={**os.environ, "COLUMNS": "120", "TERM": "xterm"},
    )  # fmt: skip
    assert program.wait(120) == 0
    assert "reviewing" in program.screen
    assert "/74" in program.screen  # the decisions with a choice of that fight
    assert "Turning points" in program.screen


def test_review_policy_credits_who_played_where_the_log_cannot_say(tmp_path: Path) -> None:
    """``batch --policy tomas=random --keep-logs``: the logs name Tomas's file policy
    (``aggressive``), so the review credits it unless told; ``review --policy tomas=random``
    credits ``random``, says so in its JSON, and a misspelled name is one line and exit 2."""
    from tests.helpers import DUEL

    kept = tmp_path / "k"
    done = run("batch", DUEL, "--runs", 2, "--policy", "tomas=random", "--keep-logs", kept)
    assert done.returncode == 0, done.stderr
    plain = run("review", kept, "--rollouts", 2, "--json")
    told = run("review", kept, "--rollouts", 2, "--json", "--policy", "tomas=random")
    assert plain.returncode == 0 and told.returncode == 0, plain.stderr + told.stderr
    credited = {p["policy"] for p in json.loads(plain.stdout)["policies"]}
    data = json.loads(told.stdout)
    assert credited == {"cautious", "aggressive", "random"}  # (the hound is random in the file)
    assert {p["policy"] for p in data["policies"]} == {"cautious", "random"}
    assert data["budget"]["played"] == {"tomas": "random"}
    wrong = run("review", next(kept.iterdir()), "--rollouts", 2, "--policy", "tomsa=random")
    assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1
    assert "no combatant or side 'tomsa'" in wrong.stderr and "did you mean 'tomas'" in wrong.stderr
