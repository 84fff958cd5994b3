"""A member of the club on another player's phone: picked there, seated only once she confirms,
from her own phone or with her seat code; never twice at a table, never by a stranger."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from clubs.models import Membership
from games.models import SeatCode, SeatRequest, Table
from games.services import member_seats, tables
from games.services.state import HOLDER_SESSION_KEY
from games.services.tables import TableError
from tests.personas import Cast, Persona

pytestmark = pytest.mark.django_db


def phone(person: Persona) -> Client:
    """This person's own phone: signed in, with the key that holds her seats."""
    client = person.client()
    session = client.session
    session[HOLDER_SESSION_KEY] = person.holder_key
    session.save()
    return client


def annas_table(klaver: Cast) -> Table:
    """Anna's table of four: Anna at seat 0 on her phone, a computer player at seat 3."""
    return tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        seat_count=4,
        bots={3: "easy"},
        holder_key=klaver.anna.holder_key,
    )


def seat_of(table: Table, person: Persona):
    return table.seats.filter(user=person.user).first()


def test_a_member_picked_on_a_shared_phone_is_seated_once_she_accepts_on_her_own(
    klaver: Cast,
) -> None:
    table = annas_table(klaver)
    anna = phone(klaver.anna)
    page = anna.get(f"/t/{table.code}/").content.decode()
    assert "Or a member of the club" in page
    assert f'<option value="{klaver.bram.user.pk}">Bram</option>' in page
    assert f'<option value="{klaver.anna.user.pk}">' not in page  # at the table already
    assert f'<option value="{klaver.eva.user.pk}">' not in page  # not a member
    assert f'<option value="{klaver.femke.user.pk}">' not in page  # not yet a member

    asked = anna.post(f"/t/{table.code}/member/", {"member": klaver.bram.user.pk}, follow=True)
    assert "she accepts on her own phone" in asked.content.decode()
    assert "Bram is asked to accept" in asked.content.decode()
    assert seat_of(table, klaver.bram) is None  # not before she says so

    bram = phone(klaver.bram)
    club_page = bram.get(f"/clubs/{klaver.club.slug}/").content.decode()
    assert f"Anna asks to seat you at table {table.code}" in club_page
    request = SeatRequest.objects.get()
    answered = bram.post(f"/seat-requests/{request.pk}/", {"answer": "accept"}, follow=True)
    assert f"You are seated at table {table.code}" in answered.content.decode()
    seat = seat_of(table, klaver.bram)
    assert (seat.index, seat.name, seat.holder_key, seat.guest) == (
        1,
        "Bram",
        klaver.anna.holder_key,
        None,
    )
    assert not SeatRequest.objects.exists()
    # Anna's phone holds both seats now, Bram's behind its privacy screen as any shared seat.
    page = anna.get(f"/t/{table.code}/").content.decode()
    assert page.count("is-mine") >= 2


def test_a_declined_or_lapsed_request_seats_nobody(klaver: Cast) -> None:
    table = annas_table(klaver)
    anna, bram = phone(klaver.anna), phone(klaver.bram)
    anna.post(f"/t/{table.code}/member/", {"member": klaver.bram.user.pk})
    request = SeatRequest.objects.get()
    bram.post(f"/seat-requests/{request.pk}/", {"answer": "decline"})
    assert not SeatRequest.objects.exists() and seat_of(table, klaver.bram) is None

    anna.post(f"/t/{table.code}/member/", {"member": klaver.bram.user.pk})
    request = SeatRequest.objects.get()
    SeatRequest.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert f"table {table.code}" not in bram.get(f"/clubs/{klaver.club.slug}/").content.decode()
    lapsed = bram.post(f"/seat-requests/{request.pk}/", {"answer": "accept"}, follow=True)
    assert "That request has lapsed" in lapsed.content.decode()
    assert seat_of(table, klaver.bram) is None


