"""Rubbers and hands: a rubber started, a hand dealt, a hand's end and a rubber's."""

from __future__ import annotations

from datetime import datetime

from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games.engine import table as table_rules
from games.engine.rubber import first_dealer
from games.models import (
    PlayedHand,
    Rubber,
    RubberPlayer,
    Table,
)
from games.services import events, store
from games.services.changes.decide import (
    Make,
    TableError,
    change,
    changed_seat,
    check_door,
    set_windows,
)
from games.services.changes.seats import own_seat
from games.services.conf import pace
from games.services.refusals import refusal_message
from games.services.state import Holder, TableState, finish_hand


def start_rubber(table_id: int, who: User | Holder, *, slate: bool = False) -> int:
    """Any player at the table, or its creator, starts a rubber (or another one with the same
    seats after the last). `who`: a member, or whoever a phone speaks for (a guest too);
    `slate`: asked by the slate's service for its keeper (`check_door`)."""
    holder = who if isinstance(who, Holder) else Holder(user_id=who.pk)
    return change(table_id, starting(holder, slate=slate)).version


def starting(holder: Holder, *, slate: bool = False) -> Make:
    """The decision of `start_rubber`, for the decider."""

    def make(state: TableState, now: datetime) -> None:
        table = state.table
        check_door(table, slate)
        if not state.held_by(holder) and table.created_by_id != holder.user_id:
            raise TableError("not_allowed", _("Only the players at the table start a rubber."))
        free = any(seat.is_free for seat in state.seats)
        refused = table_rules.start_refusal(table.status, free)
        if refused is not None:
            raise TableError(refused.code, refusal_message(refused))
        rules = state.rules
        previous, last = state.rubber, state.hand_row
        if previous is None or not previous.over or last is None or last.rubber_id != previous.pk:
            last = None
        # After a rubber at these seats its last hand (the state's) names the first dealer;
        # else the engine draws one.
        result, seats = (last.result, last.seats) if last is not None else (None, ())
        dealer = first_dealer(table.seat_count, result, seats)
        rubber = Rubber(
            table=table,
            number=(previous.number + 1) if previous is not None else 1,
            rules_json=table.rules_json,
            players=[seat.name for seat in state.seats],
            lives=[rules.starting_lives] * table.seat_count,
            dealer=dealer,
            pot_stake=rules.pot_stake,
            currency=table.club.currency if rules.pot else "EUR",
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
        deal(state, now)

    return make


def deal(state: TableState, now: datetime, *, again: bool = False) -> bool:
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
        changed_seat(state, index, away="", back_at_deal=False)
    for index in buying:
        changed_seat(state, index, round_in_rubber=rubber_number)
    rubber = state.engine_rubber()
    # A hand names who sits in it now: a computer player that took a seat mid-rubber plays its
    # hands under its own name, never under the name of the player who got up.
    rubber.players = [seat.name for seat in state.seats]
    # The hand dealt while she buys a round, she loses no lives (rules.md 3.8); it is the one
    # hand her round covers (`end_hand`).
    hand = rubber.deal(immune=buying)
    last = state.hand_row
    if again:
        assert last is not None
        row = last
        row.record = hand.record()
        state.record_changed = True  # written with the table's fields (the store's claim)
        if row.seats != list(rubber.hand_seats):
            # Dealt to one player more: she bought back in (rules.md 3.10).
            row.seats = list(rubber.hand_seats)
            store.with_update(state, row, seats=row.seats)
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
    set_windows(state, table_rules.dealt(hand, pace(), now))
    return bool(back or buying)


def end_hand(state: TableState, now: datetime) -> None:
    """The end of the hand: its result, the rubber as it leaves it and the players' tallies,
    written with the change; and a round bought for this hand over (rules.md 3.8)."""
    hand = state.hand
    assert hand is not None
    for hand_seat, index in enumerate(state.hand_seats):
        seat = state.seats[index]
        if hand.immune[hand_seat] and seat.away == "round":
            away = table_rules.away_after_round(seat.back_at_deal)
            changed_seat(state, index, away=away, back_at_deal=False)
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


def buy_back(table_id: int, holder: Holder, index: int) -> int:
    """A player who went out in the hand just over buys back in before the next deal, once
    more putting the stake into the pot (rules.md 3.10); refused with why where the rules do
    not allow it."""
    return change(table_id, buying_back(holder, index)).version


def buying_back(holder: Holder, index: int) -> Make:
    """The decision of `buy_back`, for the decider."""

    def make(state: TableState, now: datetime) -> None:
        check_door(state.table)
        own_seat(state, holder, index)
        buy_in(state, index, now)

    return make


def buy_in(state: TableState, index: int, now: datetime) -> None:
    """Seat `index`'s player buys back in, or it is refused with why: the change of `buy_back`
    and of the slate's keepers (games/services/slate.py), whose next hand, opened with nothing
    written on it yet, is dealt again with her in it."""
    refused = state.buy_back_refusal(index)
    if refused is not None:
        raise TableError(refused.code, buy_back_refusal_message(refused.code))
    rubber_row, hand_row = state.rubber, state.hand_row
    assert rubber_row is not None and hand_row is not None
    hand = state.hand
    slate_hand_open = hand is not None and not hand.complete and not table_rules.under_way(hand)
    # The hand it comes before: the one the slate opened, or the next to be dealt.
    before = hand_row.number if slate_hand_open else hand_row.number + 1
    engine = state.engine_rubber(with_hand=False)
    engine.buy_back(index, before)
    rubber_row.lives = list(engine.lives)
    rubber_row.buy_backs = [[seat, number] for seat, number in engine.buy_backs]
    store.with_update(state, rubber_row, lives=rubber_row.lives, buy_backs=rubber_row.buy_backs)
    state.base = None  # more than the hand's actions changed: other processes read the table
    if slate_hand_open:
        deal(state, now, again=True)


def buy_back_refusal_message(code: str) -> str:
    """A refused buying back in, in the reader's words."""
    messages = {
        "no_buy_back": _("These rules have no buying back in."),
        "rubber_over": _("The rubber is over."),
        "not_between_hands": _("You buy back in between hands, before the next deal."),
        "not_out": _("Only a player who just went out buys back in."),
        "buy_backs_used": _("You have bought back in as often as the rules allow."),
        "too_few_left": _("Buying back in needs two other players still in."),
        "computer_player": _("A computer player never buys back in."),
        "away": _("A player who is away does not buy back in."),
    }
    return str(messages.get(code, _("You cannot buy back in now.")))
