"""The live view's HTML (games.view.html): what a player typed is escaped wherever it shows, and
every button's frame reads back as the action it offers."""

from __future__ import annotations

import html
import json
import random
import re
from dataclasses import replace
from datetime import timedelta
from html import unescape

from django.utils import timezone, translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import TOKENS, HouseRules, observe, parse_record
from games.engine import table as table_rules
from games.engine.rubber import Rubber as EngineRubber
from games.models import PlayedHand, Rubber, Seat, Table
from games.services.state import TableState
from games.view import html as view_html
from games.view.context import Viewer, render_view
from games.view.parts import Shared
from tests.engine.test_properties import dealt_hands
from tests.engine.test_table_rules import walked
from tests.engine.test_worked_records import RECORDS

NASTY = "<img src=x onerror=alert(1)>\"'&"


def _state(names: list[str], actions: int = 0, rng: random.Random | None = None) -> TableState:
    """A table of people in the first hand of a rubber, built in memory, `actions` played
    (cards only; any legal action, knocks and folds too, when `rng` is given)."""
    rules = HouseRules()
    rubber = EngineRubber(rules, names, dealer=0)
    hand = rubber.deal(seed=7)
    for _ in range(actions):
        if hand.complete:
            break
        seat = hand.due()[0]
        legal = hand.legal_actions(seat)
        if rng is None:
            hand.apply(next(a for a in legal if a.act == "play"))
        else:
            hand.apply(rng.choice(legal))
    table = Table(
        code="ABC234",
        rules_json=rules.to_json(),
        seat_count=len(names),
        status=Table.Status.PLAYING,
        version=5,
        changed_at=timezone.now(),
        created_by_id=1,
    )
    seats = [
        Seat(index=i, name=name, holder_key=f"key{i}", last_seen=timezone.now())
        for i, name in enumerate(names)
    ]
    row = PlayedHand(number=1, seats=list(rubber.hand_seats), record=hand.record())
    played = Rubber(number=1, players=names, lives=list(rubber.lives), dealer=0)
    return TableState(table, seats, played, row, hand, list(rubber.hand_seats))


def test_a_name_with_markup_shows_as_text_everywhere():
    state = _state([NASTY, "Bart", "Cor", "Dieuwke"], actions=2)
    # Seat 0 watches its own cards; a shared phone of seats 0 and 1 gets the privacy screen.
    for viewer in (Viewer(seats=(1,), active=1), Viewer(seats=(0, 1), active=None)):
        view = render_view(state, viewer)
        assert "<img" not in view
        assert "onerror=alert(1)>" not in view
        assert html.escape(NASTY, quote=True) in view


def test_every_button_carries_the_frame_of_a_legal_action():
    state = _state(["Anne", "Bart", "Cor", "Dieuwke"], actions=1)
    due = state.hand.due()[0]
    view = render_view(state, Viewer(seats=(due,), active=due))
    frames = [json.loads(html.unescape(v)) for v in re.findall(r"hx-vals='([^']*)'", view)]
    frames = [f for f in frames if "act" in f]  # a break or a round are not the hand's actions
    legal = state.hand.legal_actions(due)
    plays = {f["card"] for f in frames if f["act"] == "play"}
    assert plays == {a.to_json()["card"] for a in legal if a.act == "play"}
    assert plays, "the due player has cards to play"
    assert all(f["seat"] == due for f in frames)
    assert {f["act"] for f in frames} - {"play"} == {a.act for a in legal} - {"play"}


def test_a_player_who_is_not_due_has_no_card_to_press():
    state = _state(["Anne", "Bart", "Cor", "Dieuwke"], actions=1)
    waiting = next(s for s in range(4) if s not in state.hand.due())
    view = render_view(state, Viewer(seats=(waiting,), active=waiting))
    assert "is-playable" not in view
    assert view.count("is-unplayable") == len(state.hand.hands[waiting])


