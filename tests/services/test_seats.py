"""Seats and tables through a pub night: getting up between hands, closing a table, and which
tables a club's front page shows."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from games.models import Rubber, Seat, Table
from games.services import tables
from games.services.changes.decide import changed_seat
from games.services.club_page import open_tables, standings
from games.services.snapshots import editable_copy, snapshot_of, view_state
from games.services.tables import TableError
from tests.personas import Cast, member
from tests.services.test_away import play_out_the_hand, step
from tests.tables import four_people_table, people, seat_people, state_of

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_player_gets_up_between_hands_and_a_computer_player_plays_her_seat_out(
    klaver: Cast,
) -> None:
    table = four_people_table(klaver)
    bram = people(klaver)[1].holder
    with pytest.raises(TableError) as refused:
        tables.leave_seat(table.pk, 1, bram)
    assert refused.value.code == "hand_under_way"
    play_out_the_hand(klaver, table, away=-1)
    tables.leave_seat(table.pk, 1, bram)
    seat = Seat.objects.get(table=table, index=1)
    assert seat.bot_level == "normal" and not seat.holder_key and seat.user_id is None
    assert state_of(table).held_by(bram) == []
    assert step(table)  # the next deal goes on, with the computer player in her place
    assert state_of(table).hand_row.number == 2


def anna_and_bram_with_two_computer_players(klaver: Cast) -> Table:
    """A table Anna opened with two computer players, Bram in seat 1, no rubber begun."""
    table = tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        bots={2: "easy", 3: "easy"},
        holder_key=klaver.anna.holder_key,
    )
    tables.take_seat(table.pk, 1, klaver.bram.holder, "Bram")
    return table


def test_between_rubbers_a_seat_given_up_is_free(klaver: Cast) -> None:
    table = anna_and_bram_with_two_computer_players(klaver)
    tables.leave_seat(table.pk, 1, klaver.bram.holder)
    assert Seat.objects.get(table=table, index=1).is_free


def test_the_creator_or_a_club_admin_closes_a_table_and_its_unfinished_rubber_counts_nowhere(
    klaver: Cast,
) -> None:
    table = four_people_table(klaver)  # opened by Anna, an admin
    with pytest.raises(TableError) as refused:
        tables.close_table(table.pk, klaver.bram.user)
    assert refused.value.code == "not_allowed"
    play_out_the_hand(klaver, table, away=-1)
    # A rubber under way: not closed without a confirmation, and nothing changed.
    version = Table.objects.get(pk=table.pk).version
    with pytest.raises(TableError) as refused:
        tables.close_table(table.pk, klaver.anna.user)
    assert refused.value.code == "confirm_close"
    assert Table.objects.get(pk=table.pk).version == version
    assert not Rubber.objects.get(table=table).abandoned
    tables.close_table(table.pk, klaver.anna.user, confirmed=True)
    closed = Table.objects.get(pk=table.pk)
    assert closed.status == Table.Status.CLOSED and closed.deadline_at is None
    assert Rubber.objects.get(table=table).abandoned
    assert not tables.fire_deadline(table.pk, timezone.now() + timedelta(hours=1))
    with pytest.raises(TableError):
        tables.take_seat(table.pk, 0, klaver.anna.holder, "Anna")
    assert table not in open_tables(klaver.club)
    assert all(s.rubbers == 0 for s in standings(klaver.club))


def test_an_admin_who_did_not_open_the_table_may_close_it(klaver: Cast) -> None:
    from clubs.models import Membership

    table = tables.create_table(
        club=klaver.club, user=klaver.bram.user, holder_key=klaver.bram.holder_key
    )
    hanna = member(klaver.club, "hanna", Membership.Role.ADMIN)
    tables.close_table(table.pk, hanna.user)
    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED


def test_a_finished_table_leaves_the_front_page_after_an_hour(klaver: Cast) -> None:
    table = four_people_table(klaver)
    Table.objects.filter(pk=table.pk).update(status=Table.Status.RUBBER_OVER)
    assert [t.pk for t in open_tables(klaver.club)] == [table.pk]
    Table.objects.filter(pk=table.pk).update(changed_at=timezone.now() - timedelta(hours=2))
    assert open_tables(klaver.club) == []


def everyone_silent_since(table: Table) -> datetime:
    """Every player's phone was last heard at the table's last change, and never since."""
    changed = Table.objects.get(pk=table.pk).changed_at
    Seat.objects.filter(table=table).update(last_seen=changed)
    return changed


def test_a_table_nobody_is_at_pauses_and_plays_nothing_for_them(klaver: Cast) -> None:
    table = four_people_table(klaver)
    changed = everyone_silent_since(table)
    actions = len(state_of(table).hand.actions)
    version = Table.objects.get(pk=table.pk).version
    # Before the last phone's grace runs out the table waits as usual...
    assert not tables.fire_deadline(table.pk, changed + timedelta(seconds=29))
    # ... then it pauses: a new version every phone still watching sees, and no card played.
    assert tables.fire_deadline(table.pk, changed + timedelta(seconds=31))
    paused = Table.objects.get(pk=table.pk)
    assert paused.paused and paused.version == version + 1
    assert len(state_of(table).hand.actions) == actions
    assert not any(seat.away for seat in Seat.objects.filter(table=table))
    # Nothing happens for as long as nobody comes, short of being closed after hours.
    assert paused.deadline_at == paused.changed_at + timedelta(hours=3)
    assert not tables.fire_deadline(table.pk, paused.changed_at + timedelta(hours=2))
    assert len(state_of(table).hand.actions) == actions


def test_a_phone_that_comes_back_resumes_the_table_with_its_turn_clock_afresh(
    klaver: Cast,
) -> None:
    table = four_people_table(klaver)
    changed = everyone_silent_since(table)
    assert tables.fire_deadline(table.pk, changed + timedelta(seconds=31))
    before = timezone.now()
    tables.arrive(table.pk, klaver.cas.holder)
    resumed = Table.objects.get(pk=table.pk)
    assert not resumed.paused and resumed.changed_at >= before
    # Whoever is due has her whole turn again, and the others' phones their grace from now.
    assert resumed.deadline_at >= before + timedelta(seconds=25)
    assert not tables.fire_deadline(table.pk, before + timedelta(seconds=20))
    # A phone arriving at a table that is not paused writes nothing but that it was heard.
    tables.arrive(table.pk, klaver.bram.holder)
    assert Table.objects.get(pk=table.pk).version == resumed.version


def test_back_from_a_break_a_player_resumes_a_paused_table(klaver: Cast) -> None:
    table = four_people_table(klaver)
    tables.go_away(table.pk, klaver.dirk.holder, 3, "break")
    changed = everyone_silent_since(table)
    # The table may first play for Dirk (away, and due), and then it pauses.
    for _ in range(3):
        tables.fire_deadline(table.pk, changed + timedelta(seconds=31))
    assert Table.objects.get(pk=table.pk).paused
    # Her phone opening the table is not her back: she is on a break till she says so.
    tables.arrive(table.pk, klaver.dirk.holder)
    assert Table.objects.get(pk=table.pk).paused
    tables.come_back(table.pk, klaver.dirk.holder, 3)
    assert not Table.objects.get(pk=table.pk).paused


def test_a_table_paused_for_hours_is_closed_and_its_rubber_counts_nowhere(klaver: Cast) -> None:
    table = four_people_table(klaver)
    changed = everyone_silent_since(table)
    assert tables.fire_deadline(table.pk, changed + timedelta(seconds=31))
    paused = Table.objects.get(pk=table.pk)
    assert tables.fire_deadline(table.pk, paused.changed_at + timedelta(hours=3, seconds=1))
    closed = Table.objects.get(pk=table.pk)
    assert closed.status == Table.Status.CLOSED and not closed.paused
    assert closed.deadline_at is None
    rubber = Rubber.objects.get(table=table)
    assert rubber.abandoned and not rubber.over
    assert table not in open_tables(klaver.club)
    assert not standings(klaver.club)


def test_computer_players_alone_play_on_with_nobody_watching(klaver: Cast) -> None:
    table = tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        bots={0: "easy", 1: "easy", 2: "easy"},
        seat_count=3,
        take_seat=None,
    )
    tables.start_rubber(table.pk, klaver.anna.user)
    for _ in range(30):
        tables.fire_deadline(table.pk, timezone.now() + timedelta(hours=1))
    assert not Table.objects.get(pk=table.pk).paused
    assert len(state_of(table).hand.actions) > 0 or state_of(table).hand_row.number > 1


def test_who_a_phone_holds_is_read_again_once_a_seat_changes_hands(klaver: Cast) -> None:
    """What a state keeps of its seats for `held_by` (asked at every phone's view) is passed on
    to the next state with the same seats, and read again from a seat that changed hands: the
    phone that gave it up holds it no more, the one that took it does."""
    table = anna_and_bram_with_two_computer_players(klaver)
    shared = view_state(table.pk)
    assert shared.held_by(klaver.bram.holder) == [1]
    kept = snapshot_of(table.pk)
    assert kept is not None
    same = editable_copy(kept)
    assert shared.seat_keys is not None and same.seat_keys is not None
    assert same.seat_keys[1] is shared.seat_keys[1]  # passed on, not read again
    assert same.held_by(klaver.bram.holder) == [1]
    holder = klaver.guus.holder
    changed_seat(same, 1, holder_key=holder.key, user_id=holder.user_id, guest_id=holder.guest_id)
    assert same.held_by(klaver.bram.holder) == []
    assert same.held_by(holder) == [1]
    assert shared.held_by(klaver.bram.holder) == [1]  # the snapshot's seats are its own


def offered(table: Table, seat: int) -> tuple[bool, bool]:
    """Whether seat `seat`'s phone is offered to leave the seat and to start a rubber."""
    from games.view.context import Viewer, build_view

    _public, own = build_view(state_of(table), Viewer(seats=(seat,), active=seat, can_start=True))
    return own.can_leave, own.can_start


def taken(change) -> str:
    """ "" when `change` is taken, else the code it is refused with."""
    try:
        change()
    except TableError as refused:
        return refused.code
    return ""


def test_a_phone_is_offered_to_leave_or_start_exactly_when_the_table_takes_it(
    klaver: Cast,
) -> None:
    """The view and the services ask the engine the same question: a button is shown when
    the change is taken, and a refusal carries the engine's code. (A start stays offered while
    a seat is free, so that its refusal says why.)"""
    table = tables.create_table(
        club=klaver.club, user=klaver.anna.user, holder_key=klaver.anna.holder_key
    )
    seat_people(table.pk, [(1, klaver.bram), (2, klaver.cas)])
    anna, bram = klaver.anna.holder, klaver.bram.holder
    # Before the first rubber: both, but a start with a seat free is refused.
    assert offered(table, 1) == (True, True)
    assert taken(lambda: tables.start_rubber(table.pk, anna)) == "seats_free"
    assert taken(lambda: tables.leave_seat(table.pk, 1, bram)) == ""
    seat_people(table.pk, [(1, klaver.bram), (3, klaver.dirk)])
    assert taken(lambda: tables.start_rubber(table.pk, anna)) == ""
    # A hand under way: neither.
    assert offered(table, 1) == (False, False)
    assert taken(lambda: tables.leave_seat(table.pk, 1, bram)) == "hand_under_way"
    assert taken(lambda: tables.start_rubber(table.pk, anna)) == "playing"
    # Between two hands of the rubber: leave, not start.
    play_out_the_hand(klaver, table, away=-1)
    assert offered(table, 1) == (True, False)
    assert taken(lambda: tables.start_rubber(table.pk, bram)) == "playing"
    assert taken(lambda: tables.leave_seat(table.pk, 1, bram)) == ""
    # Closed: neither, each refused as closed.
    tables.close_table(table.pk, klaver.anna.user, confirmed=True)
    assert offered(table, 0) == (False, False)
    assert taken(lambda: tables.leave_seat(table.pk, 0, anna)) == "closed"
    assert taken(lambda: tables.start_rubber(table.pk, anna)) == "closed"
