"""The project's own worked hand records (tests/engine/records/) replay to the results they
state, through the engine and through `manage.py toepen_replay` alike.

Each file is {"about": ..., "record": ..., "result": ...}: a hand of our own, its result worked
out by hand from docs/rules.md and said in `about`. Every field of the result is fixed except
`error.message`, which is words for a person.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.engine import ERROR_CODES, BadRecord, IllegalAction, replay, replayed
from tests.conftest import command_env

REPO = Path(__file__).resolve().parents[2]
RECORDS = Path(__file__).resolve().parent / "records"


def record_files() -> list[Path]:
    return sorted(RECORDS.glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def without_message(result: dict[str, Any]) -> dict[str, Any]:
    result = dict(result)
    if result.get("error"):
        result["error"] = {key: value for key, value in result["error"].items() if key != "message"}
    return result


def test_the_worked_records_are_in_the_repository() -> None:
    files = record_files()
    assert len(files) >= 12, f"expected at least 12 worked records in {RECORDS}"
    for path in files:
        example = load(path)
        assert set(example) == {"about", "record", "result"}, path.name
        assert isinstance(example["about"], str) and example["about"].strip(), path.name


def test_the_worked_records_show_every_kind_of_result() -> None:
    results = [load(path)["result"] for path in record_files()]
    codes = {result["error"]["code"] for result in results if result["error"]}
    assert codes <= ERROR_CODES
    assert "bad_record" in codes, "a bad record"
    assert codes - {"bad_record"}, "an illegal action"
    assert any(result["error"] is None and result["complete"] for result in results)
    assert any(result["error"] is None and not result["complete"] for result in results)


@pytest.mark.parametrize("path", record_files(), ids=lambda path: path.stem)
def test_a_worked_record_replays_to_its_stated_result(path: Path) -> None:
    example = load(path)
    got = replay(example["record"])
    assert without_message(got) == without_message(example["result"]), example["about"]
    if example["result"]["error"] is not None:
        assert isinstance(got["error"]["message"], str) and got["error"]["message"]


@pytest.mark.slow  # manage.py in a process of its own
def test_every_worked_record_replays_through_the_command(tmp_path: Path) -> None:
    examples = [load(path) for path in record_files()]
    lines = tmp_path / "records.jsonl"
    lines.write_text(
        "".join(json.dumps(example["record"], ensure_ascii=False) + "\n" for example in examples),
        encoding="utf-8",
    )
    completed = subprocess.run(
        [sys.executable, "manage.py", "toepen_replay", str(lines)],
        cwd=REPO,
        env=command_env(),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,  # a bound for a busy machine: it ends in seconds
        check=False,
    )
    assert completed.stderr == ""
    results = [json.loads(line) for line in completed.stdout.splitlines()]
    assert len(results) == len(examples)
    for path, example, result in zip(record_files(), examples, results, strict=True):
        assert without_message(result) == without_message(example["result"]), path.name
    # Some records end in a refusal or are bad: the command says so in its exit status.
    assert completed.returncode == 1


@pytest.mark.parametrize("path", record_files(), ids=lambda p: p.stem)
def test_replayed_gives_the_hand_whose_result_the_record_states(path: Path) -> None:
    """`replayed` (the services' and the nights' way to a stored hand) ends where `replay`
    does, and refuses what `replay` refuses."""
    case = load(path)
    if case["result"].get("error"):
        with pytest.raises((BadRecord, IllegalAction)):
            replayed(case["record"])
        return
    assert without_message(replayed(case["record"]).result()) == without_message(case["result"])
