"""Slate hands (rules.md 3.9): real cards at the table, the slate in the engine.

A slate hand is the engine's own Hand without cards: the same stake, answers, folds, poverty,
challenges and lives; the players say what the cards would (a challenge's outcome, who took the
last trick).
"""

from __future__ import annotations

import json

import pytest

from games.engine import (
    ERROR_CODES,
    BadRecord,
    Hand,
    HouseRules,
    challenge,
    fold,
    last_trick,
    observe,
    parse_action,
    replay,
    stay,
)

from .helpers import (
    STANDARD,
    build,
    make_record,
    make_slate_record,
    refused,
    replay_actions,
    rules,
    slate,
)

# -- the course of a slate hand -----------------------------------------------------------------


def test_a_slate_hand_has_no_cards_no_tricks_and_nobody_to_play():
    h = slate(4)
    assert h.slate
    assert h.hands == [[], [], [], []] and h.stock == []
    result = h.result()
    assert result["tricks"] == [] and result["to_play"] is None
    assert h.due() == []
    assert h.record()["slate"] is True
    assert "hands" not in h.record() and "stock" not in h.record()


def test_a_slate_hand_ends_when_the_players_say_who_took_the_last_trick():
    h = replay_actions(slate(4), "2 last_trick")
    result = h.result()
    assert result["complete"] and result["winner"] == 2 and result["last_trick_winner"] == 2
    # Everyone else still in pays the stake of 1.
    assert result["lives_lost"] == [1, 1, 0, 1]
    assert result["next_dealer"] == 2 and result["to_play"] is None and result["tricks"] == []


def test_everyone_still_in_but_the_winner_pays_the_stake_at_the_last_trick():
    h = replay_actions(slate(4), "1 knock", "2 stay", "3 fold", "0 stay", "0 last_trick")
    assert h.stake == 2
    assert h.lost == [0, 2, 2, 1]


def test_a_slate_hand_ends_at_once_when_all_but_one_have_folded():
    h = replay_actions(slate(3), "0 knock", "1 fold", "2 fold")
    result = h.result()
    assert result["complete"] and result["winner"] == 0
    assert result["last_trick_winner"] is None
    assert result["lives_lost"] == [0, 1, 1]
    assert refused(h, "0 last_trick") == "hand_over"


def test_answers_on_a_slate_come_in_any_order_even_under_sequential_rules():
    h = slate(4, rules=rules(response_order="sequential"))
    replay_actions(h, "0 knock")
    assert h.awaiting == [1, 2, 3]
    assert h.due() == [1, 2, 3]
    for seat in (1, 2, 3):
        assert h.legal_actions(seat) == [stay(seat), fold(seat)]
    replay_actions(h, "3 fold", "1 stay", "2 stay")
    assert h.awaiting == [] and h.lost == [0, 0, 0, 1]


def test_nothing_but_the_answers_while_any_is_awaited():
    h = replay_actions(slate(4, rules=rules(voluntary_fold=True)), "0 knock", "2 stay")
    assert refused(h, "1 knock") == "answers_awaited"
    assert refused(h, "1 last_trick") == "answers_awaited"
    assert refused(h, "0 last_trick") == "answers_awaited"
    assert refused(h, "2 fold") == "not_awaited"  # she answered already
    assert refused(h, "0 fold") == "cannot_fold"  # her own knock


def test_a_stay_when_no_answer_is_due_is_not_awaited():
    h = slate(3)
    assert refused(h, "1 stay") == "not_awaited"
    replay_actions(h, "0 knock", "1 stay", "2 stay")
    assert refused(h, "1 stay") == "not_awaited"


def test_knocks_keep_every_limit_of_the_rules():
    h = replay_actions(slate(3), "0 knock", "1 stay", "2 stay")
    assert refused(h, "0 knock") == "cannot_knock"  # she knocked last
    capped = slate(3, lives=[10, 2, 10])
    replay_actions(capped, "0 knock", "1 stay", "2 stay")
    assert refused(capped, "1 knock") == "cannot_knock"  # stake 3 above her 2 lives
    limited = slate(3, rules=rules(max_knocks_per_player=1))
    replay_actions(limited, "0 knock", "1 stay", "2 stay", "1 knock", "0 stay", "2 stay")
    assert refused(limited, "0 knock") == "cannot_knock"  # her one knock is made


def test_a_folded_player_cannot_knock():
    h = replay_actions(slate(3), "0 knock", "1 fold", "2 stay")
    assert refused(h, "1 knock") == "folded"


def test_a_voluntary_fold_needs_the_rule_and_costs_the_current_stake():
    assert refused(slate(3), "1 fold") == "cannot_fold"
    h = slate(3, rules=rules(voluntary_fold=True))
    replay_actions(h, "0 knock", "1 stay", "2 stay")
    assert refused(h, "0 fold") == "cannot_fold"  # the last knocker
    replay_actions(h, "1 fold")
    assert h.lost == [0, 2, 0] and not h.complete


