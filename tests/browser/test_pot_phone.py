"""A rubber played for the pot on a 360 by 740 touch phone (rules.md 3.10): Anna goes out, buys
back in before the next deal, goes out again; the computer players play it out; the night's
settlement is ticked on the same phone."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM, LiveServer, Phones, tap
from tests.conftest import require_service

pytestmark = pytest.mark.browser

POT = {
    "starting_lives": 3,
    "end_condition": "last_standing",
    "min_players": 2,
    "voluntary_fold": True,
    "pot_stake": 250,
    "buy_back": 1,
}


@pytest.fixture(scope="module")
def pot_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    require_service("chromium", CHROMIUM.exists())
    server = LiveServer(tmp_path_factory.mktemp("pot"), TOEPEN_BUY_BACK_SECONDS="60")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def phones(
    browser: Any, pot_server: LiveServer, request: pytest.FixtureRequest
) -> Iterator[Phones]:
    kit = Phones(browser, pot_server, request.node.name)
    try:
        yield kit
    finally:
        kit.close()


def fold_until(page: Any, done: Any, timeout: float = 120) -> None:
    """Anna folds whenever she may (of her own accord, or on a knock) until `done()`."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "the table never got there"
        fold = page.locator("#table-actions .action-fold, .answer-window .action-fold").first
        if fold.is_visible():
            tap(fold, timeout=2000)
        page.wait_for_timeout(150)


def fits_the_phone(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_a_pot_rubber_with_a_buy_back_played_out_and_its_night_settled(phones: Phones) -> None:
    seeded = phones.server.seed(
        people=["anna"],
        seats=4,
        bots={"1": "easy", "2": "easy", "3": "easy"},
        rules=POT,
        night=True,
        start=True,
        lives=[1, 3, 3, 3],
    )
    page = phones.open(session=seeded["people"]["anna"])
    page.goto(f"{phones.server.url}/t/{seeded['code']}/")
    expect(page.locator("#table-live")).to_be_attached()
    expect(page.locator(".pot-pill")).to_have_text("Pot: €10.00")

    buy_back = page.locator(".action-buy_back")
    fold_until(page, buy_back.is_visible)
    expect(buy_back).to_have_text("Buy back in (€2.50)")
    phones.shot(page, "buy-back-offered")
    fits_the_phone(page)
    tap(buy_back)
    expect(page.locator(".pot-pill")).to_have_text("Pot: €12.50", timeout=30_000)
    expect(buy_back).to_have_count(0)

    over = page.locator(".rubber-result")
    fold_until(page, over.is_visible, timeout=240)
    expect(over).to_contain_text("pot")
    phones.shot(page, "rubber-over")
    report = phones.server.seed(report=seeded["code"])
    assert report["over"] and [seat for seat, _before in report["buy_backs"]] == [0]
    assert report["pot_takers"]

    night = f"{phones.server.url}/clubs/de-gouden-klaver/nights/{report['night']}/"
    page.goto(night)
    expect(page.locator("#pot-title")).to_be_visible()
    expect(page.locator("table.money")).to_contain_text("€5.00")  # Anna's stakes
    fits_the_phone(page)
    page.locator("form[action$='/close/'] button").click()
    payments = page.locator("ul.payments li")
    expect(payments.first).to_be_visible()
    expect(payments.first).to_contain_text("pays")
    count = payments.count()
    assert 1 <= count <= 3  # four people, at most three payments
    phones.shot(page, "settlement")
    tap(payments.first.locator("button.tick"))
    expect(page.locator("ul.payments li.is-paid")).to_have_count(1)
    expect(page.locator("ul.payments li.is-paid .badge")).to_have_text("paid")
    fits_the_phone(page)
    phones.shot(page, "settlement-ticked")
