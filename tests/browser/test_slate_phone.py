"""A slate table on a phone (360 by 740): real cards at the pub, the app keeps the slate.

The seeded members are named apart from the other browser tests' (one database for all of them:
test_table_phone signs "anna" up).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import Phones

pytestmark = pytest.mark.browser

expect: Any = None


@pytest.fixture(autouse=True)
def _expect() -> None:
    global expect
    from playwright.sync_api import expect as playwright_expect

    expect = playwright_expect


def row(page: Any, name: str) -> Any:
    return page.locator(".slate-player").filter(has=page.locator(".slate-name", has_text=name))


def tap(page: Any, name: str, act: str) -> None:
    """Tap one of the player's buttons and wait until the server has counted it."""
    before = slate_version(page)
    row(page, name).locator(f".act-{act}").click()
    expect(page.locator("#slate-live")).not_to_have_attribute("data-version", str(before))
    expect(page.locator("#slate-pending li")).to_have_count(0)


def next_hand(page: Any) -> None:
    """The hand's end has been read: a keeper opens the next hand."""
    before = slate_version(page)
    page.locator(".slate-result .slate-deal").click()
    expect(page.locator("#slate-live")).not_to_have_attribute("data-version", str(before))
    expect(page.locator("#slate-pending li")).to_have_count(0)
    expect(page.locator(".slate-result")).to_have_count(0)


def slate_version(page: Any) -> int:
    return int(page.locator("#slate-live").get_attribute("data-version") or -1)


def open_slate(page: Any, url: str) -> None:
    """`url`'s slate, once its socket has sent the first view: that view replaces the page's
    slate whole, and a name found before it may be gone by the time it is tapped (as
    test_pub_night's `open_table` waits for a table's first view)."""
    with page.expect_websocket() as opened:
        page.goto(url)
    opened.value.wait_for_event("framereceived")
    expect(page.locator("#slate-live")).to_be_attached()


def lives(page: Any, name: str) -> int:
    return int(row(page, name).locator(".tally").get_attribute("data-lives") or -1)


def answer_all(page: Any) -> None:
    """Every answer the slate awaits (poverty's or a knock's), one tap each: stays."""
    while page.locator(".slate-player.is-due .act-stay").count():
        due = page.locator(".slate-player.is-due").first
        name = due.locator(".slate-name").inner_text()
        tap(page, name, "stay")


def test_a_whole_kroeg_rubber_on_one_phone_with_four_players(phones: Phones) -> None:
    server = phones.server
    kroeg = {"starting_lives": 4, "poverty": "stake_two_poor_leads",
             "response_order": "simultaneous", "challenge_scoring": "each_challenger"}  # fmt: skip
    table = server.seed(
        people=["sanne", "bas"], guests=["Cas", "Dirk"], rules=kroeg, slate="creator"
    )
    page = phones.open(session=table["people"]["sanne"])
    page.goto(f"{server.url}/s/{table['code']}/")
    expect(page.locator(".slate-player")).to_have_count(4)
    phones.shot(page, "slate")
    # Bram exchanges, Cas challenges and the cards were not clean: Bram loses a life.
    tap(page, "bas", "exchange")
    page.locator(".act-challenge", has_text="Cas challenges bas: not clean").click()
    expect(page.locator(".slate-said")).to_contain_text("Cas challenges bas: not clean")
    assert lives(page, "bas") == 3
    # Anna knocks with a double tap on her name; the others answer in any order.
    row(page, "sanne").locator(".slate-name").dblclick()
    expect(page.locator(".slate-said")).to_contain_text("sanne knocks")
    expect(page.locator(".stake")).to_have_text("Stake 2")
    tap(page, "Dirk", "fold")
    tap(page, "bas", "stay")
    tap(page, "Cas", "stay")
    phones.shot(page, "answered")
    tap(page, "sanne", "last_trick")
    # The hand's end stays on the slate, saying what it cost whom, with its undo, until the
    # keeper opens the next hand: bas and Cas paid the stake (bas his challenge too), Dirk the
    # stake he folded at.
    result = page.locator(".slate-result")
    expect(result).to_contain_text("sanne wins the hand.")
    for said in ("bas loses 3 lives.", "Cas loses 2 lives.", "Dirk loses 1 life."):
        expect(result).to_contain_text(said)
    expect(result.locator(".slate-undo")).to_be_visible()
    expect(page.locator("#slate-live")).to_have_attribute("data-hand", "1/1")
    assert [lives(page, n) for n in ("sanne", "bas", "Cas", "Dirk")] == [4, 1, 2, 3]
    phones.shot(page, "hand-result")
    next_hand(page)
    expect(page.locator("#slate-live")).to_have_attribute("data-hand", "1/2")
    # Hands until the rubber ends (first out): sanne takes every last trick.
    for _ in range(10):
        if page.locator(".slate-over").count():
            break
        answer_all(page)
        tap(page, "sanne", "last_trick")
        if page.locator(".slate-deal").count():
            next_hand(page)
    expect(page.locator(".slate-over")).to_contain_text("The rubber is over.")
    expect(page.locator(".slate-over")).to_contain_text("bas")
    phones.shot(page, "rubber-over")


