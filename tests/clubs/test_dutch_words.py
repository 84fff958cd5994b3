"""The Dutch says what players at a Dutch table say, the same at the table, in the editor and in
the rules' hints."""

from __future__ import annotations

import re
from pathlib import Path

import polib
from django.utils import translation

from clubs.house_rules import FIELD_TEXT

DUTCH = Path(__file__).resolve().parents[2] / "locale" / "nl" / "LC_MESSAGES" / "django.po"


def test_staying_in_is_meegaan_at_the_table_in_the_editor_and_in_the_hints() -> None:
    with translation.override("nl"):
        assert translation.gettext("Stay") == "Meegaan"
        stake = translation.gettext("Stake %(stake)s: stay or fold?") % {"stake": 2}
        assert stake == "Inzet 2: meegaan of passen?"
        assert "meegaan" in str(FIELD_TEXT["response_seconds"].help)
        assert str(FIELD_TEXT["min_players"].label) == "Minimumaantal spelers"


def test_no_dutch_text_calls_every_player_she() -> None:
    for entry in polib.pofile(str(DUTCH)):
        words = re.findall(r"\w+", entry.msgstr.lower())
        assert "zij" not in words and "haar" not in words, entry.msgid


def test_the_name_fields_read_as_dutch() -> None:
    with translation.override("nl"):
        assert translation.gettext("Enter a name to play under.") == (
            "Vul de naam in waaronder je speelt."
        )
        assert translation.gettext("Empty: the name of what you start from.") == (
            "Leeg: de naam van het profiel waarmee je begint."
        )
