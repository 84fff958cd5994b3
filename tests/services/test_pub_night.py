"""What went wrong at a pub night, at the services and pages: refusals that name their real
reason, who may start a rubber, and what a stranger with a running table's code is told."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from clubs.models import HouseRuleProfile
from games.engine import HouseRules
from games.models import Table
from games.services import tables
from games.services.state import HOLDER_SESSION_KEY, Holder
from games.services.tables import TableError
from tests.personas import Cast
from tests.tables import seat_people

pytestmark = pytest.mark.django_db


def holder(person) -> Holder:
    return Holder(user_id=person.user.pk, key=person.holder_key)


def table_of_three(klaver: Cast, rules: HouseRules, start: bool = True) -> Table:
    profile = HouseRuleProfile.objects.create(
        club=klaver.club, name="pub rules", rules_json=rules.to_json()
    )
    table = tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        profile=profile,
        seat_count=3,
        holder_key=klaver.anna.holder_key,
    )
    seat_people(table.pk, [(1, klaver.bram), (2, klaver.cas)])
    if start:
        tables.start_rubber(table.pk, klaver.anna.user)
    return Table.objects.get(pk=table.pk)


def act(table: Table, person, seat: int, **payload) -> None:
    tables.act(table.pk, holder(person), seat, payload, uuid.uuid4().hex)


FOLDING = HouseRules(exchange=False, voluntary_fold=True, response_order="sequential")


def test_a_fold_before_ones_answer_is_due_is_refused_for_the_answers_awaited(
    klaver: Cast,
) -> None:
    table = table_of_three(klaver, FOLDING)
    act(table, klaver.bram, 1, act="knock")  # cas answers first, then anna
    with pytest.raises(TableError) as early:
        act(table, klaver.anna, 0, act="fold")
    assert early.value.code == "not_your_turn"  # the hand record's code stays
    assert str(early.value.message) == "Wait: answers to the knock come first."


def test_a_fold_after_ones_own_answer_is_refused_for_the_answers_still_awaited(
    klaver: Cast,
) -> None:
    table = table_of_three(klaver, FOLDING)
    act(table, klaver.cas, 2, act="knock")  # anna answers first, then bram
    act(table, klaver.anna, 0, act="stay")
    with pytest.raises(TableError) as after:
        act(table, klaver.anna, 0, act="fold")
    assert after.value.code == "not_awaited"
    assert str(after.value.message) == "Wait: answers to the knock come first."


def test_an_answer_out_of_turn_is_refused_for_the_answers_before_it(klaver: Cast) -> None:
    table = table_of_three(klaver, FOLDING)
    act(table, klaver.bram, 1, act="knock")
    with pytest.raises(TableError) as early:
        act(table, klaver.anna, 0, act="stay")
    assert str(early.value.message) == "Wait: answers to the knock come first."


# -- who starts a rubber ------------------------------------------------------------------------


def signed_in(person) -> Client:
    client = Client()
    client.force_login(person.user)
    session = client.session
    session[HOLDER_SESSION_KEY] = person.holder_key
    session.save()
    return client


def test_a_player_who_did_not_open_the_table_starts_the_next_rubber(klaver: Cast) -> None:
    table = table_of_three(klaver, HouseRules(), start=False)
    page = signed_in(klaver.bram).get(f"/t/{table.code}/").content.decode()
    assert "Start the rubber" in page
    response = signed_in(klaver.bram).post(f"/t/{table.code}/start/", HTTP_HX_REQUEST="true")
    assert response.status_code == 204
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING


def test_a_guest_at_the_table_starts_the_rubber(klaver: Cast) -> None:
    table = tables.create_table(
        club=klaver.club, user=klaver.anna.user, seat_count=3, holder_key=klaver.anna.holder_key
    )
    seat_people(table.pk, [(1, klaver.bram)])
    fenna = Client()
    fenna.post(f"/t/{table.code}/join/", {"name": "Fenna"})
    fenna.post(f"/t/{table.code}/start/")
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING


def test_a_refused_start_from_the_live_page_comes_back_as_the_refusal_box(klaver: Cast) -> None:
    table = tables.create_table(
        club=klaver.club, user=klaver.anna.user, seat_count=3, holder_key=klaver.anna.holder_key
    )
    response = signed_in(klaver.anna).post(f"/t/{table.code}/start/", HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    body = response.content.decode()
    assert body.startswith('<div id="table-error"') and 'hx-swap-oob="true"' in body
    assert "Every seat needs a player or a computer player." in body
    assert 'data-code="seats_free"' in body
    assert Table.objects.get(pk=table.pk).status == Table.Status.WAITING


def test_a_stranger_cannot_start_a_rubber(klaver: Cast) -> None:
    table = table_of_three(klaver, HouseRules(), start=False)
    response = Client().post(f"/t/{table.code}/start/", HTTP_HX_REQUEST="true")
    assert "Only the players at the table start a rubber." in response.content.decode()
    assert Table.objects.get(pk=table.pk).status == Table.Status.WAITING


# -- a table with no seat for the visitor -------------------------------------------------------


def waiting_table(klaver: Cast, **kwargs) -> Table:
    """Anna's three-seat table with two computer players: full, its rubber not started."""
    return tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        seat_count=3,
        bots={1: "easy", 2: "easy"},
        holder_key=klaver.anna.holder_key,
        **kwargs,
    )


