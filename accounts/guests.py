"""Guests: people at a table without an account, held by their browser session.

The live tables seat guests with these helpers:

    guest = get_guest(request)                         # the session's guest, or None
    guest = get_or_create_guest(request, "Kees")       # ValidationError on a bad name

A guest belongs to exactly one browser session (its id is stored under SESSION_KEY). When that
browser signs up, accounts.signals links the guest to the new account (`Guest.user`), and the
session stops being a guest: from then on the person plays as the signed-in user.
"""

import unicodedata

from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import DISPLAY_NAME_MAX, Guest, User

SESSION_KEY = "guest_id"


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


def clean_display_name(value: str) -> str:
    """The name trimmed, or ValidationError with a message for the person who typed it.

    The one check for every name people see at a table (a guest's, an account's, a seat's):
    a name must show something, and may not reorder the text around it.
    """
    name = " ".join(str(value).split())
    if not name:
        raise ValidationError(_("Enter a name to play under."), code="required")
    if any(char in BIDI_CONTROLS or unicodedata.category(char) == "Cc" for char in name):
        raise ValidationError(
            _("A name cannot contain control characters, such as those that turn text around."),
            code="control",
        )
    if not any(_shows(char) for char in name):
        raise ValidationError(
            _("That name has nothing visible in it: enter a name to play under."), code="blank"
        )
    if len(name) > DISPLAY_NAME_MAX:
        raise ValidationError(
            _("A name can be at most %(max)d characters long.") % {"max": DISPLAY_NAME_MAX},
            code="max_length",
        )
    return name


def get_guest(request: HttpRequest) -> Guest | None:
    """The guest this browser session holds; None for signed-in users and strangers."""
    if request.user.is_authenticated:
        return None
    guest_id = request.session.get(SESSION_KEY)
    if guest_id is None:
        return None
    guest = Guest.objects.filter(pk=guest_id, user__isnull=True).first()
    if guest is None:
        # Deleted, or already signed up: the session no longer speaks for a guest.
        request.session.pop(SESSION_KEY, None)
    return guest


def get_or_create_guest(request: HttpRequest, display_name: str) -> Guest:
    """The session's guest, renamed to `display_name`, or a new one held by this session.

    Raises ValidationError for a blank or too long name, and ValueError for a signed-in user,
    who plays under the account instead.
    """
    if request.user.is_authenticated:
        raise ValueError("a signed-in user is not a guest")
    name = clean_display_name(display_name)
    guest = get_guest(request)
    if guest is None:
        guest = Guest.objects.create(display_name=name)
        request.session[SESSION_KEY] = guest.pk
    elif guest.display_name != name:
        guest.display_name = name
        guest.save(update_fields=["display_name"])
    return guest


def link_guest_to_user(request: HttpRequest, user: User) -> Guest | None:
    """Hand the session's guest over to `user`, who just signed up in this browser."""
    guest_id = request.session.pop(SESSION_KEY, None)
    if guest_id is None:
        return None
    with transaction.atomic():
        guest = Guest.objects.select_for_update().filter(pk=guest_id, user__isnull=True).first()
        if guest is None:
            return None
        guest.user = user
        guest.claimed_at = timezone.now()
        guest.save(update_fields=["user", "claimed_at"])
        if not user.display_name:
            user.display_name = guest.display_name
            user.save(update_fields=["display_name"])
    return guest
