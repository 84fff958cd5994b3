"""The table pages: opening a table, taking a seat (members, guests, a shared phone), access."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from django.test import Client, override_settings

from accounts.models import Guest
from games import throttle
from games.models import Seat, Table
from games.services import tables
from tests.names import DECEPTIVE
from tests.personas import Cast

pytestmark = pytest.mark.django_db


def signed_in(person) -> Client:
    client = Client()
    client.force_login(person.user)
    return client


def new_table_form(**overrides: str) -> dict[str, str]:
    data = {"profile": "", "seat_count": "4", "allow_spectators": "on", "seat_1": "easy"}
    data |= {"seat_2": "normal", "seat_3": ""}
    data.update(overrides)
    return data


def test_a_member_opens_a_table_and_sits_at_its_first_seat(klaver: Cast) -> None:
    anna = signed_in(klaver.anna)
    response = anna.post(f"/clubs/{klaver.club.slug}/tables/new/", new_table_form())
    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/t/{table.code}/"
    seats = list(table.seats.order_by("index"))
    assert [s.bot_level for s in seats] == ["", "easy", "normal", ""]
    assert seats[0].user == klaver.anna.user
    page = anna.get(f"/t/{table.code}/").content.decode()
    assert "is-mine" in page and "<svg" in page and table.code in page


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ["What the computer players do", "counts nothing", "knocks only when sure"]),
        ("nl", ["Wat de computerspelers doen", "telt niets", "alleen toept als ze zeker is"]),
        ("de", ["Was die Computerspieler tun", "zählt nichts", "nur klopft, wenn er sicher ist"]),
    ],
)
def test_the_new_table_page_says_what_each_computer_level_does(
    klaver: Cast, language: str, words: list[str]
) -> None:
    anna = signed_in(klaver.anna)
    page = anna.get(f"/clubs/{klaver.club.slug}/tables/new/", HTTP_ACCEPT_LANGUAGE=language)
    text = page.content.decode()
    for word in words:
        assert word in text


def test_a_bad_table_form_says_why_and_opens_nothing(klaver: Cast) -> None:
    anna = signed_in(klaver.anna)
    for bad in ({"seat_count": "9"}, {"seat_count": "2"}, {"seat_1": "grandmaster"}):
        response = anna.post(f"/clubs/{klaver.club.slug}/tables/new/", new_table_form(**bad))
        assert response.status_code == 200
        assert "errorlist" in response.content.decode()
    assert not Table.objects.exists()


def test_a_non_member_cannot_open_a_table_for_the_club(klaver: Cast) -> None:
    eva = signed_in(klaver.eva)
    assert eva.get(f"/clubs/{klaver.club.slug}/tables/new/").status_code == 404
    assert eva.post(f"/clubs/{klaver.club.slug}/tables/new/", new_table_form()).status_code == 404
    assert not Table.objects.exists()


def waiting_table(klaver: Cast, **kwargs) -> Table:
    return tables.create_table(
        club=klaver.club, user=klaver.anna.user, holder_key=klaver.anna.holder_key, **kwargs
    )


def test_a_guest_with_the_code_takes_a_free_seat_by_name(klaver: Cast) -> None:
    table = waiting_table(klaver, bots={2: "easy", 3: "easy"})
    guest = Client()
    page = guest.get(f"/t/{table.code}/")
    assert page.status_code == 200 and 'name="name"' in page.content.decode()
    response = guest.post(f"/t/{table.code}/join/", {"name": "  Fenna  "})
    assert response.status_code == 302
    seat = Seat.objects.get(table=table, index=1)
    assert seat.name == "Fenna" and seat.guest is not None and seat.guest.display_name == "Fenna"
    assert "is-mine" in guest.get(f"/t/{table.code}/").content.decode()


def test_a_second_player_on_the_same_phone_gets_a_seat_of_her_own(klaver: Cast) -> None:
    table = waiting_table(klaver, bots={3: "easy"})
    phone = Client()
    phone.post(f"/t/{table.code}/join/", {"name": "Fenna"})
    phone.post(f"/t/{table.code}/join/", {"name": "Gijs"})
    first, second = Seat.objects.get(table=table, index=1), Seat.objects.get(table=table, index=2)
    assert (first.name, second.name) == ("Fenna", "Gijs")
    assert first.holder_key == second.holder_key != ""
    assert first.guest != second.guest


def test_joining_without_a_name_changes_nothing(klaver: Cast) -> None:
    table = waiting_table(klaver, bots={2: "easy", 3: "easy"})
    guest = Client()
    guest.get(f"/t/{table.code}/")
    response = guest.post(f"/t/{table.code}/join/", {"name": "   "}, follow=True)
    assert Seat.objects.get(table=table, index=1).is_free
    assert "name" in response.content.decode().lower()


@pytest.mark.parametrize("name", DECEPTIVE)
def test_a_seat_name_that_looks_blank_or_turns_text_around_is_refused_with_a_reason(
    klaver: Cast, name: str
) -> None:
    table = waiting_table(klaver, bots={2: "easy", 3: "easy"})
    guest = Client()
    guest.get(f"/t/{table.code}/")
    response = guest.post(f"/t/{table.code}/join/", {"name": name}, follow=True)
    assert Seat.objects.get(table=table, index=1).is_free
    assert list(Guest.objects.all()) == [klaver.guus.guest]  # no guest made of that name
    page = response.content.decode()
    assert "nothing visible" in page or "turn text around" in page


def test_a_taken_seat_cannot_be_taken_again(klaver: Cast) -> None:
    table = waiting_table(klaver, bots={2: "easy", 3: "easy"})
    Client().post(f"/t/{table.code}/join/", {"name": "Fenna", "seat": "1"})
    Client().post(f"/t/{table.code}/join/", {"name": "Gijs", "seat": "1"})
    assert Seat.objects.get(table=table, index=1).name == "Fenna"


def errors_in(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]


def seats_of(table: Table) -> list[tuple]:
    return list(table.seats.order_by("index").values_list("index", "name", "guest", "user"))


@pytest.mark.parametrize("index", ["7", "99999999999999999999999"])
def test_leaving_a_seat_that_does_not_exist_says_so_and_changes_nothing(
    klaver: Cast, caplog, index: str
) -> None:
    table = waiting_table(klaver, bots={2: "easy", 3: "easy"})
    guest = Client()
    guest.post(f"/t/{table.code}/join/", {"name": "Fenna"})
    before = seats_of(table)
    response = guest.post(f"/t/{table.code}/seats/{index}/leave/", follow=True)
    assert response.status_code == 200
    assert "There is no such seat." in response.content.decode()
    assert seats_of(table) == before
    assert not errors_in(caplog)


@pytest.mark.parametrize(
    ("seat", "message"),
    [
        ("2", "That seat is taken."),
        ("7", "There is no such seat."),
        ("99999999999999999999999", "There is no such seat."),
    ],
)
def test_a_refused_join_of_another_player_on_this_phone_creates_no_guest(
    klaver: Cast, caplog, seat: str, message: str
) -> None:
    table = waiting_table(klaver, bots={2: "easy", 3: "easy"})
    phone = Client()
    phone.post(f"/t/{table.code}/join/", {"name": "Fenna"})
    guests, before = Guest.objects.count(), seats_of(table)
    response = phone.post(f"/t/{table.code}/join/", {"name": "Gijs", "seat": seat}, follow=True)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert Guest.objects.count() == guests
    assert seats_of(table) == before
    assert not errors_in(caplog)


def test_another_player_on_this_phone_cannot_join_a_running_rubber_and_no_guest_is_made(
    klaver: Cast, caplog
) -> None:
    table = waiting_table(klaver, bots={2: "easy", 3: "easy"})
    phone = Client()
    phone.post(f"/t/{table.code}/join/", {"name": "Fenna"})
    tables.start_rubber(table.pk, klaver.anna.user)
    guests = Guest.objects.count()
    response = phone.post(f"/t/{table.code}/join/", {"name": "Gijs"}, follow=True)
    assert "Seats are taken before a rubber starts." in response.content.decode()
    assert Guest.objects.count() == guests
    assert not errors_in(caplog)


def test_a_refused_first_join_of_a_guest_creates_no_guest_and_holds_none(
    klaver: Cast, caplog
) -> None:
    table = waiting_table(klaver, bots={2: "easy", 3: "easy"})
    stranger = Client()
    response = stranger.post(f"/t/{table.code}/join/", {"name": "Gijs", "seat": "2"}, follow=True)
    assert "That seat is taken." in response.content.decode()
    assert list(Guest.objects.all()) == [klaver.guus.guest]
    assert "guest_id" not in stranger.session
    assert not errors_in(caplog)


def test_a_full_table_in_play_is_hidden_from_strangers_but_shown_to_watching_members(
    klaver: Cast,
) -> None:
    table = waiting_table(klaver, bots={1: "easy", 2: "easy", 3: "easy"})
    tables.start_rubber(table.pk, klaver.anna.user)
    for stranger in (Client(), signed_in(klaver.eva)):
        # Told that a rubber is on, and nothing more of the table.
        shown = stranger.get(f"/t/{table.code}/").content.decode()
        assert "A rubber is being played at this table" in shown
        assert "Anna" not in shown and "table-live" not in shown and 'class="card' not in shown
    page = signed_in(klaver.bram).get(f"/t/{table.code}/")
    assert page.status_code == 200
    assert not re.search(r'id="table-hand"[^>]*data-seat', page.content.decode())


def test_a_member_not_at_the_table_cannot_start_the_rubber(klaver: Cast) -> None:
    table = waiting_table(klaver, bots={1: "easy", 2: "easy", 3: "easy"})
    signed_in(klaver.bram).post(f"/t/{table.code}/start/")
    assert Table.objects.get(pk=table.pk).status == Table.Status.WAITING
    signed_in(klaver.anna).post(f"/t/{table.code}/start/")
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING


def test_state_changes_refuse_get_and_need_csrf(klaver: Cast) -> None:
    table = waiting_table(klaver, bots={1: "easy", 2: "easy", 3: "easy"})
    anna = signed_in(klaver.anna)
    assert anna.get(f"/t/{table.code}/start/").status_code == 405
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(klaver.anna.user)
    assert strict.post(f"/t/{table.code}/start/").status_code == 403
    assert Table.objects.get(pk=table.pk).status == Table.Status.WAITING


def test_typing_a_code_finds_the_table_or_says_there_is_none(klaver: Cast) -> None:
    table = waiting_table(klaver)
    found = Client().get("/play/", {"code": f" {table.code.lower()} "})
    assert found.status_code == 302 and found["Location"] == f"/t/{table.code}/"
    missing = Client().get("/play/", {"code": "ZZZZZZ"})
    assert missing.status_code == 200 and "no table" in missing.content.decode().lower()


@pytest.fixture
def one_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """A throttle counts in fixed stretches of the clock: a test that ran across the end of one
    would start counting afresh. Here the throttles' clock stands still."""
    monkeypatch.setattr(throttle, "time", SimpleNamespace(time=lambda: 1_800_000_000.0))


