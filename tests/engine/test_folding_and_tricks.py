"""Tricks, following suit, and what a fold does to the play (rules.md 3.4, 3.5)."""

from __future__ import annotations

import pytest

from games.engine import card_from_token, observe

from .helpers import STANDARD, build, refused, replay_actions, rules

# Three players, dealer 0: seat 1 leads 10C, then folds on seat 0's knock.
VOID_IN_CLUBS = (
    ("JS", "8D", "9D", "QS"),
    ("10C", "8H", "9H", "AS"),
    ("7D", "JH", "QH", "KS"),
)
ONE_FOLLOWS = (
    ("10H", "JS", "8D", "9D"),
    ("10C", "8H", "9H", "AS"),
    ("JC", "QH", "KS", "7D"),
)


def test_the_player_left_of_the_dealer_leads_the_first_trick():
    h = build(STANDARD, dealer=3)
    assert h.result()["to_play"] == 0
    assert refused(h, "1 play 10S") == "not_your_turn"
    replay_actions(h, "0 play QS")
    assert h.result()["tricks"][0]["leader"] == 0


def test_play_passes_to_the_left():
    h = replay_actions(build(STANDARD), "1 play 10S")
    assert h.result()["to_play"] == 2
    assert refused(h, "3 play AS") == "not_your_turn"
    assert refused(h, "0 play QS") == "not_your_turn"


def test_a_player_holding_the_suit_led_must_follow_it():
    h = replay_actions(build(STANDARD), "1 play 10S")
    assert refused(h, "2 play QH") == "must_follow_suit"
    assert {a.card for a in h.legal_actions(2) if a.act == "play"} == {card_from_token("9S")}


def test_a_player_without_the_suit_led_may_play_any_card():
    h = replay_actions(build(STANDARD), "1 play 10S", "2 play 9S", "3 play AS", "0 play QS")
    replay_actions(h, "1 play KH", "2 play QH", "3 play JD")  # seat 3 has no hearts
    assert h.result()["tricks"][1]["plays"][2] == [3, "JD"]


def test_a_player_can_play_only_a_card_she_holds():
    h = build(STANDARD)
    assert refused(h, "1 play 9S") == "card_not_in_hand"


def test_the_highest_card_of_the_suit_led_wins_and_its_player_leads_next():
    h = replay_actions(build(STANDARD), "1 play 10S", "2 play 9S", "3 play AS", "0 play QS")
    assert h.result()["tricks"][0]["winner"] == 1
    assert h.result()["to_play"] == 1
    replay_actions(h, "1 play KH", "2 play QH", "3 play JD", "0 play 8H")
    assert h.result()["tricks"][1]["winner"] == 0
    assert h.result()["to_play"] == 0


def test_a_two_player_hand_alternates_the_cards():
    hands = (("10C", "9D", "8H", "JS"), ("7C", "AD", "KH", "QS"))
    h = build(hands, rules=rules(min_players=2))
    replay_actions(h, "1 play 7C", "0 play 10C", "0 play 9D", "1 play AD")
    assert [t["winner"] for t in h.result()["tricks"]] == [0, 0]


# -- folded players -----------------------------------------------------------------------------


def test_a_folded_player_plays_no_more_cards():
    h = replay_actions(build(STANDARD), "2 knock", "3 fold", "0 stay", "1 stay")
    replay_actions(h, "1 play 10S", "2 play 9S")
    assert h.result()["to_play"] == 0  # seat 3 is skipped
    assert refused(h, "3 play AS") == "folded"
    replay_actions(h, "0 play QS")
    assert h.result()["tricks"][0]["winner"] == 1


def test_a_folders_cards_go_out_of_play_face_down():
    h = replay_actions(build(STANDARD), "2 knock", "3 fold")
    held = {card_from_token(c) for c in STANDARD[3]}
    for seat in (0, 1, 2, None):
        assert not held & observe(h, seat).visible_cards()
    # reading: cards out of play are no longer in the folder's hand
    assert not observe(h, 3).hand


def test_a_folded_card_wins_the_trick_when_folded_card_wins():
    h = build(VOID_IN_CLUBS)
    replay_actions(h, "1 play 10C", "2 play 7D", "0 knock", "1 fold", "2 stay", "0 play JS")
    result = h.result()
    assert result["tricks"][0]["winner"] == 1
    # the lead passes to the next seat to her left who has not folded
    assert result["to_play"] == 2


def test_without_folded_card_wins_the_highest_of_the_suit_led_among_those_in_wins():
    h = build(ONE_FOLLOWS, rules=rules(folded_card_wins=False))
    replay_actions(h, "1 play 10C", "2 play JC", "0 knock", "1 fold", "2 stay", "0 play 10H")
    assert h.result()["tricks"][0]["winner"] == 2
    assert h.result()["to_play"] == 2


