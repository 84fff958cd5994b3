"""Drives a live table from the test side: whoever is due acts through her own phone."""

from __future__ import annotations

import asyncio
import random
import uuid
from dataclasses import dataclass

from channels.db import database_sync_to_async

from games.engine import Action, parse_record
from games.models import PlayedHand, Table
from games.services.snapshots import load_state
from tests.tables import Phone, cards_in, live_attrs
from tests.visibility import visible_to

LAUNDRY = ("exchange", "challenge")


@dataclass
class Move:
    table_seat: int
    payload: dict
    version: int


def _next_move(table_id: int, rng: random.Random, knock_rate: float) -> Move | str | None:
    """The due seat's random legal move (never a laundry move), "wait" when the table is busy
    by itself (laundry window, between hands), None when the rubber is over."""
    table = Table.objects.get(pk=table_id)
    if table.status != Table.Status.PLAYING:
        return None
    state = load_state(table)
    hand = state.hand
    if hand is None or hand.complete or state.laundry_open(_now()):
        return "wait"
    due = hand.due()
    if not due:
        return "wait"
    hand_seat = due[0]
    seat = state.seats[state.table_seat(hand_seat)]
    if seat.bot_level:
        return "wait"
    legal = [a for a in hand.legal_actions(hand_seat) if a.act not in LAUNDRY]
    knocks = [a for a in legal if a.act == "knock"]
    others = [a for a in legal if a.act != "knock"]
    action: Action = rng.choice(knocks if knocks and rng.random() < knock_rate else others or legal)
    payload = action.to_json()
    payload["seat"] = seat.index
    payload["id"] = uuid.uuid4().hex
    payload["hand"] = state.hand_name()  # as the phone's button names it
    return Move(seat.index, payload, table.version)


def _now():
    from django.utils import timezone

    return timezone.now()


next_move = database_sync_to_async(_next_move)


@database_sync_to_async
def table_version(table_id: int) -> int:
    return Table.objects.get(pk=table_id).version


async def wait_for_version(table_id: int, above: int, timeout: float = 10) -> int:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        version = await table_version(table_id)
        if version > above:
            return version
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"table stuck at version {version}")
        await asyncio.sleep(0.02)


async def play_rubber(
    table_id: int,
    phones: dict[int, Phone],
    seed: int = 1,
    knock_rate: float = 0.2,
    limit: int = 2000,
) -> None:
    """Play until the rubber is over, each due person acting through the phone holding her seat."""
    rng = random.Random(seed)
    for _ in range(limit):
        move = await next_move(table_id, rng, knock_rate)
        if move is None:
            return
        if move == "wait":
            await asyncio.sleep(0.02)
            continue
        assert isinstance(move, Move)
        await phones[move.table_seat].send(move.payload)
        await wait_for_version(table_id, move.version)
    raise AssertionError("the rubber did not end")


def _allowed_cards(
    table_id: int, rubber: int, hand_number: int, step: int, seat: int | None
) -> set[str]:
    row = PlayedHand.objects.get(
        rubber__table_id=table_id, rubber__number=rubber, number=hand_number
    )
    hand, actions = parse_record(row.record)
    for action in actions[:step]:
        hand.apply(action)
    hand_seat = None if seat is None or seat not in row.seats else row.seats.index(seat)
    from games.engine import TOKENS

    return {TOKENS[card] for card in visible_to(hand, hand_seat)}


allowed_cards = database_sync_to_async(_allowed_cards)


async def assert_no_leaks(table_id: int, phone: Phone, seat: int | str | None) -> int:
    """Every card in every frame the phone received was one its seat could see at that moment.

    `seat="active"`: a shared phone, whose frames may show the cards of the one seat it shows
    (`data-active`), never another's. Returns how many cards were checked, so a test can tell
    the check was not empty."""
    checked = 0
    for frame in phone.frames:
        if 'id="table-live"' not in frame:
            assert not cards_in(frame), frame
            continue
        attrs = live_attrs(frame)
        shown = cards_in(frame)
        if attrs["hand"] == "0":
            assert not shown
            continue
        looker = seat
        if seat == "active":
            looker = int(attrs["active"]) if attrs.get("active") else None
        allowed = await allowed_cards(
            table_id, int(attrs["rubber"]), int(attrs["hand"]), int(attrs["step"]), looker
        )
        leaked = shown - allowed
        assert not leaked, f"seat {seat} was shown {sorted(leaked)} at {attrs}"
        checked += len(shown)
    return checked
