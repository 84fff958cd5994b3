"""The table's websocket: a thin edge between a phone and games.services.tables.

On connect (and so on every reconnect) the phone gets its full view. A frame from the phone is
parsed, checked for size and rate, and handed to a service; a refusal goes back to that socket
only. When a table changes, this process's hub (games/live/hub.py) renders each connection's
own view from the engine's `observe` for its own seats and hands it to `deliver`: a hidden card
never travels between processes, only to the phone that may see it.
"""

from __future__ import annotations

import json
import logging
import time
from collections import deque
from typing import Any

import orjson
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import DatabaseError
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from games import throttle
from games.live import clock, hub
from games.models import Seat, Table
from games.services import store, tables
from games.services.access import Access, table_access
from games.services.snapshots import view_state
from games.services.state import Holder, TableState
from games.services.tables import TableError
from games.view.context import Viewer, choose_active, render_error, render_view
from games.view.parts import Shared

log = logging.getLogger(__name__)

MAX_FRAME_BYTES = 4096
RATE_PER_SECOND = 10  # frames a phone may send in one second before being told to slow down
FLOOD_FRAMES = 30  # frames within FLOOD_WINDOW seconds that close the socket
FLOOD_WINDOW = 3.0
CLOSE_NOT_ALLOWED = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_FLOOD = 4429
ANSWERED = -1  # an action's answer went out with a view
# What a phone sends when it has said nothing for a heartbeat round: it is here. Matched as
# the phone writes it, before any parsing: one a phone every few seconds at every table.
PING = '{"type":"ping"}'


class DirectDispatch:
    """Channels' dispatch, without its trip to the database thread before every message
    (`aclose_old_connections`), for a consumer that reaches the database only through
    `database_sync_to_async` (which closes old connections itself around each call). That
    trip queued every frame from a phone behind whatever the thread was doing (a deal, a
    hand's end, heartbeats): an action decided on the loop, or a refused frame, waited for it
    although it needs nothing from that thread."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Channels' loop over the socket's messages, without its task and `asyncio.wait` for
        each one when the consumer has no channel layer to listen to as well (the phones'
        consumers: their process's hub tells them of changes); with a layer, Channels' own."""
        if get_channel_layer(self.channel_layer_alias) is not None:
            await super().__call__(scope, receive, send)
            return
        self.scope = scope
        self.channel_layer = None
        self.base_send = send
        try:
            while True:
                await self.dispatch(await receive())
        except StopConsumer:
            pass  # the socket closed: the consumer is done, as under Channels' loop

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)