def test_undo_steps_back_through_a_hand_and_into_the_last_finished_one(phones: Phones) -> None:
    server = phones.server
    table = server.seed(
        people=["sanne", "bas", "cor"], rules={"starting_lives": 5}, slate="creator"
    )
    page = phones.open(session=table["people"]["sanne"])
    page.goto(f"{server.url}/s/{table['code']}/")
    tap(page, "bas", "knock")
    tap(page, "sanne", "stay")
    tap(page, "cor", "fold")
    tap(page, "bas", "last_trick")
    expect(page.locator(".slate-result")).to_contain_text("sanne loses 2 lives.")
    assert [lives(page, n) for n in ("sanne", "bas", "cor")] == [3, 5, 4]
    next_hand(page)
    expect(page.locator("#slate-live")).to_have_attribute("data-hand", "1/2")
    before = slate_version(page)
    page.locator(".slate-undo").click()
    expect(page.locator("#slate-live")).to_have_attribute("data-hand", "1/1")
    assert slate_version(page) > before
    expect(page.locator(".slate-result")).to_have_count(0)
    # The hand is open again as it was before its last trick: cas's fold has cost her a life.
    assert [lives(page, n) for n in ("sanne", "bas", "cor")] == [5, 5, 4]
    expect(page.locator(".slate-said li")).to_have_count(3)
    for left in (2, 1, 0):
        page.locator(".slate-undo").click()
        expect(page.locator(".slate-said li")).to_have_count(left)
    assert [lives(page, n) for n in ("sanne", "bas", "cor")] == [5, 5, 5]
    phones.shot(page, "undone")
    # The same hand again gives the same slate.
    tap(page, "bas", "knock")
    tap(page, "sanne", "stay")
    tap(page, "cor", "fold")
    tap(page, "bas", "last_trick")
    assert [lives(page, n) for n in ("sanne", "bas", "cor")] == [3, 5, 4]