def running_table(klaver: Cast, **kwargs) -> Table:
    table = waiting_table(klaver, **kwargs)
    tables.start_rubber(table.pk, klaver.anna.user)
    return table


def test_a_guest_with_a_running_tables_code_is_told_it_runs_and_that_members_may_watch(
    klaver: Cast,
) -> None:
    table = running_table(klaver)
    response = Client().get(f"/t/{table.code}/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "A rubber is being played at this table" in page
    assert f'href="/accounts/login/?next=/t/{table.code}/"' in page
    assert klaver.club.name not in page and "Anna" not in page and "table-live" not in page


def test_a_member_of_another_club_is_told_only_members_watch(klaver: Cast) -> None:
    table = running_table(klaver)
    page = signed_in(klaver.eva).get(f"/t/{table.code}/").content.decode()
    assert "Only members of its club may watch it." in page
    assert "Sign in to watch" not in page and "Anna" not in page


def test_a_member_is_told_when_a_table_lets_nobody_watch(klaver: Cast) -> None:
    table = running_table(klaver, allow_spectators=False)
    page = signed_in(klaver.bram).get(f"/t/{table.code}/").content.decode()
    assert "This table does not let others watch." in page
    guest = Client().get(f"/t/{table.code}/").content.decode()
    assert "Sign in to watch" not in guest


def test_a_full_waiting_table_says_it_is_full(klaver: Cast) -> None:
    table = waiting_table(klaver)
    page = Client().get(f"/t/{table.code}/").content.decode()
    assert "This table is full." in page


def test_an_unknown_code_is_still_not_found(klaver: Cast) -> None:
    assert Client().get("/t/ZZZZZZ/").status_code == 404


# -- a guest types a code -----------------------------------------------------------------------


def test_the_start_page_and_every_header_offer_the_code_form(klaver: Cast) -> None:
    home = Client().get("/").content.decode()
    assert 'action="/play/"' in home and 'name="code"' in home
    assert 'href="/accounts/guest/?next=/play/"' in home
    assert 'href="/play/"' in signed_in(klaver.anna).get("/clubs/").content.decode()


# -- computer players' names ---------------------------------------------------------------------


def test_computer_players_have_short_names_that_fit_the_player_strip(klaver: Cast) -> None:
    table = tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        seat_count=8,
        bots={index: "strong" for index in range(1, 8)},
        holder_key=klaver.anna.holder_key,
    )
    names = [seat.name for seat in table.seats.order_by("index")][1:]
    assert len(set(names)) == 7
    assert all(len(name) <= 6 and name.isalpha() for name in names), names
