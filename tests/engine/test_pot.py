"""Playing for the pot: its house rules, buying back in, and who takes the pot (rules.md 3.10)."""

from __future__ import annotations

import pytest

from games.engine import HouseRules, Rubber, RulesError, replay
from games.engine.pot import BuyBackRefused, buy_back_refusal, pot_takers, shares, stakes

from .helpers import make_record, replay_actions, rules

PLAYERS = ["Ann", "Bram", "Cas", "Dirk"]


def pot_rules(**fields):
    return rules(end_condition="last_standing", pot_stake=250, buy_back=1, **fields)


def all_fold_to(rubber: Rubber, knocker: int):
    """A slate hand in which rubber seat `knocker` knocks and everyone else folds: each of
    them loses one life."""
    h = rubber.deal()
    replay_actions(h, f"{rubber.to_hand_seat(knocker)} knock")
    while not h.complete:
        replay_actions(h, f"{h.result()['awaiting'][0]} fold")
    return rubber.finish_hand()


# -- the house rules --------------------------------------------------------------------------


def test_no_pot_is_the_default_and_both_fields_go_to_and_from_json():
    assert HouseRules().pot_stake == 0 and HouseRules().buy_back == 0
    assert not HouseRules().pot
    profile = pot_rules()
    assert profile.to_json()["pot_stake"] == 250 and profile.to_json()["buy_back"] == 1
    assert HouseRules.from_json(profile.to_json()) == profile
    assert profile.changes() == {"end_condition": "last_standing", "pot_stake": 250, "buy_back": 1}


def test_a_pot_played_first_out_is_refused_naming_the_end_condition():
    with pytest.raises(RulesError) as caught:
        rules(pot_stake=100)
    assert caught.value.field == "end_condition" and caught.value.code == "pot_end"


def test_buying_back_in_without_a_pot_is_refused_naming_buy_back():
    with pytest.raises(RulesError) as caught:
        rules(end_condition="last_standing", buy_back=2)
    assert caught.value.field == "buy_back" and caught.value.code == "needs_pot"


@pytest.mark.parametrize(
    ("field", "value", "code"),
    [
        ("pot_stake", -1, "range"),
        ("pot_stake", 100_001, "range"),
        ("pot_stake", 2.5, "integer"),
        ("pot_stake", "250", "integer"),
        ("buy_back", 4, "range"),
        ("buy_back", True, "integer"),
        ("buy_back", None, "null"),
    ],
)
def test_a_bad_pot_value_is_refused_naming_its_field(field, value, code):
    data = {"end_condition": "last_standing", "pot_stake": 250, field: value}
    with pytest.raises(RulesError) as caught:
        HouseRules.from_json(data)
    assert caught.value.field == field and caught.value.code == code


# -- buying back in ---------------------------------------------------------------------------


def test_a_player_who_went_out_buys_back_in_with_the_fewest_lives_of_those_still_in():
    rubber = Rubber(pot_rules(), PLAYERS, dealer=0, lives=[3, 2, 4, 1], slate=True)
    assert rubber.pot == 1000
    all_fold_to(rubber, 0)
    assert rubber.lives == [3, 1, 3, 0] and rubber.went_out == (3,)
    assert rubber.buy_back_refusal(3) is None
    assert rubber.buy_back(3) == 1
    assert rubber.lives == [3, 1, 3, 1]
    assert rubber.buy_backs == [(3, 2)]  # before the rubber's second hand
    assert rubber.pot == 1250
    rubber.deal()
    assert rubber.hand_seats == (0, 1, 2, 3)


def refusal(rubber: Rubber, seat: int, **flags) -> str:
    lives, pot = list(rubber.lives), rubber.pot
    refused = rubber.buy_back_refusal(seat, **flags)
    assert refused is not None
    with pytest.raises(BuyBackRefused):
        rubber.buy_back(seat, **flags)
    assert rubber.lives == lives and rubber.pot == pot, "a refused buying back changed the rubber"
    return refused.code


def test_buying_back_in_is_refused_with_why_wherever_the_rules_do_not_allow_it():
    rubber = Rubber(pot_rules(), PLAYERS, dealer=0, lives=[3, 2, 4, 1], slate=True)
    all_fold_to(rubber, 0)
    assert refusal(rubber, 1) == "not_out"  # still in
    assert refusal(rubber, 3, bot=True) == "computer_player"
    assert refusal(rubber, 3, away=True) == "away"
    rubber.buy_back(3)
    assert refusal(rubber, 3) == "not_out"  # back in already
    rubber.deal()
    assert refusal(rubber, 3) == "not_between_hands"


def test_a_player_buys_back_in_at_most_buy_back_times_a_rubber():
    rubber = Rubber(pot_rules(), PLAYERS, dealer=0, lives=[9, 9, 9, 1], slate=True)
    all_fold_to(rubber, 0)
    assert rubber.buy_back(3) == 8
    for hand in range(8):
        all_fold_to(rubber, hand % 3)  # Dirk loses every hand, the others two in three
    assert not rubber.over
    assert rubber.lives[3] == 0 and rubber.went_out == (3,)
    assert refusal(rubber, 3) == "buy_backs_used"


def test_a_player_who_stayed_out_past_the_deal_may_not_buy_back_in_later():
    rubber = Rubber(pot_rules(), PLAYERS, dealer=0, lives=[5, 5, 5, 1], slate=True)
    all_fold_to(rubber, 0)
    all_fold_to(rubber, 0)  # she stayed out: the next hand went on without her
    assert rubber.went_out == ()
    assert refusal(rubber, 3) == "not_out"


