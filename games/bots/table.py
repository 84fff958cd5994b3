"""Playing hands and rubbers with bots: the reference for how a table asks its computer players.

After every change to the hand, each seat that is not due but has legal actions is offered the
chance to act (exchange, challenge, knock, announce, a voluntary fold), in turn from the left of
the dealer; the first that takes it changes the hand and the round of offers starts again. Only
when nobody takes an offer is the seat the hand waits for asked, and it must act.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from games.engine import Action, Hand, HouseRules, Rubber, observe

from .base import Bot

Timer = Callable[[int, float], None]


def play_hand(hand: Hand, bots: Sequence[Bot], timer: Timer | None = None) -> Hand:
    """Play `hand` to its end, `bots[s]` in hand seat s. `timer(seat, seconds)` sees each ask."""
    rules = hand.rules
    n = hand.n
    while not hand.complete:
        due = hand.due()
        acted = False
        for step in range(1, n + 1):
            seat = (hand.dealer + step) % n
            if seat in due or not hand.legal_actions(seat):
                continue
            action = _ask(bots[seat], hand, seat, rules, timer)
            if action is not None:
                hand.apply(action)
                acted = True
                break
        if acted:
            continue
        seat = due[0]
        action = _ask(bots[seat], hand, seat, rules, timer)
        if action is None:
            raise AssertionError(f"seat {seat} is due and did nothing")
        hand.apply(action)
    for seat in range(n):
        bots[seat].notice(observe(hand, seat))
    return hand


def _ask(bot: Bot, hand: Hand, seat: int, rules: HouseRules, timer: Timer | None) -> Action | None:
    start = time.perf_counter()
    action = bot.decide(observe(hand, seat), rules)
    if timer is not None:
        timer(seat, time.perf_counter() - start)
    return action


def play_rubber(
    rules: HouseRules,
    bots: Sequence[Bot],
    seed: int,
    dealer: int = 0,
    timer: Timer | None = None,
    max_hands: int = 500,
) -> Rubber:
    """Play one rubber to its end; `bots[s]` sits in rubber seat s."""
    rubber = Rubber(rules, [f"P{s}" for s in range(len(bots))], dealer=dealer)
    for number in range(max_hands):
        if rubber.over:
            break
        hand = rubber.deal(seed * 1000 + number)
        seats = rubber.hand_seats

        def seat_timer(seat: int, seconds: float, seats: tuple[int, ...] = seats) -> None:
            if timer is not None:
                timer(seats[seat], seconds)

        play_hand(hand, [bots[s] for s in seats], seat_timer if timer else None)
        rubber.finish_hand()
    return rubber
