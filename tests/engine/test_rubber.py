"""Rubbers: lives carried from hand to hand, the deal, and how a rubber ends (rules.md 2, 3.1)."""

from __future__ import annotations

import pytest

from games.engine import SIWWESCHROOM, EngineError, Rubber, RubberOver

from .helpers import STANDARD, build, refused, replay_actions, rules

PLAYERS = ["Ann", "Bram", "Cas", "Dirk"]
LAST_LEAD = (("10C", "10S", "9C", "7D"), ("QS", "KC", "AC", "10H"), ("JC", "JS", "QC", "9H"))
# Seat 0's 7D wins the last trick after she folded on seat 2's knock: nobody wins the hand.
FOLDED_LAST = (
    "1 play QS", "2 play JS", "0 play 10S",
    "0 play 10C", "1 play KC", "2 play JC",
    "0 play 9C", "1 play AC", "2 play QC",
    "0 play 7D", "2 knock", "0 fold", "1 stay", "1 play 10H", "2 play 9H",
)  # fmt: skip


def knock_and_all_fold(rubber: Rubber, knocker: int):
    """Deal a hand in which rubber seat `knocker` knocks and everyone else folds."""
    h = rubber.deal(seed=7)
    replay_actions(h, f"{rubber.to_hand_seat(knocker)} knock")
    while not h.complete:
        replay_actions(h, f"{h.result()['awaiting'][0]} fold")
    return rubber.finish_hand()


def rigged(rubber: Rubber, hands):
    """Deal the next hand, then swap its cards for `hands` (same seats, lives and dealer)."""
    dealt = rubber.deal(seed=1)
    lives = [rubber.lives[seat] for seat in rubber.hand_seats]
    rubber.hand = build(hands, rules=rubber.rules, lives=lives, dealer=dealt.dealer)
    return rubber.hand


def play_out(h):
    """Play a hand to its end with the first legal card, never knocking."""
    while not h.complete:
        seat = h.result()["to_play"]
        card = next(a for a in h.legal_actions(seat) if a.act == "play")
        h.apply(card)


def test_a_rubber_starts_everyone_at_starting_lives():
    rubber = Rubber(rules(starting_lives=15), PLAYERS)
    assert rubber.lives == [15, 15, 15, 15]
    h = rubber.deal(seed=3)
    assert h.result()["lives"] == [15, 15, 15, 15]


def test_the_first_dealer_is_chosen_at_random():
    dealers = {Rubber(rules(), PLAYERS).dealer for _ in range(60)}
    assert dealers <= {0, 1, 2, 3}
    assert len(dealers) > 1


def test_the_first_hand_is_dealt_by_the_first_dealer():
    rubber = Rubber(rules(), PLAYERS, dealer=2)
    assert rubber.deal(seed=3).dealer == 2


def test_lives_are_carried_over_from_hand_to_hand():
    rubber = Rubber(rules(), PLAYERS, dealer=0)
    knock_and_all_fold(rubber, 2)
    assert rubber.lives == [9, 9, 10, 9]
    knock_and_all_fold(rubber, 0)
    assert rubber.lives == [9, 8, 9, 8]
    assert rubber.deal(seed=5).result()["lives"] == [9, 8, 9, 8]


def test_the_winner_of_a_hand_deals_the_next():
    rubber = Rubber(rules(), PLAYERS, dealer=0)
    knock_and_all_fold(rubber, 3)
    assert rubber.deal(seed=5).dealer == 3


def test_the_deal_follows_the_winner_of_every_hand():
    rubber = Rubber(rules(), PLAYERS, dealer=1)
    h = rubber.deal(seed=0)
    for seed in range(1, 6):
        play_out(h)
        winner = rubber.hand_seats[h.result()["winner"]]
        rubber.finish_hand()
        assert rubber.over is False
        assert rubber.dealer == winner
        h = rubber.deal(seed=seed)
        assert h.players[h.dealer] == PLAYERS[winner]


def test_a_hand_cannot_be_dealt_before_the_last_one_is_finished():
    rubber = Rubber(rules(), PLAYERS, dealer=0)
    rubber.deal(seed=1)
    with pytest.raises(EngineError):
        rubber.deal(seed=2)


# -- first_out ----------------------------------------------------------------------------------


def test_first_out_ends_the_rubber_after_the_hand_in_which_someone_reaches_zero():
    rubber = Rubber(rules(), PLAYERS, dealer=0, lives=[10, 1, 10, 10])
    knock_and_all_fold(rubber, 2)
    assert rubber.over is True
    assert rubber.losers == (1,)
    with pytest.raises(RubberOver):
        rubber.deal(seed=2)