@pytest.mark.usefixtures("one_window")
def test_guessing_table_codes_is_throttled_per_client_and_right_codes_never_count(
    klaver: Cast, settings
) -> None:
    settings.TOEPEN_CODE_GUESS_RATE = (5, 600)
    table = waiting_table(klaver, bots={2: "easy", 3: "easy"})
    guesser = Client(REMOTE_ADDR="203.0.113.9", HTTP_ACCEPT_LANGUAGE="nl")
    for _ in range(8):  # someone who knows the code comes back as often as she likes
        assert guesser.get("/play/", {"code": table.code}).status_code == 302
        assert guesser.get(f"/t/{table.code}/").status_code == 200
    # Wrong codes count, at /play/ and at a table's address alike.
    for guess in ("AAAAAA", "BBBBBB", "CCCCCC"):
        assert guesser.get("/play/", {"code": guess}).status_code == 200
    for guess in ("DDDDDD", "EEEEEE"):
        assert guesser.get(f"/t/{guess}/").status_code == 404
    refused = guesser.get("/play/", {"code": table.code})
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 601
    assert "Te vaak geprobeerd" in refused.content.decode()
    assert guesser.get(f"/t/{table.code}/").status_code == 429
    assert guesser.post(f"/t/{table.code}/join/", {"name": "Gijs"}).status_code == 429
    assert Seat.objects.get(table=table, index=1).is_free
    # Another client is not held back by this one.
    assert Client(REMOTE_ADDR="198.51.100.7").get(f"/t/{table.code}/").status_code == 200


