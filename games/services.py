"""Every change to a table goes through here.

Each public function is one transaction with the table row locked: it rebuilds the state from
the database, validates with the engine, writes, bumps the table's version, computes the next
deadline, announces the change in the transaction (games/notices.py), and renders this
process's phones after the commit. Consumers and views never change a table themselves, and
nothing here knows about requests or sockets.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import OperationalError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from clubs.models import Club, HouseRuleProfile, Membership
from games import events, notices, players, signals
from games.access import is_member
from games.conf import pace, seconds
from games.engine import Action, BadRecord, IllegalAction, parse_action
from games.engine import table as table_rules
from games.engine.rubber import first_dealer_after
from games.engine.rules import MAX_SEATS, HouseRules
from games.engine.table import BOT_STEPS, LAUNDRY_ACTS, Step
from games.models import (
    ActionReceipt,
    BotLevel,
    PlayedHand,
    Rubber,
    RubberPlayer,
    Seat,
    Table,
)
from games.prepared import Prepared, RowInsert, RowUpdate
from games.refusals import engine_message, refusal_message
from games.tables import (
    CHANGED_FIELDS,
    Holder,
    SeatKeys,
    TableState,
    editable_state,
    finish_hand,
    load_state,
    one_snapshot,
    read_state,
)

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
    version: int
    duplicate: bool = False


def _save(state: TableState, now: datetime, *, changed: bool = True) -> int:
    """Write the change: the hand's new actions, the table's fields, the new version, and the
    notice that tells the other processes when it commits."""
    table = state.table
    if changed:
        next_version(state, now)
    else:
        table.deadline_at = next_deadline(state, now)
    row = state.hand_row
    if state.record_changed and row is not None:
        _HAND_RECORD(row.pk, row.record)
        state.record_changed = False
    write = _CHANGED_TABLE if changed else _TABLE_DEADLINE
    write(table.pk, *(getattr(table, field.attname) for field in write.fields))
    if changed:
        version = table.version
        deadline = table.deadline_at
        notices.send(table.pk, version, state)
        # The change is committed whatever happens to its views (a failure is logged, the
        # phones catch up with the next change, a reconnect or the next heartbeat round).
        events.send_on_commit(table.pk, version, deadline, state)
    return table.version


def next_version(state: TableState, now: datetime) -> None:
    """The table's fields as a change leaves them: a new version, and the next deadline."""
    table = state.table
    table.version += 1
    table.changed_at = now
    table.bots_offered = []
    table.deadline_at = next_deadline(state, now)


# Every action's writes, as SQL built once (what `save(update_fields=...)` would send).
_CHANGED_TABLE = RowUpdate(Table, CHANGED_FIELDS)
_TABLE_DEADLINE = RowUpdate(Table, ("deadline_at",))
_HAND_RECORD = RowUpdate(PlayedHand, ("record",))
_NEW_RECEIPT = RowInsert(ActionReceipt, ("table", "action_id", "version", "created_at"))
_LOCKED = Prepared(lambda table_id: Table.objects.select_for_update().filter(pk=table_id))
# The clock's lock: a row another transaction holds is passed over at once, not waited for
# (SKIP LOCKED on PostgreSQL; SQLite has one writer at a time and no row locks).
_CLAIMED = Prepared(
    lambda table_id: Table.objects.select_for_update(skip_locked=True).filter(pk=table_id)
)
_TABLE = Prepared(lambda table_id: Table.objects.filter(pk=table_id))
_RECEIPT = Prepared(
    lambda table_id, action_id: ActionReceipt.objects.filter(
        table_id=table_id, action_id=action_id
    ).values_list("version")[:1]
)


def _lock(table_id: int) -> Table:
    try:
        rows = _LOCKED(table_id)
    except OperationalError as error:
        # PostgreSQL gave up waiting for the row (lock_timeout, or statement_timeout first).
        if getattr(error.__cause__, "sqlstate", None) in ("55P03", "57014"):
            raise Busy from None
        raise
    for table in rows:
        return table
    raise TableError("not_found", _("There is no such table."))


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
            # The nights hook: a table opened while the club has a night open belongs to it.
            night=club.nights.filter(closed_at__isnull=True).first(),
            created_by=user,
            profile=profile,
            profile_name=profile.name if profile is not None else "Classic",
            rules_json=rules.to_json(),
            seat_count=seat_count,
            allow_spectators=allow_spectators,
        )
        for index in range(seat_count):
            level = bots.get(index, "")
            Seat.objects.create(
                table=table,
                index=index,
                bot_level=level,
                name=_bot_name(index) if level else "",
            )
        if take_seat is not None and holder_key:
            _seat_person(table, take_seat, Holder(user_id=user.pk, key=holder_key), str(user))
    return table


