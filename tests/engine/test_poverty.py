"""Poverty: a hand with a player on her last life starts at stake 2 (rules.md 3.3)."""

from __future__ import annotations

import pytest

from .helpers import STANDARD, build, refused, replay_actions, rules

FIFTH = ("JH", "AH", "7H", "9H")
FIVE = (*STANDARD, FIFTH)


def poor_seat_two(poverty="stake_two", **fields):
    """Four players, dealer 0, seat 2 on her last life: answers come from 3, 0, 1."""
    return build(STANDARD, rules=rules(poverty=poverty, **fields), lives=[10, 10, 1, 10])


def test_with_poverty_off_a_player_on_her_last_life_is_not_poor():
    hand = build(STANDARD, lives=[10, 10, 1, 10])
    assert hand.result()["stake"] == 1
    replay_actions(hand, "1 play 10S")
    assert hand.result()["awaiting"] == []


@pytest.mark.parametrize("poverty", ["stake_two", "stake_two_poor_leads"])
def test_a_poor_player_starts_the_hand_at_stake_two(poverty):
    assert poor_seat_two(poverty).result()["stake"] == 2


def test_a_player_with_two_lives_is_not_poor():
    hand = build(STANDARD, rules=rules(poverty="stake_two"), lives=[10, 10, 2, 10])
    assert hand.result()["stake"] == 1


def test_when_every_player_is_poor_the_hand_is_no_poverty_hand():
    hand = build(STANDARD[:3], rules=rules(poverty="stake_two", knock_cap="none"), lives=[1, 1, 1])
    assert hand.result()["stake"] == 1
    replay_actions(hand, "2 knock")  # "may not knock in that hand" is about a poverty hand
    assert hand.result()["stake"] == 2


def test_the_poverty_answers_are_not_due_during_the_laundry():
    hand = poor_seat_two()
    assert hand.result()["awaiting"] == []
    replay_actions(hand, "3 exchange")
    assert hand.result()["awaiting"] == []


def test_the_poverty_answers_fall_due_when_the_laundry_ends():
    hand = replay_actions(poor_seat_two(), "3 stay")
    assert hand.result()["awaiting"] == [0, 1]
    assert refused(hand, "3 exchange") == "cannot_exchange"


def test_a_card_before_the_poverty_answers_is_refused():
    hand = poor_seat_two()
    assert refused(hand, "1 play 10S") == "answers_awaited"
    replay_actions(hand, "3 exchange")  # the refused card did not end the laundry


def test_a_knock_before_the_poverty_answers_is_refused():
    hand = replay_actions(poor_seat_two(), "3 stay")
    assert refused(hand, "0 knock") == "answers_awaited"


def test_with_exchange_off_the_poverty_answers_are_due_at_the_deal():
    hand = poor_seat_two(exchange=False)
    assert hand.result()["awaiting"] == [3, 0, 1]


def test_poverty_answers_are_counted_from_the_left_of_the_poor_player():
    hand = poor_seat_two(exchange=False)
    assert refused(hand, "0 stay") == "not_your_turn"
    assert refused(hand, "1 fold") == "not_your_turn"
    replay_actions(hand, "3 stay", "0 stay", "1 stay")
    assert hand.result()["awaiting"] == []
    assert hand.result()["to_play"] == 1


def test_poverty_answers_may_come_in_any_order_when_simultaneous():
    hand = poor_seat_two(exchange=False, response_order="simultaneous")
    replay_actions(hand, "1 stay", "3 fold", "0 stay")
    assert hand.result()["awaiting"] == []
    assert hand.result()["folded"] == [3]


def test_folding_on_the_poverty_stake_costs_one_life():
    hand = replay_actions(poor_seat_two(), "3 fold")
    assert hand.result()["lives_lost"] == [0, 0, 0, 1]


def test_a_poor_player_may_not_fold_on_the_poverty_stake():
    hand = replay_actions(poor_seat_two(), "3 stay")
    assert refused(hand, "2 fold") == "not_awaited"


def test_a_poor_player_gives_no_answer_to_the_poverty_stake():
    hand = replay_actions(poor_seat_two(), "3 stay")
    assert refused(hand, "2 stay") == "not_awaited"


def test_a_poor_player_may_not_knock_in_a_poverty_hand():
    hand = replay_actions(poor_seat_two(knock_cap="none"), "3 stay", "0 stay", "1 stay")
    assert refused(hand, "2 knock") == "cannot_knock"
    replay_actions(hand, "1 play 10S")
    assert refused(hand, "2 knock") == "cannot_knock"


def test_the_poverty_stake_makes_nobody_the_last_knocker():
    hand = replay_actions(poor_seat_two(), "3 stay", "0 stay", "1 stay")
    for seat in (0, 1, 3):
        assert "knock" in [a.act for a in hand.legal_actions(seat)]
    replay_actions(hand, "3 knock")
    assert hand.result()["stake"] == 3
    assert hand.result()["awaiting"] == [0, 1, 2]


def test_folding_on_the_first_knock_after_the_poverty_stake_costs_two():
    hand = replay_actions(poor_seat_two(), "3 stay", "0 stay", "1 stay", "3 knock", "0 fold")
    assert hand.result()["lives_lost"] == [2, 0, 0, 0]


