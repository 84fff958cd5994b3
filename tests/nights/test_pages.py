"""The pages of a club's nights, seasons, players and hands: what members see, what everyone
else does not, and bad input refused with a clear word and nothing changed."""

from __future__ import annotations

import json
import random
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from clubs.models import Membership
from games.engine.rules import HouseRules
from games.models import PlayedHand, Rubber, RubberPlayer, Table
from games.services import tables
from nights import services
from nights.models import ClubNights, Night, PlayerRubber, Round, Season
from tests.nights.conftest import next_rubber, open_table, play_rubber, play_until_hand, step
from tests.personas import Cast

pytestmark = pytest.mark.django_db


def membership(klaver: Cast, player) -> Membership:
    return Membership.objects.select_related("club", "user").get(club=klaver.club, user=player.user)


def played_night(klaver: Cast, rubbers: int = 2) -> tuple[Night, Table]:
    night = services.open_night(membership(klaver, klaver.anna))
    table = open_table(klaver.club, klaver.anna, [klaver.bram, klaver.cas, klaver.guus])
    players = {0: klaver.anna, 1: klaver.bram, 2: klaver.cas, 3: klaver.guus}
    for number in range(rubbers):
        if number:
            next_rubber(table, klaver.anna)
        play_rubber(table, players, seed=number)
    return night, table


def url(klaver: Cast, rest: str) -> str:
    return f"/clubs/{klaver.club.slug}/{rest}"


# -- a night ----------------------------------------------------------------------------------


def test_the_nights_page_shows_the_standings_rubbers_and_rounds_owed(klaver: Cast) -> None:
    night, _ = played_night(klaver)
    page = klaver.bram.client().get(url(klaver, f"nights/{night.pk}/"))
    assert page.status_code == 200
    html = page.content.decode()
    for name in ("Anna", "Bram", "Cas", "Guus"):
        assert name in html
    assert "Rounds owed" in html
    assert "Paid:" in html  # a button to tick each round
    assert html.count('class="place-0"') + html.count('class="place-2"') >= 2


def test_the_nights_page_is_a_bounded_number_of_queries(klaver: Cast) -> None:
    night, _ = played_night(klaver, rubbers=1)
    client = klaver.bram.client()
    client.get(url(klaver, f"nights/{night.pk}/"))
    with CaptureQueriesContext(connection) as few:
        client.get(url(klaver, f"nights/{night.pk}/"))
    table = open_table(klaver.club, klaver.anna, [klaver.bram, klaver.cas, klaver.guus])
    players = {0: klaver.anna, 1: klaver.bram, 2: klaver.cas, 3: klaver.guus}
    for number in range(3):
        if number:
            next_rubber(table, klaver.anna)
        play_rubber(table, players, seed=number + 10)
    with CaptureQueriesContext(connection) as more:
        client.get(url(klaver, f"nights/{night.pk}/"))
    assert len(more) == len(few)


def test_a_round_ticked_as_paid_is_paid_and_a_second_tick_is_refused(klaver: Cast) -> None:
    night, _ = played_night(klaver)
    owed = Round.objects.filter(night=night).first()
    client = klaver.cas.client()
    path = url(klaver, f"nights/{night.pk}/rounds/paid/")
    first = client.post(path, {"round": owed.pk}, HTTP_HX_REQUEST="true")
    assert first.status_code == 200
    owed.refresh_from_db()
    paid_at = owed.paid_at
    assert paid_at is not None and owed.paid_by == klaver.cas.user
    second = client.post(path, {"round": owed.pk}, HTTP_HX_REQUEST="true")
    assert "ticked as paid already" in second.content.decode()
    owed.refresh_from_db()
    assert owed.paid_at == paid_at


