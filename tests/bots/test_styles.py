"""The benchmark styles (docs/bots.md) do what defines them: the lijntoeper knocks only on a
sure last trick and folds without a high card; the knocker knocks at every low stake and folds
only at a high one; the battery's club styles (`styles.BATTERY`) keep their habits."""

from __future__ import annotations

import random

import pytest

from games.bots import make_bot
from games.bots.simple import KNOCKER_HIGH_STAKE
from games.bots.styles import BATTERY, Styled
from games.bots.table import play_hand
from games.engine import Action, Hand, HouseRules, observe
from games.engine.cards import card_from_token

from .helpers import random_hand, random_rules

TWO_SEATS = HouseRules(exchange=False, announcements=False, min_players=2)


def _two_seats(mine: str, theirs: str, dealer: int = 1) -> Hand:
    """Seat 0 holds `mine`, seat 1 `theirs`; the seat after the dealer leads (seat 0 by
    default)."""
    first = [card_from_token(token) for token in mine.split()]
    second = [card_from_token(token) for token in theirs.split()]
    dealt = first + second
    return Hand(
        TWO_SEATS,
        [10, 10],
        dealer=dealer,
        hands=[first, second],
        stock=[card for card in range(32) if card not in dealt],
    )


def test_the_lijntoeper_knocks_when_every_card_she_leads_tops_its_suit() -> None:
    hand = _two_seats("10H 10S 10D 10C", "JH QS KD AC")
    assert make_bot("lijntoeper", seed=1).decide(observe(hand, 0), TWO_SEATS) == Action(0, "knock")


def test_the_lijntoeper_does_not_knock_while_a_higher_card_is_unseen() -> None:
    # 10C is somewhere she cannot see: her 9C may lose the last trick.
    hand = _two_seats("10H 10S 10D 9C", "JH QS KD AC")
    action = make_bot("lijntoeper", seed=1).decide(observe(hand, 0), TWO_SEATS)
    assert action is not None and action.act == "play"


def test_the_lijntoeper_counts_the_cards_gone_for_her_last_trick() -> None:
    # Seat 1 leads 10C, then 10H; once 10C is gone her 9C tops the clubs.
    hand = _two_seats("8C 9C 9H 7S", "10C 10H JS JD", dealer=0)
    hand.apply(Action(1, "play", card=card_from_token("10C")))
    hand.apply(Action(0, "play", card=card_from_token("8C")))
    bot = make_bot("lijntoeper", seed=2)
    # Seat 1 leads the next trick: she may be void in its suit, so no knock.
    assert bot.decide(observe(hand, 0), TWO_SEATS) is None
    hand.apply(Action(1, "play", card=card_from_token("10H")))
    hand.apply(Action(0, "play", card=card_from_token("9H")))
    hand.apply(Action(1, "play", card=card_from_token("JS")))
    hand.apply(Action(0, "play", card=card_from_token("7S")))
    # She took the third trick with 7S and leads 9C, the highest club left.
    assert bot.decide(observe(hand, 0), TWO_SEATS) == Action(0, "knock")


def test_the_lijntoeper_folds_to_a_knock_without_a_high_card() -> None:
    hand = _two_seats("JH QH KS AS", "10H 9S 8D 7C")
    hand.apply(Action(1, "knock"))
    assert make_bot("lijntoeper", seed=3).decide(observe(hand, 0), TWO_SEATS) == Action(0, "fold")


def test_the_lijntoeper_stays_with_a_card_nothing_left_can_beat() -> None:
    hand = _two_seats("JH QH KS 10S", "10H 9S 8D 7C")
    hand.apply(Action(1, "knock"))
    assert make_bot("lijntoeper", seed=3).decide(observe(hand, 0), TWO_SEATS) == Action(0, "stay")


def test_the_lijntoeper_never_loses_a_last_trick_she_knocked_for() -> None:
    """Under random house rules and against knockers, who stay and so play hands out: every
    hand she knocked in and that was played to the last trick, she won."""
    rng = random.Random(20)
    knocked = 0
    for index in range(300):
        rules = random_rules(rng)
        hand = random_hand(rng, rules, seed=5000 + index)
        bots = [make_bot("lijntoeper" if s == 0 else "knocker", seed=s) for s in range(hand.n)]
        play_hand(hand, bots)
        if not any(action.seat == 0 and action.act == "knock" for action in hand.actions):
            continue
        knocked += 1
        if hand.last_trick_winner is not None and not hand.folded[0]:
            assert hand.last_trick_winner == 0, f"hand {index}: knocked and lost the last trick"
    assert knocked >= 10, "the lijntoeper hardly ever knocked"