def test_a_player_with_two_lives_cannot_knock_the_poverty_stake_to_three():
    hand = build(STANDARD, rules=rules(poverty="stake_two"), lives=[2, 10, 1, 10])
    replay_actions(hand, "3 stay", "0 stay", "1 stay")
    assert refused(hand, "0 knock") == "cannot_knock"


def test_when_every_player_who_is_not_poor_folds_the_poor_player_wins_at_once():
    hand = replay_actions(poor_seat_two(), "3 fold", "0 fold", "1 fold")
    result = hand.result()
    assert result["complete"] is True
    assert result["winner"] == 2
    assert result["lives_lost"] == [1, 1, 0, 1]
    assert result["next_dealer"] == 2


def test_with_stake_two_the_player_left_of_the_dealer_leads():
    hand = replay_actions(poor_seat_two("stake_two"), "3 stay", "0 stay", "1 stay")
    assert hand.result()["to_play"] == 1
    replay_actions(hand, "1 play 10S")


def test_with_stake_two_poor_leads_the_poor_player_leads():
    hand = replay_actions(poor_seat_two("stake_two_poor_leads"), "3 stay", "0 stay", "1 stay")
    assert hand.result()["to_play"] == 2
    assert refused(hand, "1 play 10S") == "not_your_turn"
    replay_actions(hand, "2 play 9S", "3 play AS")


def test_to_play_names_the_leader_while_the_poverty_answers_are_awaited():
    hand = replay_actions(poor_seat_two("stake_two_poor_leads"), "3 stay")
    assert hand.result()["to_play"] == 2


def test_when_the_leader_folds_on_the_poverty_stake_the_next_seat_leads():
    hand = replay_actions(poor_seat_two("stake_two"), "3 stay", "0 stay", "1 fold")
    assert hand.result()["to_play"] == 2


# reading: "the first poor player to the left of the dealer" may be the dealer herself when she
# is the only one poor (the search goes round the table).
def test_a_poor_dealer_leads_under_stake_two_poor_leads():
    hand = build(STANDARD, rules=rules(poverty="stake_two_poor_leads"), lives=[1, 10, 10, 10])
    replay_actions(hand, "1 stay", "2 stay", "3 stay")
    assert hand.result()["to_play"] == 0


# reading: "exactly 1 life left at the deal" - a life lost in the laundry makes nobody poor.
def test_poverty_is_decided_at_the_deal():
    hand = build(
        (*STANDARD[:3], ("AS", "7C", "JD", "KC")),
        rules=rules(poverty="stake_two"),
        lives=[10, 10, 10, 2],
    )
    replay_actions(hand, "3 exchange", "0 challenge 3", "1 play 10S")
    assert hand.result()["stake"] == 1
    assert hand.result()["awaiting"] == []


# -- two poor players ---------------------------------------------------------------------------


def test_with_two_poor_players_answers_start_left_of_the_first_poor_after_the_dealer():
    hand = build(
        FIVE, rules=rules(poverty="stake_two", exchange=False), lives=[10, 1, 10, 10, 1], dealer=3
    )
    # the first poor player after dealer 3 is seat 4, not seat 1
    assert hand.result()["awaiting"] == [0, 2, 3]
    assert refused(hand, "2 stay") == "not_your_turn"


def test_a_poor_dealer_comes_last_when_another_player_is_poor():
    hand = build(
        FIVE,
        rules=rules(poverty="stake_two_poor_leads", exchange=False),
        lives=[10, 1, 10, 10, 1],
        dealer=1,
    )
    assert hand.result()["awaiting"] == [0, 2, 3]
    replay_actions(hand, "0 stay", "2 stay", "3 stay")
    assert hand.result()["to_play"] == 4


def test_two_poor_players_lead_from_the_first_after_the_dealer():
    hand = build(
        FIVE,
        rules=rules(poverty="stake_two_poor_leads", exchange=False),
        lives=[10, 1, 10, 10, 1],
        dealer=3,
    )
    replay_actions(hand, "0 stay", "2 stay", "3 stay")
    assert hand.result()["to_play"] == 4


def test_two_poor_players_play_it_out_when_everyone_else_folds():
    hand = build(FIVE, rules=rules(poverty="stake_two"), lives=[10, 10, 1, 10, 1])
    replay_actions(hand, "3 fold", "0 fold", "1 fold")
    result = hand.result()
    assert result["complete"] is False
    assert result["to_play"] == 2  # seat 1 would lead, but has folded
    replay_actions(
        hand,
        "2 play 9S", "4 play JH",
        "2 play 8C", "4 play AH",
        "2 play QH", "4 play 7H",
        "4 play 9H", "2 play 10D",
    )  # fmt: skip
    result = hand.result()
    assert result["complete"] is True
    assert result["winner"] == 4
    assert result["stake"] == 2
    assert result["lives_lost"] == [1, 1, 1, 1, 0]  # seat 2 owes 2 but has only 1
    assert result["lives"] == [9, 9, 0, 9, 1]
    assert result["out"] == [2]


def test_two_poor_players_may_not_knock_while_playing_it_out():
    hand = build(FIVE, rules=rules(poverty="stake_two", knock_cap="none"), lives=[10, 10, 1, 10, 1])
    replay_actions(hand, "3 fold", "0 fold", "1 fold")
    assert refused(hand, "4 knock") == "cannot_knock"
    assert refused(hand, "2 knock") == "cannot_knock"
