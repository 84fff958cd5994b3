"""Reading players from the hands they showed: the table reconstructs what a player
knew when she knocked or stayed, tells the lijntoeper from the knocker, and the computer players
act on what they read, from public actions only."""

from __future__ import annotations

import dataclasses
import random

import pytest

from games.bots import make_bot
from games.bots.base import Habits, view_of
from games.bots.reads import PRIOR, belief, knock_is_sure, shown_choices, stay_is_high
from games.bots.rollout import view_in
from games.bots.simple import Normal
from games.bots.strong import KNOCK_MARGIN, Strong, decision_margin
from games.bots.table import play_rubber
from games.bots.world import Knowledge, sample_world
from games.engine import CLASSIC, Action, Hand, HouseRules, observe
from games.engine.cards import card_from_token

from .helpers import random_rules


def _play_recording(hand: Hand, rng: random.Random) -> dict[int, tuple[int, object]]:
    """Play `hand` out with Normal players (randomly bold), recording for every knock and stay
    the view its seat had the moment before, by history index."""
    bots = [make_bot("reckless" if rng.random() < 0.3 else "normal", seed=s) for s in range(hand.n)]
    seen: dict[int, tuple[int, object]] = {}
    while not hand.complete:
        due = hand.due()
        action = None
        for seat in range(hand.n):
            if seat not in due and hand.legal_actions(seat):
                action = bots[seat].decide(observe(hand, seat), hand.rules)
                if action is not None:
                    break
        if action is None:
            action = bots[due[0]].decide(observe(hand, due[0]), hand.rules)
        assert action is not None
        if action.act in ("knock", "stay"):
            seen[len(hand.actions)] = (action.seat, view_of(observe(hand, action.seat)))
        hand.apply(action)
    return seen


def test_a_shown_choice_is_read_with_the_view_the_player_had_then() -> None:
    """Without exchanges, open hands or shown cards, what the table reconstructs after the
    hand is exactly what the player's own observation held when she chose."""
    rng = random.Random(11)
    checked = 0
    for number in range(300):
        rules = dataclasses.replace(random_rules(rng), exchange=False, poverty="off")
        n = rng.choice((3, 4, 5))
        hand = Hand.deal(rules, [rules.starting_lives] * n, dealer=rng.randrange(n), seed=number)
        recorded = _play_recording(hand, rng)
        obs = observe(hand, None)
        indexes = [i for i, action in enumerate(obs.history) if action.act in ("knock", "stay")]
        choices = list(shown_choices(obs))
        shown_at = [i for i in indexes if len(obs.tricks) == 4 and _all_played(obs, i)]
        if obs.tricks and obs.tricks[-1][2] is None:
            shown_at = []
        assert len(choices) == len(shown_at)
        for (seat, act, view), index in zip(choices, shown_at, strict=True):
            real_seat, real = recorded[index]
            assert (seat, act) == (real_seat, obs.history[index].act)
            for field in ("unknown", "held", "trick", "trick_left", "tricks_left", "leads"):
                assert getattr(view, field) == getattr(real, field), field
            assert sorted(view.cards) == sorted(real.cards)
            assert view.opponents == real.opponents
            checked += 1
    assert checked > 200


def _all_played(obs, index: int) -> bool:
    seat = obs.history[index].seat
    return sum(1 for _, plays, _ in obs.tricks for s, _ in plays if s == seat) == 4


def test_nothing_is_read_from_a_hand_that_was_not_played_out() -> None:
    hand = Hand.deal(CLASSIC, [15] * 4, dealer=0, seed=3)
    hand.apply(Action(1, "knock"))
    for seat in (2, 3, 0):
        hand.apply(Action(seat, "fold"))
    obs = observe(hand, 2)
    assert obs.complete
    assert list(shown_choices(obs)) == []


def test_the_table_tells_the_lijntoeper_from_the_knocker() -> None:
    """Two of each at one table for five rubbers: every shown choice of a lijntoeper fits her
    habits, so a watcher believes them of her more than of anyone it knows nothing about, and
    the knockers' knocks on anything soon drop the belief that they knock on the line."""
    bots = [make_bot(level, seed=s) for s, level in enumerate(("lijntoeper", "knocker") * 2)]
    for number in range(5):
        play_rubber(CLASSIC, bots, seed=number, dealer=number % 4)
    watcher = bots[1].memory
    for name in ("P0", "P2"):
        habits = watcher.of(name)
        assert habits.unsure_knocks == habits.low_stays == 0
        assert habits.sure_knocks + habits.high_stays > 0
        assert habits.knocks_on_the_line() >= PRIOR
        assert habits.stays_on_high() > PRIOR
    assert watcher.of("P0").stays_on_high() > 0.9
    assert watcher.of("P3").knocks_on_the_line() < 0.01


