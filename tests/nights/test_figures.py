"""A hand's figures read off the engine's replay of its record, the winner of a rubber, and the
words for a player's style."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from nights.figures import hand_tallies, replayed, rubber_tallies
from nights.reads import STYLES, styles
from nights.services import rubber_winner
from tests.engine.helpers import STANDARD, STANDARD_PLAY, stock_for


def record(actions: list[str], hands: Any = STANDARD, **extra: Any) -> dict[str, Any]:
    moves = []
    for text in actions:
        seat, act, *rest = text.split()
        move: dict[str, Any] = {"seat": int(seat), "act": act}
        if act == "play":
            move["card"] = rest[0]
        elif act == "challenge":
            move["target"] = int(rest[0])
        moves.append(move)
    return {
        "format": "toepen-hand/1",
        "players": ["Ann", "Bram", "Cas", "Dirk"],
        "lives": [10, 10, 10, 10],
        "dealer": 0,
        "hands": [list(h) for h in hands],
        "stock": stock_for(hands),
        "actions": moves,
        **extra,
    }


def test_a_knock_counts_as_won_only_when_its_knocker_wins_the_hand() -> None:
    # Cas knocks first and wins the hand; Ann knocks after the second trick and does not.
    actions = ["2 knock", "3 stay", "0 stay", "1 stay", *STANDARD_PLAY[:8]]
    actions += ["0 knock", "1 stay", "2 stay", "3 stay", *STANDARD_PLAY[8:]]
    hand = replayed(record(actions))
    assert hand is not None and hand.complete and hand.winner == 2
    tallies = hand_tallies(hand)
    assert [t.knocks for t in tallies] == [1, 0, 1, 0]
    assert [t.knocks_won for t in tallies] == [0, 0, 1, 0]
    assert [t.hands_won for t in tallies] == [0, 0, 1, 0]
    assert [t.lives_lost for t in tallies] == [3, 3, 0, 3]


def test_a_fold_is_counted_with_the_lives_it_cost() -> None:
    actions = ["2 knock", "3 fold", "0 stay", "1 stay"]
    tallies = hand_tallies(replayed(record(actions)))
    assert [t.folds for t in tallies] == [0, 0, 0, 1]
    assert tallies[3].lives_lost == 1


def test_a_challenge_is_won_when_the_cards_laid_aside_were_not_clean() -> None:
    # Dirk lays aside AS 7C JD KC: a seven, not clean. Bram challenges him and is right.
    tallies = hand_tallies(replayed(record(["3 exchange", "1 challenge 3"])))
    assert [t.exchanges for t in tallies] == [0, 0, 0, 1]
    assert [(t.challenges, t.challenges_won) for t in tallies][1] == (1, 1)
    assert tallies[3].lives_lost == 1


def test_a_challenge_of_clean_cards_is_lost_and_costs_the_challenger() -> None:
    # Ann's hand is all faces: clean.
    faces = (
        ("JH", "QS", "AC", "KD"),
        ("7S", "10S", "KH", "JC"),
        ("9S", "8C", "QH", "10D"),
        ("8H", "7H", "9D", "AH"),
    )
    tallies = hand_tallies(replayed(record(["0 exchange", "2 challenge 0"], hands=faces)))
    assert (tallies[2].challenges, tallies[2].challenges_won, tallies[2].lives_lost) == (1, 0, 1)
    assert tallies[0].lives_lost == 0


def test_a_rubbers_figures_are_summed_per_table_seat_over_its_finished_hands() -> None:
    done = record(["2 knock", "3 fold", "0 fold", "1 fold"])  # Cas wins: the others folded
    won = record(list(STANDARD_PLAY))
    under_way = record(["2 knock"])
    # Table seats 4, 5, 6, 7 sat in seats 0..3 of these hands; an unfinished hand counts nothing.
    seats = [4, 5, 6, 7]
    totals = rubber_tallies([(seats, done), (seats, won), (seats, under_way)], 8)
    assert [totals[seat].folds for seat in seats] == [1, 1, 0, 1]
    assert [totals[seat].hands for seat in seats] == [2, 2, 2, 2]
    assert totals[6].hands_won == 2 and totals[6].knocks == 1 and totals[6].knocks_won == 1
    assert totals[0].hands == 0


def test_a_record_the_engine_refuses_counts_nothing() -> None:
    assert replayed({"format": "toepen-hand/1"}) is None
    assert replayed(record(["1 play AS"])) is None


def rubber(lives: list[int], losers: list[int], winner: int | None = None) -> Any:
    return SimpleNamespace(lives=lives, losers=losers, winner=winner)


def test_under_first_out_the_one_who_kept_the_most_lives_wins_the_rubber() -> None:
    assert rubber_winner(rubber([3, 0, 5, 1], losers=[1])) == 2
    assert rubber_winner(rubber([4, 0, 4, 1], losers=[1])) is None  # a tie: nobody wins
    assert rubber_winner(rubber([0, 0, 3], losers=[0, 1], winner=2)) == 2
    assert rubber_winner(rubber([0, 0], losers=[0, 1])) is None


def test_a_player_who_knocks_only_to_win_is_a_lijntoeper_and_one_who_loses_them_a_bluffer() -> None:
    base = {"hands": 60, "folds": 5, "exchanges": 5}
    assert STYLES["lijntoeper"] in styles({**base, "knocks": 12, "knocks_won": 11})
    assert STYLES["bluffer"] in styles({**base, "knocks": 12, "knocks_won": 2})
    middling = styles({**base, "knocks": 12, "knocks_won": 6})
    assert STYLES["lijntoeper"] not in middling and STYLES["bluffer"] not in middling
    assert styles({"hands": 3, "knocks": 1, "knocks_won": 1}) == []


def test_adding_tallies_adds_every_figure() -> None:
    from nights.figures import FIGURES, Tally

    one = Tally(**{name: index + 1 for index, name in enumerate(FIGURES)})
    total = Tally()
    total.add(one)
    total.add(one)
    assert [getattr(total, name) for name in FIGURES] == [2 * (i + 1) for i in range(len(FIGURES))]
