"""The end of a hand: who wins, who pays, who deals next (rules.md 2, 3.7)."""

from __future__ import annotations

import pytest

from .helpers import STANDARD, STANDARD_PLAY, build, refused, replay_actions, rules

# Three players, dealer 0: seat 0 wins the first three tricks and leads 7D to the last one,
# which nobody else can follow.
LAST_LEAD = (("10C", "10S", "9C", "7D"), ("QS", "KC", "AC", "10H"), ("JC", "JS", "QC", "9H"))
TO_THE_LAST_TRICK = (
    "1 play QS", "2 play JS", "0 play 10S",
    "0 play 10C", "1 play KC", "2 play JC",
    "0 play 9C", "1 play AC", "2 play QC",
    "0 play 7D",
)  # fmt: skip
WITHOUT_SEAT_3 = tuple(a for a in STANDARD_PLAY if not a.startswith("3 "))
# seat 2 knocks, seat 0 (whose 7D will win the trick) folds, seat 1 stays.
FOLDED_LAST = (*TO_THE_LAST_TRICK, "2 knock", "0 fold", "1 stay", "1 play 10H", "2 play 9H")


def test_the_winner_of_the_last_trick_wins_and_the_others_lose_the_stake():
    result = replay_actions(build(STANDARD), *STANDARD_PLAY).result()
    assert result["complete"] is True
    assert result["winner"] == 2
    assert result["last_trick_winner"] == 2
    assert result["lives_lost"] == [1, 1, 0, 1]
    assert result["lives"] == [9, 9, 10, 9]
    assert result["to_play"] is None
    assert result["next_dealer"] == 2


def test_those_who_stay_to_the_end_lose_the_raised_stake_and_folders_only_their_fold():
    h = build(STANDARD)
    replay_actions(h, "2 knock", "3 fold", "0 stay", "1 stay")
    replay_actions(h, "0 knock", "1 stay", "2 stay")
    replay_actions(h, *WITHOUT_SEAT_3)
    result = h.result()
    assert result["stake"] == 3
    assert result["winner"] == 2
    assert result["lives_lost"] == [3, 3, 0, 1]


def test_an_unfinished_hand_has_no_winner_and_no_next_dealer():
    result = replay_actions(build(STANDARD), *STANDARD_PLAY[:15]).result()
    assert result["complete"] is False
    assert result["winner"] is None
    assert result["next_dealer"] is None
    assert result["last_trick_winner"] is None
    assert result["tricks"][3]["winner"] is None
    assert result["lives_lost"] == [0, 0, 0, 0]


def test_nothing_may_be_done_once_the_hand_is_over():
    h = replay_actions(build(STANDARD), *STANDARD_PLAY)
    for text in ("2 knock", "0 stay", "1 fold", "1 exchange", "2 announce whistle"):
        assert refused(h, text) == "hand_over"
    assert all(h.legal_actions(seat) == [] for seat in range(4))


# -- the winner of the last trick folded --------------------------------------------------------


def test_when_the_winner_of_the_last_trick_folded_nobody_wins_and_everyone_in_pays():
    result = replay_actions(build(LAST_LEAD), *FOLDED_LAST).result()
    assert result["complete"] is True
    assert result["winner"] is None
    assert result["last_trick_winner"] == 0
    assert result["tricks"][3]["winner"] == 0
    assert result["lives_lost"] == [1, 2, 2]
    assert result["folded"] == [0]


def test_when_nobody_won_the_last_tricks_winner_deals_next():
    result = replay_actions(build(LAST_LEAD), *FOLDED_LAST).result()
    assert result["next_dealer"] == 0


def test_without_folded_card_wins_the_last_trick_goes_to_a_player_still_in():
    h = build(LAST_LEAD, rules=rules(folded_card_wins=False))
    result = replay_actions(h, *FOLDED_LAST).result()
    assert result["winner"] == 1  # 10H: hearts rank highest among the cards still in
    assert result["last_trick_winner"] == 1
    assert result["lives_lost"] == [1, 0, 2]
    assert result["next_dealer"] == 1


