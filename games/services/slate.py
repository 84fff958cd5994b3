"""Slate tables: a club plays with real cards and one phone (or several) keeps the slate.

The slate's changes go through here, each one change of tables.py (decided on the table
as one version left it and written at that version; its deal and end of a hand). A keeper
writes for every player: an entry names the table seat it is FOR, carries an id (applied once,
`ActionReceipt`) and the hand it was made on. Every life is the engine's: the hand is a slate
hand (rules.md 3.9), replayed from its record, and an undo drops the record's last action and
replays, so nothing is ever worked out beside the engine.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from accounts.models import DISPLAY_NAME_MAX, User
from accounts.names import clean_name
from clubs.models import Club, HouseRuleProfile
from games.engine import Action, BadRecord, IllegalAction, parse_action, parse_record, replayed
from games.engine.pot import lives_bought
from games.engine.rubber import Rubber as EngineRubber
from games.models import PlayedHand, RubberPlayer, Seat, SlateKeepers, Table
from games.services import store
from games.services.access import is_member
from games.services.changes.decide import (
    Make,
    Outcome,
    TableError,
    change,
    changed_seat,
    check_door,
)
from games.services.changes.play import check_action_id, check_hand
from games.services.changes.rubbers import buy_in, deal, end_hand, start_rubber, starting
from games.services.changes.seats import night_now, step_away, step_back, table_rules_of
from games.services.refusals import REASONS, engine_message
from games.services.state import Holder, TableState, take_hand

# A slate seat's `holder_key`: the seat is taken (a player sits there) but no phone holds it;
# no browser's key is ever this (theirs are random tokens).
SLATE_HOLDER = "slate"

# What an entry may say, as the frame names it (rules.md 3.9: no card, no announcement).
SLATE_ACTS = ("knock", "stay", "fold", "exchange", "challenge", "last_trick")


@dataclass(frozen=True)
class SlatePlayer:
    """A player at a slate table: a member of the club, or a guest known by name alone."""

    name: str
    user: User | None = None


def may_keep(table: Table, user: Any) -> bool:
    """Whether `user` (perhaps anonymous) may write on `table`'s slate; anyone with its code
    may follow it."""
    if table.slate_keepers == SlateKeepers.ANYONE:
        return True
    member = user if user is not None and user.is_authenticated else None
    if member is None:
        return False
    if table.slate_keepers == SlateKeepers.MEMBERS:
        return is_member(member, table.club)
    return bool(table.created_by_id == member.pk)


def create_slate_table(
    *,
    club: Club,
    user: User,
    players: Sequence[SlatePlayer],
    profile: HouseRuleProfile | None = None,
    keepers: str = SlateKeepers.CREATOR,
) -> Table:
    """A member opens a slate table for the club, with the rules of `profile` (default: the
    club's) and its players in their seats in order; the first rubber starts at once."""
    profile, rules = table_rules_of(club, user, profile, len(players))
    if keepers not in SlateKeepers.values:
        raise TableError("bad_keepers", _("Choose who keeps the slate."))
    try:
        required = str(_("Every player needs a name."))
        names = [clean_name(player.name, DISPLAY_NAME_MAX, required) for player in players]
    except ValidationError as error:
        raise TableError("bad_name", error.messages[0]) from None
    if len(set(names)) != len(names):
        raise TableError("bad_name", _("Two players cannot have the same name."))
    members = [player.user for player in players if player.user is not None]
    if any(not is_member(member, club) for member in members) or len(set(members)) != len(members):
        raise TableError("bad_player", _("A player picked from the club must be its member."))
    with transaction.atomic():
        table = Table.objects.create(
            club=club,
            created_by=user,
            profile=profile,
            profile_name=profile.name if profile is not None else "Classic",
            rules_json=rules.to_json(),
            seat_count=len(players),
            night=night_now(club),
            slate=True,
            slate_keepers=keepers,
        )
        Seat.objects.bulk_create(
            Seat(table=table, index=index, name=name, user=player.user, holder_key=SLATE_HOLDER)
            for index, (name, player) in enumerate(zip(names, players, strict=True))
        )
        start_rubber(table.pk, user, slate=True)
    table.refresh_from_db()
    return table


def _check_keeper(table: Table, user: Any) -> None:
    """Refused unless `table` is a slate table and `user` may keep its slate."""
    check_door(table, slate=True)
    if not may_keep(table, user):
        raise TableError("not_keeper", _("You may follow this slate, not write on it."))
    if table.status == Table.Status.CLOSED:
        raise TableError("closed", _("This table is closed."))


def check_named_hand(state: TableState, named: Any) -> None:
    """Every change on the slate names the hand it was made on ("rubber/hand"): one that names
    none (an old phone's frame, a forged one) is refused as a stale hand is, never applied to
    the hand under way."""
    if not isinstance(named, str):
        raise TableError("stale_hand", _("That was meant for an earlier hand."))
    check_hand(state, named)


def _refusal(state: TableState, seat: int, error: IllegalAction) -> TableError:
    """The engine's refusal, with its finer reason (a knock over the lives, the knock limit),
    and the name of the player it was written for."""
    reason = REASONS.get(error.reason or "") or engine_message(error)
    name = state.seats[seat].name
    return TableError(error.code, format_lazy("{name}: {reason}", name=name, reason=reason))


def write(table_id: int, user: Any, frame: Mapping[str, Any], action_id: Any) -> Outcome:
    """An entry on the slate (`frame`: `act`, `seat` it is for, `target` and `clean` for a
    challenge, `hand` it was made on), applied once per `action_id` or refused with a reason."""
    check_action_id(action_id)
    return change(table_id, writing(user, frame), action_id)


def writing(user: Any, frame: Mapping[str, Any]) -> Make:
    """The decision of `write`, for the decider."""

    def make(state: TableState, now: datetime) -> None:
        _check_keeper(state.table, user)
        _write(state, frame, now)

    return make


def _seat(state: TableState, frame: Mapping[str, Any]) -> int:
    """The table seat an entry is for."""
    seat = frame.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(state.seats):
        raise TableError("bad_action", _("There is no such seat."))
    return seat


def _write(state: TableState, frame: Mapping[str, Any], now: datetime) -> None:
    hand, row, table = state.hand, state.hand_row, state.table
    if table.status != Table.Status.PLAYING or hand is None or row is None or hand.complete:
        raise TableError("hand_over", _("No hand is being played."))
    check_named_hand(state, frame.get("hand"))
    seat = _seat(state, frame)
    hand_seat = state.hand_seat(seat)
    if hand_seat is None:
        raise TableError("out", _("That player is out of this rubber."))
    if frame.get("act") not in SLATE_ACTS:
        raise TableError("bad_action", _("The slate keeps no such entry."))
    data: dict[str, Any] = {"seat": hand_seat, "act": frame["act"]}
    for key in ("target", "clean"):
        if key in frame:
            data[key] = frame[key]
    target = data.get("target")
    if isinstance(target, int) and not isinstance(target, bool):
        mapped = state.hand_seat(target) if 0 <= target < len(state.seats) else None
        data["target"] = mapped if mapped is not None else -1
    try:
        action = parse_action(data, hand.n, slate=True)
    except BadRecord as error:
        raise TableError(
            "bad_action",
            format_lazy(_("That action is not understood: {detail}"), detail=error.message),
        ) from None
    try:
        hand.apply(action)
    except IllegalAction as error:
        raise _refusal(state, seat, error) from None
    row.record["actions"].append(action.to_json())
    state.record_changed = True
    if hand.complete:
        # The slate shows what the hand cost whom, with its undo, until a keeper opens the
        # next one (`next_hand`).
        end_hand(state, now)


def next_hand(table_id: int, user: Any, named: Any, action_id: Any) -> Outcome:
    """A keeper opens the next hand of the rubber once the slate has shown what the last one
    cost whom (`named`: the finished hand, as the slate showed it), applied once per
    `action_id`; its real cards are dealt at the table."""
    check_action_id(action_id)
    return change(table_id, dealing_next_hand(user, named), action_id)


def dealing_next_hand(user: Any, named: Any) -> Make:
    """The decision of `next_hand`, for the decider."""

    def make(state: TableState, now: datetime) -> None:
        _check_keeper(state.table, user)
        check_named_hand(state, named)
        hand = state.hand
        if state.table.status != Table.Status.PLAYING or hand is None or not hand.complete:
            raise TableError("not_over", _("This hand is not over yet."))
        deal(state, now)

    return make


def go_away(table_id: int, user: Any, frame: Mapping[str, Any], action_id: Any) -> Outcome:
    """A keeper writes that a player is away (rules.md 3.8; `frame`: `seat`, `reason` "break"
    or "round", and `hand`), applied once per `action_id` or refused with a reason. The table
    folds for her when her answer is due (games/engine/table.py); buying a round she is immune
    in the one hand dealt next, and makes nothing of her own in it."""
    check_action_id(action_id)
    return change(table_id, going_away(user, frame), action_id)


def going_away(user: Any, frame: Mapping[str, Any]) -> Make:
    """The decision of `go_away`, for the decider."""
    reason = frame.get("reason")
    return _away(user, frame, reason if isinstance(reason, str) else "")


def come_back(table_id: int, user: Any, frame: Mapping[str, Any], action_id: Any) -> Outcome:
    """A keeper writes that a player is back (`frame`: `seat`, `hand`): from a break at once,
    from buying a round at the next deal."""
    check_action_id(action_id)
    return change(table_id, coming_back(user, frame), action_id)


def coming_back(user: Any, frame: Mapping[str, Any]) -> Make:
    """The decision of `come_back`, for the decider."""
    return _away(user, frame, None)


def _away(user: Any, frame: Mapping[str, Any], reason: str | None) -> Make:
    """Away for `reason`, or back (None). A slate hand with nothing on it yet is between
    hands: its real cards are still to come, so it is dealt again when a round is bought or
    its buyer is back."""

    def make(state: TableState, now: datetime) -> None:
        _check_keeper(state.table, user)
        check_named_hand(state, frame.get("hand"))
        index = _seat(state, frame)
        was = state.seats[index].away
        try:
            if reason is None:
                step_back(state, index)
            else:
                step_away(state, index, reason, now)
        except TableError as error:
            name = state.seats[index].name
            raise TableError(
                error.code, format_lazy("{name}: {reason}", name=name, reason=error.message)
            ) from None
        fresh = state.hand is not None and not state.hand.complete and not state.hand_under_way()
        if fresh and "round" in (was, state.seats[index].away):
            if reason is None and not _bought_before(state, index):
                # Back before a hand was dealt to her while buying: no round bought yet.
                changed_seat(state, index, round_in_rubber=0)
            deal(state, now, again=True)

    return make


def buy_back(table_id: int, user: Any, frame: Mapping[str, Any], action_id: Any) -> Outcome:
    """A keeper writes that a player who went out in the hand just over buys back in
    (rules.md 3.10; `frame`: `seat`, `hand`), applied once per `action_id`: before the next
    hand's first entry (a hand opened with nothing on it is dealt again with her in it)."""
    check_action_id(action_id)
    return change(table_id, buying_back(user, frame), action_id)


def buying_back(user: Any, frame: Mapping[str, Any]) -> Make:
    """The decision of `buy_back`, for the decider."""

    def make(state: TableState, now: datetime) -> None:
        _check_keeper(state.table, user)
        check_named_hand(state, frame.get("hand"))
        index = _seat(state, frame)
        try:
            buy_in(state, index, now)
        except TableError as error:
            name = state.seats[index].name
            raise TableError(
                error.code, format_lazy("{name}: {reason}", name=name, reason=error.message)
            ) from None

    return make


def _bought_before(state: TableState, index: int) -> bool:
    """Whether the hand before the one under way was dealt to seat `index` while she bought
    a round (immune)."""
    row = state.hand_row
    assert row is not None and state.rubber is not None
    before = PlayedHand.objects.filter(rubber=state.rubber, number=row.number - 1).first()
    if before is None or index not in before.seats:
        return False
    return before.seats.index(index) in before.record.get("immune", [])


@dataclass(frozen=True)
class Counted:
    """Entries counted on one slate hand: the engine's actions, and the hand's players' names
    and table seats (by hand seat)."""

    actions: list[Action]
    names: list[str]
    seats: list[int]


def counted_since(table_id: int, named_hand: Any, base: Any) -> Counted:
    """The entries counted on the hand `named_hand` ("rubber/hand") from its `base`-th on: what
    a phone that entered something on that hand, having seen `base` entries counted, did not
    see (written on another phone meanwhile, or by the table), shown beside a refusal. Nothing
    for a hand or a base that does not name one."""
    named = named_hand if isinstance(named_hand, str) else ""
    found = re.fullmatch(r"(\d{1,9})/(\d{1,9})", named)
    if found is None or not isinstance(base, int) or isinstance(base, bool) or base < 0:
        return Counted([], [], [])
    row = PlayedHand.objects.filter(
        rubber__table_id=table_id, rubber__number=int(found[1]), number=int(found[2])
    ).first()
    if row is None:
        return Counted([], [], [])
    hand, actions = parse_record(row.record)
    return Counted(actions[base:], list(hand.players), list(row.seats))


def undo(table_id: int, user: Any, named: Any, action_id: Any) -> Outcome:
    """One step back: the last entry of the hand under way; from the first entry of a hand,
    back into the last finished hand of the rubber, reopened as it was before its last entry.
    The records are kept as they are after the undo, and the rubber's lives are the engine's
    from its hands' records."""
    check_action_id(action_id)
    return change(table_id, undoing(user, named), action_id)


def undoing(user: Any, named: Any) -> Make:
    """The decision of `undo`, for the decider."""

    def make(state: TableState, now: datetime) -> None:
        table = state.table
        _check_keeper(table, user)
        if state.rubber is None or state.hand_row is None:
            raise TableError("nothing_to_undo", _("There is nothing to undo."))
        check_named_hand(state, named)
        hands = list(PlayedHand.objects.filter(rubber=state.rubber).order_by("number"))
        row = hands[-1]
        if not row.record["actions"]:
            if len(hands) < 2:
                raise TableError("nothing_to_undo", _("There is nothing to undo."))
            store.with_work(state, row.delete)
            hands.pop()
            row = hands[-1]
        actions = row.record["actions"]
        row.record = {**row.record, "actions": actions[:-1]}
        row.complete, row.result, row.finished_at = False, None, None
        store.with_update(
            state, row, record=row.record, complete=False, result=None, finished_at=None
        )
        _rebuild_rubber(state, hands)
        table.status = Table.Status.PLAYING
        table.laundry_until = table.awaiting_since = None
        take_hand(state, row)
        state.base = None

    return make


def _rebuild_rubber(state: TableState, hands: list[PlayedHand]) -> None:
    """The rubber's lives, dealer, end and tallies as its finished `hands` leave them, each
    replayed by the engine from its record (written with the change)."""
    rubber_row = state.rubber
    assert rubber_row is not None
    first = hands[0]
    rubber = EngineRubber(
        state.rules,
        list(rubber_row.players),
        dealer=first.seats[first.record["dealer"]],
        lives=[state.rules.starting_lives] * len(rubber_row.players),
        number=rubber_row.number,
        slate=True,
    )
    lost = [0] * rubber.n
    # Buying back in before a hand the undo dropped is undone with it (its stake given back).
    kept = hands[-1].number
    bought = [(int(seat), int(before)) for seat, before in rubber_row.buy_backs if before <= kept]
    for row in hands:
        for seat, before in bought:
            if before == row.number:
                rubber.lives[seat] = lives_bought(rubber.lives, seat)
                rubber.buy_backs.append((seat, before))
        if not row.complete:
            continue
        hand = replayed(row.record)
        rubber.hand, rubber.hand_seats = hand, tuple(row.seats)
        for seat, lives in rubber.finish_hand().lives_lost.items():
            lost[seat] += lives
    rubber_row.lives = rubber.lives
    rubber_row.dealer = rubber.dealer
    rubber_row.over, rubber_row.winner = rubber.over, rubber.winner
    rubber_row.losers = list(rubber.losers)
    rubber_row.went_out = list(rubber.went_out)
    rubber_row.buy_backs = [[seat, before] for seat, before in rubber.buy_backs]
    rubber_row.pot_takers = list(rubber.pot_takers)
    rubber_row.finished_at = None

    def write() -> None:
        rubber_row.save()
        for player in RubberPlayer.objects.filter(rubber=rubber_row):
            player.lives_lost = lost[player.seat]
            player.won = player.lost = False
            player.save(update_fields=["lives_lost", "won", "lost"])

    store.with_work(state, write)


def next_rubber(table_id: int, user: Any) -> int:
    """A keeper starts the next rubber with the same players, once the last is over."""
    return change(table_id, starting_next_rubber(user)).version


def starting_next_rubber(user: Any) -> Make:
    """The decision of `next_rubber`, for the decider: the rubber started as its creator
    would (`start_rubber`)."""

    def make(state: TableState, now: datetime) -> None:
        table = state.table
        _check_keeper(table, user)
        if table.status != Table.Status.RUBBER_OVER:
            raise TableError("playing", _("A rubber is going on."))
        starting(Holder(user_id=table.created_by_id), slate=True)(state, now)

    return make
