"""The laundry: exchanging a hand and challenging an exchange (rules.md 3.2)."""

from __future__ import annotations

import pytest

from games.engine import TOKENS, card_from_token, observe

from .helpers import build, refused, replay_actions, rules

BASE = (
    ("8H", "QS", "AC", "9D"),
    ("7S", "10S", "KH", "JC"),
    ("9S", "8C", "QH", "10D"),
)
FOUR_FACE = ("JD", "QD", "KD", "AD")
ONE_SEVEN = ("AS", "7C", "JD", "KC")
TWO_SEVENS = ("7C", "7D", "JD", "KC")
AN_EIGHT = ("8D", "JD", "QD", "KD")
NEW_CARDS = ("JH", "AH", "9H", "10H")


def cards(*names: str) -> list[int]:
    return [card_from_token(name) for name in names]


def laundry_hand(seat3=ONE_SEVEN, top=NEW_CARDS, **fields):
    return build((*BASE, seat3), rules=rules(**fields), top=top)


def test_an_exchange_lays_the_hand_aside_and_takes_the_top_four_of_the_stock():
    hand = laundry_hand()
    before = observe(hand, 3).stock_count
    replay_actions(hand, "3 exchange")
    seen = observe(hand, 3)
    assert sorted(seen.hand) == sorted(cards(*NEW_CARDS))
    assert seen.stock_count == before - 4
    assert not set(cards(*ONE_SEVEN)) & set(seen.hand)


def test_laid_aside_cards_stay_hidden_from_the_others_unless_challenged():
    hand = replay_actions(laundry_hand(), "3 exchange")
    for seat in (0, 1, 2, None):
        assert not set(cards(*ONE_SEVEN)) & observe(hand, seat).visible_cards()


def test_an_exchange_is_allowed_only_once_by_default():
    hand = replay_actions(laundry_hand(), "3 exchange")
    assert refused(hand, "3 exchange") == "cannot_exchange"


def test_the_exchange_limit_counts_per_player():
    hand = replay_actions(laundry_hand(), "3 exchange", "1 exchange", "0 exchange")
    assert refused(hand, "1 exchange") == "cannot_exchange"


def test_exchange_limit_three_allows_three_exchanges_but_not_a_fourth():
    hand = replay_actions(laundry_hand(exchange_limit=3), "3 exchange", "3 exchange", "3 exchange")
    assert observe(hand, 3).stock_count == 4  # the stock is not what stops the fourth
    assert refused(hand, "3 exchange") == "cannot_exchange"


def test_exchange_limit_two_allows_a_second_exchange():
    hand = replay_actions(laundry_hand(exchange_limit=2), "3 exchange", "3 exchange")
    assert refused(hand, "3 exchange") == "cannot_exchange"


def test_an_exchange_needs_four_cards_in_the_stock():
    seven = [TOKENS[4 * s : 4 * s + 4] for s in range(7)]
    hand = build(seven, rules=rules(exchange_limit=2))
    replay_actions(hand, "2 exchange")
    assert observe(hand, 2).stock_count == 0
    assert refused(hand, "2 exchange") == "cannot_exchange"
    assert refused(hand, "5 exchange") == "cannot_exchange"


def test_with_eight_players_there_is_no_stock_to_exchange_from():
    eight = [TOKENS[4 * s : 4 * s + 4] for s in range(8)]
    hand = build(eight)
    assert refused(hand, "3 exchange") == "cannot_exchange"


def test_with_exchange_off_there_is_no_exchange_and_no_challenge():
    hand = laundry_hand(exchange=False)
    assert refused(hand, "3 exchange") == "cannot_exchange"
    assert refused(hand, "0 challenge 3") == "cannot_challenge"


@pytest.mark.parametrize("other", ["1 play 10S", "2 knock", "1 knock"])
def test_the_laundry_ends_with_the_first_action_of_another_kind(other):
    hand = replay_actions(laundry_hand(), "3 exchange", other)
    assert refused(hand, "0 exchange") == "cannot_exchange"
    assert refused(hand, "0 challenge 3") == "cannot_challenge"


def test_a_refused_action_does_not_end_the_laundry():
    hand = laundry_hand()
    assert refused(hand, "2 play 9S") == "not_your_turn"
    replay_actions(hand, "3 exchange", "0 challenge 3")
    assert hand.result()["lives_lost"] == [0, 0, 0, 1]