BOT_NAMES = ("Anne", "Bart", "Cor", "Dewi", "Evert", "Fem", "Gijs")


def _bot_name(index: int) -> str:
    """A short first name: it must fit the player strip of a small phone, and the strip says
    that it is a computer player."""
    return BOT_NAMES[index % len(BOT_NAMES)]


def _seat_person(table: Table, index: int, holder: Holder, name: str) -> Seat:
    seat = Seat.objects.select_for_update().get(table=table, index=index)
    if not seat.is_free:
        raise TableError("seat_taken", _("That seat is taken."))
    seat.holder_key = holder.key
    seat.user_id = holder.user_id
    seat.guest_id = holder.guest_id
    seat.name = name
    seat.last_seen = timezone.now()
    seat.save()
    return seat


def take_seat(table_id: int, index: int, holder: Holder, name: str) -> int:
    """Sit a member or a guest at a free seat; one phone may take several (a shared phone)."""
    if not holder.key:
        raise TableError("no_phone", _("This browser has no session; reload the page."))
    name = " ".join(name.split())[:40]
    if not name:
        raise TableError("bad_name", _("Enter a name to play under."))
    with transaction.atomic():
        table = _lock(table_id)
        if table.status not in (Table.Status.WAITING, Table.Status.RUBBER_OVER):
            raise TableError("not_waiting", _("Seats are taken before a rubber starts."))
        if not 0 <= index < table.seat_count:
            raise TableError("bad_seat", _("There is no such seat."))
        _seat_person(table, index, holder, name)
        state = load_state(table)
        return _save(state, timezone.now())


def leave_seat(table_id: int, index: int, holder: Holder) -> int:
    """A player gets up. Between rubbers her seat is free for whoever comes; between two hands
    of a rubber a computer player takes it and plays the rubber out; during a hand she waits
    for its end (or takes a break)."""
    with transaction.atomic():
        table = _lock(table_id)
        state = load_state(table)
        seat = _own_seat(state, holder, index)
        if table.status == Table.Status.CLOSED:
            raise TableError("closed", _("This table is closed."))
        playing = table.status == Table.Status.PLAYING
        if playing and state.hand is not None and not state.hand.complete:
            raise TableError("hand_under_way", _("You can leave between hands."))
        seat.holder_key = ""
        seat.user = seat.guest = None
        seat.away, seat.back_at_deal = "", False
        if playing:
            seat.bot_level = BotLevel.NORMAL
            seat.name = _bot_name(index)
        else:
            seat.name = ""
        seat.save()
        return _save(load_state(table), timezone.now())


def close_table(table_id: int, user: User) -> int:
    """The table's creator or an admin of its club closes it: nothing more is played there. A
    rubber it leaves unfinished is abandoned, and counts in no standings."""
    with transaction.atomic():
        table = _lock(table_id)
        admin = Membership.objects.filter(
            club_id=table.club_id,
            user=user,
            role=Membership.Role.ADMIN,
            status=Membership.Status.ACTIVE,
        ).exists()
        if table.created_by_id != user.pk and not admin:
            raise TableError(
                "not_allowed", _("Only the table's creator or a club admin closes it.")
            )
        if table.status == Table.Status.CLOSED:
            raise TableError("closed", _("This table is closed."))
        state = load_state(table)
        if state.rubber is not None and not state.rubber.over:
            Rubber.objects.filter(pk=state.rubber.pk).update(abandoned=True)
        table.status = Table.Status.CLOSED
        return _save(load_state(table), timezone.now())


# -- away from the table (rules.md 3.8) ----------------------------------------------------------


