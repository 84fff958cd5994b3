"""Hand records and replay: bad records, refused actions, round trips (hand-record.md)."""

from __future__ import annotations

import copy
import json

import pytest

from games.engine import ERROR_CODES, TOKENS, BadRecord, parse_record, replay

from .helpers import STANDARD, STANDARD_PLAY, build, make_record, replay_actions, rules

RESULT_FIELDS = {
    "complete",
    "winner",
    "last_trick_winner",
    "stake",
    "lives_lost",
    "lives",
    "folded",
    "out",
    "next_dealer",
    "to_play",
    "awaiting",
    "announcements",
    "tricks",
}


def good():
    return make_record(STANDARD, STANDARD_PLAY[:4])


def assert_bad(record):
    result = replay(record)
    assert result["error"]["code"] == "bad_record", result["error"]
    assert result["error"]["action"] is None
    assert isinstance(result["error"]["message"], str)
    assert result["error"]["message"]
    assert not RESULT_FIELDS & set(result), "a bad record's result has no other fields"


def changed(**changes):
    record = good()
    for key, value in changes.items():
        record[key] = value
    return record


def with_action(index, value):
    record = good()
    record["actions"][index] = value
    return record


def test_the_closed_table_of_error_codes():
    assert set(ERROR_CODES) == {
        "bad_record",
        "hand_over",
        "answers_awaited",
        "not_awaited",
        "not_your_turn",
        "folded",
        "card_not_in_hand",
        "must_follow_suit",
        "cannot_knock",
        "cannot_fold",
        "cannot_exchange",
        "cannot_challenge",
        "cannot_announce",
        "cannot_end",
        "immune",
    }


def test_a_good_record_replays_without_an_error():
    result = replay(good())
    assert result["error"] is None
    assert result["format"] == "toepen-result/1"
    assert set(result) >= RESULT_FIELDS


def test_a_record_without_rules_plays_the_defaults():
    record = good()
    del record["rules"]
    assert replay(record) == replay(good())


def test_a_record_with_an_immune_list_is_good():
    assert replay(make_record(STANDARD, immune=[1, 3]))["error"] is None


def test_an_auto_action_replays_like_any_other():
    record = make_record(STANDARD, ["1 play 10S", "2 knock", "3 stay auto", "0 fold", "1 stay"])
    assert record["actions"][2] == {"seat": 3, "act": "stay", "auto": True}
    plain = make_record(STANDARD, ["1 play 10S", "2 knock", "3 stay", "0 fold", "1 stay"])
    assert replay(record) == replay(plain)


# -- bad records --------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["{not json", "", "[1, 2", "null"])
def test_a_record_that_is_not_json_is_bad(text):
    try:
        data = json.loads(text)
    except ValueError:
        data = text
    assert_bad(data)


@pytest.mark.parametrize("data", [[1, 2], "a string", 42, None])
def test_a_record_that_is_not_an_object_is_bad(data):
    assert_bad(data)


@pytest.mark.parametrize(
    "field", ["format", "players", "lives", "dealer", "hands", "stock", "actions"]
)
def test_a_record_lacking_a_field_is_bad(field):
    record = good()
    del record[field]
    assert_bad(record)


def test_a_record_with_an_unknown_field_is_bad():
    assert_bad(changed(comment="a nice hand"))


def test_a_record_of_another_format_is_bad():
    assert_bad(changed(format="toepen-hand/2"))


@pytest.mark.parametrize(
    "profile",
    [
        {"starting_lives": 0},
        {"starting_lives": 31},
        {"poverty": "sometimes"},
        {"suit_order": "CDHS"},
        {"blind_knocks": True},
        {"exchange": "yes"},
        ["starting_lives", 10],
        "classic",
    ],
)
def test_a_record_with_a_bad_house_rule_is_bad(profile):
    assert_bad(changed(rules=profile))


def test_fewer_seats_than_min_players_is_bad():
    hands = STANDARD[:2]
    assert_bad(make_record(hands))
    assert replay(make_record(hands, rules={"min_players": 2}))["error"] is None


def test_more_than_eight_seats_is_bad():
    # 36 cards for nine seats cannot exist, but the seat count alone makes the record bad
    hands = [list(TOKENS[4 * s : 4 * s + 4]) for s in range(8)] + [list(STANDARD[0])]
    record = {
        "format": "toepen-hand/1",
        "players": [f"P{s}" for s in range(9)],
        "lives": [10] * 9,
        "dealer": 0,
        "hands": hands,
        "stock": [],
        "actions": [],
    }
    assert_bad(record)


def test_eight_seats_are_good():
    hands = [TOKENS[4 * s : 4 * s + 4] for s in range(8)]
    assert replay(make_record(hands))["error"] is None


