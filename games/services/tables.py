"""Every change to a table goes through here, one way.

A change is decided on the table as one version left it (read from the database, or this
process's snapshot of it), with no lock held: the engine and the table's own rules
(games/engine/table.py) check it and apply it to a copy of that version, the table's fields
move to a new version with its next deadline, and the store commits it in one transaction
that claims the table's row at the version it was decided on. When another change came first,
nothing is written, and the change is decided once more on the table as the database has it
then. Every change is one decision, `make(state, now)`, made by one decider: `_change` reads the
table from the database in a worker thread (a second lost race there refuses it as `busy`), and
`_change_here` decides on the process's snapshot from the event loop, handing anything it
cannot write to `_change`. The change is announced in its transaction and, once it commits, to
this process's hub and clock (games/services/events.py).

The rules below only read the database and change the state in memory: the rows a change adds or
alters beside the table's (a seat, a rubber, a hand) are queued with the store's `with_*`
functions (games/services/store/rows.py) and written with the claim. Consumers and views never
change a table themselves, and nothing here knows about requests or sockets.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from channels.db import database_sync_to_async
from django.db import transaction
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from clubs.models import Club, HouseRuleProfile
from games.engine import Action, BadRecord, IllegalAction, parse_action
from games.engine import table as table_rules
from games.engine.rubber import first_dealer
from games.engine.rules import MAX_SEATS, HouseRules
from games.engine.table import BOT_STEPS, Step
from games.models import (
    BotLevel,
    PlayedHand,
    Rubber,
    RubberPlayer,
    Seat,
    Table,
)
from games.services import events, players, store
from games.services.access import is_admin, is_member
from games.services.conf import pace
from games.services.refusals import engine_message, refusal_message
from games.services.snapshots import clone, editable_copy, editable_snapshot, read_state
from games.services.state import Holder, TableState, finish_hand, last_seen, seat_keys

log = logging.getLogger(__name__)

ACTION_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


class TableError(Exception):
    """A refusal for whoever asked: `code` is stable (the engine's codes pass through)."""

    def __init__(self, code: str, message: str | Promise) -> None:
        super().__init__(str(message))
        self.code = code
        self.message = message


class Busy(TableError):
    """Another transaction holds the table's row: for a person longer than the lock timeout
    (DATABASE_LOCK_TIMEOUT_MS), for the clock at all. Nothing changed; try again."""

    def __init__(self) -> None:
        super().__init__("busy", _("The table is busy for a moment. Try again."))


@dataclass(frozen=True)
class Outcome:
    """The table's version after a change: the new one, the one a repeated id was applied at
    (`duplicate`), or the one it stays at when the change wrote none (`changed` False: the
    clock found nothing due, or only noted a deadline)."""

    version: int
    duplicate: bool = False
    changed: bool = True


class Unchanged(Exception):
    """Raised by a decision that makes no new version: nothing a phone shows changed. The
    table's next deadline and the computer players who passed (`state.table`) are noted."""


class NotDue(Exception):
    """Raised by the clock's decision when nothing is due on the table as it is."""


class InThread(Exception):
    """Raised by a decision made on the event loop that must be made in a worker thread (a
    computer player thinks there, and a pausing table reads the database)."""


# A decision: the change checked against `state` and applied to it, at `now` (raising
# TableError to refuse it, or Unchanged, NotDue or InThread).
Make = Callable[[TableState, datetime], None]


def _change(
    table_id: int,
    make: Make,
    action_id: str | None = None,
    *,
    now: datetime | None = None,
    waits: bool = True,
) -> Outcome:
    """The one way a table changes, in a worker thread: the table read from the database,
    `make` decides the change on it and applies it to the state, and the store commits it at
    the version it was decided on. A change that lost the race to another is decided again on
    the table as the other left it; after a second loss it is refused as busy. `now`: the
    moment it is decided at (the clock's), else the moment it is read. `waits=False`: a row
    another transaction holds is not waited for (Busy at once)."""
    for _attempt in range(2):
        with store.one_snapshot():
            table = store.table_row(table_id)
            if table is None:
                raise TableError("not_found", _("There is no such table."))
            if action_id is not None and (done := store.receipt(table_id, action_id)):
                return Outcome(done, duplicate=True)
            state = editable_copy(read_state(table))
        try:
            return _commit(state, make, now or timezone.now(), action_id, waits)
        except store.Lost:
            continue
    raise Busy


def _commit(
    state: TableState, make: Make, now: datetime, action_id: str | None, waits: bool
) -> Outcome:
    """`make` decided on `state` (a copy of the table as it was read) and committed in this
    thread. Raises Lost when the table moved on meanwhile."""
    base = state.table.version
    try:
        make(state, now)
    except NotDue:
        return Outcome(base, changed=False)
    except Unchanged:
        state.table.deadline_at = next_deadline(state, now)
        store.note(state.table, base)
        return Outcome(base, changed=False)
    next_version(state, now)
    try:
        store.commit(state, base, now, action_id, waits=waits)
    except store.Held:
        raise Busy from None
    except store.Duplicate as duplicate:
        return Outcome(duplicate.version, duplicate=True)
    return Outcome(state.table.version)


_change_in_thread = database_sync_to_async(_change)


async def _change_here(
    table_id: int, make: Make, action_id: str | None = None, *, alone: bool = False
) -> Outcome | None:
    """The same decision from the event loop, on this process's snapshot of the table (no
    query, no replay), committed by the store on the loop where it can (`acommit`). None when
    it must be decided on the table as the database has it (`_change`): there is no snapshot,
    the snapshot refused it (it may be a change behind: the database's word is told), the
    change lost its race, or it must be made in a thread. `alone`: the loop's own writer or
    nothing (the clock's)."""
    state = editable_snapshot(table_id)
    if state is None:
        return None
    now = timezone.now()
    base = state.table.version
    try:
        make(state, now)
    except (TableError, Unchanged, NotDue, InThread):
        return None
    next_version(state, now)
    try:
        if await store.acommit(state, base, now, action_id, alone=alone):
            return Outcome(state.table.version)
    except store.Duplicate as duplicate:
        return Outcome(duplicate.version, duplicate=True)
    return None


async def _change_anywhere(table_id: int, make: Make, action_id: str | None = None) -> Outcome:
    """A change from the event loop: decided on the snapshot (`_change_here`), else in a worker
    thread on the database's version (`_change`, which decides a lost race once more)."""
    outcome = await _change_here(table_id, make, action_id)
    if outcome is not None:
        return outcome
    return await _change_in_thread(table_id, make, action_id)


def next_version(state: TableState, now: datetime) -> None:
    """The table's fields as a change leaves them: a new version, and the next deadline."""
    table = state.table
    table.version += 1
    table.changed_at = now
    table.bots_offered = []
    table.deadline_at = next_deadline(state, now)


def _changed_seat(state: TableState, index: int, **fields: Any) -> Seat:
    """A copy of seat `index` with `fields`, in `state`, written with the change (the state's
    seats may be a snapshot's, shared). Other processes read the table: more than the hand's
    actions changed."""
    seat = clone(state.seats[index])
    for name, value in fields.items():
        setattr(seat, name, value)
    state.seats = [seat if s.index == index else s for s in state.seats]
    store.with_update(state, seat, **fields)
    state.base = None
    return seat


# -- tables and seats ---------------------------------------------------------------------------


def table_rules_of(
    club: Club, user: User, profile: HouseRuleProfile | None, players: int
) -> tuple[HouseRuleProfile | None, HouseRules]:
    """The profile and rules a member opens a table (dealt or slate) of the club with, for
    `players` players (default: the club's profile); refused when any of it is not hers to use."""
    if not is_member(user, club):
        raise TableError("not_allowed", _("Only members of the club can open a table."))
    if profile is None:
        profile = club.profiles.filter(is_default=True).first()
    elif profile.club_id != club.pk:
        raise TableError("bad_profile", _("That profile belongs to another club."))
    rules = profile.rules() if profile is not None else HouseRules()
    if not rules.min_players <= players <= MAX_SEATS:
        raise TableError(
            "bad_seats",
            format_lazy(
                _("These rules seat {minimum} to {maximum} players."),
                minimum=rules.min_players,
                maximum=MAX_SEATS,
            ),
        )
    return profile, rules


def create_table(
    *,
    club: Club,
    user: User,
    profile: HouseRuleProfile | None = None,
    seat_count: int = 4,
    bots: Mapping[int, str] | None = None,
    allow_spectators: bool = True,
    holder_key: str = "",
    take_seat: int | None = 0,
) -> Table:
    """A member opens a table for the club, with the rules of `profile` (default: the club's)."""
    profile, rules = table_rules_of(club, user, profile, seat_count)
    bots = dict(bots or {})
    for index, level in bots.items():
        if not 0 <= index < seat_count or level not in BotLevel.values:
            raise TableError("bad_bots", _("A computer player needs a seat and a level."))
    if take_seat is not None and (take_seat in bots or not 0 <= take_seat < seat_count):
        raise TableError("bad_seats", _("You cannot take that seat."))
    with transaction.atomic():
        table = Table.objects.create(
            club=club,
            night=night_now(club),
            created_by=user,
            profile=profile,
            profile_name=profile.name if profile is not None else "Classic",
            rules_json=rules.to_json(),
            seat_count=seat_count,
            allow_spectators=allow_spectators,
        )
        # The table's first version: its seats, the opener's among them. Every later change
        # goes through `_change`.
        seated = take_seat if holder_key else None
        for index in range(seat_count):
            level = bots.get(index, "")
            seat = Seat(table=table, index=index, bot_level=level)
            seat.name = _bot_name(index) if level else ""
            if index == seated:
                seat.holder_key, seat.user, seat.name = holder_key, user, str(user)
                seat.last_seen = timezone.now()
            seat.save()
    return table


def night_now(club: Club) -> Any:
    """The nights hook: a table (an app's or a slate) opened while the club has a night open
    belongs to it. The nights app is not imported: its rows are reached by their relation."""
    return club.nights.filter(closed_at__isnull=True).first()


BOT_NAMES = ("Anne", "Bart", "Cor", "Dewi", "Evert", "Fem", "Gijs")


def _bot_name(index: int) -> str:
    """A short first name: it must fit the player strip of a small phone, and the strip says
    that it is a computer player."""
    return BOT_NAMES[index % len(BOT_NAMES)]


def take_seat(table_id: int, index: int, holder: Holder, name: str) -> int:
    """Sit a member or a guest at a free seat; one phone may take several (a shared phone)."""
    if not holder.key:
        raise TableError("no_phone", _("This browser has no session; reload the page."))
    name = " ".join(name.split())[:40]
    if not name:
        raise TableError("bad_name", _("Enter a name to play under."))

    def make(state: TableState, now: datetime) -> None:
        table = state.table
        if table.status not in (Table.Status.WAITING, Table.Status.RUBBER_OVER):
            raise TableError("not_waiting", _("Seats are taken before a rubber starts."))
        if not 0 <= index < table.seat_count:
            raise TableError("bad_seat", _("There is no such seat."))
        if not state.seats[index].is_free:
            raise TableError("seat_taken", _("That seat is taken."))
        _changed_seat(
            state,
            index,
            holder_key=holder.key,
            user_id=holder.user_id,
            guest_id=holder.guest_id,
            name=name,
            last_seen=now,
        )

    return _change(table_id, make).version


def leave_seat(table_id: int, index: int, holder: Holder) -> int:
    """A player gets up. Between rubbers her seat is free for whoever comes; between two hands
    of a rubber a computer player takes it and plays the rubber out; during a hand she waits
    for its end (or takes a break)."""

    def make(state: TableState, now: datetime) -> None:
        table = state.table
        _own_seat(state, holder, index)
        refused = table_rules.leave_refusal(table.status, state.hand)
        if refused is not None:
            raise TableError(refused.code, refusal_message(refused))
        playing = table.status == Table.Status.PLAYING
        _changed_seat(
            state,
            index,
            holder_key="",
            user_id=None,
            guest_id=None,
            away="",
            back_at_deal=False,
            bot_level=BotLevel.NORMAL if playing else "",
            name=_bot_name(index) if playing else "",
        )

    return _change(table_id, make).version


def close_table(table_id: int, user: User) -> int:
    """The table's creator or an admin of its club closes it: nothing more is played there. A
    rubber it leaves unfinished is abandoned, and counts in no standings."""

    def make(state: TableState, now: datetime) -> None:
        table = state.table
        if table.created_by_id != user.pk and not is_admin(user, table.club_id):
            raise TableError(
                "not_allowed", _("Only the table's creator or a club admin closes it.")
            )
        if table.status == Table.Status.CLOSED:
            raise TableError("closed", _("This table is closed."))
        _close(state)

    return _change(table_id, make).version


def _close(state: TableState) -> None:
    """Nothing more is played at the table; a rubber it leaves unfinished is abandoned."""
    rubber = state.rubber
    if rubber is not None and not rubber.over:
        store.with_update(state, rubber, abandoned=True)
    state.table.status = Table.Status.CLOSED
    state.table.paused = False
    state.base = None


def arrive(table_id: int, holder: Holder) -> None:
    """A phone that holds seats at the table connects: it is heard, and a table that paused
    because nobody was at it goes on from now (its turn clock starts again). At a table that
    is not paused, almost every time, that is one read."""
    store.mark_seen(table_id, holder)
    # One statement sees one moment: the row alone needs no transaction around it (at every
    # phone's connect, three statements fewer). A paused table's seats are read with its row.
    table = store.table_row(table_id)
    if table is None or not table.paused:
        return
    with store.one_snapshot():
        table = store.table_row(table_id)
        if table is None or not table.paused:
            return
        seats = read_state(table).seats
    # A player who is away (on a break, buying a round) is not back by opening the page.
    if not any(
        holder.holds(seat_keys(seat)) and (not seat.away or seat.back_at_deal) for seat in seats
    ):
        return

    def make(state: TableState, now: datetime) -> None:
        state.table.paused = False

    _change(table_id, make)


# -- away from the table (rules.md 3.8) ----------------------------------------------------------


def go_away(table_id: int, holder: Holder, index: int, reason: str) -> int:
    """A player steps away: on a break at any moment, or buying a round between hands (once a
    rubber). The table plays for her meanwhile; every phone shows who is away and why."""

    def make(state: TableState, now: datetime) -> None:
        _own_seat(state, holder, index)
        step_away(state, index, reason, now)

    return _change(table_id, make).version


def step_away(state: TableState, index: int, reason: str, now: datetime) -> None:
    """Seat `index`'s player goes away for `reason`, or it is refused with why: the change of
    `go_away` and of the slate's keepers (games/services/slate.py)."""
    table, seat = state.table, state.seats[index]
    if table.status == Table.Status.CLOSED:
        raise TableError("closed", _("This table is closed."))
    try:
        table_rules.check_away(
            state.rules, reason, state.hand_under_way(), state.round_bought(index)
        )
    except table_rules.Refused as refused:
        raise TableError(refused.code, refusal_message(refused)) from None
    if seat.away == reason and not seat.back_at_deal:
        raise TableError("already_away", _("You are away already."))
    _changed_seat(state, index, away=reason, back_at_deal=False)
    if state.laundry_open(now) and _laundry_done(state):
        table.laundry_until = None


def come_back(table_id: int, holder: Holder, index: int) -> int:
    """Back at the table: from a break at once (she plays her own cards if she has not folded);
    from buying a round at the next deal, the hand under way staying as it was dealt."""

    def make(state: TableState, now: datetime) -> None:
        _own_seat(state, holder, index)
        step_back(state, index)
        state.table.paused = False  # she is at the table: it goes on

    return _change(table_id, make).version


def step_back(state: TableState, index: int) -> None:
    """Seat `index`'s player is back, or it is refused with why (`come_back`, and the
    slate's keepers)."""
    seat = state.seats[index]
    if not seat.away or seat.back_at_deal:
        raise TableError("not_away", _("You are not away."))
    if seat.away == "round" and state.hand_under_way():
        _changed_seat(state, index, back_at_deal=True)
    else:
        _changed_seat(state, index, away="", back_at_deal=False)


def _own_seat(state: TableState, holder: Holder, index: Any) -> Seat:
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(state.seats):
        raise TableError("bad_seat", _("There is no such seat."))
    seat = state.seats[index]
    if not holder.holds(seat_keys(seat)):
        raise TableError("not_your_seat", _("That is not your seat."))
    return seat


def _laundry_done(state: TableState) -> bool:
    return table_rules.laundry_done(
        state.hand_seats, state.table.laundry_ready, [s.away for s in state.seats]
    )


# -- rubbers ------------------------------------------------------------------------------------


def start_rubber(table_id: int, who: User | Holder) -> int:
    """Any player at the table, or its creator, starts a rubber (or another one with the same
    seats after the last). `who`: a member, or whoever a phone speaks for (a guest too)."""
    holder = who if isinstance(who, Holder) else Holder(user_id=who.pk)

    def make(state: TableState, now: datetime) -> None:
        table = state.table
        if not state.held_by(holder) and table.created_by_id != holder.user_id:
            raise TableError("not_allowed", _("Only the players at the table start a rubber."))
        free = any(seat.is_free for seat in state.seats)
        refused = table_rules.start_refusal(table.status, free)
        if refused is not None:
            raise TableError(refused.code, refusal_message(refused))
        rules = state.rules
        previous = state.rubber
        last = store.last_hand(previous.pk) if previous is not None and previous.over else []
        # After a rubber at these seats its last hand names the first dealer; else the engine
        # draws one.
        result, seats = (last[0].result, last[0].seats) if last else (None, ())
        dealer = first_dealer(table.seat_count, result, seats)
        rubber = Rubber(
            table=table,
            number=(previous.number + 1) if previous is not None else 1,
            rules_json=table.rules_json,
            players=[seat.name for seat in state.seats],
            lives=[rules.starting_lives] * table.seat_count,
            dealer=dealer,
        )
        seated = [
            RubberPlayer(
                seat=seat.index,
                name=seat.name,
                user_id=seat.user_id,
                guest_id=seat.guest_id,
                bot_level=seat.bot_level,
            )
            for seat in state.seats
        ]

        def write() -> None:
            rubber.save()
            for player in seated:
                player.rubber = rubber
            RubberPlayer.objects.bulk_create(seated)

        store.with_work(state, write)
        table.status = Table.Status.PLAYING
        table.paused = False
        state.rubber, state.hand_row, state.hand, state.hand_seats = rubber, None, None, []
        _deal(state, now)

    return _change(table_id, make).version


def _deal(state: TableState, now: datetime, *, again: bool = False) -> bool:
    """The next hand of the rubber; True when it changed a seat's row too (someone back from
    buying a round, or dealt in while away buying one). `again`: the hand under way, with
    nothing played in it, is dealt once more in its own row (a slate hand whose real cards are
    still to come, when who buys a round changed)."""
    assert state.rubber is not None
    if again:
        assert state.hand is not None and not state.hand.actions
        state.hand = None  # the rubber deals from the lives and the dealer it left
    rubber_number = state.rubber.number
    back = [s.index for s in state.seats if s.back_at_deal]
    buying = [s.index for s in state.seats if s.away == "round" and not s.back_at_deal]
    for index in back:
        _changed_seat(state, index, away="", back_at_deal=False)
    for index in buying:
        _changed_seat(state, index, round_in_rubber=rubber_number)
    rubber = state.engine_rubber()
    # The hand dealt while she buys a round, she loses no lives (rules.md 3.8); it is the one
    # hand her round covers (`_finish_hand`).
    hand = rubber.deal(immune=buying)
    last = state.hand_row
    if again:
        assert last is not None
        row = last
        row.record = hand.record()
        state.record_changed = True  # written with the table's fields (the store's claim)
    else:
        # After the rubber's latest hand, as load_state reads it; the first of a new rubber.
        ongoing = last is not None and state.rubber.pk is not None
        number = last.number + 1 if ongoing and last.rubber_id == state.rubber.pk else 1
        row = PlayedHand(
            rubber=state.rubber, number=number, seats=list(rubber.hand_seats), record=hand.record()
        )
        store.with_new_hand(state, row)
    state.hand_row = row
    state.hand = hand
    state.hand_seats = list(rubber.hand_seats)
    state.base = None  # a new hand: other processes read it (its cards) from the database
    _set_windows(state, table_rules.dealt(hand, pace(), now))
    return bool(back or buying)


def _set_windows(state: TableState, windows: table_rules.Windows) -> None:
    """The table's fields as the engine's windows leave them (games/engine/table.py)."""
    table = state.table
    table.laundry_until = windows.laundry_until
    if windows.laundry_ready is not table.laundry_ready:
        table.laundry_ready = list(windows.laundry_ready)
    table.awaiting_since = windows.awaiting_since


def _finish_hand(state: TableState, now: datetime) -> None:
    """The end of the hand: its result, the rubber as it leaves it and the players' tallies,
    written with the change; and a round bought for this hand over (rules.md 3.8)."""
    hand = state.hand
    assert hand is not None
    for hand_seat, index in enumerate(state.hand_seats):
        seat = state.seats[index]
        if hand.immune[hand_seat] and seat.away == "round":
            away = table_rules.away_after_round(seat.back_at_deal)
            _changed_seat(state, index, away=away, back_at_deal=False)
    outcome = finish_hand(state, now)
    row, rubber_row, table = state.hand_row, state.rubber, state.table
    assert row is not None and rubber_row is not None
    # The hand's row (its whole record with it), the rubber's and the lives each player lost:
    # plain statements, which the loop's writers send too.
    store.with_hand_end(state, row, rubber_row, outcome.lives_lost)
    state.record_changed = False
    if not rubber_row.over:
        return

    def write() -> None:
        # At a rubber's end also who lost it and who won, and the nights hook.
        players = RubberPlayer.objects.filter(rubber=rubber_row)
        players.filter(seat__in=rubber_row.losers).update(lost=True)
        players.filter(seat=rubber_row.winner).update(won=True)
        # The nights hook: standings, rounds owed and ratings are written in this transaction.
        events.rubber_finished.send(
            sender=Rubber, rubber=rubber_row, table=table, hand=row, now=now
        )

    store.with_work(state, write)


# -- actions ------------------------------------------------------------------------------------


def act(
    table_id: int, holder: Holder, seat: int, payload: Mapping[str, Any], action_id: str
) -> Outcome:
    """A player's action from a phone: applied once per `action_id`, or refused with a reason."""
    check_action_id(action_id)
    return _change(table_id, _playing(holder, seat, payload), action_id)


async def act_here(
    table_id: int, holder: Holder, seat: int, payload: Mapping[str, Any], action_id: str
) -> Outcome:
    """`act`, from the event loop (the phones' websocket): decided on this process's snapshot
    of the table where it can, else on the database's version in a worker thread."""
    check_action_id(action_id)
    return await _change_anywhere(table_id, _playing(holder, seat, payload), action_id)


def _playing(holder: Holder, seat: int, payload: Mapping[str, Any]) -> Make:
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
    if table.slate:
        # Its players hold real cards: the slate is written through games/services/slate.py alone.
        raise TableError("slate_table", _("This table keeps a slate: write on the slate."))
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
    _apply(state, action, now)


def check_hand(state: TableState, named: Any) -> None:
    """An action made on the hand `named` ("rubber/hand", as the phone's button carried it; None
    from a caller with no phone) is refused on any other hand: a tap on a frozen screen must
    never land on a hand its player never saw."""
    if named is not None and named != state.hand_name():
        raise TableError("stale_hand", _("That was meant for an earlier hand."))


def ready(table_id: int, holder: Holder, seat: int, hand: str | None = None) -> int:
    """A player is done with the laundry; when every seat is, the window closes early."""

    def make(state: TableState, now: datetime) -> None:
        if not 0 <= seat < len(state.seats) or not holder.holds(seat_keys(state.seats[seat])):
            raise TableError("not_your_seat", _("That is not your seat."))
        check_hand(state, hand)
        if not state.laundry_open(now):
            raise TableError("laundry_closed", _("The laundry is over."))
        _mark_ready(state, seat)

    return _change(table_id, make).version


def _mark_ready(state: TableState, seat: int) -> None:
    table = state.table
    if seat not in table.laundry_ready:
        table.laundry_ready = [*table.laundry_ready, seat]
    if _laundry_done(state):
        table.laundry_until = None


def _apply(state: TableState, action: Action, now: datetime) -> None:
    """The table's own rules around the engine's, then the engine, then the stored record."""
    hand, row = state.hand, state.hand_row
    assert hand is not None and row is not None
    try:
        windows = table_rules.take(state.moment(), action, pace(), now)
    except table_rules.Refused as refused:
        raise TableError(refused.code, refusal_message(refused)) from None
    except IllegalAction as error:
        raise TableError(error.code, engine_message(error)) from None
    _set_windows(state, windows)
    row.record["actions"].append(action.to_json())
    state.record_changed = True  # written with the table's fields (the store's claim)
    if hand.complete:
        _finish_hand(state, now)


# -- deadlines ----------------------------------------------------------------------------------


def next_deadline(state: TableState, now: datetime) -> datetime | None:
    return table_rules.next_deadline(table_rules.plan(state.moment(), pace(), now))


def _due_step(state: TableState, now: datetime) -> Step | None:
    return table_rules.due_step(table_rules.plan(state.moment(), pace(), now), now)


def _think(state: TableState, step: Step) -> Action | None:
    """A computer player's decision, from its seat's observation only."""
    assert step.seat is not None and state.rubber is not None
    observation = state.observe(step.seat)
    assert observation is not None
    # Offer only what the table allows now: in its laundry window the laundry alone (keep the
    # hand, exchange, challenge); outside it never the laundry, though the engine's stays open
    # until the first other action.
    hand_seat = state.hand_seat(step.seat)
    assert state.hand is not None and hand_seat is not None
    legal = table_rules.allowed(state.hand, hand_seat, step.kind == "bot_laundry")
    observation = observation._replace(legal=tuple(legal))
    bot = players.bot_for(state, step.seat)
    return players.decide(bot, observation, state.rules)


def _carry_out(state: TableState, step: Step, now: datetime, decision: Action | None) -> None:
    if step.kind == "deal":
        if not _deal(state, now):
            # The rubber and the seats are as the hand's end left them: other processes read
            # only the new hand.
            state.dealt_from = state.table.version
    elif step.kind == "close_laundry":
        _set_windows(state, table_rules.laundry_closed(state.moment(), now))
    elif step.kind == "close_answers":
        for stay in table_rules.unanswered(state.moment()):
            _apply(state, stay, now)
    elif step.kind == "pause":
        # Nobody is at the table: it waits, and every phone still watching says so.
        state.table.paused = True
    elif step.kind == "abandon":
        log.info("table %s: paused too long, closed", state.table.pk)
        _close(state)
    elif step.kind == "bot_laundry":
        assert step.seat is not None
        if decision is not None:
            _apply(state, decision, now)
        _mark_ready(state, step.seat)
    elif step.kind == "bot_offer":
        assert step.seat is not None
        if decision is None:
            # Nothing now: not asked again until the table changes.
            state.table.bots_offered = [*state.table.bots_offered, step.seat]
            raise Unchanged
        _apply(state, decision, now)
    else:
        assert step.seat is not None
        observation = state.observe(step.seat)
        assert observation is not None
        if step.kind == "auto" or decision is None:
            action = table_rules.auto_action(observation)
            decision = action.as_auto() if step.kind == "auto" else action
        _apply(state, decision, now)
        if step.kind == "auto":
            _dropped_to_a_break(state, step.seat, now)


def _dropped_to_a_break(state: TableState, index: int, now: datetime) -> None:
    """A player whose phone stayed silent past its grace is on a break from now on, so every
    phone says so and the table goes on at its pace; one tap brings her back."""
    seat = state.seats[index]
    if table_rules.dropped_to_a_break(state.rules, seat.away, last_seen(seat), pace(), now):
        _changed_seat(state, index, away="break")


def fire_deadline(table_id: int, now: datetime | None = None) -> bool:
    """Do what the table must do by itself at `now`; True when it changed. Raises Busy, at
    once, when another transaction holds the table's row.

    The step is planned, and a computer player thinks, on the table as it was read, with no
    lock: the change holds only if the table is still at that version when it is written
    (else it is decided again on the new version, which has its own deadline)."""
    return _change(table_id, _due, now=now or timezone.now(), waits=False).changed


async def fire_here(table_id: int) -> bool:
    """`fire_deadline` from the event loop for a due deal, decided on this process's snapshot
    of the table (no query) and committed on the loop; True when it was written. False when
    there is no snapshot, the step due is not a deal (a computer player thinks, a table pauses,
    a laundry closes: decided on the table as the database has it), or the write found the
    table moved on: the caller fires it in a worker thread, on the database's version."""
    outcome = await _change_here(table_id, _due_deal, alone=True)
    return outcome is not None and outcome.changed


def _due(state: TableState, now: datetime) -> None:
    """The clock's decision: the step due at `now` carried out (NotDue when none is due; only
    the next deadline noted when the table waits for nothing now)."""
    deadline = state.table.deadline_at
    if deadline is None or deadline > now:
        raise NotDue
    step = _due_step(state, now)
    if step is None:
        raise Unchanged
    decision = _think(state, step) if step.kind in BOT_STEPS else None
    try:
        _carry_out(state, step, now, decision)
    except TableError:
        # Should not happen (the plan and the engine agree); never spin on it: retry later.
        log.exception("table %s: a deadline could not be carried out", state.table.pk)
        state.table.deadline_at = now + timedelta(seconds=5)
        store.note(state.table, state.table.version)
        raise NotDue from None


def _due_deal(state: TableState, now: datetime) -> None:
    """`_due` on the event loop, for a deal alone (no computer player thinks on the loop)."""
    deadline = state.table.deadline_at
    if deadline is None or deadline > now:
        raise NotDue
    step = _due_step(state, now)
    if step is None or step.kind != "deal":
        raise InThread
    _carry_out(state, step, now, None)
