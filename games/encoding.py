"""How the games app's JSON columns are written: with orjson.

Every action rewrites its hand's record (a JSON column of about a kilobyte) and the table's
row (two small JSON columns): Python's own encoder took about 4% of a busy server's time,
orjson a fifth of that. It writes the same values (object keys that are numbers become
strings, as with `json`); the text is compact, which no reader of these columns depends on:
they are read back with `json.loads`."""

from __future__ import annotations

import json
from typing import Any

import orjson


def column_text(value: Any) -> str:
    """`value` as a column's JSON text."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


class ColumnEncoder(json.JSONEncoder):
    """A `JSONField`'s encoder (Django calls `json.dumps(value, cls=ColumnEncoder)`)."""

    def encode(self, o: Any) -> str:
        return column_text(o)