@pytest.mark.usefixtures("one_window")
def test_taking_seats_is_throttled_per_client(klaver: Cast, settings) -> None:
    settings.TOEPEN_JOIN_RATE = (3, 60)
    table = waiting_table(klaver, seat_count=6)
    for n in range(3):
        response = Client().post(f"/t/{table.code}/join/", {"name": f"Gast {n}"})
        assert response.status_code == 302
    response = Client().post(f"/t/{table.code}/join/", {"name": "Gast 4"})
    assert response.status_code == 429
    assert "Too many tries" in response.content.decode()
    assert Guest.objects.exclude(pk=klaver.guus.guest.pk).count() == 3


def test_the_table_page_names_its_own_websocket_in_its_policy(klaver: Cast) -> None:
    # 'self' covers a same-origin websocket only in CSP Level 3 browsers (Safari from 16).
    table = waiting_table(klaver)

    def connect_src(**extra: object) -> str:
        response = Client().get(f"/t/{table.code}/", HTTP_HOST="toepen.example.nl:8000", **extra)
        policy = response["Content-Security-Policy"]
        assert "script-src 'self';" in policy
        return next(d for d in policy.split("; ") if d.startswith("connect-src"))

    with override_settings(ALLOWED_HOSTS=["toepen.example.nl"]):
        assert connect_src() == "connect-src 'self' ws://toepen.example.nl:8000"
        assert connect_src(secure=True) == "connect-src 'self' wss://toepen.example.nl:8000"