def go_away(table_id: int, holder: Holder, index: int, reason: str) -> int:
    """A player steps away: on a break at any moment, or buying a round between hands (once a
    rubber). The table plays for her meanwhile; every phone shows who is away and why."""
    with transaction.atomic():
        table = _lock(table_id)
        state = load_state(table)
        seat = _own_seat(state, holder, index)
        rubber = state.rubber
        playing = table.status == Table.Status.PLAYING and rubber is not None
        under_way = playing and state.hand is not None and not state.hand.complete
        # A round bought between rubbers counts for the next one.
        this_rubber = (rubber.number if playing else rubber.number + 1) if rubber else 1
        try:
            table_rules.check_away(
                state.rules, reason, under_way, seat.round_in_rubber == this_rubber
            )
        except table_rules.Refused as refused:
            raise TableError(refused.code, refusal_message(refused)) from None
        if seat.away == reason and not seat.back_at_deal:
            raise TableError("already_away", _("You are away already."))
        Seat.objects.filter(pk=seat.pk).update(away=reason, back_at_deal=False)
        state = load_state(table)
        now = timezone.now()
        if state.laundry_open(now) and _laundry_done(state):
            table.laundry_until = None
        return _save(state, now)


def come_back(table_id: int, holder: Holder, index: int) -> int:
    """Back at the table: from a break at once (she plays her own cards if she has not folded);
    from buying a round at the next deal, the hand under way staying as it was dealt."""
    with transaction.atomic():
        table = _lock(table_id)
        state = load_state(table)
        seat = _own_seat(state, holder, index)
        if not seat.away or seat.back_at_deal:
            raise TableError("not_away", _("You are not away."))
        dealt_away = (
            seat.away == "round"
            and state.hand is not None
            and not state.hand.complete
            and table.status == Table.Status.PLAYING
        )
        if dealt_away:
            Seat.objects.filter(pk=seat.pk).update(back_at_deal=True)
        else:
            Seat.objects.filter(pk=seat.pk).update(away="", back_at_deal=False)
        return _save(load_state(table), timezone.now())


def _own_seat(state: TableState, holder: Holder, index: Any) -> Seat:
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(state.seats):
        raise TableError("bad_seat", _("There is no such seat."))
    seat = state.seats[index]
    if not holder.holds(seat):
        raise TableError("not_your_seat", _("That is not your seat."))
    return seat


def _laundry_done(state: TableState) -> bool:
    return table_rules.laundry_done(
        state.hand_seats, state.table.laundry_ready, [s.away for s in state.seats]
    )


def mark_seen(table_id: int, holder: Holder) -> None:
    """A phone is here: its seats count as connected (a heartbeat: one update, no lock).

    Nothing else is needed, either way: the deadline of a due player is at the latest when her
    grace runs out counted from when she was last heard, so a phone that drops is noticed by
    itself, and a deadline that comes while she is still heard from is re-planned and passes."""
    if not holder.key and holder.user_id is None and holder.guest_id is None:
        return
    seats = [s.pk for s in Seat.objects.filter(table_id=table_id) if holder.holds(s)]
    if seats:
        Seat.objects.filter(pk__in=seats).update(last_seen=timezone.now())


def mark_seen_all(held: Iterable[tuple[int, Holder]]) -> None:
    """The heartbeats of every phone connected to a process, in one `UPDATE`."""
    holders: dict[int, list[Holder]] = {}
    for table_id, holder in held:
        holders.setdefault(table_id, []).append(holder)
    # Plain rows, not model instances: a round reads every seat of the process's tables.
    seats = Seat.objects.filter(table_id__in=list(holders)).values_list(
        "pk", "table_id", "holder_key", "user_id", "guest_id", "bot_level"
    )
    seen = [
        pk
        for pk, table_id, *keys in seats
        if any(h.holds(SeatKeys(*keys)) for h in holders[table_id])
    ]
    if seen:
        Seat.objects.filter(pk__in=seen).update(last_seen=timezone.now())


# -- rubbers ------------------------------------------------------------------------------------


