"""Personas and helpers for live tables: a club, its people, phones on websockets."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore

from accounts.guests import SESSION_KEY as GUEST_SESSION_KEY
from accounts.models import Guest, User
from clubs.models import Club, HouseRuleProfile, Membership
from games.engine import HouseRules
from games.live.consumers import HOLDER_SESSION_KEY
from toepen_site.asgi import application

ORIGIN = (b"origin", b"http://localhost")


@pytest.fixture(autouse=True)
def fast_clocks(settings: Any) -> None:
    settings.TOEPEN_LAUNDRY_SECONDS = 0
    settings.TOEPEN_BOT_SECONDS = 0
    settings.TOEPEN_BETWEEN_HANDS_SECONDS = 0
    settings.TOEPEN_TURN_SECONDS = 60
    settings.TOEPEN_GRACE_SECONDS = 30


KEEP_PUBLISHED = "test-keep-published"


@pytest.fixture(autouse=True)
def forget_kept_changes() -> Any:
    """A test that keeps the committed changes' states (test_hub.keep_published) stops there."""
    yield
    from games.services import events

    events.table_changed.disconnect(dispatch_uid=KEEP_PUBLISHED)


@pytest.fixture(autouse=True)
async def stop_the_clock() -> Any:
    """Each test's event loop gets its own table clock; stop it before the loop closes."""
    from games.live import clock

    yield
    await clock.stop()


@dataclass
class Person:
    """Someone with a browser: a session (cookie) that may hold seats."""

    name: str
    user: User | None = None
    guest: Guest | None = None
    session_key: str = ""
    holder_key: str = ""

    def cookie(self) -> bytes:
        return f"{django_settings.SESSION_COOKIE_NAME}={self.session_key}".encode()


def make_session(user: User | None = None, guest: Guest | None = None, holder: str = "") -> str:
    store = SessionStore()
    if user is not None:
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    if guest is not None:
        store[GUEST_SESSION_KEY] = guest.pk
    if holder:
        store[HOLDER_SESSION_KEY] = holder
    store.create()
    return store.session_key or ""


def member(club: Club, username: str, role: str = Membership.Role.MEMBER) -> Person:
    user = User.objects.create_user(username=username, password="x-long-password-1")
    Membership.objects.create(club=club, user=user, role=role, status=Membership.Status.ACTIVE)
    holder = f"phone-of-{username}"
    return Person(
        username, user=user, session_key=make_session(user, holder=holder), holder_key=holder
    )


def outsider(username: str) -> Person:
    user = User.objects.create_user(username=username, password="x-long-password-1")
    holder = f"phone-of-{username}"
    return Person(
        username, user=user, session_key=make_session(user, holder=holder), holder_key=holder
    )


def guest(name: str) -> Person:
    g = Guest.objects.create(display_name=name)
    holder = f"phone-of-guest-{name}"
    return Person(
        name, guest=g, session_key=make_session(guest=g, holder=holder), holder_key=holder
    )


@dataclass
class Club4:
    club: Club
    anna: Person  # admin, opens tables
    bram: Person  # member
    cas: Person  # member
    dirk: Person  # member
    eva: Person  # not a member


@pytest.fixture
def klaver(db: Any) -> Club4:
    club = Club.objects.create(name="De Gouden Klaver", slug="de-gouden-klaver")
    HouseRuleProfile.objects.create(
        club=club, name="Kort", rules_json=HouseRules(starting_lives=2).to_json(), is_default=True
    )
    return Club4(
        club=club,
        anna=member(club, "anna", Membership.Role.ADMIN),
        bram=member(club, "bram"),
        cas=member(club, "cas"),
        dirk=member(club, "dirk"),
        eva=outsider("eva"),
    )


CARD_TOKEN = re.compile(r"(?<![0-9A-Za-z])(10|[789JQKA])([CDHS])(?![0-9A-Za-z])")
CARD_SHOWN = re.compile(r"(10|[789JQKA])<span class=\"suit\" aria-hidden=\"true\">([♣♦♥♠])")
SYMBOL_SUIT = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
CARD_SPOKEN = re.compile(r"(10|[789JQKA]) (clubs|diamonds|hearts|spades)")
SPOKEN_SUIT = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}


def cards_in(html: str) -> set[str]:
    """Every card a frame shows, as a token, in whatever form it appears."""
    found = {rank + suit for rank, suit in CARD_TOKEN.findall(html)}
    found |= {rank + SYMBOL_SUIT[symbol] for rank, symbol in CARD_SHOWN.findall(html)}
    found |= {rank + SPOKEN_SUIT[suit] for rank, suit in CARD_SPOKEN.findall(html)}
    return found


def live_attrs(html: str) -> dict[str, str]:
    match = re.search(r'<div id="table-live"([^>]*)>', html)
    assert match, html[:300]
    return dict(re.findall(r'data-([a-z-]+)="([^"]*)"', match.group(1)))


@dataclass
class Phone:
    """A websocket to a table, keeping every frame it received."""

    person: Person
    communicator: WebsocketCommunicator
    frames: list[str] = field(default_factory=list)

    async def receive(self, timeout: float = 3) -> str:
        frame = await self.communicator.receive_from(timeout=timeout)
        self.frames.append(frame)
        return frame

    async def drain(self, timeout: float = 0.2) -> list[str]:
        got = []
        while not await self.communicator.receive_nothing(timeout=timeout):
            got.append(await self.receive())
        return got

    async def send(self, frame: dict[str, Any] | str) -> None:
        text = frame if isinstance(frame, str) else json.dumps(frame)
        await self.communicator.send_to(text_data=text)

    async def close(self) -> None:
        await self.communicator.disconnect()


async def connect(person: Person, code: str, origin: tuple[bytes, bytes] = ORIGIN) -> Phone:
    communicator = WebsocketCommunicator(
        application,
        f"/ws/tables/{code}/",
        headers=[(b"cookie", person.cookie()), origin, (b"host", b"localhost")],
    )
    connected, _ = await communicator.connect(timeout=5)
    assert connected, f"{person.name} could not connect"
    phone = Phone(person, communicator)
    await phone.receive()
    return phone


def seat_people(table_id: int, people: Iterable[tuple[int, Person]]) -> None:
    from games.services import tables
    from games.services.state import Holder

    for index, person in people:
        holder = Holder(
            user_id=person.user.pk if person.user else None,
            guest_id=person.guest.pk if person.guest else None,
            key=person.holder_key,
        )
        tables.take_seat(table_id, index, holder, person.name)


aseat_people = database_sync_to_async(seat_people)
