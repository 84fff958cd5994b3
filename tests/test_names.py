"""One name check for every name people type and others see (accounts/names.py): a club's, a
season's, a house-rule profile's typed or imported, a slate guest's, as a guest's and an
account's (tests/accounts/test_display_names.py). A name that turns the text around it, shows
nothing or holds a control character is refused with a message, and nothing is saved.
`make test`'s PostgreSQL pass runs these on PostgreSQL too, which cannot store a NUL at all."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from clubs.models import Club, HouseRuleProfile
from games.models import Table
from nights.models import Season
from tests.names import DECEPTIVE
from tests.personas import Cast

pytestmark = pytest.mark.django_db

# What no name may hold beyond DECEPTIVE: a NUL, and another control character.
CONTROL = ["Anna\x00", "\x00", "Kees\x07"]
REFUSED = DECEPTIVE + CONTROL
SAYS_WHY = ("control characters", "nothing visible")


def says_why(text: str) -> bool:
    return any(reason in text for reason in SAYS_WHY)


@pytest.mark.parametrize("name", REFUSED)
def test_a_club_cannot_be_founded_under_a_deceptive_name(klaver: Cast, name: str) -> None:
    before = Club.objects.count()
    response = klaver.eva.client().post(reverse("clubs:create"), {"name": name})
    assert response.status_code == 200
    assert b"errorlist" in response.content
    assert Club.objects.count() == before


@pytest.mark.parametrize("name", REFUSED)
def test_a_season_cannot_be_given_a_deceptive_name(klaver: Cast, name: str) -> None:
    today = timezone.localdate().isoformat()
    response = klaver.anna.client().post(
        f"/clubs/{klaver.club.slug}/seasons/",
        {
            "name": name,
            "starts_on": today,
            "ends_on": today,
            "points_win": "3",
            "points_survive": "1",
            "points_lose": "0",
        },
    )
    assert response.status_code == 400
    assert b"errorlist" in response.content
    assert not Season.objects.exists()


@pytest.mark.parametrize("name", REFUSED)
def test_a_new_profile_cannot_be_given_a_deceptive_name(klaver: Cast, name: str) -> None:
    before = set(HouseRuleProfile.objects.values_list("pk", flat=True))
    response = klaver.anna.client().post(
        reverse("clubs:profile_new", args=[klaver.club.slug]),
        {"source": "builtin:classic", "name": name},
    )
    assert response.status_code == 200
    assert b"errorlist" in response.content
    assert set(HouseRuleProfile.objects.values_list("pk", flat=True)) == before


@pytest.mark.parametrize("name", REFUSED)
@pytest.mark.parametrize("how", ["text", "file"])
def test_an_imported_profile_under_a_deceptive_name_is_refused_and_says_why(
    klaver: Cast, name: str, how: str
) -> None:
    # The name comes from the file itself (the form's own name field left empty): a NUL there
    # never met the form field's own check.
    exported = json.dumps({"name": name, "rules": {"starting_lives": 12}})
    posted = (
        {"text": exported}
        if how == "text"
        else {"file": SimpleUploadedFile("kroeg.json", exported.encode(), "application/json")}
    )
    before = set(HouseRuleProfile.objects.values_list("pk", flat=True))
    response = klaver.anna.client().post(
        reverse("clubs:profile_import", args=[klaver.club.slug]), posted
    )
    assert response.status_code == 200
    assert says_why(response.content.decode())
    assert set(HouseRuleProfile.objects.values_list("pk", flat=True)) == before


@pytest.mark.parametrize("name", REFUSED)
def test_a_slate_guest_cannot_play_under_a_deceptive_name(klaver: Cast, name: str) -> None:
    response = klaver.anna.client().post(
        reverse("games:slate_new", args=[klaver.club.slug]),
        {
            "members": [klaver.anna.user.pk, klaver.bram.user.pk],
            "guests": f"Kees\n{name}\n",
            "keepers": "creator",
        },
    )
    assert response.status_code in (200, 400)
    assert b"errorlist" in response.content
    assert not Table.objects.exists()


def test_ordinary_names_in_any_script_are_still_taken(klaver: Cast) -> None:
    client = klaver.anna.client()
    name = "Noor \U0001f469\u200d\U0001f373 \u0645\u06cc\u200c\u0631\u0632\u0627"
    response = client.post(
        reverse("games:slate_new", args=[klaver.club.slug]),
        {
            "members": [klaver.anna.user.pk],
            "guests": f"{name}\nJos\u0065\u0301",
            "keepers": "creator",
        },
    )
    assert response.status_code == 302
    assert [seat.name for seat in Table.objects.get().seats.order_by("index")][1:] == [
        name,
        "Jos\u0065\u0301",
    ]
    assert client.post(reverse("clubs:create"), {"name": name}).status_code == 302
    assert Club.objects.filter(name=name).exists()
