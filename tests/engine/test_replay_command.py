"""`manage.py toepen_replay`: files, standard input, one line per record, exit statuses."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from games.engine import Hand, fold, knock, last_trick, stay
from tests.conftest import command_env, require_service

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO.parent / "shared" / "spec" / "examples"


def finished_record() -> dict:
    hand = Hand.deal(lives=[10, 10, 10], dealer=0, seed=7, players=["Ann", "Bram", "Cas"])
    while not hand.complete:
        seat = hand.due()[0]
        hand.apply(next(a for a in hand.legal_actions(seat) if a.act == "play"))
    return hand.record()


def illegal_record() -> dict:
    record = finished_record()
    first = record["actions"][0]
    # The same seat plays again at once: not its turn.
    record["actions"].insert(1, dict(first))
    return record


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The command as the shell runs it, with its exit status, but in this process: a
    manage.py of its own costs seconds of CPU a test (one test below runs it so)."""
    out, err = io.StringIO(), io.StringIO()
    real_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
    try:
        call_command("toepen_replay", *args, stdout=out, stderr=err)
        status = 0
    except SystemExit as leaving:
        status = int(leaving.code or 0)
    finally:
        sys.stdin = real_stdin
    return subprocess.CompletedProcess(
        ["toepen_replay", *args], status, out.getvalue(), err.getvalue()
    )


def run_manage_py(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "toepen_replay", *args],
        cwd=REPO,
        env=command_env(),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,  # a bound for a busy machine: it starts in seconds
        check=False,
    )


def results(completed: subprocess.CompletedProcess[str]) -> list[dict]:
    return [json.loads(line) for line in completed.stdout.splitlines()]


def test_a_json_file_spanning_lines_is_one_record(tmp_path: Path) -> None:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(finished_record(), indent=2))
    completed = run(str(path))
    assert completed.returncode == 0, completed.stderr
    [result] = results(completed)
    assert result["complete"] is True and result["error"] is None


def test_other_files_hold_one_record_per_line_in_input_order(tmp_path: Path) -> None:
    good, bad = finished_record(), illegal_record()
    path = tmp_path / "hands.jsonl"
    path.write_text(json.dumps(good) + "\n\n" + json.dumps(bad) + "\n" + "not json\n")
    completed = run(str(path))
    assert completed.returncode == 1
    first, second, third = results(completed)
    assert first["error"] is None
    assert second["error"]["code"] == "not_your_turn" and second["error"]["action"] == 1
    assert third == {
        "format": "toepen-result/1",
        "error": {"action": None, "code": "bad_record", "message": third["error"]["message"]},
    }


def test_standard_input_is_read_with_a_dash() -> None:
    completed = run("-", stdin=json.dumps(finished_record()) + "\n")
    assert completed.returncode == 0
    assert len(results(completed)) == 1


def test_slate_records_replay_with_their_own_refusal_code() -> None:
    hand = Hand.slate_hand(lives=[10, 10, 10], dealer=0, players=["Ann", "Bram", "Cas"])
    for action in (knock(0), fold(2), stay(1), last_trick(1)):
        hand.apply(action)
    finished = hand.record()
    refused = {**finished, "rules": {"folded_card_wins": False}}
    refused["actions"] = [*finished["actions"][:3], {"seat": 2, "act": "last_trick"}]
    completed = run("-", stdin=f"{json.dumps(finished)}\n{json.dumps(refused)}\n")
    assert completed.returncode == 1, completed.stderr
    done, stopped = results(completed)
    assert done == hand.result() and done["winner"] == 1 and done["lives_lost"] == [2, 0, 1]
    assert stopped["error"]["code"] == "cannot_end" and stopped["error"]["action"] == 3


@pytest.mark.slow  # manage.py in a process of its own
def test_an_unreadable_file_exits_2_with_a_message_and_the_others_still_replay(
    tmp_path: Path,
) -> None:
    """Through manage.py itself: its exit status and its streams, as a shell sees them."""
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(finished_record()))
    completed = run_manage_py(str(tmp_path / "missing.json"), str(path))
    assert completed.returncode == 2
    assert "missing.json" in completed.stderr
    assert len(results(completed)) == 1


def test_a_json_file_that_is_not_json_is_a_bad_record(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(b'{"format": "toepen-hand/1", \xff')
    completed = run(str(path))
    assert completed.returncode == 1
    [result] = results(completed)
    assert result["error"]["code"] == "bad_record"


def test_json_too_long_or_too_deep_to_read_is_a_bad_record_not_a_traceback(
    tmp_path: Path,
) -> None:
    long_number = '{"format": "toepen-hand/1", "dealer": ' + "1" * 4400 + "}"
    deep = "[" * 20_000 + "]" * 20_000
    lines = tmp_path / "hands.jsonl"
    lines.write_text(f"{long_number}\n{deep}\n{json.dumps(finished_record())}\n")
    single = tmp_path / "deep.json"
    single.write_text(deep)
    completed = run(str(lines), str(single))
    assert completed.returncode == 1, completed.stderr
    assert completed.stderr == ""
    number, nested, good, nested_file = results(completed)
    assert number["error"]["code"] == "bad_record"
    assert "line 1" in number["error"]["message"]
    assert "number too long to read" in number["error"]["message"]
    assert nested["error"]["code"] == "bad_record"
    assert "line 2" in nested["error"]["message"]
    assert "nested too deep to read" in nested["error"]["message"]
    assert good["error"] is None
    assert "nested too deep to read" in nested_file["error"]["message"]


def test_every_shared_spec_example_replays_through_the_command(tmp_path: Path) -> None:
    # Skipped in a clone on its own, failed in CI (test_examples.py says why); the project's own
    # records go through the command in test_worked_records.py.
    examples = sorted(EXAMPLES.glob("*.json")) if EXAMPLES.is_dir() else []
    require_service(f"the shared spec beside the repository ({EXAMPLES})", bool(examples))
    path = tmp_path / "examples.jsonl"
    path.write_text(
        "".join(json.dumps(json.loads(p.read_text())["record"]) + "\n" for p in examples)
    )
    completed = run(str(path))
    for example, result in zip(examples, results(completed), strict=True):
        expected = json.loads(example.read_text())["result"]
        if expected["error"] is not None:
            assert result["error"]["code"] == expected["error"]["code"]
            result["error"]["message"] = expected["error"]["message"]
        assert result == expected, example.name
    any_error = any(json.loads(p.read_text())["result"]["error"] for p in examples)
    assert completed.returncode == (1 if any_error else 0)