def test_her_seat_code_seats_her_at_once_and_only_once(klaver: Cast) -> None:
    table = annas_table(klaver)
    anna, bram = phone(klaver.anna), phone(klaver.bram)
    bram.post(f"/clubs/{klaver.club.slug}/seat-code/")
    code = SeatCode.objects.get(user=klaver.bram.user).code
    assert len(code) == 6 and code.isdigit()
    assert code in bram.get(f"/clubs/{klaver.club.slug}/").content.decode()
    anna.post(f"/t/{table.code}/member/", {"member": klaver.bram.user.pk, "code": code})
    seat = seat_of(table, klaver.bram)
    assert seat is not None and seat.holder_key == klaver.anna.holder_key

    # Used once: at the next table the same code seats nobody.
    other = annas_table(klaver)
    again = anna.post(
        f"/t/{other.code}/member/", {"member": klaver.bram.user.pk, "code": code}, follow=True
    )
    assert "That is not her seat code" in again.content.decode()
    assert seat_of(other, klaver.bram) is None


def test_wrong_seat_codes_seat_nobody_and_void_her_code_after_five(klaver: Cast) -> None:
    table = annas_table(klaver)
    anna = phone(klaver.anna)
    code = member_seats.new_code(klaver.bram.user).code
    wrong = f"{(int(code) + 1) % 10**6:06d}"
    for _ in range(member_seats.CODE_MISSES):
        refused = anna.post(
            f"/t/{table.code}/member/", {"member": klaver.bram.user.pk, "code": wrong}, follow=True
        )
        assert "That is not her seat code" in refused.content.decode()
    assert seat_of(table, klaver.bram) is None
    # Five wrong guesses: even her right code is void now.
    anna.post(f"/t/{table.code}/member/", {"member": klaver.bram.user.pk, "code": code})
    assert seat_of(table, klaver.bram) is None
    # A lapsed code is void too.
    code = member_seats.new_code(klaver.bram.user).code
    SeatCode.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    anna.post(f"/t/{table.code}/member/", {"member": klaver.bram.user.pk, "code": code})
    assert seat_of(table, klaver.bram) is None


def test_a_member_is_never_seated_twice_at_one_table(klaver: Cast) -> None:
    table = annas_table(klaver)
    tables.take_seat(table.pk, 1, klaver.bram.holder, "Bram")
    anna = phone(klaver.anna)
    assert (
        f'<option value="{klaver.bram.user.pk}">'
        not in anna.get(f"/t/{table.code}/").content.decode()
    )
    code = member_seats.new_code(klaver.bram.user).code
    refused = anna.post(
        f"/t/{table.code}/member/", {"member": klaver.bram.user.pk, "code": code}, follow=True
    )
    assert "That member is at this table already." in refused.content.decode()
    assert table.seats.filter(user=klaver.bram.user).count() == 1
    # Nor through the seat's own door, from another phone of hers.
    second_phone = type(klaver.bram.holder)(user_id=klaver.bram.user.pk, key="bram-second-phone")
    with pytest.raises(TableError) as refusal:
        tables.take_seat(table.pk, 2, second_phone, "Bram")
    assert refusal.value.code == "already_seated"
    assert table.seats.filter(user=klaver.bram.user).count() == 1


def test_only_she_answers_a_request_for_her(klaver: Cast) -> None:
    table = annas_table(klaver)
    phone(klaver.anna).post(f"/t/{table.code}/member/", {"member": klaver.bram.user.pk})
    request = SeatRequest.objects.get()
    for someone in (phone(klaver.cas), phone(klaver.anna), phone(klaver.eva)):
        response = someone.post(f"/seat-requests/{request.pk}/", {"answer": "accept"})
        assert response.status_code == 404
    assert phone(klaver.bram).post("/seat-requests/99999/", {"answer": "accept"}).status_code == 404
    stranger = Client().post(f"/seat-requests/{request.pk}/", {"answer": "accept"})
    assert stranger.status_code == 302 and "/accounts/login/" in stranger["Location"]
    assert SeatRequest.objects.exists() and seat_of(table, klaver.bram) is None
    # Removed from the club meanwhile: she is no longer seated as a member of it.
    Membership.objects.filter(club=klaver.club, user=klaver.bram.user).delete()
    refused = phone(klaver.bram).post(
        f"/seat-requests/{request.pk}/", {"answer": "accept"}, follow=True
    )
    assert "Only members of the club are seated as members." in refused.content.decode()
    assert seat_of(table, klaver.bram) is None


