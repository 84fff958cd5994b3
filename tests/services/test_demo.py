"""`seed_demo` leaves a newcomer a table to play at against computer players."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client

from accounts.models import User
from games.models import Table

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
