"""What admins and members do on the club's pages, with good and bad input."""

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from clubs.models import Club, HouseRuleProfile, Invitation, Membership

pytestmark = pytest.mark.django_db

Status = Membership.Status


def url(club, name="games:club", *args):
    return reverse(name, args=[club.slug, *args])


def test_a_signed_in_user_founds_a_club_and_is_its_admin(eva_client, eva):
    response = eva_client.post(reverse("clubs:create"), {"name": "  Klaverjas & Toep  "})
    club = Club.objects.get(name="Klaverjas & Toep")
    assert response.url == club.get_absolute_url()
    assert Membership.objects.get(club=club, user=eva).is_admin
    assert club.profiles.get().is_default


def test_a_club_without_a_name_is_refused(eva_client, eva):
    response = eva_client.post(reverse("clubs:create"), {"name": "   "})
    assert response.status_code == 200
    assert b"errorlist" in response.content
    assert not Club.objects.exists()


def test_my_clubs_lists_active_and_waiting_memberships(club, femke_client, bram_client):
    assert b"De Gouden Klaver" in bram_client.get(reverse("clubs:list")).content
    waiting = femke_client.get(reverse("clubs:list")).content.decode()
    assert "De Gouden Klaver" in waiting and "waits for an admin" in waiting


def test_an_admin_accepts_a_waiting_member_in_place_with_htmx(club, femke, anna_client):
    waiting = Membership.objects.get(club=club, user=femke)
    response = anna_client.post(
        url(club, "clubs:member_accept", waiting.pk), HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    fragment = response.content.decode()
    assert fragment.lstrip().startswith('<section id="members"')
    assert "<html" not in fragment
    waiting.refresh_from_db()
    assert waiting.status == Status.ACTIVE


def test_without_htmx_an_action_returns_to_the_club_page(club, femke, anna_client):
    waiting = Membership.objects.get(club=club, user=femke)
    response = anna_client.post(url(club, "clubs:member_accept", waiting.pk))
    assert response.status_code == 302
    assert response.url == club.get_absolute_url()


def test_an_admin_makes_a_member_admin(club, bram, anna_client):
    bram_m = Membership.objects.get(club=club, user=bram)
    anna_client.post(url(club, "clubs:member_role", bram_m.pk), {"role": "admin"})
    bram_m.refresh_from_db()
    assert bram_m.is_admin


def test_removing_the_last_admin_shows_why_and_changes_nothing(club, anna, anna_client):
    anna_m = Membership.objects.get(club=club, user=anna)
    response = anna_client.post(url(club, "clubs:member_remove", anna_m.pk), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "at least one admin" in response.content.decode()
    assert Membership.objects.get(pk=anna_m.pk).is_admin


def test_the_last_admin_cannot_step_down_through_the_page(club, anna, anna_client):
    anna_m = Membership.objects.get(club=club, user=anna)
    response = anna_client.post(url(club, "clubs:member_role", anna_m.pk), {"role": "member"})
    assert response.status_code == 302
    assert Membership.objects.get(pk=anna_m.pk).is_admin
    page = anna_client.get(club.get_absolute_url()).content.decode()
    assert "at least one admin" in page


def test_the_last_admin_cannot_leave_through_the_page(club, anna, anna_client):
    anna_client.post(url(club, "clubs:leave"))
    assert Membership.objects.filter(club=club, user=anna).exists()


def test_a_member_leaves(club, bram, bram_client):
    response = bram_client.post(url(club, "clubs:leave"))
    assert response.url == reverse("clubs:list")
    assert not Membership.objects.filter(club=club, user=bram).exists()
    assert bram_client.get(club.get_absolute_url()).status_code == 404


def test_an_admin_removes_a_member_who_then_sees_nothing(club, bram, bram_client, anna_client):
    bram_m = Membership.objects.get(club=club, user=bram)
    anna_client.post(url(club, "clubs:member_remove", bram_m.pk))
    assert not Membership.objects.filter(pk=bram_m.pk).exists()
    assert bram_client.get(club.get_absolute_url()).status_code == 404


def test_an_unknown_member_id_is_404_and_changes_nothing(club, anna_client):
    before = Membership.objects.count()
    assert anna_client.post(url(club, "clubs:member_remove", 99999)).status_code == 404
    assert Membership.objects.count() == before


# Invitations


def test_an_admin_makes_an_invitation_link_with_a_server_drawn_qr_code(club, anna_client):
    anna_client.post(url(club, "clubs:invitations"), {"days": "7"})
    invitation = club.invitations.get()
    page = anna_client.get(url(club, "clubs:invitations")).content.decode()
    assert f"/join/{invitation.token}/" in page
    assert "<svg" in page
    assert "<script" not in page.split("<main>")[1]
    # A button copies the link (static/js/site.js).
    assert f'<input id="link-{invitation.pk}" type="url" readonly' in page
    assert f'data-copy="link-{invitation.pk}">Copy the link</button>' in page


def test_an_invitation_of_a_length_not_offered_is_refused(club, anna_client):
    response = anna_client.post(url(club, "clubs:invitations"), {"days": "3650"})
    assert response.status_code == 200
    assert b"errorlist" in response.content
    assert not club.invitations.exists()


def test_a_non_member_with_a_valid_link_sees_the_invitation_and_asks_to_join(
    club, anna, eva, eva_client
):
    invitation = Invitation.for_days(club, 7, anna)
    page = eva_client.get(reverse("clubs:join", args=[invitation.token]))
    assert page.status_code == 200
    assert b"De Gouden Klaver" in page.content
    assert b"Bram" not in page.content  # the invitation shows the club's name, not its members
    eva_client.post(reverse("clubs:join", args=[invitation.token]))
    assert Membership.objects.get(club=club, user=eva).status == Status.PENDING
    assert eva_client.get(club.get_absolute_url()).status_code == 404  # until accepted


def test_an_anonymous_visitor_with_a_link_is_asked_to_sign_in_first(club, anna, anonymous_client):
    invitation = Invitation.for_days(club, 7, anna)
    join_url = reverse("clubs:join", args=[invitation.token])
    page = anonymous_client.get(join_url)
    assert page.status_code == 200
    assert b"Sign in" in page.content
    response = anonymous_client.post(join_url)
    assert response.status_code == 302 and response.url.startswith(reverse("account_login"))


def test_using_a_link_twice_asks_once(club, anna, eva, eva_client):
    invitation = Invitation.for_days(club, 7, anna)
    join_url = reverse("clubs:join", args=[invitation.token])
    eva_client.post(join_url)
    eva_client.post(join_url)
    assert Membership.objects.filter(club=club, user=eva).count() == 1
    assert b"waits for an admin" in eva_client.get(join_url).content


def test_a_made_up_token_gets_a_clear_404(club, eva_client):
    response = eva_client.get(reverse("clubs:join", args=["not-a-real-token"]))
    assert response.status_code == 404
    assert b"does not work" in response.content
    assert b"De Gouden Klaver" not in response.content


def test_an_expired_link_says_so_and_lets_nobody_in(club, anna, eva, eva_client):
    invitation = Invitation.objects.create(
        club=club, created_by=anna, expires_at=timezone.now() - timedelta(minutes=1)
    )
    join_url = reverse("clubs:join", args=[invitation.token])
    page = eva_client.get(join_url)
    assert page.status_code == 404
    assert b"expired" in page.content
    assert b"De Gouden Klaver" not in page.content
    assert eva_client.post(join_url).status_code == 404
    assert not Membership.objects.filter(club=club, user=eva).exists()


def test_a_withdrawn_link_stops_working(club, anna_client, eva, eva_client):
    anna_client.post(url(club, "clubs:invitations"), {"days": "30"})
    invitation = club.invitations.get()
    anna_client.post(url(club, "clubs:invitation_revoke", invitation.pk))
    response = eva_client.post(reverse("clubs:join", args=[invitation.token]))
    assert response.status_code == 404
    assert not Membership.objects.filter(club=club, user=eva).exists()


# House-rule profiles


def test_an_admin_creates_a_profile_from_a_built_in_one(club, anna_client):
    response = anna_client.post(url(club, "clubs:profile_new"), {"source": "builtin:kroeg"})
    profile = club.profiles.get(name="Kroeg")
    assert response.url == url(club, "clubs:profile", profile.pk)
    assert profile.rules_json["starting_lives"] == 15
    assert not profile.is_default


def test_an_admin_copies_one_of_the_clubs_profiles(club, anna_client):
    original = club.profiles.get()
    anna_client.post(
        url(club, "clubs:profile_new"), {"source": f"profile:{original.pk}", "name": "Vrijdag"}
    )
    assert club.profiles.get(name="Vrijdag").rules_json == original.rules_json


def test_a_made_up_source_is_refused(club, anna_client):
    response = anna_client.post(url(club, "clubs:profile_new"), {"source": "profile:99999"})
    assert response.status_code == 200
    assert club.profiles.count() == 1


def test_the_rules_form_groups_fields_with_a_sentence_and_the_default_marked(club, anna_client):
    page = anna_client.get(url(club, "clubs:profile", club.profiles.get().pk)).content.decode()
    for group in (
        "Lives and the end of a rubber",
        "Laundry",
        "Knocking",
        "Folding and tricks",
        "Poverty",
        "Announcements",
    ):
        assert f"<legend>{group}</legend>" in page
    assert "How many lives every player has at the start of a rubber. Default: 10." in page
    assert "Off (default)" in page


def test_an_admin_edits_a_profile(club, anna_client):
    profile = club.profiles.get()
    data = {
        "name": "Klassiek",
        **{
            k: json.dumps(v).strip('"') if v is not None else ""
            for k, v in profile.rules_json.items()
        },
    }
    data["starting_lives"] = "12"
    response = anna_client.post(url(club, "clubs:profile", profile.pk), data)
    assert response.status_code == 302
    profile.refresh_from_db()
    assert profile.name == "Klassiek"
    assert profile.rules_json["starting_lives"] == 12


def test_a_bad_edit_shows_the_engines_error_and_changes_nothing(club, anna_client):
    profile = club.profiles.get()
    before = dict(profile.rules_json)
    data = {
        "name": "Classic",
        **{k: json.dumps(v).strip('"') if v is not None else "" for k, v in before.items()},
    }
    data["starting_lives"] = "31"
    response = anna_client.post(url(club, "clubs:profile", profile.pk), data)
    assert response.status_code == 200
    # The editor names the field as it shows it, not by its JSON key.
    page = response.content.decode()
    assert "Starting lives: must be from 1 to 30, not 31" in page
    assert "(starting_lives)" not in page
    profile.refresh_from_db()
    assert profile.rules_json == before


def test_an_admin_imports_an_exported_profile_in_another_club(club, anna_client, eva_client, eva):
    kroeg = HouseRuleProfile.objects.create(
        club=club, name="Kroeg", rules_json={**club.profiles.get().rules_json, "starting_lives": 15}
    )
    exported = anna_client.get(url(club, "clubs:profile_export", kroeg.pk))
    assert "attachment" in exported["Content-Disposition"]
    theirs = Club.objects.get(memberships__user=eva)
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = eva_client.post(
        url(theirs, "clubs:profile_import"),
        {"file": SimpleUploadedFile("kroeg.json", exported.content, "application/json")},
    )
    assert response.status_code == 302
    assert theirs.profiles.get(name="Kroeg").rules_json["starting_lives"] == 15


def test_a_bad_import_shows_the_error_and_creates_nothing(club, anna_client):
    response = anna_client.post(
        url(club, "clubs:profile_import"), {"name": "Fout", "text": '{"starting_lives": 99}'}
    )
    assert response.status_code == 200
    assert (
        "Starting lives (starting_lives): must be from 1 to 30, not 99" in response.content.decode()
    )
    assert not club.profiles.filter(name="Fout").exists()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"starting_lives": ' + "1" * 4400 + "}", "holds a number too long to read"),
        ("[" * 20_000 + "]" * 20_000, "is nested too deep to read"),
    ],
)
@pytest.mark.parametrize("how", ["text", "file"])
def test_an_import_too_long_or_too_deep_to_read_is_refused_without_an_error_in_the_log(
    club, anna_client, caplog, how, text, expected
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    before = set(club.profiles.values_list("pk", flat=True))
    posted = (
        {"name": "Fout", "text": text}
        if how == "text"
        else {"name": "Fout", "file": SimpleUploadedFile("fout.json", text.encode())}
    )
    response = anna_client.post(url(club, "clubs:profile_import"), posted)
    assert response.status_code == 200
    assert expected in response.content.decode()
    assert set(club.profiles.values_list("pk", flat=True)) == before
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]


