"""The dependencies whose internals the project relies on are the versions it was built for.

games/services/prepared.py compiles querysets once with Django's SQL compiler and keeps the SQL.
The phones' consumers (games/live/consumers.py) replace Channels' consumer loop
(`DirectDispatch`) and its websocket `send`, and toepen_site/sessions.py calls its session
wrapper directly; toepen_site/daphne_sockets.py changes two methods of daphne's websocket
protocol. All reach below the public API, so their minor versions are pinned in
pyproject.toml, and an upgrade fails here first, with what to check, before it can fail at a
club night. (The behaviour itself is pinned by tests/services/test_prepared.py,
tests/live/test_frames.py and tests/test_daphne_sockets.py.)
"""

from __future__ import annotations

import inspect
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def pinned(name: str) -> Requirement:
    data = tomllib.loads(PYPROJECT.read_text())
    for line in data["project"]["dependencies"]:
        requirement = Requirement(line)
        if requirement.name.lower() == name.lower():
            return requirement
    raise AssertionError(f"{name} is not a dependency")


WHAT_TO_CHECK = {
    "Django": "games/services/prepared.py",
    "channels": "games/live/consumers.py (DirectDispatch, send) and toepen_site/sessions.py",
    "daphne": "toepen_site/daphne_sockets.py (WebSocketProtocol.onMessage, serverClose)",
}


@pytest.mark.parametrize("name", sorted(WHAT_TO_CHECK))
def test_the_installed_version_is_the_minor_version_pinned(name: str) -> None:
    requirement = pinned(name)
    installed = version(name)
    assert requirement.specifier.contains(installed), (
        f"{name} {installed} is outside {requirement.specifier}: check {WHAT_TO_CHECK[name]} "
        "against its changes, then move the pin"
    )
    bounds = {spec.operator: spec.version for spec in requirement.specifier}
    low, high = bounds[">="].split("."), bounds["<"].split(".")
    assert low[:2] == [high[0], str(int(high[1]) - 1)], f"{name} must be pinned to one minor"


def test_the_sql_compiler_still_has_what_the_prepared_queries_read() -> None:
    from django.db.models.sql.compiler import SQLCompiler

    assert callable(SQLCompiler.as_sql)
    assert list(inspect.signature(SQLCompiler.get_converters).parameters) == ["self", "expressions"]
    # What games/services/prepared.py reads off a compiler after as_sql(): set up there, not
    # declared.
    source = inspect.getsource(SQLCompiler)
    for attribute in ("self.select", "self.klass_info"):
        assert attribute in source, attribute
    from django.db.models.sql.query import Query

    assert "self.values_select" in inspect.getsource(Query)


def test_channels_still_has_what_the_phones_sockets_replace() -> None:
    from channels.consumer import AsyncConsumer
    from channels.generic.websocket import AsyncWebsocketConsumer
    from channels.sessions import InstanceSessionWrapper, SessionMiddleware

    # DirectDispatch stands in for AsyncConsumer.__call__ when no layer is configured: it sets
    # what Channels' loop sets (scope, channel_layer, base_send) and calls `dispatch`, which
    # must still find handlers by `get_handler_name` and make only the trip it skips.
    loop = inspect.getsource(AsyncConsumer.__call__)
    for name in ("self.scope", "self.channel_layer = get_channel_layer", "self.base_send"):
        assert name in loop, name
    dispatch = inspect.getsource(AsyncConsumer.dispatch)
    assert "get_handler_name(message)" in dispatch
    assert "aclose_old_connections()" in dispatch
    # TableConsumer.send builds the message AsyncWebsocketConsumer.send would.
    send = inspect.getsource(AsyncWebsocketConsumer.send)
    assert '{"type": "websocket.send", "text": text_data}' in send
    # SocketSessionMiddleware resolves the session itself and skips the wrapper's send.
    assert list(inspect.signature(InstanceSessionWrapper).parameters) == ["scope", "send"]
    assert inspect.iscoroutinefunction(InstanceSessionWrapper.resolve_session)
    assert "wrapper.send" in inspect.getsource(SessionMiddleware.__call__)


def test_daphnes_websocket_protocol_still_has_what_the_flood_close_changes() -> None:
    from daphne.ws_protocol import WebSocketProtocol

    assert list(inspect.signature(WebSocketProtocol.onMessage).parameters) == [
        "self",
        "payload",
        "isBinary",
    ]
    assert list(inspect.signature(WebSocketProtocol.serverClose).parameters) == ["self", "code"]
    assert WebSocketProtocol.STATE_OPEN is not None
