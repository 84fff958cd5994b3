"""Who played: a member seated on another player's phone counts for herself, every name on a
night's or a season's list is one person, and an admin merges a guest into the member she is."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from accounts.models import Guest
from clubs.models import Membership
from games.models import RubberPlayer, Table
from games.services import member_seats, tables
from nights import services
from nights.models import Night, PlayerDay, PlayerRubber, Rating, Round, Season
from nights.reads import season_standings
from tests.nights.conftest import next_rubber, open_table, play_rubber
from tests.personas import Cast, Persona, guest, member

pytestmark = pytest.mark.django_db


def membership(klaver: Cast, player: Persona) -> Membership:
    return Membership.objects.select_related("club", "user").get(club=klaver.club, user=player.user)


def url(klaver: Cast, rest: str) -> str:
    return f"/clubs/{klaver.club.slug}/{rest}"


def figures(klaver: Cast) -> list[tuple]:
    return sorted(
        PlayerRubber.objects.filter(club=klaver.club).values_list(
            "participant_id", "key", "user_id", "place", "hands", "knocks", "rating_mu"
        )
    )


def counted(klaver: Cast) -> tuple:
    """Everything the club's booking gives: figures, days, ratings, nights, rounds."""
    return (
        figures(klaver),
        sorted(PlayerDay.objects.filter(club=klaver.club).values_list("user_id", "day", "rubbers")),
        sorted(Rating.objects.filter(club=klaver.club).values_list("key", "user_id", "mu")),
        sorted(Night.objects.filter(club=klaver.club).values_list("king_key", "wins")),
        sorted(Round.objects.values_list("participant_id", "key", "paid_at")),
    )


# -- a member on a shared phone ---------------------------------------------------------------


def test_a_member_seated_on_another_phone_counts_for_herself_everywhere(klaver: Cast) -> None:
    """Bram plays on Anna's phone: confirmed with his seat code, his rubbers are his, on his
    player page, in the night, the season and his rating, as if he had his own phone."""
    night = services.open_night(membership(klaver, klaver.anna))
    table = tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        seat_count=3,
        bots={2: "easy"},
        holder_key=klaver.anna.holder_key,
    )
    code = member_seats.new_code(klaver.bram.user).code
    done = member_seats.ask(table, klaver.anna.user, klaver.anna.holder, klaver.bram.user.pk, code)
    assert done == "seated"
    tables.start_rubber(table.pk, klaver.anna.user)
    # Anna's phone plays both seats: hers and Bram's.
    play_rubber(Table.objects.get(pk=table.pk), {0: klaver.anna, 1: klaver.anna}, seed=3)

    bram = f"u:{klaver.bram.user.pk}"
    row = PlayerRubber.objects.get(participant__seat=1)
    assert (row.key, row.user_id, row.guest_id) == (bram, klaver.bram.user.pk, None)
    assert Rating.objects.filter(club=klaver.club, key=bram, user=klaver.bram.user).exists()
    assert PlayerDay.objects.filter(club=klaver.club, user=klaver.bram.user).exists()
    assert not PlayerRubber.objects.exclude(guest=None).exists()
    client = klaver.cas.client()
    page = client.get(url(klaver, f"nights/{night.pk}/")).content.decode()
    assert f'href="/clubs/{klaver.club.slug}/players/{klaver.bram.user.pk}/"' in page
    player = client.get(url(klaver, f"players/{klaver.bram.user.pk}/")).content.decode()
    assert "No rubbers played in this club yet." not in player and str(table.code) in player
    season = Season.objects.create(
        club=klaver.club, name="Winter", starts_on=night.opened_at.date(), ends_on="2099-12-31"
    )
    standings = client.get(url(klaver, f"seasons/{season.pk}/")).content.decode()
    assert "Bram" in standings


# -- one person, one name ---------------------------------------------------------------------


def kees_night(klaver: Cast) -> tuple[Night, Persona, Persona, Persona]:
    """A night where a member called Kees and two guests called Kees play, each once."""
    night = services.open_night(membership(klaver, klaver.anna))
    kees = member(klaver.club, "kees")
    kees.user.display_name = "Kees"
    kees.user.save()
    first, second = guest("Kees"), guest("Kees")
    table = open_table(klaver.club, kees, [first, second], bots={3: "easy"})
    players = {0: kees, 1: first, 2: second}
    play_rubber(table, players, seed=5)
    next_rubber(table, kees)
    play_rubber(table, players, seed=6)
    return night, kees, first, second


