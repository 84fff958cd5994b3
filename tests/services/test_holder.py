"""Who a request or a websocket speaks for, read the same way from either's session."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser

from accounts.guests import SESSION_KEY as GUEST_SESSION_KEY
from accounts.models import User
from games.services.state import HOLDER_SESSION_KEY, Holder


def test_a_signed_in_member_speaks_for_her_account_and_her_browsers_seats() -> None:
    anna = User(pk=7, username="anna")
    session = {HOLDER_SESSION_KEY: "phone-of-anna", GUEST_SESSION_KEY: 3}
    # The guest she was before she signed up is hers no longer: the account is.
    assert Holder.from_session(session, anna) == Holder(user_id=7, key="phone-of-anna")


def test_a_visitor_speaks_for_her_sessions_guest_and_seats() -> None:
    session = {HOLDER_SESSION_KEY: "phone-of-kees", GUEST_SESSION_KEY: 3}
    assert Holder.from_session(session, AnonymousUser()) == Holder(guest_id=3, key="phone-of-kees")
    assert Holder.from_session({}, AnonymousUser()) == Holder()


def test_a_socket_without_a_session_speaks_for_its_user_alone() -> None:
    assert Holder.from_session(None, User(pk=7)) == Holder(user_id=7)
    assert Holder.from_session(None, None) == Holder()