def start_rubber(table_id: int, who: User | Holder) -> int:
    """Any player at the table, or its creator, starts a rubber (or another one with the same
    seats after the last). `who`: a member, or whoever a phone speaks for (a guest too)."""
    holder = who if isinstance(who, Holder) else Holder(user_id=who.pk)
    with transaction.atomic():
        table = _lock(table_id)
        state = load_state(table)
        if not state.held_by(holder) and table.created_by_id != holder.user_id:
            raise TableError("not_allowed", _("Only the players at the table start a rubber."))
        if table.status not in (Table.Status.WAITING, Table.Status.RUBBER_OVER):
            raise TableError("playing", _("A rubber is going on."))
        empty = [seat.index for seat in state.seats if seat.is_free]
        if empty:
            raise TableError("seats_free", _("Every seat needs a player or a computer player."))
        rules = table.rules()
        previous = state.rubber
        if previous is not None and previous.over:
            last = previous.hands.order_by("-number").first()
            assert last is not None and last.result is not None
            dealer = first_dealer_after(last.result, last.seats)
        else:
            dealer = random.SystemRandom().randrange(table.seat_count)
        rubber = Rubber.objects.create(
            table=table,
            number=(previous.number + 1) if previous is not None else 1,
            rules_json=table.rules_json,
            players=[seat.name for seat in state.seats],
            lives=[rules.starting_lives] * table.seat_count,
            dealer=dealer,
        )
        for seat in state.seats:
            RubberPlayer.objects.create(
                rubber=rubber,
                seat=seat.index,
                name=seat.name,
                user_id=seat.user_id,
                guest_id=seat.guest_id,
                bot_level=seat.bot_level,
            )
        table.status = Table.Status.PLAYING
        state = load_state(table)
        now = timezone.now()
        _deal(state, now)
        return _save(state, now)


def _deal(state: TableState, now: datetime) -> bool:
    """The next hand of the rubber; True when it changed a seat's row too (someone back from
    buying a round, or dealt in while away buying one)."""
    assert state.rubber is not None
    rubber_number = state.rubber.number
    back = [s.pk for s in state.seats if s.back_at_deal]
    buying = [s for s in state.seats if s.away == "round" and not s.back_at_deal]
    if back:
        Seat.objects.filter(pk__in=back).update(away="", back_at_deal=False)
    if buying:
        Seat.objects.filter(pk__in=[s.pk for s in buying]).update(round_in_rubber=rubber_number)
    if back or buying:
        # The state's seats may be a snapshot's, shared: read them afresh.
        state.seats = list(Seat.objects.filter(table_id=state.table.pk).order_by("index"))
    rubber = state.engine_rubber()
    # Every hand dealt while she buys a round, she loses no lives (rules.md 3.8).
    hand = rubber.deal(immune=[s.index for s in buying])
    last = state.hand_row
    if last is not None and last.rubber_id == state.rubber.pk:
        number = last.number + 1  # the rubber's latest hand, as load_state reads it
    else:
        number = PlayedHand.objects.filter(rubber=state.rubber).count() + 1
    state.hand_row = PlayedHand.objects.create(
        rubber=state.rubber, number=number, seats=list(rubber.hand_seats), record=hand.record()
    )
    state.hand = hand
    state.hand_seats = list(rubber.hand_seats)
    state.base = None  # a new hand: other processes read it (its cards) from the database
    table = state.table
    table.laundry_ready = []
    table.awaiting_since = now if hand.awaiting else None
    window = seconds("TOEPEN_LAUNDRY_SECONDS")
    # No window (0 seconds, or rules without laundry): the first card may come at once.
    # A slate hand has no window: its laundry lasts until the players write something else.
    timed = hand.laundry and window > 0 and not hand.slate
    table.laundry_until = now + timedelta(seconds=window) if timed else None
    if table.laundry_until is None and hand.laundry and hand.after_laundry().awaiting:
        table.awaiting_since = now  # no window: poverty's answers are due from the deal
    return bool(back or buying)


def _finish_hand(state: TableState, now: datetime) -> None:
    outcome = finish_hand(state, now)
    row, rubber_row = state.hand_row, state.rubber
    assert row is not None and rubber_row is not None
    row.save(update_fields=["complete", "result", "finished_at"])
    rubber_row.save()
    # The players' tallies: a statement per seat that lost lives (and two at a rubber's end),
    # not a read and a write per player.
    players = RubberPlayer.objects.filter(rubber=rubber_row)
    for seat, lost in outcome.lives_lost.items():
        if lost:
            players.filter(seat=seat).update(lives_lost=F("lives_lost") + lost)
    if rubber_row.over:
        players.filter(seat__in=rubber_row.losers).update(lost=True)
        players.filter(seat=rubber_row.winner).update(won=True)
        # The nights hook: standings, rounds owed and ratings are written in this transaction.
        signals.rubber_finished.send(
            sender=Rubber, rubber=rubber_row, table=state.table, hand=row, now=now
        )


# -- actions ------------------------------------------------------------------------------------


