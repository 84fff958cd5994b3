"""Every level only ever does what the rules allow, under every house rule, and never stalls."""

from __future__ import annotations

import random

import pytest

from games.bots import LEVELS, Bot, is_due, make_bot
from games.bots.table import play_hand
from games.engine import Action, HouseRules, Observation

from .helpers import random_hand, random_rules


class Checked(Bot):
    """Wraps a bot and checks each of its answers against the observation it was given."""

    def __init__(self, inner: Bot) -> None:
        super().__init__(0)
        self.inner = inner
        self.level = inner.level
        self.asked = 0

    def notice(self, obs: Observation) -> None:
        self.inner.notice(obs)

    def decide(self, obs: Observation, rules: HouseRules) -> Action | None:
        self.asked += 1
        action = self.inner.decide(obs, rules)
        if action is None:
            assert not is_due(obs), "a due bot returned nothing"
        else:
            assert action in obs.legal, f"{action} is not among {obs.legal}"
        return action


@pytest.mark.parametrize("level", [level for level in LEVELS if level != "strong"])
def test_a_rule_level_plays_only_legal_actions_under_random_house_rules(level: str) -> None:
    rng = random.Random(level)
    for index in range(150):
        rules = random_rules(rng)
        hand = random_hand(rng, rules, seed=index)
        bots = [Checked(make_bot(level, seed=index * 10 + s)) for s in range(hand.n)]
        play_hand(hand, bots)
        assert hand.complete


def test_strong_plays_only_legal_actions_under_random_house_rules() -> None:
    rng = random.Random(11)
    for index in range(12):
        rules = random_rules(rng)
        hand = random_hand(rng, rules, seed=1000 + index)
        levels = ["strong"] + [rng.choice(LEVELS) for _ in range(hand.n - 1)]
        rng.shuffle(levels)
        bots = [
            Checked(make_bot(level, seed=index * 10 + s, budget=0.004))
            for s, level in enumerate(levels)
        ]
        play_hand(hand, bots)
        assert hand.complete


def test_mixed_tables_finish_every_hand_with_every_rule_switched_on() -> None:
    rng = random.Random(5)
    for index in range(60):
        rules = random_rules(rng)
        hand = random_hand(rng, rules, seed=2000 + index)
        levels = [rng.choice([lv for lv in LEVELS if lv != "strong"]) for _ in range(hand.n)]
        bots = [Checked(make_bot(level, seed=s)) for s, level in enumerate(levels)]
        play_hand(hand, bots)
        assert hand.complete


def test_an_unknown_level_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="grandmaster"):
        make_bot("grandmaster")


def test_strong_plays_on_beside_a_player_buying_the_round() -> None:
    # rules.md 3.8: the table acts for her (auto), and Strong's rollouts play her part so too.
    rng = random.Random(38)
    for index in range(6):
        rules = random_rules(rng)
        hand = random_hand(rng, rules, seed=2000 + index, immune=[index % 2])
        bots = [
            Checked(make_bot("strong", seed=index * 10 + s, budget=0.004)) for s in range(hand.n)
        ]
        play_hand(hand, bots)
        assert hand.complete
        assert all(action.auto for action in hand.actions if action.seat == index % 2)