class TableConsumer(DirectDispatch, AsyncWebsocketConsumer):
    # A phone hears of changes from its process's hub (games/live/hub.py), never on a channel of its
    # own: no alias is configured by this name, so Channels gives the consumer no channel and
    # no receive loop on the layer (with Redis, one blocking receive and its clean-up fewer
    # per message, and no channel per phone).
    channel_layer_alias = "phones-use-the-hub"
    # A slate table's phones (games/live/slate_consumer.py): may they write, do they follow by code.
    can_keep = False
    by_code = False
    # The seats the holder holds, and the state's list of seats they were found in (held_in).
    held: tuple[list[Seat], tuple[int, ...]] | None = None

    table_id: int
    holder: Holder
    seats: tuple[int, ...]
    shown: int | None
    language: str
    flooded: bool  # closed for flooding: its frames are no longer read

    async def connect(self) -> None:
        code = str(self.scope["url_route"]["kwargs"]["code"]).upper()
        user = self.begin()
        if await self.guessing_codes():
            return
        found = await database_sync_to_async(_access)(code, self.holder, user)
        if found is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await throttle.give_back_for_socket(self.scope, "code")
        self.table_id, access = found
        if not access.allowed:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.seats, self.may_watch = access.seats, access.may_watch
        self.can_start, self.can_close = access.can_start, access.can_close
        await self.come_in()

    def begin(self) -> Any:
        """The connection's own state, before it is let in; the scope's user."""
        self.holder = Holder.from_session(self.scope.get("session"), self.scope.get("user"))
        self.language = _language_from_scope(self.scope)
        self.frames: deque[float] = deque()
        self.flooded = False
        self.last_version = -1
        # Ids of this phone's actions not answered yet, and the version of the view that
        # answers each (ANSWERED once sent): the change's view is the answer, not a frame more.
        self.awaiting: set[str] = set()
        self.answers: dict[str, int] = {}
        self.sent_at = time.monotonic()
        # When the phone last sent anything: its presence (games/live/hub.py, `heard`). A
        # phone pings when it has nothing else to say (static/js/table.js); until its first
        # ping (a page from before pings) an open socket is all there is to go by.
        self.heard_at = self.sent_at
        self.pings = False
        self.shown = None
        user = self.scope.get("user")
        self.user_id = user.pk if user is not None and user.is_authenticated else None
        return user

    async def guessing_codes(self) -> bool:
        """A code counts against the client's TOEPEN_CODE_GUESS_RATE as on the table pages, and
        is given back once it finds its table: past the rate the phone is told so and closed
        with 4429, before any table is looked up, so no code can be tried at socket speed."""
        if await throttle.take_for_socket(self.scope, "code") is None:
            return False
        await self.accept()
        await self.send_error(
            _(
                "That was tried too often from your connection in a short time. Wait a minute, "
                "then try again."
            )
        )
        await self.close(code=CLOSE_FLOOD)
        return True

    async def come_in(self) -> None:
        """Join this process's hub and send the phone its view. One browser session, and one
        client address, hold a bounded number of sockets (games/throttle.py): each one is a
        view rendered on every change. Past either, the phone is told why, with 4429."""
        try:
            self.socket_slot = await throttle.take_socket_slot(self.scope)
        except throttle.SocketsFull as full:
            await self.accept()
            await self.send_error(full.message)
            await self.close(code=CLOSE_FLOOD)
            return
        await self.accept()
        clock.ensure_started()
        self.hub = hub.get()
        await self.hub.join(self)
        if self.seats:
            await database_sync_to_async(tables.arrive)(self.table_id, self.holder)
        await self.send_view()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "hub"):
            await self.hub.leave(self)
        if getattr(self, "socket_slot", None):
            await throttle.give_back_socket_slot(self.socket_slot)

    # -- from the phone -------------------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.flooded:
            return  # closed for flooding: what it sent before hearing so is not read
        self.heard_at = time.monotonic()
        if self._flooding():
            self.flooded = True
            await self.close(code=CLOSE_FLOOD)
            return
        if text_data == PING:
            self.pings = True
            return
        if text_data is None:
            await self.send_error(_("Frames must be text (JSON)."))
            return
        if len(text_data.encode()) > MAX_FRAME_BYTES:
            await self.send_error(_("That frame is too large."))
            return
        if self._too_fast():
            await self.send_error(_("Slow down: too many frames at once."))
            return
        try:
            frame = orjson.loads(text_data)  # a ValueError when it is not JSON
        except ValueError:
            await self.send_error(_("That frame is not JSON."))
            return
        if not isinstance(frame, dict):
            await self.send_error(_("A frame must be a JSON object."))
            return
        frame.pop("HEADERS", None)  # what htmx's ws-send adds
        try:
            await self.handle_frame(frame)
        except TableError as error:
            await self.send_error(error.message, error.code, frame.get("id"))
        except DatabaseError:
            # The database is away for a moment (a restart, a fail-over, a lock held too long):
            # nothing was written, and the phone sends the same action again (same id) shortly.
            log.warning("table %s: a frame met a database error; the phone retries", self.table_id)
            await self.send_error(
                _("The server is catching up. Your tap is kept and sent again."),
                "retry",
                frame.get("id"),
            )

    async def handle_frame(self, frame: dict[str, Any]) -> None:
        kind = frame.get("type", "action")
        if kind == "ping":
            self.pings = True  # written another way than the phone's own (PING)
        elif kind == "sync":
            await self.send_view(force=True)
        elif kind == "show":
            self.shown = self._own_seat(frame)
            await self.send_view(force=True)
        elif kind == "ready":
            seat = self._own_seat(frame)
            hand = self._named_hand(frame)
            await tables.achange(self.table_id, tables.readying(self.holder, seat, hand))
            if isinstance(frame.get("id"), str):
                await self.send(text_data=json.dumps({"ack": frame["id"]}))
        elif kind in ("away", "back"):
            # A break or a round (rules.md 3.8), and back from it.
            seat = self._own_seat(frame)
            if kind == "away":
                reason = frame.get("reason")
                why = reason if isinstance(reason, str) else ""
                decision = tables.going_away(self.holder, seat, why)
            else:
                decision = tables.coming_back(self.holder, seat)
            await tables.achange(self.table_id, decision)
        elif kind == "buy_back":
            # Buying back in after going out, before the next deal (rules.md 3.10).
            seat = self._own_seat(frame)
            await tables.achange(self.table_id, tables.buying_back(self.holder, seat))
        elif kind == "action":
            seat = self._own_seat(frame)
            self._named_hand(frame)
            action_id = frame.get("id")
            payload = {k: v for k, v in frame.items() if k not in ("type", "seat", "id")}
            tables.check_action_id(action_id)
            self.awaiting.add(action_id)
            try:
                decision = tables.playing(self.holder, seat, payload)
                outcome = await tables.achange(self.table_id, decision, action_id)
            finally:
                self.awaiting.discard(action_id)
            # The phone keeps an action until it hears it was taken, and sends it again (same
            # id) after a reconnect. The change's view, rendered for this phone as it was
            # written, says so (`render`); a duplicate, or a change whose view did not carry
            # the answer, gets it in a frame of its own.
            answered = self.answers.pop(action_id, None)
            if outcome.duplicate:
                await self.send(text_data=json.dumps({"ack": action_id}))
                await self.send_view(force=True)
            elif answered is None:
                await self.send(text_data=json.dumps({"ack": action_id}))
            elif answered != ANSWERED:
                self.answers[action_id] = answered  # its view is on its way: `deliver` answers
        else:
            raise TableError("bad_frame", _("Unknown frame type."))

    def _named_hand(self, frame: dict[str, Any]) -> str:
        """The hand a tap was made on (`"rubber/hand"`, carried by the button the phone showed):
        the service refuses it on any other hand, so a tap on a frozen screen is never applied
        to a hand its player never saw."""
        hand = frame.get("hand")
        if not isinstance(hand, str) or not hand:
            raise TableError("bad_action", _("An action must name the hand it was made on."))
        return hand

    def _own_seat(self, frame: dict[str, Any]) -> int:
        seat = frame.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in self.seats:
            raise TableError("not_your_seat", _("That is not your seat."))
        return seat

    def _too_fast(self) -> bool:
        now = time.monotonic()
        return sum(1 for t in self.frames if now - t < 1.0) > RATE_PER_SECOND

    def _flooding(self) -> bool:
        now = time.monotonic()
        frames = self.frames
        frames.append(now)
        while frames and now - frames[0] > FLOOD_WINDOW:
            frames.popleft()
        return len(frames) > FLOOD_FRAMES

    # -- to the phone ---------------------------------------------------------------------------

    async def deliver(self, version: int, html: str | None) -> None:
        """A view the hub rendered for this phone: sent unless the phone has a newer one.
        None: the phone may no longer see the table (its seat is gone and it may not watch)."""
        if html is None:
            await self.shut_out()
            return
        if self.answers:
            await self._answer(version, html)
        if version <= self.last_version:
            return
        self.last_version = version
        await self.send(text_data=html)

    async def _answer(self, version: int, html: str) -> None:
        """The actions whose views are due by `version`: answered by this view when it carries
        them and goes out, else (a newer view went first, a render lost) by a frame of their own."""
        for action_id, due in list(self.answers.items()):
            if due == ANSWERED or due > version:
                continue
            if version <= self.last_version or f' data-ack="{action_id}"' not in html:
                await self.send(text_data=json.dumps({"ack": action_id}))
            if action_id in self.awaiting:
                self.answers[action_id] = ANSWERED  # for `handle_frame` to see
            else:
                del self.answers[action_id]

    async def shut_out(self) -> None:
        """This phone may no longer see the table: it hears nothing more of it."""
        if hasattr(self, "hub"):
            await self.hub.leave(self)
        self.last_version = 2**62  # nothing the hub still has on its way reaches it
        await self.close(code=CLOSE_NOT_ALLOWED)

    async def beat(self) -> None:
        """The server is here and hears the table: a phone that hears nothing for a while
        says so and reconnects (static/js/table.js)."""
        await self.send(text_data='{"beat":1}')

    async def wait(self) -> None:
        """The server is here but cannot reach its database: the phone says the server is
        catching up and keeps the taps it has not had answered (static/js/table.js)."""
        await self.send(text_data='{"wait":1}')

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        self.sent_at = time.monotonic()
        if text_data is not None and not close:
            # A view or an answer: the message Channels' two `send` methods would build, sent
            # without their two calls (four or five frames an action at every table).
            await self.base_send({"type": "websocket.send", "text": text_data})
            return
        await super().send(text_data=text_data, bytes_data=bytes_data, close=close)

    async def send_view(self, force: bool = False) -> None:
        """The table as it is now, rendered for this phone alone (on connect, and on request).
        `force`: sent again even when the phone has this version (it asked for it, or sent an
        action twice), but never when a newer one went out while this one was rendered: that
        one may have been rendered before the request (a seat to show), so it is rendered again."""
        version, html = await database_sync_to_async(self._render_now)()
        if force and version < self.last_version:
            version, html = await database_sync_to_async(self._render_now)()
        if html is None:
            await self.shut_out()
            return
        if version < self.last_version or (version == self.last_version and not force):
            return
        self.last_version = version
        await self.send(text_data=html)

    def _render_now(self) -> tuple[int, str | None]:
        state = view_state(self.table_id)
        if not self.held_in(state) and not self.may_watch:
            return state.table.version, None
        return state.table.version, self.render(state)

    def held_in(self, state: TableState) -> tuple[int, ...]:
        """The seats this phone's holder holds in `state`: kept while the states hold the same
        list of seats (a change to a seat makes a new list, as `TableState.moment` relies on
        too), asked again of a new one; every change asks it for every phone."""
        held = self.held
        if held is not None and held[0] is state.seats:
            return held[1]
        seats = tuple(state.held_by(self.holder))
        self.held = (state.seats, seats)
        return seats

    def render(
        self, state: TableState, shared: Shared | None = None, seats: tuple[int, ...] | None = None
    ) -> str:
        """This phone's view of `state`, from its own seats' observation only (`shared`: what
        the views of the same version rendered with it share, games.view.parts.Shared;
        `seats`: what its holder holds in `state`, when the caller has asked already)."""
        # Seats can change between rubbers (a phone takes another seat): ask again each time.
        self.seats = self.held_in(state) if seats is None else seats
        ack = state.taken if state.taken in self.awaiting else None
        if ack is not None:
            self.answers[ack] = state.table.version
        viewer = Viewer(
            seats=self.seats,
            active=choose_active(state, self.seats, self.shown),
            can_start=self.can_start,
            can_close=self.can_close,
            ack=ack or "",
        )
        # In the phone's own language, whatever language is active around the pass: the view
        # translates into the language it is given (games.view.html's `set_view_language`),
        # never Django's active one, which asking for (an asgiref `Local`) cost as much as a
        # view's buttons.
        return render_view(state, viewer, shared=shared, language=self.language)

    async def send_error(
        self, message: str | Promise, code: str = "bad_frame", action_id: Any = None
    ) -> None:
        with translation.override(self.language):
            html = render_error(str(message), code, action_id if isinstance(action_id, str) else "")
        await self.send(text_data=html)


def _language_from_scope(scope: dict[str, Any]) -> str:
    user = scope.get("user")
    if user is not None and user.is_authenticated and getattr(user, "language", ""):
        return str(user.language)
    headers = {
        k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])
    }
    cookies = headers.get("cookie", "")
    for part in cookies.split(";"):
        name, _, value = part.strip().partition("=")
        if name == settings.LANGUAGE_COOKIE_NAME and value in dict(settings.LANGUAGES):
            return value
    for part in headers.get("accept-language", "").split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in dict(settings.LANGUAGES):
            return code
    return settings.LANGUAGE_CODE


def _access(code: str, holder: Holder, user: Any) -> tuple[int, Access] | None:
    """The table and what this connection may do there (`allowed`: whether it may look at all,
    as a seat holder or a member the table lets watch); None when no table has that code."""
    # The row and its seats, a statement each: who may look needs no hand (a process that has
    # none of the table's yet replays it for the first view, not here) and no transaction
    # around the two (a seat taken between them is as if taken a moment later, and the hub
    # asks again at every render).
    table = Table.objects.select_related("club").filter(code=code).first()
    if table is None:
        return None
    access = table_access(TableState(table=table, seats=store.seats(table.pk)), holder, user)
    return table.pk, access
