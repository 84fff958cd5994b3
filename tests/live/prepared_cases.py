"""The live table's prepared queries against the ORM's own answers, on whatever database this
process uses (SQLite in tests/live, PostgreSQL in tests/scaleout)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Model

from games import services, tables
from games.models import ActionReceipt, Seat, Table


def columns(instance: Model) -> dict[str, tuple[type, Any]]:
    """Every column's value, with its type (a naive datetime equals no aware one, but a str
    holding JSON would equal nothing either: the type makes both differences show)."""
    return {
        field.attname: (type(value := getattr(instance, field.attname)), value)
        for field in instance._meta.concrete_fields
    }


def mismatches(table_id: int, action_id: str) -> list[str]:
    """What the prepared queries answer differently from the ORM for this table (nothing, if
    they are right); the queries are run twice, so that the second answer is the compiled one."""
    found = []

    def compare(name: str, prepared: list[Any], orm: list[Any]) -> None:
        if not orm:
            found.append(f"{name}: the ORM found nothing, so nothing is compared")
        given = [row if isinstance(row, tuple) else columns(row) for row in prepared]
        expected = [row if isinstance(row, tuple) else columns(row) for row in orm]
        if given != expected:
            found.append(f"{name}: {given!r} != {expected!r}")

    for _ in range(2):
        with transaction.atomic():
            compare(
                "lock",
                [services._lock(table_id)],
                [Table.objects.select_for_update().get(pk=table_id)],
            )
        compare("table", services._TABLE(table_id), list(Table.objects.filter(pk=table_id)))
        compare(
            "seats",
            tables._SEATS(table_id),
            list(Seat.objects.filter(table_id=table_id).order_by("index")),
        )
        compare(
            "receipt",
            services._RECEIPT(table_id, action_id),
            list(
                ActionReceipt.objects.filter(table_id=table_id, action_id=action_id).values_list(
                    "version"
                )
            ),
        )
    return found
