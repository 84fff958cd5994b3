"""A night at the pub on a 360 by 740 touch phone: what went wrong there, each in a real chromium.

These tests run against a daphne of their own whose laundry stays open for 30 seconds (the
other browser tests close it after one), so people can pass a phone and tap through it; the
computer players act after 0.6 seconds.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM, LiveServer, Phones, swipe, version
from tests.conftest import require_service

pytestmark = pytest.mark.browser

PLAYABLE = "#table-hand .card-button.is-playable"
WIDTH, HEIGHT = 360, 740


@pytest.fixture(scope="module")
def pub_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    require_service("chromium", CHROMIUM.exists())
    server = LiveServer(
        tmp_path_factory.mktemp("pub"),
        TOEPEN_LAUNDRY_SECONDS="30",
        TOEPEN_CHALLENGE_SECONDS="30",
        # Slow enough that a trick takes longer than the two seconds it stays on the felt.
        TOEPEN_BOT_SECONDS="0.6",
    )
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pub(browser: Any, pub_server: LiveServer, request: pytest.FixtureRequest) -> Iterator[Phones]:
    kit = Phones(browser, pub_server, request.node.name)
    try:
        yield kit
    finally:
        kit.close()


def on_screen(page: Any, selector: str) -> None:
    """`selector` (every match) lies wholly inside the screen, without scrolling."""
    locator = page.locator(selector)
    assert locator.count(), f"{selector} is not there"
    assert page.evaluate("window.scrollY") == 0, "the page was scrolled"
    for i in range(locator.count()):
        box = locator.nth(i).bounding_box()
        assert box is not None, f"{selector} is not shown"
        assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTH + 0.5, (selector, box)
        assert box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT + 0.5, (
            selector,
            box,
        )


def nothing_clipped(page: Any, selector: str) -> None:
    """No text in `selector` is cut off: each box shows all it holds."""
    clipped = page.evaluate(
        """(sel) => [...document.querySelectorAll(sel)].filter(
             (el) => el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1
           ).map((el) => el.className + ": " + el.textContent.trim().slice(0, 60))""",
        selector,
    )
    assert clipped == [], clipped


def wait_for(page: Any, check: Any, what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        page.wait_for_timeout(100)


def lagging(page: Any) -> dict[str, bool]:
    """The way from the server to `page`, with two switches: "views" holds back the views
    (the phone has not heard of the latest change, but hears its refusals), "all" everything
    (the connection is gone, though no socket says so)."""
    cut = {"views": False, "all": False}

    def route(ws: Any) -> None:
        upstream = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            if cut["all"] or (cut["views"] and 'id="table-live"' in str(message)):
                return
            ws.send(message)

        upstream.on_message(to_page)

    page.route_web_socket(re.compile(r"/ws/tables/"), route)
    return cut


def open_table(pub: Phones, session: str | None, code: str, **options: Any) -> Any:
    page = pub.open(session=session, **options)
    page.goto(f"{pub.server.url}/t/{code}/")
    expect(page.locator("#table-live")).to_be_attached()
    return page


def stay_in_the_game(page: Any, until: Any, timeout: float = 60, others: tuple = ()) -> None:
    """Tap through on `page` (and the phones of `others` at the table, who would hold it up):
    done with the laundry, stay on knocks, play the first standing card."""
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, "the table never got there"
        tapped = False
        for phone in (page, *others):
            before = version(phone)
            for selector in (".action-ready", ".answer-window .action-stay", PLAYABLE):
                target = phone.locator(selector).first
                if target.is_visible():
                    target.click()
                    deadline_change = time.monotonic() + 5
                    while version(phone) == before and time.monotonic() < deadline_change:
                        phone.wait_for_timeout(50)
                    tapped = True
                    break
        if not tapped:
            page.wait_for_timeout(100)


# -- 3. a refusal goes away; 6. a refused start says why, and any seated player starts -----------


def test_a_refused_start_says_why_then_clears_and_any_seated_player_may_start(
    pub: Phones,
) -> None:
    table = pub.server.seed(people=["anna", "bram"], seats=3, seat={"1": "bram"})
    anna = open_table(pub, table["people"]["anna"], table["code"])
    bram = open_table(pub, table["people"]["bram"], table["code"])
    guest = open_table(pub, None, table["code"])
    guest.fill("input[name=name]", "Fenna")
    # A free seat: the start is refused, and the reason is on anna's screen.
    anna.get_by_role("button", name="Start the rubber").click()
    error = anna.locator("#table-error")
    expect(error).to_have_text("Every seat needs a player or a computer player.")
    shown = time.monotonic()
    on_screen(anna, "#table-error")
    pub.shot(anna, "start-refused")
    # Someone sits down: the table changed, so the refusal has said its piece (sooner than it
    # would go by itself).
    guest.get_by_role("button", name="Sit down").click()
    expect(anna.locator("#table-players .player")).to_contain_text(["anna", "bram", "Fenna"])
    expect(error).to_be_empty()
    assert time.monotonic() - shown < 4.5
    # Bram did not open the table, and starts it.
    bram.get_by_role("button", name="Start the rubber").click()
    expect(bram.locator("#table-live")).to_have_attribute("data-status", "playing")
    expect(anna.locator("#table-live")).to_have_attribute("data-status", "playing")
    pub.shot(bram, "started-by-bram")


def test_a_refusal_clears_by_itself_after_a_few_seconds(pub: Phones) -> None:
    table = pub.server.seed(people=["anna"], seats=3)
    anna = open_table(pub, table["people"]["anna"], table["code"])
    anna.get_by_role("button", name="Start the rubber").click()
    error = anna.locator("#table-error")
    expect(error).to_have_text("Every seat needs a player or a computer player.")
    shown = time.monotonic()
    expect(error).to_be_empty(timeout=8000)
    assert time.monotonic() - shown >= 2, "gone before it could be read"


# -- 8. a swipe overtaken by a knock -----------------------------------------------------------


def test_a_swipe_to_fold_overtaken_by_a_knock_is_refused_for_the_answers_awaited(
    pub: Phones,
) -> None:
    table = pub.server.seed(
        people=["anna", "bram", "cas"],
        seats=3,
        seat={"1": "bram", "2": "cas"},
        rules={
            "exchange": False,
            "voluntary_fold": True,
            "response_order": "sequential",
        },
        start=True,
    )
    anna = pub.open(session=table["people"]["anna"])
    hold = lagging(anna)
    anna.goto(f"{pub.server.url}/t/{table['code']}/")
    expect(anna.locator("#table-hand.can-fold")).to_be_visible()
    bram = open_table(pub, table["people"]["bram"], table["code"])
    hold["views"] = True
    bram.locator("#table-actions .action-knock").click()
    # Cas answers first (she sits at bram's left); anna's answer comes after hers.
    expect(bram.locator('#table-players .player[data-seat="2"]')).to_have_class(
        re.compile("is-due")
    )
    swipe(anna, "#table-hand", 220)
    expect(anna.locator("#table-error")).to_have_text("Wait: answers to the knock come first.")
    pub.shot(anna, "refused-for-the-answers")


# -- 10. a guest types a code --------------------------------------------------------------------


def test_a_guest_finds_where_to_type_a_table_code(pub: Phones) -> None:
    table = pub.server.seed(people=["anna"], seats=3, bots={"2": "easy"})
    page = pub.open()
    page.goto(f"{pub.server.url}/")
    page.get_by_role("link", name="Play as a guest").click()
    page.fill("input[name=display_name]", "Fenna")
    page.locator("main form button[type=submit]").click()
    pub.shot(page, "after-guest")
    page.get_by_label("Table code").fill(table["code"].lower())
    page.get_by_role("button", name="Go to the table").click()
    page.wait_for_url(re.compile(rf"/t/{table['code']}/$"))
    page.get_by_role("button", name="Sit down").click()
    expect(page.locator("#table-players .player.is-mine")).to_contain_text("Fenna")
    # And from any page: the header links to the code form.
    page.goto(f"{pub.server.url}/accounts/guest/")
    page.get_by_role("navigation").get_by_role("link", name="Join a table").click()
    expect(page.get_by_label("Table code")).to_be_visible()


# -- 12. a running table's code ------------------------------------------------------------------


def test_a_stranger_with_the_code_of_a_running_table_is_told_it_is_running(
    pub: Phones,
) -> None:
    table = pub.server.seed(people=["anna"], seats=3, bots={"1": "easy", "2": "easy"}, start=True)
    page = pub.open()
    response = page.goto(f"{pub.server.url}/t/{table['code']}/")
    assert response is not None and response.status == 200
    expect(page.locator("main")).to_contain_text("A rubber is being played at this table")
    page.get_by_role("link", name="Sign in to watch").click()
    page.wait_for_url(re.compile(r"/accounts/login/"))
    assert f"/t/{table['code']}/" in page.url
    page.go_back()
    assert "anna" not in page.locator("main").inner_text()
    assert not page.locator("#table-live, .card").count()
    pub.shot(page, "running")
