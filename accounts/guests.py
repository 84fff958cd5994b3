"""Guests: people at a table without an account, held by their browser session.

The live tables seat guests with these helpers:

    guest = get_guest(request)                         # the session's guest, or None
    guest = get_or_create_guest(request, "Kees")       # ValidationError on a bad name

A guest belongs to exactly one browser session (its id is stored under SESSION_KEY). When that
browser signs up, accounts.signals links the guest to the new account (`Guest.user`), and the
session stops being a guest: from then on the person plays as the signed-in user.
"""

from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from accounts.models import Guest, User
from accounts.names import clean_display_name

SESSION_KEY = "guest_id"


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
