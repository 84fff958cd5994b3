"""The project's Redis channel layer (games/live/layers.py) on a real Redis: its one-round-trip
send keeps channels-redis's behaviour (what arrives, capacity, expiry)."""

from __future__ import annotations

import asyncio
import time

import pytest
import redis.asyncio as aioredis
from channels.exceptions import ChannelFull
from channels_redis.core import RedisChannelLayer as StockLayer

from games.live.layers import RedisChannelLayer
from tests.scaleout.servers import RedisDatabase


def layer(redis_db: RedisDatabase, **config) -> RedisChannelLayer:
    return RedisChannelLayer(hosts=[redis_db.url], prefix=f"test-{time.monotonic_ns()}", **config)


async def test_a_message_sent_is_received_whole_on_a_process_local_channel(redis_db) -> None:
    sender = layer(redis_db)
    receiver = StockLayer(hosts=[redis_db.url], prefix=sender.prefix)
    try:
        channel = await receiver.new_channel()
        message = {"type": "table.changed", "table": 7, "version": 12, "change": {"a": [1, 2]}}
        await sender.send(channel, message)
        received = await asyncio.wait_for(receiver.receive(channel), 5)
        assert received == message
        # A general (not process-local) channel too, in the order sent.
        await sender.send("general", {"type": "one"})
        await sender.send("general", {"type": "two"})
        assert (await asyncio.wait_for(receiver.receive("general"), 5))["type"] == "one"
        assert (await asyncio.wait_for(receiver.receive("general"), 5))["type"] == "two"
    finally:
        await sender.flush()
        await receiver.close_pools()


async def test_a_full_channel_refuses_and_keeps_what_it_holds(redis_db) -> None:
    sender = layer(redis_db, capacity=2)
    client = aioredis.from_url(redis_db.url)
    key = sender.prefix + "full"
    try:
        await sender.send("full", {"type": "one"})
        await sender.send("full", {"type": "two"})
        with pytest.raises(ChannelFull):
            await sender.send("full", {"type": "three"})
        assert await client.zcard(key) == 2
        assert 0 < await client.ttl(key) <= sender.expiry
        assert await sender.receive("full") == {"type": "one"}
        await sender.send("full", {"type": "three"})  # room again
        assert await client.zcard(key) == 2
    finally:
        await sender.flush()
        await client.aclose()


async def test_expired_messages_are_dropped_before_counting(redis_db) -> None:
    sender = layer(redis_db, capacity=1, expiry=60)
    client = aioredis.from_url(redis_db.url)
    key = sender.prefix + "old"
    try:
        await client.zadd(key, {b"stale": time.time() - 120})
        await sender.send("old", {"type": "fresh"})  # the stale one does not count, and goes
        assert await client.zcard(key) == 1
        assert await sender.receive("old") == {"type": "fresh"}
    finally:
        await sender.flush()
        await client.aclose()
