"""Throttles on what a stranger could otherwise do at machine speed: guess table codes, take
seats, open sockets.

The counters live in the cache (Redis when REDIS_URL is set), so they hold across server
processes. A client is its address as allauth sees it (behind a proxy, the address the proxy
forwards; see DJANGO_BEHIND_PROXY), so sign-in limits and these throttles agree on who is who.

    throttle.take(request, "code")        # raises Throttled past TOEPEN_CODE_GUESS_RATE
    throttle.give_back(request, "code")   # the try found a table: it does not count
    await throttle.take_for_socket(scope, "code")   # the same counter, for a socket
    slots = await throttle.take_socket_slot(scope)  # raises SocketsFull past either limit

A socket is the same client as its pages: its address is read from its scope as allauth reads
a request's.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from http import HTTPStatus
from typing import Any

from allauth.core.internal.ratelimit import get_ip
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

# Which setting holds the rate of each throttle a view takes: (tries, seconds), settings.envrate.
RATE_SETTINGS = {"code": "TOEPEN_CODE_GUESS_RATE", "join": "TOEPEN_JOIN_RATE"}
# How long a session's count of open sockets lives without being recounted: a server process
# that dies takes its sockets' give-backs with it, and this is how long those stay counted.
SOCKET_COUNT_SECONDS = 3600


class Throttled(Exception):
    """Too many tries from one client; ThrottleMiddleware answers with a 429 page."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(retry_after)
        self.retry_after = retry_after


def too_many_requests(request: HttpRequest, retry_after: int) -> HttpResponse:
    # The same page as allauth's own 429 (it renders "429.html" too), in the reader's language.
    response = render(request, "429.html", status=HTTPStatus.TOO_MANY_REQUESTS)
    response["Retry-After"] = str(retry_after)
    return response


class ThrottleMiddleware:
    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response: HttpResponse = self.get_response(request)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Throttled):
            return too_many_requests(request, exception.retry_after)
        return None


def _digest(who: str) -> str:
    # Session keys are secrets, and addresses personal data: neither goes into the cache as is.
    return hashlib.sha256(who.encode()).hexdigest()[:32]


def _window(name: str, address: str) -> tuple[str, int, int, int]:
    """The counter of this client's current window for `name`: its key, the tries allowed in
    it, its length and the seconds left."""
    count, seconds = getattr(settings, RATE_SETTINGS[name])
    now = time.time()
    window = int(now // seconds)
    left = int((window + 1) * seconds - now) + 1
    return f"throttle:{name}:{_digest(address)}:{window}", count, seconds, left


def _count(key: str, timeout: int) -> int:
    """One more on the counter `key` (made to last `timeout` seconds); the new count. Atomic
    in Redis, so processes counting at once never lose a count: there one round trip
    (toepen_site/cache.py's `count`)."""
    counting = getattr(cache, "count", None)
    if counting is not None:
        return int(counting(key, timeout))
    cache.add(key, 0, timeout)
    try:
        return cache.incr(key)
    except ValueError:  # expired between the two calls
        cache.set(key, 1, timeout)
        return 1


def take(request: HttpRequest, name: str) -> None:
    """Count one try of `name` for this client; Throttled once its rate is used up."""
    _take(get_ip(request), name)


def give_back(request: HttpRequest, name: str) -> None:
    """Uncount a try that turned out harmless (a code that found its table)."""
    _give_back(get_ip(request), name)


def _take(address: str, name: str) -> None:
    key, count, seconds, left = _window(name, address)
    if _count(key, seconds + 1) > count:
        raise Throttled(retry_after=left)


def _give_back(address: str, name: str) -> None:
    key = _window(name, address)[0]
    with contextlib.suppress(ValueError):  # the window has passed: nothing to give back
        cache.decr(key)


# -- sockets ---------------------------------------------------------------------------------


class SocketsFull(Exception):
    """No room for one more socket; `message` says whose sockets are too many."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _request_of(scope: dict[str, Any]) -> HttpRequest:
    """What allauth reads of a request to know its client (the address and the headers a
    proxy forwards), from a socket's scope: the socket counts as the client of its pages."""
    request = HttpRequest()
    client = scope.get("client") or ("", 0)
    request.META["REMOTE_ADDR"] = client[0] or ""
    for name, value in scope.get("headers") or ():
        key = name.decode("latin-1").upper().replace("-", "_")
        request.META[f"HTTP_{key}"] = value.decode("latin-1")
    return request


def _address(scope: dict[str, Any]) -> str:
    """The socket's client address as its pages' (`get_ip`); "" when it has none (a Unix
    socket with no proxy in front, a test's communicator): all of those are counted as one."""
    try:
        return get_ip(_request_of(scope))
    except PermissionDenied:
        return ""


def _take_for_socket(scope: dict[str, Any], name: str) -> int | None:
    try:
        _take(_address(scope), name)
    except Throttled as throttled:
        return throttled.retry_after
    return None


async def take_for_socket(scope: dict[str, Any], name: str) -> int | None:
    """`take` for a socket, on the counter its client's pages take: None, or the seconds until
    this client may try again."""
    return await sync_to_async(_take_for_socket, thread_sensitive=False)(scope, name)


async def give_back_for_socket(scope: dict[str, Any], name: str) -> None:
    await sync_to_async(_give_back_for_socket, thread_sensitive=False)(scope, name)


def _give_back_for_socket(scope: dict[str, Any], name: str) -> None:
    _give_back(_address(scope), name)


def _socket_owner(scope: dict[str, Any], address: str) -> str:
    session = scope.get("session")
    key = getattr(session, "session_key", None) if session is not None else None
    if key:
        return f"session:{key}"
    return f"client:{address}"


def _take_slot(owner: str, limit: int) -> str | None:
    key = f"throttle:sockets:{_digest(owner)}"
    # The count's lifetime starts with its first socket and is not renewed (see
    # SOCKET_COUNT_SECONDS): a count that a dead process left too high heals by itself.
    if _count(key, SOCKET_COUNT_SECONDS) > limit:
        _give_back_socket_slots((key,))
        return None
    return key


def _take_socket_slot(scope: dict[str, Any]) -> tuple[str, ...]:
    address = _address(scope)
    own = _take_slot(_socket_owner(scope, address), settings.TOEPEN_SOCKETS_PER_SESSION)
    if own is None:
        raise SocketsFull(_("This browser has too many table pages open: close one, then reload."))
    # Sessions cost nothing to make: the client's address bounds them all together.
    shared = _take_slot(f"address:{address}", settings.TOEPEN_SOCKETS_PER_CLIENT)
    if shared is None:
        _give_back_socket_slots((own,))
        raise SocketsFull(
            _("Too many table pages are open from this network: close one, then reload.")
        )
    return own, shared


def _give_back_socket_slots(keys: tuple[str, ...]) -> None:
    for key in keys:
        with contextlib.suppress(ValueError):  # the count has expired since: nothing to give
            cache.decr(key)


# Not thread-sensitive: the cache needs no database connection, and a socket's arrival should
# not queue behind the database thread.
async def take_socket_slot(scope: dict[str, Any]) -> tuple[str, ...]:
    """Places for one more open socket: one of TOEPEN_SOCKETS_PER_SESSION of its browser
    session (its address without one), one of TOEPEN_SOCKETS_PER_CLIENT of its address.
    SocketsFull, holding none, when either is used up."""
    return await sync_to_async(_take_socket_slot, thread_sensitive=False)(scope)


async def give_back_socket_slot(keys: tuple[str, ...]) -> None:
    await sync_to_async(_give_back_socket_slots, thread_sensitive=False)(keys)
