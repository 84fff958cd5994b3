"""The worked examples of the spec replay to the results they state (spec/examples)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.engine import replay

SHARED = Path(__file__).resolve().parents[3] / "shared"
EXAMPLES = SHARED / "spec" / "examples"


def example_files() -> list[Path]:
    return sorted(EXAMPLES.glob("*.json")) if EXAMPLES.is_dir() else []


def test_the_shared_spec_examples_are_there():
    assert EXAMPLES.is_dir(), f"the spec examples are missing: expected them in {EXAMPLES}"
    assert example_files(), f"no example records in {EXAMPLES}"


def without_message(result: dict) -> dict:
    result = dict(result)
    if result.get("error"):
        result["error"] = {k: v for k, v in result["error"].items() if k != "message"}
    return result


@pytest.mark.parametrize("path", example_files(), ids=lambda path: path.stem)
def test_an_example_replays_to_its_stated_result(path):
    example = json.loads(path.read_text(encoding="utf-8"))
    assert {"about", "record", "result"} <= set(example)
    got = replay(example["record"])
    assert without_message(got) == without_message(example["result"]), example["about"]
    if example["result"].get("error"):
        assert isinstance(got["error"]["message"], str)
        assert got["error"]["message"]