def test_a_tick_by_mistake_is_undone_by_whoever_ticked_it_or_an_admin_only(klaver: Cast) -> None:
    night, _ = played_night(klaver)
    owed = Round.objects.filter(night=night).first()
    path = url(klaver, f"nights/{night.pk}/rounds/paid/")
    cas, dirk, anna = (p.client() for p in (klaver.cas, klaver.dirk, klaver.anna))
    # Nothing to undo yet: refused, nothing changed.
    refused = cas.post(path, {"unpaid": owed.pk}, HTTP_HX_REQUEST="true")
    assert "not ticked as paid" in refused.content.decode()
    page = cas.post(path, {"round": owed.pk}, HTTP_HX_REQUEST="true").content.decode()
    assert f'name="unpaid" value="{owed.pk}"' in page  # she may undo her own tick
    owed.refresh_from_db()
    paid_at = owed.paid_at
    # Dirk did not tick it and is no admin: he is not offered the undo, and may not.
    assert (
        f'name="unpaid" value="{owed.pk}"'
        not in dirk.get(path.replace("rounds/paid/", "")).content.decode()
    )
    refused = dirk.post(path, {"unpaid": owed.pk}, HTTP_HX_REQUEST="true")
    assert "or an admin" in refused.content.decode()
    owed.refresh_from_db()
    assert owed.paid_at == paid_at
    # Cas, who ticked it, undoes it: owed again, and tickable again.
    page = cas.post(path, {"unpaid": owed.pk}, HTTP_HX_REQUEST="true").content.decode()
    owed.refresh_from_db()
    assert owed.paid_at is None and owed.paid_by is None
    assert f'name="round" value="{owed.pk}"' in page
    # Ticked again by Dirk, an admin may undo his tick too.
    dirk.post(path, {"round": owed.pk}, HTTP_HX_REQUEST="true")
    anna.post(path, {"unpaid": owed.pk}, HTTP_HX_REQUEST="true")
    owed.refresh_from_db()
    assert owed.paid_at is None


def test_a_round_of_another_night_cannot_be_ticked_from_this_one(klaver: Cast) -> None:
    night, _ = played_night(klaver, rubbers=1)
    services.close_night(membership(klaver, klaver.anna), night)
    other = services.open_night(membership(klaver, klaver.anna))
    owed = Round.objects.filter(night=night).first()
    client = klaver.bram.client()
    path = url(klaver, f"nights/{other.pk}/rounds/paid/")
    for forged in (owed.pk, "abc", "", "-1", "99999999999999"):
        for button in ("round", "unpaid"):
            response = client.post(path, {button: forged}, follow=True)
            assert "There is no such round." in response.content.decode()
    owed.refresh_from_db()
    assert owed.paid_at is None


def test_ticking_a_round_needs_a_post_with_the_csrf_token(klaver: Cast) -> None:
    from django.test import Client

    night, _ = played_night(klaver, rubbers=1)
    owed = Round.objects.filter(night=night).first()
    client = Client(enforce_csrf_checks=True)
    client.force_login(klaver.bram.user)
    path = url(klaver, f"nights/{night.pk}/rounds/paid/")
    assert client.get(path).status_code == 405
    assert client.post(path, {"round": owed.pk}).status_code == 403
    owed.refresh_from_db()
    assert owed.paid_at is None


def test_a_closed_night_shows_what_is_still_owed(klaver: Cast) -> None:
    night, _ = played_night(klaver)
    response = klaver.anna.client().post(url(klaver, f"nights/{night.pk}/close/"), follow=True)
    assert "The night is closed." in response.content.decode()
    assert "Still owed when the night closed:" in response.content.decode()
    night.refresh_from_db()
    assert night.closed_at is not None


def test_a_member_cannot_open_a_night_unless_the_club_allows_it(klaver: Cast) -> None:
    client = klaver.bram.client()
    refused = client.post(url(klaver, "nights/open/"), follow=True)
    assert "Only the club&#x27;s admins open a night." in refused.content.decode()
    assert not Night.objects.exists()
    ClubNights.objects.create(club=klaver.club, members_open_nights=True)
    client.post(url(klaver, "nights/open/"))
    assert Night.objects.filter(opened_by=klaver.bram.user).exists()


