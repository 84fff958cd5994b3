"""Away from the table (rules.md 3.8): a break, buying a round, and back."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db.models import F
from django.utils import timezone

from games.engine import TOURNAMENT, Hand, HouseRules
from games.models import PlayedHand, Rubber, Seat, Table
from games.services import tables
from games.services.tables import TableError
from tests.personas import Cast
from tests.tables import clock_plays, four_people_table, people, state_of

pytestmark = pytest.mark.django_db(transaction=True)

LATER = timedelta(hours=1)


def act(klaver: Cast, table: Table, seat: int, **payload) -> None:
    tables.act(table.pk, people(klaver)[seat].holder, seat, payload, uuid.uuid4().hex)


def step(table: Table) -> bool:
    """Whatever the table does by itself next (its deadlines all passed)."""
    return clock_plays(table.pk, timezone.now() + LATER)


def play_out_the_hand(klaver: Cast, table: Table, away: int) -> PlayedHand:
    """Everyone plays her first playable card; the table plays for the one away."""
    number = state_of(table).hand_row.number
    for _ in range(100):
        state = state_of(table)
        if state.hand_row.number != number or state.hand.complete:
            return PlayedHand.objects.get(rubber__table=table, number=number)
        due = state.table_seat(state.hand.due()[0])
        if due == away:
            assert step(table)
            continue
        legal = state.hand.legal_actions(state.hand_seat(due))
        action = next(a for a in legal if a.act in ("play", "stay"))
        act(klaver, table, due, **{k: v for k, v in action.to_json().items() if k != "seat"})
    raise AssertionError("the hand did not end")


def test_a_round_covers_the_one_hand_dealt_next_and_then_she_is_on_a_break(klaver: Cast) -> None:
    table = four_people_table(klaver, HouseRules(starting_lives=10))
    buyer = 2
    who = people(klaver)[buyer].holder
    with pytest.raises(TableError) as refused:
        tables.go_away(table.pk, who, buyer, "round")
    assert refused.value.code == "not_between_hands"  # a hand is under way
    play_out_the_hand(klaver, table, away=-1)
    # Between the first hand and the next deal: she goes to buy a round.
    tables.go_away(table.pk, who, buyer, "round")
    lives = state_of(table).rubber.lives[buyer]
    assert step(table)  # the next deal: she is dealt in, immune
    state = state_of(table)
    assert state.hand_seat(buyer) in state.hand_row.record["immune"]
    # She makes no action of her own in it: no knock offered, and none taken.
    assert all(a.auto for a in state.hand.legal_actions(state.hand_seat(buyer)))
    with pytest.raises(TableError) as refused:
        act(klaver, table, buyer, act="knock")
    assert refused.value.code == "immune"
    played = play_out_the_hand(klaver, table, away=buyer)
    mine = [a for a in played.record["actions"] if a["seat"] == played.seats.index(buyer)]
    assert mine and all(a.get("auto") is True for a in mine)
    assert state_of(table).rubber.lives[buyer] == lives  # not a life lost in her round
    # Her round is over: not back, she is on a break, dealt in and not immune.
    assert Seat.objects.get(table=table, index=buyer).away == "break"
    assert step(table)
    state = state_of(table)
    assert state.hand_seat(buyer) not in state.hand_row.record.get("immune", [])
    played = play_out_the_hand(klaver, table, away=buyer)
    assert Seat.objects.get(table=table, index=buyer).away == "break"
    # Back: she plays her own cards again; and a round is bought once a rubber.
    tables.come_back(table.pk, who, buyer)
    assert Seat.objects.get(table=table, index=buyer).away == ""
    with pytest.raises(TableError) as refused:
        tables.go_away(table.pk, who, buyer, "round")
    assert refused.value.code == "round_bought"


def test_back_during_her_round_she_plays_from_the_next_deal(klaver: Cast) -> None:
    table = four_people_table(klaver, HouseRules(starting_lives=10))
    buyer = 1
    who = people(klaver)[buyer].holder
    play_out_the_hand(klaver, table, away=-1)
    tables.go_away(table.pk, who, buyer, "round")
    assert step(table)
    tables.come_back(table.pk, who, buyer)  # during the hand of her round
    state = state_of(table)
    assert all(a.auto for a in state.hand.legal_actions(state.hand_seat(buyer)))
    play_out_the_hand(klaver, table, away=buyer)
    assert Seat.objects.get(table=table, index=buyer).away == ""
    assert step(table)
    state = state_of(table)
    assert state.hand_seat(buyer) not in state.hand_row.record.get("immune", [])
    assert not state.seats[buyer].away


def test_on_a_break_a_knock_folds_her_and_the_record_says_the_table_did(klaver: Cast) -> None:
    table = four_people_table(klaver)
    state = state_of(table)
    knocker = next(
        s
        for s in range(4)
        if any(a.act == "knock" for a in state.hand.legal_actions(state.hand_seat(s)))
    )
    away = next(s for s in range(4) if s != knocker)
    tables.go_away(table.pk, people(klaver)[away].holder, away, "break")
    act(klaver, table, knocker, act="knock")
    for _ in range(10):
        state = state_of(table)
        if state.hand_seat(away) not in state.hand.awaiting:
            break
        due = state.table_seat(state.hand.due()[0])
        if due == away:
            assert step(table)
        else:
            act(klaver, table, due, act="stay")
    record = state_of(table).hand_row.record["actions"]
    folds = [a for a in record if a["act"] == "fold" and a["seat"] == state.hand_seat(away)]
    assert folds == [{"seat": state.hand_seat(away), "act": "fold", "auto": True}]


def test_back_from_a_break_mid_hand_she_plays_her_own_cards(klaver: Cast) -> None:
    table = four_people_table(klaver)
    state = state_of(table)
    due = state.table_seat(state.hand.due()[0])
    tables.go_away(table.pk, people(klaver)[due].holder, due, "break")
    assert step(table)  # the table plays her card
    assert state_of(table).hand_row.record["actions"][-1].get("auto") is True
    tables.come_back(table.pk, people(klaver)[due].holder, due)
    for _ in range(20):
        state = state_of(table)
        other = state.table_seat(state.hand.due()[0])
        if other == due:
            break
        legal = state.hand.legal_actions(state.hand_seat(other))
        card = next(a for a in legal if a.act == "play")
        act(klaver, table, other, act="play", card=card.to_json()["card"])
    # Her turn again: the table leaves it to her (her turn clock is far off) and she plays.
    before = state_of(table).table.version
    tables.fire_deadline(table.pk, timezone.now() + timedelta(seconds=5))
    assert state_of(table).table.version == before
    state = state_of(table)
    card = next(a for a in state.hand.legal_actions(state.hand_seat(due)) if a.act == "play")
    act(klaver, table, due, act="play", card=card.to_json()["card"])
    assert "auto" not in state_of(table).hand_row.record["actions"][-1]


def test_tournament_rules_have_no_breaks(klaver: Cast) -> None:
    table = four_people_table(klaver, TOURNAMENT)
    with pytest.raises(TableError) as refused:
        tables.go_away(table.pk, people(klaver)[1].holder, 1, "break")
    assert refused.value.code == "no_away"
    with pytest.raises(TableError) as refused:
        tables.come_back(table.pk, people(klaver)[1].holder, 1)
    assert refused.value.code == "not_away"


def test_poverty_answers_fall_due_together_when_the_laundry_window_closes(klaver: Cast) -> None:
    """At a simultaneous table a poverty hand's answers are all due once the laundry window
    closes with nobody having acted: the table folds at once for a player who is away, and the
    answer window closes response_seconds after the laundry's, with a stay for the silent."""
    rules = HouseRules(poverty="stake_two", response_order="simultaneous", response_seconds=8)
    table = four_people_table(klaver, rules)
    # The hand as dealt with seat 0 on her last life: a poverty hand, its laundry window open.
    start = timezone.now()
    hand = Hand.deal(rules, [1, 10, 10, 10], 0, 11, players=["anna", "bram", "cas", "dirk"])
    assert hand.poverty and hand.laundry and not hand.awaiting
    PlayedHand.objects.filter(rubber__table=table).update(record=hand.record(), seats=[0, 1, 2, 3])
    Rubber.objects.filter(table=table).update(lives=[1, 10, 10, 10])
    Table.objects.filter(pk=table.pk).update(
        version=F("version") + 1, changed_at=start, laundry_until=start + timedelta(seconds=5)
    )
    away = 3
    tables.go_away(table.pk, people(klaver)[away].holder, away, "break")
    # The window closes: the three answers are due now, together.
    assert tables.fire_deadline(table.pk, start + timedelta(seconds=6))
    closed = state_of(table).table.changed_at
    assert state_of(table).table.awaiting_since is not None
    assert tables.fire_deadline(table.pk, closed + timedelta(seconds=2))  # folds for her
    actions = state_of(table).hand_row.record["actions"]
    assert actions == [{"seat": away, "act": "fold", "auto": True}]
    # Nothing more until the answer window, counted from the laundry's close, runs out.
    assert not tables.fire_deadline(table.pk, closed + timedelta(seconds=7))
    assert tables.fire_deadline(table.pk, closed + timedelta(seconds=9))
    actions = state_of(table).hand_row.record["actions"]
    assert actions[1:] == [
        {"seat": 1, "act": "stay", "auto": True},
        {"seat": 2, "act": "stay", "auto": True},
    ]


def test_a_phone_silent_past_its_grace_puts_its_player_on_a_break_and_her_turn_clock_does_not(
    klaver: Cast,
) -> None:
    table = four_people_table(klaver)
    state = state_of(table)
    due = state.table_seat(state.hand.due()[0])
    changed = state.table.changed_at
    # Heard from a moment after the change: her phone then went quiet.
    Seat.objects.filter(table=table, index=due).update(last_seen=changed)
    # The others' phones are heard throughout.
    Seat.objects.exclude(index=due).filter(table=table).update(
        last_seen=changed + timedelta(seconds=31)
    )
    assert tables.fire_deadline(table.pk, changed + timedelta(seconds=31))
    assert Seat.objects.get(table=table, index=due).away == "break"
    assert state_of(table).hand_row.record["actions"][-1].get("auto") is True
    # Another player whose turn clock runs out with her phone still here is not put away.
    state = state_of(table)
    nxt = state.table_seat(state.hand.due()[0])
    now = state.table.changed_at + timedelta(seconds=61)
    Seat.objects.filter(table=table, index=nxt).update(last_seen=now)
    assert tables.fire_deadline(table.pk, now)
    assert Seat.objects.get(table=table, index=nxt).away == ""
