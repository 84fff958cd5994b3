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

from tests.browser.conftest import CHROMIUM, LiveServer, Phones, swipe, tap, version
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
        server.close()


@pytest.fixture
def pub(browser: Any, pub_server: LiveServer, request: pytest.FixtureRequest) -> Iterator[Phones]:
    kit = Phones(browser, pub_server, request.node.name)
    try:
        yield kit
    finally:
        kit.close()


def box_of(page: Any, locator: Any) -> dict[str, float]:
    """Where `locator` is drawn. A view swapped in just then has no box for a moment: the new
    one is asked (a view comes at every computer player's move)."""
    box = locator.bounding_box()
    for _ in range(40):
        if box is not None:
            break
        page.wait_for_timeout(50)
        box = locator.bounding_box()
    assert box is not None, f"{locator} is not shown"
    return box


def on_screen(page: Any, selector: str) -> None:
    """`selector` (every match) lies wholly inside the screen, without scrolling."""
    locator = page.locator(selector)
    assert locator.count(), f"{selector} is not there"
    assert page.evaluate("window.scrollY") == 0, "the page was scrolled"
    for i in range(locator.count()):
        box = box_of(page, locator.nth(i))
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


def wait_for(page: Any, check: Any, what: str, timeout: float = 60) -> None:
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


def open_table(
    pub: Phones, session: str | None, code: str, live: bool = True, **options: Any
) -> Any:
    """A phone at the table, once the table's socket has sent it the first view (a tap before
    may land on a view about to be swapped out). `live=False`: a visitor with no seat yet,
    whom the socket does not serve."""
    page = pub.open(session=session, **options)
    if not live:
        page.goto(f"{pub.server.url}/t/{code}/")
        return page
    # As long as the page's load may take (conftest.py): the socket opens once the page has run.
    with page.expect_websocket(timeout=30_000) as opened:
        page.goto(f"{pub.server.url}/t/{code}/")
    opened.value.wait_for_event("framereceived", timeout=30_000)
    expect(page.locator("#table-live")).to_be_attached()
    return page


def stay_in_the_game(page: Any, until: Any, timeout: float = 180, others: tuple = ()) -> None:
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
                    if not tap(target, timeout=2000):
                        break  # gone with the next view (the table went on): look again
                    deadline_change = time.monotonic() + 5
                    while version(phone) == before and time.monotonic() < deadline_change:
                        phone.wait_for_timeout(50)
                    tapped = True
                    break
        if not tapped:
            page.wait_for_timeout(100)


# -- 1. the shared phone and the laundry ---------------------------------------------------------


def test_both_players_on_a_shared_phone_may_exchange_in_the_laundry(
    pub: Phones,
) -> None:
    table = pub.server.seed(
        people=["anna"],
        seats=3,
        seat={"1": "shared:Bram"},
        bots={"2": "easy"},
        start=True,
    )
    page = open_table(pub, table["people"]["anna"], table["code"])
    offered: dict[str, list[str]] = {}
    deadline = time.monotonic() + 60
    while len(offered) < 2:
        assert time.monotonic() < deadline, f"only {sorted(offered)} got the laundry"
        privacy = page.locator(".privacy-show").first
        if privacy.is_visible():
            privacy.click()
            expect(page.locator(".privacy-show")).to_have_count(0)
            continue
        hand = page.locator("#table-hand[data-seat]")
        if not hand.count() or not page.locator(".action-ready").is_visible():
            page.wait_for_timeout(100)
            continue
        # The shared phone says whose cards these are.
        owner = page.locator(".hand-owner").inner_text()
        name = "Bram" if "Bram" in owner else "anna"
        cards = page.locator("#table-hand .card").evaluate_all(
            "(cards) => cards.map((c) => c.dataset.card)"
        )
        offered[name] = cards
        pub.shot(page, f"laundry-{name}")
        on_screen(page, ".action-exchange")
        on_screen(page, ".action-ready")
        if name == "Bram":
            # Bram washes his cards: four new ones.
            page.locator(".action-exchange").click()
            expect(page.locator(".action-exchange")).to_have_count(0)
            new = page.locator("#table-hand .card").evaluate_all(
                "(cards) => cards.map((c) => c.dataset.card)"
            )
            assert set(new).isdisjoint(cards), (cards, new)
            pub.shot(page, "bram-washed")
        before = version(page)
        page.locator(".action-ready").click()
        wait_for(page, lambda before=before: version(page) > before, "done was not heard")
    assert set(offered) == {"anna", "Bram"}


