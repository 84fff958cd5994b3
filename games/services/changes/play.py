"""A player's actions from a phone: a card, a knock, an answer, the laundry, ready."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from games.engine import Action, BadRecord, IllegalAction, parse_action
from games.engine import table as table_rules
from games.models import (
    Table,
)
from games.services.changes.decide import (
    Make,
    Outcome,
    TableError,
    achange,
    change,
    check_door,
    set_windows,
)
from games.services.changes.rubbers import end_hand
from games.services.conf import pace
from games.services.refusals import engine_message, refusal_message
from games.services.state import Holder, TableState, seat_keys

ACTION_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


def act(
    table_id: int, holder: Holder, seat: int, payload: Mapping[str, Any], action_id: str
) -> Outcome:
    """A player's action from a phone: applied once per `action_id`, or refused with a reason."""
    check_action_id(action_id)
    return change(table_id, playing(holder, seat, payload), action_id)


async def act_here(
    table_id: int, holder: Holder, seat: int, payload: Mapping[str, Any], action_id: str
) -> Outcome:
    """`act`, from the event loop (the phones' websocket): decided on this process's snapshot
    of the table where it can, else on the database's version in a worker thread."""
    check_action_id(action_id)
    return await achange(table_id, playing(holder, seat, payload), action_id)


def playing(holder: Holder, seat: int, payload: Mapping[str, Any]) -> Make:
    """The decision of a player's action (`play`), for the decider."""

    def make(state: TableState, now: datetime) -> None:
        play(state, holder, seat, payload, now)

    return make


def check_action_id(action_id: Any) -> None:
    if not isinstance(action_id, str) or not ACTION_ID.match(action_id):
        raise TableError("bad_action", _("An action needs an id of up to 64 letters and digits."))


def play(
    state: TableState,
    holder: Holder,
    seat: Any,
    payload: Mapping[str, Any],
    now: datetime,
) -> None:
    """A player's action checked against `state` (the table's seats, its hand, the engine's
    rules) and applied to it; a refusal raises TableError."""
    table = state.table
    check_door(table)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(state.seats):
        raise TableError("bad_action", _("There is no such seat."))
    if not holder.holds(seat_keys(state.seats[seat])):
        raise TableError("not_your_seat", _("That is not your seat."))
    hand = state.hand
    if table.status != Table.Status.PLAYING or hand is None or hand.complete:
        raise TableError("hand_over", _("No hand is being played."))
    check_hand(state, payload.get("hand"))
    hand_seat = state.hand_seat(seat)
    if hand_seat is None:
        raise TableError("out", _("You are out of this rubber."))
    if "auto" in payload:
        # Only the table acts for a player ("auto" in the record); a phone never claims it.
        raise TableError("bad_action", _("A player's action cannot claim to be automatic."))
    data = {key: value for key, value in payload.items() if key != "hand"}
    data["seat"] = hand_seat
    if "target" in data:
        target = data["target"]
        if isinstance(target, int) and not isinstance(target, bool):
            mapped = state.hand_seat(target)
            data["target"] = mapped if mapped is not None else -1
    try:
        action = parse_action(data, hand.n, slate=hand.slate)
    except BadRecord as error:
        raise TableError(
            "bad_action",
            format_lazy(_("That action is not understood: {detail}"), detail=error.message),
        ) from None
    apply_action(state, action, now)


def check_hand(state: TableState, named: Any) -> None:
    """An action made on the hand `named` ("rubber/hand", as the phone's button carried it; None
    from a caller with no phone) is refused on any other hand: a tap on a frozen screen must
    never land on a hand its player never saw."""
    if named is not None and named != state.hand_name():
        raise TableError("stale_hand", _("That was meant for an earlier hand."))


def ready(table_id: int, holder: Holder, seat: int, hand: str | None = None) -> int:
    """A player is done with the laundry; when every seat is, the window closes early."""
    return change(table_id, readying(holder, seat, hand)).version


def readying(holder: Holder, seat: int, hand: str | None = None) -> Make:
    """The decision of `ready`, for the decider."""

    def make(state: TableState, now: datetime) -> None:
        check_door(state.table)
        if not 0 <= seat < len(state.seats) or not holder.holds(seat_keys(state.seats[seat])):
            raise TableError("not_your_seat", _("That is not your seat."))
        check_hand(state, hand)
        if not state.laundry_open(now):
            raise TableError("laundry_closed", _("The laundry is over."))
        set_windows(state, table_rules.done_with_laundry(state.moment(), seat, now))

    return make


def apply_action(state: TableState, action: Action, now: datetime) -> None:
    """The table's own rules around the engine's, then the engine, then the stored record."""
    hand, row = state.hand, state.hand_row
    assert hand is not None and row is not None
    try:
        windows = table_rules.take(state.moment(), action, pace(), now)
    except table_rules.Refused as refused:
        raise TableError(refused.code, refusal_message(refused)) from None
    except IllegalAction as error:
        raise TableError(error.code, engine_message(error)) from None
    set_windows(state, windows)
    row.record["actions"].append(action.to_json())
    state.record_changed = True  # written with the table's fields (the store's claim)
    if hand.complete:
        end_hand(state, now)
