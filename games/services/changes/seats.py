"""Tables and seats: a table opened, a seat taken or left, a table closed, a player away and
back, a paused table that someone arrives at."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from clubs.models import Club, HouseRuleProfile
from games.engine import table as table_rules
from games.engine.rules import MAX_SEATS, HouseRules
from games.models import (
    BotLevel,
    RubberPlayer,
    Seat,
    Table,
)
from games.services import store
from games.services.access import is_admin, is_member
from games.services.changes.decide import (
    Make,
    TableError,
    change,
    changed_seat,
    check_door,
    set_windows,
)
from games.services.refusals import refusal_message
from games.services.snapshots import read_state, snapshot_of
from games.services.state import Holder, TableState, seat_keys

log = logging.getLogger(__name__)


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


# A seat kept for a named person (a tournament's draw): taken, though no phone holds it yet;
# her phone holds it by her account or her guest (`Holder.holds`). No browser's key is this.
RESERVED_HOLDER = "reserved"


@dataclass(frozen=True)
class Reserved:
    """Who a seat is kept for: a member, a guest, or a computer player (`bot_level`), by
    name."""

    name: str
    user_id: int | None = None
    guest_id: int | None = None
    bot_level: str = ""


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
    reserved: Mapping[int, Reserved] | None = None,
) -> Table:
    """A member opens a table for the club, with the rules of `profile` (default: the club's);
    `reserved` seats are kept for the people named (a tournament's draw)."""
    profile, rules = table_rules_of(club, user, profile, seat_count)
    bots = dict(bots or {})
    reserved = dict(reserved or {})
    for index, level in bots.items():
        if not 0 <= index < seat_count or level not in BotLevel.values:
            raise TableError("bad_bots", _("A computer player needs a seat and a level."))
    if any(index in bots or not 0 <= index < seat_count for index in reserved):
        raise TableError("bad_seats", _("A seat is kept for one player."))
    if any(kept.bot_level not in ("", *BotLevel.values) for kept in reserved.values()):
        raise TableError("bad_bots", _("A computer player needs a seat and a level."))
    if take_seat is not None and (
        take_seat in bots or take_seat in reserved or not 0 <= take_seat < seat_count
    ):
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
        # goes through `change`.
        seated = take_seat if holder_key else None
        for index in range(seat_count):
            level = bots.get(index, "")
            seat = Seat(table=table, index=index, bot_level=level)
            seat.name = bot_name(index) if level else ""
            kept = reserved.get(index)
            if kept is not None and kept.bot_level:
                seat.bot_level, seat.name = kept.bot_level, kept.name
            elif kept is not None:
                seat.holder_key, seat.name = RESERVED_HOLDER, kept.name
                seat.user_id, seat.guest_id = kept.user_id, kept.guest_id
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


def bot_name(index: int) -> str:
    """A short first name: it must fit the player strip of a small phone, and the strip says
    that it is a computer player."""
    return BOT_NAMES[index % len(BOT_NAMES)]


def take_seat(table_id: int, index: int, holder: Holder, name: str) -> int:
    """Sit a member or a guest at a free seat; one phone may take several (a shared phone), a
    member one at most."""
    if not holder.key:
        raise TableError("no_phone", _("This browser has no session; reload the page."))
    name = " ".join(name.split())[:40]
    if not name:
        raise TableError("bad_name", _("Enter a name to play under."))

    def make(state: TableState, now: datetime) -> None:
        table = state.table
        check_door(table)
        if table.status not in (Table.Status.WAITING, Table.Status.RUBBER_OVER):
            raise TableError("not_waiting", _("Seats are taken before a rubber starts."))
        if not 0 <= index < table.seat_count:
            raise TableError("bad_seat", _("There is no such seat."))
        if not state.seats[index].is_free:
            raise TableError("seat_taken", _("That seat is taken."))
        if holder.user_id is not None and any(s.user_id == holder.user_id for s in state.seats):
            raise TableError("already_seated", _("That member is at this table already."))
        changed_seat(
            state,
            index,
            holder_key=holder.key,
            user_id=holder.user_id,
            guest_id=holder.guest_id,
            name=name,
            last_seen=now,
        )

    return change(table_id, make).version


def leave_seat(table_id: int, index: int, holder: Holder) -> int:
    """A player gets up. Between rubbers her seat is free for whoever comes; between two hands
    of a rubber a computer player takes it and plays the rubber out; during a hand she waits
    for its end (or takes a break)."""

    def make(state: TableState, now: datetime) -> None:
        table = state.table
        check_door(table)
        own_seat(state, holder, index)
        refused = table_rules.leave_refusal(table.status, state.hand)
        if refused is not None:
            raise TableError(refused.code, refusal_message(refused))
        playing = table.status == Table.Status.PLAYING
        if playing:
            note_left(state, index)
        changed_seat(
            state,
            index,
            holder_key="",
            user_id=None,
            guest_id=None,
            away="",
            back_at_deal=False,
            bot_level=BotLevel.NORMAL if playing else "",
            name=bot_name(index) if playing else "",
        )

    return change(table_id, make).version


def note_left(state: TableState, index: int) -> None:
    """Seat `index`'s player gets up between two hands of the rubber: the hands dealt from now
    on are the computer player's, never hers to replay (nights.reads.dealt_to)."""
    rubber, row = state.rubber, state.hand_row
    if rubber is None or rubber.pk is None or row is None or row.rubber_id != rubber.pk:
        return
    left = RubberPlayer.objects.filter(rubber_id=rubber.pk, seat=index, left_after=None)
    number = row.number

    def write() -> None:
        left.update(left_after=number)

    store.with_work(state, write)


def close_table(table_id: int, user: User, confirmed: bool = False) -> int:
    """The table's creator or an admin of its club closes it: nothing more is played there. A
    rubber it leaves unfinished is abandoned, and counts in no standings: with one under way
    the close is refused unless `confirmed` (she was told what is lost)."""
    return change(table_id, closing(user, confirmed)).version


def closing(user: User, confirmed: bool = False) -> Make:
    """The decision of `close_table`, for the decider."""

    def make(state: TableState, now: datetime) -> None:
        table = state.table
        if table.created_by_id != user.pk and not is_admin(user, table.club_id):
            raise TableError(
                "not_allowed", _("Only the table's creator or a club admin closes it.")
            )
        if table.status == Table.Status.CLOSED:
            raise TableError("closed", _("This table is closed."))
        if rubber_under_way(state) and not confirmed:
            raise TableError(
                "confirm_close",
                _("A rubber is under way: closing the table abandons it. Confirm it first."),
            )
        close(state)

    return make


def rubber_under_way(state: TableState) -> bool:
    """Whether closing the table now abandons a rubber (one started and not over)."""
    rubber = state.rubber
    return state.table.status == Table.Status.PLAYING and rubber is not None and not rubber.over


def close(state: TableState) -> None:
    """Nothing more is played at the table; a rubber it leaves unfinished is abandoned."""
    rubber = state.rubber
    if rubber is not None and not rubber.over:
        rubber.abandoned = True  # the state's copy, as written
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
    _go_on(table_id, holder)


def heard_all(held: Iterable[tuple[int, Holder]]) -> None:
    """A heartbeat round: the phones a process heard lately, by table and holder, are here (one
    `UPDATE`). A table this process's snapshot has paused, one of whose players' phones is
    heard again (its network came back with the socket still open), goes on as when she
    reconnects; the other tables cost no read."""
    held = list(held)
    store.mark_seen_all(held)
    for table_id, holder in held:
        snapshot = snapshot_of(table_id)
        if snapshot is not None and snapshot.table.paused:
            _go_on(table_id, holder)


def _go_on(table_id: int, holder: Holder) -> None:
    """A paused table goes on from now if `holder`, heard now, holds a seat of a player who is
    not away."""
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

    change(table_id, make)


def go_away(table_id: int, holder: Holder, index: int, reason: str) -> int:
    """A player steps away: on a break at any moment, or buying a round between hands (once a
    rubber). The table plays for her meanwhile; every phone shows who is away and why."""
    return change(table_id, going_away(holder, index, reason)).version


def going_away(holder: Holder, index: int, reason: str) -> Make:
    """The decision of `go_away`, for the decider."""

    def make(state: TableState, now: datetime) -> None:
        check_door(state.table)
        own_seat(state, holder, index)
        step_away(state, index, reason, now)

    return make


def step_away(state: TableState, index: int, reason: str, now: datetime) -> None:
    """Seat `index`'s player goes away for `reason`, or it is refused with why: the change of
    `go_away` and of the slate's keepers (games/services/slate.py)."""
    table, seat = state.table, state.seats[index]
    if table.status == Table.Status.CLOSED:
        raise TableError("closed", _("This table is closed."))
    try:
        table_rules.check_away(
            state.rules,
            reason,
            state.hand_under_way(),
            state.round_bought(index),
            state.out_of_rubber(index),
        )
    except table_rules.Refused as refused:
        raise TableError(refused.code, refusal_message(refused)) from None
    if seat.away == reason and not seat.back_at_deal:
        raise TableError("already_away", _("You are away already."))
    changed_seat(state, index, away=reason, back_at_deal=False)
    # She has no say in the laundry now: it may close early.
    set_windows(state, table_rules.done_with_laundry(state.moment(), None, now))


def come_back(table_id: int, holder: Holder, index: int) -> int:
    """Back at the table: from a break at once (she plays her own cards if she has not folded);
    from buying a round at the next deal, the hand under way staying as it was dealt."""
    return change(table_id, coming_back(holder, index)).version


def coming_back(holder: Holder, index: int) -> Make:
    """The decision of `come_back`, for the decider."""

    def make(state: TableState, now: datetime) -> None:
        check_door(state.table)
        own_seat(state, holder, index)
        step_back(state, index)
        state.table.paused = False  # she is at the table: it goes on

    return make


def step_back(state: TableState, index: int) -> None:
    """Seat `index`'s player is back, or it is refused with why (`come_back`, and the
    slate's keepers)."""
    seat = state.seats[index]
    if not seat.away or seat.back_at_deal:
        raise TableError("not_away", _("You are not away."))
    if seat.away == "round" and state.hand_under_way():
        changed_seat(state, index, back_at_deal=True)
    else:
        changed_seat(state, index, away="", back_at_deal=False)


def own_seat(state: TableState, holder: Holder, index: Any) -> Seat:
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(state.seats):
        raise TableError("bad_seat", _("There is no such seat."))
    seat = state.seats[index]
    if not holder.holds(seat_keys(seat)):
        raise TableError("not_your_seat", _("That is not your seat."))
    return seat