def test_buying_back_in_needs_two_other_players_still_in():
    ask = {"buy_back": 3, "bought": 0, "over": False, "between_hands": True}
    assert buy_back_refusal(lives=[5, 0, 0, 2], went_out=[1, 2], seat=1, **ask) is None
    refused = buy_back_refusal(lives=[5, 0, 0, 0], went_out=[1, 2, 3], seat=1, **ask)
    assert refused is not None and refused.code == "too_few_left"


def test_players_who_went_out_together_may_each_buy_back_in_before_the_deal():
    profile = rules(end_condition="last_standing", min_players=2, pot_stake=100, buy_back=3)
    rubber = Rubber(profile, PLAYERS, dealer=0, lives=[5, 1, 2, 1], slate=True)
    all_fold_to(rubber, 0)  # Bram and Dirk go out; Ann and Cas are still in
    assert rubber.buy_back(1) == 1
    assert rubber.buy_back(3) == 1
    assert rubber.lives == [5, 1, 1, 1] and rubber.pot == 600
    all_fold_to(rubber, 0)  # all three out: only Ann is in, and the rubber is over
    assert rubber.over and refusal(rubber, 1) == "rubber_over"


def test_two_left_of_three_stops_a_rubber_under_min_players_three_so_nobody_buys_back():
    rubber = Rubber(pot_rules(), ["Ann", "Bram", "Cas"], dealer=0, lives=[3, 3, 1], slate=True)
    all_fold_to(rubber, 0)
    assert rubber.over
    assert refusal(rubber, 2) == "rubber_over"


def test_rules_without_buying_back_refuse_it():
    profile = rules(end_condition="last_standing", pot_stake=100)
    rubber = Rubber(profile, PLAYERS, dealer=0, lives=[3, 3, 3, 1], slate=True)
    all_fold_to(rubber, 0)
    assert refusal(rubber, 3) == "no_buy_back"


# -- who takes the pot ------------------------------------------------------------------------


def test_the_last_player_still_in_takes_the_whole_pot_buy_backs_included():
    rubber = Rubber(pot_rules(min_players=2), PLAYERS, dealer=0, lives=[9, 2, 1, 1], slate=True)
    all_fold_to(rubber, 0)
    rubber.buy_back(2)
    rubber.buy_back(3)
    while not rubber.over:
        all_fold_to(rubber, 0)
    assert rubber.winner == 0 and rubber.pot_takers == (0,)
    assert rubber.pot == 6 * 250
    assert rubber.pot_shares() == {0: 1500}


def test_the_last_players_out_together_share_the_pot_the_odd_cent_left_of_the_dealer():
    profile = rules(end_condition="last_standing", min_players=2, voluntary_fold=True, pot_stake=1)
    # Dirk is out already: the pot holds his cent too.
    rubber = Rubber(profile, PLAYERS, dealer=1, lives=[1, 1, 1, 0], slate=True)
    h = rubber.deal()
    # Bram folds of his own accord and then the last trick is named his (a folded card
    # wins it): nobody wins the hand, and Ann and Cas lose the stake with him.
    replay_actions(h, f"{rubber.to_hand_seat(1)} fold", f"{rubber.to_hand_seat(1)} last_trick")
    rubber.finish_hand()
    assert rubber.over and rubber.winner is None
    assert rubber.pot_takers == (2, 0, 1)  # from the dealer's (Bram's) left: Cas, Ann, Bram
    assert rubber.pot_shares() == {2: 2, 0: 1, 1: 1}
    assert sum(rubber.pot_shares().values()) == rubber.pot == 4


def test_a_rubber_without_a_pot_has_no_takers():
    rubber = Rubber(rules(end_condition="last_standing"), PLAYERS, dealer=0, slate=True)
    rubber.lives = [3, 1, 1, 1]
    all_fold_to(rubber, 0)
    assert rubber.over and rubber.pot == 0 and rubber.pot_takers == ()


def test_the_next_rubber_starts_with_no_buy_backs():
    rubber = Rubber(pot_rules(), PLAYERS, dealer=0, lives=[9, 2, 2, 1], slate=True)
    all_fold_to(rubber, 0)
    rubber.buy_back(3)
    while not rubber.over:
        all_fold_to(rubber, 0)
    after = rubber.next_rubber()
    assert after.buy_backs == [] and after.pot == 1000 and after.pot_takers == ()


def test_stakes_and_shares_count_every_cent_once():
    assert stakes(250, 4, [3, 3, 1]) == [250, 500, 250, 750]
    assert pot_takers(4, 3, None, [3, 1, 2]) == (1, 2, 3)
    assert shares(7, (2, 0, 1)) == {2: 3, 0: 2, 1: 2}
    assert shares(0, ()) == {}


# -- hand records -----------------------------------------------------------------------------


def test_a_hand_of_a_pot_rubber_carries_the_pot_rules_and_replays_as_any_other():
    rubber = Rubber(pot_rules(), PLAYERS, dealer=0, lives=[3, 2, 4, 1], slate=True)
    all_fold_to(rubber, 0)
    rubber.buy_back(3)
    record = rubber.deal().record()
    assert record["rules"]["pot_stake"] == 250 and record["rules"]["buy_back"] == 1
    assert record["lives"] == [3, 1, 3, 1]  # her lives as she bought them, at the deal
    assert replay(record)["error"] is None


def test_a_record_with_a_pot_played_first_out_is_a_bad_record_naming_the_field():
    record = make_record(rules={"pot_stake": 250})
    result = replay(record)
    assert result["error"]["code"] == "bad_record"
    assert "end_condition" in result["error"]["message"]
    record = make_record(rules={"end_condition": "last_standing", "buy_back": 1})
    assert "buy_back" in replay(record)["error"]["message"]
