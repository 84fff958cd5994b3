"""The phones' heartbeats: a seat's phone is here, written without a new version (nothing a
phone shows changed; the presence read is in reads.py)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection
from django.utils import timezone

from games.models import Seat
from games.services.state import Holder, SeatKeys
from games.services.store.reads import in_parts, quoted


def mark_seen(table_id: int, holder: Holder) -> None:
    """A phone is here: its seats count as connected (one update, no lock, no new version)."""
    if holder.key or holder.user_id is not None or holder.guest_id is not None:
        mark_seen_all([(table_id, holder)])


def mark_seen_all(held: Iterable[tuple[int, Holder]]) -> None:
    """The heartbeats of every phone connected to a process, in one `UPDATE`."""
    holders: dict[int, list[Holder]] = {}
    for table_id, holder in held:
        holders.setdefault(table_id, []).append(holder)
    # Plain statements, not the ORM: a round reads every seat of the process's tables, and the
    # ORM prepared each of the thousands of ids of its `IN` lists one by one.
    table, key, at, *columns = quoted(connection, Seat, "table", *SeatKeys._fields)
    read = f"SELECT {key}, {at}, {', '.join(columns)} FROM {table} WHERE {at} IN ({{}})"  # noqa: S608
    seen = [
        pk
        for pk, table_id, *keys in in_parts(read, list(holders))
        if any(h.holds(SeatKeys(*keys)) for h in holders[table_id])
    ]
    if seen:
        table, key, last_seen = quoted(connection, Seat, "last_seen")
        now = Seat._meta.get_field("last_seen").get_db_prep_save(timezone.now(), connection)
        update = f"UPDATE {table} SET {last_seen} = %s WHERE {key} IN ({{}})"  # noqa: S608
        in_parts(update, seen, [now])