def test_a_hand_entered_offline_is_counted_when_the_phone_is_back(phones: Phones) -> None:
    """The pub's wifi drops: the phone keeps taking entries, shows them as entered and not yet
    counted, and sends them in order once back; one the rules refuse then says why."""
    from games.engine import Action, HouseRules
    from games.engine.hand import Hand

    server = phones.server
    rules = {"starting_lives": 5, "voluntary_fold": True}
    table = server.seed(people=["sanne", "bas", "cor"], rules=rules, slate="creator")
    page = phones.open(session=table["people"]["sanne"])
    wifi = {"up": True}
    routes: list[Any] = []

    def route(ws: Any) -> None:
        if not wifi["up"]:
            ws.close(code=1011)
            return
        routes.append(ws)
        upstream = ws.connect_to_server()
        ws.on_message(lambda message: upstream.send(message) if wifi["up"] else None)
        upstream.on_message(lambda message: ws.send(message) if wifi["up"] else None)

    page.route_web_socket(re.compile(r"/ws/slates/"), route)
    page.goto(f"{server.url}/s/{table['code']}/")
    expect(page.locator("#slate-live")).to_have_attribute("data-status", "playing")
    dealer = page.locator(".slate-player").filter(has=page.locator(".badge", has_text="deals"))
    assert dealer.count() == 1
    wifi["up"] = False
    routes[-1].close(code=1011)
    expect(page.locator("#slate-offline")).to_be_visible()
    # A whole hand, offline: cor folds of her own accord, then bas takes the last trick; and
    # a knock by sanne, which the rules will refuse once the hand is over.
    row(page, "cor").locator(".act-fold").click()
    row(page, "bas").locator(".act-last_trick").click()
    row(page, "sanne").locator(".act-knock").click()
    expect(page.locator("#slate-pending li")).to_have_count(3)
    expect(page.locator("#slate-pending li").first).to_contain_text("entered, not yet counted")
    assert lives(page, "cor") == 5  # nothing is worked out in the phone
    phones.shot(page, "offline")
    # The phone keeps them through a reload too (localStorage).
    page.reload()
    expect(page.locator("#slate-pending li")).to_have_count(3)
    wifi["up"] = True
    expect(page.locator("#slate-pending li")).to_have_count(0, timeout=15_000)
    expect(page.locator("#slate-offline")).to_be_hidden()
    # The hand is over (its end on the slate): the knock after it is refused.
    expect(page.locator("#slate-live")).to_have_attribute("data-hand", "1/1")
    expect(page.locator(".slate-result")).to_be_visible()
    expect(page.locator("#slate-refused li")).to_have_count(1)
    expect(page.locator("#slate-refused li")).to_contain_text("sanne: ")
    phones.shot(page, "back")
    # The lives are the engine's for those entries, in that order.
    hand = Hand.slate_hand(HouseRules(**rules), [5, 5, 5], 0, players=["sanne", "bas", "cor"])
    hand.apply(Action(2, "fold"))
    hand.apply(Action(1, "last_trick"))
    assert [lives(page, n) for n in ("sanne", "bas", "cor")] == hand.lives


# -- away, a Siwweschrööm rubber, two phones ---------------------------------------------------


