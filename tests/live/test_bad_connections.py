"""Connections that cannot be served: a websocket to a wrong address, and the database down.

Each gets a clear answer (a close code, a 503 page that says to try again), the log at most a
warning, and nothing changes. The database is made unreachable for real: every thread's
connection is closed and the next connect goes to a place where no database is.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connection, connections
from django.test import Client

from games.live import clock
from games.models import Table
from games.services import tables
from tests.personas import Cast
from tests.tables import ORIGIN, connect
from toepen_site.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True)]

HOST = (b"host", b"localhost")


def errors_in(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]


def warnings_in(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def database_down() -> Iterator[None]:
    """Every new connection fails as it would with the database server gone.

    Each thread's connection shares the one settings dict, so pointing it elsewhere reaches the
    websocket's database thread too. A connection already open must be closed first, by its own
    thread (`connection.close()`, or `close_connections` for the database thread)."""
    settings_dict: dict[str, Any] = connections.settings["default"]
    saved = dict(settings_dict)
    if settings_dict["ENGINE"].endswith("sqlite3"):
        settings_dict["NAME"] = "/no-such-directory/toepen.sqlite3"
    else:
        settings_dict.update(HOST="127.0.0.1", PORT=str(closed_port()))
    try:
        yield
    finally:
        settings_dict.clear()
        settings_dict.update(saved)


@database_sync_to_async
def close_connections() -> None:
    connection.close()  # the database thread's own connection


def table_with_anna(klaver: Cast) -> Table:
    return tables.create_table(
        club=klaver.club, user=klaver.anna.user, holder_key=klaver.anna.holder_key
    )


# -- a websocket to an address that is not a table ----------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("path", ["/ws/nowhere/", "/ws/tables/", "/ws/tables/ABC/extra/", "/"])
async def test_a_websocket_to_an_unknown_path_is_closed_as_not_found(
    klaver: Cast, caplog: pytest.LogCaptureFixture, path: str
) -> None:
    communicator = WebsocketCommunicator(
        application, path, headers=[(b"cookie", klaver.anna.cookie()), ORIGIN, HOST]
    )
    connected, code = await communicator.connect(timeout=5)
    assert (connected, code) == (False, 4404)
    assert not errors_in(caplog)


# -- the database down: a phone (re)connecting --------------------------------------------------


@pytest.mark.asyncio
async def test_a_phone_connecting_while_the_database_is_down_is_told_to_try_again(
    klaver: Cast, caplog: pytest.LogCaptureFixture
) -> None:
    table = await database_sync_to_async(table_with_anna)(klaver)
    phone = await connect(klaver.anna, table.code)
    await phone.close()
    version = table.version
    await close_connections()
    with database_down():
        # Anna's session is read first (by the auth middleware); a stranger's table look-up.
        for cookie in (klaver.anna.cookie(), b""):
            communicator = WebsocketCommunicator(
                application,
                f"/ws/tables/{table.code}/",
                headers=[(b"cookie", cookie), ORIGIN, HOST],
            )
            connected, _ = await communicator.connect(timeout=5)
            assert connected  # accepted only so that the close code reaches the phone
            closing = await communicator.receive_output(timeout=5)
            assert closing == {"type": "websocket.close", "code": 1013}
        await close_connections()
    assert not errors_in(caplog)
    assert any("database" in message for message in warnings_in(caplog))
    # Back up: the same phone connects and nothing changed meanwhile.
    phone = await connect(klaver.anna, table.code)
    assert (await database_sync_to_async(Table.objects.get)(pk=table.pk)).version == version
    await phone.close()


# -- the database down: a page ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "Try again in a moment"),
        ("nl", "Probeer het zo opnieuw"),
        ("de", "Versuche es gleich noch einmal"),
    ],
)
def test_a_page_while_the_database_is_down_is_a_503_that_says_to_try_again(
    klaver: Cast, caplog: pytest.LogCaptureFixture, language: str, words: str
) -> None:
    table = table_with_anna(klaver)
    stranger = Client(raise_request_exception=False, headers={"accept-language": language})
    connection.close()
    with database_down():
        # The table's code is looked up in the view.
        response = stranger.get("/play/", {"code": table.code})
    assert response.status_code == 503
    assert response["Retry-After"]
    assert words in response.content.decode()
    assert not errors_in(caplog)
    assert any("database" in message for message in warnings_in(caplog))
    assert stranger.get("/play/", {"code": table.code}).status_code == 302


def test_a_signed_in_page_while_the_database_is_down_is_a_503_too(
    klaver: Cast, caplog: pytest.LogCaptureFixture
) -> None:
    anna = Client(raise_request_exception=False)
    anna.force_login(klaver.anna.user)
    connection.close()
    with database_down():
        # Anna's session and account are read by middleware, before any view.
        response = anna.post("/clubs/new/", {"name": "Nieuwe club"})
    assert response.status_code == 503
    assert "Try again in a moment" in response.content.decode()
    assert not errors_in(caplog)
    assert klaver.club.__class__.objects.filter(name="Nieuwe club").count() == 0


# -- the guard itself: what it adds after what the phone was already sent -----------------------


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("before", "added"),
    [
        ([], [{"type": "websocket.accept"}, {"type": "websocket.close", "code": 1013}]),
        ([{"type": "websocket.accept"}], [{"type": "websocket.close", "code": 1013}]),
        (
            [{"type": "websocket.accept"}, {"type": "websocket.send", "text": "<div></div>"}],
            [{"type": "websocket.close", "code": 1013}],
        ),
        ([{"type": "websocket.accept"}, {"type": "websocket.close", "code": 1000}], []),
    ],
)
async def test_the_guard_closes_a_phone_once_whatever_it_was_sent_before_the_database_failed(
    before: list[dict[str, Any]], added: list[dict[str, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    from django.db import OperationalError

    from toepen_site.unavailable import DatabaseDownGuard

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        for message in before:
            await send(message)
        raise OperationalError("the database is gone")

    await DatabaseDownGuard(inner)({"type": "websocket", "path": "/ws/"}, None, send)
    assert sent == [*before, *added]
    assert any("database" in message for message in warnings_in(caplog))


@pytest.mark.django_db(transaction=True)
def test_the_clocks_catching_up_waits_out_a_database_outage_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """What is due stays due while the database is away: an outage is expected, said as a
    warning, not an error with a traceback every few seconds."""
    connection.close()
    with database_down():
        clock._catch_up()  # as the clock does every CATCH_UP_SECONDS
        connection.close()
    assert not errors_in(caplog)
    assert any("database" in message for message in warnings_in(caplog))