def test_a_second_night_cannot_open_while_one_is_open(klaver: Cast) -> None:
    client = klaver.anna.client()
    client.post(url(klaver, "nights/open/"))
    again = client.post(url(klaver, "nights/open/"), follow=True)
    assert "A night is open already" in again.content.decode()
    assert Night.objects.count() == 1


def test_the_big_screen_and_its_live_board_show_the_night(klaver: Cast) -> None:
    night, _ = played_night(klaver, rubbers=1)
    client = klaver.bram.client()
    screen = client.get(url(klaver, f"nights/{night.pk}/screen/"))
    assert screen.status_code == 200
    assert 'hx-trigger="every 5s"' in screen.content.decode()
    board = client.get(url(klaver, f"nights/{night.pk}/live/?view=screen"))
    assert board.content.decode().lstrip().startswith('<div id="screen-board"')
    live = client.get(url(klaver, f"nights/{night.pk}/live/"))
    assert live.content.decode().lstrip().startswith('<div id="night-live"')


def test_the_nights_standings_download_as_csv(klaver: Cast) -> None:
    night, _ = played_night(klaver, rubbers=1)
    response = klaver.bram.client().get(url(klaver, f"nights/{night.pk}/standings.csv"))
    assert response["Content-Type"].startswith("text/csv")
    lines = response.content.decode().strip().splitlines()
    assert lines[0].startswith("Player,Rubbers,Won")
    assert len(lines) == 5


@pytest.mark.parametrize(
    "name", ["x;=1+1;", "x,=1+1,", "x\t=1+1", "x; -2+3", 'x;"@SUM(A1)', "=1+1"]
)
def test_a_name_opens_as_text_in_a_spreadsheet_whatever_separator_it_splits_on(
    klaver: Cast, name: str
) -> None:
    # Dutch and German spreadsheets split on ";", others on "," or a tab: after any of them,
    # a cell a name makes must not start a formula, nor after the spaces or quotes it may trim.
    night, _ = played_night(klaver, rubbers=1)
    assert PlayerRubber.objects.filter(night=night, name="Bram").update(name=name)
    text = klaver.bram.client().get(url(klaver, f"nights/{night.pk}/standings.csv")).content
    (line,) = [line for line in text.decode().splitlines() if "x" in line or "1+1" in line]
    for separator in (",", ";", "\t"):
        for cell in line.split(separator):
            assert cell.lstrip(' "')[:1] not in ("=", "+", "-", "@"), (separator, line)
    assert "1+1" in line or "-2+3" in line or "SUM(A1)" in line  # the name is still there


def test_the_settings_refuse_a_toepkoning_out_of_range_and_change_nothing(klaver: Cast) -> None:
    client = klaver.anna.client()
    path = url(klaver, "nights/settings/")
    for bad in ({"king_wins": "0"}, {"king_wins": "99"}, {"king_wins": "3", "round_amount": "-1"}):
        response = client.post(path, bad)
        assert response.status_code == 400
        assert 'class="errorlist' in response.content.decode()
    assert not ClubNights.objects.exists()
    client.post(path, {"king_wins": "4", "round_amount": "0.50"})
    conf = ClubNights.objects.get()
    assert (conf.king_wins, str(conf.round_amount)) == (4, "0.50")
    assert klaver.bram.client().post(path, {"king_wins": "2"}).status_code == 403


# -- seasons ----------------------------------------------------------------------------------