def test_a_night_names_each_person_once_and_marks_her_a_guest(klaver: Cast) -> None:
    night, _kees, first, second = kees_night(klaver)
    client = klaver.anna.client()
    page = client.get(url(klaver, f"nights/{night.pk}/")).content.decode()
    standings = page.split('id="standings-title"')[1].split("</table>")[0]
    names = [
        re.sub(r"<[^>]+>", "", cell).strip()
        for cell in re.findall(r"<tr[^>]*>\s*<td>(.*?)</td>", standings, re.S)
    ]
    assert sorted(names) == ["Dewi", "Kees", "Kees (guest 2)", "Kees (guest)"]
    # The first guest by her id is "Kees (guest)", on every list of the night alike.
    label = {f"g:{first.guest.pk}": "Kees (guest)", f"g:{second.guest.pk}": "Kees (guest 2)"}
    rounds = Round.objects.filter(night=night)
    assert rounds.exists()
    owed = page.split('id="rounds-title"')[1].split("</section>")[0]
    for owed_round in rounds:
        expected = label.get(owed_round.key, "Kees")
        assert f"Paid: {expected}<" in owed
    csv = client.get(url(klaver, f"nights/{night.pk}/standings.csv")).content.decode()
    assert sorted(line.split(",")[0] for line in csv.splitlines()[1:]) == sorted(names)
    screen = client.get(url(klaver, f"nights/{night.pk}/screen/")).content.decode()
    assert "Kees (guest 2)" in screen


def test_a_guest_is_marked_as_one_in_dutch_and_german(klaver: Cast) -> None:
    night, *_ = kees_night(klaver)
    client = klaver.anna.client()
    for language, word in (("nl", "Kees (gast 2)"), ("de", "Kees (Gast 2)")):
        page = client.get(url(klaver, f"nights/{night.pk}/"), HTTP_ACCEPT_LANGUAGE=language)
        assert word in page.content.decode()


def test_two_members_of_one_name_are_told_apart_in_a_season(klaver: Cast) -> None:
    klaver.cas.user.display_name = "Bram"
    klaver.cas.user.save()
    night = services.open_night(membership(klaver, klaver.anna))
    table = open_table(klaver.club, klaver.anna, [klaver.bram, klaver.cas])
    play_rubber(table, {0: klaver.anna, 1: klaver.bram, 2: klaver.cas}, seed=2)
    season = Season.objects.create(
        club=klaver.club, name="Winter", starts_on=night.opened_at.date(), ends_on="2099-12-31"
    )
    rows = {row["user_id"]: row["name"] for row in season_standings(season)}
    assert rows[klaver.bram.user.pk] == "Bram"
    assert rows[klaver.cas.user.pk] == "Bram (2)"


# -- merging a guest into a member ------------------------------------------------------------


def guus_night(klaver: Cast) -> Night:
    """A night of two rubbers where Guus plays as a guest (he is Dirk, who forgot his phone)."""
    night = services.open_night(membership(klaver, klaver.anna))
    table = open_table(klaver.club, klaver.anna, [klaver.bram, klaver.guus])
    players = {0: klaver.anna, 1: klaver.bram, 2: klaver.guus}
    play_rubber(table, players, seed=1)
    next_rubber(table, klaver.anna)
    play_rubber(table, players, seed=2)
    return night


def merge(client: Client, klaver: Cast, guest_id: object, user_id: object, confirm: bool = True):
    data = {"guest": guest_id, "member": user_id}
    if confirm:
        data["confirm"] = "merge"
    return client.post(url(klaver, "guests/merge/"), data, follow=True)


