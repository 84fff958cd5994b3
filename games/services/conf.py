"""The live table's clocks, in seconds: Django settings named TOEPEN_*, else the environment.

Read once and kept: every view asks for them (its turn clocks, who is away) and looking them up
was a twentieth of a view's time. A changed setting (a test's `settings` fixture,
`override_settings`) forgets what was kept; the environment is read when the process starts.
"""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

from games.engine.table import Pace

DEFAULTS = {
    # How long after the deal players may exchange and challenge (all ready closes it early).
    "TOEPEN_LAUNDRY_SECONDS": 10.0,
    # After an exchange the window stays open at least this long, so others can challenge.
    "TOEPEN_CHALLENGE_SECONDS": 5.0,
    # A player who is due and does nothing for this long has the table act for her.
    "TOEPEN_TURN_SECONDS": 60.0,
    # A phone that drops keeps its seat this long before the table plays for it.
    "TOEPEN_GRACE_SECONDS": 30.0,
    # A seat counts as connected while its phone was heard from within this time.
    "TOEPEN_PRESENCE_SECONDS": 25.0,
    # How often a connected phone's presence is refreshed, and the most a phone waits for a
    # word from its server before it says the connection is in trouble (twice this).
    "TOEPEN_HEARTBEAT_SECONDS": 5.0,
    # Computer players act after this pause, so people can follow the table.
    "TOEPEN_BOT_SECONDS": 1.0,
    # The end of a hand stays on the screen this long before the next deal.
    "TOEPEN_BETWEEN_HANDS_SECONDS": 5.0,
    # The next deal waits this long for a player who went out and may buy back in (a pot).
    "TOEPEN_BUY_BACK_SECONDS": 20.0,
    # A table nobody is at pauses; paused this long, it is closed and its rubber abandoned.
    "TOEPEN_ABANDON_SECONDS": 3 * 3600.0,
}


_kept: dict[str, Any] = {}


def pace() -> Pace:
    """The table clock's pace, from the settings."""
    kept = _kept.get("pace")
    if kept is None:
        kept = _kept["pace"] = Pace(
            turn=seconds("TOEPEN_TURN_SECONDS"),
            grace=seconds("TOEPEN_GRACE_SECONDS"),
            bot=seconds("TOEPEN_BOT_SECONDS"),
            between_hands=seconds("TOEPEN_BETWEEN_HANDS_SECONDS"),
            abandon=seconds("TOEPEN_ABANDON_SECONDS"),
            laundry=seconds("TOEPEN_LAUNDRY_SECONDS"),
            challenge=seconds("TOEPEN_CHALLENGE_SECONDS"),
            buy_back=seconds("TOEPEN_BUY_BACK_SECONDS"),
        )
    return kept


def seconds(name: str) -> float:
    kept = _kept.get(name)
    if kept is None:
        value = getattr(settings, name, None)
        if value is None:
            raw = os.environ.get(name)
            value = float(raw) if raw else DEFAULTS[name]
        kept = _kept[name] = float(value)
    return kept


@receiver(setting_changed)
def _forget(setting: str, **_: Any) -> None:
    if setting.startswith("TOEPEN_"):
        _kept.clear()