def test_views_rendered_together_are_the_views_rendered_alone():
    """Phones rendered in one pass share the public part of their views (games.view.parts.Shared):
    each must still get exactly its own view, whoever is rendered first, in any language."""
    names = ["Anne", "Bart", "Cor", "Dieuwke"]
    viewers = [Viewer(seats=(seat,), active=seat) for seat in range(4)] + [
        Viewer(),
        Viewer(seats=(0, 1), active=None),
        Viewer(seats=(2, 3), active=3),
    ]
    rng = random.Random(4)
    for steps in range(0, 24, 3):
        state = _state(names, actions=steps, rng=rng)
        order = viewers[:]
        rng.shuffle(order)
        shared = Shared()
        for viewer in order:
            for language in ("en", "nl"):
                with translation.override(language):
                    alone = render_view(state, viewer)
                    together = render_view(state, viewer, shared=shared)
                assert together == alone, (steps, viewer, language)
        # Both languages' felt and places were written once and shared.
        assert set(shared.felt) == set(shared.places) == {"en", "nl"}


def test_what_a_view_keeps_from_earlier_versions_is_what_it_would_write_now():
    """The players' places are kept from one version to the next (games.view.html `_player`),
    by all they show: a view written with what earlier versions left is the view written from
    nothing, whatever changed (cards played, knocks, folds, a player away, the seat shown, a
    language)."""
    names = ["Anne", "Bart", "Cor", "Dieuwke"]
    kept_parts = (view_html._player,)
    rng = random.Random(11)
    found = dict.fromkeys(kept_parts, 0)
    for steps in range(0, 30, 2):
        state = _state(names, actions=steps, rng=rng)
        state.seats[2].away = ("", "break", "round")[steps % 3]
        state.seats[2].back_at_deal = steps % 4 == 0
        views = [
            (language, viewer)
            for language in ("en", "nl")
            for viewer in (Viewer(seats=(0,), active=0), Viewer(seats=(1, 2), active=2))
        ]
        before = {part: part.cache_info().hits for part in kept_parts}
        kept = [render_view(state, viewer, language=language) for language, viewer in views]
        for part in kept_parts:
            found[part] += part.cache_info().hits - before[part]
            part.cache_clear()
        # From nothing; these are what the next step's views find.
        fresh = [render_view(state, viewer, language=language) for language, viewer in views]
        assert kept == fresh, steps
    # The views above did reuse what earlier ones had written.
    assert all(found.values()), found


def test_a_hand_played_open_shows_in_its_players_place_on_every_phone():
    """A player whose dirty laundry was caught plays face up (rules.md, the laundry): her place
    in every phone's strip shows her cards as the engine shows them to the table, and only
    those, at each step, with the places kept from the step before."""
    data = json.loads((RECORDS / "laundry-second-exchange-life-and-open-hand.json").read_text())
    hand, actions = parse_record(data["record"])
    state = _state(data["record"]["players"])
    shown_open = False
    for action in actions:
        hand.apply(action)
        state = replace(state, hand=hand.copy())
        public = observe(state.hand, None).open_hands
        for seat in range(4):
            items = _player_items(render_view(state, Viewer(seats=(seat,), active=seat)))
            for other, item in items.items():
                cards = re.findall(r'data-card="([^"]+)"', item)
                assert cards == [TOKENS[card] for card in public.get(other, ())], (action, other)
                shown_open |= bool(cards)
    assert shown_open  # the record does end with a hand played open


def _frames_offered(view: str) -> set[str]:
    """Every action a view lets its phone send (buttons, cards, the swipe's fold), as JSON."""
    values = re.findall(r"hx-vals='([^']*)'", view) + re.findall(r"data-fold='([^']*)'", view)
    frames = [json.loads(html.unescape(v)) for v in values]
    return {
        json.dumps({k: v for k, v in f.items() if k not in ("seat", "hand")}, sort_keys=True)
        for f in frames
        if f.get("type") not in ("ready", "show", "away", "back")
    }


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(dealt_hands(), st.just(0) | st.integers(0, 30), st.booleans())
def test_the_buttons_a_phone_is_shown_are_exactly_what_the_table_takes(
    dealt: tuple, steps: int, window: bool
) -> None:
    hand, seed = dealt
    hand = walked(hand, seed, steps)
    names = [f"P{seat}" for seat in range(max(hand.n, 3))]  # seats past the hand are out
    state = _state(names)
    state.table.rules_json = hand.rules.to_json()
    state.hand, state.hand_seats = hand, list(range(hand.n))
    state.hand_row.record = hand.record()
    state.rubber.lives = list(hand.lives)
    now = timezone.now()
    state.table.laundry_until = now + timedelta(seconds=30) if window else None
    in_laundry = state.laundry_open(now)
    for seat in range(hand.n):
        view = render_view(state, Viewer(seats=(seat,), active=seat))
        allowed = table_rules.allowed(hand, seat, in_laundry)
        expected = {
            json.dumps({k: v for k, v in a.to_json().items() if k != "seat"}, sort_keys=True)
            for a in allowed
        }
        assert _frames_offered(view) == expected, seat


