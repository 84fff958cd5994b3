"""Prepared queries give what the ORM gives, and refuse queries they cannot prepare."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.db.backends.postgresql.base import DatabaseWrapper as PostgresWrapper
from django.db.models import JSONField, Value
from django.utils import timezone
from hypothesis import given, settings
from hypothesis import strategies as st
from psycopg.types.json import Jsonb

from games.models import ActionReceipt, PlayedHand, Rubber, Seat, Table
from games.services import store
from games.services.prepared import FAST, Prepared, RowUpdate, prepare_all
from games.services.store import claim, reads
from tests.personas import Cast
from tests.services.prepared_cases import mismatches, write_mismatches
from tests.tables import four_people_table

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_live_queries_read_what_the_orm_reads(klaver: Cast) -> None:
    table = four_people_table(klaver)
    # Every kind of column filled: JSON lists, a date and time, text, numbers.
    Table.objects.filter(pk=table.pk).update(
        laundry_ready=[1, 3],
        bots_offered=[2],
        laundry_until=timezone.now() + timedelta(seconds=5),
    )
    ActionReceipt.objects.create(table=table, action_id="a1", version=7)
    assert mismatches(table.pk, "a1") == []
    assert reads.RECEIPT(table.pk, "a1") == [(7,)]
    assert reads.RECEIPT(table.pk, "a2") == []
    assert store.table(table.pk + 1000) == []


def test_the_live_writes_store_what_the_orm_stores(klaver: Cast) -> None:
    table = four_people_table(klaver)
    assert write_mismatches(table.pk) == []


def test_a_prepared_write_takes_plain_columns_and_all_its_values() -> None:
    with pytest.raises(ValueError, match="plain columns"):
        RowUpdate(Table, ("receipts",))  # not a column of the table
    with pytest.raises(ValueError, match="values are needed"):
        claim.HAND_RECORD(1)


def test_equal_parameters_are_run_by_the_orm_until_a_call_tells_them_apart(
    klaver: Cast,
) -> None:
    four_people_table(klaver)
    between = Prepared(
        lambda low, high: Seat.objects.filter(index__gte=low, index__lte=high).order_by("index")
    )
    assert [seat.index for seat in between(1, 1)] == [1]
    assert between.compiled is None
    assert [seat.index for seat in between(3, 1)] == []
    assert [seat.index for seat in between(0, 2)] == [0, 1, 2]
    assert between.compiled is not None
    # Compiled, the placeholders keep their places whatever the values.
    assert [seat.index for seat in between(3, 3)] == [3]
    assert [seat.index for seat in between(2, 1)] == []


@pytest.mark.parametrize(
    "build",
    [
        lambda index: Seat.objects.filter(index=index, bot_level=""),  # a constant
        lambda index: Seat.objects.filter(index__gte=index, index__lte=index),  # used twice
        lambda index, other: Seat.objects.filter(index=index),  # one unused
    ],
    ids=["constant", "twice", "unused"],
)
def test_a_query_that_does_not_take_its_parameters_once_each_is_refused(build) -> None:
    prepared = Prepared(build)
    with pytest.raises(ValueError, match="prepared query"):
        prepared(*([2, 9][: build.__code__.co_argcount]))
    assert prepared.compiled is None


# -- the values the writes prepare without their fields' calls (prepared.FAST) -----------------

_MOMENTS = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
) | st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1))  # naive too
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)
# Every value a write could be handed: the fast types and their look-alikes (a bool for a
# number, a TextChoices member for text, a str for a date), which the fields must still see.
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.text(max_size=8),
    st.sampled_from(list(Table.Status)),
    _MOMENTS,
    _JSON,
    st.just("2026-11-27 20:00:00"),
    st.just(Value(None, JSONField())),
)
_FIELDS = [
    field
    for model in (Table, PlayedHand, Rubber, ActionReceipt, Seat)
    for field in model._meta.concrete_fields
    if not field.primary_key
]


def _as_given(value: Any) -> tuple[type, Any]:
    """A prepared parameter as the database receives it: its type, and its value (psycopg's
    JSON wrapper by what it wraps)."""
    if isinstance(value, Jsonb):
        return (Jsonb, value.obj)
    return (type(value), value)


def _postgresql() -> Any:
    """A PostgreSQL connection's wrapper, never connected: only its `ops` are asked."""
    settings = {**connection.settings_dict, "ENGINE": "django.db.backends.postgresql"}
    return PostgresWrapper(settings, alias="prepared-check")


@pytest.mark.parametrize("vendor", ["sqlite", "postgresql"])
@pytest.mark.filterwarnings("ignore:DateTimeField .* naive datetime:RuntimeWarning")
@given(data=st.data())
@settings(max_examples=300, deadline=None)
def test_the_writes_prepare_every_value_as_its_field_does(vendor: str, data: Any) -> None:
    wrapper = connection if vendor == "sqlite" else _postgresql()
    field = data.draw(st.sampled_from(_FIELDS))
    value = data.draw(_VALUES)
    fast = [FAST.get(type(field))]
    try:
        expected = _as_given(field.get_db_prep_save(value, connection=wrapper))
    except Exception as error:  # the field refuses it: so must the write
        with pytest.raises(type(error)):
            prepare_all([field], fast, (value,), wrapper)
        return
    assert _as_given(prepare_all([field], fast, (value,), wrapper)[0]) == expected


def test_the_fields_that_change_at_every_action_are_prepared_without_their_calls() -> None:
    # The claim's, the receipt's and the hand record's: all but the receipt's table (a foreign
    # key, prepared by its target) are in FAST.
    for write in (claim.CLAIM, claim.NEW_RECEIPT, claim.HAND_RECORD):
        slow = [f.name for f, quick in zip(write.fields, write.fast, strict=True) if quick is None]
        assert slow == (["table"] if write is claim.NEW_RECEIPT else [])
