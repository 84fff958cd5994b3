"""Who pays whom at the end of a night: every balance settled, in the fewest payments allowed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nights.money import Payment, settle_up


@st.composite
def balances(draw: st.DrawFn) -> dict[str, int]:
    """Balances that add up to zero, as a night's pots leave them (what one wins, others put in)."""
    keys = draw(st.lists(st.sampled_from([f"u:{n}" for n in range(12)] + ["b:Bot"]), unique=True))
    amounts = [draw(st.integers(-50_000, 50_000)) for _key in keys]
    if keys:
        amounts[-1] -= sum(amounts)
    return dict(zip(keys, amounts, strict=True))


@given(balances())
def test_a_settlement_brings_every_balance_to_zero_in_at_most_people_less_one_payments(
    balance: dict[str, int],
) -> None:
    payments = settle_up(balance)
    left = dict(balance)
    for payment in payments:
        assert payment.cents > 0 and payment.payer != payment.payee
        left[payment.payer] += payment.cents
        left[payment.payee] -= payment.cents
    assert all(cents == 0 for cents in left.values())
    people = sum(1 for cents in balance.values() if cents)
    assert len(payments) <= max(people - 1, 0)
    # Only people who owe pay, and only people who are owed are paid.
    assert all(balance[p.payer] < 0 < balance[p.payee] for p in payments)


def test_one_winner_is_paid_by_each_of_the_others():
    payments = settle_up({"u:1": 750, "u:2": -250, "u:3": -250, "u:4": -250})
    assert sorted(payments) == [
        Payment("u:2", "u:1", 250),
        Payment("u:3", "u:1", 250),
        Payment("u:4", "u:1", 250),
    ]


def test_everyone_square_pays_nothing():
    assert settle_up({"u:1": 0, "u:2": 0}) == []
    assert settle_up({}) == []


def test_balances_that_do_not_add_up_are_refused():
    with pytest.raises(ValueError, match="zero"):
        settle_up({"u:1": 100, "u:2": -99})
