"""Each level behaves as its description says."""

from __future__ import annotations

import random
from collections import Counter

from games.bots import Bot, make_bot
from games.bots.base import view_of
from games.bots.judge import win_chance
from games.bots.strong import Strong
from games.bots.table import play_hand
from games.engine import CLASSIC, Action, Hand, HouseRules, Observation, observe
from games.engine.cards import card_from_token

NO_LAUNDRY = HouseRules(exchange=False, announcements=False)


class Recorder(Bot):
    """Wraps a bot and notes, for each decision where it might knock, its chance and choice."""

    def __init__(self, inner: Bot, log: list[tuple[str, float, str | None]]) -> None:
        super().__init__(0)
        self.inner, self.level, self.log = inner, inner.level, log

    def notice(self, obs: Observation) -> None:
        self.inner.notice(obs)

    def decide(self, obs: Observation, rules: HouseRules) -> Action | None:
        action = self.inner.decide(obs, rules)
        if obs.legal and not obs.laundry_open:
            self.log.append((self.level, win_chance(view_of(obs)), getattr(action, "act", None)))
        return action


def _table(levels: list[str], hands: int, seed: int) -> tuple[list[Hand], list]:  # type: ignore[type-arg]
    log: list[tuple[str, float, str | None]] = []
    bots = [Recorder(make_bot(level, seed=seed + s), log) for s, level in enumerate(levels)]
    played = []
    for index in range(hands):
        hand = Hand.deal(CLASSIC, [10] * len(levels), index % len(levels), seed * 1000 + index)
        played.append(play_hand(hand, bots))
    return played, log


def test_cautious_never_knocks_and_folds_to_every_knock() -> None:
    hands, _ = _table(["cautious", "reckless", "normal", "normal"], 80, 1)
    stays = Counter(a.act for h in hands for a in h.actions if a.seat == 0)
    assert stays["knock"] == 0
    assert stays["stay"] == 0
    assert stays["fold"] > 40


def test_reckless_knocks_whenever_it_may_and_never_folds() -> None:
    hands, _ = _table(["reckless", "cautious", "normal", "normal"], 80, 2)
    acts = Counter(a.act for h in hands for a in h.actions if a.seat == 0)
    assert acts["fold"] == 0
    assert acts["knock"] >= 80
    for hand in hands:
        # It stops only where its lives stop it.
        assert hand.knocks[0] >= 1


def test_normal_knocks_far_more_with_a_strong_hand_than_with_a_weak_one() -> None:
    _, log = _table(["normal"] * 4, 250, 3)
    strong = [act == "knock" for level, win, act in log if win >= 0.75]
    weak = [act == "knock" for level, win, act in log if win < 0.3]
    assert len(strong) > 30 and len(weak) > 100
    assert sum(strong) / len(strong) > 3 * sum(weak) / len(weak)
    assert sum(weak) > 0, "Normal never bluffs"


def test_easy_folds_more_and_knocks_less_than_normal() -> None:
    # Both face the same knocks (mostly the reckless players'), so their answers compare.
    hands, _ = _table(["easy", "normal", "reckless", "reckless"], 150, 4)
    acts: dict[int, Counter[str]] = {0: Counter(), 1: Counter()}
    for hand in hands:
        for action in hand.actions:
            if action.seat in acts:
                acts[action.seat][action.act] += 1
    easy, normal = acts[0], acts[1]
    assert easy["fold"] / (easy["fold"] + easy["stay"]) > normal["fold"] / (
        normal["fold"] + normal["stay"]
    )
    assert easy["knock"] < normal["knock"]


def _last_trick_lead() -> Hand:
    """Seat 0 wins three club tricks and leads the last with 10H, the top heart."""

    def cards(*tokens: str) -> list[int]:
        return [card_from_token(token) for token in tokens]

    hand = Hand(
        NO_LAUNDRY,
        [10, 10, 10],
        dealer=2,
        hands=[
            cards("9C", "8C", "7C", "10H"),
            cards("JC", "QC", "KC", "JH"),
            cards("JD", "QD", "KD", "QH"),
        ],
        stock=[
            card
            for card in range(32)
            if card
            not in cards("9C", "8C", "7C", "10H", "JC", "QC", "KC", "JH", "JD", "QD", "KD", "QH")
        ],
    )
    for lead, follow, discard in (("9C", "JC", "JD"), ("8C", "QC", "QD"), ("7C", "KC", "KD")):
        for seat, token in ((0, lead), (1, follow), (2, discard)):
            hand.apply(Action(seat, "play", card=card_from_token(token)))
    return hand


def test_strong_knocks_before_leading_a_sure_winner() -> None:
    hand = _last_trick_lead()
    bot = Strong(1, budget=5.0, worlds=60)
    action = bot.decide(observe(hand, 0), NO_LAUNDRY)
    assert action == Action(0, "knock")


def test_strong_folds_a_hopeless_last_card_and_stays_with_a_sure_one() -> None:
    hand = _last_trick_lead()
    hand.apply(Action(0, "knock"))
    # Seat 1 holds JH: whatever seat 0 leads, it cannot win.
    assert Strong(2, budget=5.0, worlds=60).decide(observe(hand, 1), NO_LAUNDRY) == Action(
        1, "fold"
    )

    hand = _last_trick_lead()
    hand.apply(Action(1, "knock"))
    hand.apply(Action(2, "fold"))  # answers run from the knocker's left: seat 2, then seat 0
    assert Strong(3, budget=5.0, worlds=60).decide(observe(hand, 0), NO_LAUNDRY) == Action(
        0, "stay"
    )


def test_strong_searches_within_its_budget() -> None:
    rng = random.Random(9)
    bot = Strong(4, budget=0.05)
    hand = Hand.deal(NO_LAUNDRY, [10] * 4, 3, seed=rng.randrange(1 << 30))
    import time

    start = time.perf_counter()
    bot.decide(observe(hand, 0), NO_LAUNDRY)
    assert time.perf_counter() - start < 0.2
