"""Money as a person reads it: a club's currency, two decimals, in the reader's language."""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from babel.numbers import format_currency
from django.utils.translation import get_language, to_locale

DEFAULT_CURRENCY: Final = "EUR"
# The currencies a club may keep its money in (ISO 4217 codes).
CURRENCIES: Final = ("EUR", "CHF", "GBP", "USD", "DKK", "SEK", "NOK", "PLN", "CZK")


def money(cents: int, currency: str = DEFAULT_CURRENCY, language: str | None = None) -> str:
    """`cents` in `currency` with two decimals, as the reader's language writes money
    ("€ 2,50" in Dutch, "2,50 €" in German, "€2.50" in English): the CLDR's own patterns,
    through Babel."""
    locale = to_locale(language or get_language() or "en")
    return format_currency(Decimal(cents).scaleb(-2), currency, locale=locale)
