"""Knocking, answering a knock, and folding (rules.md 3.5)."""

from __future__ import annotations

import pytest

from .helpers import STANDARD, STANDARD_PLAY, build, refused, replay_actions, rules

TO_TRICK_FOUR = STANDARD_PLAY[:12]  # seat 2 leads the last trick: 2 8C, 3 KC, 0 AC, 1 JC


def hand(**fields):
    return build(STANDARD, rules=rules(**fields))


def acts(h):
    return [a.act for a in h]


def test_the_stake_starts_at_one():
    assert hand().result()["stake"] == 1


def test_a_knock_raises_the_stake_by_one():
    h = replay_actions(hand(), "2 knock")
    assert h.result()["stake"] == 2


def test_sequential_answers_start_to_the_knockers_left():
    h = replay_actions(hand(), "2 knock")
    assert h.result()["awaiting"] == [3, 0, 1]
    assert refused(h, "0 stay") == "not_your_turn"
    assert refused(h, "1 fold") == "not_your_turn"
    replay_actions(h, "3 stay", "0 stay", "1 stay")
    assert h.result()["awaiting"] == []


def test_only_the_seat_whose_answer_is_due_may_answer_when_sequential():
    h = replay_actions(hand(), "2 knock")
    assert set(acts(h.legal_actions(3))) == {"stay", "fold"}
    assert h.legal_actions(0) == []
    assert h.legal_actions(2) == []


def test_simultaneous_answers_come_in_any_order():
    h = replay_actions(hand(response_order="simultaneous"), "2 knock")
    assert h.result()["awaiting"] == [3, 0, 1]
    replay_actions(h, "1 stay", "3 fold")
    assert h.result()["awaiting"] == [0]
    replay_actions(h, "0 stay")
    assert h.result()["awaiting"] == []
    assert h.result()["folded"] == [3]


@pytest.mark.parametrize("order", ["sequential", "simultaneous"])
def test_a_stay_without_a_knock_is_not_awaited(order):
    h = replay_actions(hand(response_order=order), "1 play 10S")
    assert refused(h, "2 stay") == "not_awaited"


@pytest.mark.parametrize("order", ["sequential", "simultaneous"])
def test_the_knocker_does_not_answer_her_own_knock(order):
    h = replay_actions(hand(response_order=order), "2 knock")
    assert refused(h, "2 stay") == "not_awaited"


@pytest.mark.parametrize("order", ["sequential", "simultaneous"])
def test_a_player_answers_a_knock_only_once(order):
    h = replay_actions(hand(response_order=order), "2 knock", "3 stay")
    assert refused(h, "3 stay") == "not_awaited"


@pytest.mark.parametrize("order", ["sequential", "simultaneous"])
def test_nothing_else_happens_until_all_have_answered(order):
    h = replay_actions(hand(response_order=order), "2 knock", "3 stay")
    assert refused(h, "1 play 10S") == "answers_awaited"
    assert refused(h, "0 knock") == "answers_awaited"
    assert refused(h, "3 knock") == "answers_awaited"


def test_a_knock_may_come_out_of_turn_and_leaves_the_turn_where_it_was():
    h = replay_actions(hand(), "1 play 10S", "0 knock")
    assert h.result()["to_play"] == 2
    replay_actions(h, "1 stay", "2 stay", "3 stay")
    assert h.result()["to_play"] == 2


def test_folding_on_the_first_knock_costs_one_life():
    h = replay_actions(hand(), "2 knock", "3 fold")
    assert h.result()["lives_lost"] == [0, 0, 0, 1]


def test_folding_on_the_second_knock_costs_two_lives():
    h = replay_actions(hand(), "2 knock", "3 stay", "0 stay", "1 stay", "3 knock", "0 fold")
    assert h.result()["stake"] == 3
    assert h.result()["lives_lost"] == [2, 0, 0, 0]


def test_folding_on_the_third_knock_costs_three_lives():
    h = replay_actions(
        hand(),
        "2 knock", "3 stay", "0 stay", "1 stay",
        "3 knock", "0 stay", "1 stay", "2 stay",
        "0 knock", "1 fold",
    )  # fmt: skip
    assert h.result()["stake"] == 4
    assert h.result()["lives_lost"] == [0, 3, 0, 0]


def test_the_knocker_cannot_fold_on_her_own_knock():
    h = replay_actions(hand(), "2 knock")
    assert refused(h, "2 fold") == "cannot_fold"