def act(
    table_id: int, holder: Holder, seat: int, payload: Mapping[str, Any], action_id: str
) -> Outcome:
    """A player's action from a phone: applied once per `action_id`, or refused with a reason."""
    check_action_id(action_id)
    with transaction.atomic():
        table = _lock(table_id)
        for (version,) in _RECEIPT(table.pk, action_id):
            return Outcome(version, duplicate=True)
        state = editable_state(table)
        now = timezone.now()
        play(state, holder, seat, payload, now)
        version = _save(state, now)
        _NEW_RECEIPT(table.pk, action_id, version, now)
        return Outcome(version)


def check_action_id(action_id: Any) -> None:
    if not isinstance(action_id, str) or not ACTION_ID.match(action_id):
        raise TableError("bad_action", _("An action needs an id of up to 64 letters and digits."))


def play(
    state: TableState,
    holder: Holder,
    seat: Any,
    payload: Mapping[str, Any],
    now: datetime,
    *,
    ending: bool = True,
) -> None:
    """A player's action checked against `state` (the table's seats, its hand, the engine's
    rules) and applied to it; a refusal raises TableError and leaves the database alone.
    `ending=False`: an action that ends the hand raises EndsHand instead of writing the hand's
    result and the next hand's rows."""
    table = state.table
    if table.slate:
        # Its players hold real cards: the slate is written through games/slate.py alone.
        raise TableError("slate_table", _("This table keeps a slate: write on the slate."))
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(state.seats):
        raise TableError("bad_action", _("There is no such seat."))
    if not holder.holds(state.seats[seat]):
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
    _apply(state, action, now, ending=ending)


def check_hand(state: TableState, named: Any) -> None:
    """An action made on the hand `named` ("rubber/hand", as the phone's button carried it; None
    from a caller with no phone) is refused on any other hand: a tap on a frozen screen must
    never land on a hand its player never saw."""
    if named is not None and named != state.hand_name():
        raise TableError("stale_hand", _("That was meant for an earlier hand."))


def ready(table_id: int, holder: Holder, seat: int, hand: str | None = None) -> int:
    """A player is done with the laundry; when every seat is, the window closes early."""
    with transaction.atomic():
        table = _lock(table_id)
        state = load_state(table)
        if not 0 <= seat < len(state.seats) or not holder.holds(state.seats[seat]):
            raise TableError("not_your_seat", _("That is not your seat."))
        check_hand(state, hand)
        now = timezone.now()
        if not state.laundry_open(now):
            raise TableError("laundry_closed", _("The laundry is over."))
        _mark_ready(state, seat)
        return _save(state, now)


def _mark_ready(state: TableState, seat: int) -> None:
    table = state.table
    if seat not in table.laundry_ready:
        table.laundry_ready = [*table.laundry_ready, seat]
    if _laundry_done(state):
        table.laundry_until = None


class EndsHand(Exception):
    """The action ends the hand, which writes more than the table and the hand's record."""


def _apply(state: TableState, action: Action, now: datetime, *, ending: bool = True) -> None:
    """The table's own rules around the engine's, then the engine, then the stored record."""
    hand, row, table = state.hand, state.hand_row, state.table
    assert hand is not None and row is not None
    try:
        table_rules.check_window(action, state.laundry_open(now))
    except table_rules.Refused as refused:
        raise TableError(refused.code, refusal_message(refused)) from None
    if action.act not in LAUNDRY_ACTS and hand.laundry:
        # The window closed without an action: the engine's laundry ends with this one.
        table.laundry_until = None
    # An action after the laundry window ends the engine's laundry first, and with it come the
    # poverty answers, due since the window closed (not from this action on).
    ending_laundry = hand.laundry and action.act not in LAUNDRY_ACTS
    was_awaiting = bool((hand.after_laundry() if ending_laundry else hand).awaiting)
    try:
        hand.apply(action)
    except IllegalAction as error:
        raise TableError(error.code, engine_message(error)) from None
    row.record["actions"].append(action.to_json())
    state.record_changed = True  # written with the table's fields (_save)
    if action.act == "exchange":
        table.laundry_until = max(
            table.laundry_until or now, now + timedelta(seconds=seconds("TOEPEN_CHALLENGE_SECONDS"))
        )
        # Computer players look again (to challenge it); people who said ready stay ready.
        exchanger = state.table_seat(action.seat)
        table.laundry_ready = [
            s for s in table.laundry_ready if s != exchanger and not state.seats[s].bot_level
        ]
    if hand.awaiting and not was_awaiting:
        table.awaiting_since = now
    elif not hand.awaiting:
        table.awaiting_since = None
    if hand.complete:
        if not ending:
            raise EndsHand
        _finish_hand(state, now)