@pytest.mark.parametrize("lives", [[10, 10, 0, 10], [10, 11, 10, 10], [10, 10, 10], ["10"] * 4])
def test_lives_outside_one_to_starting_lives_are_bad(lives):
    assert_bad(changed(lives=lives))


def test_lives_up_to_starting_lives_are_good():
    record = make_record(STANDARD, rules={"starting_lives": 15}, lives=[15, 1, 7, 15])
    assert replay(record)["error"] is None


def test_a_card_missing_is_bad():
    record = good()
    record["stock"].pop()
    assert_bad(record)


def test_a_card_twice_is_bad():
    record = good()
    record["stock"][0] = record["hands"][0][0]
    assert_bad(record)


def test_a_hand_of_three_cards_is_bad():
    record = good()
    record["stock"].append(record["hands"][1].pop())
    assert_bad(record)


@pytest.mark.parametrize("dealer", [4, -1, "0", None])
def test_a_dealer_seat_that_does_not_exist_is_bad(dealer):
    assert_bad(changed(dealer=dealer))


@pytest.mark.parametrize("immune", [[4], [-1], ["1"]])
def test_an_immune_seat_that_does_not_exist_is_bad(immune):
    assert_bad(changed(immune=immune))


@pytest.mark.parametrize(
    "action",
    [
        {"seat": 1, "act": "pass"},
        {"seat": 1, "act": "PLAY", "card": "10S"},
        {"seat": 1},
        {"seat": 1, "act": []},
        {"seat": 1, "act": {"play": "10S"}},
    ],
)
def test_an_action_with_an_unknown_act_is_bad(action):
    assert_bad(with_action(0, action))


@pytest.mark.parametrize(
    "action",
    [
        {"act": "play", "card": "10S"},
        {"seat": 1, "act": "play"},
        {"seat": 0, "act": "challenge"},
        {"seat": 0, "act": "announce"},
    ],
)
def test_an_action_missing_a_field_is_bad(action):
    assert_bad(with_action(0, action))


@pytest.mark.parametrize(
    "action",
    [
        {"seat": 1, "act": "play", "card": "10S", "target": 2},
        {"seat": 2, "act": "knock", "card": "9S"},
        {"seat": 2, "act": "stay", "kind": "whistle"},
        {"seat": 2, "act": "exchange", "target": 1},
        {"seat": 1, "act": "play", "card": "10S", "note": "x"},
    ],
)
def test_an_action_with_an_extra_field_is_bad(action):
    assert_bad(with_action(0, action))


@pytest.mark.parametrize(
    "action",
    [
        {"seat": 4, "act": "knock"},
        {"seat": -1, "act": "knock"},
        {"seat": "1", "act": "play", "card": "10S"},
        {"seat": 0, "act": "challenge", "target": 4},
        {"seat": 0, "act": "challenge", "target": -1},
    ],
)
def test_an_action_naming_a_seat_or_target_that_does_not_exist_is_bad(action):
    assert_bad(with_action(0, action))


@pytest.mark.parametrize("card", ["10s", "1S", "11S", "XS", "", 10])
def test_an_action_with_a_card_that_is_not_one_of_the_32_is_bad(card):
    assert_bad(with_action(0, {"seat": 1, "act": "play", "card": card}))


@pytest.mark.parametrize("kind", ["shout", "Whistle", "", None])
def test_an_announcement_other_than_whistle_or_stand_is_bad(kind):
    assert_bad(with_action(0, {"seat": 1, "act": "announce", "kind": kind}))


def test_a_malformed_late_action_makes_the_whole_record_bad():
    record = good()
    record["actions"].append({"seat": 9, "act": "knock"})
    assert_bad(record)


def test_parse_record_raises_bad_record():
    with pytest.raises(BadRecord) as caught:
        parse_record(changed(dealer=7))
    assert caught.value.code == "bad_record"


# -- refused actions ----------------------------------------------------------------------------