def test_no_stranger_picks_a_member_of_the_club(klaver: Cast) -> None:
    table = annas_table(klaver)
    # Guus, a guest, and Eva, a member of another club, each hold a seat here.
    guus = Client()
    guus.post(f"/t/{table.code}/join/", {"name": "Guus"})
    eva = phone(klaver.eva)
    eva.post(f"/t/{table.code}/join/", {"name": "Eva"})
    assert "Or a member of the club" not in guus.get(f"/t/{table.code}/").content.decode()
    assert "Or a member of the club" not in eva.get(f"/t/{table.code}/").content.decode()
    code = member_seats.new_code(klaver.bram.user).code
    data = {"member": klaver.bram.user.pk, "code": code}
    assert guus.post(f"/t/{table.code}/member/", data).status_code == 302
    refused = eva.post(f"/t/{table.code}/member/", data, follow=True)
    assert "Only members of the club seat a member" in refused.content.decode()
    assert seat_of(table, klaver.bram) is None and not SeatRequest.objects.exists()
    assert SeatCode.objects.get(user=klaver.bram.user).misses == 0
    # Nor does anyone outside the club get a seat code of it.
    assert eva.post(f"/clubs/{klaver.club.slug}/seat-code/").status_code == 404
    assert guus.post(f"/clubs/{klaver.club.slug}/seat-code/").status_code == 302
    assert not SeatCode.objects.exclude(user=klaver.bram.user).exists()


def test_forged_members_and_phones_without_a_seat_are_refused_with_why(klaver: Cast) -> None:
    table = annas_table(klaver)
    anna = phone(klaver.anna)
    for member, why in (
        ("", "There is no such member in this club."),
        ("abc", "There is no such member in this club."),
        ("99999", "There is no such member in this club."),
        (klaver.eva.user.pk, "There is no such member in this club."),
        (klaver.femke.user.pk, "There is no such member in this club."),
    ):
        refused = anna.post(f"/t/{table.code}/member/", {"member": member}, follow=True)
        assert why in refused.content.decode(), member
    # Cas's phone holds no seat at the table: it seats nobody else either.
    refused = phone(klaver.cas).post(
        f"/t/{table.code}/member/", {"member": klaver.bram.user.pk}, follow=True
    )
    assert "Take a seat at this table first" in refused.content.decode()
    assert not SeatRequest.objects.exists()
    assert not table.seats.filter(index__in=(1, 2)).exclude(user=None).exists()


def test_the_member_doors_need_csrf(klaver: Cast) -> None:
    table = annas_table(klaver)
    request = SeatRequest.objects.create(
        table=table,
        user=klaver.bram.user,
        asked_by=klaver.anna.user,
        holder_key=klaver.anna.holder_key,
        expires_at=timezone.now() + timedelta(minutes=5),
    )
    for person, path, data in (
        (klaver.anna, f"/t/{table.code}/member/", {"member": klaver.bram.user.pk}),
        (klaver.bram, f"/seat-requests/{request.pk}/", {"answer": "accept"}),
        (klaver.bram, f"/clubs/{klaver.club.slug}/seat-code/", {}),
    ):
        forged = Client(enforce_csrf_checks=True)
        forged.force_login(person.user)
        assert forged.post(path, data).status_code == 403
        assert forged.get(path).status_code == 405
    assert seat_of(table, klaver.bram) is None and not SeatCode.objects.exists()


def test_the_seat_code_and_the_member_form_speak_dutch_and_german(klaver: Cast) -> None:
    table = annas_table(klaver)
    anna = phone(klaver.anna)
    for language, words in (
        ("nl", ["Of een lid van de club", "Jouw plaatscode"]),
        ("de", ["Oder ein Mitglied des Vereins", "Dein Platzcode"]),
    ):
        text = anna.get(f"/t/{table.code}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        text += anna.get(
            f"/clubs/{klaver.club.slug}/", HTTP_ACCEPT_LANGUAGE=language
        ).content.decode()
        for word in words:
            assert word in text, (language, word)