def test_a_folded_player_cannot_knock():
    h = replay_actions(hand(), "2 knock", "3 fold", "0 stay", "1 stay")
    assert refused(h, "3 knock") == "folded"


def test_the_last_knocker_may_not_knock_again_until_someone_else_has():
    h = replay_actions(hand(), "2 knock", "3 stay", "0 stay", "1 stay")
    assert refused(h, "2 knock") == "cannot_knock"
    replay_actions(h, "0 knock", "1 stay", "2 stay", "3 stay", "2 knock")
    assert h.result()["stake"] == 4


def test_a_knock_needs_the_new_stake_within_the_knockers_lives():
    h = build(STANDARD, lives=[10, 10, 2, 10])
    replay_actions(h, "3 knock", "0 stay", "1 stay", "2 stay")
    assert refused(h, "2 knock") == "cannot_knock"


def test_a_knock_to_exactly_the_knockers_lives_is_allowed():
    h = replay_actions(build(STANDARD, lives=[10, 10, 2, 10]), "2 knock")
    assert h.result()["stake"] == 2


def test_a_player_on_her_last_life_cannot_knock_under_knock_cap_lives():
    h = build(STANDARD, lives=[10, 10, 1, 10])
    assert refused(h, "2 knock") == "cannot_knock"


def test_knock_cap_counts_the_lives_left_at_that_moment():
    h = build(STANDARD, lives=[10, 10, 10, 2])  # seat 3 holds a 7: a dirty exchange
    replay_actions(h, "3 exchange", "0 challenge 3")
    assert h.result()["lives"][3] == 1
    assert refused(h, "3 knock") == "cannot_knock"


def test_knock_cap_none_lets_a_player_knock_past_her_lives():
    h = build(STANDARD, rules=rules(knock_cap="none"), lives=[10, 10, 1, 10])
    replay_actions(h, "2 knock", "3 stay", "0 stay", "1 stay", "3 knock", "0 stay", "1 stay")
    replay_actions(h, "2 stay", "2 knock")
    assert h.result()["stake"] == 4


def test_max_knocks_per_player_limits_each_players_knocks():
    h = replay_actions(
        hand(max_knocks_per_player=1), "2 knock", "3 stay", "0 stay", "1 stay", "3 knock",
        "0 stay", "1 stay", "2 stay",
    )  # fmt: skip
    assert refused(h, "2 knock") == "cannot_knock"
    replay_actions(h, "0 knock")  # the limit is per player
    assert h.result()["stake"] == 4


def test_max_knocks_per_player_two_allows_a_second_knock_but_not_a_third():
    h = replay_actions(
        hand(max_knocks_per_player=2),
        "2 knock", "3 stay", "0 stay", "1 stay",
        "3 knock", "0 stay", "1 stay", "2 stay",
        "2 knock", "3 stay", "0 stay", "1 stay",
        "3 knock", "0 stay", "1 stay", "2 stay",
    )  # fmt: skip
    assert refused(h, "2 knock") == "cannot_knock"


def test_without_a_knock_limit_a_player_may_knock_again_and_again():
    h = hand()
    for _ in range(4):
        replay_actions(h, "2 knock", "3 stay", "0 stay", "1 stay")
        replay_actions(h, "3 knock", "0 stay", "1 stay", "2 stay")
    assert h.result()["stake"] == 9


def test_a_player_with_no_cards_left_may_knock():
    h = replay_actions(hand(), *TO_TRICK_FOUR, "2 play 8C")
    assert "knock" in acts(h.legal_actions(2))
    replay_actions(h, "2 knock")
    assert h.result()["awaiting"] == [3, 0, 1]


def test_no_knock_after_the_last_card_of_the_hand():
    h = replay_actions(hand(), *STANDARD_PLAY)
    assert refused(h, "0 knock") == "hand_over"


# -- a knock in the last trick ------------------------------------------------------------------


def test_a_knock_in_the_last_trick_with_sequential_answers():
    h = replay_actions(hand(), *TO_TRICK_FOUR, "2 play 8C", "3 play KC", "0 knock")
    result = h.result()
    assert result["awaiting"] == [1, 2, 3]
    assert result["to_play"] == 0
    assert refused(h, "3 fold") == "not_your_turn"
    replay_actions(h, "1 stay", "2 stay", "3 fold", "0 play AC", "1 play JC")
    result = h.result()
    assert result["complete"] is True
    assert result["winner"] == 2
    assert result["lives_lost"] == [2, 2, 0, 1]