# -- the laundry --------------------------------------------------------------------------------


def test_exchanges_are_counted_against_the_limit():
    h = replay_actions(slate(4), "1 exchange")
    assert h.exchanges == [0, 1, 0, 0]
    assert refused(h, "1 exchange") == "cannot_exchange"
    two = replay_actions(slate(4, rules=rules(exchange_limit=2)), "1 exchange", "1 exchange")
    assert two.exchanges == [0, 2, 0, 0]


def test_the_real_stock_limits_exchanges():
    # Seven players hold 28 of the 32 cards: the stock has four, for one exchange.
    h = slate(7)
    assert h.stock_count == 4
    replay_actions(h, "3 exchange")
    assert h.stock_count == 0
    assert refused(h, "5 exchange") == "cannot_exchange"
    assert refused(slate(8), "0 exchange") == "cannot_exchange"


def test_no_exchange_or_challenge_after_the_laundry_or_without_one():
    assert refused(slate(3, rules=rules(exchange=False)), "2 exchange") == "cannot_exchange"
    h = replay_actions(slate(3), "1 exchange", "0 knock")
    assert refused(h, "2 exchange") == "cannot_exchange"
    assert refused(h, "2 challenge 1 clean") == "cannot_challenge"
    assert refused(slate(3), "2 challenge 1 dirty") == "cannot_challenge"  # no exchange


def test_a_clean_challenge_costs_the_challenger_a_life():
    h = replay_actions(slate(3), "1 exchange", "2 challenge 1 clean")
    assert h.lost == [0, 0, 1]
    assert [(r.challenger, r.target, r.cards, r.clean) for r in h.reveals] == [(2, 1, (), True)]


@pytest.mark.parametrize(
    ("penalty", "lost", "open_hand"),
    [("life", 1, False), ("open_hand", 0, True), ("life_and_open_hand", 1, True)],
)
def test_a_challenge_that_finds_the_cards_not_clean_is_settled_by_dirty_penalty(
    penalty, lost, open_hand
):
    h = slate(3, rules=rules(dirty_penalty=penalty))
    replay_actions(h, "1 exchange", "2 challenge 1 dirty")
    assert h.lost == [0, lost, 0]
    assert h.open_hand[1] is open_hand
    # On a slate the open hand is her real cards face up; the app shows who plays open.
    assert observe(h, None).open_hands == ({1: ()} if open_hand else {})


def test_a_second_challenge_of_one_exchange_under_single_is_refused():
    h = replay_actions(slate(3), "1 exchange", "2 challenge 1 clean")
    assert refused(h, "0 challenge 1 clean") == "cannot_challenge"


def test_every_challenger_of_one_exchange_saw_the_same_cards():
    h = slate(4, rules=rules(challenge_scoring="each_challenger"))
    replay_actions(h, "1 exchange", "2 challenge 1 dirty")
    assert refused(h, "0 challenge 1 clean") == "cannot_challenge"
    replay_actions(h, "0 challenge 1 dirty", "3 challenge 1 dirty")
    assert h.lost == [0, 3, 0, 0]
    # A new exchange is new cards: its challenges may find otherwise.
    again = slate(4, rules=rules(challenge_scoring="each_challenger", exchange_limit=2))
    replay_actions(again, "1 exchange", "2 challenge 1 dirty", "1 exchange", "2 challenge 1 clean")
    assert again.lost == [0, 1, 1, 0]


def test_a_slate_challenge_must_say_what_the_cards_showed():
    h = replay_actions(slate(3), "1 exchange")
    assert refused(h, challenge(2, 1)) == "bad_record"


def test_a_dealt_hand_refuses_a_challenge_that_says_its_own_outcome():
    h = replay_actions(build(STANDARD), "1 exchange")
    assert refused(h, challenge(2, 1, True)) == "bad_record"


@pytest.mark.parametrize("text", ["1 play 10S", "1 announce whistle"])
def test_no_card_is_played_or_announced_on_a_slate(text):
    assert refused(slate(4), text) == "bad_record"


def test_a_dealt_hand_has_no_last_trick_to_say():
    assert refused(build(STANDARD), last_trick(1)) == "bad_record"


# -- the last trick -----------------------------------------------------------------------------


def test_naming_a_folded_seat_for_the_last_trick_means_nobody_wins():
    h = replay_actions(slate(3), "0 knock", "2 fold", "1 stay")
    assert last_trick(2) in h.legal_actions(2)
    replay_actions(h, "2 last_trick")
    result = h.result()
    assert result["winner"] is None and result["last_trick_winner"] == 2
    assert result["lives_lost"] == [2, 2, 1]
    assert result["next_dealer"] == 2