# -- 3. a refusal goes away; 6. a refused start says why, and any seated player starts -----------


def test_a_refused_start_says_why_then_clears_and_any_seated_player_may_start(
    pub: Phones,
) -> None:
    table = pub.server.seed(people=["anna", "bram"], seats=3, seat={"1": "bram"})
    anna = open_table(pub, table["people"]["anna"], table["code"])
    bram = open_table(pub, table["people"]["bram"], table["code"])
    guest = open_table(pub, None, table["code"], live=False)
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
    expect(error).to_be_empty(timeout=30_000)
    assert time.monotonic() - shown >= 2, "gone before it could be read"


# -- 4. nothing clipped on the felt; 5. who won the rubber ---------------------------------------


def test_the_end_of_a_rubber_says_who_won_and_lost_it_and_nothing_is_cut_off(
    pub: Phones,
) -> None:
    # Siwweschrööm: the last with lives wins. One life each, and anna folds at once (unless
    # the computer player folds first).
    table = pub.server.seed(
        people=["anna"],
        seats=2,
        bots={"1": "easy"},
        rules={"end_condition": "last_standing", "min_players": 2, "starting_lives": 1,
               "voluntary_fold": True, "exchange": False},
        start=True,
    )  # fmt: skip
    page = open_table(pub, table["people"]["anna"], table["code"])
    bot = page.locator('#table-players .player[data-seat="1"] .player-name').inner_text()
    result = page.locator(".rubber-result")
    expect(page.locator("#table-hand.can-fold, .rubber-result").first).to_be_visible()
    pub.shot(page, "dealt")
    if not result.is_visible():
        nothing_clipped(page, ".hand-hint")
        swipe(page, "#table-hand", 220)
    expect(result).to_be_visible()
    lives = {
        name: int(count)
        for name, count in zip(
            page.locator("#table-players .player-name").all_inner_texts(),
            page.locator("#table-players .player").evaluate_all(
                "(players) => players.map((p) => p.dataset.lives)"
            ),
            strict=True,
        )
    }
    winner = max(lives, key=lives.get)
    loser = min(lives, key=lives.get)
    assert {winner, loser} == {"anna", bot} and lives[loser] == 0, lives
    expect(result).to_contain_text(f"{winner} wins the rubber")
    expect(result).to_contain_text(f"{loser} loses the rubber")
    pub.shot(page, "rubber-over")
    on_screen(page, ".rubber-result")
    nothing_clipped(page, "#table-status, #table-status p, .hand-hint")


def test_hand_results_and_the_dealer_are_never_cut_off_in_german(pub: Phones) -> None:
    table = pub.server.seed(
        people=["anna"],
        seats=5,
        bots={"1": "easy", "2": "easy", "3": "easy", "4": "easy"},
        rules={"voluntary_fold": True, "exchange": False, "starting_lives": 5},
        start=True,
    )
    page = open_table(pub, table["people"]["anna"], table["code"], locale="de-DE")
    expect(page.locator("#table-hand.can-fold")).to_be_visible()
    nothing_clipped(page, ".hand-hint")
    # Anna folds; the computer players play the hand out (she plays it if the swipe came
    # while a knock was awaiting answers before hers).
    swipe(page, "#table-hand", 220)
    stay_in_the_game(page, lambda: page.locator(".hand-result").is_visible())
    pub.shot(page, "hand-result-de")
    nothing_clipped(page, "#table-status, #table-status p")
    on_screen(page, ".hand-result")


