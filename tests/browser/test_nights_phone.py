"""A club night in a real chromium against a real daphne: two tables played to the end by the
computer (two computer players each, and a member who is away, for whom the table plays), the
night on a phone and on the pub's big screen. Screenshots in test-artifacts/browser/."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from games.services.changes.seats import BOT_NAMES
from tests.browser.conftest import LiveServer, Phones
from tests.conftest import require_service

pytestmark = pytest.mark.browser

BIG_SCREEN = {"viewport": {"width": 1280, "height": 720}, "is_mobile": False, "has_touch": False}


@pytest.fixture(scope="module")
def night_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    from tests.browser.conftest import CHROMIUM

    require_service("chromium", CHROMIUM.exists())
    server = LiveServer(tmp_path_factory.mktemp("nights"))
    # A member at the table whose turn clock runs out is played for at once; no one waits
    # between hands for long. Her phone's grace outlasts heartbeats held up on a busy machine:
    # she stays at the table (a phone silent past it would put her on a break, and the table,
    # nobody left at it, would pause).
    server.env.update(
        TOEPEN_GRACE_SECONDS="10",
        TOEPEN_TURN_SECONDS="0.5",
        TOEPEN_BOT_SECONDS="0.2",
        TOEPEN_LAUNDRY_SECONDS="0.5",
        TOEPEN_BETWEEN_HANDS_SECONDS="0.5",
    )
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def night_phones(
    browser: Any, night_server: LiveServer, request: pytest.FixtureRequest
) -> Iterator[Phones]:
    kit = Phones(browser, night_server, request.node.name)
    try:
        yield kit
    finally:
        kit.close()


def seed(server: LiveServer, **spec: Any) -> dict[str, Any]:
    """What `python -m tests.browser.nights_seed '<spec>'` makes and prints."""
    return server.seed_with("tests.browser.nights_seed", spec)


def swipe_sideways(page: Any, selector: str, dx: float, steps: int = 8) -> None:
    """A finger on `selector` moved `dx` px sideways, as touch events."""
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    x = box["x"] + box["width"] / 2
    y = box["y"] + min(box["height"] / 2, 200)
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, at_x: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": at_x, "y": y, "id": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", x)
    for step in range(1, steps + 1):
        touch("touchMove", x + dx * step / steps)
        page.wait_for_timeout(16)
    touch("touchEnd", x + dx)
    cdp.detach()


def step_of(page: Any) -> int:
    return int(page.locator("#replay-step").get_attribute("data-step") or -1)


def settled(page: Any) -> None:
    """htmx has swapped the last step in and settled (a finger comes after the screen moved)."""
    # A locator, not wait_for_function: the page's Content-Security-Policy forbids the eval
    # that a predicate in a string needs.
    expect(page.locator(".htmx-request, .htmx-swapping, .htmx-settling")).to_have_count(0)


def test_a_club_night_on_a_phone_and_the_big_screen(night_phones: Phones) -> None:
    server = night_phones.server
    out = seed(server, do="night")
    url = server.url + out["night"]

    # The pub's screen is up before any rubber ends; it follows the night by itself.
    screen = night_phones.open(out["people"]["bram"], **BIG_SCREEN)
    screen.goto(url + "screen/")
    board = screen.locator("#screen-board")
    expect(board).to_have_attribute("data-rubbers", "0")
    night_phones.shot(screen, "screen-before")

    # Each member has her table open on a phone of her own: she is at the table (a table
    # nobody is at would pause), and her turn clock plays for her. The rubbers start once the
    # phones are there, as at the pub: started before, a turn clock could run out for a member
    # whose phone the table had not yet heard, and she would be on a break from the first trick.
    for name, code in out["tables"].items():
        night_phones.open(out["people"][name]).goto(f"{server.url}/t/{code}/")
    seed(server, do="again", codes=out["codes"])

    phone = night_phones.open(out["people"]["anna"])
    phone.goto(url)
    night_phones.shot(phone, "night-open")

    # Both tables play their rubbers to the end; another is started until the night has its
    # Toepkoning and somebody owes a round (a rubber where the last two go out together has
    # no winner).
    deadline = time.monotonic() + 240
    while True:
        assert time.monotonic() < deadline, "the night got no Toepkoning and no round owed"
        finished = int(board.get_attribute("data-rubbers") or 0)
        phone.reload()
        crowned = phone.locator(".king-name").count() > 0
        owed = phone.locator(".rounds button.tick").count() > 0
        if finished >= 2 and crowned and owed:
            break
        if finished >= 2:
            seed(server, do="again", codes=out["codes"])
        phone.wait_for_timeout(1000)
    # The screen updated itself (no reload) as rubbers ended.
    expect(board).not_to_have_attribute("data-rubbers", "0")
    expect(screen.locator(".screen-king strong")).to_be_visible()
    night_phones.shot(screen, "screen-after")

    king = phone.locator(".king-name strong").inner_text()
    assert king in ("Anna", "Bram") or king in BOT_NAMES
    expect(phone.locator("tr.is-king")).to_contain_text(king)
    expect(phone.locator("#standings-title + .scroll tbody tr").first).to_be_visible()
    night_phones.shot(phone, "night-crowned")

    # A round is ticked as paid, in place.
    rounds = phone.locator(".rounds li")
    first = rounds.first
    first.locator("button.tick").tap()
    expect(first).to_have_class(re.compile("is-paid"))
    expect(first.locator(".badge")).to_have_text("paid")
    night_phones.shot(phone, "round-paid")

    # A hand of the night, replayed to its end: taps, then a swipe, then taps to the result.
    phone.locator(".rubbers a", has_text="Hands").first.tap()
    phone.wait_for_url(re.compile(r"/hands/\?rubber=\d+$"))
    phone.locator("main .rows a").first.tap()
    phone.wait_for_url(re.compile(r"/hands/\d+/$"))
    expect(phone.locator(".replay-said")).to_contain_text("The deal")
    expect(phone.locator(".replay-seat .card").first).to_be_visible()
    night_phones.shot(phone, "replay-deal")
    phone.locator("#replay-next").tap()
    expect(phone.locator("#replay-step")).to_have_attribute("data-step", "1")
    settled(phone)
    swipe_sideways(phone, "#replay-step", -160)
    expect(phone.locator("#replay-step")).to_have_attribute("data-step", "2")
    settled(phone)
    swipe_sideways(phone, "#replay-step", 160)
    expect(phone.locator("#replay-step")).to_have_attribute("data-step", "1")
    assert "step=1" in phone.url
    last = int(phone.locator("#replay-step").get_attribute("data-last") or 0)
    # A tap in the moment after a swipe only stops the swipe's fling (Chromium's gestures, as
    # on a phone) and is no click: the finger comes back a little later.
    phone.wait_for_timeout(600)
    while step_of(phone) < last:
        before = step_of(phone)
        phone.locator("#replay-next").tap()
        expect(phone.locator("#replay-step")).to_have_attribute("data-step", str(before + 1))
    expect(phone.locator(".hand-outcome")).to_contain_text(re.compile("wins the hand|Nobody"))
    expect(phone.locator("#replay-next")).to_have_count(0)
    night_phones.shot(phone, "replay-end")