def test_a_folded_last_trick_winner_who_went_out_does_not_deal_when_the_rubber_goes_on():
    h = build(LAST_LEAD, rules=rules(end_condition="last_standing"), lives=[1, 5, 5])
    result = replay_actions(h, *FOLDED_LAST).result()
    assert result["lives"] == [0, 3, 3]
    assert result["out"] == [0]
    assert result["next_dealer"] == 1


def test_under_first_out_the_next_dealer_is_not_skipped():
    h = build(LAST_LEAD, lives=[1, 5, 5])
    result = replay_actions(h, *FOLDED_LAST).result()
    assert result["out"] == [0]
    assert result["next_dealer"] == 0


def test_when_the_rubber_is_over_the_out_last_trick_winner_still_deals():
    h = build(LAST_LEAD, rules=rules(end_condition="last_standing"), lives=[1, 2, 2])
    result = replay_actions(h, *FOLDED_LAST).result()
    assert result["lives"] == [0, 0, 0]
    assert result["out"] == [0, 1, 2]
    assert result["next_dealer"] == 0


def test_the_deal_skips_every_out_seat_to_the_next_one_still_in():
    hands = (*STANDARD[:3], ("JD", "QD", "KD", "AD"))
    h = build(
        hands,
        rules=rules(end_condition="last_standing", knock_cap="none"),
        lives=[10, 1, 1, 10],
    )
    # seat 1 challenges a clean exchange and goes to 0, then wins by knocking; seat 2 folds to 0
    replay_actions(h, "3 exchange", "1 challenge 3", "1 knock", "2 fold", "3 fold", "0 fold")
    result = h.result()
    assert result["winner"] == 1
    assert result["out"] == [1, 2]
    assert result["next_dealer"] == 3


def test_under_first_out_an_out_winner_deals_next():
    hands = (*STANDARD[:3], ("JD", "QD", "KD", "AD"))
    h = build(hands, rules=rules(knock_cap="none"), lives=[10, 1, 1, 10])
    replay_actions(h, "3 exchange", "1 challenge 3", "1 knock", "2 fold", "3 fold", "0 fold")
    assert h.result()["next_dealer"] == 1


# -- lives --------------------------------------------------------------------------------------


def test_lives_never_go_below_zero():
    h = build(STANDARD, rules=rules(knock_cap="none"), lives=[1, 10, 10, 2])
    replay_actions(h, "2 knock", "3 stay", "0 stay", "1 stay")
    replay_actions(h, "1 knock", "2 stay", "3 stay", "0 stay", *STANDARD_PLAY)
    result = h.result()
    assert result["stake"] == 3
    assert result["lives_lost"] == [1, 3, 0, 2]
    assert result["lives"] == [0, 7, 10, 0]
    assert result["out"] == [0, 3]


def test_a_fold_cannot_take_a_player_below_zero():
    h = build(STANDARD, rules=rules(knock_cap="none"), lives=[10, 10, 10, 1])
    replay_actions(h, "2 knock", "3 stay", "0 stay", "1 stay", "0 knock", "1 stay", "2 stay")
    replay_actions(h, "3 fold")
    assert h.result()["lives"][3] == 0
    assert h.result()["lives_lost"][3] == 1


@pytest.mark.parametrize("immune", [[0], [0, 3]])
def test_immune_seats_lose_nothing(immune):
    h = build(STANDARD, immune=immune)
    texts = ["2 knock", "3 fold", "0 stay", "1 stay", *WITHOUT_SEAT_3]
    # The table answers and plays for a player buying the round (rules.md 3.8).
    texts = [f"{text} auto" if int(text.split()[0]) in immune else text for text in texts]
    result = replay_actions(h, *texts).result()
    expected = [2, 2, 0, 1]
    for seat in immune:
        expected[seat] = 0
    assert result["lives_lost"] == expected


def test_an_immune_player_the_table_folds_for_loses_nothing():
    h = build(STANDARD, immune=[3])
    replay_actions(h, "2 knock", "3 stay auto", "0 stay", "1 stay", "1 knock", "2 stay")
    replay_actions(h, "3 fold auto")
    assert h.result()["lives_lost"] == [0, 0, 0, 0]
    assert h.result()["folded"] == [3]
