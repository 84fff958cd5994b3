"""The notices that carry a table's change to the other processes (games/live/notices.py), as their
payload travels, and the hub's listening connection made again when it is lost (games/live/hub.py).
On PostgreSQL itself: tests/services/fault_cases.py, quick_cases.py and tests/scaleout."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.live import hub, notices
from games.models import Table
from games.services import events
from games.services.snapshots import load_state
from games.services.state import TableState, change_of
from tests.live.test_hub import FakePhone, keep_published, moved_elsewhere, play_out_the_hand
from tests.personas import Cast
from tests.tables import clock_plays, four_people_table, play_a_card

pytestmark = pytest.mark.django_db(transaction=True)

OTHER = "another-process"


def as_heard_elsewhere(monkeypatch: pytest.MonkeyPatch, text: str, tables: Any) -> Any:
    """What a process with phones at `tables` hears of a notice this process sent."""
    with monkeypatch.context() as elsewhere:
        elsewhere.setattr(notices, "SENDER", OTHER)
        return notices.heard(text, tables)


def notice_of(state: TableState) -> str:
    return events.notice(state.table.pk, state.table.version, state)


def test_a_notice_moves_another_process_on_exactly_as_the_change_itself(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every kind of change (an action, the end of a hand, a deal) through the notice's text:
    what the other process hears takes its snapshot to exactly the table the database holds."""
    table = four_people_table(klaver)
    published = keep_published(monkeypatch)
    before = load_state(Table.objects.get(pk=table.pk))
    play_a_card(klaver, table, "first")
    heard = as_heard_elsewhere(monkeypatch, notice_of(published[-1]), {table.pk})
    assert heard == {
        "type": "table.changed",
        "table": table.pk,
        "version": published[-1].table.version,
        "change": json.loads(json.dumps(change_of(published[-1]))),
    }
    moved_elsewhere(table.pk, before, heard["change"])

    published = keep_published(monkeypatch)
    before = play_out_the_hand(klaver, table, published)
    heard = as_heard_elsewhere(monkeypatch, notice_of(published[-1]), {table.pk})
    moved, _ = moved_elsewhere(table.pk, before, heard["change"])
    assert moved.hand.complete

    assert clock_plays(table.pk)
    heard = as_heard_elsewhere(monkeypatch, notice_of(published[-1]), {table.pk})
    assert heard["change"]["deal"] == published[-1].hand_row.number


