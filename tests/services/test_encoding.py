"""The games app's JSON columns are written with orjson (games/encoding.py): the same values as
Python's own encoder gives, and the same refusal of what JSON cannot hold."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.encoding import ColumnEncoder
from games.models import PlayedHand, Rubber, Table

leaves = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=12)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=6) | st.integers(0, 99), inner, max_size=4)
    ),
    max_leaves=30,
)


@given(values)
def test_it_writes_what_json_writes(value: object) -> None:
    # Keys that are numbers become strings, tuples lists, text stays text (escapes and all).
    ours = json.dumps(value, cls=ColumnEncoder)
    assert json.loads(ours) == json.loads(json.dumps(value))


@pytest.mark.parametrize("value", [Decimal("1.5"), {1, 2}, 1.5j, object()])
def test_what_json_cannot_hold_is_refused_as_json_refuses_it(value: object) -> None:
    with pytest.raises(TypeError):
        json.dumps(value)
    with pytest.raises(TypeError):
        json.dumps({"actions": [value]}, cls=ColumnEncoder)


def test_every_json_column_of_the_games_app_uses_it() -> None:
    for model in (Table, Rubber, PlayedHand):
        for field in model._meta.get_fields():
            if field.get_internal_type() == "JSONField":
                assert field.encoder is ColumnEncoder, f"{model.__name__}.{field.name}"