def test_with_folded_card_wins_the_same_trick_goes_to_the_folded_ten():
    h = build(ONE_FOLLOWS)
    replay_actions(h, "1 play 10C", "2 play JC", "0 knock", "1 fold", "2 stay", "0 play 10H")
    assert h.result()["tricks"][0]["winner"] == 1


@pytest.mark.parametrize("order, winner", [("HSDC", 0), ("HDSC", 2)])
def test_when_nobody_in_followed_suit_the_suit_order_decides(order, winner):
    h = build(VOID_IN_CLUBS, rules=rules(folded_card_wins=False, suit_order=order))
    replay_actions(h, "1 play 10C", "2 play 7D", "0 knock", "1 fold", "2 stay", "0 play JS")
    assert h.result()["tricks"][0]["winner"] == winner
    assert h.result()["to_play"] == winner


def test_the_default_suit_order_puts_spades_above_diamonds():
    h = build(VOID_IN_CLUBS, rules=rules(folded_card_wins=False))
    replay_actions(h, "1 play 10C", "2 play 7D", "0 knock", "1 fold", "2 stay", "0 play JS")
    assert h.result()["tricks"][0]["winner"] == 0


@pytest.mark.parametrize("order", ["HSDC", "HDSC"])
def test_hearts_rank_above_every_other_suit_in_both_orders(order):
    h = build(VOID_IN_CLUBS, rules=rules(folded_card_wins=False, suit_order=order))
    replay_actions(h, "1 play 10C", "2 play JH", "0 knock", "1 fold", "2 stay", "0 play QS")
    assert h.result()["tricks"][0]["winner"] == 2


@pytest.mark.parametrize("order", ["HSDC", "HDSC"])
def test_among_cards_of_the_highest_suit_the_highest_card_wins(order):
    h = build(VOID_IN_CLUBS, rules=rules(folded_card_wins=False, suit_order=order))
    replay_actions(h, "1 play 10C", "2 play KS", "0 knock", "1 fold", "2 stay", "0 play JS")
    assert h.result()["tricks"][0]["winner"] == 2


def test_when_the_trick_winner_folds_the_next_seat_to_her_left_leads():
    h = replay_actions(
        build(STANDARD, rules=rules(voluntary_fold=True)),
        "1 play 10S", "2 play 9S", "3 play AS", "0 play QS", "1 fold",
    )  # fmt: skip
    result = h.result()
    assert result["tricks"][0]["winner"] == 1
    assert result["to_play"] == 2


# -- all but one folded -------------------------------------------------------------------------


def test_when_all_but_one_fold_she_wins_at_once_and_loses_nothing():
    h = replay_actions(build(STANDARD), "1 play 10S", "2 knock", "3 fold", "0 fold", "1 fold")
    result = h.result()
    assert result["complete"] is True
    assert result["winner"] == 2
    assert result["lives_lost"] == [1, 1, 0, 1]
    assert result["to_play"] is None
    assert result["awaiting"] == []
    assert result["next_dealer"] == 2


def test_when_all_but_one_fold_voluntarily_she_wins_at_once():
    h = replay_actions(
        build(STANDARD[:3], rules=rules(voluntary_fold=True)), "1 play 10S", "2 fold", "0 fold"
    )
    result = h.result()
    assert result["complete"] is True
    assert result["winner"] == 1
    assert result["lives_lost"] == [1, 0, 1]
    assert result["last_trick_winner"] is None


def test_simultaneous_folds_in_any_order_leave_the_knocker_the_winner():
    h = replay_actions(
        build(STANDARD, rules=rules(response_order="simultaneous")),
        "2 knock", "3 fold", "1 fold", "0 fold",
    )  # fmt: skip
    assert h.result()["complete"] is True
    assert h.result()["winner"] == 2
    assert refused(h, "2 play 9S") == "hand_over"


def test_a_spectator_sees_no_card_in_anyones_hand():
    h = replay_actions(build(STANDARD), "1 play 10S", "2 play 9S")
    seen = observe(h, None)
    assert seen.hand is None
    assert seen.visible_cards() == {card_from_token("10S"), card_from_token("9S")}


def test_a_player_sees_her_own_hand_and_the_table_only():
    h = replay_actions(build(STANDARD), "1 play 10S")
    seen = observe(h, 2)
    own = {card_from_token(c) for c in STANDARD[2]}
    assert set(seen.hand) == own
    assert seen.visible_cards() == own | {card_from_token("10S")}