def test_a_knock_in_the_last_trick_with_simultaneous_answers():
    h = hand(response_order="simultaneous")
    replay_actions(h, *TO_TRICK_FOUR, "2 play 8C", "3 play KC", "0 knock")
    replay_actions(h, "3 fold", "2 stay", "1 stay", "0 play AC", "1 play JC")
    result = h.result()
    assert result["winner"] == 2
    assert result["lives_lost"] == [2, 2, 0, 1]


@pytest.mark.parametrize(
    "order, answers",
    [("sequential", ["0 stay", "1 fold"]), ("simultaneous", ["1 fold"])],
)
def test_to_play_is_null_while_a_fully_played_trick_waits_for_answers(order, answers):
    h = hand(response_order=order)
    replay_actions(h, *TO_TRICK_FOUR, "2 play 8C", "3 play KC", "0 play AC", "3 knock", *answers)
    result = h.result()
    assert result["to_play"] is None
    assert 2 in result["awaiting"]
    assert result["tricks"][3]["winner"] is None
    assert result["complete"] is False
    replay_actions(h, *[f"{seat} stay" for seat in result["awaiting"]])
    result = h.result()
    assert result["complete"] is True
    assert result["tricks"][3]["winner"] == 2
    assert result["winner"] == 2
    assert result["lives_lost"] == [2, 1, 0, 2]


# -- the leader folds ---------------------------------------------------------------------------


def test_when_the_leader_folds_before_leading_the_next_seat_to_her_left_leads():
    h = replay_actions(hand(), "2 knock", "3 stay", "0 stay", "1 fold")
    assert h.result()["to_play"] == 2
    assert refused(h, "1 play 10S") == "folded"
    replay_actions(h, "2 play 9S", "3 play AS", "0 play QS")
    assert h.result()["tricks"][0]["leader"] == 2


def test_when_the_leader_and_her_left_neighbour_fold_the_lead_skips_both():
    h = replay_actions(hand(), "3 knock", "0 stay", "1 fold", "2 fold")
    assert h.result()["to_play"] == 3


# -- voluntary folds ----------------------------------------------------------------------------


def test_without_voluntary_fold_a_fold_outside_a_knock_is_refused():
    h = replay_actions(hand(), "1 play 10S")
    assert refused(h, "2 fold") == "cannot_fold"


def test_a_voluntary_fold_costs_the_current_stake():
    h = replay_actions(hand(voluntary_fold=True), "2 knock", "3 stay", "0 stay", "1 stay", "0 fold")
    assert h.result()["lives_lost"] == [2, 0, 0, 0]


def test_a_voluntary_fold_at_stake_one_costs_one_life():
    h = replay_actions(hand(voluntary_fold=True), "3 fold")
    assert h.result()["lives_lost"] == [0, 0, 0, 1]
    assert h.result()["folded"] == [3]


def test_the_last_knocker_cannot_fold_voluntarily():
    h = replay_actions(hand(voluntary_fold=True), "2 knock", "3 stay", "0 stay", "1 stay")
    assert refused(h, "2 fold") == "cannot_fold"


def test_once_someone_else_knocks_the_earlier_knocker_may_fold_voluntarily():
    h = replay_actions(
        hand(voluntary_fold=True),
        "2 knock", "3 stay", "0 stay", "1 stay",
        "3 knock", "0 stay", "1 stay", "2 stay",
        "2 fold",
    )  # fmt: skip
    assert h.result()["lives_lost"] == [0, 0, 3, 0]


# reading: while answers are awaited, a fold is an answer; from a seat whose answer is not
# (or no longer) due it is "a fold as an answer from a seat whose answer is not due".
def test_a_voluntary_fold_is_not_allowed_while_answers_are_awaited():
    h = replay_actions(
        hand(voluntary_fold=True, response_order="simultaneous"), "2 knock", "3 stay"
    )
    assert refused(h, "3 fold") == "not_awaited"


def test_a_voluntary_fold_by_the_last_to_play_settles_the_trick():
    h = replay_actions(hand(voluntary_fold=True), "1 play 10S", "2 play 9S", "3 play AS", "0 fold")
    result = h.result()
    assert result["tricks"][0]["winner"] == 1
    assert result["to_play"] == 1


def test_a_voluntary_fold_by_the_player_to_play_passes_the_turn_on():
    h = replay_actions(hand(voluntary_fold=True), "1 play 10S", "2 fold")
    assert h.result()["to_play"] == 3
