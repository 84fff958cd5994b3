"""Bots never see a hidden card: they decide from the observation alone, and the worlds Strong
imagines are exactly the hands its seat could be in."""

from __future__ import annotations

import random

from games.bots import LEVELS, make_bot
from games.bots.base import Bot, Habits
from games.bots.model import CLASSES, SEEN_ENOUGH, SURE
from games.bots.strong import Strong
from games.bots.world import Knowledge, sample_world
from games.engine import observe

from .helpers import random_hand, random_rules, random_walk


def _situations(count: int, seed: int):
    rng = random.Random(seed)
    found = 0
    index = 0
    while found < count:
        index += 1
        rules = random_rules(rng)
        hand = random_walk(random_hand(rng, rules, seed * 7919 + index), rng, rng.randint(0, 30))
        if hand.complete:
            continue
        seats = [s for s in range(hand.n) if hand.legal_actions(s) and hand.hands[s]]
        if not seats:
            continue
        found += 1
        yield rules, hand, rng.choice(seats)


def test_every_imagined_world_looks_to_the_seat_exactly_like_the_real_hand() -> None:
    rng = random.Random(3)
    for rules, hand, seat in _situations(150, 1):
        obs = observe(hand, seat)
        knowledge = Knowledge(obs, rules)
        for _ in range(4):
            sampled = sample_world(knowledge, rng)
            assert sampled is not None, "no world consistent with a real observation"
            world, weight = sampled.world, sampled.weight
            assert weight > 0
            assert observe(world, seat) == obs


def test_imagined_worlds_differ_from_the_real_hand_in_the_hidden_cards() -> None:
    rng = random.Random(4)
    differ = 0
    for rules, hand, seat in _situations(40, 2):
        knowledge = Knowledge(observe(hand, seat), rules)
        sampled = sample_world(knowledge, rng)
        assert sampled is not None
        world = sampled.world
        others = [sorted(world.hands[s]) for s in range(hand.n) if s != seat]
        differ += others != [sorted(hand.hands[s]) for s in range(hand.n) if s != seat]
    assert differ > 20


def _twins(count: int, seed: int):
    """(number, rules, the seat's observation, the same seat's observation of another deal it
    cannot tell from the real one)."""
    rng = random.Random(seed + 2)
    for number, (rules, hand, seat) in enumerate(_situations(count, seed)):
        obs = observe(hand, seat)
        sampled = sample_world(Knowledge(obs, rules), rng)
        assert sampled is not None
        yield number, rules, obs, observe(sampled.world, seat)


def _same_bot_twice(level: str, number: int) -> list[Bot]:
    if level == "strong":
        return [Strong(number, budget=30.0, worlds=12) for _ in range(2)]
    return [make_bot(level, seed=number) for _ in range(2)]


def test_a_decision_is_the_same_whatever_the_hidden_cards_are() -> None:
    """Swap the real hand for an imagined one its seat cannot tell apart: same decision."""
    for number, rules, obs, twin in _twins(40, 3):
        for level in LEVELS:
            first, second = _same_bot_twice(level, number)
            assert first.decide(obs, rules) == second.decide(twin, rules)


def test_a_decision_on_read_habits_is_the_same_whatever_the_hidden_cards_are() -> None:
    """The same, with every player read as knocking on the line and staying only on a high
    card half the time (so the worlds deal both): reading adds no hidden card."""
    for number, rules, obs, twin in _twins(40, 4):
        for level in ("normal", "strong"):
            first, second = _same_bot_twice(level, number)
            for bot in (first, second):
                for name in obs.players:
                    bot.memory.habits[name] = Habits(hands=6, knocks=2, sure_knocks=1, high_stays=1)
            assert first.decide(obs, rules) == second.decide(twin, rules)


def _modelled() -> Habits:
    """A player seen enough for her model to be acted on: she knocked on good hands and some
    weak ones, stayed on a top card and folded a few times."""
    habits = Habits(hands=8, knocks=3, answers=5, folds=2)
    model = habits.model
    for late in (0, 1):
        for klass in range(CLASSES):
            model.chances[late][klass] = 3
        model.knocks[late][SURE] = 2
        model.knocks[late][1] = 1
    model.stays[0][4] = 2
    model.folds[0] = 2
    model.unshown_knocks[1] = 1
    assert model.seen() >= SEEN_ENOUGH
    return habits


def test_a_decision_by_the_opponent_model_is_the_same_whatever_the_hidden_cards_are() -> None:
    """The same with every player modelled from shown hands: the worlds are weighed by her
    model and she plays it in the playouts, and still no hidden card decides."""
    for number, rules, obs, twin in _twins(40, 5):
        for level in ("normal", "strong"):
            first, second = _same_bot_twice(level, number)
            for bot in (first, second):
                for name in obs.players:
                    bot.memory.habits[name] = _modelled()
            assert first.decide(obs, rules) == second.decide(twin, rules)
