"""The engine's readings of points rules.md leaves open (docs/engine.md lists them)."""

from __future__ import annotations

import pytest

from games.engine import (
    Action,
    Hand,
    HouseRules,
    Rubber,
    RulesError,
    announce,
    card_from_token,
    challenge,
    exchange,
    fold,
    knock,
    observe,
    play,
    stay,
)
from tests.engine import helpers


def deal(
    hands: list[str],
    rules: HouseRules | None = None,
    lives: list[int] | None = None,
    dealer: int = 0,
    stock_top: str = "",
    immune: tuple[int, ...] = (),
) -> Hand:
    """A hand from readable hands ("8H QS AC 9D"); the stock: `stock_top`, then the rest."""
    return helpers.build(
        [hand.split() for hand in hands],
        rules=rules,
        lives=lives,
        dealer=dealer,
        immune=immune,
        top=stock_top.split(),
    )


def refused(hand: Hand, action: Action, code: str) -> None:
    assert helpers.refused(hand, action) == code


FOUR = ["8H QS AC 9D", "7S 10S KH JC", "9S 8C QH 10D", "AS 7C JD KC"]
POVERTY = HouseRules(poverty="stake_two")


def test_a_card_led_in_the_laundry_of_a_poverty_hand_waits_for_the_answers() -> None:
    hand = deal(FOUR, POVERTY, lives=[10, 10, 1, 10])
    refused(hand, play(1, "10S"), "answers_awaited")
    assert hand.laundry, "a refused action must not end the laundry"
    hand.apply(exchange(0))
    assert hand.result()["awaiting"] == []


def test_the_first_poverty_answer_ends_the_laundry() -> None:
    hand = deal(FOUR, POVERTY, lives=[10, 10, 1, 10])
    assert exchange(3) in hand.legal_actions(3)
    assert stay(3) in hand.legal_actions(3)
    hand.apply(stay(3))
    assert not hand.laundry
    refused(hand, exchange(0), "cannot_exchange")
    assert hand.result()["awaiting"] == [0, 1]


def test_folded_comes_before_answers_awaited_and_hand_over_before_all() -> None:
    hand = deal(FOUR)
    hand.apply(play(1, "10S")).apply(knock(2)).apply(fold(3))
    refused(hand, play(3, "AS"), "folded")
    refused(hand, play(2, "9S"), "answers_awaited")
    hand.apply(fold(0)).apply(fold(1))
    assert hand.complete
    refused(hand, knock(2), "hand_over")


def test_the_knocker_folding_on_her_own_knock_is_cannot_fold() -> None:
    hand = deal(FOUR)
    hand.apply(knock(1))
    refused(hand, fold(1), "cannot_fold")


def test_a_seat_that_already_answered_cannot_fold_as_an_answer() -> None:
    hand = deal(FOUR, HouseRules(response_order="simultaneous"))
    hand.apply(knock(1)).apply(stay(3))
    refused(hand, fold(3), "not_awaited")


def test_a_poor_player_folding_on_the_poverty_stake_is_not_awaited() -> None:
    hand = deal(FOUR, POVERTY, lives=[10, 10, 1, 10])
    hand.apply(stay(3))
    refused(hand, fold(2), "not_awaited")


def test_four_jacks_may_whistle_or_stand_and_three_jacks_only_whistle() -> None:
    hands = ["JC JD JH JS", "QC QD QH 8S", "KC KD KH 7S", "AC AD AH 9S"]
    hand = deal(hands, HouseRules(exchange=False))
    assert {a.kind for a in hand.legal_actions(0) if a.act == "announce"} == {"whistle", "stand"}
    three = deal(["JC JD JH 8S", "QC QD QH JS", "KC KD KH 7S", "AC AD AH 9S"])
    three.apply(play(1, "QC"))
    refused(three, announce(0, "stand"), "cannot_announce")
    three.apply(announce(0, "whistle"))
    assert three.result()["announcements"] == {"0": "whistle"}
    refused(three, announce(0, "whistle"), "cannot_announce")


def test_tens_are_announced_for_the_player_when_the_laundry_ends() -> None:
    hands = ["10C 10D 10H 8S", "QC QD QH JS", "KC KD KH 7S", "AC AD AH 9S"]
    hand = deal(hands)
    assert hand.result()["announcements"] == {}
    hand.apply(play(1, "QC"))
    assert hand.result()["announcements"] == {"0": "whistle"}
    refused(hand, announce(0, "stand"), "cannot_announce")


