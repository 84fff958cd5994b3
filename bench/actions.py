"""What one action costs the server process, without the network: the service call that takes
it (lock, checks, engine, writes, commit) and the four views rendered after it.

    .venv/bin/python bench/actions.py                    # PostgreSQL on 127.0.0.1:5432
    .venv/bin/python bench/actions.py --database sqlite
    .venv/bin/python bench/actions.py --database sqlite --jinja [--processes 2]
    .venv/bin/python bench/actions.py --database sqlite --loop   # as a server's event loop does
    .venv/bin/python bench/actions.py --database sqlite --loop --together 4

bench/live.py measures whole tables over websockets, with everything sharing the machine, and
its per-action CPU moves with whatever else runs there. This one runs in one thread of one
process, so CPU time per action is steady enough to compare two versions of the code: tables
of four people play real hands (the due seat picks from what the engine offers, like
bench/live.py's clients), and each action is timed as `tables.act` and as the renders of
the four phones' views from the snapshot the action left. A finished hand's next deal is the
clock's work (`fire_deadline`) and is not counted. Ends with one JSON line.

`tables.act` decides an action on the table read from the database and writes it in the
calling thread: the way a worker thread takes one. A server takes nearly all of them on its
event loop instead (`tables.act_here`: decided on the process's snapshot, written by the loop's
own writer, games/services/store/); `--loop` times that, each action run to its end on one
event loop (`act_cpu_ms` then holds the loop's few turns for it, as the server's do).
`--together N` decides N tables' actions in one turn of the loop, as a loaded server's phones
come, and the writer writes them in one transaction (their CPU shared out among them).

`--jinja` renders each action's four views a second time through the Jinja2 template
(bench/jinja_view.py) instead of html.py, the two in turns (one first, then the other first),
from the same snapshot, and stops if any view differs (on the view's source: the compiled module
would not see the template swapped in, games/compiled.py); `--processes 2` renders the
four phones as two server processes would, two and two, each pass sharing its own public part
(the scale-out set-up).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _machine import compiled_modules, machine

from tests.scaleout.phones import choose
from tests.scaleout.servers import PostgresDatabase, base_env, migrate, seed


@contextlib.contextmanager
def writing_with(live_html: Callable[..., str]) -> Iterator[None]:
    """Views rendered meanwhile are written by `live_html` (html.py's, or the template's)."""
    from games.view import context

    kept = context.live_html
    context.live_html = live_html
    try:
        yield
    finally:
        context.live_html = kept


def play(
    seeded: list[dict[str, Any]],
    actions: int,
    rng: random.Random,
    label: str,
    views: dict[str, Callable[..., str]],
    processes: int,
    loop: asyncio.AbstractEventLoop | None = None,
    together: int = 1,
) -> dict[str, Any]:
    from django.utils import timezone

    from accounts.models import User
    from games.engine import observe
    from games.live.consumers import TableConsumer
    from games.models import Seat, Table
    from games.services import tables
    from games.services.snapshots import snapshot_of, view_state
    from games.services.state import Holder
    from games.view.parts import Shared

    holders = {}
    for info in seeded:
        for phone in info["phones"]:
            user = User.objects.get(username=phone["name"])
            holders[info["id"], phone["seat"]] = Holder(user_id=user.pk, key=f"phone-{user}")
    # Which phones each server process renders: all four, or two and two as bench/live.py
    # splits a table's clients over two processes.
    passes = [list(range(4))] if processes == 1 else [[0, 2], [1, 3]]

    def render_all(table_id: int) -> list[str]:
        state = view_state(table_id, at_least=0)
        views = []
        for seats in passes:
            shared = Shared()  # as games.live.hub.render_all does for the phones of one process
            for seat in seats:
                phone = TableConsumer()
                phone.holder, phone.shown, phone.language = holders[table_id, seat], None, "en"
                phone.can_start = phone.can_close = False
                phone.awaiting, phone.answers = set(), {}
                views.append(phone.render(state, shared))
        return views

    act_cpu: list[float] = []
    act_wall: list[float] = []
    render_cpu: dict[str, list[float]] = {name: [] for name in views}
    number = 0
    while len(act_cpu) < actions:
        # The actions of one turn of the loop: `together` tables', one each.
        turn: list[tuple[int, Holder, int, dict[str, Any], str]] = []
        while len(turn) < together and len(act_cpu) + len(turn) < actions:
            info = seeded[number % len(seeded)]
            number += 1
            table_id = info["id"]
            # The process's snapshot, as a server's phones choose from their last view:
            # reading the row here (an ORM query, more instructions than the action and its
            # four views together) would count in a profile of the whole run, though not in
            # the CPU timed below.
            state = snapshot_of(table_id) or view_state(table_id)
            hand = state.hand
            if state.table.status == Table.Status.RUBBER_OVER:
                tables.start_rubber(table_id, User.objects.get(pk=holders[table_id, 0].user_id))
                continue
            if hand is None or hand.complete or not hand.due():
                # The next deal, its players still at the table (a table nobody is at pauses).
                later = timezone.now() + timedelta(hours=1)
                Seat.objects.filter(table_id=table_id).update(last_seen=later)
                tables.fire_deadline(table_id, later)
                continue
            hand_seat = hand.due()[0]
            seat = state.table_seat(hand_seat)
            legal = [
                a for a in observe(hand, hand_seat).legal if a.act not in ("exchange", "challenge")
            ]
            offers = [dict(a.to_json(), seat=seat) for a in legal]
            for offer in offers:
                if "target" in offer:
                    offer["target"] = state.table_seat(offer["target"])
            payload = {k: v for k, v in choose(rng, offers).items() if k != "seat"}
            # A new id each time: a repeated one would only be looked up (the duplicate path).
            turn.append((table_id, holders[table_id, seat], seat, payload, f"{label}-{number}"))
        cpu, wall = time.thread_time(), time.perf_counter()
        if loop is None:
            for taking in turn:
                tables.act(*taking)
        else:
            # One alone runs as the earlier rounds' counts did, without a gather around it.
            taking = [tables.act_here(*taking) for taking in turn]
            loop.run_until_complete(taking[0] if len(taking) == 1 else _all(taking))
        act_cpu += [(time.thread_time() - cpu) / len(turn)] * len(turn)
        act_wall += [(time.perf_counter() - wall) / len(turn)] * len(turn)
        for table_id, *_ in turn:
            # Each way first in turn, so neither always finds the other's work in the caches.
            order = list(views) if len(render_cpu["python"]) % 2 else list(reversed(views))
            written = {}
            for name in order:
                with writing_with(views[name]):
                    cpu = time.thread_time()
                    written[name] = render_all(table_id)
                    render_cpu[name].append(time.thread_time() - cpu)
            if "jinja" in written:
                from jinja_view import same_view

                for python, template in zip(written["python"], written["jinja"], strict=True):
                    assert same_view(python, template), (python, template)

    def ms(values: list[float]) -> float:
        return round(1000 * statistics.mean(values), 3)

    report: dict[str, Any] = {
        "actions": len(act_cpu),
        "act_cpu_ms": ms(act_cpu),
        "act_wall_ms": ms(act_wall),
        "act_wall_p50_ms": round(1000 * statistics.median(act_wall), 3),
        "render4_cpu_ms": ms(render_cpu["python"]),
    }
    if "jinja" in views:
        report["render4_jinja_cpu_ms"] = ms(render_cpu["jinja"])
        report["jinja_extra_ms"] = round(
            report["render4_jinja_cpu_ms"] - report["render4_cpu_ms"], 3
        )
    return report


async def _all(coroutines: list[Coroutine[Any, Any, Any]]) -> list[Any]:
    """The coroutines run together, on the running loop: each takes its first steps in the same
    turn of it."""
    return await asyncio.gather(*coroutines)


async def _writer_done() -> dict[str, int]:
    """The changes the loop's writer wrote, and those it passed to a worker thread; its
    connection closed."""
    from games.services import store

    writer = store.loop_writer()
    written = {"written": writer.written, "passed": getattr(writer, "passed", 0)}
    await writer.close()
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=["postgresql", "sqlite"], default="postgresql")
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--actions", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--jinja", action="store_true", help="render each action's views through the template too"
    )
    parser.add_argument("--processes", type=int, choices=[1, 2], default=1)
    parser.add_argument(
        "--loop", action="store_true", help="take the actions on an event loop, as a server does"
    )
    parser.add_argument(
        "--together",
        type=int,
        default=1,
        help="with --loop: the actions of this many tables decided in one turn of the loop "
        "(as a loaded server's phones are), written together; the CPU is shared out",
    )
    args = parser.parse_args()
    if not 1 <= args.together <= args.tables or (args.together > 1 and not args.loop):
        parser.error("--together takes 1 to --tables, and more than 1 only with --loop")
    if args.jinja and "games.view.context" in compiled_modules():
        parser.error(
            "--jinja swaps the view's writer in games.view.context, which the compiled module "
            "does not see: run `python -m toepen_site.compile --clean` first"
        )

    database = None
    written: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="toepen-actions-") as tmp:
        if args.database == "postgresql":
            database = PostgresDatabase().create()
            url = database.url
        else:
            url = f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        try:
            env = base_env(
                DATABASE_URL=url,
                DJANGO_DEBUG="false",
                DJANGO_SECRET_KEY="bench",
                TOEPEN_LAUNDRY_SECONDS="0",
                TOEPEN_BETWEEN_HANDS_SECONDS="1",
            )
            migrate(env)
            tables = seed(env, args.tables, 30)
            os.environ.update(env)
            import django

            django.setup()
            from games.view.html import live_html

            views = {"python": live_html}
            if args.jinja:
                from jinja_view import live_view

                views["jinja"] = live_view
            rng = random.Random(7)
            loop = asyncio.new_event_loop() if args.loop else None
            # Warm up: compiled queries and templates, caches, the connection.
            play(tables, 200, rng, "warm", views, args.processes, loop)
            rounds = [
                play(tables, args.actions, rng, f"r{i}", views, args.processes, loop, args.together)
                for i in range(args.rounds)
            ]
            if loop is not None:
                written = loop.run_until_complete(_writer_done())
        finally:
            if loop is not None:
                loop.close()
            from django.db import connections

            connections.close_all()
            if database is not None:
                database.drop()
    names = ["act_cpu_ms", "render4_cpu_ms"]
    if args.jinja:
        names += ["render4_jinja_cpu_ms", "jinja_extra_ms"]
    report: dict[str, Any] = {
        "bench": "actions",
        "machine": machine(),
        "loadavg": os.getloadavg()[0],
        "database": args.database,
        "processes": args.processes,
        "on": "loop" if args.loop else "thread",
        "together": args.together,
        **({"loop_writer": written} if args.loop else {}),
        "rounds": rounds,
        **{name: min(r[name] for r in rounds) for name in names},
    }
    for name in [*names, "act_wall_ms"]:
        print(f"{name}: " + ", ".join(str(r[name]) for r in rounds), flush=True)
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
