"""The Toepen rules engine: pure Python, no Django.

hand = Hand.deal(rules, lives, dealer, seed)
hand = Hand.slate_hand(rules, lives, dealer)  # real cards: the app keeps the slate
legal_actions(hand, seat)      # what a seat may do now, in turn or not
apply(hand, action)            # validate and apply in place, or raise IllegalAction
observe(hand, seat)            # what a seat (None: a spectator) may see
public_fields(hand)            # what every seat sees alike (observe's for several seats)
replay(record)                 # a toepen-hand/1 record -> its toepen-result/1
replayed(record)               # a toepen-hand/1 record -> its Hand, every action applied
"""

from __future__ import annotations

from .actions import Action, announce, challenge, exchange, fold, knock, last_trick, play, stay
from .cards import TOKENS, CardError, card_from_token, token
from .errors import ERROR_CODES, BadRecord, EngineError, IllegalAction
from .hand import Hand, Trick
from .observe import Observation, observe, public_fields
from .record import parse_action, parse_record, replay, replay_parsed, replayed
from .rubber import Rubber, RubberOver
from .rules import (
    BUILT_IN_PROFILES,
    CLASSIC,
    KROEG,
    SIWWESCHROOM,
    TOURNAMENT,
    HouseRules,
    RulesError,
)


def legal_actions(hand: Hand, seat: int) -> list[Action]:
    return hand.legal_actions(seat)


def apply(hand: Hand, action: Action) -> Hand:
    return hand.apply(action)


__all__ = [
    "BUILT_IN_PROFILES",
    "CLASSIC",
    "ERROR_CODES",
    "KROEG",
    "SIWWESCHROOM",
    "TOKENS",
    "TOURNAMENT",
    "Action",
    "BadRecord",
    "CardError",
    "EngineError",
    "Hand",
    "HouseRules",
    "IllegalAction",
    "Observation",
    "Rubber",
    "RubberOver",
    "RulesError",
    "Trick",
    "announce",
    "apply",
    "card_from_token",
    "challenge",
    "exchange",
    "fold",
    "knock",
    "last_trick",
    "legal_actions",
    "observe",
    "parse_action",
    "parse_record",
    "play",
    "public_fields",
    "replay",
    "replay_parsed",
    "replayed",
    "stay",
    "token",
]
