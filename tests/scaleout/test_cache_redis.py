"""The Redis cache of the scale-out set-up (toepen_site/cache.py) on a real Redis: one client a
process, however many requests and phones ask for the cache, and counts that stay exact when
threads share it."""

from __future__ import annotations

import contextvars
import threading
from typing import Any

import pytest
import redis
from django.core.cache import CacheHandler

from tests.scaleout.servers import RedisDatabase, base_env, run
from toepen_site.cache import SharedRedisCache

pytestmark = pytest.mark.redis


def connections_to(redis_db: RedisDatabase) -> int:
    """How many connections Redis holds open to the claimed database (this one's excluded)."""
    client = redis.Redis.from_url(redis_db.url)
    try:
        return sum(1 for c in client.client_list() if c["db"] == str(redis_db.number)) - 1
    finally:
        client.close()


def handler(redis_db: RedisDatabase) -> CacheHandler:
    return CacheHandler(
        {"default": {"BACKEND": "toepen_site.cache.SharedRedisCache", "LOCATION": redis_db.url}}
    )


def test_every_context_asking_for_the_cache_shares_one_connection(redis_db) -> None:
    """Django makes a cache object per context (each request, each websocket under ASGI): every
    one of them uses the process's one client, and Redis sees no connection more for each."""
    caches = handler(redis_db)
    before = connections_to(redis_db)
    kept: list[Any] = []  # every context's cache alive at once, as open sockets keep theirs

    def take_a_slot(n: int) -> None:
        cache = caches["default"]
        kept.append(cache)
        cache.add(f"slot:{n}", 0, 60)
        assert cache.incr(f"slot:{n}") == 1

    for n in range(40):
        contextvars.Context().run(take_a_slot, n)
    assert len({id(cache) for cache in kept}) == 40  # Django's own per-context objects
    assert len({id(cache._cache) for cache in kept}) == 1
    assert connections_to(redis_db) - before <= 1


def test_counts_from_many_threads_at_once_are_exact(redis_db) -> None:
    """The shared client under the server's worker threads: no count lost, none doubled."""
    cache = SharedRedisCache(redis_db.url, {})
    cache.set("count", 0, 60)
    start = threading.Barrier(8)

    def count() -> None:
        start.wait()
        for _ in range(50):
            handler(redis_db)["default"].incr("count")

    threads = [threading.Thread(target=count) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert cache.get("count") == 400
    assert connections_to(redis_db) <= 8  # a pool's connections, at most one a thread


def test_the_scale_out_settings_use_the_shared_cache(redis_db) -> None:
    shown = run(
        [
            "manage.py",
            "shell",
            "--no-imports",
            "-c",
            "from django.core.cache import cache; print(type(cache._cache).__name__)",
        ],
        base_env(REDIS_URL=redis_db.url, DJANGO_SECRET_KEY="test"),
    )
    assert shown.strip().splitlines()[-1] == "SharedRedisCacheClient"


def commands_sent(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every command the Redis client sends from now on, as it packed it."""
    sent: list[Any] = []
    packed = redis.connection.Connection.send_packed_command

    def counting(connection: Any, command: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(command)
        return packed(connection, command, *args, **kwargs)

    monkeypatch.setattr(redis.connection.Connection, "send_packed_command", counting)
    return sent


def test_a_count_is_one_round_trip_and_counts_only_a_key_that_is_there(
    redis_db, monkeypatch
) -> None:
    """`incr` and `decr` (a socket slot, a code guess) each send Redis one command, not
    Django's question whether the key exists and then the count; a key that is not there is
    not found (ValueError), and is not made; the count keeps the key's lifetime."""
    cache = SharedRedisCache(redis_db.url, {})
    cache.add("slot", 0, 60)
    sent = commands_sent(monkeypatch)
    assert cache.incr("slot") == 1
    assert cache.incr("slot", 4) == 5
    assert cache.decr("slot") == 4
    assert len(sent) == 3
    with pytest.raises(ValueError):
        cache.incr("missing")
    with pytest.raises(ValueError):
        cache.decr("missing")
    monkeypatch.undo()
    assert cache.get("missing") is None
    client = redis.Redis.from_url(redis_db.url)
    try:
        assert 0 < client.ttl(cache.make_and_validate_key("slot")) <= 60
    finally:
        client.close()


def test_a_socket_slot_and_a_code_guess_each_cost_redis_one_command(redis_db, monkeypatch) -> None:
    """A phone's connect counts its code guess, gives it back, and takes its two socket slots
    (games/throttle.py): four commands, each count made with its lifetime where it was not
    there, one more where it was. (Redis learns each script at its first use: a phone
    before this one.)"""
    from django.test import override_settings

    from games import throttle

    settings = {
        "default": {"BACKEND": "toepen_site.cache.SharedRedisCache", "LOCATION": redis_db.url}
    }
    with override_settings(CACHES=settings, TOEPEN_SOCKETS_PER_CLIENT=1000):
        from django.core.cache import cache

        cache.clear()
        earlier = {"client": ("10.0.0.6", 5000), "headers": [], "session": None}
        throttle._take_for_socket(earlier, "code")
        throttle._give_back_for_socket(earlier, "code")
        throttle._take_socket_slot(earlier)
        scope = {"client": ("10.0.0.7", 5000), "headers": [], "session": None}
        sent = commands_sent(monkeypatch)
        assert throttle._take_for_socket(scope, "code") is None
        throttle._give_back_for_socket(scope, "code")
        first = throttle._take_socket_slot(scope)
        assert len(sent) == 4
        second = throttle._take_socket_slot(scope)
        monkeypatch.undo()
        assert first == second
        assert [cache.get(key) for key in first] == [2, 2]
        client = redis.Redis.from_url(redis_db.url)
        try:
            assert all(client.ttl(cache.make_and_validate_key(key)) > 0 for key in first)
        finally:
            client.close()
