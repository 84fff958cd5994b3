"""The Redis channel layer, with a send that costs one round trip.

channels-redis sends a message to a channel with four commands, each awaited in turn: drop the
expired messages, count what is left against the capacity, add the message, renew the key's
expiry. Every live table's change crosses to the other server processes by such a send (one per
process with phones at the table), so four round trips, each through redis-py and the event
loop, were a tenth of a busy server's time. This layer does the same four steps in one Lua
script, atomically (so the capacity check and the add cannot be split by another sender
either). Receiving, groups and everything else are channels-redis's own.
"""

from __future__ import annotations

import time
from typing import Any

from channels.exceptions import ChannelFull
from channels_redis.core import RedisChannelLayer as BaseRedisChannelLayer

# KEYS[1] the channel's sorted set; ARGV: oldest score kept, capacity, score, message, expiry.
SEND_SCRIPT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
    return 0
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""


class RedisChannelLayer(BaseRedisChannelLayer):  # type: ignore[misc]
    async def send(self, channel: str, message: dict[str, Any]) -> None:
        """channels-redis's `send`, in one round trip: raises ChannelFull, and adds nothing,
        when the channel already holds `capacity` messages."""
        assert isinstance(message, dict), "message is not a dict"
        assert self.require_valid_channel_name(channel), "Channel name not valid"
        assert "__asgi_channel__" not in message
        target = channel
        if "!" in channel:
            # A process-local channel: its process reads them all from one list, and finds
            # the channel a message is for in the message.
            message = {**message, "__asgi_channel__": channel}
            target = self.non_local_name(channel)
            index = self.consistent_hash(channel)
        else:
            index = next(self._send_index_generator)
        connection = self.connection(index)
        now = time.time()
        expiry = int(self.expiry)
        sent = await connection.eval(
            SEND_SCRIPT,
            1,
            self.prefix + target,
            int(now) - expiry,
            self.get_capacity(channel),
            now,
            self.serialize(message),
            expiry,
        )
        if not sent:
            raise ChannelFull()
