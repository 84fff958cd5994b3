"""Every response carries a strict Content-Security-Policy and a Permissions-Policy, and the
pages hold nothing that policy would refuse (an inline script or style)."""

import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

# An inline script (a <script> without src that is not a JSON data block) or a style attribute.
INLINE = re.compile(
    r"<script(?![^>]*\b(?:src=|type=\"application/json\"))[^>]*>|\sstyle=\"|\son\w+="
)


def pages(club, anonymous_client, anna_client) -> list[tuple[object, str]]:
    """(client, url) for the pages a visitor and a member see."""
    visitor = [
        "/",
        reverse("games:play"),
        reverse("account_login"),
        reverse("account_signup"),
        reverse("accounts:guest"),
        reverse("games:offline"),
    ]
    member = [
        reverse("clubs:list"),
        reverse("games:club", args=[club.slug]),
        reverse("accounts:profile"),
        reverse("account_email"),
    ]
    return [(anonymous_client, url) for url in visitor] + [(anna_client, url) for url in member]


def test_every_page_has_a_strict_content_security_policy_and_no_inline_code(
    club, anonymous_client, anna_client
):
    everything = [
        *pages(club, anonymous_client, anna_client),
        (anonymous_client, reverse("games:manifest")),
        (anonymous_client, reverse("games:service_worker")),
    ]
    for client, url in everything:
        response = client.get(url)
        assert response.status_code == 200, url
        policy = dict(
            directive.strip().split(" ", 1)
            for directive in response["Content-Security-Policy"].split(";")
        )
        assert policy["default-src"] == "'self'", url
        assert policy["script-src"] == "'self'", url
        assert policy["style-src"] == "'self'", url
        assert policy["object-src"] == policy["base-uri"] == policy["frame-ancestors"] == "'none'"
        if response["Content-Type"].startswith("text/html"):
            assert not INLINE.findall(response.content.decode()), url


def test_every_response_denies_the_devices_and_allows_only_the_screen_wake_lock(
    club, anonymous_client, anna_client
):
    everything = [
        *pages(club, anonymous_client, anna_client),
        (anonymous_client, reverse("games:service_worker")),
        (anonymous_client, "/no-such-page/"),
    ]
    for client, url in everything:
        header = client.get(url)["Permissions-Policy"]
        features = dict(item.strip().split("=", 1) for item in header.split(","))
        assert features.pop("screen-wake-lock") == "(self)", url
        for device in ("camera", "microphone", "geolocation", "payment", "usb"):
            assert features[device] == "()", url
        assert set(features.values()) == {"()"}, url


def test_htmx_is_configured_for_the_policy(anonymous_client):
    page = anonymous_client.get("/").content.decode()
    config = re.search(r"<meta name=\"htmx-config\" content='([^']*)'>", page)
    assert config is not None
    assert '"allowEval": false' in config[1] and '"includeIndicatorStyles": false' in config[1]
