"""Phones on real sockets: a websocket client that reads the table's HTML frames, clicks what
a view offers, and reconnects by itself when its server goes away.

A phone resends an action it has not yet seen take effect after each reconnect, with the same
id: the server applies an action id once, so a retry can never double an action.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import random
import re
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect, unix_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

LIVE_ROOT = re.compile(r'<div id="table-live"([^>]*)>')
DATA_ATTR = re.compile(r'data-([a-z-]+)="([^"]*)"')
DUE_PLAYER = re.compile(r'<li class="player[^"]*\bis-due\b[^"]*"\s+data-seat="(\d+)"')
WS_BUTTON = re.compile(r"<button\b[^>]*\bws-send\b[^>]*\bhx-vals='([^']*)'")
HAND_RESULT = re.compile(r'<p class="hand-result">(.*?)</p>', re.S)
TAG = re.compile(r"<[^>]+>")

# How long a phone waits before it sends again an action the server answered with `retry`.
RETRY_SECONDS = 0.5

# What the phones offer the server: None, or "deflate" (per-message compression, as browsers
# offer it; bench/live.py --compression).
COMPRESSION: str | None = None


async def dial(url: str, unix: str | None = None, **options: Any) -> ClientConnection:
    """A websocket to `url`: through the server's Unix socket `unix` when given (as the proxy
    reaches it in production), else over loopback TCP, never through a proxy the environment
    names. `options`: websockets' `connect`'s."""
    if unix:
        return await unix_connect(unix, url, **options)
    return await connect(url, proxy=None, **options)


@dataclass(frozen=True)
class View:
    """One full view a phone received, with what a test needs from it."""

    html: str
    attrs: dict[str, str]
    received: float  # time.perf_counter() when it arrived

    @property
    def version(self) -> int:
        return int(self.attrs["version"])

    @property
    def status(self) -> str:
        return self.attrs["status"]

    @property
    def step(self) -> int:
        return int(self.attrs["step"])

    @property
    def hand(self) -> int:
        return int(self.attrs["hand"])

    def due_seats(self) -> list[int]:
        return [int(seat) for seat in DUE_PLAYER.findall(self.html)]

    def offers(self, seat: int) -> list[dict[str, Any]]:
        """Every action the view offers to `seat`: its playable cards and its buttons."""
        found = []
        for raw in WS_BUTTON.findall(self.html):
            vals = json.loads(html.unescape(raw))
            if "act" in vals and vals.get("seat") == seat:
                found.append(vals)
        return found

    @property
    def result(self) -> str | None:
        """The end of the hand as the phone shows it, whitespace collapsed; None during it."""
        match = HAND_RESULT.search(self.html)
        if match is None:
            return None
        return " ".join(html.unescape(TAG.sub(" ", match.group(1))).split())


def parse_view(frame: str, received: float) -> View | None:
    match = LIVE_ROOT.search(frame)
    if match is None:
        return None
    return View(frame, dict(DATA_ATTR.findall(match.group(1))), received)


class Signal:
    """Wakes everyone waiting whenever any phone hears something."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def fire(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    async def until(self, ready: Callable[[], bool], timeout: float, what: str) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not ready():
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"timed out after {timeout} s waiting for {what}")
            event = self._event
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)