def test_the_knocker_knocks_at_its_first_chance() -> None:
    hand = _two_seats("JH QH KS AS", "10H 9S 8D 7C")
    assert make_bot("knocker", seed=4).decide(observe(hand, 0), TWO_SEATS) == Action(0, "knock")
    # Out of turn too: seat 1 is not to play, but may knock, and does.
    assert make_bot("knocker", seed=4).decide(observe(hand, 1), TWO_SEATS) == Action(1, "knock")


def test_the_knocker_stays_at_a_low_stake_and_folds_at_a_high_one() -> None:
    hand = _two_seats("JH QH KS AS", "10H 9S 8D 7C")
    bot = make_bot("knocker", seed=5)
    hand.apply(Action(1, "knock"))
    assert hand.stake == 2
    assert bot.decide(observe(hand, 0), TWO_SEATS) == Action(0, "stay")
    hand.apply(Action(0, "stay"))
    hand.apply(Action(0, "knock"))
    hand.apply(Action(1, "stay"))
    hand.apply(Action(1, "knock"))
    assert hand.stake == KNOCKER_HIGH_STAKE
    assert bot.decide(observe(hand, 0), TWO_SEATS) == Action(0, "fold")


def _battery_hands(style: str, count: int) -> list[Hand]:
    """`count` random hands under random house rules, seat 0 of `style` among Normal players."""
    rng = random.Random(len(style))
    hands = []
    for index in range(count):
        rules = random_rules(rng)
        hand = random_hand(rng, rules, seed=7000 + index)
        bots = [make_bot(style if s == 0 else "normal", seed=s) for s in range(hand.n)]
        hands.append(play_hand(hand, bots))
    return hands


def test_the_careful_player_knocks_only_in_the_last_trick() -> None:
    knocked = 0
    for hand in _battery_hands("careful", 200):
        cards = 0
        for action in hand.actions:
            if action.seat == 0 and action.act == "play":
                cards += 1
            if action.seat == 0 and action.act == "knock":
                assert cards == 3, "the careful player knocked before the last trick"
                knocked += 1
    assert knocked >= 5


def test_the_careful_player_stays_only_with_a_card_nothing_left_can_beat() -> None:
    hand = _two_seats("JH QH KS AS", "10H 9S 8D 7C")
    hand.apply(Action(1, "knock"))
    assert make_bot("careful", seed=3).decide(observe(hand, 0), TWO_SEATS) == Action(0, "fold")
    hand = _two_seats("JH QH KS 10S", "10H 9S 8D 7C")
    hand.apply(Action(1, "knock"))
    assert make_bot("careful", seed=3).decide(observe(hand, 0), TWO_SEATS) == Action(0, "stay")


def test_the_caller_stays_where_the_timid_player_folds() -> None:
    hand = _two_seats("JH QH KS 9S", "10H 10S 8D 7C")
    hand.apply(Action(1, "knock"))
    assert make_bot("caller", seed=1).decide(observe(hand, 0), TWO_SEATS) == Action(0, "stay")
    assert make_bot("timid", seed=1).decide(observe(hand, 0), TWO_SEATS) == Action(0, "fold")


def test_the_bluffer_knocks_on_a_weak_hand_now_and_then_and_the_timid_player_never() -> None:
    # Seat 0 takes the first trick and loses the second; seat 1 leads QD to the third, and
    # seat 0 holds only JD and JC.
    hand = _two_seats("7H JS JD JC", "JH 7S QD QC")
    for token in ("7H", "JH", "JS", "7S", "QD"):
        seat = hand.turn
        assert seat is not None
        hand.apply(Action(seat, "play", card=card_from_token(token)))
    obs = observe(hand, 0)
    knock = Action(0, "knock")

    def knocks(style: str) -> int:
        return sum(
            make_bot(style, seed=seed).decide(obs, TWO_SEATS) == knock for seed in range(100)
        )

    assert 10 <= knocks("bluffer") <= 50
    assert knocks("timid") == 0
    assert knocks("careful") == 0


def test_the_mixed_player_keeps_one_habit_for_a_whole_hand() -> None:
    bot = make_bot("mixed", seed=9)
    assert isinstance(bot, Styled)
    habits = set()
    for index in range(40):
        hand = Hand.deal(TWO_SEATS, [10, 2 + index % 8], dealer=index % 2, seed=index)
        obs = observe(hand, 0)
        bot.notice(obs)
        first = bot.habit()
        assert all(bot.habit() is first for _ in range(5))
        habits.add(first)
    assert habits == {habit for habit, _ in BATTERY["mixed"]}


def test_an_unknown_style_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("sneaky")
    with pytest.raises(ValueError, match="unknown style"):
        Styled("sneaky")
