"""Random house rules and hands for the bot tests."""

from __future__ import annotations

import random
from collections.abc import Sequence

from games.engine import Hand, HouseRules


def random_rules(rng: random.Random) -> HouseRules:
    """A profile that switches on the rules bots most easily get wrong."""
    return HouseRules(
        starting_lives=rng.choice((3, 5, 10)),
        exchange=rng.random() < 0.8,
        exchange_limit=rng.choice((1, 2)),
        clean_hand=rng.choice(("four_face", "face_and_one_seven")),
        challenge_scoring=rng.choice(("single", "each_challenger")),
        dirty_penalty=rng.choice(("life", "open_hand", "life_and_open_hand")),
        poverty=rng.choice(("off", "stake_two", "stake_two_poor_leads")),
        knock_cap=rng.choice(("lives", "none")),
        max_knocks_per_player=rng.choice((None, 1, 2)),
        response_order=rng.choice(("sequential", "simultaneous")),
        voluntary_fold=rng.random() < 0.5,
        folded_card_wins=rng.random() < 0.5,
        suit_order=rng.choice(("HSDC", "HDSC")),
        announcements=rng.random() < 0.7,
    )


def random_hand(
    rng: random.Random, rules: HouseRules, seed: int, immune: Sequence[int] = ()
) -> Hand:
    n = rng.choice((3, 4, 5))
    lives = [rng.randint(1, rules.starting_lives) for _ in range(n)]
    return Hand.deal(rules, lives, dealer=rng.randrange(n), seed=seed, immune=immune)


def random_walk(hand: Hand, rng: random.Random, steps: int) -> Hand:
    """Random legal actions, mostly by the seats the hand waits for, sometimes out of turn."""
    for _ in range(steps):
        if hand.complete:
            break
        due = hand.due()
        able = [seat for seat in range(hand.n) if hand.legal_actions(seat)]
        seat = rng.choice(due) if due and rng.random() < 0.8 else rng.choice(able)
        hand.apply(rng.choice(hand.legal_actions(seat)))
    return hand
