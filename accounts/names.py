"""The one check for every name people type and others see: a player's (a guest's, an
account's, a slate guest's), a club's, a season's and a house-rule profile's, typed or imported.

A name must show something, may not turn the text around it, holds no control character (a
NUL among them, which PostgreSQL cannot store) and fits its column.
"""

import unicodedata

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from accounts.models import DISPLAY_NAME_MAX

# Characters that turn the text around them: in a name they make the names after it, or a
# whole line of the table, read backwards or in another order ("Trojan Source", CVE-2021-42574).
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# Letters and symbols that draw nothing at all (Hangul fillers, the blank Braille pattern).
BLANK_LOOKALIKES = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Format characters (zero-width spaces and joiners, soft hyphens, tags), controls, marks
# without a letter to sit on, and spaces: on their own, none of them shows as a name.
INVISIBLE_CATEGORIES = frozenset({"Cf", "Cc", "Mn", "Me", "Zs", "Zl", "Zp"})


def _shows(char: str) -> bool:
    return unicodedata.category(char) not in INVISIBLE_CATEGORIES and char not in BLANK_LOOKALIKES


def clean_name(value: object, max_length: int, required: str) -> str:
    """The name with its white space trimmed and collapsed, or ValidationError with a message
    for the person who typed it; `required` says what to do about a name that is empty or
    shows nothing ("Give the club a name.")."""
    name = " ".join(str(value).split())
    if not name:
        raise ValidationError(required, code="required")
    if any(char in BIDI_CONTROLS or unicodedata.category(char) == "Cc" for char in name):
        raise ValidationError(
            _("A name cannot contain control characters, such as those that turn text around."),
            code="control",
        )
    if not any(_shows(char) for char in name):
        raise ValidationError(
            f"{_('That name has nothing visible in it.')} {required}", code="blank"
        )
    if len(name) > max_length:
        raise ValidationError(
            _("A name can be at most %(max)d characters long.") % {"max": max_length},
            code="max_length",
        )
    return name


def clean_display_name(value: object) -> str:
    """A player's name at a table: a guest's, an account's, a seat's."""
    return clean_name(value, DISPLAY_NAME_MAX, _("Enter a name to play under."))
