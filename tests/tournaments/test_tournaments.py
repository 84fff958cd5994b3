"""A club tournament from its creation to its final table: who may do what, the draw's tables
opened and seated, the points and the leaderboard, and bad input refused with a clear word and
nothing changed."""

from __future__ import annotations

import random
from datetime import timedelta
from fractions import Fraction
from itertools import combinations

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.utils import timezone

from clubs.models import Membership
from games.models import Seat, Table
from games.services import tables
from games.services.state import Holder, seat_keys
from tests.nights.conftest import play_rubber
from tests.personas import Cast, Persona
from tournaments import reads, services
from tournaments.models import DrawnRound, DrawnSeat, Entry, Tournament
from tournaments.reads import Player, RoundRead, TableRead

pytestmark = pytest.mark.django_db


def membership(klaver: Cast, person: Persona) -> Membership:
    return Membership.objects.select_related("club", "user").get(club=klaver.club, user=person.user)


def tournament(klaver: Cast, **options: object) -> Tournament:
    values: dict = {
        "name": "Winterbokaal",
        "profile": None,
        "slate_tables": False,
        "rounds": 3,
        "table_size": 3,
        "points": [5, 3, 2, 1],
        "final_size": 0,
    }
    values.update(options)
    return services.create_tournament(membership(klaver, klaver.anna), **values)


def bots(klaver: Cast, t: Tournament, count: int) -> list[Entry]:
    me = membership(klaver, klaver.anna)
    return [services.register(t, me, bot_level="easy") for _ in range(count)]


def play_round(t: Tournament) -> None:
    """Every table of the round drawn last played to its rubber's end by its computer
    players."""
    drawn = DrawnRound.objects.filter(tournament=t).order_by("-number").first()
    assert drawn is not None
    for at in drawn.tables.select_related("table"):
        play_rubber(at.table, {}, seed=at.number)


def url(klaver: Cast, t: Tournament, rest: str = "") -> str:
    return f"/clubs/{klaver.club.slug}/tournaments/{t.pk}/{rest}"