# -- deadlines ----------------------------------------------------------------------------------


class _NothingChanged(Exception):
    """A step that only noted something (a computer player declined an offer): no new version."""


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
    observation = dataclasses.replace(observation, legal=tuple(legal))
    bot = players.bot_for(
        state.table.pk, state.rubber.number, step.seat, state.seats[step.seat].bot_level
    )
    return players.decide(bot, observation, state.rules)


def _carry_out(state: TableState, step: Step, now: datetime, decision: Action | None) -> None:
    hand = state.hand
    if step.kind == "deal":
        if not _deal(state, now):
            # The rubber and the seats are as the hand's end left them: other processes read
            # only the new hand.
            state.dealt_from = state.table.version
    elif step.kind == "close_laundry":
        state.table.laundry_until = None
        assert hand is not None
        # The answers the end of the laundry makes due (poverty) are due from now.
        if hand.laundry and hand.after_laundry().awaiting:
            state.table.awaiting_since = now
    elif step.kind == "close_answers":
        # The simultaneous window closed: whoever has not answered stays (rules.md 3.5).
        assert hand is not None
        for hand_seat in list((hand.after_laundry() if hand.laundry else hand).awaiting):
            _apply(state, Action(hand_seat, "stay", auto=True), now)
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
            raise _NothingChanged
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
    if seat.away or not state.rules.away_conventions:
        return
    silent_since = now - timedelta(seconds=seconds("TOEPEN_GRACE_SECONDS"))
    if seat.last_seen is not None and seat.last_seen > silent_since:
        return  # her turn clock ran out, her phone is here: she is not away
    Seat.objects.filter(pk=seat.pk).update(away="break")
    # The state's seats may be a snapshot's, shared: a copy of the list and of her seat.
    changed = copy.copy(seat)
    changed.away = "break"
    state.seats = [changed if s is seat else s for s in state.seats]
    state.base = None  # more than the hand's actions changed: other processes read the table


def fire_deadline(table_id: int, now: datetime | None = None) -> bool:
    """Do what the table must do by itself at `now`; True when it changed. Raises Busy, at
    once, when another transaction holds the table's row.

    A computer player thinks before the table is locked; its move is applied only if the table
    has not changed meanwhile (else the new state has its own deadline, and the clock comes back).
    """
    now = now or timezone.now()
    with one_snapshot():
        table = next(iter(_TABLE(table_id)), None)
        if table is None or table.deadline_at is None or table.deadline_at > now:
            return False
        current = read_state(table)  # this version's snapshot: planning and thinking only read
    planned = _due_step(current, now)
    decision = None
    if planned is not None and planned.kind in BOT_STEPS:
        decision = _think(current, planned)
    with transaction.atomic():
        locked = next(iter(_CLAIMED(table_id)), None)
        if locked is None:
            # Another transaction holds the row (or the table is gone): a stuck one must not
            # stop the clock, which fires the other tables and comes back to this one.
            raise Busy
        if locked.version != table.version or locked.deadline_at is None:
            return False
        state = editable_state(locked)
        step = _due_step(state, now)
        if step is None:
            _save(state, now, changed=False)
            return False
        if step != planned:
            decision = None
            if step.kind in BOT_STEPS:
                return False  # think again, unlocked, on the next tick
        try:
            with transaction.atomic():
                _carry_out(state, step, now, decision)
                _save(state, now)
        except _NothingChanged:
            locked.bots_offered = state.table.bots_offered
            locked.save(update_fields=["bots_offered"])
            _save(state, now, changed=False)
            return False
        except TableError:
            # Should not happen (the plan and the engine agree); never spin on it: retry later.
            log.exception("table %s: a deadline could not be carried out", table_id)
            locked.deadline_at = now + timedelta(seconds=5)
            locked.save(update_fields=["deadline_at"])
            return False
        return True


def due_tables(now: datetime | None = None) -> list[int]:
    now = now or timezone.now()
    return list(
        Table.objects.filter(deadline_at__lte=now)
        .order_by("deadline_at")
        .values_list("pk", flat=True)[:100]
    )
