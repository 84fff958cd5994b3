"""The shared spec's worked examples replay to the results they state (../shared/spec/examples).

The shared spec is the reference the project is checked against. It sits beside the repository
in CI, where a missing one fails these tests; a clone on its own skips them, and its rules are
still proved by the project's own records (test_worked_records.py) and the tests around it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.engine import replay
from tests.conftest import require_service

SHARED = Path(__file__).resolve().parents[3] / "shared"
EXAMPLES = SHARED / "spec" / "examples"


def example_files() -> list[Path]:
    return sorted(EXAMPLES.glob("*.json")) if EXAMPLES.is_dir() else []


def require_shared_examples() -> None:
    require_service(f"the shared spec beside the repository ({EXAMPLES})", bool(example_files()))


def example_params() -> list[Any]:
    # Without the shared spec one placeholder stands for the examples, so the run says why
    # they did not run (skipped here, failed in CI) instead of collecting nothing.
    return example_files() or [pytest.param(None, id="absent")]


def test_the_shared_spec_examples_are_there() -> None:
    require_shared_examples()


def without_message(result: dict) -> dict:
    result = dict(result)
    if result.get("error"):
        result["error"] = {k: v for k, v in result["error"].items() if k != "message"}
    return result


@pytest.mark.parametrize("path", example_params(), ids=lambda path: path.stem)
def test_an_example_replays_to_its_stated_result(path: Path | None) -> None:
    require_shared_examples()
    assert path is not None
    example = json.loads(path.read_text(encoding="utf-8"))
    assert {"about", "record", "result"} <= set(example)
    got = replay(example["record"])
    assert without_message(got) == without_message(example["result"]), example["about"]
    if example["result"].get("error"):
        assert isinstance(got["error"]["message"], str)
        assert got["error"]["message"]
