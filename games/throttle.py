"""Throttles on what a stranger could otherwise do at machine speed: guess table codes, take
seats, open sockets.

The counters live in the cache (Redis when REDIS_URL is set), so they hold across server
processes. A client is its address as allauth sees it (behind a proxy, the address the proxy
forwards; see DJANGO_BEHIND_PROXY), so sign-in limits and these throttles agree on who is who.

    throttle.take(request, "code")        # raises Throttled past TOEPEN_CODE_GUESS_RATE
    throttle.give_back(request, "code")   # the try found a table: it does not count
    slot = await throttle.take_socket_slot(scope)   # None: this session has enough sockets
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
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

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


def _window(name: str, request: HttpRequest) -> tuple[str, int, int, int]:
    """The counter of this client's current window for `name`: its key, the tries allowed in
    it, its length and the seconds left."""
    count, seconds = getattr(settings, RATE_SETTINGS[name])
    now = time.time()
    window = int(now // seconds)
    left = int((window + 1) * seconds - now) + 1
    return f"throttle:{name}:{_digest(get_ip(request))}:{window}", count, seconds, left


def _count(key: str, timeout: int) -> int:
    """One more on the counter `key` (made to last `timeout` seconds); the new count. Atomic
    in Redis, so processes counting at once never lose a count."""
    cache.add(key, 0, timeout)
    try:
        return cache.incr(key)
    except ValueError:  # expired between the two calls
        cache.set(key, 1, timeout)
        return 1


def take(request: HttpRequest, name: str) -> None:
    """Count one try of `name` for this client; Throttled once its rate is used up."""
    key, count, seconds, left = _window(name, request)
    if _count(key, seconds + 1) > count:
        raise Throttled(retry_after=left)


def give_back(request: HttpRequest, name: str) -> None:
    """Uncount a try that turned out harmless (a code that found its table)."""
    key = _window(name, request)[0]
    with contextlib.suppress(ValueError):  # the window has passed: nothing to give back
        cache.decr(key)


# -- sockets ---------------------------------------------------------------------------------


def _socket_owner(scope: dict[str, Any]) -> str:
    session = scope.get("session")
    key = getattr(session, "session_key", None) if session is not None else None
    if key:
        return f"session:{key}"
    client = scope.get("client") or ("", 0)
    return f"client:{client[0]}"


def _take_socket_slot(owner: str) -> str | None:
    key = f"throttle:sockets:{_digest(owner)}"
    # The count's lifetime starts with its first socket and is not renewed (see
    # SOCKET_COUNT_SECONDS): a count that a dead process left too high heals by itself.
    if _count(key, SOCKET_COUNT_SECONDS) > settings.TOEPEN_SOCKETS_PER_SESSION:
        _give_back_socket_slot(key)
        return None
    return key


def _give_back_socket_slot(key: str) -> None:
    with contextlib.suppress(ValueError):  # the count has expired since: nothing to give back
        cache.decr(key)


# Not thread-sensitive: the cache needs no database connection, and a socket's arrival should
# not queue behind the database thread.
async def take_socket_slot(scope: dict[str, Any]) -> str | None:
    """A slot for one more open socket of this session (its address without one), or None
    when it has TOEPEN_SOCKETS_PER_SESSION open already."""
    owner = _socket_owner(scope)
    return await sync_to_async(_take_socket_slot, thread_sensitive=False)(owner)


async def give_back_socket_slot(key: str) -> None:
    await sync_to_async(_give_back_socket_slot, thread_sensitive=False)(key)
