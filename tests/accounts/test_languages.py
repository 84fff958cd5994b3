"""Dutch, German and English: from the profile, else the browser; a switch on every page."""

from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.urls import reverse

pytestmark = pytest.mark.django_db

LOCALE = Path(settings.BASE_DIR) / "locale"


def test_the_browser_language_chooses_the_page_language(anonymous_client):
    dutch = anonymous_client.get("/", HTTP_ACCEPT_LANGUAGE="nl-NL,nl;q=0.9")
    german = anonymous_client.get("/", HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9")
    assert b'<html lang="nl">' in dutch.content and b"Aanmelden" in dutch.content
    assert b'<html lang="de">' in german.content and b"Anmelden" in german.content


def test_a_users_profile_language_wins_over_the_browser(anna, anna_client):
    anna.language = "de"
    anna.save()
    page = anna_client.get(reverse("clubs:list"), HTTP_ACCEPT_LANGUAGE="nl")
    assert b'<html lang="de">' in page.content
    assert b"Meine Vereine" in page.content


def test_the_switch_sets_the_language_for_a_visitor(anonymous_client):
    response = anonymous_client.post(reverse("set_language"), {"language": "nl", "next": "/"})
    assert response.status_code == 302
    assert b'<html lang="nl">' in anonymous_client.get("/").content


def test_the_switch_remembers_a_signed_in_users_choice(anna, anna_client):
    anna_client.post(reverse("set_language"), {"language": "nl", "next": "/clubs/"})
    anna.refresh_from_db()
    assert anna.language == "nl"


def test_an_unknown_language_is_refused_with_a_message(anna, anna_client):
    response = anna_client.post(
        reverse("set_language"), {"language": "fr", "next": "/clubs/"}, follow=True
    )
    assert b"That language is not available" in response.content
    anna.refresh_from_db()
    assert anna.language == ""


def test_the_switch_only_accepts_a_post(anonymous_client):
    assert anonymous_client.get(reverse("set_language")).status_code == 405


@pytest.mark.parametrize(
    "path",
    ["/", "/accounts/login/", "/accounts/signup/", "/accounts/password/reset/", "/accounts/guest/"],
)
def test_every_page_has_the_language_switch(anonymous_client, path):
    page = anonymous_client.get(path).content.decode()
    assert 'action="/i18n/setlang/"' in page
    for code in ("nl", "de", "en"):
        assert f'name="language" value="{code}"' in page


def test_allauths_own_words_come_translated(anonymous_client):
    page = anonymous_client.get(reverse("account_login"), HTTP_ACCEPT_LANGUAGE="nl").content
    assert b"Wachtwoord vergeten?" in page


def test_the_club_pages_are_in_dutch_without_english_left(club, anna_client):
    page = anna_client.get(club.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="nl").content.decode()
    for english in ("Members", "Invite members", "Standings", "Leave the club", "No rubbers"):
        assert english not in page
    assert "Leden" in page


def test_the_rules_form_is_in_german(club, anna_client):
    profile = club.profiles.get()
    page = anna_client.get(
        reverse("clubs:profile", args=[club.slug, profile.pk]), HTTP_ACCEPT_LANGUAGE="de"
    ).content.decode()
    assert "Startleben" in page
    assert "(Standard)" in page


@pytest.mark.parametrize("language", ["nl", "de"])
def test_every_message_of_the_project_is_translated(language):
    catalogue = polib.pofile(str(LOCALE / language / "LC_MESSAGES" / "django.po"))
    assert len(catalogue) > 150
    missing = [entry.msgid for entry in catalogue.untranslated_entries()]
    fuzzy = [entry.msgid for entry in catalogue.fuzzy_entries()]
    assert missing == [] and fuzzy == []


def test_the_switch_names_each_language_in_its_own_words(anonymous_client):
    page = anonymous_client.get("/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert ">Nederlands</button>" in page
    assert ">English</button>" in page
    assert "Englisch" not in page