CASES = [
    ("hand_over", [*STANDARD_PLAY, "2 knock"], {}),
    ("answers_awaited", ["2 knock", "1 play 10S"], {}),
    ("answers_awaited", ["1 play 10S", "2 knock", "3 knock"], {}),
    ("not_awaited", ["1 play 10S", "2 stay"], {}),
    ("not_awaited", ["2 knock", "2 stay"], {}),
    ("not_your_turn", ["2 play 9S"], {}),
    ("not_your_turn", ["2 knock", "0 stay"], {}),
    ("folded", ["2 knock", "3 fold", "0 stay", "1 stay", "3 play AS"], {}),
    ("folded", ["2 knock", "3 fold", "0 stay", "1 stay", "3 knock"], {}),
    ("card_not_in_hand", ["1 play 9S"], {}),
    ("must_follow_suit", ["1 play 10S", "2 play QH"], {}),
    ("cannot_knock", ["2 knock", "3 stay", "0 stay", "1 stay", "2 knock"], {}),
    ("cannot_knock", ["1 knock"], {"starting_lives": 1}),
    (
        "cannot_knock",
        [
            "2 knock",
            "3 stay",
            "0 stay",
            "1 stay",
            "3 knock",
            "0 stay",
            "1 stay",
            "2 stay",
            "2 knock",
        ],
        {"max_knocks_per_player": 1},
    ),
    ("cannot_fold", ["1 play 10S", "2 fold"], {}),
    ("cannot_fold", ["2 knock", "2 fold"], {}),
    ("cannot_exchange", ["1 play 10S", "2 exchange"], {}),
    ("cannot_exchange", ["2 exchange"], {"exchange": False}),
    ("cannot_challenge", ["0 challenge 3"], {}),
    ("cannot_challenge", ["3 exchange", "1 play 10S", "0 challenge 3"], {}),
    ("cannot_announce", ["1 announce whistle"], {}),
    ("cannot_announce", ["1 announce stand"], {"announcements": False}),
]


@pytest.mark.parametrize("code, actions, profile", CASES)
def test_replay_stops_at_the_first_refused_action_and_describes_the_hand_before_it(
    code, actions, profile
):
    index = len(actions) - 1
    # anything after the refused action is not looked at, legal or not
    record = make_record(STANDARD, [*actions, "0 play 8H", "1 exchange"], rules=profile)
    result = replay(record)
    assert result["error"]["code"] == code
    assert result["error"]["action"] == index
    assert isinstance(result["error"]["message"], str)
    before = replay(make_record(STANDARD, actions[:index], rules=profile))
    assert before["error"] is None
    assert {k: v for k, v in result.items() if k != "error"} == {
        k: v for k, v in before.items() if k != "error"
    }


def test_an_action_of_her_own_by_a_player_buying_the_round_stops_the_replay():
    # rules.md 3.8: the table answers and plays for her (auto), and she makes nothing herself.
    table = ["1 play 10S auto", "2 knock", "3 stay", "0 stay", "1 fold auto"]
    assert replay(make_record(STANDARD, table, immune=[1]))["error"] is None
    own = ["1 play 10S auto", "2 knock", "3 stay", "0 stay", "1 stay"]
    result = replay(make_record(STANDARD, own, immune=[1]))
    assert result["error"]["code"] == "immune" and result["error"]["action"] == 4
    assert replay(make_record(STANDARD, ["1 knock auto"], immune=[1]))["error"]["code"] == "immune"


def test_every_code_of_the_closed_table_is_produced_by_replay():
    # cannot_end belongs to slate records: test_slate.py replays it; immune is replayed above.
    codes = {code for code, _, _ in CASES} | {"bad_record", "cannot_end", "immune"}
    assert codes == ERROR_CODES


# -- round trips --------------------------------------------------------------------------------


def test_a_hands_record_replays_to_its_result():
    h = build(STANDARD, rules=rules(starting_lives=12, voluntary_fold=True), immune=[1])
    replay_actions(h, "3 exchange", "0 challenge 3", "2 knock", "3 stay auto", "0 fold")
    replay_actions(h, "1 stay auto", "1 play 10S auto", "2 play 9S")
    record = h.record()
    assert record["format"] == "toepen-hand/1"
    assert record["immune"] == [1]
    assert {"seat": 3, "act": "stay", "auto": True} in record["actions"]
    assert replay(copy.deepcopy(record)) == {**h.result(), "error": None}


def test_a_complete_hands_record_replays_to_its_result():
    h = replay_actions(build(STANDARD), "2 knock", "3 fold", "0 stay", "1 stay")
    replay_actions(h, *[a for a in STANDARD_PLAY if not a.startswith("3 ")])
    assert h.result()["complete"] is True
    assert replay(json.loads(json.dumps(h.record()))) == {**h.result(), "error": None}


def test_a_record_keeps_the_deal_not_the_cards_now_held():
    h = replay_actions(build(STANDARD), "3 exchange", "1 play 10S")
    record = h.record()
    assert record["hands"] == [list(hand) for hand in STANDARD]
    assert len(record["stock"]) == 16


def test_copy_gives_an_independent_hand():
    h = replay_actions(build(STANDARD), "1 play 10S")
    twin = h.copy()
    replay_actions(twin, "2 play 9S", "3 knock")
    assert h.result()["tricks"][0]["plays"] == [[1, "10S"]]
    assert h.result()["stake"] == 1
    assert twin.result()["stake"] == 2