def _player_items(view: str) -> dict[int, str]:
    """Each seat's place in the player strip, by seat (its character references read as the
    characters they are)."""
    return {
        int(seat): unescape(item)
        for item, seat in re.findall(r'(<li class="player[^"]*" data-seat="(\d+)".*?</li>)', view)
    }


def test_a_computer_players_level_shows_beside_it_and_a_persons_shows_nothing():
    state = _state(["Anne", "Bart", "Cor", "Dieuwke"], actions=1)
    for index, level in ((1, "strong"), (2, "easy")):
        state.seats[index].bot_level = level
        state.seats[index].holder_key = ""
    with translation.override("en"):
        items = _player_items(render_view(state, Viewer(seats=(0,), active=0)))
    assert "computer · strong" in items[1]
    assert "computer · easy" in items[2]
    for person in (0, 3):
        assert "computer" not in items[person]
    with translation.override("nl"):
        items = _player_items(render_view(state, Viewer(seats=(0,), active=0)))
    assert "computer · sterk" in items[1]
    assert "computer · makkelijk" in items[2]
    with translation.override("de"):
        items = _player_items(render_view(state, Viewer(seats=(3,), active=3)))
    assert "Computer · stark" in items[1]
    assert "Computer" not in items[0]


def test_a_view_is_ascii_and_reads_as_the_signs_and_names_it_shows():
    """A view is written in ASCII (a frame's UTF-8 is then a copy of it): the suit signs, the
    en dash and a name's or a translation's other letters are character references, which a
    browser reads as the characters, in every language."""
    state = _state(["Zoë", "Bärbel", "Cor", "Dieuwke"], actions=1)
    state.seats[1].bot_level = "strong"
    state.seats[1].holder_key = ""
    for language in ("en", "nl", "de"):
        with translation.override(language):
            view = render_view(state, Viewer(seats=(0,), active=0))
        assert view.isascii(), language
        shown = unescape(view)
        assert "Zoë" in shown and "Bärbel" in shown
        assert re.search(r"[♣♦♥♠]</span>", shown), "the cards' signs"
        assert "·" in shown  # the computer player's badge, "computer · sterk" and the like


class _Shown(str):
    """A string that shows as something else (as an enum's member may)."""

    def __str__(self) -> str:
        return "<shown>"


@given(
    st.one_of(
        st.text(alphabet=st.sampled_from("&<>\"'a Zë♣\u2011\U0001f0a1;#x"), max_size=12),
        st.text(max_size=12),
        st.integers(),
        st.none(),
        st.text(max_size=6).map(_Shown),
    )
)
def test_the_views_escape_writes_what_html_escape_writes_in_ascii(value) -> None:
    """`_e` (written out for speed) escapes as the standard library does, whatever it is given,
    and references every other character."""
    expected = html.escape(str(value), quote=True)
    expected = expected.encode("ascii", "xmlcharrefreplace").decode("ascii")
    assert view_html._e(value) == expected


def test_why_a_phone_may_not_knock_and_its_away_buttons_speak_its_language():
    """The words that recur at every change (why a seat may not knock, the break and round
    buttons) are kept once made: each view still gets them in its own language, whichever
    language was rendered before."""
    state = _state(["Anne", "Bart", "Cor", "Dieuwke"])
    state.table.laundry_until = timezone.now() + timedelta(seconds=30)
    why = "You may knock once the laundry is over."
    for language in ("nl", "en", "de", "nl", "en"):
        with translation.override(language):
            view = render_view(state, Viewer(seats=(1,), active=1))
            expected = [translation.gettext(why), translation.gettext("Take a break")]
        if language != "en":
            assert expected[0] != why, f"no {language} words to tell apart"
        reason = re.search(r'<span id="knock-why" class="why">([^<]*)</span>', view)
        assert reason is not None and unescape(reason.group(1)) == expected[0], language
        assert f">{html.escape(expected[1])}</button>" in view, language
