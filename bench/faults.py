"""Faults, measured on real servers: a stuck process, and a writer killed after its commit.

    .venv/bin/python bench/faults.py                 # about a minute
    .venv/bin/python bench/faults.py --tables 8 --watch 8 --kills 5

Two daphne processes, A and B, on a fresh PostgreSQL database and a claimed Redis database,
with the default lock and idle-in-transaction timeouts and heartbeat; computer players move
every 0.2 s, a deal comes 0.5 s after a hand.

freeze: bot tables play by themselves. A is stopped (SIGSTOP) at random moments until it is
caught holding a table's row in an open transaction (its sessions are named by PGAPPNAME; a
row lock shows as a lock on `games_table` in `pg_locks`). It stays stopped for `--watch`
seconds while every table's version is polled every 20 ms. Reported: the longest a table
stood still at the normal pace before (`normal_longest_s`), the longest an unaffected table
stood still while A was stopped (`paused_unaffected_longest_s`), and how long the held table
itself stood still (`held_table_still_s`: until PostgreSQL ended A's idle transaction).

reach: a table of four phones, two on A and two on B. A phone on A plays a card; its process's
write (the quick path's one statement) waits for the hand's row, which this script holds; A
is stopped, the row let go (PostgreSQL commits A's statement), A is SIGKILLed as soon as the
commit is visible. Reported, per kill: the time from letting the row go to B's phones holding
the new version (`reach_ms`; null: not within 15 s), and its median and maximum.

notice_cost (a side figure, no servers): what a notice costs PostgreSQL's commits. One or
four writers each commit a one-row update of a row of their own, for `--seconds` each, with
and without a `pg_notify` of a change's usual size (about 400 bytes) in the transaction, while
one session listens and reads every notice (as a daphne does). Reported: commits a second.

Prints one JSON line. Loopback only; everything it starts or creates is removed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _machine import machine

from tests.scaleout.phones import Phone, Signal, Table, new_id
from tests.scaleout.servers import (
    CALM_TIMERS,
    Daphne,
    PostgresDatabase,
    RedisDatabase,
    base_env,
    migrate,
    seed,
)

TIMERS = {**CALM_TIMERS, "TOEPEN_BOT_SECONDS": "0.2", "TOEPEN_BETWEEN_HANDS_SECONDS": "0.5"}
REACH_TIMEOUT = 15.0


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Cluster:
    def __init__(self, env: dict[str, str], logs: Path, database: PostgresDatabase) -> None:
        self.env = env
        self.a = Daphne({**env, "PGAPPNAME": "bench-faults-a"}, logs / "a.log")
        self.b = Daphne({**env, "PGAPPNAME": "bench-faults-b"}, logs / "b.log")
        self.conn = database.connect()

    def ensure_running(self) -> None:
        for server in (self.a, self.b):
            if not server.running:
                server.start()

    def stop(self) -> None:
        self.a.stop()
        self.b.stop()
        self.conn.close()

    def versions(self, ids: list[int]) -> dict[int, int]:
        rows = self.conn.execute("SELECT id, version FROM games_table WHERE id = ANY(%s)", (ids,))
        return dict(rows.fetchall())

    def a_holds_a_table(self) -> bool:
        """Whether one of A's sessions has a `games_table` row locked (in a transaction)."""
        ((count,),) = self.conn.execute(
            "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity s ON s.pid = l.pid"
            " WHERE s.datname = current_database() AND s.application_name = 'bench-faults-a'"
            " AND l.relation = 'games_table'::regclass AND l.granted"
            " AND l.mode IN ('RowShareLock', 'RowExclusiveLock')"
        ).fetchall()
        return bool(count)

    def held(self, ids: list[int]) -> set[int]:
        """The tables whose rows someone holds now (each row locked for a moment and let go)."""
        with self.conn.transaction():
            rows = self.conn.execute(
                "SELECT id FROM games_table WHERE id = ANY(%s) FOR UPDATE SKIP LOCKED", (ids,)
            ).fetchall()
        return set(ids) - {row[0] for row in rows}


