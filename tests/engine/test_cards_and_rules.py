"""Cards and tokens (rules.md 1) and house-rule profiles (rules.md 4)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from games.engine import (
    KROEG,
    SIWWESCHROOM,
    TOKENS,
    TOURNAMENT,
    CardError,
    Hand,
    HouseRules,
    RulesError,
    card_from_token,
    token,
)

from .helpers import build, replay_actions

RANKS = ("J", "Q", "K", "A", "7", "8", "9", "10")
SUITS = "CDHS"


def test_there_are_thirty_two_distinct_tokens_rank_then_suit():
    assert len(TOKENS) == 32
    assert set(TOKENS) == {rank + suit for rank in RANKS for suit in SUITS}


@pytest.mark.parametrize("name", [r + s for r in RANKS for s in SUITS])
def test_every_token_converts_to_a_card_and_back(name):
    assert token(card_from_token(name)) == name


def test_the_thirty_two_cards_are_distinct():
    assert len({card_from_token(name) for name in TOKENS}) == 32


@pytest.mark.parametrize("bad", ["10h", "jS", "1H", "11S", "6C", "JX", "", "10", "H", "AH ", None])
def test_a_lower_case_or_unknown_token_is_not_a_card(bad):
    with pytest.raises(CardError):
        card_from_token(bad)


@pytest.mark.parametrize("lower, higher", list(pairwise(RANKS)))
def test_within_a_suit_the_ranks_run_j_q_k_a_7_8_9_10(lower, higher):
    hands = (
        ("10S", "9S", "8S", "7S"),
        (lower + "H", "JC", "QC", "KC"),
        (higher + "H", "AC", "7C", "8C"),
    )
    hand = replay_actions(build(hands), f"1 play {lower}H", f"2 play {higher}H", "0 play 10S")
    assert hand.result()["tricks"][0]["winner"] == 2
    hand = replay_actions(build(hands), "1 play JC", "2 play AC", "0 play 10S")
    assert hand.result()["tricks"][0]["winner"] == 2  # AC beats JC


def test_there_are_no_trumps_an_off_suit_ten_loses_to_the_jack_led():
    hands = (
        ("10C", "9C", "8C", "7C"),
        ("JH", "QD", "KD", "AD"),
        ("10S", "9S", "8S", "7S"),
    )
    hand = replay_actions(build(hands), "1 play JH", "2 play 10S", "0 play 10C")
    assert hand.result()["tricks"][0]["winner"] == 1


# -- house rules --------------------------------------------------------------------------------

DEFAULTS = {
    "starting_lives": 10,
    "end_condition": "first_out",
    "min_players": 3,
    "exchange": True,
    "exchange_limit": 1,
    "clean_hand": "four_face",
    "challenge_scoring": "single",
    "dirty_penalty": "life",
    "poverty": "off",
    "knock_cap": "lives",
    "max_knocks_per_player": None,
    "response_order": "sequential",
    "response_seconds": 8,
    "voluntary_fold": False,
    "folded_card_wins": True,
    "suit_order": "HSDC",
    "announcements": True,
    "away_conventions": True,
    "pot_stake": 0,
    "buy_back": 0,
}

GOOD_VALUES = [
    ("starting_lives", 1),
    ("starting_lives", 15),
    ("starting_lives", 30),
    ("end_condition", "first_out"),
    ("end_condition", "last_standing"),
    ("min_players", 2),
    ("min_players", 3),
    ("exchange", True),
    ("exchange", False),
    ("exchange_limit", 1),
    ("exchange_limit", 3),
    ("clean_hand", "four_face"),
    ("clean_hand", "face_and_one_seven"),
    ("challenge_scoring", "single"),
    ("challenge_scoring", "each_challenger"),
    ("dirty_penalty", "life"),
    ("dirty_penalty", "open_hand"),
    ("dirty_penalty", "life_and_open_hand"),
    ("poverty", "off"),
    ("poverty", "stake_two"),
    ("poverty", "stake_two_poor_leads"),
    ("knock_cap", "lives"),
    ("knock_cap", "none"),
    ("max_knocks_per_player", None),
    ("max_knocks_per_player", 1),
    ("max_knocks_per_player", 8),
    ("response_order", "sequential"),
    ("response_order", "simultaneous"),
    ("response_seconds", 2),
    ("response_seconds", 60),
    ("voluntary_fold", True),
    ("voluntary_fold", False),
    ("folded_card_wins", True),
    ("folded_card_wins", False),
    ("suit_order", "HSDC"),
    ("suit_order", "HDSC"),
    ("announcements", True),
    ("announcements", False),
    ("away_conventions", True),
    ("away_conventions", False),
]

BAD_VALUES = [
    ("away_conventions", "yes"),
    ("away_conventions", 1),
    ("away_conventions", None),
    ("starting_lives", 0),
    ("starting_lives", 31),
    ("starting_lives", "10"),
    ("starting_lives", 10.0),
    ("starting_lives", True),
    ("starting_lives", None),
    ("end_condition", "last_out"),
    ("min_players", 1),
    ("min_players", 4),
    ("exchange", "true"),
    ("exchange", 1),
    ("exchange_limit", 0),
    ("exchange_limit", 4),
    ("clean_hand", "four_faces"),
    ("challenge_scoring", "double"),
    ("dirty_penalty", "open"),
    ("poverty", "on"),
    ("poverty", False),
    ("knock_cap", None),
    ("knock_cap", "lifes"),
    ("max_knocks_per_player", 0),
    ("max_knocks_per_player", 9),
    ("max_knocks_per_player", "none"),
    ("response_order", "random"),
    ("response_seconds", 1),
    ("response_seconds", 61),
    ("voluntary_fold", "no"),
    ("folded_card_wins", None),
    ("suit_order", "SHDC"),
    ("suit_order", "hsdc"),
    ("announcements", 0),
]


def test_an_empty_profile_is_the_classic_defaults():
    assert HouseRules.from_json({}).to_json() == DEFAULTS
    assert HouseRules().to_json() == DEFAULTS


def test_a_missing_field_takes_its_default():
    profile = HouseRules.from_json({"starting_lives": 15, "poverty": "stake_two"})
    assert profile.to_json() == {**DEFAULTS, "starting_lives": 15, "poverty": "stake_two"}


@pytest.mark.parametrize("field, value", GOOD_VALUES)
def test_every_listed_value_of_every_field_is_accepted(field, value):
    profile = HouseRules.from_json({field: value})
    assert profile.to_json()[field] == value
    assert HouseRules.from_json(profile.to_json()) == profile


@pytest.mark.parametrize("field, value", BAD_VALUES)
def test_a_bad_value_is_an_error_that_names_its_field(field, value):
    with pytest.raises(RulesError) as caught:
        HouseRules.from_json({field: value})
    assert caught.value.field == field


def test_a_profile_made_in_code_checks_its_fields_too():
    # `rules.py` stays interpreted (games/compiled.py): compiled, the annotation's check
    # would refuse the value as a TypeError before the field's own check could name it.
    with pytest.raises(RulesError) as caught:
        HouseRules(starting_lives="10")
    assert (caught.value.field, caught.value.code) == ("starting_lives", "integer")


def test_an_unknown_field_is_an_error_that_names_it():
    with pytest.raises(RulesError) as caught:
        HouseRules.from_json({"starting_lives": 10, "blind_knocks": True})
    assert caught.value.field == "blind_knocks"


def test_a_profile_that_is_not_an_object_is_an_error():
    with pytest.raises(RulesError):
        HouseRules.from_json(["starting_lives", 10])


def test_a_number_too_long_to_print_is_a_rules_error_with_a_short_message():
    # Python refuses to turn an int of over 4,300 digits into text; the message must not try.
    with pytest.raises(RulesError) as caught:
        HouseRules.from_json({"starting_lives": 10**5000})
    assert (caught.value.field, caught.value.code) == ("starting_lives", "range")
    assert "5001 digits" in str(caught.value)
    assert len(str(caught.value)) < 200


def test_a_value_nested_too_deep_to_print_is_a_rules_error_with_a_short_message():
    deep: list[object] = []
    for _level in range(200_000):
        deep = [deep]
    with pytest.raises(RulesError) as caught:
        HouseRules.from_json({"exchange_limit": deep})
    assert (caught.value.field, caught.value.code) == ("exchange_limit", "integer")
    assert len(str(caught.value)) < 200


def test_a_profile_survives_its_json_round_trip():
    profile = HouseRules.from_json(
        {"starting_lives": 7, "suit_order": "HDSC", "max_knocks_per_player": 2}
    )
    assert HouseRules.from_json(profile.to_json()) == profile


def test_the_kroeg_profile_is_pub_rules():
    assert KROEG.to_json() == {
        **DEFAULTS,
        "starting_lives": 15,
        "poverty": "stake_two_poor_leads",
        "response_order": "simultaneous",
        "challenge_scoring": "each_challenger",
    }


def test_the_siwweschroom_profile_plays_seven_point_rubbers_to_the_last_standing():
    assert SIWWESCHROOM.to_json() == {
        **DEFAULTS,
        "starting_lives": 7,
        "end_condition": "last_standing",
        "min_players": 2,
        "announcements": False,
        "voluntary_fold": True,
    }


def test_the_tournament_profile_is_classic_with_twenty_second_answers_and_nobody_away():
    assert TOURNAMENT.to_json() == {
        **DEFAULTS,
        "response_order": "sequential",
        "response_seconds": 20,
        "away_conventions": False,
    }


# -- the deal -----------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4, 8])
def test_a_deal_gives_four_cards_each_and_the_rest_is_the_stock(seats):
    h = Hand.deal(HouseRules(min_players=2), [10] * seats, 0, seed=11)
    record = h.record()
    assert len(record["hands"]) == seats
    assert all(len(cards) == 4 for cards in record["hands"])
    assert len(record["stock"]) == 32 - 4 * seats
    dealt = [card for cards in record["hands"] for card in cards]
    assert sorted([*dealt, *record["stock"]]) == sorted(TOKENS)


def test_a_deal_from_the_same_seed_is_the_same_deal():
    first = Hand.deal(HouseRules(), [10] * 4, 1, seed=42).record()
    again = Hand.deal(HouseRules(), [10] * 4, 1, seed=42).record()
    other = Hand.deal(HouseRules(), [10] * 4, 1, seed=43).record()
    assert first == again
    assert first["hands"] != other["hands"]
    assert first["dealer"] == 1
