"""A table of the cast (tests/personas.py) driven to the end of its rubbers from the test side.

Rubbers are short (2 lives) and every action goes through games.services.tables, as from a phone.
"""

from __future__ import annotations

import random
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from clubs.models import Club
from games.models import Table
from games.services import tables
from games.services.snapshots import load_state
from tests.personas import Cast, Persona, short_rubbers

LAUNDRY = ("exchange", "challenge")


@pytest.fixture(autouse=True)
def clocks(settings: Any) -> None:
    settings.TOEPEN_LAUNDRY_SECONDS = 30  # closed by every seat saying ready
    settings.TOEPEN_BOT_SECONDS = 0
    settings.TOEPEN_BETWEEN_HANDS_SECONDS = 0
    settings.TOEPEN_TURN_SECONDS = 60
    settings.TOEPEN_GRACE_SECONDS = 30
    settings.TOEPEN_BUY_BACK_SECONDS = 0  # a test buys back in before it steps on


@pytest.fixture(autouse=True)
def booking_never_fails(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rubber's booking that fails is logged and the table plays on (by design); in these
    tests it must never happen unnoticed."""
    if request.node.get_closest_marker("booking_may_fail"):
        return
    from nights import services as nights_services

    def fail(message: str, *args: Any, **kwargs: Any) -> None:
        raise AssertionError(message % args)

    monkeypatch.setattr(nights_services.log, "exception", fail)


@pytest.fixture
def klaver(klaver: Cast) -> Cast:
    """The cast (tests/personas.py), playing short rubbers."""
    return short_rubbers(klaver)


def open_table(
    club: Club, opener: Persona, others: list[Persona], bots: dict[int, str] | None = None
) -> Table:
    """A table with `opener` in seat 0 and `others` in the next seats (computer players where
    `bots` says), its first rubber started."""
    assert opener.user is not None
    seats = 1 + len(others) + len(bots or {})
    table = tables.create_table(
        club=club,
        user=opener.user,
        seat_count=seats,
        bots=bots,
        holder_key=opener.holder.key,
    )
    free = [i for i in range(1, seats) if i not in (bots or {})]
    for index, player in zip(free, others, strict=True):
        tables.take_seat(table.pk, index, player.holder, player.name)
    tables.start_rubber(table.pk, opener.user)
    return Table.objects.get(pk=table.pk)


def step(table_id: int, players: dict[int, Persona], rng: random.Random) -> bool:
    """One move at the table: a due person's random legal action, the laundry (an exchange or
    a challenge now and then, then ready), or the table's own deadline (a computer player, the
    next deal). False once the rubber is over."""
    table = Table.objects.get(pk=table_id)
    if table.status != Table.Status.PLAYING:
        return False
    state = load_state(table)
    hand = state.hand
    now = timezone.now()
    if hand is None or hand.complete:
        tables.fire_deadline(table_id, now + timedelta(seconds=1))
        return True
    if state.laundry_open(now):
        for hand_seat, table_seat in enumerate(state.hand_seats):
            player = players.get(table_seat)
            if player is None or table_seat in table.laundry_ready:
                continue
            moves = [a for a in hand.legal_actions(hand_seat) if a.act in LAUNDRY]
            if moves and rng.random() < 0.3:
                move = rng.choice(moves).to_json()
                if "target" in move:
                    move["target"] = state.table_seat(move["target"])
                move.pop("seat")
                tables.act(table_id, player.holder, table_seat, move, uuid.uuid4().hex)
                return True
            tables.ready(table_id, player.holder, table_seat)
            return True
        tables.fire_deadline(table_id, now + timedelta(seconds=1))
        return True
    due = hand.due()
    table_seat = state.table_seat(due[0]) if due else None
    if table_seat is None or table_seat not in players:
        tables.fire_deadline(table_id, now + timedelta(seconds=1))
        return True
    legal = [a for a in hand.legal_actions(due[0]) if a.act not in LAUNDRY]
    knocks = [a for a in legal if a.act == "knock"]
    others = [a for a in legal if a.act != "knock"]
    action = rng.choice(knocks if knocks and rng.random() < 0.3 else others or legal)
    move = action.to_json()
    move.pop("seat")
    tables.act(table_id, players[table_seat].holder, table_seat, move, uuid.uuid4().hex)
    return True


def play_rubber(table: Table, players: dict[int, Persona], seed: int = 1) -> None:
    rng = random.Random(seed)
    for _ in range(3000):
        if not step(table.pk, players, rng):
            return
    raise AssertionError("the rubber did not end")


def play_until_hand(table: Table, players: dict[int, Persona], seed: int = 1) -> None:
    """Play until a hand has begun and is under way (a card played), not yet over."""
    rng = random.Random(seed)
    for _ in range(3000):
        state = load_state(Table.objects.get(pk=table.pk))
        hand = state.hand
        if hand is not None and not hand.complete and hand.tricks and not hand.laundry:
            return
        assert step(table.pk, players, rng), "the rubber ended first"
    raise AssertionError("no hand got under way")


def next_rubber(table: Table, opener: Persona) -> None:
    assert opener.user is not None
    tables.start_rubber(table.pk, opener.user)