def test_an_admin_merges_a_guest_into_a_member_and_the_club_is_counted_again(
    klaver: Cast,
) -> None:
    guus_night(klaver)
    guest_key, dirk = f"g:{klaver.guus.guest.pk}", klaver.dirk.user
    played = PlayerRubber.objects.filter(key=guest_key).count()
    owed = Round.objects.filter(key=guest_key).count()
    participants = set(RubberPlayer.objects.values_list("pk", "guest_id", "name"))
    admin = klaver.anna.client()
    listing = admin.get(url(klaver, "guests/")).content.decode()
    assert "Guus" in listing and 'name="member"' in listing

    asked = admin.post(
        url(klaver, "guests/merge/"), {"guest": klaver.guus.guest.pk, "member": dirk.pk}
    )
    assert asked.status_code == 200 and 'value="merge"' in asked.content.decode()
    assert PlayerRubber.objects.filter(key=guest_key).count() == played  # not yet

    done = merge(admin, klaver, klaver.guus.guest.pk, dirk.pk)
    assert "now counts for Dirk" in done.content.decode()
    assert not PlayerRubber.objects.filter(key=guest_key).exists()
    assert PlayerRubber.objects.filter(key=f"u:{dirk.pk}", user=dirk).count() == played
    assert Round.objects.filter(key=f"u:{dirk.pk}").count() == owed
    assert Rating.objects.filter(club=klaver.club, key=f"u:{dirk.pk}", user=dirk).exists()
    assert not Rating.objects.filter(key=guest_key).exists()
    assert PlayerDay.objects.filter(club=klaver.club, user=dirk).exists()
    # Nothing the guest did is lost: the rows of who sat where are as they were.
    assert set(RubberPlayer.objects.values_list("pk", "guest_id", "name")) == participants
    player = admin.get(url(klaver, f"players/{dirk.pk}/")).content.decode()
    assert "No rubbers played in this club yet." not in player

    # The same as a rebuild, and merging again changes nothing.
    after = counted(klaver)
    call_command("rebuild_standings", stdout=StringIO())
    assert counted(klaver) == after
    again = merge(admin, klaver, klaver.guus.guest.pk, dirk.pk)
    assert again.status_code == 200
    assert counted(klaver) == after


def test_a_merge_is_refused_with_why_for_forged_ids_and_foreign_guests(klaver: Cast) -> None:
    guus_night(klaver)
    # A guest who played only at Eva's club, and one who played at both.
    elsewhere = guest("Wim")
    table = open_table(klaver.other, klaver.eva, [elsewhere], bots={2: "easy"})
    play_rubber(table, {0: klaver.eva, 1: elsewhere}, seed=4)
    before = counted(klaver)
    admin = klaver.anna.client()
    cases = [
        ("abc", klaver.dirk.user.pk, "There is no such guest in this club."),
        (99999, klaver.dirk.user.pk, "There is no such guest in this club."),
        (elsewhere.guest.pk, klaver.dirk.user.pk, "There is no such guest in this club."),
        (klaver.guus.guest.pk, "", "There is no such member in this club."),
        (klaver.guus.guest.pk, klaver.eva.user.pk, "There is no such member in this club."),
        (klaver.guus.guest.pk, klaver.femke.user.pk, "There is no such member in this club."),
    ]
    for guest_id, user_id, why in cases:
        for confirm in (False, True):
            response = merge(admin, klaver, guest_id, user_id, confirm)
            assert why in response.content.decode(), (guest_id, user_id, confirm)
    assert counted(klaver) == before
    assert Guest.objects.get(pk=klaver.guus.guest.pk).user is None

    # Guus sits at Eva's club too: his figures there are not this club's to change.
    table = open_table(klaver.other, klaver.eva, [klaver.guus], bots={2: "easy"})
    response = merge(admin, klaver, klaver.guus.guest.pk, klaver.dirk.user.pk)
    assert "played at another club too" in response.content.decode()
    assert Guest.objects.get(pk=klaver.guus.guest.pk).user is None
    # Once merged into Dirk, not into Bram as well.
    Guest.objects.filter(pk=klaver.guus.guest.pk).update(user=klaver.dirk.user)
    Table.objects.filter(club=klaver.other).delete()
    response = merge(admin, klaver, klaver.guus.guest.pk, klaver.bram.user.pk)
    assert "counts for another member already" in response.content.decode()


def test_only_the_clubs_admins_merge_guests(klaver: Cast) -> None:
    guus_night(klaver)
    before = counted(klaver)
    guest_id, dirk = klaver.guus.guest.pk, klaver.dirk.user.pk
    data = {"guest": guest_id, "member": dirk, "confirm": "merge"}
    member_phone = klaver.bram.client()
    assert member_phone.get(url(klaver, "guests/")).status_code == 403
    assert member_phone.post(url(klaver, "guests/merge/"), data).status_code == 403
    for stranger in (klaver.eva.client(), klaver.femke.client(), Client()):
        assert stranger.get(url(klaver, "guests/")).status_code == 404
        assert stranger.post(url(klaver, "guests/merge/"), data).status_code == 404
    forged = Client(enforce_csrf_checks=True)
    forged.force_login(klaver.anna.user)
    assert forged.post(url(klaver, "guests/merge/"), data).status_code == 403
    assert counted(klaver) == before
    assert Guest.objects.get(pk=guest_id).user is None
    # A guest of the club merged by another club's admin: not found, nothing changed.
    other = klaver.eva.client().post(f"/clubs/{klaver.other.slug}/guests/merge/", data, follow=True)
    assert "There is no such guest in this club." in other.content.decode()
    assert Guest.objects.get(pk=guest_id).user is None
