"""The live table's prepared queries against the ORM's own answers, on whatever database this
process uses (SQLite in tests/live, PostgreSQL in tests/scaleout)."""

from __future__ import annotations

from typing import Any

from django.db.models import Model

from games.models import ActionReceipt, PlayedHand, Rubber, Seat, Table
from games.services import store
from games.services.state import CHANGED_FIELDS
from games.services.store import claim, reads


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
        compare("table", store.table(table_id), list(Table.objects.filter(pk=table_id)))
        compare(
            "seats",
            store.seats(table_id),
            list(Seat.objects.filter(table_id=table_id).order_by("index")),
        )
        rubbers = list(Rubber.objects.filter(table_id=table_id).order_by("-number")[:1])
        compare("last rubber", store.last_rubber(table_id), rubbers)
        hands = list(PlayedHand.objects.filter(rubber=rubbers[0]).order_by("-number")[:1])
        compare("last hand", store.last_hand(rubbers[0].pk), hands)
        compare(
            "receipt",
            reads.RECEIPT(table_id, action_id),
            list(
                ActionReceipt.objects.filter(table_id=table_id, action_id=action_id).values_list(
                    "version"
                )
            ),
        )
    return found


def write_mismatches(table_id: int) -> list[str]:
    """What the prepared writes store differently from what the ORM stores for the same values
    (nothing, if they are right): each value is written both ways and read back by the ORM."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import PlayedHand

    found = []
    now = timezone.now()
    values = {
        "version": 41,
        "changed_at": now,
        "laundry_until": now + timedelta(seconds=7),
        "laundry_ready": [0, 2],
        "awaiting_since": None,
        "status": Table.Status.PLAYING,
        "bots_offered": [],
        "deadline_at": now + timedelta(minutes=1),
        "paused": False,
    }
    assert tuple(values) == CHANGED_FIELDS
    version = Table.objects.get(pk=table_id).version
    # The claim: written only at the version it names.
    assert claim.CLAIM(table_id, version + 1, *values.values()) == 0
    assert claim.CLAIM(table_id, version, *values.values()) == 1
    prepared = columns(Table.objects.get(pk=table_id))
    Table.objects.filter(pk=table_id).update(**values)
    if prepared != (orm := columns(Table.objects.get(pk=table_id))):
        found.append(f"table: {prepared!r} != {orm!r}")

    hand = PlayedHand.objects.filter(rubber__table_id=table_id).order_by("-number").first()
    if hand is None:
        return [*found, "no hand to write to"]
    record = {**hand.record, "actions": [*hand.record["actions"], {"seat": 0, "act": "knock"}]}
    claim.HAND_RECORD(hand.pk, record)
    prepared = columns(PlayedHand.objects.get(pk=hand.pk))
    PlayedHand.objects.filter(pk=hand.pk).update(record=record)
    if prepared != (orm := columns(PlayedHand.objects.get(pk=hand.pk))):
        found.append(f"record: {prepared!r} != {orm!r}")

    claim.NEW_RECEIPT(table_id, "written", 41, now)
    receipt = ActionReceipt.objects.get(table_id=table_id, action_id="written")
    expected = ActionReceipt(
        pk=receipt.pk, table_id=table_id, action_id="written", version=41, created_at=now
    )
    expected.save()  # the ORM writes the same row again: what it reads back must not change
    if columns(receipt) != columns(ActionReceipt.objects.get(pk=receipt.pk)):
        found.append(f"receipt: {columns(receipt)!r}")
    return found
