"""The club page's tables and standings come from the rubbers played at its tables."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Guest
from clubs.models import HouseRuleProfile
from games.engine import HouseRules
from games.models import RubberPlayer, Table
from games.services import tables
from games.services.club_page import standings
from games.services.state import Holder
from tests.personas import Cast
from tests.tables import clock_plays

pytestmark = pytest.mark.django_db(transaction=True)


def play_out(table: Table) -> None:
    """Let the table's clock play every seat (people time out) until the rubber ends."""
    for _ in range(3000):
        if Table.objects.get(pk=table.pk).status == Table.Status.RUBBER_OVER:
            return
        clock_plays(table.pk)
    raise AssertionError("the rubber did not end")


def test_standings_sum_each_members_rubbers_including_those_played_as_a_guest(
    klaver: Cast,
) -> None:
    profile = HouseRuleProfile.objects.create(
        club=klaver.club, name="quick", rules_json=HouseRules(starting_lives=2).to_json()
    )
    table = tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        profile=profile,
        bots={2: "easy", 3: "easy"},
        holder_key=klaver.anna.holder_key,
    )
    # Bram played as a guest before he had an account; the guest is his now.
    guest = Guest.objects.create(display_name="Bram", user=klaver.bram.user)
    tables.take_seat(table.pk, 1, Holder(guest_id=guest.pk, key="bram-old-phone"), "Bram")
    tables.start_rubber(table.pk, klaver.anna.user)
    play_out(table)
    tables.start_rubber(table.pk, klaver.anna.user)
    play_out(table)

    rows = {row.member: row for row in standings(klaver.club)}
    assert set(rows) == {"Anna", "Bram"}
    for name, seat in (("Anna", 0), ("Bram", 1)):
        played = RubberPlayer.objects.filter(rubber__table=table, seat=seat)
        assert rows[name].rubbers == 2
        assert rows[name].lives_lost == sum(p.lives_lost for p in played)
        assert rows[name].rubbers_lost == sum(p.lost for p in played)
    assert sum(p.lost for p in RubberPlayer.objects.filter(rubber__table=table)) >= 2


def test_the_club_page_lists_its_tables_and_standings_to_members_only(klaver: Cast) -> None:
    table = tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        bots={1: "easy", 2: "easy", 3: "easy"},
        holder_key=klaver.anna.holder_key,
    )
    member = Client()
    member.force_login(klaver.bram.user)
    page = member.get(f"/clubs/{klaver.club.slug}/").content.decode()
    assert table.code in page
    outsider = Client()
    outsider.force_login(klaver.eva.user)
    assert outsider.get(f"/clubs/{klaver.club.slug}/").status_code == 404
