"""What uvicorn's keepalive pings cost the server: idle sockets, pings on and off.

    .venv/bin/python bench/pings.py --sockets 4800 --interval 1 --seconds 20

One uvicorn serves the bare fan-out (bench/fanout_asgi.py as a bare ASGI application: accept,
then wait) with the production options (tests/scaleout/servers.py, `UVICORN`) and a ping
interval (production keeps uvicorn's default, 20 s); this process opens `--sockets`
websockets that say nothing (their own pings off; the client library answers the server's).
The server's CPU over `--seconds` is read from /proc with the pings every `--interval`
seconds, then with none (a fresh server each): the difference, divided by the pings sent, is
one ping and its answer. At the live benchmark's pace (an action a second at each table, four
phones a table, pings every 20 s) a ping costs its share of an action times 4 / 20. The runs
and the result are printed as JSON lines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _machine import machine
from websockets.asyncio.client import connect

from tests.scaleout.servers import Daphne, base_env
from toepen_site import allocator


async def measure(sockets: int, interval: float, seconds: float) -> dict[str, float]:
    # uvicorn reads its options from UVICORN_* too: the production command line, and these.
    # 0 turns the pings off in the sans-I/O protocol (uvicorn's own pick, named here: the older
    # one would ping without pause).
    env = base_env(
        FANOUT_RAW="1",
        UVICORN_WS="websockets-sansio",
        UVICORN_WS_PING_INTERVAL=f"{interval:g}",
    )
    with tempfile.TemporaryDirectory(prefix="toepen-pings-") as folder:
        server = Daphne(
            env, Path(folder) / "server.log", app="bench.fanout_asgi:application", server="uvicorn"
        ).start()
        clients = []
        try:
            for start in range(0, sockets, 200):
                clients += await asyncio.gather(
                    *(
                        connect(f"ws://127.0.0.1:{server.port}/ws/fanout/t{n}/", ping_interval=None)
                        for n in range(start, min(start + 200, sockets))
                    )
                )
            await asyncio.sleep(max(interval, 1.0) + 1)  # past the connects' work
            before, began = server.cpu_seconds(), time.monotonic()
            await asyncio.sleep(seconds)
            cpu, elapsed = server.cpu_seconds() - before, time.monotonic() - began
        finally:
            await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
            server.stop()
    return {"interval": interval, "cpu_ms_per_s": round(1000 * cpu / elapsed, 1)}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=4800)
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between pings")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--turns", type=int, default=2, help="pings on, then off, this often")
    args = parser.parse_args()
    runs = []
    for _ in range(args.turns):
        for interval in (args.interval, 0.0):
            runs.append(await measure(args.sockets, interval, args.seconds))
            print(json.dumps(runs[-1]), file=sys.stderr)
    on = [r["cpu_ms_per_s"] for r in runs if r["interval"]]
    off = [r["cpu_ms_per_s"] for r in runs if not r["interval"]]
    pings_per_s = args.sockets / args.interval
    per_ping_us = 1000 * (sum(on) / len(on) - sum(off) / len(off)) / pings_per_s
    print(
        json.dumps(
            {
                "bench": "pings",
                "machine": machine(),
                "allocator": allocator.server_env().get("PYTHONMALLOC", "pymalloc"),
                "sockets": args.sockets,
                "runs": runs,
                "per_ping_us": round(per_ping_us, 1),
                # At 1,200 tables, an action a second each, pings every 20 s to 4,800 phones:
                "ms_per_action_at_20s": round(per_ping_us * 4 / 20 / 1000, 4),
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
