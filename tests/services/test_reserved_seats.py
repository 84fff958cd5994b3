"""Seats kept for named players when a table is opened (a tournament's draw): each is taken
and held by its player's account or guest, never by a stranger's phone, and a seat kept twice
or out of the table is refused with nothing opened."""

from __future__ import annotations

import pytest

from games.models import Seat, Table
from games.services import tables
from games.services.snapshots import load_state
from games.services.state import Holder, seat_keys
from games.services.tables import Reserved, TableError
from tests.personas import Cast

pytestmark = pytest.mark.django_db


def test_a_kept_seat_is_taken_and_held_by_its_player_alone(klaver: Cast) -> None:
    assert klaver.anna.user is not None and klaver.bram.user is not None
    assert klaver.guus.guest is not None
    table = tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        seat_count=3,
        take_seat=None,
        reserved={
            0: Reserved("Bram", user_id=klaver.bram.user.pk),
            1: Reserved("Guus", guest_id=klaver.guus.guest.pk),
            2: Reserved("Anne", bot_level="easy"),
        },
    )
    seats = list(Seat.objects.filter(table=table).order_by("index"))
    assert [seat.name for seat in seats] == ["Bram", "Guus", "Anne"]
    assert not any(seat.is_free for seat in seats) and seats[2].bot_level == "easy"
    assert klaver.bram.holder.holds(seat_keys(seats[0]))
    assert klaver.guus.holder.holds(seat_keys(seats[1]))
    assert not klaver.cas.holder.holds(seat_keys(seats[0]))
    assert not Holder(key="phone-of-a-stranger").holds(seat_keys(seats[1]))
    # Bram starts the rubber from his own phone, as at any table he sits at.
    tables.start_rubber(table.pk, klaver.bram.holder)
    assert load_state(Table.objects.get(pk=table.pk)).rubber is not None


@pytest.mark.parametrize(
    ("bots", "reserved", "take_seat"),
    [
        ({0: "easy"}, {0: Reserved("Bram")}, None),  # a seat kept and a computer player's
        ({}, {3: Reserved("Bram")}, None),  # no such seat
        ({}, {0: Reserved("Bram")}, 0),  # the opener's seat
        ({}, {0: Reserved("Bram", bot_level="genius")}, None),
    ],
)
def test_a_seat_kept_twice_or_nowhere_opens_no_table(
    klaver: Cast, bots: dict, reserved: dict, take_seat: int | None
) -> None:
    assert klaver.anna.user is not None
    with pytest.raises(TableError):
        tables.create_table(
            club=klaver.club,
            user=klaver.anna.user,
            seat_count=3,
            bots=bots,
            reserved=reserved,
            take_seat=take_seat,
            holder_key=klaver.anna.holder_key,
        )
    assert not Table.objects.exists()
