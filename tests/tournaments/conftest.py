"""Tournaments of the cast (tests/personas.py), their tables played to the end from the test
side with quick clocks and short rubbers."""

from __future__ import annotations

from typing import Any

import pytest

from tests.personas import Cast, short_rubbers


@pytest.fixture(autouse=True)
def clocks(settings: Any) -> None:
    settings.TOEPEN_LAUNDRY_SECONDS = 30  # closed by every seat saying ready
    settings.TOEPEN_BOT_SECONDS = 0
    settings.TOEPEN_BETWEEN_HANDS_SECONDS = 0
    settings.TOEPEN_TURN_SECONDS = 60
    settings.TOEPEN_GRACE_SECONDS = 30


@pytest.fixture
def klaver(klaver: Cast) -> Cast:
    return short_rubbers(klaver)
