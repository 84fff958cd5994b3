"""Typed refusals with the stable codes of hand-record.md."""

from __future__ import annotations

from typing import Final, Literal

ErrorCode = Literal[
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
]

ERROR_CODES: Final[frozenset[str]] = frozenset(ErrorCode.__args__)  # type: ignore[attr-defined]


class EngineError(Exception):
    """Base of the engine's refusals: `code` is stable, `message` is for a person."""

    code: ErrorCode

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class IllegalAction(EngineError):
    """An action the rules do not allow at this point; the state is unchanged.

    `reason` says which rule, finer than the code (a knock refused because the seat knocked
    last, is poor, lacks the lives, or reached its limit): what a player is told, never parsed
    from the message."""

    def __init__(self, code: ErrorCode, message: str, reason: str | None = None) -> None:
        super().__init__(code, message)
        self.reason = reason or code


class BadRecord(EngineError):
    """A hand record that is not well formed."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_record", message)
