"""Prepared queries give what the ORM gives, and refuse queries they cannot prepare."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import ActionReceipt, Seat, Table
from games.services import store
from games.services.prepared import Prepared, RowUpdate
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
    assert store._RECEIPT(table.pk, "a1") == [(7,)]
    assert store._RECEIPT(table.pk, "a2") == []
    assert store.table(table.pk + 1000) == []


def test_the_live_writes_store_what_the_orm_stores(klaver: Cast) -> None:
    table = four_people_table(klaver)
    assert write_mismatches(table.pk) == []


def test_a_prepared_write_takes_plain_columns_and_all_its_values() -> None:
    with pytest.raises(ValueError, match="plain columns"):
        RowUpdate(Table, ("receipts",))  # not a column of the table
    with pytest.raises(ValueError, match="values are needed"):
        store._HAND_RECORD(1)


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
