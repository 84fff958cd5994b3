"""The live table under the site's Content-Security-Policy and Permissions-Policy, in a real
chromium: a hand is played from a phone, and nothing the page does is refused or fails.

(Femke, not anna: the first test of test_table_phone.py signs anna up in the same database.)"""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Phones, tap, version

pytestmark = pytest.mark.browser

PLAYABLE = "#table-hand .card-button.is-playable"
# Each refusal the browser reports to the page, kept on window until the test reads it.
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__violations.push(e.violatedDirective + " blocked " + (e.blockedURI || "inline"));
});
"""


class Watch:
    """Console errors, uncaught exceptions and policy violations of one page, across its
    navigations."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.problems: list[str] = []
        page.context.add_init_script(RECORD_VIOLATIONS)
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"uncaught: {error}"))

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.problems.append(f"console error: {message.text}")

    def collect(self) -> list[str]:
        """Everything seen so far, including the current document's violations."""
        self.problems += self.page.evaluate("window.__violations || []")
        self.page.evaluate("window.__violations = []")
        return self.problems


def test_a_hand_played_under_the_policies_breaks_none_of_them(phones: Phones) -> None:
    server = phones.server
    table = server.seed(
        people=["femke"], seats=4, bots={"1": "easy", "2": "easy", "3": "easy"}, start=True
    )
    page = phones.open(session=table["people"]["femke"])
    watch = Watch(page)

    # In by the code, as a player who has it written down.
    page.goto(f"{server.url}/play/")
    page.fill("input[name=code]", table["code"])
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(f"{server.url}/t/{table['code']}/")
    assert watch.collect() == []
    response = page.reload()
    assert response is not None
    policy = response.headers["content-security-policy"]
    assert "script-src 'self';" in policy and "style-src 'self';" in policy
    assert f"ws://127.0.0.1:{server.port}" in policy
    assert "camera=()" in response.headers["permissions-policy"]
    expect(page.locator("#table-hand .card").first).to_be_visible()

    page.locator("#table-mute").click()  # a script's click handler, and localStorage
    page.locator("#table-mute").click()
    knocked = False
    deadline = time.monotonic() + 180  # a bound for a busy machine: a hand takes seconds
    while not page.locator(".hand-result").is_visible():
        assert time.monotonic() < deadline, "the hand did not end"
        before = version(page)
        knock = page.locator("#table-actions .action-knock:not([disabled])")
        stay = page.locator(".answer-window .action-stay")
        if stay.is_visible():
            tapped = tap(stay)
        elif not knocked and knock.is_visible():
            tapped = knocked = tap(knock)
        elif page.locator(PLAYABLE).count():
            tapped = tap(page.locator(PLAYABLE).first)
        else:
            tapped = False
            page.wait_for_timeout(100)
        if not tapped:
            continue  # nothing to do yet, or the view moved on before the tap: look again
        deadline_change = time.monotonic() + 5
        while version(page) <= before and time.monotonic() < deadline_change:
            page.wait_for_timeout(50)
    phones.shot(page, "hand-over-under-the-policies")
    assert watch.collect() == []

    # The service worker and the pages around the table, under the same policies.
    assert page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    for path in ("/", "/clubs/", "/accounts/profile/", "/accounts/email/"):
        page.goto(f"{server.url}{path}")
        page.wait_for_load_state("networkidle")
        assert watch.collect() == [], path