def test_closing_a_table_with_a_rubber_under_way_asks_first_and_says_what_is_lost(
    klaver: Cast,
) -> None:
    table = waiting_table(klaver, bots={1: "easy", 2: "easy", 3: "easy"})
    anna = signed_in(klaver.anna)
    anna.post(f"/t/{table.code}/start/")
    # The live view offers a link to ask, not a button that closes, and not among the actions.
    live = anna.get(f"/t/{table.code}/").content.decode()
    assert 'class="table-close"' in live and "action-close" not in live
    actions = live.split('id="table-actions"', 1)[1].split("</div>", 1)[0]
    assert "/close/" not in actions
    page = anna.get(f"/t/{table.code}/close/").content.decode()
    assert "Rubber 1 is under way" in page and "abandons it" in page
    assert 'name="confirm" value="abandon"' in page
    # A close that does not carry the confirmation closes nothing: it asks.
    response = anna.post(f"/t/{table.code}/close/")
    assert (
        response.status_code == 200 and "Close and abandon the rubber" in response.content.decode()
    )
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
    # Nobody else is asked, nor may close it.
    assert signed_in(klaver.bram).get(f"/t/{table.code}/close/").status_code == 403
    signed_in(klaver.bram).post(f"/t/{table.code}/close/", {"confirm": "abandon"})
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(klaver.anna.user)
    assert strict.post(f"/t/{table.code}/close/", {"confirm": "abandon"}).status_code == 403
    anna.post(f"/t/{table.code}/close/", {"confirm": "abandon"})
    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED
    assert table.rubbers.get().abandoned


def test_a_table_with_no_rubber_under_way_closes_from_its_page_at_once(klaver: Cast) -> None:
    table = waiting_table(klaver, bots={1: "easy"})
    anna = signed_in(klaver.anna)
    assert "nothing is lost" in anna.get(f"/t/{table.code}/close/").content.decode()
    anna.post(f"/t/{table.code}/close/")
    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED
