"""What a change writes beside the table's row, as the rule code asks for it: a new hand, the
end of a hand, a row's fields, or a piece of ORM work (a new rubber and its players, a
rubber's end with the nights hook). The rule code says which rows; this module says how: as
plain statements (`TableState.statements`), which every executor runs, the event loop's
writers too, or as ORM work (`TableState.later`), which only a worker thread's connection
runs. `commit` (games/services/store/__init__.py) reads which of the two a change holds."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.db import connection
from django.db.models import Model
from django.utils import timezone

from games.models import PlayedHand, Rubber, RubberPlayer
from games.services.prepared import RowCreate, RowUpdate, Statement, run_all
from games.services.store.reads import quoted

if TYPE_CHECKING:
    from games.services.state import TableState

# The end of a hand: its row and its rubber's, as the engine leaves them (games.services.state's
# `finish_hand`), and each player's tally.
HAND_END = RowUpdate(PlayedHand, ("record", "complete", "result", "finished_at"))
RUBBER_END = RowUpdate(
    Rubber,
    ("lives", "dealer", "over", "winner", "losers", "finished_at", "went_out", "pot_takers"),
)
# A hand dealt: its new row (the ORM's insert was a fifth of a deal's time).
NEW_HAND = RowCreate(
    PlayedHand,
    ("rubber", "number", "seats", "record", "complete", "result", "started_at", "finished_at"),
)


def with_new_hand(state: TableState, row: PlayedHand) -> None:
    """The change inserts `row`, a hand just dealt: after its rubber's row when the same change
    inserts that first (a new rubber: the ORM writes it), else as a plain statement, its key
    read back into `row`."""
    if row.rubber.pk is None:
        state.later.append(lambda: insert_hand(row))
    else:
        state.statements.append(lambda db: new_hand(db, row))


def with_hand_end(
    state: TableState, hand: PlayedHand, rubber: Rubber, lives_lost: dict[int, int]
) -> None:
    """The change writes the end of `hand`: its row with its whole record, its rubber's, and
    the lives each player lost added to her tally."""
    state.statements.append(lambda db: hand_end(db, hand, rubber, lives_lost))


def with_update(state: TableState, row: Model, **fields: Any) -> None:
    """The change sets `fields` of `row` (a seat, a rubber) in the database."""
    rows = type(row)._default_manager.filter(pk=row.pk)
    state.later.append(lambda: rows.update(**fields))


def with_work(state: TableState, work: Callable[[], None]) -> None:
    """The change runs `work`, ORM writes, in its transaction after the claim (a new rubber and
    its players; a rubber's end, whose nights hook writes rows of its own)."""
    state.later.append(work)


def hand_end(
    db: Any, hand: PlayedHand, rubber: Rubber, lives_lost: dict[int, int]
) -> list[tuple[str, list[Any]]]:
    """The end of a hand as statements for `db` (a connection, which need not be connected):
    the hand's row with its whole record, the rubber's, and the lives each player lost added
    to her tally (built once: the ORM's saves and updates were a few per cent of a busy
    server's time)."""
    statements = [
        HAND_END.statement(
            db, (hand.record, hand.complete, hand.result, hand.finished_at), (hand.pk,)
        ),
        RUBBER_END.statement(
            db,
            (
                rubber.lives,
                rubber.dealer,
                rubber.over,
                rubber.winner,
                rubber.losers,
                rubber.finished_at,
                rubber.went_out,
                rubber.pot_takers,
            ),
            (rubber.pk,),
        ),
    ]
    tally = _TALLIES.get(db.vendor)
    if tally is None:
        table, _, lost, of, at = quoted(db, RubberPlayer, "lives_lost", "rubber", "seat")
        tally = _TALLIES[db.vendor] = (
            f"UPDATE {table} SET {lost} = {lost} + %s WHERE {of} = %s AND {at} = %s"  # noqa: S608
        )
    statements += [(tally, [n, rubber.pk, seat]) for seat, n in lives_lost.items() if n]
    return statements


_TALLIES: dict[str, str] = {}  # a player's tally, by the database's vendor


def new_hand(db: Any, row: PlayedHand) -> list[Statement]:
    """Insert `row`, a hand just dealt, as its `save` would, as a statement for `db`: its
    start stamped now, its rubber's key taken from the rubber row, its own key read back
    into it when the statement has run (`Returning`)."""
    rubber_id = row.rubber.pk
    if rubber_id is None:
        raise ValueError("a hand's rubber is written before the hand")
    row.rubber_id = rubber_id
    row.started_at = timezone.now()

    def keyed(key: int) -> None:
        row.pk = key
        row._state.adding = False
        row._state.db = NEW_HAND.alias

    values = (rubber_id, row.number, row.seats, row.record, row.complete, row.result)
    return [NEW_HAND.creating(db, (*values, row.started_at, row.finished_at), keyed)]


def insert_hand(row: PlayedHand) -> None:
    """`new_hand` run now, in the change's transaction (a worker thread's `later`: the hand
    of a rubber whose own row the same change inserts first)."""
    with connection.cursor() as cursor:
        run_all(cursor, new_hand(connection, row))
