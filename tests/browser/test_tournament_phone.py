"""A tournament of 13 players on a 360 by 740 phone: three rounds and a final table of the best
four, drawn by the admin's taps; once at app tables played by computer players, once at slate
tables whose entries the admin's phone writes. After every round the draw on the page and on
the big screen, and the leaderboard, are checked against one another."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import CHROMIUM, ROOT, LiveServer, Phones
from tests.conftest import require_service

pytestmark = pytest.mark.browser

PLAYERS = 13


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """Computer players as quick as the clock lets them, and short windows."""
    require_service("chromium", CHROMIUM.exists())
    server = LiveServer(
        tmp_path_factory.mktemp("tournament"),
        TOEPEN_BOT_SECONDS="0.02",
        TOEPEN_LAUNDRY_SECONDS="0.2",
        TOEPEN_CHALLENGE_SECONDS="0.2",
        TOEPEN_BETWEEN_HANDS_SECONDS="0.1",
    )
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def seeded(quick_server: LiveServer) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.browser.tournament_seed", "{}"],
        cwd=ROOT,
        env=quick_server.env,
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.fixture
def kit(browser: Any, quick_server: LiveServer, request: pytest.FixtureRequest) -> Iterator[Phones]:
    phones = Phones(browser, quick_server, request.node.name)
    try:
        yield phones
    finally:
        phones.close()


def draw_on(page: Any) -> list[tuple[str, str, str]]:
    """The draw the tournament page shows: (table number, names, code) per table."""
    return [
        (item["table"], item["text"], item["code"])
        for item in page.locator("ul.draw li").evaluate_all(
            """(items) => items.map((li) => ({table: li.dataset.table,
                text: li.textContent, code: li.querySelector('a').textContent}))"""
        )
    ]


def board_on(page: Any) -> list[tuple[str, float]]:
    """The leaderboard: (name, points) per row."""
    rows = page.locator("#leaderboard tbody tr[data-entry]").evaluate_all(
        "(rows) => rows.map((r) => [r.children[1].textContent.trim(), r.children[2].textContent])"
    )
    return [(name, float(points)) for name, points in rows]


def check_round(kit: Phones, page: Any, screen: Any, address: str, number: int) -> None:
    """After round `number` (4: the final) is played: the page and the big screen agree."""
    page.goto(address)
    final = number > 3
    drawn = draw_on(page)
    assert len(drawn) == (1 if final else 4), drawn  # 13 at tables of 4: 4, 3, 3, 3
    screen.goto(address + "screen/")
    screen_draw = screen.locator(".screen-draw li").all_inner_texts()
    for (table, text, _code), shown in zip(drawn, screen_draw, strict=True):
        names = text.split(":", 1)[1].split("·")[0].strip()
        assert shown.strip() == f"table {table}: {names}", (shown, text)
    assert screen.locator(".screen-playing li").all_inner_texts() == ["No table is playing."]
    # The pub's screen shows it all without scrolling.
    size = screen.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
    )
    assert size[0] <= 1280 and size[1] <= 720, size
    board = board_on(page)
    assert len(board) == PLAYERS
    points = [p for _n, p in board]
    if not final:
        assert points == sorted(points, reverse=True), board
        # Every table gives out 5 + 3 + 2 (+ 1 at a table of four), split or not.
        assert sum(points) == pytest.approx(number * (11 + 3 * 10), abs=0.1)
    assert [n for n, _p in board][:12] == [
        n.strip() for n in screen.locator("#leaderboard tbody tr td:nth-child(2)").all_inner_texts()
    ]
    kit.shot(page, f"round-{number}")
    kit.shot(screen, f"screen-{number}")


def start_round(page: Any, address: str) -> None:
    page.goto(address)
    page.locator("#start-round").click()
    page.wait_for_url(address)
    assert page.locator(".message.error").count() == 0, page.locator(
        ".message.error"
    ).all_inner_texts()


def wait_round_played(page: Any, address: str, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while True:
        page.goto(address)
        if page.locator("#tournament-live").get_attribute("data-playing") == "0":
            return
        assert time.monotonic() < deadline, "the round was never played out"
        page.wait_for_timeout(500)


def test_thirteen_computer_players_play_three_rounds_and_a_final_at_app_tables(
    kit: Phones, seeded: dict[str, Any]
) -> None:
    page = kit.open(seeded["session"])
    screen = kit.open(seeded["session"], viewport={"width": 1280, "height": 720})
    address = kit.server.url + seeded["live"]
    for number in (1, 2, 3, 4):
        start_round(page, address)
        drawn = draw_on(page)
        # Nobody twice in the round.
        names = [
            n.strip()
            for _t, text, _c in drawn
            for n in text.split(":", 1)[1].split("·")[0].split(",")
        ]
        assert len(names) == len(set(names)) == (4 if number == 4 else PLAYERS), names
        wait_round_played(page, address)
        check_round(kit, page, screen, address, number)
    assert page.locator("text=The tournament is over.").count() >= 1
    assert page.locator("#start-round").count() == 0


def test_thirteen_players_at_slate_tables_kept_by_the_admins_phone(
    kit: Phones, seeded: dict[str, Any]
) -> None:
    from playwright.sync_api import expect

    page = kit.open(seeded["session"])
    screen = kit.open(seeded["session"], viewport={"width": 1280, "height": 720})
    slate = kit.open(seeded["session"])
    address = kit.server.url + seeded["slate"]
    for number in (1, 2, 3, 4):
        start_round(page, address)
        for _table, _text, code in draw_on(page):
            with slate.expect_websocket(timeout=30_000) as opened:  # as long as a page load
                slate.goto(f"{kit.server.url}/s/{code}/")
            opened.value.wait_for_event("framereceived", timeout=30_000)
            # The first player takes every last trick until the rubber is over.
            for _ in range(12):
                if slate.locator(".slate-over").count():
                    break
                while slate.locator(".slate-player.is-due .act-stay").count():
                    slate.locator(".slate-player.is-due .act-stay").first.click()
                    slate.wait_for_timeout(100)
                before = slate.locator("#slate-live").get_attribute("data-version")
                slate.locator(".slate-player .act-last_trick").first.click()
                expect(slate.locator("#slate-live")).not_to_have_attribute(
                    "data-version", before or ""
                )
                # The hand's end is on the slate until the keeper opens the next hand.
                if slate.locator(".slate-deal").count():
                    before = slate.locator("#slate-live").get_attribute("data-version")
                    slate.locator(".slate-deal").click()
                    expect(slate.locator("#slate-live")).not_to_have_attribute(
                        "data-version", before or ""
                    )
            expect(slate.locator(".slate-over")).to_contain_text("The rubber is over.")
        wait_round_played(page, address, timeout=20)
        check_round(kit, page, screen, address, number)
    assert page.locator("text=The tournament is over.").count() >= 1