def test_the_open_hand_penalty_lasts_through_a_later_exchange() -> None:
    rules = HouseRules(dirty_penalty="open_hand", exchange_limit=2)
    hand = deal(FOUR, rules, stock_top="QC 9C 10C QD KD AD 7D 8D")
    hand.apply(exchange(3)).apply(challenge(0, 3))
    assert hand.lost == [0, 0, 0, 0]
    assert observe(hand, 1).open_hands == {3: tuple(hand.hands[3])}
    hand.apply(exchange(3))
    assert observe(hand, None).open_hands == {3: tuple(hand.hands[3])}
    assert hand.hands[3] == [card_from_token(t) for t in ["KD", "AD", "7D", "8D"]]


def test_out_lists_a_player_taken_to_zero_by_a_challenge_before_the_hand_ends() -> None:
    hand = deal(FOUR, lives=[1, 10, 10, 10], stock_top="QC 9C 10C QD")
    hand.apply(exchange(3)).apply(challenge(0, 3))
    # Seat 3 laid aside AS 7C JD KC: a 7, so not clean, and seat 3 pays.
    assert hand.result()["out"] == []
    clean = deal(
        ["JC JD QC KC", "7S 10S KH 8C", "9S 9C QH 10D", "AS 7C JS KD"], lives=[10, 1, 10, 10]
    )
    clean.apply(exchange(0)).apply(challenge(1, 0))
    assert clean.result()["lives"][1] == 0
    assert clean.result()["out"] == [1]
    assert not clean.complete
    refused(clean, knock(1), "cannot_knock")


def test_a_knock_by_a_player_buying_the_round_is_refused_for_that_before_anything_else() -> None:
    hand = deal(
        ["JC JD QC KC", "7S 10S KH 8C", "9S 9C QH 10D", "AS 7C JS KD"],
        lives=[10, 1, 10, 10],
        immune=(1,),
    )
    hand.apply(exchange(0)).apply(challenge(2, 0))
    assert hand.result()["lives_lost"] == [0, 0, 1, 0]
    # Her one life would refuse it too (knock_cap), but she makes no knock at all.
    refused(hand, knock(1), "immune")
    refused(hand, knock(1).as_auto(), "immune")
    assert hand.knock_refusal(1) is not None and hand.knock_refusal(1).code == "immune"


def finish_hand_with_winner(rubber: Rubber, winner: int) -> None:
    """Play the rubber's hand: everyone but `winner` (a rubber seat) folds on its knock."""
    hand = rubber.hand
    assert hand is not None
    seat = rubber.to_hand_seat(winner)
    assert seat is not None
    hand.apply(knock(seat))
    while not hand.complete:
        hand.apply(fold(hand.due()[0]))
    rubber.finish_hand()


def test_a_last_standing_rubber_with_fewer_players_than_min_players_ends_with_most_lives() -> None:
    rules = HouseRules(end_condition="last_standing", min_players=3, starting_lives=2)
    rubber = Rubber(rules, ["Ann", "Bram", "Cas"], dealer=0)
    rubber.lives = [2, 2, 1]
    rubber.deal(seed=1)
    finish_hand_with_winner(rubber, 0)  # Bram and Cas fold on the knock: 1 life each
    assert rubber.lives == [2, 1, 0]
    assert rubber.over
    assert rubber.winner == 0
    assert rubber.losers == (1, 2)


def test_first_out_losers_are_those_who_reached_zero_in_the_last_hand() -> None:
    rubber = Rubber(HouseRules(), ["Ann", "Bram", "Cas", "Dirk"], dealer=3)
    rubber.lives = [1, 1, 5, 5]
    rubber.deal(seed=2)
    finish_hand_with_winner(rubber, 2)
    assert rubber.over
    assert rubber.losers == (0, 1)
    assert rubber.lives == [0, 0, 5, 4]
    assert rubber.winner == 2  # the most lives left among those not out
    following = rubber.next_rubber()
    assert following.lives == [10, 10, 10, 10]
    assert following.dealer == 2


@pytest.mark.parametrize(
    ("data", "field", "code", "params"),
    [
        ([], None, "object", {}),
        ({"blind_knocks": True}, "blind_knocks", "unknown", {}),
        ({"starting_lives": None}, "starting_lives", "null", {}),
        ({"exchange": 1}, "exchange", "boolean", {"value": 1}),
        ({"poverty": "on"}, "poverty", "choice", {"value": "on"}),
        ({"exchange_limit": "2"}, "exchange_limit", "integer", {"value": "2"}),
        ({"starting_lives": 31}, "starting_lives", "range", {"minimum": 1, "maximum": 30}),
    ],
)
def test_a_bad_profile_says_which_field_what_kind_of_fault_and_its_values(
    data: object, field: str | None, code: str, params: dict
) -> None:
    with pytest.raises(RulesError) as caught:
        HouseRules.from_json(data)
    assert caught.value.field == field
    assert caught.value.code == code
    assert params.items() <= caught.value.params.items()
