"""The table on a phone, in a real chromium against a real daphne.

Each test drives phones the way people do, by tapping, double-tapping and swiping, and reads
only what the page shows. Screenshots of every step are kept in test-artifacts/browser/.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Phones, double_tap, swipe, tap, version

pytestmark = pytest.mark.browser

PLAYABLE = "#table-hand .card-button.is-playable"


def wait_for_change(page: Any, before: int, timeout: float = 15) -> int:
    """The next view after `before`. The bound is for a machine busy with other work: a view
    comes in a fraction of a second on an idle one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = version(page)
        if now > before:
            return now
        page.wait_for_timeout(50)
    raise AssertionError(f"the view stayed at version {before}")


def play_a_card(page: Any, timeout: float) -> str:
    """Stay on every knock until it is the phone's turn, then tap its first playable card;
    the card tapped. A computer player may knock at any moment, also between the look and the
    tap: then the phone answers and looks again, as a player would."""
    deadline = time.monotonic() + timeout
    while True:
        assert time.monotonic() < deadline, "the phone's turn never came"
        stay = page.locator(".answer-window .action-stay")
        if stay.is_visible():
            tap(stay)
        else:
            cards = page.locator(f"{PLAYABLE} .card").evaluate_all(
                "cards => cards.map(card => card.dataset.card)"
            )
            held = page.locator(f'.card[data-card="{cards[0]}"]') if cards else None
            if held is not None and tap(page.locator(PLAYABLE).filter(has=held)):
                return cards[0]
        page.wait_for_timeout(100)


def test_a_new_player_signs_up_founds_a_club_and_plays_a_hand_against_the_computer(
    phones: Phones,
) -> None:
    page = phones.open()
    url = phones.server.url
    page.goto(f"{url}/accounts/signup/")
    page.fill("input[name=username]", "anna")
    page.fill("input[name=email]", "anna@example.org")
    page.fill("input[name=password1]", "klaver-zeven-1987")
    page.fill("input[name=password2]", "klaver-zeven-1987")
    phones.shot(page, "signup")
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/clubs/"))

    page.goto(f"{url}/clubs/new/")
    page.fill("input[name=name]", "De Vrolijke Boer")
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/clubs/de-vrolijke-boer/"))
    page.goto(f"{url}/clubs/de-vrolijke-boer/tables/new/")
    phones.shot(page, "new-table")
    # The defaults: four seats, the three others computer players.
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url(re.compile(r"/t/[A-Z0-9]+/$"))
    expect(page.locator("#table-players .player")).to_have_count(4)
    phones.shot(page, "waiting")
    page.get_by_role("button", name="Start the rubber").click()
    expect(page.locator("#table-live")).to_have_attribute("data-status", "playing")
    phones.shot(page, "dealt")

    played = knocked = answered = 0
    deadline = time.monotonic() + 60
    while not page.locator(".hand-result").is_visible():
        assert time.monotonic() < deadline, "the hand did not end"
        before = version(page)
        stay = page.locator(".answer-window .action-stay")
        knock = page.locator("#table-actions .action-knock:not([disabled])")
        if stay.is_visible():
            phones.shot(page, f"answer-{answered}")
            if not tap(stay):
                continue
            answered += 1
        elif not knocked and played >= 2 and knock.is_visible():
            if not tap(knock):
                continue
            knocked += 1
            phones.shot(page, "knocked")
        elif page.locator(PLAYABLE).count():
            if not tap(page.locator(PLAYABLE).first):
                continue
            played += 1
            phones.shot(page, f"played-{played}")
        else:
            page.wait_for_timeout(100)
            continue
        wait_for_change(page, before)

    phones.shot(page, "hand-over")
    # Anna never folds, so the hand lasts at least until her knock in the third trick.
    assert knocked == 1
    assert played >= 2
    assert page.locator(".hand-result").inner_text().strip()
    expect(page.locator(".hand-result")).to_contain_text(re.compile(r"wins the hand|Nobody"))


