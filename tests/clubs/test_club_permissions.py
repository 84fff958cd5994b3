"""Who may see and do what in a club: Anna the admin, Bram the member, Eva the non-member,
Femke who waits to be accepted, Guus the guest and an anonymous visitor."""

import pytest
from django.test import Client
from django.urls import reverse

from clubs.models import HouseRuleProfile, Membership

pytestmark = pytest.mark.django_db


def club_url(club, name="games:club", *args):
    return reverse(name, args=[club.slug, *args])


def test_the_admin_sees_the_club_page_with_its_controls(club, anna_client):
    response = anna_client.get(club_url(club))
    assert response.status_code == 200
    page = response.content.decode()
    assert "De Gouden Klaver" in page
    assert "Bram" in page
    assert "Invite members" in page
    assert "Femke" in page  # waiting to be accepted: only admins see that


def test_a_member_sees_members_profiles_tables_and_standings_but_no_admin_controls(
    club, bram_client
):
    response = bram_client.get(club_url(club))
    assert response.status_code == 200
    page = response.content.decode()
    for section in ('id="members"', 'id="profiles"', 'id="tables"', 'id="standings"'):
        assert section in page
    assert "Anna" in page and "Classic" in page
    assert "Invite members" not in page
    assert "Femke" not in page


@pytest.mark.parametrize("persona", ["eva_client", "femke_client"])
def test_a_non_member_gets_404_on_the_club_page(club, persona, request):
    response = request.getfixturevalue(persona).get(club_url(club))
    assert response.status_code == 404
    assert b"De Gouden Klaver" not in response.content


@pytest.mark.parametrize("persona", ["guest_client", "anonymous_client"])
def test_a_guest_or_anonymous_visitor_is_sent_to_sign_in_for_any_club_alike(club, persona, request):
    client = request.getfixturevalue(persona)
    real = client.get(club_url(club))
    made_up = client.get("/clubs/no-such-club/")
    assert real.status_code == made_up.status_code == 302
    assert real.url.startswith(reverse("account_login"))
    assert made_up.url.startswith(reverse("account_login"))


ADMIN_GETS = [
    ("clubs:invitations", ()),
    ("clubs:profile_new", ()),
    ("clubs:profile_import", ()),
]


@pytest.mark.parametrize(("name", "args"), ADMIN_GETS)
def test_admin_pages_open_for_the_admin_only(
    club, anna_client, bram_client, eva_client, name, args
):
    url = club_url(club, name, *args)
    assert anna_client.get(url).status_code == 200
    assert bram_client.get(url).status_code == 403
    assert eva_client.get(url).status_code == 404
    assert Client().get(url).status_code == 404


def admin_posts(club, bram, femke):
    profile = club.profiles.get()
    bram_m = Membership.objects.get(club=club, user=bram)
    femke_m = Membership.objects.get(club=club, user=femke)
    return [
        (club_url(club, "clubs:member_accept", femke_m.pk), {}),
        (club_url(club, "clubs:member_remove", bram_m.pk), {}),
        (club_url(club, "clubs:member_role", bram_m.pk), {"role": "admin"}),
        (club_url(club, "clubs:invitations"), {"days": "7"}),
        (club_url(club, "clubs:profile_new"), {"source": "builtin:kroeg", "name": "Kroeg"}),
        (club_url(club, "clubs:profile", profile.pk), {"name": "Anders", "starting_lives": "3"}),
        (club_url(club, "clubs:profile_delete", profile.pk), {}),
    ]


def club_state(club):
    return (
        sorted(
            Membership.objects.filter(club=club).values_list("user__username", "role", "status")
        ),
        sorted(HouseRuleProfile.objects.filter(club=club).values_list("name", "rules_json")),
        club.invitations.count(),
    )


def test_a_member_can_change_nothing_an_admin_may(club, bram, femke, bram_client):
    before = club_state(club)
    for url, data in admin_posts(club, bram, femke):
        assert bram_client.post(url, data).status_code == 403, url
    assert club_state(club) == before


@pytest.mark.parametrize("persona", ["eva_client", "guest_client", "anonymous_client"])
def test_outsiders_get_404_for_every_admin_action_and_change_nothing(
    club, bram, femke, persona, request
):
    client = request.getfixturevalue(persona)
    before = club_state(club)
    for url, data in admin_posts(club, bram, femke):
        assert client.post(url, data).status_code == 404, url
    assert club_state(club) == before


def test_state_changes_refuse_get(club, bram, femke, anna_client):
    before = club_state(club)
    for url, _data in admin_posts(club, bram, femke):
        if "/profiles/" in url and not url.endswith(("delete/",)):
            continue  # those pages show a form on GET
        if url.endswith("/invitations/"):
            continue
        assert anna_client.get(url).status_code == 405, url
    assert anna_client.get(club_url(club, "clubs:leave")).status_code == 405
    assert club_state(club) == before


def test_posts_without_a_csrf_token_are_refused(club, anna, femke):
    client = Client(enforce_csrf_checks=True)
    client.force_login(anna)
    femke_m = Membership.objects.get(club=club, user=femke)
    response = client.post(club_url(club, "clubs:member_accept", femke_m.pk))
    assert response.status_code == 403
    femke_m.refresh_from_db()
    assert femke_m.status == Membership.Status.PENDING


def test_a_member_reads_and_exports_a_profile_but_cannot_edit_it(club, bram_client):
    profile = club.profiles.get()
    page = bram_client.get(club_url(club, "clubs:profile", profile.pk))
    assert page.status_code == 200
    assert b'<form method="post" class="stack rules-form"' not in page.content
    assert b"Starting lives" in page.content
    export = bram_client.get(club_url(club, "clubs:profile_export", profile.pk))
    assert export.status_code == 200
    assert export.json()["rules"]["starting_lives"] == 10


def test_a_non_member_cannot_read_or_export_a_profile(club, eva_client):
    profile = club.profiles.get()
    assert eva_client.get(club_url(club, "clubs:profile", profile.pk)).status_code == 404
    assert eva_client.get(club_url(club, "clubs:profile_export", profile.pk)).status_code == 404


def test_a_profile_of_another_club_is_not_found_through_this_one(club, anna_client, eva):
    other = HouseRuleProfile.objects.get(club__memberships__user=eva)
    assert anna_client.get(club_url(club, "clubs:profile", other.pk)).status_code == 404


def test_form_pages_refuse_methods_other_than_get_and_post(club, anna_client):
    profile = club.profiles.get()
    for page in (club_url(club, "clubs:invitations"), club_url(club, "clubs:profile", profile.pk)):
        assert anna_client.put(page).status_code == 405
        assert anna_client.delete(page).status_code == 405
    assert HouseRuleProfile.objects.filter(pk=profile.pk).exists()
