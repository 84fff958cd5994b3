"""The live view of a pub night's moments, rendered in memory: the shared phone in the laundry,
the end of a rubber, a player who is out."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from games.engine import Hand, HouseRules
from games.engine import table as table_rules
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
