"""Whistling and standing: three or four 10s must, three or four jacks may (rules.md 3.6)."""

from __future__ import annotations

import pytest

from games.engine import observe

from .helpers import build, refused, replay_actions, rules

BASE = (("8H", "QS", "AC", "9D"), ("7S", "9S", "KH", "JC"))
THREE_TENS = (*BASE, ("10S", "10D", "10H", "8C"), ("AS", "7C", "JD", "KC"))
FOUR_TENS = (*BASE, ("10S", "10D", "10H", "10C"), ("AS", "7C", "JD", "KC"))
NO_TENS = (*BASE, ("QD", "KD", "AD", "7D"), ("AS", "7C", "JD", "KC"))

JBASE = (("8H", "QS", "AC", "9D"), ("7S", "10S", "KH", "8C"), ("9S", "QC", "QH", "10D"))
THREE_JACKS = (*JBASE, ("JS", "JD", "JC", "KC"))
FOUR_JACKS = (*JBASE, ("JS", "JD", "JC", "JH"))
FIRST_TRICK = ("1 play 10S", "2 play 9S", "3 play JS", "0 play QS")


def test_three_tens_whistle_by_themselves_when_the_laundry_ends():
    h = build(THREE_TENS)
    assert h.result()["announcements"] == {}
    replay_actions(h, "1 play 9S")
    assert h.result()["announcements"] == {"2": "whistle"}


def test_four_tens_stand_by_themselves_when_the_laundry_ends():
    h = replay_actions(build(FOUR_TENS), "1 play 9S")
    assert h.result()["announcements"] == {"2": "stand"}


def test_with_exchange_off_the_tens_are_announced_at_the_deal():
    h = build(THREE_TENS, rules=rules(exchange=False))
    assert h.result()["announcements"] == {"2": "whistle"}


def test_everyone_sees_the_automatic_announcement():
    h = replay_actions(build(THREE_TENS), "1 play 9S")
    for seat in (0, 1, 3, None):
        assert observe(h, seat).announcements == {2: "whistle"}


def test_tens_exchanged_away_are_not_announced():
    h = build(THREE_TENS, top=("QD", "KD", "AD", "7D"))
    replay_actions(h, "2 exchange", "1 play 9S")
    assert h.result()["announcements"] == {}


def test_tens_taken_in_an_exchange_are_announced():
    h = build(NO_TENS, top=("10S", "10D", "10H", "8C"))
    replay_actions(h, "2 exchange", "1 play 9S")
    assert h.result()["announcements"] == {"2": "whistle"}


def test_a_player_with_three_tens_announces_nothing_more():
    h = replay_actions(build(THREE_TENS), "1 play 9S")
    assert refused(h, "2 announce stand") == "cannot_announce"
    assert refused(h, "2 announce whistle") == "cannot_announce"


def test_nobody_else_may_whistle_or_stand():
    h = replay_actions(build(THREE_TENS), "1 play 9S")
    assert refused(h, "3 announce whistle") == "cannot_announce"
    assert refused(h, "0 announce stand") == "cannot_announce"


def test_with_announcements_off_nothing_is_announced():
    h = replay_actions(build(FOUR_TENS, rules=rules(announcements=False)), "1 play 9S")
    assert h.result()["announcements"] == {}
    h = replay_actions(build(THREE_JACKS, rules=rules(announcements=False)), "1 play 10S")
    assert refused(h, "3 announce whistle") == "cannot_announce"


# -- jacks ------------------------------------------------------------------------------------


def test_three_jacks_are_not_announced_by_themselves():
    h = replay_actions(build(THREE_JACKS), "1 play 10S")
    assert h.result()["announcements"] == {}


def test_three_jacks_may_whistle():
    h = replay_actions(build(THREE_JACKS), "1 play 10S", "3 announce whistle")
    assert h.result()["announcements"] == {"3": "whistle"}


def test_three_jacks_may_not_stand():
    h = replay_actions(build(THREE_JACKS), "1 play 10S")
    assert refused(h, "3 announce stand") == "cannot_announce"


@pytest.mark.parametrize("kind", ["whistle", "stand"])
def test_four_jacks_may_whistle_or_stand(kind):
    h = replay_actions(build(FOUR_JACKS), "1 play 10S", f"3 announce {kind}")
    assert h.result()["announcements"] == {"3": kind}


def test_a_jacks_announcement_is_made_only_once():
    h = replay_actions(build(FOUR_JACKS), "1 play 10S", "3 announce whistle")
    assert refused(h, "3 announce whistle") == "cannot_announce"
    assert refused(h, "3 announce stand") == "cannot_announce"


def test_jacks_may_be_announced_until_the_first_trick_is_complete():
    h = replay_actions(build(THREE_JACKS), *FIRST_TRICK[:3])
    replay_actions(h, "3 announce whistle")
    assert h.result()["announcements"] == {"3": "whistle"}


def test_jacks_may_not_be_announced_once_the_first_trick_is_complete():
    h = replay_actions(build(FOUR_JACKS), *FIRST_TRICK)
    assert refused(h, "3 announce whistle") == "cannot_announce"


def test_jacks_exchanged_away_may_not_be_announced():
    h = build(THREE_JACKS, top=("QD", "KD", "AD", "7D"))
    replay_actions(h, "3 exchange", "1 play 10S")
    assert refused(h, "3 announce whistle") == "cannot_announce"


# reading: an announcement is an action "of any other kind", so it ends the laundry (the jacks
# counted are those held then).
def test_announcing_jacks_ends_the_laundry():
    h = replay_actions(build(THREE_JACKS), "3 announce whistle")
    assert refused(h, "0 exchange") == "cannot_exchange"


# reading: "no answers are awaited" -> the refusal is the general one for answers being due.
def test_jacks_may_not_be_announced_while_answers_are_awaited():
    h = replay_actions(build(THREE_JACKS), "1 play 10S", "0 knock")
    assert refused(h, "3 announce whistle") == "answers_awaited"
    replay_actions(h, "1 stay", "2 stay", "3 stay", "3 announce whistle")
    assert h.result()["announcements"] == {"3": "whistle"}


# reading: "while she has not folded" -> a folded seat is refused as folded.
def test_a_folded_player_may_not_announce_jacks():
    h = replay_actions(build(THREE_JACKS), "0 knock", "1 stay", "2 stay", "3 fold")
    assert refused(h, "3 announce whistle") == "folded"
