"""A night's money: who pays whom once its pot rubbers are counted (rules.md 3.10).

Amounts are whole cents everywhere (the house rule `pot_stake` is in cents), so nothing is lost
to rounding; they become the club's currency only where a person reads them
(`clubs.money.money`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple


class Payment(NamedTuple):
    """One payment of a settlement: `payer` gives `payee` `cents` (players by key)."""

    payer: str
    payee: str
    cents: int


def settle_up(balances: Mapping[str, int]) -> list[Payment]:
    """Who pays whom so that every balance (cents won less cents staked) comes to zero.

    The balances must add up to zero (every cent won was staked by someone). Each payment
    settles the largest debt against the largest claim, so each one clears at least one person
    and the last clears two: never more than (people who owe or are owed) - 1 payments.
    Deterministic: ties go by key."""
    if sum(balances.values()) != 0:
        raise ValueError("the balances do not add up to zero")
    owing = {key: -cents for key, cents in balances.items() if cents < 0}
    owed = {key: cents for key, cents in balances.items() if cents > 0}
    payments = []
    while owing:
        payer = max(owing, key=lambda key: (owing[key], _desc(key)))
        payee = max(owed, key=lambda key: (owed[key], _desc(key)))
        cents = min(owing[payer], owed[payee])
        payments.append(Payment(payer, payee, cents))
        for side, key in ((owing, payer), (owed, payee)):
            side[key] -= cents
            if not side[key]:
                del side[key]
    return payments


def _desc(key: str) -> tuple[int, ...]:
    # `max` picks the first key in order among equal amounts.
    return tuple(-ord(char) for char in key)
