"""Whole random rubbers, rendered at every step for every kind of phone: the views rendered
together in one pass (sharing the public part, games.view.parts.Shared) are the views rendered
alone, in ASCII, and no view, nor the shared public part, holds a card its phone may not
see."""

from __future__ import annotations

import random
import re
from datetime import timedelta

from django.utils import timezone, translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import TOKENS, Hand, HouseRules
from games.engine.rubber import Rubber as EngineRubber
from games.models import PlayedHand, Rubber, Seat, Table
from games.services.state import PLAYING, RUBBER_OVER, TableState
from games.view.context import Viewer, build_view, render_view
from games.view.parts import PublicView, Shared
from tests.engine.test_properties import house_rules
from tests.visibility import visible_to

CARD = re.compile(r'data-card="([^"]+)"')
INDEX = {token: card for card, token in enumerate(TOKENS)}


def _states(rules: HouseRules, n: int, seed: int) -> list[TableState]:
    """Every step of a rubber of `n` people playing random legal actions (knocks, answers,
    the laundry's exchanges and challenges, cards), each hand also once finished, and the
    rubber once over, as tables in memory."""
    rng = random.Random(seed)
    names = [f"P{seat} <i>" if seat == 1 else f"P{seat}" for seat in range(n)]
    rubber = EngineRubber(rules, names, dealer=rng.randrange(n))
    seats = [
        Seat(index=i, name=name, holder_key=f"key{i}", last_seen=timezone.now())
        for i, name in enumerate(names)
    ]
    if rng.random() < 0.5:
        seats[rng.randrange(n)].away = rng.choice(("break", "round"))
    states = []
    version = 1
    for number in range(1, 40):
        if rubber.over:
            break
        hand = rubber.deal(seed=rng.randrange(2**32))
        for _step in range(300):
            version += 1
            states.append(_state(rules, rubber, hand, seats, number, version, rng))
            if hand.complete:
                break
            legal = [a for seat in range(hand.n) for a in hand.legal_actions(seat)]
            # The laundry's rarer moves half the time they are there: a challenge turns
            # cards over for all to see, a dirty laundry caught plays her hand open.
            washing = [a for a in legal if a.act in ("exchange", "challenge")]
            hand.apply(rng.choice(washing if washing and rng.random() < 0.5 else legal))
        if not hand.complete:
            break  # a walk that would not end (never seen): what it showed is checked
        rubber.finish_hand()
        version += 1
        states.append(_state(rules, rubber, hand, seats, number, version, rng))
    return states


def _state(
    rules: HouseRules,
    rubber: EngineRubber,
    hand: Hand,
    seats: list[Seat],
    number: int,
    version: int,
    rng: random.Random,
) -> TableState:
    now = timezone.now()
    hand = hand.copy()
    table = Table(
        code="ABC234",
        rules_json=rules.to_json(),
        seat_count=len(seats),
        status=RUBBER_OVER if rubber.over else PLAYING,
        version=version,
        changed_at=now,
        created_by_id=1,
        paused=rng.random() < 0.05,
    )
    if hand.laundry and not hand.complete:
        table.laundry_until = now + timedelta(seconds=30)
        table.laundry_ready = [s for s in rubber.hand_seats if rng.random() < 0.3]
    if hand.awaiting:
        table.awaiting_since = now - timedelta(seconds=rng.randrange(5))
    row = PlayedHand(
        number=number,
        seats=list(rubber.hand_seats),
        record=hand.record(),
        complete=hand.complete,
        result=hand.result() if hand.complete else None,
    )
    played = Rubber(
        number=1,
        players=rubber.players,
        lives=list(rubber.lives),
        dealer=rubber.dealer,
        over=rubber.over,
        winner=rubber.winner,
        losers=list(rubber.losers),
    )
    return TableState(table, seats, played, row, hand, list(rubber.hand_seats))


def _viewers(n: int, rng: random.Random) -> list[Viewer]:
    """A phone for every seat, a watcher, and shared phones (one showing a seat)."""
    viewers = [Viewer(seats=(seat,), active=seat, can_start=True) for seat in range(n)]
    viewers.append(Viewer(can_close=True))
    pair = tuple(sorted(rng.sample(range(n), 2)))
    viewers.append(Viewer(seats=pair, active=None))
    viewers.append(Viewer(seats=pair, active=pair[1], ack="a1"))
    return viewers


def _public_cards(public: PublicView) -> set[int]:
    tokens = [play.card.token for play in public.trick + public.last_trick]
    tokens += [card.token for reveal in public.reveals for card in reveal.cards]
    tokens += [card.token for player in public.players for card in player.open_hand]
    return {INDEX[token] for token in tokens}


@settings(max_examples=12, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(house_rules(), st.integers(3, 6), st.integers(0, 2**32))
def test_whole_rubbers_render_together_as_alone_and_show_no_hidden_card(
    rules: HouseRules, n: int, seed: int
) -> None:
    n = max(n, rules.min_players)
    rng = random.Random(seed)
    states = _states(rules, n, seed)
    assert states
    for state in states:
        now = timezone.now()
        hand = state.hand
        assert hand is not None
        shared = Shared(now)
        viewers = _viewers(n, rng)
        rng.shuffle(viewers)
        for viewer in viewers:
            language = rng.choice(("en", "nl", "de"))
            with translation.override(language):
                alone = render_view(state, viewer, shared=Shared(now))
                together = render_view(state, viewer, shared=shared)
            assert together == alone, (state.table.version, viewer, language)
            assert alone.isascii(), language  # games.view.html.SUIT_REFS says why
            _public, seat = build_view(state, viewer, shared=Shared(now), language=language)
            hand_seat = state.hand_seat(seat.active) if seat.active is not None else None
            may_see = visible_to(hand, hand_seat)
            shown = {INDEX[token] for token in CARD.findall(alone)}
            assert shown <= may_see, (viewer, sorted(shown - may_see))
        assert shared.public is not None
        assert _public_cards(shared.public) <= visible_to(hand, None)