def test_closing_a_table_in_play_sits_far_from_the_knock_and_asks_first(pub: Phones) -> None:
    table = pub.server.seed(people=["anna"], seats=3, bots={"1": "easy", "2": "easy"}, start=True)
    anna = open_table(pub, table["people"]["anna"], table["code"])
    knock = anna.locator("#table-actions .action-knock")
    close = anna.locator(".table-close a")
    expect(knock).to_be_visible()
    on_screen(anna, ".table-close a")
    pub.shot(anna, "close-link-in-play")
    # Not under the knock button: at the other end of the screen, and no button of play.
    knock_box, close_box = box_of(anna, knock), box_of(anna, close)
    assert close_box["y"] + close_box["height"] < knock_box["y"] - 300, (close_box, knock_box)
    close.tap()
    expect(anna.locator(".close-table .warning")).to_contain_text("Rubber 1 is under way")
    expect(anna.locator(".close-table .warning")).to_contain_text("abandons it")
    pub.shot(anna, "close-asks-in-play")
    anna.get_by_role("link", name="Back to the table").tap()
    expect(anna.locator("#table-live")).to_have_attribute("data-status", "playing")
    anna.locator(".table-close a").tap()
    anna.get_by_role("button", name="Close and abandon the rubber").tap()
    expect(anna.locator("#table-live")).to_have_attribute("data-status", "closed")


def test_the_new_table_form_shows_only_the_seats_the_table_has(pub: Phones) -> None:
    table = pub.server.seed(people=["anna"], seats=3)
    page = pub.open(session=table["people"]["anna"])
    page.goto(f"{pub.server.url}/clubs/de-gouden-klaver/tables/new/")
    seat = lambda number: page.locator(f"#id_seat_{number - 1}")  # noqa: E731
    expect(page.locator("#id_seat_count")).to_have_value("4")
    expect(seat(4)).to_be_visible()
    for number in (5, 6, 7, 8):
        expect(seat(number)).to_be_hidden()
    pub.shot(page, "new-table-four-seats")
    page.locator("#id_seat_count").select_option("6")
    expect(seat(6)).to_be_visible()
    expect(seat(7)).to_be_hidden()
    page.locator("#id_seat_count").select_option("8")
    expect(seat(8)).to_be_visible()


def test_badges_wrap_between_words_never_inside_one(pub: Phones) -> None:
    table = pub.server.seed(
        people=["anna"],
        seats=5,
        bots={"1": "strong", "2": "normal", "3": "easy", "4": "strong"},
        start=True,
    )
    page = open_table(pub, table["people"]["anna"], table["code"], locale="de-DE")
    expect(page.locator("#table-players .player .badge").first).to_be_visible()
    pub.shot(page, "badges-de")
    broken = page.locator("#table-players").evaluate(
        """(players) => {
            const broken = [];
            for (const badge of players.querySelectorAll('.badge')) {
                const walker = document.createTreeWalker(badge, NodeFilter.SHOW_TEXT);
                for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                    for (const match of node.data.matchAll(/\\S+/g)) {
                        const range = document.createRange();
                        range.setStart(node, match.index);
                        range.setEnd(node, match.index + match[0].length);
                        const rects = [...range.getClientRects()];
                        const lines = new Set(rects.map((r) => Math.round(r.top)));
                        if (lines.size > 1) broken.push(match[0]);
                    }
                }
            }
            return broken;
        }"""
    )
    assert broken == [], broken


def test_a_player_buying_the_round_is_offered_no_knock_in_her_hand(pub: Phones) -> None:
    table = pub.server.seed(
        people=["anna"],
        seats=3,
        bots={"1": "easy", "2": "easy"},
        rules={"exchange": False},
        round=True,
        start=True,
    )
    page = open_table(pub, table["people"]["anna"], table["code"])
    knock = page.locator("#table-actions .action-knock")
    expect(knock).to_be_visible()
    # rules.md 3.8: the table plays this hand for her; she makes no action of her own in it.
    expect(knock).to_be_disabled()
    expect(page.locator("#knock-why")).to_have_text(
        "Buying the round: the table plays this hand for you."
    )
    expect(page.locator("#table-hand.can-fold")).to_have_count(0)
    pub.shot(page, "buying-the-round")


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
    # The page the form leads to, loaded: a screenshot while it is on its way fails.
    expect(page.get_by_label("Table code")).to_be_visible()
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


# -- 11. out of the rubber -----------------------------------------------------------------------