def test_first_out_goes_on_while_nobody_has_reached_zero():
    rubber = Rubber(rules(), PLAYERS, dealer=0, lives=[10, 2, 10, 10])
    knock_and_all_fold(rubber, 2)
    assert rubber.over is False
    assert len(rubber.deal(seed=2).players) == 4


def test_under_first_out_everyone_who_reached_zero_in_that_hand_has_lost():
    rubber = Rubber(rules(knock_cap="none"), PLAYERS[:3], dealer=0, lives=[1, 2, 5])
    rigged(rubber, LAST_LEAD)
    replay_actions(rubber.hand, *FOLDED_LAST)
    rubber.finish_hand()
    assert rubber.lives == [0, 0, 3]
    assert rubber.over is True
    assert set(rubber.losers) == {0, 1}
    assert rubber.winner == 2  # the most lives left, as the night counts it


def test_under_first_out_the_most_lives_left_wins_and_a_tie_names_nobody():
    rubber = Rubber(rules(), PLAYERS, dealer=0, lives=[3, 1, 3, 4])
    knock_and_all_fold(rubber, 0)  # each fold costs 1
    assert rubber.lives == [3, 0, 2, 3]
    assert rubber.over and rubber.losers == (1,) and rubber.winner is None  # 0 and 3 tie
    rubber = Rubber(rules(), PLAYERS, dealer=0, lives=[3, 1, 3, 4])
    knock_and_all_fold(rubber, 3)
    assert rubber.lives == [2, 0, 2, 4]
    assert rubber.over and rubber.losers == (1,) and rubber.winner == 3


# -- last_standing ------------------------------------------------------------------------------


def standing(**fields):
    return rules(end_condition="last_standing", min_players=2, **fields)


def test_under_last_standing_a_player_at_zero_leaves_and_the_rest_play_on():
    rubber = Rubber(standing(), PLAYERS, dealer=0, lives=[10, 1, 10, 10])
    knock_and_all_fold(rubber, 2)
    assert rubber.over is False
    h = rubber.deal(seed=2)
    assert h.players == ["Ann", "Cas", "Dirk"]
    assert h.result()["lives"] == [9, 10, 9]
    assert rubber.to_hand_seat(1) is None


def test_under_last_standing_the_last_player_with_lives_wins():
    rubber = Rubber(standing(), PLAYERS, dealer=0, lives=[2, 1, 10, 1])
    knock_and_all_fold(rubber, 2)  # Bram and Dirk go out; Ann is down to 1
    assert rubber.over is False
    assert rubber.lives == [1, 0, 10, 0]
    knock_and_all_fold(rubber, 2)  # a hand of two: Ann folds to 0
    assert rubber.over is True
    assert rubber.winner == 2


def test_lives_carry_over_by_rubber_seat_when_a_player_has_left():
    rubber = Rubber(standing(), PLAYERS, dealer=0, lives=[10, 1, 10, 10])
    knock_and_all_fold(rubber, 3)  # hand seats 0..3; seat 1 goes out
    knock_and_all_fold(rubber, 3)  # hand seats (0, 2, 3): Dirk is hand seat 2
    assert rubber.lives == [8, 0, 8, 10]


def test_when_the_winner_has_gone_out_the_deal_goes_to_the_next_seat_still_in():
    rubber = Rubber(standing(knock_cap="none"), PLAYERS, dealer=0, lives=[10, 1, 1, 10])
    h = rigged(rubber, (*STANDARD[:3], ("JD", "QD", "KD", "AD")))
    # Bram loses a clean challenge (0 lives), then wins the hand; Cas folds to 0.
    replay_actions(h, "3 exchange", "1 challenge 3", "1 knock", "2 fold", "3 fold", "0 fold")
    rubber.finish_hand()
    assert rubber.over is False
    assert rubber.dealer == 3
    h = rubber.deal(seed=4)
    assert h.players == ["Ann", "Dirk"]
    assert h.dealer == 1


def test_when_the_last_players_all_reach_zero_together_nobody_wins():
    rubber = Rubber(standing(knock_cap="none"), PLAYERS[:3], dealer=0, lives=[1, 1, 1])
    rigged(rubber, LAST_LEAD)
    replay_actions(rubber.hand, *FOLDED_LAST)
    rubber.finish_hand()
    assert rubber.lives == [0, 0, 0]
    assert rubber.over is True
    assert rubber.winner is None


# -- a new rubber -------------------------------------------------------------------------------