def tap_name_twice(page: Any, name: str) -> None:
    """A double tap with a finger on the player's name (a knock for her), until it is counted.

    A phone busy with other work can handle the two taps further apart than a double tap's
    window; they are then two single taps, which enter nothing, and the keeper taps again, as
    at the table. A double tap that was entered is never tapped again."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    before = slate_version(page)
    entered = (
        "before => document.querySelector('#slate-live').dataset.version !== String(before)"
        " || document.querySelectorAll('#slate-pending li').length > 0"
    )
    for _ in range(3):
        target = row(page, name).locator(".slate-name")
        target.scroll_into_view_if_needed()
        box = target.bounding_box()
        assert box is not None, name
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.touchscreen.tap(x, y)
        page.wait_for_timeout(80)
        page.touchscreen.tap(x, y)
        try:
            page.wait_for_function(entered, arg=before, timeout=5_000)
            break
        except PlaywrightTimeout:
            continue
    expect(page.locator("#slate-live")).not_to_have_attribute("data-version", str(before))
    expect(page.locator("#slate-pending li")).to_have_count(0)


def test_a_double_tap_on_a_name_counts_when_a_view_arrives_between_the_taps(
    phones: Phones,
) -> None:
    """The view is swapped whole whenever a new one arrives (the socket's first, another phone's
    entry): a name tapped, its view replaced, and the same name tapped again is still a knock."""
    server = phones.server
    table = server.seed(people=["wies", "joep", "fem"], builtin="siwweschroom", slate="creator")
    page = phones.open(session=table["people"]["wies"])
    open_slate(page, f"{server.url}/s/{table['code']}/")
    expect(page.locator(".slate-player")).to_have_count(3)
    before = slate_version(page)
    knocker = page.locator(".slate-name[data-knock]").first
    expect(knocker).to_have_count(1)
    knocker.scroll_into_view_if_needed()
    box = knocker.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.touchscreen.tap(x, y)
    # What htmx does with a view from the socket: the slate's elements replaced by new ones.
    page.evaluate(
        "() => { const live = document.getElementById('slate-live');"
        " live.replaceWith(live.cloneNode(true)); }"
    )
    page.touchscreen.tap(x, y)
    expect(page.locator("#slate-live")).not_to_have_attribute("data-version", str(before))
    expect(page.locator("#slate-pending li")).to_have_count(0)


def names_in_hand(page: Any) -> list[str]:
    rows = page.locator(".slate-player:not(.is-out) .slate-name")
    return [rows.nth(i).inner_text() for i in range(rows.count())]


def dealer_of(page: Any) -> str:
    deals = page.locator(".slate-player").filter(has=page.locator(".badge", has_text="deals"))
    return str(deals.locator(".slate-name").inner_text())


def strokes(page: Any, name: str) -> int:
    return int(row(page, name).locator(".tally .stroke").count())


def test_a_siwweschroom_rubber_to_the_last_one_standing_on_one_phone(phones: Phones) -> None:
    """Seven strokes each, and whoever runs out leaves the rubber, which goes on until one
    player has lives left. Every hand is tapped as at the table: a knock by a double tap on a
    name, the answers, the last trick; the slate after each is the engine's, and at the end
    the server's."""
    from games.engine import Action
    from games.engine.rubber import Rubber
    from games.engine.rules import SIWWESCHROOM

    server = phones.server
    table = server.seed(people=["sanne", "bas", "cor"], builtin="siwweschroom", slate="creator")
    page = phones.open(session=table["people"]["sanne"])
    open_slate(page, f"{server.url}/s/{table['code']}/")
    names = ["sanne", "bas", "cor"]
    expect(page.locator(".slate-player")).to_have_count(3)
    assert [strokes(page, n) for n in names] == [7, 7, 7]
    # The same rubber in the engine, entry by entry: what the slate must show.
    rubber = Rubber(SIWWESCHROOM, names, dealer=names.index(dealer_of(page)), slate=True)
    phones.shot(page, "siwweschroom")
    played_on = False
    for number in range(1, 40):
        if page.locator(".slate-over").count():
            break
        hand = rubber.deal()
        seat = {name: rubber.to_hand_seat(names.index(name)) for name in names_in_hand(page)}
        playing = names_in_hand(page)
        assert [names[s] for s in rubber.hand_seats] == playing
        # The knock comes from the first player after the dealer who may make it.
        start = playing.index(dealer_of(page)) + 1
        order = playing[start:] + playing[:start]
        knocker = next(
            (n for n in order if row(page, n).locator(".slate-name[data-knock]").count()), None
        )
        winner = order[0]
        if knocker is not None:
            tap_name_twice(page, knocker)
            hand.apply(Action(seat[knocker], "knock"))
            # The others answer in any order: on odd hands the last of them folds.
            answering = [n for n in reversed(order) if n != knocker]
            for index, name in enumerate(answering):
                act = "fold" if number % 2 and index == 0 else "stay"
                tap(page, name, act)
                hand.apply(Action(seat[name], act))
            winner = knocker if number % 3 else answering[-1]
        if not hand.complete:
            tap(page, winner, "last_trick")
            hand.apply(Action(seat[winner], "last_trick"))
        rubber.finish_hand()
        assert [lives(page, n) for n in names] == rubber.lives, number
        if not rubber.over:
            next_hand(page)
        assert [lives(page, n) for n in names] == rubber.lives, number
        assert [strokes(page, n) for n in names] == rubber.lives, number
        if rubber.lives.count(0) == 1 and not rubber.over:
            # One is out and the rubber goes on: her row says so, and she is dealt no more.
            out = names[rubber.lives.index(0)]
            expect(row(page, out)).to_have_class(re.compile("is-out"))
            played_on = True
    expect(page.locator(".slate-over")).to_contain_text("The rubber is over.")
    figures = server.seed(report=table["code"])
    assert figures["names"] == names and figures["over"]
    assert figures["lives"] == rubber.lives == [lives(page, n) for n in names]
    assert [n for n, left in zip(names, figures["lives"], strict=True) if left] == [
        names[figures["winner"]]
    ]
    expect(page.locator(".slate-over")).to_contain_text(f"{names[figures['winner']]} wins.")
    assert figures["hands"] == len(rubber.outcomes)
    assert played_on  # the rubber went on after the first went out
    phones.shot(page, "last-one-standing")


