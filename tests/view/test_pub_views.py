"""The live view of a pub night's moments, rendered in memory: the shared phone in the laundry,
the end of a rubber, a player who is out."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from django.utils import timezone

from games.engine import Hand, HouseRules
from games.engine import table as table_rules
from games.engine.rubber import Rubber as EngineRubber
from games.models import PlayedHand, Rubber, Seat, Table
from games.services.conf import pace
from games.services.state import TableState
from games.view.context import Viewer, build_view, render_view
from tests.view.test_html import _state


def shown_seat(state, viewer: Viewer) -> tuple[int | None, int | None]:
    """Whose cards a phone shows, and for whom its privacy screen asks."""
    _public, seat = build_view(state, viewer)
    return seat.active, seat.privacy_for


def test_in_the_laundry_a_shared_phone_passes_to_each_of_its_players_in_turn() -> None:
    state = _state(["Anne", "Bart", "Cor", "Dieuwke"])
    state.table.laundry_until = timezone.now() + timedelta(seconds=30)
    due = state.table_seat(state.hand.due()[0])
    other = next(seat for seat in range(4) if seat != due)
    phone = tuple(sorted((due, other)))
    # The player due to play is not the only one who may wash: first come, first shown...
    first = phone[0]
    assert shown_seat(state, Viewer(seats=phone, active=None)) == (None, first)
    assert shown_seat(state, Viewer(seats=phone, active=first))[0] == first
    # ...and once she is done with the laundry, the phone passes to the other, due or not.
    state.table.laundry_ready = [first]
    second = phone[1]
    assert shown_seat(state, Viewer(seats=phone, active=first)) == (None, second)
    _public, seat = build_view(state, Viewer(seats=phone, active=second))
    assert seat.active == second
    assert {button.act for button in seat.laundry_buttons} >= {"exchange", "ready"}
    assert seat.hand_owner == state.seats[second].name
    # Both done: the phone shows whoever is due, as outside the laundry.
    state.table.laundry_ready = list(phone)
    assert shown_seat(state, Viewer(seats=phone, active=None)) == (None, due)


def test_a_finished_trick_says_who_took_it() -> None:
    state = _state(["Anne", "Bart", "Cor", "Dieuwke"], actions=4)
    state.table.laundry_until = None
    view = render_view(state, Viewer())
    winner = state.hand.tricks[0].winner
    name = state.seats[state.table_seat(winner)].name
    assert f'<p class="trick-taker">{name} takes the trick.</p>' in view


def _answering(hand: Hand, since: datetime | None, laundry_until: datetime | None) -> TableState:
    """A table of four people playing `hand`, answers due since `since` (None: not noted)."""
    state = _state(["Anne", "Bart", "Cor", "Dieuwke"])
    state.table.rules_json = hand.rules.to_json()
    state.parsed_rules = None
    state.hand = hand
    state.hand_row.record = hand.record()
    state.table.awaiting_since = since
    state.table.laundry_until = laundry_until
    return state


def _closes_at(state: TableState, now: datetime) -> int | None:
    """Seconds until the table's clock closes the answer window, from its plan."""
    steps = table_rules.plan(state.moment(), pace(), now)
    closing = [step.when for step in steps if step.kind == "close_answers"]
    return round((closing[0] - now).total_seconds()) if closing else None


def test_the_answer_countdown_is_the_deadline_at_which_the_clock_closes_the_window() -> None:
    """What a phone counts down is when the table's clock closes the answer window: once a
    poverty hand's laundry window has closed (the hand's laundry ends only with the next
    action), and when the table has not noted since when answers are due."""
    now = timezone.now()
    rules = HouseRules(poverty="stake_two", response_order="simultaneous", response_seconds=8)
    poverty = Hand.deal(rules, [1, 10, 10, 10], 0, 11, players=["a", "b", "c", "d"])
    assert poverty.laundry and not poverty.awaiting and poverty.after_laundry().awaiting
    knocked = Hand.deal(HouseRules(exchange=False, response_order="simultaneous"), [5] * 4, 0, 3)
    knocked.apply(next(a for a in knocked.legal_actions(knocked.due()[0]) if a.act == "knock"))
    assert knocked.awaiting
    cases = [
        _answering(poverty, now - timedelta(seconds=3), None),  # the laundry's window closed
        _answering(poverty, None, now + timedelta(seconds=5)),  # still open: nothing to count
        _answering(knocked, None, None),
        _answering(knocked, now - timedelta(seconds=2), None),
    ]
    shown = []
    for state in cases:
        state.table.changed_at = now - timedelta(seconds=1)
        for seat in state.seats:  # every phone heard just now: nobody's absence cuts the plan
            seat.last_seen = now
        public, _seat = build_view(state, Viewer(seats=(1,), active=1), now=now)
        assert public.answer_seconds == _closes_at(state, now)
        shown.append(public.answer_seconds)
    window = knocked.rules.response_seconds
    assert shown == [5, None, window - 1, window - 2]


