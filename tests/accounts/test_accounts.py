"""Signing up, in and out, passwords, the profile, guests; allauth does the flows."""

import re

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.urls import reverse

from accounts.guests import SESSION_KEY, get_guest, get_or_create_guest
from accounts.models import Guest, User
from tests.personas import PASSWORD

pytestmark = pytest.mark.django_db


def sign_up(client, username="hanna", email="hanna@example.com", password="zeven-harten-10"):
    return client.post(
        reverse("account_signup"),
        {"username": username, "email": email, "password1": password, "password2": password},
    )


def test_signing_up_creates_an_account_and_signs_in(anonymous_client):
    response = sign_up(anonymous_client)
    assert response.status_code == 302
    user = User.objects.get(username="hanna")
    assert user.email == "hanna@example.com"
    assert anonymous_client.get(reverse("clubs:list")).status_code == 200


def test_a_signup_with_mismatched_passwords_creates_nothing(anonymous_client):
    response = anonymous_client.post(
        reverse("account_signup"),
        {
            "username": "hanna",
            "email": "hanna@example.com",
            "password1": "zeven-harten-10",
            "password2": "acht-harten-10",
        },
    )
    assert response.status_code == 200
    assert not User.objects.filter(username="hanna").exists()


@pytest.mark.parametrize("login", ["anna", "anna@example.com"])
def test_anna_signs_in_with_her_username_or_her_email(anna, anonymous_client, login):
    response = anonymous_client.post(
        reverse("account_login"), {"login": login, "password": PASSWORD}
    )
    assert response.status_code == 302
    assert anonymous_client.get(reverse("accounts:profile")).status_code == 200


def test_a_wrong_password_is_refused_with_a_message(anna, anonymous_client):
    response = anonymous_client.post(
        reverse("account_login"), {"login": "anna", "password": "nope"}
    )
    assert response.status_code == 200
    assert b"errorlist" in response.content or b"not correct" in response.content
    assert anonymous_client.get(reverse("accounts:profile")).status_code == 302


def test_failed_sign_ins_are_rate_limited(anna, anonymous_client):
    for _ in range(5):
        anonymous_client.post(reverse("account_login"), {"login": "anna", "password": "wrong"})
    # Even the right password is refused now, until the window has passed.
    response = anonymous_client.post(
        reverse("account_login"), {"login": "anna", "password": PASSWORD}
    )
    assert response.status_code in (200, 429)
    assert b"Too many failed login attempts" in response.content
    assert anonymous_client.get(reverse("accounts:profile")).status_code == 302


def test_a_stranger_failing_on_purpose_does_not_lock_anna_out(anna, anonymous_client, client):
    stranger, at_home = "203.0.113.9", "198.51.100.7"
    for _ in range(8):
        anonymous_client.post(
            reverse("account_login"), {"login": "anna", "password": "wrong"}, REMOTE_ADDR=stranger
        )
    response = client.post(
        reverse("account_login"), {"login": "anna", "password": PASSWORD}, REMOTE_ADDR=at_home
    )
    assert response.status_code == 302
    assert client.get(reverse("accounts:profile"), REMOTE_ADDR=at_home).status_code == 200
    # The stranger himself stays locked out of Anna's account, right password or not.
    response = anonymous_client.post(
        reverse("account_login"), {"login": "anna", "password": PASSWORD}, REMOTE_ADDR=stranger
    )
    assert b"Too many failed login attempts" in response.content


def test_signing_out_takes_a_post(anna_client):
    anna_client.post(reverse("account_logout"))
    assert anna_client.get(reverse("accounts:profile")).status_code == 302


def test_a_password_reset_mails_a_link_that_sets_a_new_password(anna, anonymous_client):
    anonymous_client.post(reverse("account_reset_password"), {"email": "anna@example.com"})
    assert len(mail.outbox) == 1
    link = re.search(r"https?://[^/]+(/accounts/password/reset/key/\S+)", mail.outbox[0].body)
    assert link
    form = anonymous_client.get(link.group(1), follow=True)
    assert form.status_code == 200
    anonymous_client.post(
        form.redirect_chain[-1][0] if form.redirect_chain else link.group(1),
        {"password1": "nieuw-wachtwoord-9", "password2": "nieuw-wachtwoord-9"},
    )
    anna.refresh_from_db()
    assert anna.check_password("nieuw-wachtwoord-9")