def test_challenges_and_exchanges_may_interleave_during_the_laundry():
    hand = replay_actions(laundry_hand(), "3 exchange", "0 challenge 3", "1 exchange")
    assert observe(hand, 1).stock_count == 8


# -- clean and dirty ----------------------------------------------------------------------------


def test_challenging_a_clean_four_face_exchange_costs_the_challenger_a_life():
    hand = replay_actions(laundry_hand(FOUR_FACE), "3 exchange", "0 challenge 3")
    result = hand.result()
    assert result["lives_lost"] == [1, 0, 0, 0]
    assert result["lives"] == [9, 10, 10, 10]


def test_a_seven_makes_an_exchange_dirty_under_four_face():
    hand = replay_actions(laundry_hand(ONE_SEVEN), "3 exchange", "0 challenge 3")
    assert hand.result()["lives_lost"] == [0, 0, 0, 1]


def test_the_dirty_exchanger_keeps_her_new_cards():
    hand = replay_actions(laundry_hand(ONE_SEVEN), "3 exchange", "0 challenge 3")
    assert sorted(observe(hand, 3).hand) == sorted(cards(*NEW_CARDS))


@pytest.mark.parametrize(
    "laid, clean",
    [(FOUR_FACE, True), (ONE_SEVEN, True), (TWO_SEVENS, False), (AN_EIGHT, False)],
)
def test_face_and_one_seven_allows_at_most_one_seven_and_no_other_number(laid, clean):
    hand = laundry_hand(laid, clean_hand="face_and_one_seven")
    replay_actions(hand, "3 exchange", "1 challenge 3")
    assert hand.result()["lives_lost"] == ([0, 1, 0, 0] if clean else [0, 0, 0, 1])


@pytest.mark.parametrize("laid", [ONE_SEVEN, TWO_SEVENS, AN_EIGHT])
def test_four_face_calls_any_number_card_dirty(laid):
    hand = replay_actions(laundry_hand(laid), "3 exchange", "1 challenge 3")
    assert hand.result()["lives_lost"] == [0, 0, 0, 1]


def test_a_challenge_shows_the_laid_aside_cards_to_everyone():
    hand = replay_actions(laundry_hand(ONE_SEVEN), "3 exchange", "0 challenge 3")
    for seat in (0, 1, 2, 3, None):
        assert set(cards(*ONE_SEVEN)) <= observe(hand, seat).visible_cards()


def test_a_challenge_is_about_the_latest_exchange():
    # First laid aside: dirty (an 8). Second: the four faces taken the first time (clean).
    top = ("JH", "AH", "KS", "JS", "7H", "9H", "10H", "8S")
    hand = laundry_hand(AN_EIGHT, top=top, exchange_limit=2)
    replay_actions(hand, "3 exchange", "0 challenge 3")
    assert hand.result()["lives_lost"] == [0, 0, 0, 1]
    replay_actions(hand, "3 exchange", "1 challenge 3")
    assert hand.result()["lives_lost"] == [0, 1, 0, 1]


def test_a_player_cannot_challenge_her_own_exchange():
    hand = replay_actions(laundry_hand(), "3 exchange")
    assert refused(hand, "3 challenge 3") == "cannot_challenge"


def test_a_player_who_has_not_exchanged_cannot_be_challenged():
    hand = replay_actions(laundry_hand(), "3 exchange")
    assert refused(hand, "0 challenge 1") == "cannot_challenge"


def test_single_scoring_allows_one_challenge_per_exchange():
    hand = replay_actions(laundry_hand(ONE_SEVEN), "3 exchange", "0 challenge 3")
    assert refused(hand, "1 challenge 3") == "cannot_challenge"
    assert refused(hand, "0 challenge 3") == "cannot_challenge"


def test_each_challenger_settles_every_challenge_on_its_own_when_dirty():
    hand = laundry_hand(ONE_SEVEN, challenge_scoring="each_challenger")
    replay_actions(hand, "3 exchange", "0 challenge 3", "1 challenge 3", "2 challenge 3")
    assert hand.result()["lives_lost"] == [0, 0, 0, 3]


def test_each_challenger_settles_every_challenge_on_its_own_when_clean():
    hand = laundry_hand(FOUR_FACE, challenge_scoring="each_challenger")
    replay_actions(hand, "3 exchange", "0 challenge 3", "2 challenge 3")
    assert hand.result()["lives_lost"] == [1, 0, 1, 0]


