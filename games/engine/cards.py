"""Cards as small ints with readable tokens.

A card is ``suit * 8 + rank``: suits C D H S are 0..3, ranks J Q K A 7 8 9 10 are 0..7 (lowest
to highest), so comparing two cards of one suit is comparing the ints. A token is rank then suit
(``10H``, ``7D``, ``JS``).
"""

from __future__ import annotations

from typing import Final

SUITS: Final = "CDHS"
RANKS: Final = ("J", "Q", "K", "A", "7", "8", "9", "10")
DECK: Final = tuple(range(32))

JACK: Final = 0
SEVEN: Final = 4
TEN: Final = 7

TOKENS: Final = tuple(rank + suit for suit in SUITS for rank in RANKS)
_BY_TOKEN: Final = {token: card for card, token in enumerate(TOKENS)}


class CardError(ValueError):
    """A card token that is not one of the 32."""


def card_from_token(token: object) -> int:
    """The card a token names. A token read from a record or a frame may be any JSON value:
    anything but one of the 32 tokens is a `CardError` (compiled, a wrong type would otherwise
    fail as a `TypeError` before the lookup)."""
    card = _BY_TOKEN.get(token) if isinstance(token, str) else None
    if card is None:
        raise CardError(f"{token!r} is not a card")
    return card


def token(card: int) -> str:
    return TOKENS[card]


def is_face(card: int) -> bool:
    return card & 7 < SEVEN