def test_anna_changes_her_password(anna, anna_client):
    anna_client.post(
        reverse("account_change_password"),
        {
            "oldpassword": PASSWORD,
            "password1": "nieuw-wachtwoord-9",
            "password2": "nieuw-wachtwoord-9",
        },
    )
    anna.refresh_from_db()
    assert anna.check_password("nieuw-wachtwoord-9")


def test_a_wrong_old_password_changes_nothing(anna, anna_client):
    response = anna_client.post(
        reverse("account_change_password"),
        {
            "oldpassword": "raden",
            "password1": "nieuw-wachtwoord-9",
            "password2": "nieuw-wachtwoord-9",
        },
    )
    assert response.status_code == 200
    anna.refresh_from_db()
    assert anna.check_password(PASSWORD)


def test_anna_edits_her_display_name_and_language(anna, anna_client):
    response = anna_client.post(
        reverse("accounts:profile"), {"display_name": " Anna  de Vries ", "language": "de"}
    )
    assert response.status_code == 302
    anna.refresh_from_db()
    assert (anna.display_name, anna.language) == ("Anna de Vries", "de")


def test_a_bad_profile_changes_nothing(anna, anna_client):
    response = anna_client.post(
        reverse("accounts:profile"), {"display_name": "x" * 41, "language": "fr"}
    )
    assert response.status_code == 200
    assert response.content.count(b"errorlist") >= 2
    anna.refresh_from_db()
    assert (anna.display_name, anna.language) == ("Anna", "")


def test_the_profile_is_for_signed_in_users(anonymous_client):
    response = anonymous_client.get(reverse("accounts:profile"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("account_login"))


def test_the_demo_seed_can_run_twice_and_its_login_works(anonymous_client):
    from django.core.management import call_command

    call_command("seed_demo")
    call_command("seed_demo")
    demo = User.objects.get(username="demo")
    assert EmailAddress.objects.get(user=demo).verified
    assert demo.memberships.get().is_admin
    assert demo.memberships.get().club.profiles.count() == 4
    response = anonymous_client.post(
        reverse("account_login"), {"login": "demo@example.com", "password": "toepen-demo"}
    )
    assert response.status_code == 302


# Guests


def test_guus_plays_as_a_guest_held_by_his_browser_session(anonymous_client):
    response = anonymous_client.post(
        reverse("accounts:guest"), {"display_name": "  Guus ", "next": "/clubs/x/"}
    )
    assert response.url == "/clubs/x/"
    guest = Guest.objects.get()
    assert guest.display_name == "Guus"
    assert anonymous_client.session[SESSION_KEY] == guest.pk


def test_a_guest_name_that_is_blank_or_too_long_is_refused(anonymous_client):
    for name in ("   ", "G" * 41):
        response = anonymous_client.post(reverse("accounts:guest"), {"display_name": name})
        assert response.status_code == 200
        assert b"errorlist" in response.content
    assert not Guest.objects.exists()


def test_a_guest_page_never_sends_someone_to_another_site(anonymous_client):
    response = anonymous_client.post(
        reverse("accounts:guest"), {"display_name": "Guus", "next": "https://evil.example/"}
    )
    assert response.url == "/"


def test_renaming_a_guest_keeps_the_same_guest(rf, guest_client):
    guest = Guest.objects.get()
    guest_client.post(reverse("accounts:guest"), {"display_name": "Guusje"})
    guest.refresh_from_db()
    assert guest.display_name == "Guusje"
    assert Guest.objects.count() == 1


def test_another_browser_does_not_see_someone_elses_guest(guest_client, anonymous_client):
    page = anonymous_client.get(reverse("accounts:guest"))
    assert b"Guus" not in page.content


def test_a_guest_who_signs_up_keeps_what_he_played(guest_client):
    guest = Guest.objects.get()
    sign_up(guest_client, username="guus", email="guus@example.com")
    guest.refresh_from_db()
    user = User.objects.get(username="guus")
    assert guest.user == user
    assert guest.claimed_at is not None
    assert user.display_name == "Guus"
    assert SESSION_KEY not in guest_client.session


def test_a_signed_in_user_is_not_a_guest(rf, anna):
    request = rf.get("/")
    request.user = anna
    request.session = {SESSION_KEY: Guest.objects.create(display_name="x").pk}
    assert get_guest(request) is None
    with pytest.raises(ValueError):
        get_or_create_guest(request, "Anna")