def test_each_challenger_lets_every_other_player_challenge_only_once():
    hand = laundry_hand(ONE_SEVEN, challenge_scoring="each_challenger")
    replay_actions(hand, "3 exchange", "0 challenge 3")
    assert refused(hand, "0 challenge 3") == "cannot_challenge"


# -- dirty penalties ----------------------------------------------------------------------------


def test_dirty_penalty_life_shows_no_hand():
    hand = replay_actions(laundry_hand(ONE_SEVEN), "3 exchange", "0 challenge 3", "1 play 10S")
    assert observe(hand, None).open_hands == {}
    assert not set(cards(*NEW_CARDS)) & observe(hand, 0).visible_cards()


def test_dirty_penalty_open_hand_costs_no_life_and_shows_the_hand_to_everyone():
    hand = laundry_hand(ONE_SEVEN, dirty_penalty="open_hand")
    replay_actions(hand, "3 exchange", "0 challenge 3")
    assert hand.result()["lives_lost"] == [0, 0, 0, 0]
    for seat in (0, 1, 2, None):
        seen = observe(hand, seat)
        assert sorted(seen.open_hands[3]) == sorted(cards(*NEW_CARDS))
        assert set(cards(*NEW_CARDS)) <= seen.visible_cards()


def test_an_open_hand_stays_face_up_while_she_plays_it():
    hand = laundry_hand(ONE_SEVEN, dirty_penalty="open_hand")
    replay_actions(hand, "3 exchange", "0 challenge 3", "1 play 10S", "2 play 9S", "3 play JH")
    assert sorted(observe(hand, 1).open_hands[3]) == sorted(cards("AH", "9H", "10H"))


def test_dirty_penalty_life_and_open_hand_does_both():
    hand = laundry_hand(ONE_SEVEN, dirty_penalty="life_and_open_hand")
    replay_actions(hand, "3 exchange", "0 challenge 3")
    assert hand.result()["lives_lost"] == [0, 0, 0, 1]
    assert sorted(observe(hand, 2).open_hands[3]) == sorted(cards(*NEW_CARDS))


@pytest.mark.parametrize("penalty", ["open_hand", "life_and_open_hand"])
def test_a_clean_exchange_is_never_shown_face_up(penalty):
    hand = laundry_hand(FOUR_FACE, dirty_penalty=penalty)
    replay_actions(hand, "3 exchange", "0 challenge 3")
    assert observe(hand, None).open_hands == {}
    assert hand.result()["lives_lost"] == [1, 0, 0, 0]


# -- lives --------------------------------------------------------------------------------------


def test_a_player_buying_the_round_neither_exchanges_nor_challenges():
    # rules.md 3.8: the table makes no exchange or challenge for her, and she makes none.
    hand = build((*BASE, FOUR_FACE), immune=[0])
    replay_actions(hand, "3 exchange")
    for text in ("0 exchange", "0 exchange auto", "0 challenge 3", "0 challenge 3 auto"):
        assert refused(hand, text) == "immune"
    assert [a for a in hand.legal_actions(0) if a.act in ("exchange", "challenge")] == []
    replay_actions(hand, "1 challenge 3")
    assert hand.result()["lives_lost"] == [0, 1, 0, 0]


def test_a_challenge_cannot_take_a_player_below_zero_lives():
    hand = build(
        (*BASE, ONE_SEVEN),
        rules=rules(challenge_scoring="each_challenger"),
        lives=[10, 10, 10, 2],
    )
    replay_actions(hand, "3 exchange", "0 challenge 3", "1 challenge 3", "2 challenge 3")
    result = hand.result()
    assert result["lives"][3] == 0
    assert result["lives_lost"][3] == 2


def test_a_refused_knock_leaves_the_laundry_open():
    hand = build((*BASE, ONE_SEVEN), lives=[10, 10, 10, 1])
    assert refused(hand, "3 knock") == "cannot_knock"
    replay_actions(hand, "3 exchange", "0 challenge 3")
    assert hand.result()["lives_lost"] == [0, 0, 0, 1]


def test_a_copy_taken_in_the_laundry_is_independent():
    hand = replay_actions(laundry_hand(ONE_SEVEN), "3 exchange")
    twin = hand.copy()
    replay_actions(twin, "0 challenge 3", "1 play 10S")
    assert hand.result()["lives_lost"] == [0, 0, 0, 0]
    assert observe(hand, None).reveals == ()
    replay_actions(hand, "1 challenge 3")
    assert hand.result()["lives_lost"] == [0, 0, 0, 1]
