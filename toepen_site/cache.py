"""Django's Redis cache with one client a process, not one a request.

Django keeps its cache objects per context (`caches` is an asgiref `Local`), and under an ASGI
server every request and every websocket is a context of its own: each built its own
`RedisCache`, and with it a client that looked up redis-py's version in the installed
packages (`importlib.metadata`, which walks `sys.path`), a pool of its own and a new
connection to Redis. A phone's handshake (its socket slot, games/throttle.py) cost about 2 ms
of the server's CPU that way, and the connection stayed open as long as the phone's socket did,
one for every phone. Django's own client also makes a new `redis.Redis` for every command,
whose table of response callbacks alone is some 170 entries, and its `incr` (and `decr`) asks
whether the key exists before it counts: two round trips where one script does both at once.

Here every `SharedRedisCache` of a process with the same servers and options uses one client,
which keeps one `redis.Redis` a server: redis-py's clients are safe to share between threads
(each command takes a connection from the pool and gives it back).

Redis is a cache here, never the only copy of anything: the tables' changes travel without it.
When it does not answer, the cache acts as an empty one that keeps nothing (a read misses, a
write is dropped, a count is not found, as for a key that expired), so rate limits, sign-in
limits and socket slots let everyone through instead of answering 500 or refusing everyone.
That is logged once, as a warning, and once more when Redis answers again. `ping()` alone
raises: the health check asks it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.utils.functional import cached_property
from redis.exceptions import RedisError

log = logging.getLogger(__name__)


def _not_found(*args: Any) -> Any:
    raise ValueError("Redis does not answer: the key counts as not found")


# What each of Django's cache operations gives while Redis does not answer: what it gives for a
# key that is not there (`get` its default, `incr` the ValueError of a missing key, `add` True:
# it was not there, so it is added, then dropped as every write is). allauth takes its rate
# limits' lock with `add`: a False there would refuse every sign-in.
_WHEN_DOWN: dict[str, Callable[..., Any]] = {
    "add": lambda *args: True,
    "get": lambda key, default: default,
    "set": lambda *args: None,
    "touch": lambda *args: False,
    "delete": lambda *args: False,
    "get_many": lambda *args: {},
    "has_key": lambda *args: False,
    "incr": _not_found,
    # A count Redis did not keep: the first (as `add` then `incr` of a key that went away).
    "count": lambda *args: 1,
    "set_many": lambda *args: None,
    "delete_many": lambda *args: None,
    "clear": lambda *args: False,
}


# `incr` as Django's, in one round trip: the key's count moved by the delta, or nil (the key is
# not there, and is not made) where Django's answers ValueError. Atomic, where Django's two
# commands let a key expire between them.
INCR_EXISTING = """
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCRBY', KEYS[1], ARGV[1]) end
return false
"""
# A count that starts at 0 and lasts `ARGV[1]` seconds when the key is not there (0: for
# ever), moved on by one: Django's `add` and `incr` in one round trip (games/throttle.py).
COUNT = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  if tonumber(ARGV[1]) > 0 then redis.call('SET', KEYS[1], 0, 'EX', ARGV[1])
  else redis.call('SET', KEYS[1], 0) end
end
return redis.call('INCR', KEYS[1])
"""


class SharedRedisCacheClient(RedisCacheClient):
    """Django's client, keeping the `redis.Redis` of each of its pools."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}
        self._scripts: dict[int, Any] = {}

    def _script(self, key: Any, source: str, *args: Any) -> Any:
        client = self.get_client(key, write=True)
        script = self._scripts.get((id(client), source))
        if script is None:
            script = self._scripts[id(client), source] = client.register_script(source)
        return script(keys=[key], args=list(args))

    def _incr(self, key: Any, delta: int) -> int:
        """Django's `incr` (its `decr` too) in one round trip (`INCR_EXISTING`)."""
        count = self._script(key, INCR_EXISTING, delta)
        if count is None:
            raise ValueError(f"Key {key!r} not found.")
        return int(count)

    def count(self, key: Any, timeout: int | None) -> int:
        """One more on the count `key`, made to last `timeout` seconds (None: for ever) when
        it is not there; the new count (`COUNT`)."""
        return int(self._script(key, COUNT, 0 if timeout is None else max(1, int(timeout))))

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            # Two threads may both make one the first time: the second replaces the first,
            # and both work on the one pool.
            pool = self._get_connection_pool(write)
            client = self._clients[index] = self._client(connection_pool=pool)
        return client

    down = False  # Redis did not answer the last command: said once in the log

    def ping(self) -> bool:
        return bool(self.get_client(write=True).ping())

    def _answered(self) -> None:
        if self.down:
            self.down = False
            log.warning("Redis answers again: rate limits and socket slots are counted again")

    def _not_answered(self, error: RedisError) -> None:
        if not self.down:
            self.down = True
            log.warning(
                "Redis does not answer (%s): rate limits and socket slots are not counted "
                "until it does",
                error,
            )


def _degrading(name: str, when_down: Callable[..., Any]) -> Callable[..., Any]:
    own = {"incr": SharedRedisCacheClient._incr, "count": SharedRedisCacheClient.count}
    cached = own.get(name) or getattr(RedisCacheClient, name)

    def operation(self: SharedRedisCacheClient, *args: Any) -> Any:
        try:
            result = cached(self, *args)
        except RedisError as error:
            self._not_answered(error)
            return when_down(*args)
        self._answered()
        return result

    operation.__name__ = name
    return operation


for _name, _when_down in _WHEN_DOWN.items():
    setattr(SharedRedisCacheClient, _name, _degrading(_name, _when_down))


_clients: dict[tuple[tuple[str, ...], str], SharedRedisCacheClient] = {}
_clients_lock = threading.Lock()


class SharedRedisCache(RedisCache):
    """`RedisCache` whose client is the process's one for its servers and options."""

    @cached_property
    def _cache(self) -> SharedRedisCacheClient:
        key = (tuple(self._servers), repr(sorted(self._options.items())))
        with _clients_lock:
            client = _clients.get(key)
            if client is None:
                client = _clients[key] = SharedRedisCacheClient(self._servers, **self._options)
        return client

    def ping(self) -> bool:
        """Whether Redis answers; raises (redis-py's error) when it does not."""
        return self._cache.ping()

    def count(self, key: str, timeout: int | None = None) -> int:
        """`add(key, 0, timeout)` then `incr(key)` in one round trip: the new count."""
        key = self.make_and_validate_key(key)
        return self._cache.count(key, self.get_backend_timeout(timeout))
