"""Django's Redis cache with one client a process, not one a request.

Django keeps its cache objects per context (`caches` is an asgiref `Local`), and under an ASGI
server every request and every websocket is a context of its own: each built its own
`RedisCache`, and with it a client that looked up redis-py's version in the installed
packages (`importlib.metadata`, which walks `sys.path`), a pool of its own and a new
connection to Redis. A phone's handshake (its socket slot, games/throttle.py) cost about 2 ms
of the server's CPU that way, and the connection stayed open as long as the phone's socket did,
one for every phone. Django's own client also makes a new `redis.Redis` for every command,
whose table of response callbacks alone is some 170 entries.

Here every `SharedRedisCache` of a process with the same servers and options uses one client,
which keeps one `redis.Redis` a server: redis-py's clients are safe to share between threads
(each command takes a connection from the pool and gives it back).
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.utils.functional import cached_property


class SharedRedisCacheClient(RedisCacheClient):
    """Django's client, keeping the `redis.Redis` of each of its pools."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            # Two threads may both make one the first time: the second replaces the first,
            # and both work on the one pool.
            pool = self._get_connection_pool(write)
            client = self._clients[index] = self._client(connection_pool=pool)
        return client


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