def test_a_player_who_is_out_is_told_so_and_no_longer_buzzed_by_knocks(
    pub: Phones,
) -> None:
    table = pub.server.seed(
        people=["anna", "bram", "cas"],
        seats=3,
        seat={"1": "bram", "2": "cas"},
        rules={"end_condition": "last_standing", "min_players": 2, "starting_lives": 3,
               "knock_cap": "none", "exchange": False, "voluntary_fold": True,
               "response_order": "sequential"},
        start=True,
    )  # fmt: skip
    anna = open_table(pub, table["people"]["anna"], table["code"])
    bram = open_table(pub, table["people"]["bram"], table["code"])
    cas = open_table(pub, table["people"]["cas"], table["code"])
    knock = "#table-actions .action-knock:not([disabled])"
    # Anna knocks: bram stays, cas folds. Bram knocks: anna stays, then folds at stake 3.
    anna.locator(knock).click()
    bram.locator(".answer-window .action-stay").click()
    cas.locator(".answer-window .action-fold").click()
    bram.locator(knock).click()
    anna.locator(".answer-window .action-stay").click()
    anna.locator("#table-actions .action-fold").click()
    expect(anna.locator('#table-players .player[data-seat="0"]')).to_have_attribute(
        "data-lives", "0"
    )
    # Bram won the hand; the next one is bram's and cas's alone.
    expect(anna.locator('#table-live[data-hand="2"]')).to_be_attached(timeout=30_000)
    expect(anna.locator(".out-note")).to_be_visible()
    pub.shot(anna, "out")
    buzzed = anna.evaluate("window.__vibrations.length")
    expect(bram.locator(knock)).to_be_visible()
    bram.locator(knock).click()
    expect(cas.locator(".answer-window")).to_be_visible()
    expect(anna.locator(".player.is-due")).to_have_attribute("data-seat", "2")
    anna.wait_for_timeout(500)
    assert anna.evaluate("window.__vibrations.length") == buzzed, "an out player was buzzed"
    assert "is-knocked" not in (anna.locator(".table-page").get_attribute("class") or "")
    expect(anna.locator(".out-note")).to_contain_text("You are out")


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


# -- the small phone -----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [5, 8])
def test_on_a_small_phone_the_hand_and_every_control_stay_on_screen(
    pub: Phones, players: int
) -> None:
    bots = {str(i): "easy" for i in range(2, players)}
    table = pub.server.seed(
        people=["anna", "bram"],
        seats=players,
        seat={"1": "bram"},
        bots=bots,
        rules={"response_order": "simultaneous", "response_seconds": 20},
        start=True,
    )
    anna = pub.open(session=table["people"]["anna"])
    cut = lagging(anna)
    anna.goto(f"{pub.server.url}/t/{table['code']}/")
    bram = open_table(pub, table["people"]["bram"], table["code"])
    # The laundry: its buttons and the cards on screen (eight players leave no stock to wash
    # from: then only "done").
    expect(anna.locator(".action-ready")).to_be_visible()
    pub.shot(anna, "laundry")
    for selector in ("#table-hand .card", ".action-ready", "#table-players"):
        on_screen(anna, selector)
    if players < 8:
        on_screen(anna, ".action-exchange")
    # One countdown of the laundry, the sheet's: the felt's is not shown beside it.
    expect(anna.locator(".countdown:visible")).to_have_count(1)
    # Bot names are short.
    names = anna.locator("#table-players .player-name").all_inner_texts()
    assert all(len(name) <= 12 and "(" not in name for name in names), names
    anna.locator(".action-ready").click()
    bram.locator(".action-ready").click()
    # Bram knocks: anna's answer window is on screen with her cards and the knock button.
    expect(bram.locator("#table-actions .action-knock:not([disabled])")).to_be_visible()
    bram.locator("#table-actions .action-knock").click()
    expect(anna.locator(".answer-window .action-stay")).to_be_visible()
    pub.shot(anna, "knocked")
    for selector in (
        ".answer-window .action-stay",
        ".answer-window .action-fold",
        ".answer-window .countdown",
        "#table-hand .card",
        "#table-actions .action-knock",
        "#table-mute",
    ):
        on_screen(anna, selector)
    nothing_clipped(anna, "#table-status p, .hand-hint, .why")
    anna.locator(".answer-window .action-stay").click()
    # Her turn comes: the turn clock runs where she sees it.
    stay_in_the_game(anna, lambda: anna.locator(PLAYABLE).count() > 0, others=(bram,))
    expect(anna.locator(".turn-clock")).to_be_visible()
    seconds = int(anna.locator(".turn-clock .countdown").inner_text())
    assert 0 < seconds <= 60
    on_screen(anna, ".turn-clock")
    pub.shot(anna, "turn-clock")
    # The connection drops (nothing more comes through): the phone says so on screen.
    cut["all"] = True
    expect(anna.locator("#table-offline")).to_be_visible(timeout=30_000)
    on_screen(anna, "#table-offline")
    pub.shot(anna, "offline")
    cut["all"] = False
    expect(anna.locator("#table-offline")).to_be_hidden(timeout=30_000)