def test_belief_climbs_with_fitting_choices_and_drops_with_one_that_breaks_the_habit() -> None:
    assert belief(0, 0, 0.3) == pytest.approx(PRIOR)
    assert PRIOR < belief(1, 0, 0.3) < belief(3, 0, 0.3) < 1.0
    assert belief(2, 1, 0.3) < PRIOR
    assert belief(3, 1, 0.3) < belief(1, 0, 0.3)


def _knocked_at(me: str, knocker: str) -> Hand:
    rules = HouseRules(exchange=False, announcements=False, min_players=2)
    first = [card_from_token(token) for token in me.split()]
    second = [card_from_token(token) for token in knocker.split()]
    dealt = first + second
    hand = Hand(
        rules,
        [10, 10],
        dealer=0,
        hands=[first, second],
        stock=[card for card in range(32) if card not in dealt],
    )
    hand.apply(Action(1, "knock"))
    return hand


def test_normal_folds_to_a_player_read_as_knocking_on_the_line() -> None:
    # A ten and a nine: Normal stays on that against a player it knows nothing of.
    hand = _knocked_at("10H 9S 8D 7C", "JH QS KD AC")
    obs = observe(hand, 0)
    unknown = Normal(seed=1)
    assert unknown.decide(obs, hand.rules) == Action(0, "stay")
    reader = Normal(seed=1)
    reader.memory.habits["Seat 1"] = Habits(hands=8, knocks=3, sure_knocks=3)
    assert reader.decide(obs, hand.rules) == Action(0, "fold")


def test_strong_folds_to_a_player_read_as_knocking_on_the_line() -> None:
    hand = _knocked_at("10H 9S 8D 7C", "JH QS KD AC")
    obs = observe(hand, 0)
    reader = Strong(seed=1, budget=30.0, worlds=200)
    reader.memory.habits["Seat 1"] = Habits(hands=8, knocks=3, sure_knocks=4)
    assert reader.decide(obs, hand.rules) == Action(0, "fold")


def test_worlds_weigh_a_read_habit_by_whether_the_deal_fits_it() -> None:
    """In the worlds Strong imagines for a player read as knocking on the line, a deal where
    her knock was not on a sure last trick keeps only a slip of weight; likewise, for one read
    as staying only on a high card, a stay without one and a fold with one."""
    rng = random.Random(5)
    checked = {"knock": 0, "stay": 0, "fold": 0}
    misses = tried = 0
    for number in range(60):
        rules = dataclasses.replace(random_rules(rng), exchange=False, poverty="off")
        hand = Hand.deal(rules, [rules.starting_lives] * 4, dealer=number % 4, seed=number)
        _play_recording(hand, rng)
        history = hand.actions
        for cut in range(1, len(history)):
            seat = (history[cut].seat + 1) % 4
            past = _replayed(hand, cut)
            if past.complete or past.folded[seat]:
                continue
            obs = observe(past, seat)
            knowledge = Knowledge(obs, rules, reads=lambda other: (1.0, 1.0))
            tried += 1
            sampled = sample_world(knowledge, rng)
            if sampled is None:  # forty unlucky draws in a row happen now and then
                misses += 1
                continue
            world = _replayed(sampled.world, 0)
            fits = True
            for index, action in enumerate(obs.history):
                if action.seat == seat or action.act not in checked:
                    world.apply(action)
                    continue
                knocked = any(a.act == "knock" for a in obs.history[:index])
                if action.act == "knock":
                    fits &= knock_is_sure(view_in(world, action.seat))
                    checked["knock"] += 1
                elif knocked:
                    high = stay_is_high(view_in(world, action.seat))
                    fits &= high == (action.act == "stay")
                    checked[action.act] += 1
                world.apply(action)
            assert (sampled.weight == 1.0) == fits
    assert min(checked.values()) > 20
    assert misses < 0.02 * tried


def _replayed(hand: Hand, cut: int) -> Hand:
    """A fresh copy of `hand` as dealt, with its first `cut` actions applied."""
    fresh = Hand(
        hand.rules,
        list(hand.start_lives),
        hand.dealer,
        [list(cards) for cards in hand.dealt],
        list(hand.initial_stock),
        [seat for seat, immune in enumerate(hand.immune) if immune],
        hand.players,
    )
    for action in hand.actions[:cut]:
        fresh.apply(action)
    return fresh


def test_the_knock_margin_is_waived_as_far_as_a_high_stayer_is_believed() -> None:
    hand = Hand.deal(CLASSIC, [15] * 4, dealer=3, seed=8)
    obs = observe(hand, 0)
    knock = Action(0, "knock")
    styles = Strong(seed=1).styles(obs)
    bot = Strong(seed=1)
    assert decision_margin(obs, styles, knock, bot.memory) == pytest.approx(KNOCK_MARGIN)
    for name in obs.players[1:]:
        bot.memory.habits[name] = Habits(hands=10, answers=6, folds=3, high_stays=8)
    assert decision_margin(obs, styles, knock, bot.memory) < 0.1 * KNOCK_MARGIN