def test_a_season_gives_standings_by_its_points(klaver: Cast) -> None:
    played_night(klaver)
    from django.utils import timezone

    today = timezone.localdate()
    response = klaver.anna.client().post(
        url(klaver, "seasons/"),
        {
            "name": "Winter",
            "starts_on": today.isoformat(),
            "ends_on": today.isoformat(),
            "points_win": "3",
            "points_survive": "1",
            "points_lose": "0",
        },
    )
    season = Season.objects.get()
    assert response.status_code == 302
    page = klaver.bram.client().get(url(klaver, f"seasons/{season.pk}/"))
    html = page.content.decode()
    for name in ("Anna", "Bram", "Cas"):
        assert name in html
    assert "Guus" not in html  # a guest counts once she is a member
    csv = klaver.bram.client().get(url(klaver, f"seasons/{season.pk}/standings.csv"))
    rows = csv.content.decode().strip().splitlines()
    assert rows[0].startswith("Member,Points,Points per rubber")
    assert len(rows) == 4


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("ends_on", "2024-01-01", "A season cannot end before it starts."),
        ("starts_on", "2024-02-31", "Enter a valid date."),
        ("points_win", "11", "less than or equal to 10"),
        ("points_lose", "5", "A win must give more points than a loss"),
        ("name", " ", "This field is required."),
    ],
)
def test_a_bad_season_is_refused_with_a_clear_error(
    klaver: Cast, field: str, value: str, message: str
) -> None:
    data = {
        "name": "Winter",
        "starts_on": "2024-02-01",
        "ends_on": "2024-03-31",
        "points_win": "3",
        "points_survive": "1",
        "points_lose": "0",
        field: value,
    }
    response = klaver.anna.client().post(url(klaver, "seasons/"), data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Season.objects.exists()


def test_only_an_admin_creates_a_season(klaver: Cast) -> None:
    response = klaver.bram.client().post(url(klaver, "seasons/"), {"name": "Mine"})
    assert response.status_code == 403
    assert not Season.objects.exists()


# -- a player ---------------------------------------------------------------------------------


def test_a_players_page_shows_her_figures_plots_and_head_to_head(klaver: Cast) -> None:
    played_night(klaver, rubbers=3)
    page = klaver.anna.client().get(url(klaver, f"players/{klaver.bram.user.pk}/"))
    html = page.content.decode()
    assert page.status_code == 200
    assert "<svg" in html and "Rubbers played and won per month" in html
    assert "Head to head" in html and "Anna" in html and "Cas" in html
    assert "Lives lost per hand" in html
    assert f"/clubs/{klaver.club.slug}/hands/" in html


def test_a_player_of_no_concern_to_the_club_is_not_found(klaver: Cast) -> None:
    response = klaver.anna.client().get(url(klaver, f"players/{klaver.eva.user.pk}/"))
    assert response.status_code == 404


def test_the_players_page_is_a_bounded_number_of_queries(klaver: Cast) -> None:
    played_night(klaver, rubbers=1)
    client = klaver.anna.client()
    path = url(klaver, f"players/{klaver.bram.user.pk}/")
    client.get(path)
    with CaptureQueriesContext(connection) as few:
        client.get(path)
    table = open_table(klaver.club, klaver.anna, [klaver.bram, klaver.cas, klaver.dirk])
    players = {0: klaver.anna, 1: klaver.bram, 2: klaver.cas, 3: klaver.dirk}
    for number in range(3):
        if number:
            next_rubber(table, klaver.anna)
        play_rubber(table, players, seed=number + 20)
    with CaptureQueriesContext(connection) as more:
        client.get(path)
    assert len(more) == len(few)


# -- hands ------------------------------------------------------------------------------------


def test_a_finished_hand_replays_step_by_step_to_its_result(klaver: Cast) -> None:
    _, table = played_night(klaver, rubbers=1)
    hand = PlayedHand.objects.filter(rubber__table=table, complete=True).first()
    client = klaver.bram.client()
    first = client.get(url(klaver, f"hands/{hand.pk}/")).content.decode()
    assert "The deal: every hand open" in first
    # Every card of the deal is on the page, open.
    for cards in hand.record["hands"]:
        for card in cards:
            assert f'data-card="{card}"' in first
    last = len(hand.record["actions"])
    end = client.get(url(klaver, f"hands/{hand.pk}/?step={last}"), HTTP_HX_REQUEST="true")
    html = end.content.decode()
    assert html.lstrip().startswith('<section id="replay-step"')
    assert "wins the hand" in html or "Nobody wins the hand." in html
    assert 'id="replay-next"' not in html
    middle = client.get(url(klaver, f"hands/{hand.pk}/?step=1")).content.decode()
    assert 'id="replay-next"' in middle and 'id="replay-prev"' in middle


def test_a_hands_record_downloads_and_replays_as_the_hand_ended(klaver: Cast) -> None:
    from games.engine import replay

    _, table = played_night(klaver, rubbers=1)
    hand = PlayedHand.objects.filter(rubber__table=table, complete=True).first()
    response = klaver.bram.client().get(url(klaver, f"hands/{hand.pk}/record.json"))
    assert response["Content-Disposition"].startswith("attachment")
    assert replay(json.loads(response.content)) == hand.result


def test_an_admin_downloads_every_hand_as_json_lines(klaver: Cast) -> None:
    from games.engine import replay

    _, table = played_night(klaver, rubbers=1)
    response = klaver.anna.client().get(url(klaver, "hands.jsonl"))
    lines = b"".join(response.streaming_content).decode().strip().splitlines()
    hands = PlayedHand.objects.filter(rubber__table=table, complete=True).order_by("pk")
    assert len(lines) == hands.count()
    assert [replay(json.loads(line)) for line in lines] == [h.result for h in hands]
    assert klaver.bram.client().get(url(klaver, "hands.jsonl")).status_code == 403


def test_a_guest_sees_the_hands_she_played_and_no_others(klaver: Cast) -> None:
    _, table = played_night(klaver, rubbers=1)
    hers = PlayedHand.objects.filter(rubber__table=table, complete=True).first()
    other = open_table(klaver.club, klaver.anna, [klaver.bram, klaver.cas])
    play_rubber(other, {0: klaver.anna, 1: klaver.bram, 2: klaver.cas})
    not_hers = PlayedHand.objects.filter(rubber__table=other, complete=True).first()
    guus = klaver.guus.client()
    assert guus.get(url(klaver, f"hands/{hers.pk}/")).status_code == 200
    assert guus.get(url(klaver, f"hands/{hers.pk}/record.json")).status_code == 200
    assert guus.get(url(klaver, f"hands/{not_hers.pk}/")).status_code == 404
    assert guus.get(url(klaver, f"hands/{not_hers.pk}/record.json")).status_code == 404
    listed = guus.get(url(klaver, "hands/")).content.decode()
    assert f"/hands/{hers.pk}/" in listed and f"/hands/{not_hers.pk}/" not in listed
    for page in ("nights/", f"nights/{table.night_id}/", f"players/{klaver.anna.user.pk}/"):
        assert guus.get(url(klaver, page)).status_code == 404


def test_a_guest_who_was_not_dealt_in_a_hand_of_her_rubber_does_not_see_it(
    klaver: Cast,
) -> None:
    _, table = played_night(klaver, rubbers=1)
    rubber = table.rubbers.get()
    guus_seat = RubberPlayer.objects.get(rubber=rubber, guest=klaver.guus.guest).seat
    hand = PlayedHand.objects.filter(rubber=rubber, complete=True).first()
    hand.seats = [s for s in hand.seats if s != guus_seat]
    hand.save()
    assert klaver.guus.client().get(url(klaver, f"hands/{hand.pk}/")).status_code == 404


def test_a_guest_who_gets_up_mid_rubber_replays_only_the_hands_she_held(klaver: Cast) -> None:
    # Lives enough that her first hand does not end the rubber.
    klaver.club.profiles.filter(is_default=True).update(
        rules_json=HouseRules(starting_lives=5).to_json()
    )
    table = open_table(klaver.club, klaver.anna, [klaver.bram, klaver.cas, klaver.guus])
    players = {0: klaver.anna, 1: klaver.bram, 2: klaver.cas, 3: klaver.guus}
    rng = random.Random(3)
    # Her first hand played out, the next not yet dealt: she gets up, a computer player sits.
    while PlayedHand.objects.filter(rubber__table=table, complete=True).count() < 1:
        assert step(table.pk, players, rng), "the rubber ended first"
    tables.leave_seat(table.pk, 3, klaver.guus.holder)
    del players[3]
    play_rubber(table, players)
    hands = list(PlayedHand.objects.filter(rubber__table=table, complete=True).order_by("number"))
    assert len(hands) > 1 and all(3 in hand.seats for hand in hands[:2])
    hers, bots = hands[0], hands[1:]
    guus = klaver.guus.client()
    assert guus.get(url(klaver, f"hands/{hers.pk}/")).status_code == 200
    listed = guus.get(url(klaver, "hands/")).content.decode()
    assert f"/hands/{hers.pk}/" in listed
    for hand in bots:
        assert f"/hands/{hand.pk}/" not in listed
        assert guus.get(url(klaver, f"hands/{hand.pk}/")).status_code == 404
        assert guus.get(url(klaver, f"hands/{hand.pk}/record.json")).status_code == 404
    # Her rubber still counts for her, as it was when she got up.
    assert RubberPlayer.objects.get(rubber__table=table, seat=3).guest == klaver.guus.guest


@pytest.mark.parametrize(
    "page",
    [
        "nights/",
        "nights/{night}/",
        "nights/{night}/screen/",
        "nights/{night}/live/",
        "nights/{night}/standings.csv",
        "seasons/",
        "players/{anna}/",
        "hands/",
        "hands/{hand}/",
        "hands/{hand}/record.json",
        "hands.jsonl",
    ],
)
def test_someone_outside_the_club_gets_404_everywhere(klaver: Cast, page: str) -> None:
    night, table = played_night(klaver, rubbers=1)
    hand = PlayedHand.objects.filter(rubber__table=table, complete=True).first()
    path = url(klaver, page.format(night=night.pk, anna=klaver.anna.user.pk, hand=hand.pk))
    assert klaver.eva.client().get(path).status_code == 404
    from django.test import Client

    assert Client().get(path).status_code == 404


def test_another_clubs_night_and_hands_are_not_found_from_this_club(klaver: Cast) -> None:
    night, table = played_night(klaver, rubbers=1)
    hand = PlayedHand.objects.filter(rubber__table=table, complete=True).first()
    Membership.objects.create(club=klaver.other, user=klaver.bram.user)
    client = klaver.bram.client()
    other = f"/clubs/{klaver.other.slug}/"
    assert client.get(f"{other}nights/{night.pk}/").status_code == 404
    assert client.get(f"{other}hands/{hand.pk}/").status_code == 404
    assert client.get(f"{other}hands/{hand.pk}/record.json").status_code == 404
    assert client.get(f"{other}players/{klaver.anna.user.pk}/").status_code == 404
    assert client.get(url(klaver, "hands/999999/")).status_code == 404
    assert client.get(url(klaver, "hands/abc/")).status_code == 404
    assert client.get(url(klaver, f"hands/{hand.pk}/?step=99999999999")).status_code == 200


# Not whole numbers as a URL's path reads one: digits of other scripts and superscripts (which
# `str.isdigit` takes and `int` refuses), signs, fractions, spaces, and more digits than a
# database's bigint holds.
NOT_WHOLE_NUMBERS = ["\u00b2", "\u2460", "\u0663", "-3", "+1", "1.5", " 1", "1e3", "9" * 20]


@pytest.mark.parametrize("raw", NOT_WHOLE_NUMBERS)
def test_a_number_in_a_query_string_that_is_no_whole_number_is_not_found(
    klaver: Cast, raw: str
) -> None:
    _, table = played_night(klaver, rubbers=1)
    hand = PlayedHand.objects.filter(rubber__table=table, complete=True).first()
    client = klaver.anna.client()
    client.raise_request_exception = False
    assert client.get(url(klaver, "hands/"), {"rubber": raw}).status_code == 404
    assert client.get(url(klaver, f"hands/{hand.pk}/"), {"step": raw}).status_code == 404
    # Read the one way, a number that is one still finds what it names.
    shown = client.get(url(klaver, "hands/"), {"rubber": str(hand.rubber_id)})
    assert shown.status_code == 200 and f"/hands/{hand.pk}/" in shown.content.decode()


@pytest.mark.parametrize("raw", NOT_WHOLE_NUMBERS)
def test_a_round_named_by_no_whole_number_is_refused_and_nothing_is_paid(
    klaver: Cast, raw: str
) -> None:
    night, _ = played_night(klaver)
    client = klaver.bram.client()
    client.raise_request_exception = False
    for field in ("round", "unpaid"):
        response = client.post(
            url(klaver, f"nights/{night.pk}/rounds/paid/"), {field: raw}, HTTP_HX_REQUEST="true"
        )
        assert response.status_code == 200
        assert "There is no such round." in response.content.decode()
    assert not Round.objects.filter(night=night, paid_at__isnull=False).exists()


@pytest.mark.parametrize(
    "page",
    [
        "nights/{big}/",
        "nights/{big}/standings.csv",
        "seasons/{big}/",
        "players/{big}/",
        "hands/{big}/",
        "hands/{big}/record.json",
        "profiles/{big}/",
    ],
)
def test_an_id_in_a_path_larger_than_any_key_is_not_found(klaver: Cast, page: str) -> None:
    client = klaver.anna.client()
    client.raise_request_exception = False
    assert client.get(url(klaver, page.format(big="9" * 30))).status_code == 404


def test_nothing_of_a_hand_under_way_reaches_any_page_or_download(klaver: Cast) -> None:
    """A hand is being played: its page and record are not found, and neither its id, nor its
    cards as dealt, nor its stock appear on any page, list or download of the club."""
    night, table = played_night(klaver, rubbers=1)
    next_rubber(table, klaver.anna)
    play_until_hand(table, {0: klaver.anna, 1: klaver.bram, 2: klaver.cas, 3: klaver.guus})
    live = PlayedHand.objects.get(rubber__table=table, complete=False)
    assert live.record["actions"], "under way"
    admin, guest = klaver.anna.client(), klaver.guus.client()
    assert admin.get(url(klaver, f"hands/{live.pk}/")).status_code == 404
    assert admin.get(url(klaver, f"hands/{live.pk}/record.json")).status_code == 404
    assert guest.get(url(klaver, f"hands/{live.pk}/")).status_code == 404
    secrets = [json.dumps(cards) for cards in live.record["hands"]]
    secrets += [json.dumps(live.record["stock"]), f"/hands/{live.pk}/"]
    seen = []
    for path in (
        "nights/",
        f"nights/{night.pk}/",
        f"nights/{night.pk}/live/",
        f"nights/{night.pk}/live/?view=screen",
        f"nights/{night.pk}/screen/",
        f"nights/{night.pk}/standings.csv",
        f"players/{klaver.bram.user.pk}/",
        "hands/",
        f"hands/?rubber={live.rubber_id}",
        "seasons/",
    ):
        response = admin.get(url(klaver, path))
        assert response.status_code == 200, path
        seen.append(response.content.decode())
    seen.append(guest.get(url(klaver, "hands/")).content.decode())
    export = b"".join(admin.get(url(klaver, "hands.jsonl")).streaming_content).decode()
    seen.append(export)
    for line in export.splitlines():
        assert json.loads(line)["hands"] != live.record["hands"]
    compact = [s.replace(", ", ",") for s in secrets]
    for text in seen:
        for secret in secrets + compact:
            assert secret not in text


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("nl", ("Rondjes te geven", "Afgelopen potjes", "Stand")),
        ("de", ("Noch auszugebende Lagen", "Beendete Partien", "Klopfkönig")),
        ("en", ("Rounds owed", "Rubbers finished", "Toepkoning")),
    ],
)
def test_the_nights_page_speaks_dutch_german_and_english(
    klaver: Cast, language: str, words: tuple[str, ...]
) -> None:
    night, table = played_night(klaver, rubbers=1)
    hand = PlayedHand.objects.filter(rubber__table=table, complete=True).first()
    client = klaver.bram.client()
    client.cookies["django_language"] = language
    html = client.get(url(klaver, f"nights/{night.pk}/"), HTTP_ACCEPT_LANGUAGE=language)
    for word in words:
        assert word in html.content.decode()
    replay = client.get(url(klaver, f"hands/{hand.pk}/"), HTTP_ACCEPT_LANGUAGE=language)
    deal = {"nl": "Het delen", "de": "Das Geben", "en": "The deal"}[language]
    assert deal in replay.content.decode()