def test_challenge_reveals_never_push_the_trick_off_the_felt(pub: Phones) -> None:
    """Five players, two challenges shown, four cards on the trick: whoever must follow suit
    sees every card of it, her own cards and the knock button, on a 360 x 740 phone."""
    people = ["anna", "bram", "cas", "dirk", "eva"]
    table = pub.server.seed(
        people=people,
        seats=5,
        seat={str(i): name for i, name in enumerate(people) if i},
        rules={"response_order": "simultaneous"},
        challenges=[["anna", "bram"], ["cas", "dirk"]],
        play_to=4,
        start=True,
    )
    page = open_table(pub, table["people"][table["due"]], table["code"])
    expect(page.locator("#table-felt .reveal")).to_have_count(2)
    expect(page.locator("#table-trick .played")).to_have_count(4)
    expect(page.locator(PLAYABLE).first).to_be_visible()
    pub.shot(page, "reveals-and-trick")
    for selector in (
        "#table-trick .played",
        "#table-hand .card",
        "#table-actions .action-knock",
        ".reveals",
    ):
        on_screen(page, selector)
    # Inside the felt's own box too: not scrolled out of it.
    felt = page.locator("#table-felt").bounding_box()
    for box in (played.bounding_box() for played in page.locator("#table-trick .played").all()):
        assert (
            felt["y"] - 0.5 <= box["y"]
            and box["y"] + box["height"] <= felt["y"] + felt["height"] + 0.5
        ), (felt, box)
    assert page.locator("#table-felt").evaluate("(felt) => felt.scrollTop") == 0


def test_a_finished_trick_stays_on_the_felt_and_says_who_took_it(pub: Phones) -> None:
    table = pub.server.seed(
        people=["anna"],
        seats=4,
        bots={"1": "easy", "2": "easy", "3": "easy"},
        # One life each: nobody may knock above her lives, so nobody folds and every trick
        # has all four cards (a trick of two may be taken sooner than two seconds).
        rules={"exchange": False, "starting_lives": 1},
        start=True,
    )
    page = open_table(pub, table["people"]["anna"], table["code"])
    # Every moment the felt says who took which trick, written down by the page itself; and
    # each view whose trick has cards on it, against what the felt shows once it is in.
    page.evaluate(
        """() => {
          window.__taken = [];
          window.__unseen = [];
          window.__held = 0;
          const look = () => {
            const taker = document.querySelector("#table-felt .trick-taker");
            const text = taker ? taker.textContent : "";
            const key = taker ? taker.closest(".trick").dataset.trick : "";
            const last = window.__taken[window.__taken.length - 1];
            if (!last || last.key !== key) window.__taken.push({key, text, at: performance.now()});
          };
          new MutationObserver(look).observe(document.body, {subtree: true, childList: true,
                                                             characterData: true});
          document.body.addEventListener("htmx:wsAfterMessage", (e) => {
            const sent = /id="table-trick"[^>]*data-count="(\\d+)"/.exec(e.detail.message);
            if (!sent || +sent[1] === 0 || e.detail.message.includes("trick-taker")) return;
            const shown = document.getElementById("table-trick");
            const cards = shown.querySelectorAll(".played").length;
            if (shown.classList.contains("is-held") || cards !== +sent[1]) {
              window.__unseen.push({sent: +sent[1], cards});
            }
            if (document.getElementById("table-trick-held")) window.__held += 1;
          });
        }"""
    )
    held = page.locator("#table-trick-held")
    stay_in_the_game(
        page,
        lambda: (
            (held.count() and page.locator("#table-trick .played").count())
            or page.locator(".hand-result").is_visible()
        ),
    )
    pub.shot(page, "a-trick-beside-the-last")
    stay_in_the_game(page, lambda: page.locator(".hand-result").is_visible())
    pub.shot(page, "hand-over")
    # The first card of a trick shows at once, on every phone, the finished trick beside it.
    assert page.evaluate("window.__unseen") == []
    assert page.evaluate("window.__held") > 0
    taken = page.evaluate("window.__taken")
    shown = [
        (taken[i]["text"], taken[i + 1]["at"] - taken[i]["at"])
        for i in range(len(taken) - 1)
        if taken[i]["key"]
    ]
    assert len(shown) >= 2, taken  # four tricks: the last stays with the end of the hand
    for text, ms in shown:
        assert re.search(r"\S+ takes the trick", text), text
        assert ms >= 1700, f"{text!r} shown for {ms:.0f} ms"


