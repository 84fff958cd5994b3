"""A client that floods one table socket: it sends frames as fast as it can until the server
closes the socket, then prints one JSON line: {"code": the close code it was sent (1006 when
the connection was dropped without one, null when it gave up), "sent": frames sent, "seconds":
how long it took}.

    python -m tests.scaleout.flooder ws://127.0.0.1:PORT/ws/tables/CODE/ SESSION [--for 30]

Run as a process of its own, so that its loop and its interpreter are not the test's: a test
measures another phone's answers meanwhile. It gives up (code null) after `--for` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import time
from urllib.parse import urlsplit

from websockets.exceptions import ConnectionClosed

from tests.scaleout.phones import dial

# What it sends: a frame the server must read (not JSON, so refused when the rate limit lets
# it through), the cheapest for a client to repeat.
FRAME = "x" * 16


async def flood(url: str, session: str, seconds: float) -> dict[str, object]:
    parts = urlsplit(url)
    ws = await dial(
        url,
        origin=f"http://{parts.netloc}",
        additional_headers={"Cookie": f"sessionid={session}"},
        open_timeout=5,
        # The server's answers are not read on the way: the client must not stop sending
        # because its own queue of them is full.
        max_queue=None,
    )
    sent = 0
    start = time.monotonic()
    try:
        while time.monotonic() - start < seconds:
            await ws.send(FRAME)
            sent += 1
            if sent % 64 == 0:
                # As a browser's loop: the client's own reading of the socket gets a turn,
                # so it hears the server's close.
                await asyncio.sleep(0)
    except ConnectionClosed:
        pass
    took = time.monotonic() - start
    code = ws.close_code
    with contextlib.suppress(Exception):
        await asyncio.wait_for(ws.close(), 2)
    if took >= seconds:
        code = None
    return {"code": code, "sent": sent, "seconds": round(took, 3)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("session")
    parser.add_argument("--for", dest="seconds", type=float, default=30.0)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(flood(args.url, args.session, args.seconds))))


if __name__ == "__main__":
    main()