def test_a_new_rubber_starts_everyone_at_starting_lives_and_the_last_winner_deals():
    rubber = Rubber(rules(), PLAYERS, dealer=0, lives=[10, 1, 4, 10])
    knock_and_all_fold(rubber, 3)
    assert rubber.over is True
    new = rubber.next_rubber()
    assert new.lives == [10, 10, 10, 10]
    assert new.dealer == 3
    assert new.over is False
    assert new.deal(seed=9).dealer == 3


def test_a_new_rubber_seats_everyone_again_after_last_standing():
    rubber = Rubber(standing(starting_lives=7), PLAYERS, dealer=0, lives=[1, 1, 7, 1])
    knock_and_all_fold(rubber, 2)
    assert rubber.over is True
    assert rubber.winner == 2
    new = rubber.next_rubber()
    assert new.lives == [7, 7, 7, 7]
    h = new.deal(seed=1)
    assert h.players == PLAYERS
    assert h.dealer == 2


# reading: "the winner of the last hand deals" - when nobody won it, the winner of its last
# trick deals, as after any hand (3.7).
def test_a_new_rubber_after_a_hand_nobody_won_is_dealt_by_the_last_tricks_winner():
    rubber = Rubber(standing(knock_cap="none"), PLAYERS[:3], dealer=0, lives=[1, 1, 1])
    rigged(rubber, LAST_LEAD)
    replay_actions(rubber.hand, *FOLDED_LAST)
    rubber.finish_hand()
    assert rubber.next_rubber().dealer == 0


# -- slate rubbers (rules.md 3.9) ---------------------------------------------------------------


def slate_hand(rubber: Rubber, *actions: str):
    """Deal the rubber's next slate hand, play `actions` (in hand seats), finish it."""
    h = rubber.deal()
    assert h.slate
    replay_actions(h, *actions)
    return rubber.finish_hand()


def test_a_slate_rubber_deals_slate_hands_and_its_next_rubber_too():
    rubber = Rubber(rules(starting_lives=1), PLAYERS, dealer=1, slate=True)
    h = rubber.deal(seed=3)
    assert h.slate and h.dealer == 1 and h.record()["slate"] is True
    replay_actions(h, "2 last_trick")
    rubber.finish_hand()
    assert rubber.over and rubber.losers == (0, 1, 3)
    assert rubber.next_rubber().slate
    assert not Rubber(rules(), PLAYERS, dealer=1).deal(seed=3).slate


def test_siwweschrooms_seven_strokes_on_a_slate_to_the_last_one_standing():
    rubber = Rubber(SIWWESCHROOM, ["Anke", "Bernd", "Cas"], dealer=0, slate=True)
    assert rubber.lives == [7, 7, 7]
    # Bernd knocks, Anke stays, Cas folds (1); Anke knocks, Bernd stays; Anke's last trick.
    first = slate_hand(rubber, "1 knock", "0 stay", "2 fold", "0 knock", "1 stay", "0 last_trick")
    assert first.winner == 0 and rubber.lives == [7, 4, 6] and rubber.dealer == 0
    # Cas knocks, Anke folds (1), Bernd stays; Bernd knocks (3), Cas stays; Cas takes the
    # last trick. Bernd pays 3.
    slate_hand(rubber, "2 knock", "0 fold", "1 stay", "1 knock", "2 stay", "2 last_trick")
    assert rubber.lives == [6, 1, 6] and rubber.dealer == 2
    # Bernd's one life caps his knocks; Anke knocks (2), both stay, Cas takes the last
    # trick: Anke pays 2, Bernd his last life, and leaves the rubber.
    third = rubber.deal()
    assert refused(third, "1 knock") == "cannot_knock"
    replay_actions(third, "0 knock", "1 stay", "2 stay", "2 last_trick")
    outcome = rubber.finish_hand()
    assert outcome.went_out == (1,) and rubber.lives == [4, 0, 6]
    assert not rubber.over and rubber.dealer == 2
    # Two left: Anke and Cas are hand seats 0 and 1. Knock on knock to a stake of 4, all
    # Anke has; Cas takes the last trick, Anke is out, Cas stands last.
    fourth = rubber.deal()
    assert rubber.hand_seats == (0, 2) and fourth.dealer == 1 and fourth.n == 2
    replay_actions(fourth, "1 knock", "0 stay", "0 knock", "1 stay", "1 knock", "0 stay")
    replay_actions(fourth, "1 last_trick")
    rubber.finish_hand()
    assert rubber.lives == [0, 0, 6]
    assert rubber.over and rubber.winner == 2 and rubber.losers == (0, 1)
    following = rubber.next_rubber()
    assert following.slate and following.dealer == 2 and following.lives == [7, 7, 7]