def test_a_guest_joins_by_code_and_feels_a_knock_then_folds_with_a_swipe(phones: Phones) -> None:
    server = phones.server
    table = server.seed(
        people=["anna"],
        seats=2,
        rules={"min_players": 2, "exchange": False, "voluntary_fold": True,
               "response_order": "simultaneous", "response_seconds": 20},
    )  # fmt: skip
    anna = phones.open(session=table["people"]["anna"])
    bram = phones.open()

    # A guest with only the code: the table page, a name, one tap.
    bram.goto(f"{server.url}/t/{table['code']}/")
    phones.shot(bram, "guest-arrives")
    bram.fill("input[name=name]", "Bram")
    bram.get_by_role("button", name="Sit down").click()
    expect(bram.locator("#table-players .player.is-mine")).to_contain_text("Bram")

    anna.goto(f"{server.url}/t/{table['code']}/")
    anna.get_by_role("button", name="Start the rubber").click()
    expect(anna.locator("#table-hand .card")).to_have_count(4)
    expect(bram.locator("#table-hand .card")).to_have_count(4, timeout=5000)
    phones.shot(bram, "dealt")

    # Anna knocks with a double tap on the felt; Bram's phone shows the answer window at once.
    knocked_at = time.monotonic()
    double_tap(anna, "#table-felt")
    expect(bram.locator(".answer-window .action-stay")).to_be_visible(timeout=1000)
    assert time.monotonic() - knocked_at < 1.5
    expect(bram.locator(".answer-window .countdown")).to_be_visible()
    assert bram.evaluate("window.__vibrations").count([70, 90, 70]) == 1
    assert anna.evaluate("window.__vibrations").count([70, 90, 70]) == 0, "no cue for the knocker"
    # Anna may not knock again now, and her button says why.
    expect(anna.locator("#table-actions .action-knock")).to_be_disabled()
    expect(anna.locator("#knock-why")).to_have_text("Answers to the last knock are due first.")
    phones.shot(anna, "knocked")
    phones.shot(bram, "answer-window")

    # A short stray swipe folds nothing; the cards spring back.
    before = version(bram)
    swipe(bram, "#table-hand", 35)
    bram.wait_for_timeout(700)
    assert version(bram) == before
    expect(bram.locator("#table-hand .card")).to_have_count(4)
    expect(bram.locator("#table-hand")).not_to_have_class(re.compile("is-folding"))

    # A full swipe off the table folds: two players, so anna wins the hand.
    swipe(bram, "#table-hand", 220)
    expect(bram.locator(".hand-result")).to_contain_text("anna wins the hand")
    expect(bram.locator(".hand-result")).to_contain_text("Bram loses 1 life")
    phones.shot(bram, "folded")
    expect(anna.locator(".hand-result")).to_contain_text("anna wins the hand")


def test_a_shared_phone_covers_each_hand_until_its_player_taps(phones: Phones) -> None:
    server = phones.server
    table = server.seed(
        people=["anna"],
        seats=3,
        seat={"1": "shared:Bram"},
        bots={"2": "normal"},
        rules={"exchange": False},
        start=True,
    )
    page = phones.open(session=table["people"]["anna"])
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(str(f))))
    page.goto(f"{server.url}/t/{table['code']}/")

    shown: set[str] = set()
    deadline = time.monotonic() + 60
    while not page.locator(".hand-result").is_visible():
        assert time.monotonic() < deadline, "the hand did not end"
        before = version(page)
        privacy = page.locator(".privacy-show")
        if privacy.is_visible():
            name = re.search(r"Pass to (\w+)", privacy.inner_text())
            assert name, privacy.inner_text()
            shown.add(name.group(1))
            phones.shot(page, f"pass-to-{name.group(1)}")
            privacy.click()
            expect(privacy).to_be_hidden()
            continue
        elif page.locator(".answer-window .action-stay").is_visible():
            page.locator(".answer-window .action-stay").click()
        elif page.locator(PLAYABLE).count():
            if not tap(page.locator(PLAYABLE).first):
                continue
        else:
            page.wait_for_timeout(100)
            continue
        wait_for_change(page, before)

    phones.shot(page, "hand-over")
    assert shown == {"anna", "Bram"}, shown
    views = [f for f in frames if 'id="table-live"' in f]
    assert views
    for frame in views:
        hand = re.search(
            r'<div id="table-hand"[^>]*>(.*?)</div>\s*<p class="hand-hint"', frame, re.S
        )
        assert hand, frame[:200]
        cards = re.findall(r'data-card="', hand.group(1))
        assert len(cards) <= 4, "two hands at once"
        if 'data-privacy=""' not in frame:
            assert not cards, "cards under the privacy screen"
        seats = set(re.findall(r'<div id="table-hand"[^>]*data-seat="(\d)"', frame))
        assert len(seats) <= 1


