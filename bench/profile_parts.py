"""Where a profiled server's time goes, by part: reads py-spy's raw (collapsed) output.

    py-spy record --pid PID --duration 20 --rate 200 --format raw --nonblocking --gil -o server.raw
    python bench/profile_parts.py server.raw

With `--gil` only the thread py-spy takes for the GIL's holder is sampled; without it a thread
waiting for the GIL counts as busy at the line it waits in (the event loop's share then holds
the worker threads' hand-overs). Either way these are shares of samples, not CPU, and a worker
thread's can be far off: `--gil` put a heartbeat round at 7% of a loaded server's samples when
it took 0.6% of its CPU. For CPU by part, `bench/live.py --parts` (bench/parts_asgi.py).

Each sample counts once, for the deepest frame of its stack that belongs to one of the parts
below (so a render inside the write path counts as rendering, a statement as the database).
"""

from __future__ import annotations

import re
import sys
from collections import Counter

PARTS = [
    ("rendering the views (games/view)", r"games/view/"),
    ("database (Django's db layer, sqlite3, psycopg)", r"django/db/|sqlite3|psycopg"),
    ("rules engine", r"games/engine/"),
    ("write path (games/services)", r"games/services/"),
    ("channel layer", r"channels/layers"),
    (
        "websocket frames (the server's protocol code)",
        r"websockets/|autobahn|wsproto|uvicorn/protocols|daphne/|granian|twisted/",
    ),
    ("consumer dispatch (channels, asgiref)", r"channels/|asgiref/"),
    ("hub and clock (games/live)", r"games/live/"),
]
COMPILED = [(name, re.compile(pattern)) for name, pattern in PARTS]
OTHER = "the event loop's own work and everything else"


def part_of(frames: list[str]) -> str:
    for frame in reversed(frames):
        for name, pattern in COMPILED:
            if pattern.search(frame):
                return name
    return OTHER


def main() -> None:
    counts: Counter[str] = Counter()
    total = 0
    with open(sys.argv[1]) as raw:
        for line in raw:
            stack, _, count = line.rstrip().rpartition(" ")
            if not stack or not count.isdigit():
                continue  # the rest of a frame's name that held a line break
            total += int(count)
            counts[part_of(stack.split(";"))] += int(count)
    for name, count in counts.most_common():
        print(f"{100 * count / total:5.1f}%  {name}")
    print(f"{total} samples")


if __name__ == "__main__":
    main()