@dataclass
class Phone:
    """One person's browser on one server: `port` may be changed between (re)connects."""

    name: str
    seat: int
    session: str
    code: str
    port: int
    signal: Signal
    reconnect_for: float = 30.0  # how long to keep trying after losing the server
    unix: str | None = None  # the server's Unix socket, dialled instead of its port
    keep: int | None = None  # keep only the last views (a benchmark's long run)
    # Ping every so many seconds while connected, as static/js/table.js does when it has said
    # nothing for a heartbeat round (None: never, as a page from before pings).
    ping_every: float | None = None
    views: list[View] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    words: list[dict[str, Any]] = field(default_factory=list)  # the JSON frames heard
    retrying: set[asyncio.Task[None]] = field(default_factory=set)
    connections: int = 0
    failed: str = ""
    pending: dict[str, Any] | None = None
    pending_after: int = -1
    resent: int = 0
    ws: ClientConnection | None = None
    task: asyncio.Task[None] | None = None
    closing: bool = False

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/tables/{self.code}/"

    @property
    def latest(self) -> View:
        assert self.views, f"{self.name} has no view yet"
        return self.views[-1]

    @property
    def connected(self) -> bool:
        return self.ws is not None

    def versions(self) -> list[int]:
        """The versions this phone was shown, in order, each once (a reconnect or a repeated
        action resends the current view)."""
        seen: list[int] = []
        for view in self.views:
            if not seen or view.version != seen[-1]:
                seen.append(view.version)
        return seen

    async def open(self, timeout: float = 10) -> Phone:
        self.task = asyncio.create_task(self._run(), name=f"phone-{self.name}")
        await self.signal.until(
            lambda: bool(self.views) or bool(self.failed), timeout, f"{self.name}'s first view"
        )
        assert not self.failed, self.failed
        return self

    async def _dial(self) -> ClientConnection:
        options: dict[str, Any] = {
            "origin": f"http://127.0.0.1:{self.port}",
            "additional_headers": {"Cookie": f"sessionid={self.session}"},
            "compression": COMPRESSION,
            "open_timeout": 5,
        }
        return await dial(self.url, self.unix, **options)

    async def _run(self) -> None:
        down_since = time.monotonic()
        delay = 0.05
        while not self.closing:
            try:
                ws = await self._dial()
            except InvalidStatus as error:
                self.failed = f"{self.name}: the server refused the socket ({error})"
                self.signal.fire()
                return
            except (OSError, InvalidHandshake, TimeoutError):
                if time.monotonic() - down_since > self.reconnect_for:
                    self.failed = f"{self.name}: no server for {self.reconnect_for} s"
                    self.signal.fire()
                    return
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.5)
                continue
            self.ws, self.connections, delay = ws, self.connections + 1, 0.05
            fresh = True
            pinger = asyncio.create_task(self._ping(ws)) if self.ping_every else None
            try:
                async for message in ws:
                    self._heard(str(message))
                    if fresh and self.views:
                        fresh = False
                        await self._resend()
            except ConnectionClosed:
                pass
            finally:
                if pinger is not None:
                    pinger.cancel()
                self.ws = None
                down_since = time.monotonic()
                self.signal.fire()

    async def _ping(self, ws: ClientConnection) -> None:
        assert self.ping_every is not None
        with contextlib.suppress(ConnectionClosed):
            while True:
                await ws.send('{"type":"ping"}')
                await asyncio.sleep(self.ping_every)

    def _heard(self, frame: str) -> None:
        if frame.startswith("{"):
            # Not a view: the server took an action ({"ack": id}), or its heartbeat.
            word = json.loads(frame)
            self.words.append(word)
            if self.pending is not None and word.get("ack") == self.pending.get("id"):
                self.pending = None
            self.signal.fire()
            return
        view = parse_view(frame, time.perf_counter())
        if view is None:
            self.errors.append(frame)
            pending = self.pending
            if (
                pending is not None
                and f'data-id="{pending.get("id")}"' in frame
                and 'data-code="retry"' in frame
            ):
                # The server could not take it yet (its database is away): sent again, same
                # id, as static/js/table.js does, until it is taken or refused.
                asyncio.get_running_loop().call_later(RETRY_SECONDS, self._retry, pending)
        else:
            self.views.append(view)
            if self.keep is not None and len(self.views) > 2 * self.keep:
                del self.views[: -self.keep]
            if self.pending is not None and view.version > self.pending_after:
                self.pending = None
        self.signal.fire()

    def _retry(self, frame: dict[str, Any]) -> None:
        if self.pending is frame:
            task = asyncio.ensure_future(self._send(frame))
            self.retrying.add(task)
            task.add_done_callback(self.retrying.discard)

    async def _resend(self) -> None:
        """After a reconnect: the action sent before may or may not have reached the old
        server; send it again with its id, and the server applies it at most once."""
        if self.pending is not None:
            self.resent += 1
            await self._send(self.pending)

    async def _send(self, frame: dict[str, Any]) -> None:
        ws = self.ws
        if ws is None:
            return  # the reconnect resends what is pending
        with contextlib.suppress(ConnectionClosed):
            await ws.send(json.dumps(frame))

    async def act(self, frame: dict[str, Any], seen_version: int) -> None:
        """Send an action made on the view of `seen_version`; kept until a newer view arrives."""
        self.pending, self.pending_after = frame, seen_version
        await self._send(frame)

    async def send(self, frame: dict[str, Any]) -> None:
        await self._send(frame)

    async def close(self) -> None:
        self.closing = True
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 2)
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self.task, 2)