def test_an_admin_makes_another_profile_the_default(club, anna_client):
    anna_client.post(url(club, "clubs:profile_new"), {"source": "builtin:tournament"})
    tournament = club.profiles.get(name="Tournament")
    anna_client.post(url(club, "clubs:profile_default", tournament.pk))
    assert list(club.profiles.filter(is_default=True)) == [tournament]


def test_deleting_the_default_profile_is_refused_with_a_message(club, anna_client):
    default = club.profiles.get()
    response = anna_client.post(url(club, "clubs:profile_delete", default.pk), follow=True)
    assert b"cannot be deleted" in response.content
    assert HouseRuleProfile.objects.filter(pk=default.pk).exists()


def test_an_admin_who_steps_down_with_htmx_reloads_the_page_without_admin_controls(
    club, anna, bram, anna_client
):
    bram_m = Membership.objects.get(club=club, user=bram)
    anna_m = Membership.objects.get(club=club, user=anna)
    anna_client.post(url(club, "clubs:member_role", bram_m.pk), {"role": "admin"})
    response = anna_client.post(
        url(club, "clubs:member_role", anna_m.pk), {"role": "member"}, HTTP_HX_REQUEST="true"
    )
    assert response["HX-Redirect"] == club.get_absolute_url()
    assert not Membership.objects.get(pk=anna_m.pk).is_admin
    assert b"Invite members" not in anna_client.get(club.get_absolute_url()).content