def test_a_folded_seat_cannot_take_the_last_trick_when_folded_cards_do_not_win():
    h = slate(3, rules=rules(folded_card_wins=False))
    replay_actions(h, "0 knock", "2 fold", "1 stay")
    assert h.legal_actions(2) == []
    assert refused(h, "2 last_trick") == "cannot_end"


def test_the_last_trick_ends_the_laundry():
    h = replay_actions(slate(3), "1 exchange")
    assert h.laundry
    replay_actions(h, "1 last_trick")
    assert not h.laundry and h.complete


# -- poverty ------------------------------------------------------------------------------------

POVERTY = HouseRules(poverty="stake_two")


def test_a_slate_poverty_hand_awaits_every_answer_in_any_order_once_the_laundry_ends():
    h = slate(4, rules=POVERTY, lives=[10, 1, 10, 10], dealer=0)
    assert h.stake == 2 and h.awaiting == []
    # Due together the moment the laundry ends, from the first poor player's left.
    assert h.due() == [2, 3, 0]
    replay_actions(h, "0 stay")
    assert h.awaiting == [2, 3]
    assert refused(h, "0 last_trick") == "answers_awaited"
    assert refused(h, "1 fold") == "not_awaited"  # the poor do not answer it
    replay_actions(h, "3 fold", "2 stay")
    assert h.lost == [0, 0, 0, 1]


def test_the_poor_cannot_knock_on_a_slate():
    h = slate(3, rules=POVERTY, lives=[1, 5, 5])
    replay_actions(h, "1 stay", "2 stay")
    assert refused(h, "0 knock") == "cannot_knock"


def test_the_poor_player_wins_when_everyone_else_folds():
    h = replay_actions(slate(3, rules=POVERTY, lives=[1, 5, 5]), "2 fold", "1 fold")
    assert h.complete and h.winner == 0 and h.lost == [0, 1, 1]


def test_two_poor_players_play_it_out():
    h = slate(4, rules=POVERTY, lives=[1, 1, 5, 5])
    replay_actions(h, "2 fold", "3 fold")
    assert not h.complete
    replay_actions(h, "1 last_trick")
    assert h.winner == 1 and h.lost == [1, 0, 1, 1]


# -- immunity -----------------------------------------------------------------------------------


def test_an_immune_seat_loses_nothing_on_a_slate():
    h = slate(3, immune=[1], rules=rules(voluntary_fold=True))
    replay_actions(h, "2 exchange", "0 challenge 2 clean")
    for text in ("1 exchange", "1 challenge 2 clean", "1 knock", "1 fold", "1 knock auto"):
        assert refused(h, text) == "immune"
    replay_actions(h, "0 knock", "1 stay auto", "2 stay", "2 last_trick")
    assert h.lost == [3, 0, 0]


def test_a_player_buying_the_round_may_take_a_slates_last_trick():
    # Her real cards are played for her, and one of them may take the last trick.
    h = slate(3, immune=[1])
    replay_actions(h, "0 knock", "1 stay auto", "2 stay")
    assert h.legal_actions(1) == [last_trick(1)]
    replay_actions(h, "1 last_trick")
    assert h.winner == 1 and h.lost == [2, 0, 2]


# -- what a seat may do -------------------------------------------------------------------------


def test_the_legal_actions_of_a_slate_seat():
    h = slate(3, rules=rules(voluntary_fold=True))
    replay_actions(h, "0 exchange")
    assert [a.to_json() for a in h.legal_actions(1)] == [
        {"seat": 1, "act": "exchange"},
        {"seat": 1, "act": "challenge", "target": 0, "clean": False},
        {"seat": 1, "act": "challenge", "target": 0, "clean": True},
        {"seat": 1, "act": "knock"},
        {"seat": 1, "act": "fold"},
        {"seat": 1, "act": "last_trick"},
    ]
    replay_actions(h, "0 knock")
    assert h.legal_actions(0) == []
    assert [a.act for a in h.legal_actions(1)] == ["stay", "fold"]


def test_observing_a_slate_hand_shows_the_slate_and_no_card():
    h = replay_actions(slate(4), "1 exchange", "2 knock")
    view = observe(h, 1)
    assert view.slate and view.to_json()["slate"] is True
    assert view.hand == () and view.tricks == () and view.visible_cards() == set()
    assert view.stock_count == 12
    assert view.exchanges == (0, 1, 0, 0) and view.awaiting == (3, 0, 1)
    assert not observe(build(STANDARD), 0).slate


# -- records ------------------------------------------------------------------------------------


