"""Test helpers: hands built from readable tokens, actions written as short sentences.

An action is written ``"<seat> <act> [<card|target|kind>]"``: ``"1 play 10S"``, ``"2 knock"``,
``"0 challenge 3"``, ``"1 announce whistle"``; a trailing ``auto`` marks it as made by the table.
A slate hand's challenge says what it found, ``"0 challenge 3 clean"`` or ``"0 challenge 3
dirty"``, and its end is ``"2 last_trick"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from games.engine import (
    TOKENS,
    Action,
    Hand,
    HouseRules,
    IllegalAction,
    announce,
    card_from_token,
    challenge,
    exchange,
    fold,
    knock,
    last_trick,
    play,
    stay,
)

# The hand of the worked examples (dealer 0, seat 1 leads): played out without knocks, seat 2
# wins the last trick with 8C.
STANDARD = (
    ("8H", "QS", "AC", "9D"),
    ("7S", "10S", "KH", "JC"),
    ("9S", "8C", "QH", "10D"),
    ("AS", "7C", "JD", "KC"),
)
STANDARD_PLAY = (
    "1 play 10S", "2 play 9S", "3 play AS", "0 play QS",  # seat 1 wins
    "1 play KH", "2 play QH", "3 play JD", "0 play 8H",  # seat 0 wins
    "0 play 9D", "1 play 7S", "2 play 10D", "3 play 7C",  # seat 2 wins
    "2 play 8C", "3 play KC", "0 play AC", "1 play JC",  # seat 2 wins
)  # fmt: skip


def rules(**fields: Any) -> HouseRules:
    return HouseRules.from_json(fields)


def stock_for(hands: Sequence[Sequence[str]], top: Sequence[str] = ()) -> list[str]:
    """The rest of the pack: `top` first (top card first), then every other card in token order."""
    used = [card for hand in hands for card in hand]
    rest = [t for t in TOKENS if t not in used and t not in top]
    stock = [*top, *rest]
    assert len(used) + len(stock) == 32, "a card is dealt twice"
    assert len(set(used) | set(stock)) == 32, "a card is dealt twice"
    return stock


def build(
    hands: Sequence[Sequence[str]] = STANDARD,
    *,
    rules: HouseRules | None = None,
    lives: Sequence[int] | None = None,
    dealer: int = 0,
    immune: Sequence[int] = (),
    top: Sequence[str] = (),
) -> Hand:
    """A dealt hand from token hands; the stock is `top` then the remaining cards."""
    rules = rules or HouseRules()
    n = len(hands)
    return Hand(
        rules,
        list(lives) if lives is not None else [rules.starting_lives] * n,
        dealer,
        [[card_from_token(c) for c in hand] for hand in hands],
        [card_from_token(c) for c in stock_for(hands, top)],
        list(immune),
        [f"P{seat}" for seat in range(n)],
    )


def slate(
    n: int = 4,
    *,
    rules: HouseRules | None = None,
    lives: Sequence[int] | None = None,
    dealer: int = 0,
    immune: Sequence[int] = (),
) -> Hand:
    """A slate hand (rules.md 3.9) of `n` seats, P0 to P(n-1)."""
    rules = rules or HouseRules()
    return Hand.slate_hand(
        rules,
        list(lives) if lives is not None else [rules.starting_lives] * n,
        dealer,
        players=[f"P{seat}" for seat in range(n)],
        immune=immune,
    )


def action(text: str | Action) -> Action:
    if isinstance(text, Action):
        return text
    words = text.split()
    auto = words[-1] == "auto"
    if auto:
        words = words[:-1]
    seat, act, *rest = words
    s = int(seat)
    made: Action
    if act == "play":
        made = play(s, rest[0])
    elif act == "challenge":
        outcome = {"clean": True, "dirty": False}[rest[1]] if len(rest) > 1 else None
        made = challenge(s, int(rest[0]), outcome)
    elif act == "announce":
        made = announce(s, rest[0])
    else:
        simple = {"exchange": exchange, "knock": knock, "stay": stay, "fold": fold}
        made = {**simple, "last_trick": last_trick}[act](s)
    return made.as_auto() if auto else made


def action_json(text: str) -> dict[str, Any]:
    return action(text).to_json()


def replay_actions(hand: Hand, *texts: str | Action, check_legal: bool = True) -> Hand:
    """Apply each action in turn; with `check_legal`, each must be among the seat's legal ones."""
    for text in texts:
        act = action(text)
        if check_legal:
            legal = hand.legal_actions(act.seat)
            # The table may make any action of a player's own for her (`auto`); a player
            # buying the round has only the table's.
            listed = act in legal or (act.auto and act._replace(auto=False) in legal)
            assert listed, f"{text!r} not in legal actions {legal}"
        hand.apply(act)
    return hand


def refused(hand: Hand, text: str | Action) -> str:
    """The code `hand` refuses the action with; the refusal must change nothing."""
    act = action(text)
    before = hand.result()
    before_record = hand.record()
    before_legal = [hand.legal_actions(seat) for seat in range(hand.n)]
    with pytest.raises(IllegalAction) as caught:
        hand.apply(act)
    assert hand.result() == before, "a refused action changed the hand"
    assert hand.record() == before_record
    assert [hand.legal_actions(seat) for seat in range(hand.n)] == before_legal
    if 0 <= act.seat < hand.n:
        assert act._replace(auto=False) not in before_legal[act.seat], "refused yet listed legal"
    return caught.value.code


def make_record(
    hands: Sequence[Sequence[str]] = STANDARD,
    actions: Iterable[str | dict[str, Any]] = (),
    *,
    rules: dict[str, Any] | None = None,
    lives: Sequence[int] | None = None,
    dealer: int = 0,
    immune: Sequence[int] | None = None,
    top: Sequence[str] = (),
) -> dict[str, Any]:
    """A `toepen-hand/1` record; actions as sentences or as ready JSON objects."""
    n = len(hands)
    profile = dict(rules or {})
    starting = profile.get("starting_lives", 10)
    record: dict[str, Any] = {
        "format": "toepen-hand/1",
        "rules": profile,
        "players": [f"P{seat}" for seat in range(n)],
        "lives": list(lives) if lives is not None else [starting] * n,
        "dealer": dealer,
        "hands": [list(hand) for hand in hands],
        "stock": stock_for(hands, top),
        "actions": [a if isinstance(a, dict) else action_json(a) for a in actions],
    }
    if immune is not None:
        record["immune"] = list(immune)
    return record


def make_slate_record(
    actions: Iterable[str | dict[str, Any]] = (),
    *,
    n: int = 4,
    rules: dict[str, Any] | None = None,
    lives: Sequence[int] | None = None,
    dealer: int = 0,
    immune: Sequence[int] | None = None,
) -> dict[str, Any]:
    """A slate `toepen-hand/1` record (no hands, no stock); actions as sentences or JSON."""
    profile = dict(rules or {})
    starting = profile.get("starting_lives", 10)
    record: dict[str, Any] = {
        "format": "toepen-hand/1",
        "rules": profile,
        "players": [f"P{seat}" for seat in range(n)],
        "lives": list(lives) if lives is not None else [starting] * n,
        "dealer": dealer,
        "slate": True,
        "actions": [a if isinstance(a, dict) else action_json(a) for a in actions],
    }
    if immune is not None:
        record["immune"] = list(immune)
    return record