def test_the_table_recovers_by_itself_after_the_server_restarts(phones: Phones) -> None:
    server = phones.server
    table = server.seed(
        people=["anna"], seats=4, bots={"1": "easy", "2": "easy", "3": "easy"}, start=True
    )
    page = phones.open(session=table["people"]["anna"])
    sockets: list[Any] = []
    page.on("websocket", lambda ws: sockets.append(ws))
    page.goto(f"{server.url}/t/{table['code']}/")
    expect(page.locator("#table-hand .card").first).to_be_visible()
    page.wait_for_timeout(1500)  # the laundry closes, bots may play
    phones.shot(page, "before-restart")

    server.stop()
    expect(page.locator("#table-offline")).to_be_visible(timeout=5000)
    phones.shot(page, "server-down")
    server.start()
    expect(page.locator("#table-offline")).to_be_hidden(timeout=10000)
    assert len(sockets) >= 2, "the page opened a new socket"
    phones.shot(page, "reconnected")

    # And the game goes on from that page: the next move anna makes is taken. (A computer
    # player may knock first: she stays, which is a move taken too, and waits for her card.)
    before = version(page)
    card = play_a_card(page, timeout=30)
    wait_for_change(page, before)
    expect(page.locator(f'#table-hand .card[data-card="{card}"]')).to_have_count(0)
    phones.shot(page, "played-after-restart")


def test_the_table_page_is_light_installable_and_has_an_offline_page(phones: Phones) -> None:
    server = phones.server
    table = server.seed(people=["anna"], seats=4, bots={"1": "easy", "2": "easy", "3": "easy"})
    page = phones.open(session=table["people"]["anna"])
    page.goto(f"{server.url}/t/{table['code']}/")
    page.wait_for_load_state("networkidle")
    weights = page.evaluate(
        """() => {
          const all = [performance.getEntriesByType("navigation")[0],
                       ...performance.getEntriesByType("resource")];
          const js = all.filter((e) => e.name.endsWith(".js") && !e.name.endsWith("/sw.js"));
          const sum = (list) => list.reduce((n, e) => n + e.transferSize, 0);
          return {total: sum(all), js: sum(js), scripts: js.length};
        }"""
    )
    assert weights["scripts"] >= 3, weights  # htmx, its ws extension, table.js
    assert weights["total"] < 150_000, weights
    assert weights["js"] < 30_000, weights

    assert page.evaluate("navigator.serviceWorker.ready.then((r) => r.active.scriptURL)").endswith(
        "/sw.js"
    )
    manifest = page.evaluate(
        "fetch(document.querySelector('link[rel=manifest]').href).then((r) => r.json())"
    )
    purposes = {(icon["sizes"], icon["purpose"]) for icon in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("192x192", "maskable")} <= purposes
    assert manifest["display"] == "standalone"
    cdp = page.context.new_cdp_session(page)
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    # A Playwright context is incognito, which Chromium reports on its own; the persistent
    # profile below is not, and there nothing may stand in the way.
    assert [e["errorId"] for e in errors] in ([], ["in-incognito"]), errors

    # Offline, a page the phone has no copy of is the offline page, from the worker's cache.
    page.context.set_offline(True)
    page.goto(f"{server.url}/clubs/")
    expect(page.locator("h1")).to_have_text("No connection")
    phones.shot(page, "offline")
    page.context.set_offline(False)


