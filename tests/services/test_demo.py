"""`seed_demo` leaves a newcomer a table to play at against computer players."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from accounts.models import User
from games.models import Rubber, Table
from games.services import tables

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_demo_user_finds_her_seat_beside_three_computer_players_and_can_start() -> None:
    call_command("seed_demo")
    call_command("seed_demo")
    [table] = Table.objects.all()
    seats = list(table.seats.order_by("index"))
    assert [bool(s.bot_level) for s in seats] == [False, True, True, True]
    browser = Client()
    assert (
        browser.post("/accounts/login/", {"login": "demo", "password": "toepen-demo"}).status_code
        == 302
    )
    assert seats[0].user == User.objects.get(username="demo")
    page = browser.get(f"/t/{table.code}/")
    assert page.status_code == 200 and "is-mine" in page.content.decode()
    assert browser.post(f"/t/{table.code}/start/").status_code == 302
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING


def test_a_second_seed_offers_a_table_to_start_and_closes_the_one_left_mid_rubber() -> None:
    call_command("seed_demo")
    [first] = Table.objects.all()
    demo = User.objects.get(username="demo")
    tables.start_rubber(first.pk, demo)
    out = StringIO()
    call_command("seed_demo", "--address", "http://127.0.0.1:8000/", stdout=out)
    first.refresh_from_db()
    assert first.status == Table.Status.CLOSED
    assert Rubber.objects.get(table=first).abandoned
    [second] = Table.objects.exclude(pk=first.pk)
    assert second.status == Table.Status.WAITING
    assert f"http://127.0.0.1:8000/t/{second.code}/" in out.getvalue()
    assert "http://127.0.0.1:8000/accounts/login/" in out.getvalue()
    tables.start_rubber(second.pk, demo)
    second.refresh_from_db()
    assert second.status == Table.Status.PLAYING


def test_a_table_whose_rubber_is_over_is_offered_again() -> None:
    call_command("seed_demo")
    [table] = Table.objects.all()
    Table.objects.filter(pk=table.pk).update(status=Table.Status.RUBBER_OVER)
    call_command("seed_demo")
    assert list(Table.objects.values_list("pk", "status")) == [(table.pk, Table.Status.RUBBER_OVER)]
