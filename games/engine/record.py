"""Hand records (`toepen-hand/1`): reading, checking and replaying them (hand-record.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Final

from .actions import (
    ANNOUNCE,
    CHALLENGE,
    EXCHANGE,
    FOLD,
    KNOCK,
    LAST_TRICK,
    PLAY,
    SLATE_CHALLENGE,
    STAY,
    Action,
)
from .cards import _BY_TOKEN
from .errors import BadRecord, IllegalAction
from .hand import CARDS_PER_PLAYER, Hand
from .jsontext import UnreadableJson, read_json, shown
from .rules import CLASSIC, MAX_SEATS, HouseRules, RulesError

FORMAT: Final = "toepen-hand/1"
RESULT_FORMAT: Final = "toepen-result/1"
REQUIRED: Final = frozenset(("format", "players", "lives", "dealer", "hands", "stock", "actions"))
# A slate record (hand-record.md, "Slate records") has no cards: no hands and no stock.
SLATE_REQUIRED: Final = REQUIRED - {"hands", "stock"}
OPTIONAL: Final = frozenset(("rules", "immune", "slate"))
# Each act's fields besides `seat`, `act` and the optional `auto`.
ACT_FIELDS: Final[dict[str, frozenset[str]]] = {
    "exchange": frozenset(),
    "challenge": frozenset(("target",)),
    "knock": frozenset(),
    "stay": frozenset(),
    "fold": frozenset(),
    "play": frozenset(("card",)),
    "announce": frozenset(("kind",)),
}
# A slate hand's acts: no card to play or announce from; a challenge says what it found.
SLATE_ACT_FIELDS: Final[dict[str, frozenset[str]]] = {
    "exchange": frozenset(),
    "challenge": frozenset(("target", "clean")),
    "knock": frozenset(),
    "stay": frozenset(),
    "fold": frozenset(),
    "last_trick": frozenset(),
}
_SIMPLE: Final = {
    "exchange": EXCHANGE,
    "knock": KNOCK,
    "stay": STAY,
    "fold": FOLD,
    "last_trick": LAST_TRICK,
}
_rules_cache: dict[str, HouseRules] = {}


def _is_int(value: object) -> bool:
    return type(value) is int


def _card(value: object, where: str) -> int:
    card = _BY_TOKEN.get(value) if isinstance(value, str) else None
    if card is None:
        raise BadRecord(f"{where}: {value!r} is not one of the 32 cards")
    return card


def _seat(value: object, n: int, where: str) -> int:
    if not _is_int(value) or not 0 <= value < n:  # type: ignore[operator]
        raise BadRecord(f"{where}: {value!r} is not a seat of this hand")
    return value  # type: ignore[return-value]


def _rules(data: object) -> HouseRules:
    if data is None:
        raise BadRecord("rules: must be an object")
    if isinstance(data, Mapping) and not data:
        return CLASSIC  # frozen, so one shared object serves every record of the defaults
    key = json.dumps(data, sort_keys=True) if isinstance(data, Mapping) else None
    if key is not None and key in _rules_cache:
        return _rules_cache[key]
    try:
        rules = HouseRules.from_json(data)
    except RulesError as error:
        raise BadRecord(f"rules: {error}") from None
    except TypeError as error:  # unhashable or odd values
        raise BadRecord(f"rules: {error}") from None
    if key is not None and len(_rules_cache) < 256:
        _rules_cache[key] = rules
    return rules


def parse_action(data: object, n: int, index: int | None = None, *, slate: bool = False) -> Action:
    """One action object of a record (of a slate hand's, with `slate`), checked for form (not
    for legality)."""
    where = "action" if index is None else f"actions[{index}]"
    if not isinstance(data, Mapping):
        raise BadRecord(f"{where}: must be an object")
    act = data.get("act")
    acts = SLATE_ACT_FIELDS if slate else ACT_FIELDS
    if not isinstance(act, str) or act not in acts:
        if slate and act in ("play", "announce"):
            raise BadRecord(f"{where}: a slate hand has no {act}: its cards are real")
        raise BadRecord(f"{where}: unknown act {shown(act)}")
    fields = acts[act]
    for key in data:
        if key not in fields and key not in ("seat", "act", "auto"):
            raise BadRecord(f"{where}: unexpected field {key!r} for {act}")
    if "seat" not in data:
        raise BadRecord(f"{where}: missing field 'seat'")
    for key in fields:
        if key not in data:
            raise BadRecord(f"{where}: missing field {key!r}")
    seat = _seat(data["seat"], n, f"{where}.seat")
    auto = data.get("auto", False)
    if type(auto) is not bool:
        raise BadRecord(f"{where}.auto: must be true or false")
    if act in _SIMPLE:
        action = _SIMPLE[act][seat]
    elif act == "play":
        action = PLAY[seat][_card(data["card"], f"{where}.card")]
    elif act == "challenge":
        target = _seat(data["target"], n, f"{where}.target")
        if not slate:
            action = CHALLENGE[seat][target]
        elif type(data["clean"]) is bool:
            action = SLATE_CHALLENGE[seat][target][data["clean"]]
        else:
            raise BadRecord(f"{where}.clean: must be true or false")
    else:
        kind = data["kind"]
        if kind not in ("whistle", "stand"):
            raise BadRecord(f"{where}.kind: must be whistle or stand, not {kind!r}")
        action = ANNOUNCE[seat][kind]
    return action._replace(auto=True) if auto else action


def parse_record(data: object) -> tuple[Hand, list[Action]]:
    """A dealt (or slate) hand and its actions, or BadRecord saying what is wrong with the
    record."""
    if not isinstance(data, Mapping):
        raise BadRecord("a record must be a JSON object")
    slate = data.get("slate", False)
    if type(slate) is not bool:
        raise BadRecord("slate: must be true or false")
    required = SLATE_REQUIRED if slate else REQUIRED
    for key in required:
        if key not in data:
            raise BadRecord(f"missing field {key!r}")
    for key in data:
        if key not in required and key not in OPTIONAL:
            if slate and key in REQUIRED:
                raise BadRecord(f"{key}: a slate record holds no cards")
            raise BadRecord(f"unknown field {key!r}")
    if data["format"] != FORMAT:
        raise BadRecord(f"format: must be {FORMAT!r}, not {data['format']!r}")
    rules = _rules(data.get("rules", {}))

    players = data["players"]
    if not isinstance(players, list) or not all(isinstance(name, str) for name in players):
        raise BadRecord("players: must be a list of names")
    n = len(players)
    if n > MAX_SEATS:
        raise BadRecord(f"players: {n} seats; a table seats at most {MAX_SEATS}")
    if n < rules.min_players:
        raise BadRecord(f"players: {n} seats; these rules need at least {rules.min_players}")

    lives = data["lives"]
    if not isinstance(lives, list) or len(lives) != n:
        raise BadRecord(f"lives: must be a list of {n} numbers, one per seat")
    for seat, life in enumerate(lives):
        if not _is_int(life) or not 1 <= life <= rules.starting_lives:
            raise BadRecord(
                f"lives[{seat}]: must be from 1 to {rules.starting_lives}, not {life!r}"
            )

    dealer = _seat(data["dealer"], n, "dealer")

    immune_data = data.get("immune", [])
    if not isinstance(immune_data, list):
        raise BadRecord("immune: must be a list of seats")
    immune = [_seat(seat, n, "immune") for seat in immune_data]

    if slate:
        actions = _parse_actions(data["actions"], n, slate=True)
        return Hand.slate_hand(rules, lives, dealer, players=players, immune=immune), actions

    hands_data = data["hands"]
    if not isinstance(hands_data, list) or len(hands_data) != n:
        raise BadRecord(f"hands: must hold {n} hands, one per seat")
    hands: list[list[int]] = []
    for seat, hand in enumerate(hands_data):
        if not isinstance(hand, list) or len(hand) != CARDS_PER_PLAYER:
            raise BadRecord(f"hands[{seat}]: must hold {CARDS_PER_PLAYER} cards")
        hands.append([_card(card, f"hands[{seat}]") for card in hand])
    stock_data = data["stock"]
    if not isinstance(stock_data, list):
        raise BadRecord("stock: must be a list of cards")
    stock = [_card(card, "stock") for card in stock_data]
    seen = 0
    for card in stock:
        seen |= 1 << card
    for hand in hands:
        for card in hand:
            seen |= 1 << card
    if seen != (1 << 32) - 1 or len(stock) + CARDS_PER_PLAYER * n != 32:
        raise BadRecord("hands and stock must hold each of the 32 cards exactly once")

    actions = _parse_actions(data["actions"], n, slate=False)
    hand = Hand(rules, lives, dealer, hands, stock, immune, players)
    return hand, actions


def _parse_actions(data: object, n: int, *, slate: bool) -> list[Action]:
    if not isinstance(data, list):
        raise BadRecord("actions: must be a list")
    return [parse_action(item, n, index, slate=slate) for index, item in enumerate(data)]


def bad_record_result(message: str) -> dict[str, Any]:
    return {
        "format": RESULT_FORMAT,
        "error": {"action": None, "code": "bad_record", "message": message},
    }


def replay(data: object) -> dict[str, Any]:
    """Replay one record and give its `toepen-result/1` object."""
    try:
        hand, actions = parse_record(data)
    except BadRecord as error:
        return bad_record_result(error.message)
    return replay_parsed(hand, actions)


def replayed(data: object) -> Hand:
    """The hand a record holds, with every action of it applied; BadRecord or IllegalAction
    when the engine refuses it."""
    hand, actions = parse_record(data)
    for action in actions:
        hand.apply(action)
    return hand


def replay_parsed(hand: Hand, actions: list[Action]) -> dict[str, Any]:
    """Apply `actions` to a freshly dealt `hand`, stopping at the first illegal one."""
    apply = hand.apply
    for index, action in enumerate(actions):
        try:
            apply(action)
        except IllegalAction as error:
            result = hand.result()
            result["error"] = {"action": index, "code": error.code, "message": error.message}
            return result
    return hand.result()


def read_records(text: str, single_document: bool) -> Iterator[object | BadRecord]:
    """The records of a file: one JSON document, or one per line (blank lines skipped)."""
    if single_document:
        try:
            yield read_json(text)
        except UnreadableJson as error:
            yield BadRecord(f"not JSON: {error}")
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield read_json(line)
        except UnreadableJson as error:
            yield BadRecord(f"line {number}: not JSON: {error}")