def _after_a_hand(seed: int) -> tuple[TableState, int, int]:
    """A table of four people whose first hand is over: Bram (seat 1) was poor, Cas (seat 2)
    knocked; the hand's result is stored as the table stores it. Returns the state, and the
    lives Bram and Cas lost in it."""
    names = ["anna", "bram", "cas", "dirk"]
    rules = HouseRules(exchange=False, poverty="stake_two")
    rubber = EngineRubber(rules, names, dealer=0, lives=[5, 1, 5, 5])
    hand = rubber.deal(seed=seed)
    while not hand.complete:
        seat = hand.due()[0]
        legal = hand.legal_actions(seat)
        acts = {action.act: action for action in legal}
        if seat == 2 and "knock" in acts and not hand.knocks[2]:
            hand.apply(acts["knock"])
        elif "stay" in acts:
            hand.apply(acts["stay"])
        else:
            hand.apply(next(action for action in legal if action.act == "play"))
    outcome = rubber.finish_hand()
    table = Table(
        code="ABC234",
        rules_json=rules.to_json(),
        seat_count=4,
        status=Table.Status.PLAYING,
        version=9,
        changed_at=timezone.now(),
        created_by_id=1,
    )
    seats = [
        Seat(index=i, name=name, holder_key=f"key{i}", last_seen=timezone.now())
        for i, name in enumerate(names)
    ]
    row = PlayedHand(
        number=1,
        seats=list(rubber.hand_seats),
        record=hand.record(),
        complete=True,
        result=outcome.result,
    )
    played = Rubber(number=1, players=names, lives=list(rubber.lives), dealer=rubber.dealer)
    state = TableState(table, seats, played, row, hand, list(rubber.hand_seats))
    return state, outcome.lives_lost.get(1, 0), outcome.lives_lost.get(2, 0)


def test_who_gets_up_after_a_hand_keeps_what_she_did_in_it() -> None:
    """Cas knocked and lost lives, then gets up between hands: a computer player takes her
    seat. Bram was poor and lost his last life; the rubber over, he gets up: his seat is free.
    The hand's result still names them, and neither seat shows what they did."""
    state, bram_lost, cas_lost = next(
        found for found in map(_after_a_hand, range(1, 60)) if found[1] and found[2]
    )
    assert state.hand.poor[1] and state.hand.knocks[2]
    cas, bram = state.seats[2], state.seats[1]
    cas.holder_key, cas.bot_level, cas.name = "", "normal", "Cor"
    public, _seat = build_view(state, Viewer(seats=(0,), active=0))
    lost = {entry.name: entry.lives for entry in public.hand_result.lost}
    assert lost["cas"] == cas_lost and "Cor" not in lost
    computer = next(p for p in public.players if p.seat == 2)
    assert computer.name == "Cor" and computer.knocks == 0 and not computer.folded
    view = render_view(state, Viewer(seats=(0,), active=0))
    assert f"cas loses {cas_lost} li" in view
    assert "knocked" not in _place(view, 2)

    state.table.status = Table.Status.RUBBER_OVER
    bram.holder_key, bram.name = "", ""
    public, _seat = build_view(state, Viewer(seats=(0,), active=0))
    lost = {entry.name: entry.lives for entry in public.hand_result.lost}
    assert lost["bram"] == bram_lost and "" not in lost
    free = next(p for p in public.players if p.seat == 1)
    assert free.free and not free.poor and free.lives is None
    view = render_view(state, Viewer(seats=(0,), active=0))
    assert "poor" not in _place(view, 1)
    assert "bram loses 1 life" in view


def _place(view: str, seat: int) -> str:
    """A player's place in a rendered view."""
    found = re.search(rf'<li class="player[^"]*" data-seat="{seat}".*?</li>', view)
    assert found is not None, seat
    return found.group(0)


def _actions_bar(view: str) -> str:
    found = re.search(r'<div id="table-actions".*?</div>', view)
    assert found is not None
    return found.group(0)


def test_going_away_is_a_menu_at_the_top_and_never_offered_to_a_player_who_is_out() -> None:
    state = _state(["anna", "bram", "cas", "dirk"], actions=1)
    view = render_view(state, Viewer(seats=(1,), active=1))
    # Not beside the knock button: in a menu of its own, a second tap away.
    assert "Take a break" not in _actions_bar(view)
    menu = re.search(r'<details class="away-menu">.*?</details>', view)
    assert menu is not None and "Take a break" in menu.group(0)
    assert view.index('class="table-tools"') > view.index('id="table-actions"')
    # Back from a break is one tap, in the action bar.
    state.seats[1].away = "break"
    view = render_view(state, Viewer(seats=(1,), active=1))
    assert "I&#x27;m back" in _actions_bar(view) and "away-menu" not in view
    # Out of the rubber: no break, no round, and the table takes none from her.
    state.seats[1].away = ""
    state.rubber.lives = [10, 0, 10, 10]
    assert state.away_choices(1) == [] and state.away_choices(0) == ["break"]
    _public, seat = build_view(state, Viewer(seats=(1,), active=1))
    assert seat.away_buttons == ()
    view = render_view(state, Viewer(seats=(1,), active=1))
    assert "away-menu" not in view and "Take a break" not in view


def test_the_laundry_counts_down_once_from_the_clocks_deadline() -> None:
    state = _state(["anna", "bram", "cas", "dirk"])
    now = timezone.now()
    state.table.laundry_until = now + timedelta(seconds=23)
    view = render_view(state, Viewer(seats=(1,), active=1))
    # Every countdown of the laundry counts to the same moment, and ticks (a countdown the
    # phone's script turns): no number of seconds is written as plain words beside them.
    seconds = re.findall(r'class="countdown" data-seconds="(\d+)"', view)
    assert len(seconds) == 2 and len(set(seconds)) == 1 and 21 <= int(seconds[0]) <= 23
    line = re.search(r'<p class="laundry-clock">(.*?)</p>', view)
    assert line is not None and 'class="countdown"' in line.group(1)
    assert "laundry-sheet" in view
    assert not re.search(r"\d+ seconds? left", view)