def two_keepers(phones: Phones) -> tuple[Any, Any]:
    """Sanne's and bas's phones at a Siwweschrööm slate that members keep, both showing it."""
    server = phones.server
    table = server.seed(people=["sanne", "bas", "cor"], builtin="siwweschroom", slate="members")
    pages = (
        phones.open(session=table["people"]["sanne"]),
        phones.open(session=table["people"]["bas"]),
    )
    for page in pages:
        open_slate(page, f"{server.url}/s/{table['code']}/")
        expect(page.locator(".slate-player .act-knock")).to_have_count(3)
    return pages


def test_two_phones_keep_one_slate_together(phones: Phones) -> None:
    """Two keepers at one table (the table lets members keep it): what one phone enters, the
    other shows at once, and they take turns at it."""
    sanne, bas = two_keepers(phones)
    # Two hands, the phones taking turns entry by entry; a knock is a double tap on a name.
    hands = [
        [
            ("bas", "knock", "bas knocks"),
            ("cor", "fold", "cor folds"),
            ("sanne", "stay", "sanne stays"),
            ("bas", "last_trick", ""),
        ],
        [
            ("cor", "knock", "cor knocks"),
            ("bas", "stay", "bas stays"),
            ("sanne", "stay", "sanne stays"),
            ("cor", "last_trick", ""),
        ],
    ]
    turn = [sanne, bas]
    for number, entries in enumerate(hands, start=2):
        for name, act, line in entries:
            on, other = turn
            if act == "knock":
                tap_name_twice(on, name)
            else:
                tap(on, name, act)
            version = str(slate_version(on))
            # On the other phone at once: the same version of the slate, the same line.
            expect(other.locator("#slate-live")).to_have_attribute(
                "data-version", version, timeout=2_000
            )
            if line:
                expect(other.locator(".slate-said")).to_contain_text(line)
            turn.reverse()
        next_hand(turn[0])
        expect(turn[1].locator("#slate-live")).to_have_attribute("data-hand", f"1/{number}")
        phones.shot(turn[0], f"after-hand-{number - 1}")
    # An undo on one phone is undone on the other too.
    bas.locator(".slate-undo").click()
    expect(sanne.locator("#slate-live")).to_have_attribute("data-hand", "1/2")
    tap(sanne, "cor", "last_trick")
    next_hand(sanne)
    expect(bas.locator("#slate-live")).to_have_attribute("data-hand", "1/3")
    # The same slate on both: every stroke, badge, button and line.
    version = str(slate_version(sanne))
    expect(bas.locator("#slate-live")).to_have_attribute("data-version", version)
    # Hand 1 cost sanne the stake of 2 and cor 1 for her fold; hand 2 sanne and bas 2 each.
    assert [lives(sanne, n) for n in ("sanne", "bas", "cor")] == [3, 5, 6]
    assert [lives(bas, n) for n in ("sanne", "bas", "cor")] == [3, 5, 6]
    whole = "e => e.outerHTML"
    assert sanne.locator("#slate-live").evaluate(whole) == bas.locator("#slate-live").evaluate(
        whole
    )
    phones.shot(sanne, "sanne-final")
    phones.shot(bas, "bas-final")


