"""What one seat may see of a hand, and what a spectator may see.

This is the only door from the state to a player's screen or a computer player: every view the
server renders and every bot decision starts here, so no hidden card can leak past it.
Visible to all: the table (cards played, lives, stake, knocks, answers, folds, announcements),
cards shown by a challenge, and the hands of players penalised with `open_hand`. Visible to a
seat besides: its own hand and the cards it laid aside itself. A slate hand (`slate`) holds no
cards at all: its hands, tricks and reveals are empty, and `open_hands` names the seats that
play their real cards face up.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .actions import Action
from .cards import TOKENS
from .hand import Hand


class Observation(NamedTuple):
    """One seat's view of a hand (immutable; a named tuple: made per phone and per bot decision,
    it costs a fifth of what a frozen dataclass of as many fields costs to make)."""

    seat: int | None
    players: tuple[str, ...]
    dealer: int
    lives: tuple[int, ...]
    lives_lost: tuple[int, ...]
    immune: tuple[int, ...]
    stake: int
    laundry_open: bool
    poverty: bool
    poor: tuple[int, ...]
    stock_count: int
    hand_sizes: tuple[int, ...]
    hand: tuple[int, ...] | None
    laid_aside: tuple[int, ...]
    open_hands: dict[int, tuple[int, ...]]
    exchanges: tuple[int, ...]
    reveals: tuple[tuple[int, int, tuple[int, ...], bool], ...]
    folded: tuple[int, ...]
    knocks: tuple[int, ...]
    last_knocker: int | None
    answer_to: int | None
    awaiting: tuple[int, ...]
    to_play: int | None
    tricks: tuple[tuple[int, tuple[tuple[int, int], ...], int | None], ...]
    announcements: dict[int, str]
    may_announce: tuple[str, ...]
    history: tuple[Action, ...]
    legal: tuple[Action, ...]
    complete: bool
    winner: int | None
    last_trick_winner: int | None
    next_dealer: int | None
    slate: bool = False

    def visible_cards(self) -> set[int]:
        """Every card this observation shows, wherever it stands."""
        cards: set[int] = set(self.hand or ()) | set(self.laid_aside)
        for shown in self.open_hands.values():
            cards.update(shown)
        for _, _, shown_cards, _ in self.reveals:
            cards.update(shown_cards)
        for _, plays, _ in self.tricks:
            cards.update(card for _, card in plays)
        return cards

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "players": list(self.players),
            "dealer": self.dealer,
            "lives": list(self.lives),
            "lives_lost": list(self.lives_lost),
            "immune": list(self.immune),
            "stake": self.stake,
            "laundry_open": self.laundry_open,
            "poverty": self.poverty,
            "poor": list(self.poor),
            "stock_count": self.stock_count,
            "hand_sizes": list(self.hand_sizes),
            "hand": _tokens(self.hand),
            "laid_aside": _tokens(self.laid_aside),
            "open_hands": {str(seat): _tokens(cards) for seat, cards in self.open_hands.items()},
            "exchanges": list(self.exchanges),
            "reveals": [
                {"challenger": c, "target": t, "cards": _tokens(cards), "clean": clean}
                for c, t, cards, clean in self.reveals
            ],
            "folded": list(self.folded),
            "knocks": list(self.knocks),
            "last_knocker": self.last_knocker,
            "answer_to": self.answer_to,
            "awaiting": list(self.awaiting),
            "to_play": self.to_play,
            "tricks": [
                {
                    "leader": leader,
                    "plays": [[seat, TOKENS[card]] for seat, card in plays],
                    "winner": winner,
                }
                for leader, plays, winner in self.tricks
            ],
            "announcements": {str(seat): kind for seat, kind in self.announcements.items()},
            "may_announce": list(self.may_announce),
            "history": [action.to_json() for action in self.history],
            "legal": [action.to_json() for action in self.legal],
            "complete": self.complete,
            "winner": self.winner,
            "last_trick_winner": self.last_trick_winner,
            "next_dealer": self.next_dealer,
            "slate": self.slate,
        }


def _tokens(cards: tuple[int, ...] | None) -> list[str] | None:
    # (at the module's level: mypyc fails on a function nested in a named tuple's method)
    return None if cards is None else [TOKENS[card] for card in cards]


def observe(hand: Hand, seat: int | None, public: dict[str, Any] | None = None) -> Observation:
    """What `seat` may see; `seat=None` is a spectator, who sees no hidden card. `public`:
    `public_fields(hand)` when the caller observes the same hand for several seats."""
    n = hand.n
    if seat is not None and not 0 <= seat < n:
        raise ValueError(f"there is no seat {seat} in this hand")
    if public is None:
        public = public_fields(hand)
    if seat is None:
        return _observation(public, None, None, (), (), ())
    return _observation(
        public,
        seat,
        tuple(hand.hands[seat]),
        tuple(hand.laid[seat]),
        hand.may_announce[seat],
        tuple(hand.legal_actions(seat)),
    )


def _observation(
    public: dict[str, Any],
    seat: int | None,
    hand: tuple[int, ...] | None,
    laid_aside: tuple[int, ...],
    may_announce: tuple[str, ...],
    legal: tuple[Action, ...],
) -> Observation:
    """The observation of `public_fields` and one seat's own fields, made from its values in
    the fields' order: a view's or a computer player's every observation is made here, and the
    named tuple's own `__new__` took its 33 fields by keyword, from a dict unpacked for it, at
    three times the cost (tests/engine/test_properties.py holds the two to the same result)."""
    p = public
    return Observation._make(
        (
            seat,
            p["players"],
            p["dealer"],
            p["lives"],
            p["lives_lost"],
            p["immune"],
            p["stake"],
            p["laundry_open"],
            p["poverty"],
            p["poor"],
            p["stock_count"],
            p["hand_sizes"],
            hand,
            laid_aside,
            p["open_hands"],
            p["exchanges"],
            p["reveals"],
            p["folded"],
            p["knocks"],
            p["last_knocker"],
            p["answer_to"],
            p["awaiting"],
            p["to_play"],
            p["tricks"],
            p["announcements"],
            may_announce,
            p["history"],
            legal,
            p["complete"],
            p["winner"],
            p["last_trick_winner"],
            p["next_dealer"],
            p["slate"],
        )
    )


def public_fields(hand: Hand) -> dict[str, Any]:
    """The fields of an observation of `hand` that every seat and a spectator see alike: no
    seat's hidden card (only the hands shown with `open_hand`). The observations made from one
    of these share its values: like the observations themselves, they are only read."""
    n = hand.n
    return {
        "players": tuple(hand.players),
        "dealer": hand.dealer,
        "lives": tuple(hand.lives),
        "lives_lost": tuple(hand.lost),
        "immune": tuple(s for s in range(n) if hand.immune[s]),
        "stake": hand.stake,
        "laundry_open": hand.laundry,
        "poverty": hand.poverty,
        "poor": tuple(s for s in range(n) if hand.poverty and hand.poor[s]),
        "stock_count": hand.stock_count,
        "hand_sizes": tuple(len(cards) for cards in hand.hands),
        "open_hands": {s: tuple(hand.hands[s]) for s in range(n) if hand.open_hand[s]},
        "exchanges": tuple(hand.exchanges),
        "reveals": tuple((r.challenger, r.target, r.cards, r.clean) for r in hand.reveals),
        "folded": tuple(s for s in range(n) if hand.folded[s]),
        "knocks": tuple(hand.knocks),
        "last_knocker": hand.last_knocker,
        "answer_to": hand.answer_to,
        "awaiting": tuple(hand.awaiting),
        "to_play": hand.to_play,
        "tricks": tuple((t.leader, tuple(t.plays), t.winner) for t in hand.tricks),
        "announcements": dict(hand.announcements),
        "history": tuple(hand.actions),
        "complete": hand.complete,
        "winner": hand.winner,
        "last_trick_winner": hand.last_trick_winner,
        "next_dealer": hand.next_dealer(),
        "slate": hand.slate,
    }