def test_a_process_drops_its_own_notices_and_those_of_tables_without_phones_there(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = four_people_table(klaver)
    published = keep_published(monkeypatch)
    play_a_card(klaver, table, "first")
    text = notice_of(published[-1])
    assert notices.heard(text, {table.pk}) is None  # sent here: the phones here have it
    assert as_heard_elsewhere(monkeypatch, text, {table.pk + 1}) is None
    assert as_heard_elsewhere(monkeypatch, text, {table.pk}) is not None


def test_a_change_too_large_for_a_notice_carries_its_version_alone(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = four_people_table(klaver)
    published = keep_published(monkeypatch)
    play_a_card(klaver, table, "first")
    state = published[-1]
    assert len(notice_of(state).encode()) < events.LIMIT
    monkeypatch.setattr(events, "LIMIT", len(notice_of(state).encode()))
    text = notice_of(state)
    assert len(text.encode()) < events.LIMIT
    heard = as_heard_elsewhere(monkeypatch, text, {table.pk})
    assert heard == {"type": "table.changed", "table": table.pk, "version": state.table.version}


@pytest.mark.parametrize(
    "text",
    ["", "no-spaces", "other x {}", "other 7 not-json", "other 7 []", 'other 7 {"table": 8}'],
)
def test_a_notice_that_is_not_a_tables_change_is_dropped_with_a_warning(
    text: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="games.live.notices"):
        assert notices.heard(text, {7}) is None
    assert caplog.records and all(r.levelno == logging.WARNING for r in caplog.records)


def test_the_embedded_default_announces_nothing(klaver: Cast) -> None:
    """SQLite, one process: a change is written as everywhere, and no notice is sent."""
    assert not notices.enabled()
    table = four_people_table(klaver)
    with CaptureQueriesContext(connection) as queries:
        play_a_card(klaver, table, "quiet-1")
    sql = [query["sql"] for query in queries]
    assert any(s.startswith('UPDATE "games_table"') and '"version" = ' in s for s in sql)
    assert not any("pg_notify" in s or "NOTIFY" in s for s in sql)


async def test_the_embedded_defaults_hub_does_not_listen() -> None:
    here = hub.Hub(asyncio.get_running_loop())
    await here._start()
    try:
        assert sorted(task.get_name() for task in here.tasks) == [
            "toepen-heartbeats",
            "toepen-views",
        ]
    finally:
        for task in here.tasks:
            task.cancel()


def test_the_pauses_before_listening_again_grow_to_two_seconds_at_most() -> None:
    pauses = [notices.pause(failures) for failures in range(9)]
    assert pauses == [0.0, 0.0, 0.1, 0.2, 0.4, 0.8, 1.6, 2.0, 2.0]
    assert notices.pause(1000) == notices.MAX_PAUSE


@dataclass
class Notice:
    payload: str


class ConnectionLost(Exception):
    pass


@dataclass
class FakeListening:
    """A listening connection: `rounds` are what each `notifies` call yields, and whether the
    connection is lost after that (else the call ends at its timeout); after them, it waits
    for ever."""

    rounds: list[tuple[list[str], bool]]
    closed: bool = False
    pinged: int = 0
    waiting: asyncio.Event = field(default_factory=asyncio.Event)

    async def notifies(self, timeout: float | None = None) -> AsyncIterator[Notice]:
        if not self.rounds:
            self.waiting.set()
            await asyncio.Event().wait()
        texts, lost = self.rounds.pop(0)
        for text in texts:
            yield Notice(text)
        if lost:
            raise ConnectionLost

    async def execute(self, sql: str) -> None:
        self.pinged += 1

    async def close(self) -> None:
        self.closed = True


async def test_a_lost_listening_connection_is_made_again_and_the_phones_catch_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first tries fail (the database is away), then a connection hears a change and is
    lost, and the next one works: each new connection is followed by a catch-up (changes
    committed while nobody here listened), the pauses grow with the failures in a row, and a
    connection that answers its ping resets them."""
    table_id = 7
    change = f"{OTHER} {table_id} " + json.dumps({"table": table_id, "version": 3})
    lost = FakeListening([([change], True)])
    lasting = FakeListening([([], False), ([], False)])
    tries: list[Any] = [OSError("away"), OSError("still away"), lost, lasting]
    pauses: list[int] = []
    caught_up = 0

    async def listen() -> FakeListening:
        outcome = tries.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    def pause(failures: int) -> float:
        pauses.append(failures)
        return 0.0

    async def catch_up() -> None:
        nonlocal caught_up
        caught_up += 1

    monkeypatch.setattr(notices, "listen", listen)
    monkeypatch.setattr(notices, "pause", pause)
    here = hub.Hub(asyncio.get_running_loop())
    monkeypatch.setattr(here, "catch_up", catch_up)
    here.phones[table_id] = {FakePhone(table_id, seats=(0,), last_version=2)}
    hearing = asyncio.create_task(here._hear(None))
    try:
        await asyncio.wait_for(lasting.waiting.wait(), 10)
    finally:
        hearing.cancel()
        await asyncio.gather(hearing, return_exceptions=True)
    assert pauses == [0, 1, 2, 3]
    assert caught_up == 2
    assert here.to_render == {table_id: [{"table": table_id, "version": 3}]}
    assert lost.closed and lasting.closed
    assert lasting.pinged == 2 and here.listen_failures == 0