def test_a_slate_rubber_of_the_night_counts_and_its_hands_replay(klaver: Cast) -> None:
    from nights.models import PlayerRubber
    from tests.services.test_slate_tables import open_slate, play_out

    night = services.open_night(membership(klaver, klaver.anna))
    table = open_slate(klaver)
    assert Table.objects.get(pk=table.pk).night_id == night.pk
    play_out(table)
    rubber = Rubber.objects.get(table=table)
    assert rubber.over
    booked = PlayerRubber.objects.filter(rubber=rubber).select_related("participant")
    lost = {row.seat: row.lives_lost for row in RubberPlayer.objects.filter(rubber=rubber)}
    assert {row.participant.seat: row.lives_lost for row in booked} == lost
    # Counted from the slate records, hand by hand, as for a dealt hand.
    assert all(row.hands > 0 for row in booked) and sum(row.knocks for row in booked) > 0
    page = klaver.bram.client().get(url(klaver, f"nights/{night.pk}/")).content.decode()
    assert "Anna" in page and Round.objects.filter(night=night).count() == len(rubber.losers)
    hand = PlayedHand.objects.filter(rubber=rubber, complete=True).first()
    client = klaver.bram.client()
    deal = client.get(url(klaver, f"hands/{hand.pk}/")).content.decode()
    assert "The deal with real cards" in deal
    end = len(hand.record["actions"])
    last = client.get(url(klaver, f"hands/{hand.pk}/?step={end}")).content.decode()
    taker = hand.record["actions"][-1]["seat"]
    assert f"{hand.record['players'][taker]} takes the last trick." in last