def new_id() -> str:
    return uuid.uuid4().hex


def choose(rng: random.Random, offers: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A plausible player: knocks now and then, mostly stays when knocked at, plays a card."""
    by_act: dict[str, list[dict[str, Any]]] = {}
    for offer in offers:
        by_act.setdefault(offer["act"], []).append(offer)
    if "knock" in by_act and rng.random() < 0.1:
        return dict(by_act["knock"][0])
    if "stay" in by_act and rng.random() < 0.8:
        return dict(by_act["stay"][0])
    plain = [o for o in offers if o["act"] not in ("knock", "announce")] or list(offers)
    return dict(rng.choice(plain))


@dataclass
class Table:
    """Four phones at one table, played by whoever the views say is due."""

    phones: list[Phone]
    signal: Signal
    sent: list[dict[str, Any]] = field(default_factory=list)

    def holder_of(self, seat: int) -> Phone:
        return next(phone for phone in self.phones if phone.seat == seat)

    def _failure(self) -> str:
        return "; ".join(phone.failed for phone in self.phones if phone.failed)

    async def agreed(self, timeout: float = 20) -> View:
        """Every phone is connected and shows the same, newest version."""

        def ready() -> bool:
            if self._failure():
                return True
            if not all(phone.connected and phone.views for phone in self.phones):
                return False
            return len({phone.latest.version for phone in self.phones}) == 1

        await self.signal.until(ready, timeout, "the phones to agree on a version")
        assert not self._failure(), self._failure()
        return self.phones[0].latest

    async def seen_by_all(self, above: int, timeout: float = 20) -> None:
        await self.signal.until(
            lambda: (
                bool(self._failure())
                or all(phone.views and phone.latest.version > above for phone in self.phones)
            ),
            timeout,
            f"every phone to see a version above {above}",
        )
        assert not self._failure(), self._failure()

    async def step(self, rng: random.Random) -> tuple[Phone, int] | None:
        """The due player clicks one of her offers; her phone and the version she acted on,
        or None when the hand is over."""
        view = await self.agreed()
        if view.result is not None or view.status != "playing":
            return None
        due = view.due_seats()
        assert due, f"nobody is due at version {view.version}"
        phone = self.holder_of(due[0])
        offers = phone.latest.offers(phone.seat)
        assert offers, f"{phone.name} is due but is offered nothing at {view.version}"
        frame = choose(rng, offers)
        frame["id"] = new_id()
        self.sent.append(frame)
        await phone.act(frame, view.version)
        return phone, view.version

    async def play(self, rng: random.Random, actions: int, timeout: float = 20) -> None:
        """`actions` clicks by the due players, each seen by every phone before the next; the
        hand must not end meanwhile."""
        for _ in range(actions):
            acted = await self.step(rng)
            assert acted is not None, "the hand ended"
            await self.seen_by_all(acted[1], timeout)

    async def play_hand(self, rng: random.Random, limit: int = 80) -> View:
        """Click through to the end of the hand; the final agreed view."""
        for _ in range(limit):
            acted = await self.step(rng)
            if acted is None:
                return await self.agreed()
            await self.seen_by_all(acted[1])
        raise AssertionError(f"the hand did not end within {limit} actions")