def watch(cluster: Cluster, ids: list[int], seconds: float) -> dict[int, float]:
    """Each table's longest stand-still (its version unchanged) in `seconds` of watching."""
    last = cluster.versions(ids)
    start = time.monotonic()
    since = dict.fromkeys(ids, start)
    longest = dict.fromkeys(ids, 0.0)
    while (now := time.monotonic()) - start < seconds:
        for table_id, version in cluster.versions(ids).items():
            if version != last[table_id]:
                longest[table_id] = max(longest[table_id], now - since[table_id])
                last[table_id], since[table_id] = version, now
        time.sleep(0.02)
    now = time.monotonic()
    return {t: round(max(longest[t], now - since[t]), 3) for t in ids}


def freeze(cluster: Cluster, tables: int, seconds: float) -> dict[str, Any]:
    cluster.ensure_running()
    ids = [t["id"] for t in seed(cluster.env, tables=0, lives=30, bots=tables)]
    time.sleep(2)
    normal = watch(cluster, ids, 5)
    rng = random.Random(9)
    started, attempts = time.monotonic(), 0
    while True:
        attempts += 1
        cluster.a.pause()
        if cluster.a_holds_a_table():
            held = cluster.held(ids) & cluster.held(ids) & cluster.held(ids)
            if held:
                break
        cluster.a.resume()
        if time.monotonic() - started > 120:
            raise RuntimeError(f"A was never caught holding a table in {attempts} tries")
        time.sleep(rng.uniform(0, 0.03))
    log(f"A stopped holding table(s) {sorted(held)} after {attempts} tries")
    try:
        paused = watch(cluster, ids, seconds)
    finally:
        cluster.a.resume()
    others = [paused[t] for t in ids if t not in held]
    return {
        "tables": tables,
        "watch_s": seconds,
        "hunt_tries": attempts,
        "normal_longest_s": max(normal.values()),
        "paused_unaffected_longest_s": max(others) if others else None,
        "held_table_still_s": max(paused[t] for t in held),
    }


async def reach_once(cluster: Cluster, rng: random.Random) -> float | None:
    cluster.ensure_running()
    (info,) = await asyncio.to_thread(seed, cluster.env)
    signal = Signal()
    ports = [cluster.a.port, cluster.b.port, cluster.a.port, cluster.b.port]
    phones = [
        Phone(p["name"], p["seat"], p["session"], info["code"], ports[p["seat"]], signal)
        for p in info["phones"]
    ]
    table = Table(phones, signal)
    try:
        for phone in phones:
            await phone.open()
        while True:
            view = await table.agreed()
            due = table.holder_of(view.due_seats()[0])
            plays = [o for o in due.latest.offers(due.seat) if o["act"] == "play"]
            if due.port == cluster.a.port and view.step >= 1 and plays:
                break
            acted = await table.step(rng)
            assert acted is not None
            await table.seen_by_all(acted[1])
        ((hand,),) = cluster.conn.execute(
            "SELECT h.id FROM games_playedhand h JOIN games_rubber r ON r.id = h.rubber_id"
            " WHERE r.table_id = %s ORDER BY r.number DESC, h.number DESC LIMIT 1",
            (info["id"],),
        ).fetchall()
        holder = PostgresDatabase(name=cluster.conn.info.dbname).connect()
        holder.autocommit = False
        try:
            holder.execute("SELECT id FROM games_playedhand WHERE id = %s FOR UPDATE", (hand,))
            frame = {**plays[0], "id": new_id()}
            await due.act(frame, view.version)
            deadline = time.monotonic() + 5
            while not cluster.conn.execute(
                "SELECT 1 FROM pg_stat_activity WHERE datname = current_database()"
                " AND application_name = 'bench-faults-a' AND wait_event_type = 'Lock'"
            ).fetchall():
                assert time.monotonic() < deadline, "A's write never waited for the hand"
                await asyncio.sleep(0.005)
            cluster.a.pause()
            released = time.perf_counter()
            holder.commit()
        finally:
            holder.close()
        while cluster.versions([info["id"]])[info["id"]] <= view.version:
            assert time.perf_counter() - released < 5, "A's statement never committed"
            await asyncio.sleep(0.001)
        await asyncio.to_thread(cluster.a.kill)
        on_b = [p for p in phones if p.port == cluster.b.port]
        try:
            await signal.until(
                lambda: all(p.latest.version > view.version for p in on_b),
                REACH_TIMEOUT,
                "B's phones",
            )
        except AssertionError:
            return None
        return max(p.latest.received for p in on_b) - released
    finally:
        for phone in phones:
            await phone.close()