def test_the_mute_button_says_what_it_does_and_the_code_can_be_copied(
    pub: Phones,
) -> None:
    table = pub.server.seed(people=["anna"], seats=3, bots={"2": "easy"})
    page = pub.open(
        session=table["people"]["anna"],
        permissions=["clipboard-read", "clipboard-write"],
    )
    page.goto(f"{pub.server.url}/t/{table['code']}/")
    mute = page.locator("#table-mute")
    expect(mute).to_have_text("Sound on")
    mute.click()
    expect(mute).to_have_text("Sound off")
    page.reload()
    expect(page.locator("#table-mute")).to_have_text("Sound off")
    page.locator("#table-mute").click()
    expect(page.locator("#table-mute")).to_have_text("Sound on")
    page.get_by_role("button", name="Copy the link").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == f"{pub.server.url}/t/{table['code']}/"
    expect(page.locator(".copy-done")).to_have_text("Copied")
    pub.shot(page, "copied")


# -- away from the table (rules.md 3.8), seats and tables ----------------------------------------


def test_a_break_is_a_second_tap_at_the_top_and_back_is_one_and_every_phone_says_who_is_away(
    pub: Phones,
) -> None:
    table = pub.server.seed(
        people=["anna", "wim"], seats=3, seat={"1": "wim"}, bots={"2": "easy"}, start=True
    )
    anna = open_table(pub, table["people"]["anna"], table["code"])
    wim = open_table(pub, table["people"]["wim"], table["code"])
    # A hand is under way: a break may be taken, a round is bought only between hands. Not a
    # button beside the knock: a menu at the top of the screen, opened first.
    knock = anna.locator("#table-actions .action-knock")
    expect(knock).to_be_visible()
    expect(anna.locator("#table-actions .action-away")).to_have_count(0)
    expect(anna.get_by_role("button", name="Take a break")).to_be_hidden()
    menu = anna.locator(".away-menu summary")
    on_screen(anna, ".away-menu summary")
    assert box_of(anna, menu)["y"] < box_of(anna, knock)["y"] - 300
    menu.tap()
    expect(anna.get_by_role("button", name="Buy a round")).to_have_count(0)
    pub.shot(anna, "away-menu")
    anna.get_by_role("button", name="Take a break").tap()
    for phone in (anna, wim):
        badge = phone.locator('#table-players .player[data-seat="0"] .badge-away')
        expect(badge).to_have_text("on a break")
    pub.shot(wim, "anna-on-a-break")
    back = anna.get_by_role("button", name="I'm back")
    expect(back).to_be_visible()
    on_screen(anna, "#table-actions .action-back")
    back.tap()
    expect(wim.locator('#table-players .player[data-seat="0"] .badge-away')).to_have_count(0)
    expect(anna.locator(".away-menu summary")).to_be_visible()
    expect(anna.get_by_role("button", name="Take a break")).to_be_hidden()
    pub.shot(anna, "anna-back")
    # The languages are at the top during a rubber too (the page's footer is not shown).
    expect(wim.locator(".site-footer")).to_be_hidden()
    wim.locator(".table-language summary").tap()
    on_screen(wim, ".table-language button[lang=nl]")
    pub.shot(wim, "languages")
    wim.locator(".table-language button[lang=nl]").tap()
    expect(wim.locator("html")).to_have_attribute("lang", "nl")
    expect(wim.locator("#table-live")).to_have_attribute("data-status", "playing")


