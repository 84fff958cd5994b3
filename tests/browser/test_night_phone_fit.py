"""A crowded night's page on a 360x740 phone: its standings fit the screen's width (nothing
cut off, nothing to scroll sideways). Screenshots in test-artifacts/browser/."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import Phones
from tests.browser.test_nights_phone import night_phones, night_server, seed  # noqa: F401


def test_the_nights_standings_fit_a_360_px_phone(night_phones: Phones) -> None:  # noqa: F811
    out = seed(night_phones.server, do="night", crowd=True)
    for locale in ("en-GB", "nl-NL", "de-DE"):
        fits(night_phones, out, locale)


def fits(night_phones: Phones, out: dict[str, Any], locale: str) -> None:  # noqa: F811
    page = night_phones.open(out["people"]["bram"], locale=locale)
    page.goto(night_phones.server.url + out["night"])
    standings = page.locator("table.standings")
    standings.wait_for()
    night_phones.shot(page, f"night-standings-360-{locale}")
    sizes: dict[str, Any] = standings.evaluate(
        """(table) => ({
            table: table.scrollWidth,
            box: table.parentElement.clientWidth,
            page: document.documentElement.scrollWidth,
            screen: window.innerWidth,
        })"""
    )
    assert sizes["table"] <= sizes["box"] and sizes["page"] <= sizes["screen"], (locale, sizes)