def test_the_big_screen_names_each_tables_state_and_cuts_its_lists_with_a_count(
    klaver: Cast,
) -> None:
    from tests.nights.crowd import crowd

    night, table = played_night(klaver, rubbers=1)
    crowd(night, table)
    page = klaver.bram.client().get(url(klaver, f"nights/{night.pk}/screen/")).content.decode()
    states = dict(
        re.findall(r'<strong>(CRW\d+)</strong> <span class="table-state" data-state="(\w+)"', page)
    )
    # Finished and paused tables are not "in play".
    assert [states[f"CRW00{i}"] for i in range(4)] == [
        "playing",
        "paused",
        "rubber_over",
        "waiting",
    ]
    assert "Tables in play" not in page
    assert ">paused: nobody at it<" in page and ">rubber over<" in page
    standings = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert standings.count("<tr") == 12
    assert "more players" in page and "more tables" in page


def test_a_players_knock_rate_reads_as_a_percentage_and_her_months_as_months(
    klaver: Cast,
) -> None:
    from django.utils import timezone

    played_night(klaver, rubbers=3)
    figures = PlayerRubber.objects.filter(user=klaver.bram.user)
    figures.update(knocks=4, knocks_won=3)
    html = (
        klaver.anna.client()
        .get(url(klaver, f"players/{klaver.bram.user.pk}/"), HTTP_ACCEPT_LANGUAGE="nl")
        .content.decode()
    )
    knocks = 4 * figures.count()
    # The plots' coordinates ("320.0,75.6") are no figure a reader reads.
    text = re.sub(r"<svg.*?</svg>", "", html, flags=re.DOTALL)
    assert f"{knocks} (75% gewonnen)" in text and "0,75" not in text
    ticks = re.findall(r'<text class="tick"[^>]*>([^<]+)</text>', html)
    months = [tick for tick in ticks if re.fullmatch(r"\w{3}\.? \d+", tick)]
    assert months and all(month.endswith(f" {timezone.now().year}") for month in months), ticks
