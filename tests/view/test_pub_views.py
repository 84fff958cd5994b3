"""The live view of a pub night's moments, rendered in memory: the shared phone in the laundry,
the end of a rubber, a player who is out."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from games.view.context import Viewer, build_context, render_view
from tests.view.test_html import _state


def shown_seat(state, viewer: Viewer) -> tuple[int | None, int | None]:
    """Whose cards a phone shows, and for whom its privacy screen asks."""
    context = build_context(state, viewer)
    return context["active"], context["privacy_for"]


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
    context = build_context(state, Viewer(seats=phone, active=second))
    assert context["active"] == second
    assert {a["act"] for a in context["laundry_actions"]} >= {"exchange", "ready"}
    assert context["hand_owner"] == state.seats[second].name
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
