"""The words a player reads are the same words everywhere: the slate says what the table says
("toept", "potje"), and the night says who owes a round, not who is owed one."""

from __future__ import annotations

import pytest
from django.utils import translation
from django.utils.translation import gettext

SLATE = ["%(name)s knocks", "Rubber %(rubber)s, hand %(hand)s", "Next rubber"]


def test_the_slate_says_toept_and_potje_as_the_table_does() -> None:
    with translation.override("nl"):
        assert gettext("Knock") == "Toepen"
        assert gettext("%(name)s knocks") % {"name": "Anna"} == "Anna toept"
        assert gettext("Rubber %(rubber)s, hand %(hand)s").startswith("Potje ")
        assert gettext("Next rubber") == "Volgend potje"
        assert "potje" in gettext("That player is out of this rubber.")
        for msgid in SLATE:
            assert "klopt" not in gettext(msgid) and "Spel" not in gettext(msgid)
    with translation.override("de"):
        assert "Hand" in gettext("Rubber %(rubber)s, hand %(hand)s")


@pytest.mark.parametrize(("language", "wrong"), [("nl", "tegoed"), ("de", "Geschuldete")])
def test_the_night_says_who_owes_a_round(language: str, wrong: str) -> None:
    with translation.override(language):
        words = [gettext("Rounds owed"), gettext("round owed"), gettext("rounds owed")]
    assert all(wrong not in word for word in words), words
    if language == "nl":
        assert words == ["Rondjes te geven", "rondje te geven", "rondjes te geven"]