def said(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


# -- creating and registering ----------------------------------------------------------------


def test_an_admin_creates_a_tournament_a_member_may_not_and_a_stranger_sees_nothing(
    klaver: Cast,
) -> None:
    form = {
        "name": "Winterbokaal",
        "slate": "",
        "rounds": "3",
        "table_size": "4",
        "points": "5, 3, 2, 1",
        "final_size": "4",
    }
    address = f"/clubs/{klaver.club.slug}/tournaments/"
    assert klaver.bram.client().post(address, form).status_code == 403
    assert klaver.eva.client().post(address, form).status_code == 404
    assert klaver.eva.client().get(address).status_code == 404
    assert not Tournament.objects.exists()
    response = klaver.anna.client().post(address, form)
    t = Tournament.objects.get()
    assert response.status_code == 302 and response["Location"] == t.get_absolute_url()
    assert (t.table_size, t.points, t.final_size, t.slate) == (4, [5, 3, 2, 1], 4, False)
    assert klaver.bram.client().get(t.get_absolute_url()).status_code == 200
    assert klaver.eva.client().get(t.get_absolute_url()).status_code == 404


@pytest.mark.parametrize(
    ("field", "value"),
    [("points", "1, 3"), ("points", "5, x"), ("table_size", "6"), ("rounds", "0"), ("name", " ")],
)
def test_a_tournament_with_bad_settings_is_refused_with_why(
    klaver: Cast, field: str, value: str
) -> None:
    form = {"name": "Bokaal", "rounds": "3", "table_size": "4", "points": "5,3,2,1"}
    form["final_size"] = "0"
    form[field] = value
    response = klaver.anna.client().post(f"/clubs/{klaver.club.slug}/tournaments/", form)
    assert response.status_code == 400
    assert response.context["form"].errors
    assert not Tournament.objects.exists()


def test_members_guests_and_computer_players_register_once_each(klaver: Cast) -> None:
    t = tournament(klaver)
    anna, bram = membership(klaver, klaver.anna), membership(klaver, klaver.bram)
    services.register(t, bram, user=klaver.bram.user)
    services.register(t, anna, user=klaver.cas.user)
    services.register(t, anna, guest_name="Kees")
    services.register(t, anna, bot_level="easy")
    refusals = [
        (bram, {"user": klaver.dirk.user}),  # a member registers only herself
        (bram, {"guest_name": "Joop"}),
        (anna, {"user": klaver.bram.user}),  # twice
        (anna, {"guest_name": "kees"}),  # a name twice
        (anna, {"user": klaver.eva.user}),  # not a member
        (anna, {"user": klaver.femke.user}),  # not yet a member
        (anna, {"bot_level": "genius"}),
        (anna, {}),
        (anna, {"guest_name": "Joop", "bot_level": "easy"}),
    ]
    for me, who in refusals:
        with pytest.raises(services.TournamentError):
            services.register(t, me, **who)  # type: ignore[arg-type]
    assert sorted(Entry.objects.values_list("name", flat=True)) == ["Anne", "Bram", "Cas", "Kees"]


def test_a_slate_tournament_takes_no_computer_players(klaver: Cast) -> None:
    t = tournament(klaver, slate_tables=True)
    with pytest.raises(services.TournamentError, match="slate"):
        services.register(t, membership(klaver, klaver.anna), bot_level="easy")


# -- the draw and its tables -----------------------------------------------------------------


def test_a_round_opens_a_table_for_each_group_with_its_players_in_their_seats(
    klaver: Cast,
) -> None:
    t = tournament(klaver, table_size=4)
    anna = membership(klaver, klaver.anna)
    for person in (klaver.anna, klaver.bram, klaver.cas, klaver.dirk):
        services.register(t, anna, user=person.user)
    kees = services.register(t, anna, guest_name="Kees")
    bots(klaver, t, 2)
    assert services.start_round(t, anna, random.Random(3)) == 1
    page = reads.page(t)
    assert page.current is not None
    assert sorted(len(table.players) for table in page.current.tables) == [3, 4]
    seated = [p.entry_id for table in page.current.tables for p in table.players]
    assert sorted(seated) == sorted(e.pk for e in page.entries)
    for drawn in page.current.tables:
        table = Table.objects.get(code=drawn.code)
        assert table.seat_count == len(drawn.players) and not table.slate
        seats = {seat.index: seat for seat in Seat.objects.filter(table=table)}
        for player in drawn.players:
            entry = Entry.objects.get(pk=player.entry_id)
            seat = seats[player.seat]
            assert seat.name == entry.name and not seat.is_free
            if entry.user_id is not None:
                # Her phone holds the seat by her account; nobody else's does.
                assert Holder(user_id=entry.user_id).holds(seat_keys(seat))
                assert not Holder(key="phone-of-someone").holds(seat_keys(seat))
            elif entry.bot_level:
                assert seat.bot_level == "easy"
            else:
                assert entry.pk == kees.pk and seat.guest_id == kees.guest_id


def test_a_round_is_not_drawn_while_another_is_played_nor_by_a_member(klaver: Cast) -> None:
    t = tournament(klaver)
    anna = membership(klaver, klaver.anna)
    for person in (klaver.anna, klaver.bram, klaver.cas):
        services.register(t, anna, user=person.user)
    client = klaver.bram.client()
    response = client.post(url(klaver, t, "rounds/"))
    assert "Only the club's admins can do this." in said(response)
    assert not DrawnRound.objects.exists()
    services.start_round(t, anna)
    tables_before = Table.objects.count()
    response = klaver.anna.client().post(url(klaver, t, "rounds/"))
    assert "A round is still being played: finish it first." in said(response)
    assert DrawnRound.objects.count() == 1 and Table.objects.count() == tables_before


def test_too_few_players_for_a_table_get_a_clear_word_and_nothing_is_drawn(
    klaver: Cast,
) -> None:
    t = tournament(klaver)
    anna = membership(klaver, klaver.anna)
    services.register(t, anna, user=klaver.bram.user)
    services.register(t, anna, guest_name="Kees")
    response = klaver.anna.client().post(url(klaver, t, "rounds/"))
    assert "2 players cannot fill a table: a table needs at least 3." in said(response)
    assert not DrawnRound.objects.exists() and not Table.objects.exists()


def test_forged_ids_and_links_change_nothing(klaver: Cast) -> None:
    t = tournament(klaver)
    other = services.create_tournament(
        membership(klaver, klaver.anna),
        name="Zomerbokaal",
        profile=None,
        slate_tables=False,
        rounds=1,
        table_size=3,
        points=[3, 1],
        final_size=0,
    )
    anna = membership(klaver, klaver.anna)
    elsewhere = services.register(other, anna, guest_name="Kees")
    bram = services.register(t, anna, user=klaver.bram.user)
    client = klaver.anna.client()
    for forged in ("", "x", "1e3", "²", str(elsewhere.pk), "99999999999999999999999"):
        response = client.post(url(klaver, t, "leave/"), {"entry": forged})
        assert "There is no such player in this tournament." in said(response)
    # A member takes only herself out.
    response = klaver.cas.client().post(url(klaver, t, "leave/"), {"entry": str(bram.pk)})
    assert "Only the club's admins can do this." in said(response)
    assert not Entry.objects.filter(left=True).exists()
    # A seat link of another tournament, or one written by hand, opens nothing.
    token = services.guest_link(elsewhere)
    assert Client().get(url(klaver, t, f"guests/{token}/")).status_code == 404
    assert Client().get(url(klaver, t, "guests/abc:def/")).status_code == 404
    # Another club's tournament is not there for this club's admin.
    assert client.get(f"/clubs/{klaver.other.slug}/tournaments/{t.pk}/").status_code == 404


def test_a_guests_seat_link_lets_her_phone_hold_her_seat(klaver: Cast) -> None:
    t = tournament(klaver)
    anna = membership(klaver, klaver.anna)
    kees = services.register(t, anna, guest_name="Kees")
    services.register(t, anna, user=klaver.bram.user)
    services.register(t, anna, user=klaver.cas.user)
    services.start_round(t, anna)
    page = klaver.anna.client().get(t.get_absolute_url()).content.decode()
    token = services.guest_link(kees)
    assert token in page  # the admin sees the link to pass on
    assert token not in klaver.bram.client().get(t.get_absolute_url()).content.decode()
    phone = Client()
    response = phone.get(url(klaver, t, f"guests/{token}/"))
    assert response.status_code == 200
    drawn = reads.page(t).table_of(kees.pk)
    assert drawn is not None
    code = drawn.code
    assert code in response.content.decode()
    # The table's page now offers her what a player at the table has: its start and her seat.
    table = phone.get(f"/t/{code}/").content.decode()
    assert "action-start" in table and "action-leave" in table
    assert "action-start" not in Client().get(f"/t/{code}/").content.decode()


# -- playing it through ----------------------------------------------------------------------


def test_three_rounds_and_a_final_table_score_places_and_avoid_pairs(klaver: Cast) -> None:
    t = tournament(klaver, rounds=3, table_size=3, final_size=4)
    entries = bots(klaver, t, 9)
    anna = membership(klaver, klaver.anna)
    met: set[tuple[int, int]] = set()
    for number in (1, 2, 3):
        assert services.start_round(t, anna, random.Random(number)) == number
        page = reads.page(t)
        assert page.current is not None and not page.current.done
        for table in page.current.tables:
            for a, b in combinations(sorted(p.entry_id for p in table.players), 2):
                # Nine players at tables of three: three rounds without a pair met twice.
                assert (a, b) not in met
                met.add((a, b))
        play_round(t)
        page = reads.page(t)
        assert page.current is not None and page.current.done
        for table in page.current.tables:
            points = sorted((p.points for p in table.players), reverse=True)
            assert sum(points) == 5 + 3 + 2  # three places' points, split or not
            assert all(p.place is not None for p in table.players)
        board = page.standings
        assert [row.played for row in board] == [number] * 9
        assert [row.points for row in board] == sorted((r.points for r in board), reverse=True)
    page = reads.page(t)
    assert page.next_is_final
    best = [row.entry_id for row in page.standings[:4]]
    assert services.start_round(t, anna) == 4
    page = reads.page(t)
    assert page.current is not None and page.current.final
    assert sorted(p.entry_id for p in page.current.tables[0].players) == sorted(best)
    play_round(t)
    page = reads.page(t)
    assert page.over
    top = page.standings[:4]
    assert sorted(row.entry_id for row in top) == sorted(best)
    assert [row.final_place for row in top] == sorted(row.final_place or 0 for row in top)
    with pytest.raises(services.TournamentError, match="all its rounds"):
        services.start_round(t, anna)
    assert len(entries) == 9


def test_a_late_arrival_plays_from_the_next_round_and_a_leaver_is_left_out(
    klaver: Cast,
) -> None:
    t = tournament(klaver, rounds=2)
    anna = membership(klaver, klaver.anna)
    first = bots(klaver, t, 6)
    services.start_round(t, anna, random.Random(1))
    late = services.register(t, anna, guest_name="Kees")
    assert late.from_round == 2
    assert not DrawnSeat.objects.filter(entry=late).exists()
    services.leave(t, anna, first[0].pk)
    play_round(t)
    services.start_round(t, anna, random.Random(2))
    second = DrawnSeat.objects.filter(round__number=2)
    assert set(second.values_list("entry_id", flat=True)) == {e.pk for e in first[1:]} | {late.pk}
    # Her points stay on the leaderboard.
    assert any(row.entry_id == first[0].pk and row.played == 1 for row in reads.page(t).standings)


# -- the leaderboard's order -----------------------------------------------------------------


def test_shared_places_split_their_points() -> None:
    keys = [(0, 0), (1, 1), (1, 1), (2, 2)]
    assert reads.placed(keys, [5, 3, 2, 1]) == [
        (1, Fraction(5)),
        (2, Fraction(5, 2)),
        (2, Fraction(5, 2)),
        (4, Fraction(1)),
    ]
    # Places past the list score nothing.
    assert reads.placed([(0, 0), (2, 2), (2, 2)], [3, 1]) == [
        (1, Fraction(3)),
        (2, Fraction(1, 2)),
        (2, Fraction(1, 2)),
    ]


def entry(pk: int, name: str) -> Entry:
    return Entry(pk=pk, name=name)


def played(number: int, *tables: list[tuple[int, int, int]]) -> RoundRead:
    """A round of tables, each player (entry, place, lives lost), points 5, 3, 2, 1."""
    reads_: list[TableRead] = []
    for i, table in enumerate(tables, 1):
        points = reads.placed([(place, lost) for _, place, lost in table], [5, 3, 2, 1])
        players = [
            Player(pk, "", seat, place, share, lost)
            for seat, ((pk, _p, lost), (place, share)) in enumerate(zip(table, points, strict=True))
        ]
        reads_.append(TableRead(i, f"T{number}{i}", False, "rubber_over", players, done=True))
    return RoundRead(number, False, reads_)


def test_the_leaderboard_orders_by_points_then_lives_lost_then_the_result_between_them() -> None:
    people = [entry(1, "Anna"), entry(2, "Bram"), entry(3, "Cas"), entry(4, "Dirk")]
    rounds = [
        # Anna first, Bram second at one table; Cas first, Dirk second at the other.
        played(1, [(1, 0, 0), (2, 1, 1)], [(3, 0, 0), (4, 1, 1)]),
        # Bram first, Anna second; Dirk first, Cas second: all four on 8 points.
        played(2, [(2, 0, 0), (1, 1, 1)], [(4, 0, 0), (3, 1, 2)]),
        # Anna beats Cas; Bram and Dirk... Bram over Dirk.
        played(3, [(1, 0, 1), (3, 1, 1)], [(2, 0, 1), (4, 1, 1)]),
    ]
    board = reads.leaderboard(people, rounds)
    # Anna and Bram 13 points with 2 lives lost; Anna placed above Bram once, Bram above
    # Anna once: even; so by name. Then Dirk (11, 2 lost) before Cas (11, 3 lost).
    assert [(row.name, row.points, row.lives_lost) for row in board] == [
        ("Anna", 13, 2),
        ("Bram", 13, 2),
        ("Dirk", 11, 2),
        ("Cas", 11, 3),
    ]
    assert [row.rank for row in board] == [1, 1, 3, 4]
    # One more round where Bram beats Anna by a place with the same points for both
    # elsewhere: the result between them puts Bram first.
    rounds.append(played(4, [(2, 0, 0), (1, 1, 0)], [(3, 0, 0), (4, 1, 0)]))
    rounds.append(played(5, [(1, 0, 0), (3, 1, 0)], [(2, 1, 0), (4, 0, 0)]))
    board = reads.leaderboard(people, rounds)
    anna, bram = board[0], board[1]
    assert {anna.name, bram.name} == {"Anna", "Bram"}
    assert anna.points == bram.points and anna.lives_lost == bram.lives_lost
    assert board[0].head_to_head > board[1].head_to_head


# -- the pages -------------------------------------------------------------------------------


def test_the_big_screen_shows_the_draw_the_tables_playing_and_the_leaderboard(
    klaver: Cast,
) -> None:
    t = tournament(klaver)
    anna = membership(klaver, klaver.anna)
    bots(klaver, t, 6)
    services.start_round(t, anna, random.Random(5))
    page = reads.page(t)
    assert page.current is not None
    html = klaver.bram.client().get(url(klaver, t, "screen/")).content.decode()
    for table in page.current.tables:
        assert f"table {table.number}: {table.names}" in html
    for table in page.current.tables:
        assert f'<li data-table="{table.number}">Table {table.number} · {table.code}</li>' in html
    assert "No table is playing." not in html
    assert 'hx-trigger="every 5s"' in html
    play_round(t)
    live = klaver.bram.client().get(url(klaver, t, "live/?view=screen")).content.decode()
    assert "No table is playing." in live
    best = reads.page(t).standings[0]
    assert f'data-entry="{best.entry_id}"' in live and best.points_shown in live


def test_the_csv_lists_the_leaderboard_and_a_name_never_runs_as_a_formula(klaver: Cast) -> None:
    t = tournament(klaver)
    anna = membership(klaver, klaver.anna)
    services.register(t, anna, guest_name="=HYPERLINK(1)")
    bots(klaver, t, 2)
    services.start_round(t, anna, random.Random(1))
    response = klaver.bram.client().get(url(klaver, t, "leaderboard.csv"))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    text = response.content.decode()
    assert "'=HYPERLINK(1)" in text and "\n=HYPERLINK" not in text
    assert text.splitlines()[0].startswith("Place,Player,Points")
    assert klaver.eva.client().get(url(klaver, t, "leaderboard.csv")).status_code == 404


def test_the_tournament_page_is_a_bounded_number_of_queries(
    klaver: Cast, django_assert_max_num_queries
) -> None:
    t = tournament(klaver, rounds=3)
    anna = membership(klaver, klaver.anna)
    bots(klaver, t, 9)
    client = klaver.anna.client()
    counts = []
    for number in (1, 2):
        services.start_round(t, anna, random.Random(number))
        play_round(t)
        with django_assert_max_num_queries(14) as queries:
            assert client.get(t.get_absolute_url()).status_code == 200
        counts.append(len(queries))
    assert 0 < counts[0] == counts[1], counts


def test_a_rounds_page_keeps_every_table_with_places_points_and_its_hands(klaver: Cast) -> None:
    t = tournament(klaver)
    anna = membership(klaver, klaver.anna)
    bots(klaver, t, 6)
    services.start_round(t, anna, random.Random(4))
    client = klaver.cas.client()
    playing = client.get(url(klaver, t, "rounds/1/")).content.decode()
    assert playing.count('class="standings round-table"') == 2 and "hands</a>" not in playing
    play_round(t)
    html = client.get(url(klaver, t, "rounds/1/")).content.decode()
    page = reads.page(t)
    assert page.current is not None
    for table in page.current.tables:
        assert f"/clubs/{klaver.club.slug}/hands/?rubber={table.rubber_id}" in html
        for player in table.players:
            assert f'<td>{player.name}</td><td class="num">{player.place}</td>' in html
    # Each hand of the table replays, as any hand of the club.
    first = page.current.tables[0]
    hands = client.get(f"/clubs/{klaver.club.slug}/hands/?rubber={first.rubber_id}")
    assert hands.status_code == 200 and "/hands/" in hands.content.decode()
    assert client.get(url(klaver, t, "rounds/2/")).status_code == 404
    assert klaver.eva.client().get(url(klaver, t, "rounds/1/")).status_code == 404


def board(html: str) -> str:
    start = html.index('id="leaderboard"')
    return html[start : html.index("</table>", start)]


def test_the_page_is_read_again_only_when_a_table_or_a_player_changed(
    klaver: Cast, django_assert_max_num_queries
) -> None:
    t = tournament(klaver)
    anna = membership(klaver, klaver.anna)
    bots(klaver, t, 6)
    services.start_round(t, anna, random.Random(2))
    client = klaver.bram.client()
    before = client.get(t.get_absolute_url()).content.decode()
    assert "5</td>" not in before  # nobody has points yet
    with django_assert_max_num_queries(14) as again:
        assert board(client.get(t.get_absolute_url()).content.decode()) == board(before)
    # A move at a table changes nothing the page shows: it is not read again.
    first = DrawnRound.objects.get(tournament=t).tables.first()
    assert first is not None
    version = Table.objects.get(pk=first.table_id).version
    while Table.objects.get(pk=first.table_id).version == version:
        tables.fire_deadline(first.table_id, timezone.now() + timedelta(seconds=1))
    with django_assert_max_num_queries(14) as moved:
        assert board(client.get(t.get_absolute_url()).content.decode()) == board(before)
    assert len(moved) == len(again)
    play_round(t)  # each table's rubber ends
    with django_assert_max_num_queries(14) as ended:
        after = client.get(t.get_absolute_url()).content.decode()
    assert len(again) < len(ended), "a rubber ended: the page is read again"
    best = reads.page(t).standings[0]
    assert f'data-entry="{best.entry_id}"><td class="num">1</td>' in after
    assert f'<td class="num">{best.points_shown}</td>' in after
    services.leave(t, anna, str(best.entry_id))
    assert "(left)" in client.get(t.get_absolute_url()).content.decode()
