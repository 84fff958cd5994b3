"""The pub's big screen fits 1280x720 and 1920x1080 without scrolling, whatever the night
holds: a crowded night (tests/nights/crowd.py) on the app's own screen page, in Debian's
chromium. Screenshots in test-artifacts/browser/."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import Phones
from tests.browser.test_nights_phone import night_phones, night_server, seed  # noqa: F401

SCREENS = [(1280, 720), (1920, 1080)]


def test_a_crowded_nights_big_screen_fits_without_scrolling(night_phones: Phones) -> None:  # noqa: F811
    out = seed(night_phones.server, do="night", crowd=True)
    for width, height in SCREENS:
        screen = night_phones.open(
            out["people"]["bram"],
            viewport={"width": width, "height": height},
            is_mobile=False,
            has_touch=False,
        )
        screen.goto(night_phones.server.url + out["night"] + "screen/")
        screen.locator("#screen-board").wait_for()
        night_phones.shot(screen, f"crowded-{width}x{height}")
        sizes: dict[str, Any] = screen.evaluate(
            """() => ({
                height: document.documentElement.scrollHeight,
                width: document.documentElement.scrollWidth,
                cut: [...document.querySelectorAll('.screen-standings, .screen-side')]
                    .filter((part) => part.scrollHeight > part.clientHeight + 1)
                    .map((part) => part.className),
                bottom: Math.max(...[...document.querySelectorAll('.screen-list, .standings')]
                    .map((part) => part.getBoundingClientRect().bottom)),
            })"""
        )
        assert sizes["height"] <= height and sizes["width"] <= width, sizes
        assert sizes["cut"] == [] and sizes["bottom"] <= height, sizes
        # Paused and finished tables are named so, not "in play".
        states = screen.locator(".screen-tables .table-state").evaluate_all(
            "(spans) => spans.map((span) => span.dataset.state)"
        )
        assert {"paused", "rubber_over", "playing"} <= set(states), states