def test_a_slate_hands_record_replays_to_its_result():
    profile = rules(poverty="stake_two", challenge_scoring="each_challenger")
    h = Hand.slate_hand(profile, [10, 1, 7, 4], 2, players=["A", "B", "C", "D"], immune=[3])
    replay_actions(h, "1 exchange", "2 challenge 1 clean", "0 challenge 1 clean")
    replay_actions(h, "0 stay", "3 fold auto", "2 stay", "2 knock", "1 stay", "0 stay")
    record = json.loads(json.dumps(h.record()))
    assert record["slate"] is True and record["immune"] == [3]
    assert record["actions"][1] == {"seat": 2, "act": "challenge", "target": 1, "clean": True}
    assert record["actions"][4] == {"seat": 3, "act": "fold", "auto": True}
    assert replay(record) == h.result()
    replay_actions(h, "0 last_trick")
    assert replay(json.loads(json.dumps(h.record()))) == h.result()


@pytest.mark.parametrize("field", ["hands", "stock"])
def test_a_slate_record_with_cards_is_bad(field):
    record = make_slate_record(["1 knock"], n=4)
    record[field] = make_record(STANDARD)[field]
    result = replay(record)
    assert result["error"]["code"] == "bad_record" and result["error"]["action"] is None
    assert field in result["error"]["message"]


@pytest.mark.parametrize("value", ["yes", 1, None, []])
def test_a_slate_field_that_is_not_true_or_false_is_bad(value):
    record = make_record(STANDARD)
    record["slate"] = value
    assert replay(record)["error"]["code"] == "bad_record"


def test_a_record_with_slate_false_is_a_hand_played_with_cards():
    record = make_record(STANDARD, ["1 play 10S"])
    plain = replay(record)
    record["slate"] = False
    assert replay(record) == plain and plain["error"] is None


@pytest.mark.parametrize(
    "action",
    [
        {"seat": 1, "act": "play", "card": "10S"},
        {"seat": 1, "act": "announce", "kind": "whistle"},
        {"seat": 2, "act": "challenge", "target": 1},
        {"seat": 2, "act": "challenge", "target": 1, "clean": "yes"},
        {"seat": 2, "act": "challenge", "target": 1, "clean": None},
        {"seat": 2, "act": "challenge", "target": 5, "clean": True},
        {"seat": 1, "act": "last_trick", "target": 2},
        {"seat": 4, "act": "last_trick"},
    ],
)
def test_a_slate_action_of_the_wrong_form_is_a_bad_record(action):
    record = make_slate_record(["1 exchange", action], n=4)
    result = replay(record)
    assert result["error"]["code"] == "bad_record" and result["error"]["action"] is None


@pytest.mark.parametrize(
    "action",
    [
        {"seat": 1, "act": "last_trick"},
        {"seat": 2, "act": "challenge", "target": 1, "clean": True},
    ],
)
def test_a_slate_act_in_a_hand_played_with_cards_is_a_bad_record(action):
    record = make_record(STANDARD, ["1 exchange", action])
    assert replay(record)["error"]["code"] == "bad_record"


def test_parse_action_reads_a_slate_action():
    data = {"seat": 2, "act": "challenge", "target": 1, "clean": False}
    assert parse_action(data, 4, slate=True) == challenge(2, 1, False)
    assert parse_action({"seat": 3, "act": "last_trick"}, 4, slate=True) == last_trick(3)
    with pytest.raises(BadRecord):
        parse_action({"seat": 3, "act": "last_trick"}, 4)


@pytest.mark.parametrize(
    ("code", "actions", "profile"),
    [
        ("hand_over", ["0 knock", "1 fold", "2 fold", "3 fold", "0 last_trick"], {}),
        ("answers_awaited", ["0 knock", "1 stay", "1 knock"], {}),
        ("not_awaited", ["0 knock", "1 stay", "1 stay"], {}),
        ("folded", ["0 knock", "1 fold", "2 stay", "3 stay", "1 knock"], {}),
        ("cannot_knock", ["0 knock", "1 stay", "2 stay", "3 stay", "0 knock"], {}),
        ("cannot_fold", ["1 fold"], {}),
        ("cannot_exchange", ["1 exchange", "1 exchange"], {}),
        ("cannot_challenge", ["1 challenge 2 clean"], {}),
        ("cannot_end", ["0 knock", "1 fold", "2 stay", "3 stay", "1 last_trick"],
         {"folded_card_wins": False}),
    ],
)  # fmt: skip
def test_replay_of_a_slate_record_stops_at_the_first_refused_action(code, actions, profile):
    record = make_slate_record([*actions, "2 last_trick"], n=4, rules=profile)
    result = replay(record)
    assert result["error"]["code"] == code
    assert result["error"]["action"] == len(actions) - 1
    before = replay(make_slate_record(actions[:-1], n=4, rules=profile))
    assert before["error"] is None
    assert {k: v for k, v in result.items() if k != "error"} == {
        k: v for k, v in before.items() if k != "error"
    }


def test_cannot_end_is_a_code_of_the_closed_table():
    assert "cannot_end" in ERROR_CODES