def test_chromium_reports_the_app_installable(
    playwright: Any, phones: Phones, tmp_path: Any
) -> None:
    from tests.browser.conftest import CHROME_ARGS, CHROMIUM, PHONE

    context = playwright.chromium.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=str(CHROMIUM), args=CHROME_ARGS, **PHONE
    )
    try:
        page = context.new_page()
        page.goto(f"{phones.server.url}/")
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        page.reload()
        page.wait_for_load_state("networkidle")
        cdp = context.new_cdp_session(page)
        errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        assert errors == [], errors
        manifest = cdp.send("Page.getAppManifest")
        assert not manifest["errors"], manifest["errors"]
    finally:
        context.close()


def test_a_tap_lost_with_the_connection_is_sent_again_and_taken_once(phones: Phones) -> None:
    """The socket drops right after a card is tapped, before the server hears it: the phone
    keeps the action until the server acknowledges it, and sends it again (same id) on the
    new socket."""
    server = phones.server
    table = server.seed(people=["anna"], seats=3, bots={"1": "easy", "2": "easy"}, start=True)
    page = phones.open(session=table["people"]["anna"])
    sent: list[dict[str, Any]] = []
    sockets = 0

    def route(ws: Any) -> None:
        nonlocal sockets
        sockets += 1
        first = sockets == 1
        upstream = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            frame = json.loads(message)
            if frame.get("act") == "play":
                sent.append(frame)
                if first:
                    ws.close(code=1001)  # lost on the way: the server never hears it
                    return
            upstream.send(message)

        ws.on_message(from_page)
        upstream.on_message(lambda message: ws.send(message))

    page.route_web_socket(re.compile(r"/ws/tables/"), route)
    page.goto(f"{server.url}/t/{table['code']}/")
    card = play_a_card(page, timeout=30)
    expect(page.locator(f'#table-hand .card[data-card="{card}"]')).to_have_count(0, timeout=10_000)
    phones.shot(page, "played-after-reconnect")
    assert sockets >= 2
    plays = [f for f in sent if f.get("card") == card]
    assert len(plays) >= 2 and len({f["id"] for f in plays}) == 1, plays


WAITING = "The server is catching up. Your taps are kept and count as soon as it is back."


def test_a_tap_while_the_database_is_away_is_kept_until_it_is_taken_and_said_so(
    phones: Phones,
) -> None:
    """The route in front of the socket plays the server while its database is away, for
    longer than a phone once kept a tap (five sends, about 9 s): every action is answered
    `retry`, as the server answers it then, every heartbeat is the server's word that it waits
    ({"wait":1}), and the socket is dropped once on the way. The phone says the server is
    catching up, never that it reconnects while its socket is open, keeps the tap through the
    reconnect, and it is taken, once, when the database is back."""
    server = phones.server
    table = server.seed(people=["anna"], seats=3, bots={"1": "easy", "2": "easy"}, start=True)
    page = phones.open(session=table["people"]["anna"])
    away = False
    plays: list[dict[str, Any]] = []
    sockets = 0

    def route(ws: Any) -> None:
        nonlocal sockets
        sockets += 1
        first = sockets == 1
        upstream = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            frame = json.loads(message)
            if not (away and frame.get("act")):
                upstream.send(message)
                return
            plays.append(frame)
            if first and len(plays) == 3:
                ws.close(code=1001)  # and the socket drops on the way
                return
            ws.send(
                '<div id="table-error" hx-swap-oob="true" data-code="retry"'
                f' data-id="{frame["id"]}">The server is catching up.</div>'
            )

        def to_page(message: str | bytes) -> None:
            ws.send('{"wait":1}' if away and message == '{"beat":1}' else message)

        ws.on_message(from_page)
        upstream.on_message(to_page)

    page.route_web_socket(re.compile(r"/ws/tables/"), route)
    page.goto(f"{server.url}/t/{table['code']}/")
    page.locator(f"{PLAYABLE} .card").first.wait_for(timeout=30_000)
    away = True
    card = play_a_card(page, timeout=30)
    waiting = page.locator("#table-waiting")
    expect(waiting).to_be_visible(timeout=5000)
    expect(waiting).to_have_text(WAITING)
    deadline = time.monotonic() + 30
    while len(plays) < 8:
        assert time.monotonic() < deadline, f"the phone stopped sending its tap: {plays}"
        page.wait_for_timeout(250)
    expect(page.locator("#table-offline")).to_be_hidden()
    expect(waiting).to_be_visible()
    phones.shot(page, "catching-up")
    assert sockets >= 2
    away = False
    expect(page.locator(f'#table-hand .card[data-card="{card}"]')).to_have_count(0, timeout=10_000)
    expect(waiting).to_be_hidden()
    assert {f["id"] for f in plays} == {plays[0]["id"]} and plays[0]["card"] == card


