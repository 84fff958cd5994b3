"""A rubber's end books the night: figures from the hand records, the Toepkoning, rounds owed,
ratings; and `rebuild_standings` books it all again to the same figures."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import OperationalError
from django.db.models import Count

from clubs.models import Membership
from games.live import clock
from games.models import PlayedHand, RubberPlayer, Table
from nights import services
from nights.figures import hand_tallies, replayed
from nights.models import (
    BookingDue,
    ClubNights,
    Night,
    Place,
    PlayerDay,
    PlayerRubber,
    Rating,
    Round,
)
from tests.nights.conftest import next_rubber, open_table, play_rubber, play_until_hand
from tests.personas import Cast

pytestmark = pytest.mark.django_db


def admin(klaver: Cast) -> Membership:
    return Membership.objects.select_related("club", "user").get(
        club=klaver.club, user=klaver.anna.user
    )


def a_night_of_rubbers(klaver: Cast, rubbers: int = 3) -> tuple[Night, Table]:
    night = services.open_night(admin(klaver))
    table = open_table(klaver.club, klaver.anna, [klaver.bram, klaver.cas, klaver.guus])
    players = {0: klaver.anna, 1: klaver.bram, 2: klaver.cas, 3: klaver.guus}
    for number in range(rubbers):
        if number:
            next_rubber(table, klaver.anna)
        play_rubber(table, players, seed=number)
    return night, table


def figures_snapshot(klaver: Cast) -> list[tuple]:
    rows = PlayerRubber.objects.filter(club=klaver.club).order_by("participant_id")
    return [
        (
            r.participant_id,
            r.key,
            r.night_id,
            r.place,
            r.lives_lost,
            r.hands,
            r.hands_won,
            r.knocks,
            r.knocks_won,
            r.folds,
            r.exchanges,
            r.challenges,
            r.challenges_won,
            round(r.rating_mu or 0, 9),
            round(r.rating_sigma or 0, 9),
        )
        for r in rows
    ]


def test_a_table_opened_during_a_night_belongs_to_it_and_one_opened_after_does_not(
    klaver: Cast,
) -> None:
    night = services.open_night(admin(klaver))
    during = open_table(klaver.club, klaver.anna, [klaver.bram, klaver.cas])
    services.close_night(admin(klaver), night)
    after = open_table(klaver.club, klaver.anna, [klaver.bram, klaver.cas])
    assert during.night_id == night.pk
    assert after.night_id is None


def test_each_player_of_a_finished_rubber_gets_the_figures_of_its_hands(klaver: Cast) -> None:
    night, table = a_night_of_rubbers(klaver, rubbers=1)
    rubber = table.rubbers.get()
    rows = {r.participant.seat: r for r in PlayerRubber.objects.select_related("participant")}
    assert set(rows) == {0, 1, 2, 3}
    hands = list(PlayedHand.objects.filter(rubber=rubber, complete=True))
    for seat, row in rows.items():
        tallies = [
            hand_tallies(replayed(h.record))[h.seats.index(seat)] for h in hands if seat in h.seats
        ]
        assert row.hands == len(tallies)
        assert row.knocks == sum(t.knocks for t in tallies)
        assert row.folds == sum(t.folds for t in tallies)
        assert row.exchanges == sum(t.exchanges for t in tallies)
        assert row.lives_lost == RubberPlayer.objects.get(rubber=rubber, seat=seat).lives_lost
        assert row.night_id == night.pk
    assert sum(r.hands_won for r in rows.values()) <= len(hands)
    assert [r.place for r in rows.values()].count(Place.LOST) >= 1


def test_the_guest_counts_under_her_guest_key_and_the_members_under_theirs(klaver: Cast) -> None:
    a_night_of_rubbers(klaver, rubbers=1)
    keys = set(PlayerRubber.objects.values_list("key", flat=True))
    assert keys == {
        f"u:{klaver.anna.user.pk}",
        f"u:{klaver.bram.user.pk}",
        f"u:{klaver.cas.user.pk}",
        f"g:{klaver.guus.guest.pk}",
    }


def test_every_person_who_lost_a_rubber_of_the_night_owes_a_round(klaver: Cast) -> None:
    night, table = a_night_of_rubbers(klaver, rubbers=2)
    losers = RubberPlayer.objects.filter(rubber__table=table, lost=True)
    assert losers.exists()
    assert sorted(Round.objects.filter(night=night).values_list("participant_id", flat=True)) == (
        sorted(losers.values_list("pk", flat=True))
    )
    assert all(r.amount is None for r in Round.objects.all())


def test_a_round_costs_the_clubs_amount_when_the_admin_set_one(klaver: Cast) -> None:
    from decimal import Decimal

    services.update_settings(
        klaver.club, king_wins=3, members_open_nights=False, round_amount=Decimal("0.50")
    )
    night, _ = a_night_of_rubbers(klaver, rubbers=1)
    assert {r.amount for r in Round.objects.filter(night=night)} == {Decimal("0.50")}


def test_computer_players_owe_no_round(klaver: Cast) -> None:
    services.open_night(admin(klaver))
    table = open_table(klaver.club, klaver.anna, [klaver.bram], bots={2: "easy", 3: "easy"})
    players = {0: klaver.anna, 1: klaver.bram}
    losers = RubberPlayer.objects.filter(rubber__table=table, lost=True)
    # The deals are random (drawn from `secrets`): play until a computer player has lost.
    for number in range(20):
        if number:
            next_rubber(table, klaver.anna)
        play_rubber(table, players, seed=number)
        if losers.exclude(bot_level="").exists():
            break
    bot_losses = losers.exclude(bot_level="")
    assert bot_losses.exists(), "twenty rubbers and no computer player lost one"
    assert not Round.objects.filter(participant__in=bot_losses).exists()
    people = losers.filter(bot_level="")
    assert Round.objects.filter(participant__in=people).count() == people.count()


def test_the_first_to_win_the_clubs_number_of_rubbers_is_toepkoning(klaver: Cast) -> None:
    ClubNights.objects.create(club=klaver.club, king_wins=2)
    night, table = a_night_of_rubbers(klaver, rubbers=2)
    players = {0: klaver.anna, 1: klaver.bram, 2: klaver.cas, 3: klaver.guus}
    # The deals are random: play on until someone has won twice.
    for number in range(2, 20):
        night.refresh_from_db()
        if night.king_key:
            break
        next_rubber(table, klaver.anna)
        play_rubber(table, players, seed=number)
    order = list(
        PlayerRubber.objects.filter(night=night, place=Place.WON)
        .order_by("finished_at", "rubber_id")
        .values_list("key", flat=True)
    )
    wins: dict[str, int] = {}
    king = None
    for key in order:
        wins[key] = wins.get(key, 0) + 1
        if wins[key] == 2 and king is None:
            king = key
    night.refresh_from_db()
    assert king is not None, "twenty rubbers and nobody won two"
    assert night.king_key == king
    assert night.king_name
    assert night.wins == wins


def test_no_toepkoning_before_anyone_won_enough(klaver: Cast) -> None:
    night, _ = a_night_of_rubbers(klaver, rubbers=2)
    night.refresh_from_db()
    assert night.king_key == ""


def test_ratings_move_after_each_rubber_and_the_winner_gains(klaver: Cast) -> None:
    _, table = a_night_of_rubbers(klaver, rubbers=1)
    winner = RubberPlayer.objects.filter(rubber__table=table, won=True).first()
    ratings = {r.key: r for r in Rating.objects.filter(club=klaver.club)}
    assert len(ratings) == 4
    assert all(r.rubbers == 1 for r in ratings.values())
    if winner is not None:
        key = PlayerRubber.objects.get(participant=winner).key
        assert ratings[key].mu > 25
    assert all(r.sigma < 25 / 3 for r in ratings.values())


def days_snapshot(klaver: Cast) -> list[tuple]:
    return sorted(
        PlayerDay.objects.filter(club=klaver.club).values_list(
            "user_id", "day", "rubbers", "won", "survived", "lost", "lives_lost", "hands", "knocks"
        )
    )


def test_rebuilding_from_the_records_gives_the_same_figures(klaver: Cast) -> None:
    ClubNights.objects.create(club=klaver.club, king_wins=2)
    night, _ = a_night_of_rubbers(klaver, rubbers=4)
    days = days_snapshot(klaver)
    assert days
    services.tick_round(night, Round.objects.filter(night=night).first().pk, klaver.bram.user)
    before = figures_snapshot(klaver)
    ratings = sorted(Rating.objects.values_list("key", "mu", "sigma", "rubbers"))
    night.refresh_from_db()
    king = (night.king_key, night.king_name, night.crowned_at)
    rounds = sorted(Round.objects.values_list("participant_id", "paid_at"))

    PlayerRubber.objects.all().delete()
    PlayerDay.objects.all().delete()
    Rating.objects.all().delete()
    Night.objects.update(king_key="", king_name="", crowned_at=None)
    out = StringIO()
    call_command("rebuild_standings", stdout=out)

    assert figures_snapshot(klaver) == before
    assert days_snapshot(klaver) == days
    assert sorted(Rating.objects.values_list("key", "mu", "sigma", "rubbers")) == ratings
    night.refresh_from_db()
    assert (night.king_key, night.king_name, night.crowned_at) == king
    assert sorted(Round.objects.values_list("participant_id", "paid_at")) == rounds
    assert "4 rubbers" in out.getvalue()


def test_a_hand_under_way_adds_nothing_until_its_rubber_ends(klaver: Cast) -> None:
    services.open_night(admin(klaver))
    table = open_table(klaver.club, klaver.anna, [klaver.bram, klaver.cas])
    play_until_hand(table, {0: klaver.anna, 1: klaver.bram, 2: klaver.cas})
    assert not PlayerRubber.objects.exists()
    assert not Round.objects.exists()


def test_a_guest_who_signs_up_counts_for_her_account_as_a_rebuild_would_count_her(
    klaver: Cast, django_capture_on_commit_callbacks
) -> None:
    from accounts.models import User

    ClubNights.objects.create(club=klaver.club, king_wins=1)
    a_night_of_rubbers(klaver, rubbers=3)
    guest = klaver.guus.guest
    played = PlayerRubber.objects.filter(key=f"g:{guest.pk}").count()
    user = User.objects.create_user(username="guus", password="x-long-password-1")
    with django_capture_on_commit_callbacks(execute=True):
        guest.user = user
        guest.save(update_fields=["user"])
    assert PlayerRubber.objects.filter(key=f"u:{user.pk}", user=user).count() == played
    assert not PlayerRubber.objects.filter(key=f"g:{guest.pk}").exists()
    assert Rating.objects.filter(key=f"u:{user.pk}", user=user).exists()
    assert not Rating.objects.filter(key=f"g:{guest.pk}").exists()
    assert PlayerDay.objects.filter(user=user).exists()
    assert not Round.objects.filter(key=f"g:{guest.pk}").exists()
    moved = (
        figures_snapshot(klaver),
        days_snapshot(klaver),
        sorted(Rating.objects.values_list("key", "user_id", "mu", "sigma", "rubbers")),
        sorted(Night.objects.values_list("king_key", "king_user_id", "wins")),
    )
    call_command("rebuild_standings", stdout=StringIO())
    rebuilt = (
        figures_snapshot(klaver),
        days_snapshot(klaver),
        sorted(Rating.objects.values_list("key", "user_id", "mu", "sigma", "rubbers")),
        sorted(Night.objects.values_list("king_key", "king_user_id", "wins")),
    )
    assert moved == rebuilt


@pytest.mark.booking_may_fail
def test_a_failure_in_the_booking_never_stops_the_table(klaver: Cast, monkeypatch) -> None:
    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(services, "record_rubber", broken)
    _, table = a_night_of_rubbers(klaver, rubbers=1)
    table.refresh_from_db()
    assert table.status == Table.Status.RUBBER_OVER
    assert not PlayerRubber.objects.exists()
    assert BookingDue.objects.count() == 1
    monkeypatch.undo()
    call_command("rebuild_standings", stdout=StringIO())
    assert PlayerRubber.objects.count() == 4
    assert not BookingDue.objects.exists()  # the rebuild booked it


def snapshot_then_rebuilt(klaver: Cast) -> tuple[tuple, tuple]:
    """Every figure as booked, and as `rebuild_standings` books it again."""

    def figures() -> tuple:
        return (
            figures_snapshot(klaver),
            days_snapshot(klaver),
            sorted(Rating.objects.values_list("key", "mu", "sigma", "rubbers")),
            sorted(Night.objects.values_list("king_key", "wins", "crowned_at")),
            sorted(Round.objects.values_list("participant_id", "rubber_id")),
        )

    booked = figures()
    call_command("rebuild_standings", stdout=StringIO())
    return booked, figures()


def test_a_booking_that_cannot_be_made_now_is_made_later_once_in_the_order_they_ended(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first rubber's booking meets a lock timeout; the next two end while it is due and
    queue behind it. The clock's catch-up books all three, in the order they ended, once: a
    second catch-up books nothing, and a rebuild gives the same figures, ratings and crown."""
    ClubNights.objects.create(club=klaver.club, king_wins=2)
    record = services.record_rubber
    calls = []

    def held_once(*args, **kwargs):
        calls.append(args[0].pk)
        if len(calls) == 1:
            raise OperationalError("canceling statement due to lock timeout")
        return record(*args, **kwargs)

    monkeypatch.setattr(services, "record_rubber", held_once)
    _, table = a_night_of_rubbers(klaver, rubbers=3)
    rubbers = list(table.rubbers.order_by("finished_at").values_list("pk", flat=True))
    assert len(calls) == 1  # the later two never tried: they wait their turn
    assert not PlayerRubber.objects.exists()
    assert list(BookingDue.objects.order_by("finished_at").values_list("rubber_id", flat=True)) == (
        rubbers
    )

    clock._catch_up()  # as the clock does every CATCH_UP_SECONDS
    assert calls[1:] == rubbers
    assert not BookingDue.objects.exists()
    per_rubber = dict(
        PlayerRubber.objects.values("rubber_id")
        .annotate(n=Count("id"))
        .values_list("rubber_id", "n")
    )
    assert per_rubber == dict.fromkeys(rubbers, 4)
    clock._catch_up()
    assert len(calls) == 4 and PlayerRubber.objects.count() == 12

    booked, rebuilt = snapshot_then_rebuilt(klaver)
    assert booked == rebuilt


def test_a_members_days_add_up_to_her_rubbers(klaver: Cast) -> None:
    from django.db.models import Count, Q, Sum

    a_night_of_rubbers(klaver, rubbers=3)
    # and a table of its own after the night closed
    services.close_night(admin(klaver), Night.objects.get())
    table = open_table(klaver.club, klaver.bram, [klaver.cas, klaver.dirk])
    play_rubber(table, {0: klaver.bram, 1: klaver.cas, 2: klaver.dirk}, seed=5)
    for player in (klaver.anna, klaver.bram, klaver.cas, klaver.dirk):
        rubbers = PlayerRubber.objects.filter(user=player.user).aggregate(
            rubbers=Count("id"),
            won=Count("id", filter=Q(place=Place.WON)),
            lost=Count("id", filter=Q(place=Place.LOST)),
            hands=Sum("hands"),
            knocks=Sum("knocks"),
        )
        days = PlayerDay.objects.filter(user=player.user).aggregate(
            rubbers=Sum("rubbers"),
            won=Sum("won"),
            lost=Sum("lost"),
            hands=Sum("hands"),
            knocks=Sum("knocks"),
        )
        assert days == rubbers, player.name
    assert not PlayerDay.objects.filter(user__isnull=True).exists()