def test_a_player_leaves_her_seat_and_the_creator_closes_the_table(pub: Phones) -> None:
    table = pub.server.seed(people=["anna", "bram"], seats=3, seat={"1": "bram"})
    anna = open_table(pub, table["people"]["anna"], table["code"])
    bram = open_table(pub, table["people"]["bram"], table["code"])
    on_screen(bram, ".action-leave")
    bram.get_by_role("button", name="Leave my seat").tap()
    seat = anna.locator('#table-players .player[data-seat="1"] .player-name')
    expect(seat).to_have_text("free seat")
    # Bram is a member and may watch: his phone goes on showing the table, with no seat.
    expect(bram.locator('#table-players .player[data-seat="1"] .player-name')).to_have_text(
        "free seat"
    )
    expect(bram.get_by_role("button", name="Leave my seat")).to_have_count(0)
    pub.shot(bram, "bram-left")
    # Only the creator (or an admin) is offered to close it, and every phone hears it closed.
    # Closing is a link at the top, away from the buttons of play, to a page that asks first.
    expect(anna.locator("#table-actions .table-close")).to_have_count(0)
    on_screen(anna, ".table-close a")
    anna.get_by_role("link", name="Close the table…").tap()
    expect(anna.locator("#close-title")).to_be_visible()
    pub.shot(anna, "close-asks")
    anna.get_by_role("button", name="Close the table").tap()
    for phone in (anna, bram):
        expect(phone.locator("#table-live")).to_have_attribute("data-status", "closed")
        expect(phone.locator("#table-status")).to_have_text("This table is closed.")
    expect(anna.get_by_role("button", name="Start the rubber")).to_have_count(0)
    pub.shot(anna, "closed")


# -- 7. a table nobody is at pauses --------------------------------------------------------------


@pytest.fixture(scope="module")
def quick_grace_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A phone's grace of 2 seconds (its heartbeat comes every second)."""
    require_service("chromium", CHROMIUM.exists())
    server = LiveServer(tmp_path_factory.mktemp("grace"), TOEPEN_GRACE_SECONDS="2")
    server.start()
    try:
        yield server
    finally:
        server.close()


def test_a_table_nobody_is_at_waits_and_goes_on_when_she_is_back(
    browser: Any, quick_grace_server: LiveServer, request: pytest.FixtureRequest
) -> None:
    pub = Phones(browser, quick_grace_server, request.node.name)
    try:
        table = pub.server.seed(
            people=["anna", "bram"], seats=3, bots={"1": "easy", "2": "easy"}, start=True
        )
        anna = open_table(pub, table["people"]["anna"], table["code"])
        watcher = open_table(pub, table["people"]["bram"], table["code"])
        live = watcher.locator("#table-live")
        expect(live).to_have_attribute("data-paused", "0")
        # Anna's phone is gone (closed, out of reach): the table waits instead of playing on.
        anna.context.close()
        expect(live).to_have_attribute("data-paused", "1", timeout=30_000)
        expect(watcher.locator("#table-status .paused")).to_have_text(
            "Nobody is at the table: it waits until a player is back."
        )
        on_screen(watcher, "#table-status .paused")
        paused_at = version(watcher)
        watcher.wait_for_timeout(3000)
        assert version(watcher) == paused_at, "a paused table played on"
        pub.shot(watcher, "paused")
        # She is back: the table goes on at once.
        anna = open_table(pub, table["people"]["anna"], table["code"])
        expect(live).to_have_attribute("data-paused", "0")
        expect(anna.locator("#table-live")).to_have_attribute("data-paused", "0")
        pub.shot(anna, "back-and-going")
    finally:
        pub.close()
