"""The table's clocks are read once and kept; a changed setting is read afresh."""

from __future__ import annotations

from django.test import override_settings

from games.services.conf import pace, seconds


def test_a_changed_setting_is_read_again(settings):
    settings.TOEPEN_TURN_SECONDS = 40
    assert seconds("TOEPEN_TURN_SECONDS") == 40.0
    assert pace().turn == 40.0
    settings.TOEPEN_TURN_SECONDS = 12
    assert seconds("TOEPEN_TURN_SECONDS") == 12.0
    assert pace().turn == 12.0
    with override_settings(TOEPEN_GRACE_SECONDS=7):
        assert pace().grace == 7.0
    assert pace().grace != 7.0


def test_unset_settings_come_from_the_environment_or_the_defaults(settings, monkeypatch):
    del settings.TOEPEN_BOT_SECONDS  # forgets what was kept, as any change does
    monkeypatch.setenv("TOEPEN_BOT_SECONDS", "2.5")
    assert seconds("TOEPEN_BOT_SECONDS") == 2.5
    assert seconds("TOEPEN_ABANDON_SECONDS") == 3 * 3600.0


def test_the_laundry_and_the_challenge_seconds_set_the_tables_pace(settings):
    settings.TOEPEN_LAUNDRY_SECONDS = 14
    settings.TOEPEN_CHALLENGE_SECONDS = 3
    assert (pace().laundry, pace().challenge) == (14.0, 3.0)
    settings.TOEPEN_LAUNDRY_SECONDS = 0
    assert pace().laundry == 0.0