async def reach(cluster: Cluster, kills: int) -> dict[str, Any]:
    rng = random.Random(11)
    times = []
    for kill in range(kills):
        seconds = await reach_once(cluster, rng)
        log(f"kill {kill + 1}: {'never' if seconds is None else f'{seconds * 1000:.0f} ms'}")
        times.append(None if seconds is None else round(seconds * 1000, 1))
    known = [t for t in times if t is not None]
    return {
        "kills": kills,
        "reach_ms": times,
        "median_ms": statistics.median(known) if known else None,
        "max_ms": None if len(known) < len(times) else max(known),
    }


NOTICE = json.dumps(
    {
        "type": "table.changed",
        "table": 1,
        "version": 5,
        "change": {
            "base": 4,
            "actions": [{"seat": 1, "act": "play", "card": "10H"}],
            "table": {f"field{i}": "2026-11-24T01:02:03.456789+00:00" for i in range(8)},
        },
    }
)


def notice_cost(database: PostgresDatabase, seconds: float) -> dict[str, Any]:
    setup = database.connect()
    setup.execute("CREATE TABLE bench_rows (id int PRIMARY KEY, n int)")
    setup.execute("INSERT INTO bench_rows SELECT g, 0 FROM generate_series(1, 8) g")
    listening = database.connect()
    listening.execute("LISTEN bench_notices")
    stop = threading.Event()

    def read_notices() -> None:
        while not stop.is_set():
            for _ in listening.notifies(timeout=0.2):
                pass

    reader = threading.Thread(target=read_notices)
    reader.start()

    def commits(writers: int, notify: bool) -> float:
        counts = [0] * writers
        until = time.monotonic() + seconds

        def write(index: int) -> None:
            conn = database.connect()
            conn.autocommit = False
            while time.monotonic() < until:
                conn.execute("UPDATE bench_rows SET n = n + 1 WHERE id = %s", (index + 1,))
                if notify:
                    conn.execute("SELECT pg_notify('bench_notices', %s)", (NOTICE,))
                conn.commit()
                counts[index] += 1
            conn.close()

        threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return round(sum(counts) / seconds)

    try:
        return {
            f"{writers}_writers": {
                "without_notice_per_s": commits(writers, False),
                "with_notice_per_s": commits(writers, True),
            }
            for writers in (1, 4)
        }
    finally:
        stop.set()
        reader.join()
        listening.close()
        setup.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=8, help="bot tables in the freeze run")
    parser.add_argument("--watch", type=float, default=8.0, help="seconds A stays stopped")
    parser.add_argument("--kills", type=int, default=5, help="writers killed in the reach run")
    parser.add_argument("--seconds", type=float, default=3.0, help="per notice_cost figure")
    args = parser.parse_args()
    database = PostgresDatabase().create()
    redis = RedisDatabase().claim()
    try:
        with tempfile.TemporaryDirectory() as logs:
            env = base_env(DATABASE_URL=database.url, REDIS_URL=redis.url, **TIMERS)
            migrate(env)
            cluster = Cluster(env, Path(logs), database)
            try:
                report = {
                    "bench": "faults",
                    "machine": machine(),
                    "freeze": freeze(cluster, args.tables, args.watch),
                    "reach": asyncio.run(reach(cluster, args.kills)),
                }
            finally:
                cluster.stop()
            report["notice_cost"] = notice_cost(database, args.seconds)
    finally:
        redis.release()
        database.drop()
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
