"""Live tables from the test side, for the tests of services, the websocket wing and the view:
the cast's clubs with short rubbers, fast clocks, a table of four, phones on websockets.

Each of those layers' conftest.py takes the fixtures from here."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from html import unescape
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from clubs.models import HouseRuleProfile
from games.engine import HouseRules
from games.models import Seat, Table
from games.services import tables
from games.services.snapshots import load_state
from tests.personas import Cast, Persona, short_rubbers
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


@pytest.fixture
def klaver(klaver: Cast) -> Cast:
    """The cast (tests/personas.py), playing short rubbers."""
    return short_rubbers(klaver)


CARD_TOKEN = re.compile(r"(?<![0-9A-Za-z])(10|[789JQKA])([CDHS])(?![0-9A-Za-z])")
CARD_SHOWN = re.compile(r"(10|[789JQKA])<span class=\"suit\" aria-hidden=\"true\">([♣♦♥♠])")
SYMBOL_SUIT = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
CARD_SPOKEN = re.compile(r"(10|[789JQKA]) (clubs|diamonds|hearts|spades)")
SPOKEN_SUIT = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}


def cards_in(html: str) -> set[str]:
    """Every card a frame shows, as a token, in whatever form it appears."""
    html = unescape(html)  # a sign written as a character reference is the sign
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

    person: Persona
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


async def connect(person: Persona, code: str, origin: tuple[bytes, bytes] = ORIGIN) -> Phone:
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


def seat_people(table_id: int, people: Iterable[tuple[int, Persona]]) -> None:
    for index, person in people:
        tables.take_seat(table_id, index, person.holder, person.name)


aseat_people = database_sync_to_async(seat_people)


def four_people_table(klaver: Cast, rules: HouseRules | None = None, **kwargs) -> Table:
    profile = None
    if rules is not None:
        profile = HouseRuleProfile.objects.create(
            club=klaver.club, name="test rules", rules_json=rules.to_json()
        )
    table = tables.create_table(
        club=klaver.club, user=klaver.anna.user, profile=profile, holder_key=klaver.anna.holder_key
    )
    seat_people(table.pk, [(1, klaver.bram), (2, klaver.cas), (3, klaver.dirk)])
    tables.start_rubber(table.pk, klaver.anna.user)
    return Table.objects.get(pk=table.pk)


def people(klaver: Cast) -> dict:
    return {0: klaver.anna, 1: klaver.bram, 2: klaver.cas, 3: klaver.dirk}


def state_of(table: Table):
    return load_state(Table.objects.get(pk=table.pk))


def play_a_card(klaver: Cast, table: Table, action_id: str):
    """The due player plays her first playable card; the table before it, and the outcome."""
    before = state_of(table)
    hand_seat = before.hand.due()[0]
    seat = before.table_seat(hand_seat)
    card = next(a for a in before.hand.legal_actions(hand_seat) if a.act == "play")
    payload = {"act": "play", "card": card.to_json()["card"]}
    outcome = tables.act(table.pk, people(klaver)[seat].holder, seat, payload, action_id)
    return before, outcome


def heard_later(table_id: int, at: datetime | None = None) -> datetime:
    """`at` (an hour after the table's last change, or from now, unless given), with every
    player's phone heard then: what is due then happens as at a table whose players' turn
    clocks ran out, not as at a table nobody is at (which pauses)."""
    if at is None:
        changed = Table.objects.get(pk=table_id).changed_at
        at = max(changed, timezone.now()) + timedelta(hours=1)
    Seat.objects.filter(table_id=table_id).update(last_seen=at)
    return at


def clock_plays(table_id: int, at: datetime | None = None) -> bool:
    """The table's clock at `heard_later(table_id, at)`. True when it changed."""
    return tables.fire_deadline(table_id, heard_later(table_id, at))


def bot_table(klaver: Cast, levels: dict[int, str], lives: int) -> Table:
    """A table of computer players only (`levels` by seat) under rules of `lives` lives, its
    rubber started."""
    profile = HouseRuleProfile.objects.create(
        club=klaver.club, name="short", rules_json=HouseRules(starting_lives=lives).to_json()
    )
    table = tables.create_table(
        club=klaver.club, user=klaver.anna.user, profile=profile, bots=levels, take_seat=None
    )
    tables.start_rubber(table.pk, klaver.anna.user)
    return table


def play_out_rubber(table_id: int, steps: int = 3000) -> None:
    """Let the clock play until the table's rubber is over (at most `steps` times)."""
    for _ in range(steps):
        if Table.objects.get(pk=table_id).status == "rubber_over":
            return
        clock_plays(table_id)
    raise AssertionError("the rubber did not end")
