"""Actions: small immutable tuples, interned so the hot paths allocate nothing."""

from __future__ import annotations

from typing import Any, Final, Literal, NamedTuple

from .cards import TOKENS, card_from_token

# `play` and `announce` belong to hands played with cards, `last_trick` to slate hands (3.9).
Act = Literal["exchange", "challenge", "knock", "stay", "fold", "play", "announce", "last_trick"]
KINDS: Final = ("whistle", "stand")
MAX_SEATS: Final = 8


class Action(NamedTuple):
    """One action of one seat. `card` is a card int; `auto`: the table did it for the player;
    `clean`: a slate hand's challenge says what the laid-aside cards showed."""

    seat: int
    act: Act
    card: int | None = None
    target: int | None = None
    kind: str | None = None
    auto: bool = False
    clean: bool | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat, "act": self.act}
        if self.card is not None:
            data["card"] = TOKENS[self.card]
        if self.target is not None:
            data["target"] = self.target
        if self.clean is not None:
            data["clean"] = self.clean
        if self.kind is not None:
            data["kind"] = self.kind
        if self.auto:
            data["auto"] = True
        return data

    def as_auto(self) -> Action:
        return self._replace(auto=True)


def _table() -> tuple[
    list[Action],
    list[Action],
    list[Action],
    list[Action],
    list[list[Action]],
    list[list[Action]],
    list[dict[str, Action]],
]:
    seats = range(MAX_SEATS)
    return (
        [Action(s, "exchange") for s in seats],
        [Action(s, "knock") for s in seats],
        [Action(s, "stay") for s in seats],
        [Action(s, "fold") for s in seats],
        [[Action(s, "play", card=c) for c in range(32)] for s in seats],
        [[Action(s, "challenge", target=t) for t in seats] for s in seats],
        [{kind: Action(s, "announce", kind=kind) for kind in KINDS} for s in seats],
    )


EXCHANGE, KNOCK, STAY, FOLD, PLAY, CHALLENGE, ANNOUNCE = _table()
LAST_TRICK: Final = [Action(s, "last_trick") for s in range(MAX_SEATS)]
# A slate challenge by seat, target and outcome: SLATE_CHALLENGE[seat][target][clean].
SLATE_CHALLENGE: Final = [
    [
        (
            Action(s, "challenge", target=t, clean=False),
            Action(s, "challenge", target=t, clean=True),
        )
        for t in range(MAX_SEATS)
    ]
    for s in range(MAX_SEATS)
]


def exchange(seat: int) -> Action:
    return EXCHANGE[seat]


def knock(seat: int) -> Action:
    return KNOCK[seat]


def stay(seat: int) -> Action:
    return STAY[seat]


def fold(seat: int) -> Action:
    return FOLD[seat]


def play(seat: int, card: int | str) -> Action:
    return PLAY[seat][card_from_token(card) if isinstance(card, str) else card]


def challenge(seat: int, target: int, clean: bool | None = None) -> Action:
    """A challenge of `target`'s latest exchange; in a slate hand with its outcome `clean`."""
    return CHALLENGE[seat][target] if clean is None else SLATE_CHALLENGE[seat][target][clean]


def last_trick(seat: int) -> Action:
    """In a slate hand: `seat` took the fourth trick."""
    return LAST_TRICK[seat]


def announce(seat: int, kind: str) -> Action:
    return ANNOUNCE[seat][kind]
