"""JSON text read and values quoted back, whatever a file or a paste holds.

Python's json gives up on a number of more than 4,300 digits (ValueError, the int-string guard)
and on nesting deeper than its recursion allows (RecursionError), and `repr` and `str` fail on
such values too. Records and house-rule profiles come from people, so both ways are bounded here.
"""

from __future__ import annotations

import json
import reprlib
from typing import Final, Literal

UnreadableCode = Literal["syntax", "number", "depth"]

# Numbers longer than this are said by their length: a message never carries 4,000 digits.
QUOTED_DIGITS: Final = 20
_LOG10_2: Final = 0.30102999566398120


class UnreadableJson(ValueError):
    """JSON text that cannot be read; `code` says why, `line` and `column` where (syntax only)."""

    def __init__(
        self, code: UnreadableCode, message: str, line: int | None = None, column: int | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.line = line
        self.column = column


def read_json(text: str) -> object:
    """The value of a JSON text, or UnreadableJson saying why not."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise UnreadableJson("syntax", str(error), error.lineno, error.colno) from None
    except ValueError:  # the int-string guard: the only other ValueError json.loads raises
        raise UnreadableJson("number", "it holds a number too long to read") from None
    except RecursionError:
        raise UnreadableJson("depth", "it is nested too deep to read") from None


def long_number_digits(value: object) -> int | None:
    """How many digits an integer too long to quote has; None for anything else."""
    if type(value) is not int:
        return None
    number = abs(value)
    if number.bit_length() <= 64:
        return None
    # Counted without converting to text, which Python refuses past 4,300 digits.
    digits = int(number.bit_length() * _LOG10_2) + 1
    while digits > 1 and number < 10 ** (digits - 1):
        digits -= 1
    while number >= 10**digits:
        digits += 1
    return digits if digits > QUOTED_DIGITS else None


class _Quote(reprlib.Repr):
    def repr_int(self, x: int, level: int) -> str:
        digits = long_number_digits(x)
        return repr(x) if digits is None else f"a number of {digits} digits"


_QUOTE: Final = _Quote(
    maxlevel=2, maxtuple=4, maxlist=4, maxdict=4, maxset=4, maxstring=40, maxother=40
)


def shown(value: object) -> str:
    """A value as a message quotes it (repr), cut short whatever its size or depth."""
    return _QUOTE.repr(value)