def test_an_entry_refused_once_back_online_is_shown_with_the_other_phones_entry(
    phones: Phones,
) -> None:
    """Sanne's phone loses the network and she enters bas's knock; meanwhile bas's phone, online,
    enters cor's knock. Back online, bas's knock is refused (answers to cor's knock come
    first), and sanne's phone shows it with its reason and with cor's knock beside it."""
    sanne, bas = two_keepers(phones)
    sanne.context.set_offline(True)
    expect(sanne.locator("#slate-offline")).to_be_visible()
    row(sanne, "bas").locator(".act-knock").click()
    expect(sanne.locator("#slate-pending li")).to_have_count(1)
    tap(bas, "cor", "knock")
    phones.shot(sanne, "offline-with-an-entry")
    sanne.context.set_offline(False)
    expect(sanne.locator("#slate-pending li")).to_have_count(0, timeout=15_000)
    expect(sanne.locator("#slate-offline")).to_be_hidden()
    refused = sanne.locator("#slate-refused > li")
    expect(refused).to_have_count(1)
    expect(refused.locator(".refused-entry")).to_have_text("bas: Knock")
    expect(refused.locator(".refused-why")).to_have_text(
        "Refused: bas: Wait: answers to the knock come first."
    )
    expect(refused.locator(".refused-other")).to_have_text(["Entered on another phone: cor knocks"])
    # Both phones show the slate as the server counted it: cor's knock, not bas's.
    for page in (sanne, bas):
        expect(page.locator(".slate-said")).to_have_text("cor knocks")
    phones.shot(sanne, "refused-beside-the-other-phones-entry")
    # Nothing is lost silently: the refusal stays, through a reload, until she has read it.
    sanne.reload()
    expect(refused.locator(".refused-other")).to_have_text(["Entered on another phone: cor knocks"])
    refused.locator(".slate-dismiss").click()
    expect(refused).to_have_count(0)


def test_away_from_the_slate_table(phones: Phones) -> None:
    """A keeper puts cor on a break: on bas's knock the table folds for her by itself, and she
    is back with one tap. Before the next hand's first entry sanne goes to buy a round: she
    is immune in that hand."""
    server = phones.server
    table = server.seed(people=["sanne", "bas", "cor"], builtin="siwweschroom", slate="creator")
    page = phones.open(session=table["people"]["sanne"])
    open_slate(page, f"{server.url}/s/{table['code']}/")
    away = row(page, "cor").locator(".slate-away")
    away.locator("summary").click()
    before = slate_version(page)
    away.locator(".away-break").click()
    expect(page.locator("#slate-live")).not_to_have_attribute("data-version", str(before))
    expect(row(page, "cor").locator(".badge-away")).to_have_text("on a break")
    # Nobody may buy a round once a hand has something on it; a break, any time.
    tap_name_twice(page, "bas")
    expect(row(page, "sanne").locator(".away-round")).to_have_count(0)
    expect(row(page, "sanne").locator(".away-break")).to_have_count(1)
    tap(page, "sanne", "stay")
    expect(page.locator(".slate-said")).to_contain_text("cor folds (by the table)")
    phones.shot(page, "the-table-folds-for-cor")
    before = slate_version(page)
    row(page, "cor").locator(".away-back").click()
    expect(page.locator("#slate-live")).not_to_have_attribute("data-version", str(before))
    expect(row(page, "cor").locator(".badge-away")).to_have_count(0)
    tap(page, "bas", "last_trick")
    next_hand(page)
    expect(page.locator("#slate-live")).to_have_attribute("data-hand", "1/2")
    # Hand 2 has nothing on it yet: the real cards are still to come. Sanne buys a round.
    row(page, "sanne").locator(".slate-away summary").click()
    before = slate_version(page)
    row(page, "sanne").locator(".away-round").click()
    expect(page.locator("#slate-live")).not_to_have_attribute("data-version", str(before))
    expect(row(page, "sanne").locator(".badge-away")).to_have_text("buying a round")
    expect(row(page, "sanne").locator(".badge", has_text="immune")).to_have_count(1)
    phones.shot(page, "sanne-buys-a-round")
    tap_name_twice(page, "cor")
    tap(page, "bas", "stay")
    expect(page.locator(".slate-said")).to_contain_text("sanne folds (by the table)")
    lives_before = lives(page, "sanne")
    tap(page, "cor", "last_trick")
    next_hand(page)
    expect(page.locator("#slate-live")).to_have_attribute("data-hand", "1/3")
    assert lives(page, "sanne") == lives_before  # immune: she paid nothing for her fold
