"""The reads of the live path: a table's rows (prepared once: games/services/prepared.py), an
action's receipt, the tables' versions and deadlines, and the seats' presence, with the helpers
the other store modules build their plain statements with."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterator
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import connection, transaction

from games.models import ActionReceipt, PlayedHand, Rubber, Seat, Table
from games.services.prepared import Prepared

if TYPE_CHECKING:
    from django.db.models import Model

table = Prepared(lambda table_id: Table.objects.filter(pk=table_id))
seats = Prepared(lambda table_id: Seat.objects.filter(table_id=table_id).order_by("index"))
last_rubber = Prepared(
    lambda table_id: Rubber.objects.filter(table_id=table_id).order_by("-number")[:1]
)
last_hand = Prepared(
    lambda rubber_id: PlayedHand.objects.filter(rubber_id=rubber_id).order_by("-number")[:1]
)
RECEIPT = Prepared(
    lambda table_id, action_id: ActionReceipt.objects.filter(
        table_id=table_id, action_id=action_id
    ).values_list("version")[:1]
)
VERSION = Prepared(lambda table_id: Table.objects.filter(pk=table_id).values_list("version"))


def table_row(table_id: int) -> Table | None:
    return next(iter(table(table_id)), None)


def table_with_club(table_id: int) -> Table:
    return Table.objects.select_related("club").get(pk=table_id)


def hand_row(rubber_id: int, number: int) -> PlayedHand | None:
    """The row of a rubber's hand by its number (in a worker thread: it queries the database;
    once a deal another process made, so through the ORM)."""
    # At most one row (a rubber's hands are numbered uniquely); unordered, as `first()` would
    # order it by the model's ordering, which joins the rubber and the table for nothing.
    return next(
        iter(PlayedHand.objects.filter(rubber_id=rubber_id, number=number).order_by()[:1]), None
    )


def receipt(table_id: int, action_id: str) -> int | None:
    """The version an action id was applied at, or None."""
    for (version,) in RECEIPT(table_id, action_id):
        return int(version)
    return None


def version(table_id: int) -> int | None:
    """The table's version in the database, or None when there is no such table."""
    for (found,) in VERSION(table_id):
        return int(found)
    return None


@contextlib.contextmanager
def one_snapshot() -> Iterator[None]:
    """Reads of a table's rows that all see the database at one moment, so a version is never
    shown with a hand from a later one (a commit between reading the table's row and its
    hand's). Inside a transaction that writes the table nothing can change it anyway."""
    if connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        if connection.vendor == "postgresql":
            # READ COMMITTED gives each statement its own snapshot; this, one for all of them.
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


def quoted(db: Any, model: type[Model], *fields: str) -> tuple[str, ...]:
    """`model`'s table, primary key and `fields`' columns, quoted for `db`: the only names the
    plain statements here write into their SQL (every value is a parameter)."""
    quote = db.ops.quote_name
    meta = model._meta
    columns = (quote(meta.get_field(name).column) for name in fields)
    return (quote(meta.db_table), quote(meta.pk.column), *columns)


IN_AT_ONCE = 500  # ids in one statement's `IN` list


def in_parts(sql: str, ids: list[int], params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    """`sql` (its `IN` list written `({})`) run for `ids`, `IN_AT_ONCE` at a time, after
    `params`: the rows it returns."""
    rows: list[tuple[Any, ...]] = []
    with connection.cursor() as cursor:
        for start in range(0, len(ids), IN_AT_ONCE):
            part = ids[start : start + IN_AT_ONCE]
            cursor.execute(sql.format(", ".join(["%s"] * len(part))), [*(params or ()), *part])
            if cursor.description is not None:
                rows += cursor.fetchall()
    return rows


def presence(tables: list[int]) -> list[tuple[int, int, datetime | None]]:
    """Each seat's id, table and `last_seen`, at `tables`, as the ORM reads them (a plain
    statement: the ORM looked up `settings.USE_TZ` for every seat of a heartbeat round)."""
    table, key, at, seen = quoted(connection, Seat, "table", "last_seen")
    rows = in_parts(f"SELECT {key}, {at}, {seen} FROM {table} WHERE {at} IN ({{}})", tables)  # noqa: S608
    aware = moments()
    return [(pk, table_id, aware(moment)) for pk, table_id, moment in rows]


def moments() -> Callable[[datetime | None], datetime | None]:
    """A date and time column's value as the ORM reads it, from this thread's connection's
    plain statement: SQLite hands back the UTC moment without its zone, PostgreSQL with it."""
    zone = connection.timezone if settings.USE_TZ else None

    def aware(moment: datetime | None) -> datetime | None:
        return moment.replace(tzinfo=zone) if zone and moment and not moment.tzinfo else moment

    return aware


def versions(tables: list[int]) -> dict[int, int]:
    table, key, version = quoted(connection, Table, "version")
    return dict(in_parts(f"SELECT {key}, {version} FROM {table} WHERE {key} IN ({{}})", tables))  # noqa: S608


DUE_AT_ONCE = 100  # tables one look of the clock fires at most


def deadlines(
    skip: Collection[int],
    now: datetime,
    first: Collection[int] | None = None,
    others_after: timedelta = timedelta(0),
) -> tuple[list[int], datetime | None]:
    """The tables due at `now` but `skip`, soonest first (`DUE_AT_ONCE` at most), and when the
    next of the others falls due (or sooner): one query, the soonest deadlines in the index.
    `first`: the tables due at their deadline, the others only `others_after` past it (None:
    every table is due at its deadline)."""
    limit = 2 * DUE_AT_ONCE + len(skip) + 1
    # A plain statement, as the ORM would write it: the clock looks up to twenty times a second,
    # and building the query each time cost more than running it.
    table, key, at = quoted(connection, Table, "deadline_at")
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {key}, {at} FROM {table} WHERE {at} IS NOT NULL ORDER BY {at} LIMIT %s",  # noqa: S608
            [limit],
        )
        aware = moments()
        rows = [(table_id, aware(moment)) for table_id, moment in cursor.fetchall()]
    due: list[int] = []
    later: datetime | None = None
    for table_id, deadline in rows:
        if table_id in skip:
            continue
        if deadline > now or len(due) == DUE_AT_ONCE:
            return due, min(deadline, later or deadline)
        if first is not None and table_id not in first and deadline + others_after > now:
            later = min(deadline + others_after, later or deadline + others_after)
            continue
        due.append(table_id)
    # Every row read was due or skipped: the next look comes at once.
    return due, (now if len(rows) == limit else later)
