"""Each level behaves as its description says."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from types import SimpleNamespace

import pytest

from games.bots import Bot, make_bot, strong
from games.bots.base import Habits, view_of
from games.bots.judge import win_chance
from games.bots.rollout import Style
from games.bots.strong import KNOCK_MARGIN, MIN_WORLDS, STAY_MARGIN, Strong, decision_margin
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


def test_strong_stops_its_search_before_a_world_that_would_end_past_its_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a clock that moves a second at every reading, each world takes a second. The budget
    of eight seconds runs from the ask (reading 0), not from the search's start (reading 1):
    the worlds begin at reading 2 and end at 3, 4, ...; after the fifth (at 7) a sixth would
    end at 8, past the budget less what weighing the results needs, so the search stops there
    (fewer worlds than it needs to settle early). The budget on the wall clock is measured by
    bench/pace.py."""
    readings = itertools.count()
    monkeypatch.setattr(strong, "time", SimpleNamespace(perf_counter=lambda: float(next(readings))))
    rng = random.Random(9)
    bot = Strong(4, budget=8.0)
    hand = Hand.deal(NO_LAUNDRY, [10] * 4, 3, seed=rng.randrange(1 << 30))
    bot.decide(observe(hand, 0), NO_LAUNDRY)
    assert MIN_WORLDS > 5
    assert bot.last_worlds == 5
    assert next(readings) == 8


def test_strong_stops_before_a_world_as_long_as_its_longest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Worlds differ in cost: the first here takes 40 ms, the others 5 ms. With a budget of
    100 ms the search stops where one more world as long as the longest would cross it, not
    where the mean world would."""
    times = iter([0.0, 0.0, 0.0, 0.040, *(0.040 + 0.005 * k for k in range(1, 400))])
    monkeypatch.setattr(strong, "time", SimpleNamespace(perf_counter=lambda: next(times)))
    rng = random.Random(9)
    bot = Strong(4, budget=0.1)
    hand = Hand.deal(NO_LAUNDRY, [10] * 4, 3, seed=rng.randrange(1 << 30))
    bot.decide(observe(hand, 0), NO_LAUNDRY)
    # After world w (w >= 1) the clock reads 0.035 + 0.005 w; the fifth ends at 0.060, and
    # 0.060 + 0.040 reaches the budget (less AFTER_SEARCH): the mean world (12 ms) would not.
    assert bot.last_worlds == 5


TWO_SEATS = HouseRules(exchange=False, announcements=False, min_players=2)


def _lost_last_trick() -> Hand:
    """Two players; seat 1 has won the third trick and leads 10H; seat 0 holds only 7D."""

    def cards(*tokens: str) -> list[int]:
        return [card_from_token(token) for token in tokens]

    dealt = cards("9C", "8C", "JS", "7D", "JC", "QC", "QS", "10H")
    hand = Hand(
        TWO_SEATS,
        [10, 10],
        dealer=1,
        hands=[dealt[:4], dealt[4:]],
        stock=[card for card in range(32) if card not in dealt],
    )
    for token in ("9C", "JC", "8C", "QC", "JS", "QS", "10H"):
        seat = hand.turn
        assert seat is not None
        hand.apply(Action(seat, "play", card=card_from_token(token)))
    return hand


def test_strong_knocks_at_a_lost_hand_only_when_the_last_opponent_always_folds() -> None:
    hand = _lost_last_trick()
    obs = observe(hand, 0)
    assert obs.to_play == 0 and Action(0, "knock") in obs.legal
    opponent = obs.players[1]

    folder = Strong(5, budget=5.0, worlds=60)
    folder.memory.habits[opponent] = Habits(hands=6, answers=6, folds=6)
    assert folder.decide(obs, TWO_SEATS) == Action(0, "knock")

    stayer = Strong(5, budget=5.0, worlds=60)
    stayer.memory.habits[opponent] = Habits(hands=6, answers=6, folds=0)
    assert stayer.decide(obs, TWO_SEATS) == Action(0, "play", card=card_from_token("7D"))


def test_strong_charges_its_margins_only_for_opponents_it_may_misjudge() -> None:
    hand = Hand.deal(NO_LAUNDRY, [10] * 4, dealer=3, seed=11)
    bot = Strong(6)
    obs = observe(hand, 0)
    names = obs.players
    knock = Action(0, "knock")
    judging = [Style()] * 4
    assert decision_margin(obs, judging, knock, bot.memory) == pytest.approx(KNOCK_MARGIN)
    # One of three opponents folds to every knock: she costs no margin.
    one_folds = [Style(), Style(answers="fold"), Style(), Style()]
    assert decision_margin(obs, one_folds, knock, bot.memory) == pytest.approx(KNOCK_MARGIN * 2 / 3)
    assert decision_margin(obs, [Style(), *[Style(answers="fold")] * 3], knock, bot.memory) == 0.0

    # Answering: a credible knocker who judges her knocks costs a margin to stay against; a
    # player who knocks at every chance costs none.
    hand.apply(Action(1, "knock"))
    hand.apply(Action(2, "fold"))
    hand.apply(Action(3, "fold"))
    obs = observe(hand, 0)
    stay = Action(0, "stay")
    assert obs.answer_to == 1 and stay in obs.legal
    bot.memory.habits[names[1]] = Habits(hands=10, knocks=3, shown_knocks=3, won_knocks=3)
    assert decision_margin(obs, judging, stay, bot.memory) > 0.5 * STAY_MARGIN
    always = [Style(), Style(knocks="always"), Style(), Style()]
    assert decision_margin(obs, always, stay, bot.memory) == 0.0
    assert decision_margin(obs, judging, Action(0, "fold"), bot.memory) == 0.0
