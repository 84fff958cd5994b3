"""The app with a clock on its parts: where a loaded server's CPU goes, per action.

    bench/live.py --only app --server uvicorn --parts ...   (serves bench.parts_asgi:application)

The application is the app's own (`toepen_site.asgi`); only the functions below are wrapped, so
that the CPU the event loop's thread (or, for the "worker" parts, a worker thread) spends in
each is added up (`time.thread_time`, taken around functions that never give their thread away,
so nothing else runs inside them; sending the frames would only if a socket's buffer were
full). Every
second the running totals go to the JSON file `BENCH_PARTS_FILE` names, with the CPU of the
loop's thread and of the whole process (the worker threads' share is the difference); the
bench takes the difference over a step and divides by the step's actions.

A part that runs inside another part on the same thread (the frames a change's publish sends
at once, `hub.send_now`) is timed in both: what the top-level parts spent inside one another is
added up apart (`NESTED`), so that the thread's rest is what no part holds.

A sampling profiler gives shares, not CPU: `py-spy --gil` counted a worker thread's heartbeat
round at 7% of a loaded server's samples when the round took 0.6% of its CPU (timed around
it), so the parts of the loop's own work are timed here instead. What this adds (two clock
reads a call, about 0.5 µs) is in the totals.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toepen_site.settings")
django.setup()

from games.live import hub  # noqa: E402
from games.services import events, store, tables  # noqa: E402
from games.services.changes import decide, play  # noqa: E402
from games.services.store import claim  # noqa: E402
from toepen_site.asgi import application  # noqa: E402, F401  (what the server serves)

# (name, module or class, attribute, thread): the parts, each a function that runs to its end
# without giving its thread away (on the loop, a coroutine that never waits counts too).
# `SqliteLoopWriter.write` waits for the loop's next turn (and while the checkpointer restarts
# the log), and the loop runs other phones' work meanwhile: its statements, built first, and
# the synchronous `_write` of the turn's changes together are timed apart. A part whose name
# starts with "  " is held in the part above it; "worker" parts are timed in the worker threads
# only.
PARTS: list[tuple[str, Any, str, str]] = [
    ("decide: the snapshot's copy", decide, "editable_copy", "loop"),
    ("decide: the rules", play, "play", "loop"),
    ("decide: the next version and deadline", decide, "next_version", "loop"),
    ("write on the loop: statements built", claim, "opening", "loop"),
    ("write on the loop: statements built, closing", claim, "closing", "loop"),
    ("write on the loop: SQLite's statements and commit", store.SqliteLoopWriter, "_write", "loop"),
    ("publish", events, "send", "loop"),
    ("  render: every phone's view", hub, "render_all", "loop"),
    ("send: the frames", hub, "send_all", "loop"),
    ("worker: the clock's deadlines (deals, ends of hands)", tables, "fire_deadline", "worker"),
    ("worker: changes with rows beside the table's", claim, "write_all", "worker"),
    ("worker: heartbeats written", store, "mark_seen_all", "worker"),
    ("worker: versions and presence read", hub, "_versions", "worker"),
    ("worker: changes decided afresh", decide, "change", "worker"),
]

# The CPU top-level parts spent inside another part of the same thread, by the thread's kind
# (the names start with spaces: held in the parts above, never summed with them).
NESTED = {"loop": "  held in another part: the loop", "worker": "  held in another part: workers"}

_main = threading.main_thread()
_totals: dict[str, list[float]] = {name: [0.0, 0] for name, _, _, _ in PARTS}
_totals.update({name: [0.0, 0] for name in NESTED.values()})
_open = threading.local()  # how many parts the thread is in now


class _Clock:
    """One call of a part: its CPU, and whether it began inside another part of the thread."""

    def __init__(self, total: list[float], nested: list[float], top: bool) -> None:
        self.total, self.nested, self.top = total, nested, top
        self.inside = getattr(_open, "depth", 0)
        _open.depth = self.inside + 1
        self.started = time.thread_time()

    def stop(self) -> None:
        spent = time.thread_time() - self.started
        _open.depth -= 1
        self.total[0] += spent
        self.total[1] += 1
        if self.top and self.inside:
            self.nested[0] += spent
            self.nested[1] += 1


def _timed(name: str, function: Callable[..., Any], on_loop: bool) -> Callable[..., Any]:
    total = _totals[name]
    nested = _totals[NESTED["loop" if on_loop else "worker"]]
    top = not name.startswith(" ")
    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def timed_coroutine(*args: Any, **kwargs: Any) -> Any:
            if (threading.current_thread() is _main) != on_loop:
                return await function(*args, **kwargs)
            clock = _Clock(total, nested, top)
            try:
                return await function(*args, **kwargs)
            finally:
                clock.stop()

        return timed_coroutine

    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        if (threading.current_thread() is _main) != on_loop:
            return function(*args, **kwargs)
        clock = _Clock(total, nested, top)
        try:
            return function(*args, **kwargs)
        finally:
            clock.stop()

    return timed


def _thread_cpu(tid: int) -> float:
    """A thread's CPU seconds (user and system) as the kernel counts them."""
    fields = Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _report(path: Path) -> None:
    main_tid = _main.native_id
    while True:  # written at once, so a step that starts at any moment finds the file
        figures = {
            "parts": {name: list(total) for name, total in _totals.items()},
            "loop_thread_s": _thread_cpu(main_tid) if main_tid is not None else None,
            "process_s": time.process_time(),
        }
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(figures))
        temporary.replace(path)
        time.sleep(1.0)


for _name, _owner, _attribute, _thread in PARTS:
    setattr(_owner, _attribute, _timed(_name, getattr(_owner, _attribute), _thread == "loop"))

if os.environ.get("BENCH_PARTS_FILE"):
    threading.Thread(
        target=_report, args=(Path(os.environ["BENCH_PARTS_FILE"]),), daemon=True
    ).start()
