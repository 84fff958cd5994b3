"""A display name must show something and may not turn the text around it (one check for
guests and accounts; the table's join form is in tests/view/test_table_pages.py)."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.models import Guest
from accounts.names import clean_display_name
from tests.names import DECEPTIVE, LOOK_BLANK, TURN_TEXT

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", DECEPTIVE)
def test_a_guest_name_that_looks_blank_or_turns_text_around_is_refused(anonymous_client, name):
    response = anonymous_client.post(reverse("accounts:guest"), {"display_name": name})
    assert response.status_code == 200
    assert b"errorlist" in response.content
    assert not Guest.objects.exists()


@pytest.mark.parametrize("name", DECEPTIVE)
def test_a_profile_name_that_looks_blank_or_turns_text_around_changes_nothing(
    anna, anna_client, name
):
    response = anna_client.post(reverse("accounts:profile"), {"display_name": name, "language": ""})
    assert response.status_code == 200
    assert b"errorlist" in response.content
    anna.refresh_from_db()
    assert anna.display_name == "Anna"


def test_each_refusal_says_why_and_ordinary_names_in_any_script_still_pass():
    for name in LOOK_BLANK:
        with pytest.raises(ValidationError, match="nothing visible"):
            clean_display_name(name)
    for name in TURN_TEXT:
        with pytest.raises(ValidationError, match="turn text around"):
            clean_display_name(name)
    # Joiners inside a name that shows (an emoji family, Persian's ZWNJ) are not refused.
    for name in (
        "Noor \U0001f469\u200d\U0001f373",
        "\u0645\u06cc\u200c\u0631\u0632\u0627",
        "Jos\u0065\u0301",
    ):
        assert clean_display_name(name) == name