def test_a_phone_that_hears_nothing_from_its_server_says_so_and_reconnects(
    phones: Phones,
) -> None:
    server = phones.server
    table = server.seed(people=["anna"], seats=3, bots={"1": "easy", "2": "easy"})
    page = phones.open(session=table["people"]["anna"])
    sockets = 0

    def route(ws: Any) -> None:
        nonlocal sockets
        sockets += 1
        upstream = ws.connect_to_server()
        silent = sockets == 1
        seen = 0

        def to_page(message: str | bytes) -> None:
            nonlocal seen
            seen += 1
            if silent and seen > 1:
                return  # the server (or the way to it) froze after the first view
            ws.send(message)

        upstream.on_message(to_page)

    page.route_web_socket(re.compile(r"/ws/tables/"), route)
    page.goto(f"{server.url}/t/{table['code']}/")
    expect(page.locator("#table-live")).to_be_attached()
    # The server beats every second here: within two the phone says it hears nothing.
    expect(page.locator("#table-offline")).to_be_visible(timeout=5000)
    phones.shot(page, "hears-nothing")
    expect(page.locator("#table-offline")).to_be_hidden(timeout=15_000)
    assert sockets >= 2, "the phone did not open a new socket"


def _reversed_root(view: str) -> str:
    """`view` with its root tag's attributes in reverse order (`data-ack` and `data-version`
    before `id`): the markup means the same, in an order no writer promised."""
    root = re.match(r"<div ([^>]*)>", view)
    assert root is not None, view[:80]
    attributes = re.findall(r'[\w-]+(?:="[^"]*")?', root.group(1))
    return f"<div {' '.join(reversed(attributes))}>{view[root.end() :]}"


def test_the_phone_reads_a_views_attributes_by_name_in_any_order(phones: Phones) -> None:
    """The phone reads a view's version and the action it answers by their names, not by
    where they stand in the markup: with every view's attributes turned around, the phone
    still plays, and still keeps an older view out when it comes after a newer one."""
    server = phones.server
    table = server.seed(people=["anna"], seats=3, bots={"1": "easy", "2": "easy"}, start=True)
    page = phones.open(session=table["people"]["anna"])
    views: list[str] = []
    sockets: list[Any] = []
    held = False  # the server's frames held back: the page keeps the view it has

    def route(ws: Any) -> None:
        sockets.append(ws)
        upstream = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            if isinstance(message, str) and message.startswith('<div id="table-live"'):
                message = _reversed_root(message)
                views.append(message)
            if not held:
                ws.send(message)

        upstream.on_message(to_page)

    page.route_web_socket(re.compile(r"/ws/tables/"), route)
    page.goto(f"{server.url}/t/{table['code']}/")
    card = play_a_card(page, timeout=30)
    expect(page.locator(f'#table-hand .card[data-card="{card}"]')).to_have_count(0, timeout=10_000)
    oldest = views[0]  # the socket's first view, from before the card
    found = re.search(r'data-version="(\d+)"', oldest)
    assert found is not None
    wait_for_change(page, int(found.group(1)))
    held = True
    page.wait_for_timeout(300)  # what was on its way is in
    shown = version(page)
    sockets[-1].send(oldest)  # arriving late, after the newer views
    page.wait_for_timeout(500)
    assert version(page) == shown
    expect(page.locator(f'#table-hand .card[data-card="{card}"]')).to_have_count(0)
    phones.shot(page, "attributes-in-any-order")
