"""Live tables under load: how many tables the server carries with p99 under 200 ms.

    .venv/bin/python bench/live.py                      # both set-ups, about 30 minutes
    .venv/bin/python bench/live.py --config embedded --seconds 10

Each simulated table is four websocket clients playing real hands at a human pace (one action a
second per table): the due player's client clicks one of the cards or buttons its view offers.
Measured per action: from sending the action frame to the moment the last of the other three
clients has a view with a newer version (p50, p95, p99), and the servers' resident memory.

The same load runs, in the same run, against a bare Channels consumer that only fans each frame
out to its table's group (bench/fanout_asgi.py): the floor any Channels app stands on. For each,
the number of tables steps up until p99 reaches 200 ms or the tables get less than 95% of
their actions (a full core keeps p99 low by serving fewer; then two bisection steps between the
last pass and the first miss); the largest passing count is reported. A step that misses is
measured once more before it counts as a miss (`--retries`), for both servers alike.

Set-ups: "embedded" is one server process on a SQLite file (the default); "scaleout" is two
server processes on PostgreSQL and Redis, each table's clients split two and two over the
processes, or with `--route table` all four at one process (as a proxy that routes a table's
sockets by its code puts them, docs/performance.md); `--processes 1` runs one process on
PostgreSQL and Redis (the smallest production set-up). `--listen unix` has the servers listen
on Unix sockets, as behind the proxy in production, and the clients connect there. The load
generator is this process, on the same machine: on a 2-core machine it takes its share of the
CPU. Loopback only; the servers, the databases it creates and the Redis database it claims are
removed at the end. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import secrets
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _machine import machine
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from tests.scaleout import phones
from tests.scaleout.phones import Phone, Signal, choose, new_id
from tests.scaleout.servers import (
    SERVERS,
    Daphne,
    PostgresDatabase,
    RedisDatabase,
    base_env,
    migrate,
    seed,
    unix_path,
)
from toepen_site import allocator

TARGET_MS = 200.0
PACE_SECONDS = 1.0  # one action a second per table
MIN_PACE = 0.95  # a step passes only when its tables get this share of their actions
WAIT_SECONDS = 10.0  # an update later than this counts as lost
STEPS = [2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512]
# The app's capacity targets (docs/performance.md): this many tables at p99 under
# TARGET_MS, with at most this much server CPU an action and server memory a phone there.
TARGET_TABLES = 1200
TARGET_CPU_MS = 0.7
TARGET_MIB_PER_PHONE = 0.2
PHONES_PER_TABLE = 4
BENCH_TIMERS = {
    "TOEPEN_LAUNDRY_SECONDS": "0",
    "TOEPEN_BOT_SECONDS": "0",
    "TOEPEN_BETWEEN_HANDS_SECONDS": "1",
    "TOEPEN_TURN_SECONDS": "600",
    "TOEPEN_GRACE_SECONDS": "600",
}
# Measured as it runs in production: DEBUG off (with it on, Django keeps every query's SQL).
PRODUCTION = {"DJANGO_DEBUG": "false", "DJANGO_SECRET_KEY": secrets.token_urlsafe(50)}
# The load generator is one client address holding every phone's socket: the limit of sockets
# an address may hold (games/throttle.py) is for the phones of one pub, not for this.
ONE_ADDRESS = {"TOEPEN_SOCKETS_PER_CLIENT": "1000000"}
# The servers' allocator (toepen_site/allocator.py): production's unless --allocator says.
ALLOCATOR: dict[str, str] = {}


def log(message: str) -> None:
    print(message, flush=True)


@dataclass
class Recorder:
    """Latencies (ms) of the actions sent while measuring, and what went wrong."""

    measuring: bool = False
    latencies: list[float] = field(default_factory=list)
    lost: int = 0
    errors: int = 0
    taken: int = 0  # every action answered, measuring or not

    def reset(self) -> None:
        self.latencies, self.lost, self.errors = [], 0, 0

    def add(self, ms: float) -> None:
        self.taken += 1
        if self.measuring:
            self.latencies.append(ms)


class Stalls:
    """The load generator's own stalls while measuring: how late its loop woke from a short
    sleep (the longest, and the time lost beyond 20 ms) and how long its collector's full passes
    held it. A p99 the client made is not the server's."""

    TICK = 0.005

    def __init__(self) -> None:
        self.longest_ms = 0.0
        self.beyond_ms = 0.0
        self.gc_ms = 0.0
        self._gc_started = 0.0
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] < 2:
            return
        if phase == "start":
            self._gc_started = time.perf_counter()
        elif self._gc_started:
            self.gc_ms += 1000 * (time.perf_counter() - self._gc_started)

    def reset(self) -> None:
        self.longest_ms = self.beyond_ms = self.gc_ms = 0.0

    async def watch(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(self.TICK)
            late = 1000 * (time.perf_counter() - before - self.TICK)
            self.longest_ms = max(self.longest_ms, late)
            if late > 20:
                self.beyond_ms += late - 20

    def figures(self) -> dict[str, float]:
        return {
            "client_longest_stall_ms": round(self.longest_ms, 1),
            "client_stalled_ms": round(self.beyond_ms, 1),
            "client_full_gc_ms": round(self.gc_ms, 1),
        }


STALLS = Stalls()


class Paced:
    """A table's rhythm: one action per PACE_SECONDS, each table at its own phase."""

    def __init__(self, rng: random.Random) -> None:
        self.next_at = time.perf_counter() + rng.uniform(0, PACE_SECONDS)

    async def wait(self) -> None:
        now = time.perf_counter()
        if self.next_at > now:
            await asyncio.sleep(self.next_at - now)
        self.next_at = max(self.next_at + PACE_SECONDS, time.perf_counter())


# Where a table's four clients connect: "split" two and two over the processes, "table" all at
# the process the table's number picks.
ROUTE = "split"


def servers_of(servers: list[Daphne], table: int) -> list[Daphne]:
    """The server each of the table's clients connects to."""
    if ROUTE == "table":
        return [servers[table % len(servers)]] * PHONES_PER_TABLE
    return [servers[seat % len(servers)] for seat in range(PHONES_PER_TABLE)]


# -- the app ------------------------------------------------------------------------------------


class AppTable:
    def __init__(self, info: dict[str, Any], servers: list[Daphne], recorder: Recorder) -> None:
        self.signal = Signal()
        self.recorder = recorder
        self.rng = random.Random(info["id"])
        self.phones = [
            Phone(
                p["name"],
                p["seat"],
                p["session"],
                info["code"],
                server.port,
                self.signal,
                keep=8,
                unix=server.unix,
            )
            for p, server in zip(info["phones"], servers_of(servers, info["id"]), strict=True)
        ]
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        for phone in self.phones:
            await phone.open(timeout=30)
        self.task = asyncio.create_task(self.run())

    def _agreed(self) -> bool:
        phones = self.phones
        return all(p.connected and p.views for p in phones) and (
            len({p.latest.version for p in phones}) == 1
        )

    async def run(self) -> None:
        pace = Paced(self.rng)
        while True:
            try:
                await self.signal.until(self._agreed, WAIT_SECONDS, "agreement")
            except AssertionError:
                self.recorder.errors += 1
                continue
            view = self.phones[0].latest
            due = view.due_seats()
            if view.result is not None or view.status != "playing" or not due:
                # Between hands: the table deals by itself.
                with contextlib.suppress(AssertionError):
                    await self.signal.until(
                        lambda v=view.version: self.phones[0].latest.version > v,
                        WAIT_SECONDS,
                        "the deal",
                    )
                continue
            phone = next(p for p in self.phones if p.seat == due[0])
            offers = phone.latest.offers(phone.seat)
            if not offers:
                self.recorder.errors += 1
                await asyncio.sleep(PACE_SECONDS)
                continue
            frame = choose(self.rng, offers)
            frame["id"] = new_id()
            await pace.wait()
            others = [p for p in self.phones if p is not phone]
            version = view.version
            sent = time.perf_counter()
            await phone.act(frame, version)
            try:
                await self.signal.until(
                    lambda others=others, version=version: all(
                        p.latest.version > version for p in others
                    ),
                    WAIT_SECONDS,
                    "the update",
                )
            except AssertionError:
                self.recorder.lost += 1
                continue
            arrived = max(_first_after(p, version) for p in others)
            self.recorder.add((arrived - sent) * 1000)

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        for phone in self.phones:
            await phone.close()

    @property
    def error_frames(self) -> int:
        return sum(len(p.errors) for p in self.phones)


def _first_after(phone: Phone, version: int) -> float:
    """When the phone first heard a version above `version`."""
    first = phone.latest.received
    for view in reversed(phone.views):
        if view.version <= version:
            break
        first = view.received
    return first


# -- the bare fan-out ---------------------------------------------------------------------------


class FanoutTable:
    """Four clients of bench/fanout_asgi.py: seats take turns sending an action-sized frame."""

    def __init__(self, number: int, servers: list[Daphne], recorder: Recorder) -> None:
        self.number = number
        # The in-memory channel layer carries a group within one process: all four clients
        # of a table at the process its number picks, whatever `--route` says for the app.
        self.server = servers[number % len(servers)]
        self.recorder = recorder
        self.rng = random.Random(number)
        self.signal = Signal()
        # Per seat: when each of the table's actions (by seq) reached that seat's client.
        self.heard: list[dict[int, float]] = [{} for _ in range(PHONES_PER_TABLE)]
        self.sockets: list[ClientConnection] = []
        self.tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        url = f"ws://127.0.0.1:{self.server.port}/ws/fanout/t{self.number}/"
        options: dict[str, Any] = {"compression": phones.COMPRESSION, "open_timeout": 30}
        for seat in range(PHONES_PER_TABLE):
            ws = await phones.dial(url, self.server.unix, **options)
            self.sockets.append(ws)
            self.tasks.append(asyncio.create_task(self._read(seat, ws)))
        self.tasks.append(asyncio.create_task(self.run()))

    async def _read(self, seat: int, ws: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for message in ws:
                seq = json.loads(message)["seq"]
                heard = self.heard[seat]
                heard[seq] = time.perf_counter()
                heard.pop(seq - 8, None)
                self.signal.fire()

    async def run(self) -> None:
        pace = Paced(self.rng)
        seq = 0
        while True:
            seq += 1
            seat = seq % PHONES_PER_TABLE
            frame = {"act": "play", "seat": seat, "card": "10H", "id": new_id(), "seq": seq}
            await pace.wait()
            others = [s for s in range(PHONES_PER_TABLE) if s != seat]
            sent = time.perf_counter()
            try:
                await self.sockets[seat].send(json.dumps(frame))
                await self.signal.until(
                    lambda seq=seq, others=others: all(seq in self.heard[s] for s in others),
                    WAIT_SECONDS,
                    "fan-out",
                )
            except (AssertionError, ConnectionClosed):
                self.recorder.lost += 1
                continue
            self.recorder.add((max(self.heard[s][seq] for s in others) - sent) * 1000)

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for ws in self.sockets:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 2)

    error_frames = 0


# -- the ramp -----------------------------------------------------------------------------------


def percentile(sorted_ms: list[float], p: float) -> float:
    if not sorted_ms:
        return float("nan")
    index = min(len(sorted_ms) - 1, max(0, round(p / 100 * len(sorted_ms) + 0.5) - 1))
    return sorted_ms[index]


@dataclass
class Ramp:
    name: str
    servers: list[Daphne]
    make: Callable[[int], Awaitable[Any]]
    seconds: float
    warmup: float
    recorder: Recorder = field(default_factory=Recorder)
    tables: list[Any] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    peak_rss_kib: int = 0
    parts_files: list[Path] = field(default_factory=list)  # --parts: bench/parts_asgi.py's

    async def resize(self, count: int) -> None:
        while len(self.tables) > count:
            await self.tables.pop().stop()
        while len(self.tables) < count:
            size = min(8, count - len(self.tables))
            batch = [await self.make(len(self.tables) + i) for i in range(size)]
            try:
                await asyncio.gather(*(table.start() for table in batch))
            except BaseException:
                for table in batch:
                    await table.stop()
                raise
            self.tables += batch

    async def measure(self, count: int) -> dict[str, Any]:
        # The phones this step connects, timed with the servers' CPU: what a handshake costs
        # (the session, the seat, the first view), as a restart's phones coming back pay it.
        # The tables connected before them play meanwhile: their actions' CPU, at this step's
        # CPU an action, is taken off.
        joining = PHONES_PER_TABLE * max(0, count - len(self.tables))
        connect_cpu = sum(s.cpu_seconds() for s in self.servers)
        connect_actions = self.recorder.taken
        connect_started = time.perf_counter()
        await self.resize(count)
        connect_s = time.perf_counter() - connect_started
        connect_cpu = sum(s.cpu_seconds() for s in self.servers) - connect_cpu
        connect_actions = self.recorder.taken - connect_actions
        # The clients' objects set aside from the collector, as the servers set theirs
        # (toepen_site/asgi.py): a full pass over thousands of sockets held this loop 0.3 s at
        # 1,024 tables, and every action in flight counted it as the server's. What an earlier
        # step set aside is collected first (the tables a bisection step stopped).
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        errors_before = sum(t.error_frames for t in self.tables)
        self.recorder.reset()
        await asyncio.sleep(self.warmup)
        self.recorder.reset()
        # Every phone connected: a profiler started from here sees the steady table, not connects.
        log(f"  {self.name}: measuring {count} tables")
        self.recorder.measuring = True
        STALLS.reset()
        started = time.perf_counter()
        cpu_before = sum(s.cpu_seconds() for s in self.servers)
        client_before = sum(os.times()[:2])
        parts_before = read_parts(self.parts_files)
        rss_samples = []
        while time.perf_counter() - started < self.seconds:
            await asyncio.sleep(min(1.0, self.seconds))
            rss_samples.append(sum(s.rss_kib() for s in self.servers))
        self.recorder.measuring = False
        elapsed = time.perf_counter() - started
        server_cpu = sum(s.cpu_seconds() for s in self.servers) - cpu_before
        client_cpu = sum(os.times()[:2]) - client_before
        ms = sorted(self.recorder.latencies)
        rss = max(rss_samples) if rss_samples else 0
        self.peak_rss_kib = max(self.peak_rss_kib, rss)
        step = {
            "tables": count,
            "actions": len(ms),
            "actions_per_s": round(len(ms) / elapsed, 1),
            "p50_ms": round(percentile(ms, 50), 1),
            "p95_ms": round(percentile(ms, 95), 1),
            "p99_ms": round(percentile(ms, 99), 1),
            "max_ms": round(ms[-1], 1) if ms else None,
            "lost": self.recorder.lost,
            "errors": self.recorder.errors
            + sum(t.error_frames for t in self.tables)
            - errors_before,
            "rss_mib": round(rss / 1024, 1),
            # CPU share of one core, and server CPU per action measured
            "server_cpu": round(server_cpu / elapsed, 2),
            "client_cpu": round(client_cpu / elapsed, 2),
            "server_cpu_ms_per_action": round(1000 * server_cpu / len(ms), 2) if ms else None,
            "connected": joining,
            "connect_per_s": round(joining / connect_s) if joining else None,
            "connect_cpu_ms_per_phone": (
                round(1000 * (connect_cpu - connect_actions * server_cpu / len(ms)) / joining, 2)
                if joining and ms
                else None
            ),
            # Whatever else runs on the machine shows here (1-minute load average at the end).
            "loadavg": round(os.getloadavg()[0], 2),
            **STALLS.figures(),
        }
        # A table counts only at its pace: a server past its core's capacity keeps p99 low by
        # serving fewer actions (1,536 tables at 83% of theirs passed on p99 alone).
        step["at_pace"] = round(step["actions_per_s"] * PACE_SECONDS / count, 3)
        if self.parts_files and ms:
            step.update(parts_of_step(parts_before, read_parts(self.parts_files), len(ms)))
        step["ok"] = bool(
            ms
            and step["p99_ms"] < TARGET_MS
            and step["at_pace"] >= MIN_PACE
            and not step["lost"]
            and not step["errors"]
        )
        self.steps.append(step)
        log(f"  {self.name}: {json.dumps(step)}")
        return step

    async def passes(self, count: int, retries: int) -> bool:
        """Whether `count` tables pass; a miss is measured again (`retries` times) before it
        counts, so one stall of the machine (a neighbour on the host, a page-cache flush) does
        not end the ramp: at a few tables, p99 is the slowest of a few dozen actions."""
        for attempt in range(retries + 1):
            step = await self.measure(count)
            if step["ok"]:
                return True
            if attempt < retries:
                log(f"  {self.name}: {count} tables missed; measuring again")
        return False

    async def run(self, steps: list[int], refine: int, retries: int = 1) -> dict[str, Any]:
        best, miss = 0, None
        try:
            for count in steps:
                if await self.passes(count, retries):
                    best = count
                else:
                    miss = count
                    break
            for _ in range(refine):
                if miss is None or miss - best <= max(1, best // 8):
                    break
                middle = (best + miss) // 2
                if await self.passes(middle, retries):
                    best = middle
                else:
                    miss = middle
        finally:
            await self.resize(0)
        return {
            "max_tables": best,
            "first_miss": miss,
            "peak_rss_mib": round(self.peak_rss_kib / 1024, 1),
            "steps": self.steps,
        }


def read_parts(paths: list[Path]) -> list[dict[str, Any]]:
    """bench/parts_asgi.py's running totals, one per server process."""
    return [json.loads(path.read_text()) for path in paths]


def parts_of_step(
    before: list[dict[str, Any]], after: list[dict[str, Any]], actions: int
) -> dict[str, dict[str, float]]:
    """The CPU of each part over a step, in µs an action, summed over the server processes,
    with the rest of the event loop's thread and of the other threads (a part named with a
    leading space is held in the one above it; "worker: " parts run in the other threads), and
    how often each part ran."""
    spent: dict[str, float] = {}
    calls: dict[str, int] = {}
    for old, new in zip(before, after, strict=True):
        parts = {}
        for name, (seconds, count) in new["parts"].items():
            then_seconds, then_count = old["parts"][name]
            parts[name] = seconds - then_seconds
            calls[name] = calls.get(name, 0) + count - then_count
        loop = new["loop_thread_s"] - old["loop_thread_s"]
        others = new["process_s"] - old["process_s"] - loop
        top = [name for name in parts if not name.startswith(" ")]
        # A top-level part that ran inside another (the frames a publish sends at once) is in
        # both: counted once (bench/parts_asgi.py's NESTED; absent from older servers' files).
        parts["the loop's thread, the rest"] = (
            loop
            - sum(parts[n] for n in top if not n.startswith("worker: "))
            + parts.get("  held in another part: the loop", 0.0)
        )
        parts["other threads, the rest"] = (
            others
            - sum(parts[n] for n in top if n.startswith("worker: "))
            + parts.get("  held in another part: workers", 0.0)
        )
        for name, seconds in parts.items():
            spent[name] = spent.get(name, 0.0) + seconds
    return {
        "parts_us_per_action": {
            name: round(1e6 * seconds / actions, 1) for name, seconds in spent.items()
        },
        "parts_calls_per_1000_actions": {
            name: round(1000 * count / actions, 1) for name, count in calls.items()
        },
    }


# -- set-ups ------------------------------------------------------------------------------------


@dataclass
class Setup:
    name: str
    env: dict[str, str]
    processes: int
    cleanup: list[Callable[[], None]] = field(default_factory=list)


def database_age(conn_max_age: int | None) -> dict[str, str]:
    """DATABASE_CONN_MAX_AGE when --conn-max-age sets it, else the settings' default (0 with
    PostgreSQL's connection pool, which refuses any other)."""
    return {} if conn_max_age is None else {"DATABASE_CONN_MAX_AGE": str(conn_max_age)}


def embedded_setup(workdir: Path, conn_max_age: int | None) -> Setup:
    env = base_env(
        DATABASE_URL=f"sqlite:///{workdir / 'bench.sqlite3'}",
        **database_age(conn_max_age),
        **BENCH_TIMERS,
        **ONE_ADDRESS,
        **PRODUCTION,
        **ALLOCATOR,
    )
    migrate(env)
    return Setup("embedded", env, processes=1)


def scaleout_setup(conn_max_age: int | None, processes: int) -> Setup:
    database = PostgresDatabase().create()
    setup = Setup("scaleout", {}, processes=processes, cleanup=[database.drop])
    redis_db = RedisDatabase().claim()
    setup.cleanup.append(redis_db.release)
    setup.env = base_env(
        DATABASE_URL=database.url,
        REDIS_URL=redis_db.url,
        **database_age(conn_max_age),
        **BENCH_TIMERS,
        **ONE_ADDRESS,
        **PRODUCTION,
        **ALLOCATOR,
    )
    migrate(setup.env)
    return setup


def start_servers(
    setup: Setup,
    app: str,
    workdir: Path,
    label: str,
    server: str = "daphne",
    compress: bool = False,
    parts: bool = False,
    unix: bool = False,
) -> list[Daphne]:
    """`parts`: serve the app through bench/parts_asgi.py instead of `app`, each process
    writing its totals to the file its `BENCH_PARTS_FILE` names."""
    if parts:
        app = "bench.parts_asgi:application"
    servers = []
    try:
        for i in range(setup.processes):
            log_path = workdir / f"{setup.name}-{label}-{i}.log"
            env = setup.env
            if parts:
                env = {**env, "BENCH_PARTS_FILE": str(workdir / f"{setup.name}-{label}-{i}.parts")}
            process = Daphne(
                env,
                log_path,
                app=app,
                server=server,
                compress=compress,
                unix=unix_path() if unix else None,
            )
            servers.append(process.start())
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return servers


async def bench_fanout(setup: Setup, workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    servers = start_servers(
        setup,
        "bench.fanout_asgi:application",
        workdir,
        "fanout",
        args.server,
        args.compression,
        unix=args.listen == "unix",
    )
    try:
        recorder = Recorder()

        async def make(number: int) -> FanoutTable:
            return FanoutTable(number, servers, recorder)

        ramp = Ramp("fanout", servers, make, args.seconds, args.warmup, recorder)
        return await ramp.run(args.steps, args.refine, args.retries)
    finally:
        for server in servers:
            server.stop()


async def bench_app(setup: Setup, workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    servers = start_servers(
        setup,
        "toepen_site.asgi:application",
        workdir,
        "app",
        args.server,
        args.compression,
        parts=args.parts,
        unix=args.listen == "unix",
    )
    seeded: list[dict[str, Any]] = []
    try:
        recorder = Recorder()

        async def make(number: int) -> AppTable:
            while len(seeded) <= number:
                # Seeded in chunks by a separate process writing where the servers read.
                more = max(8, len(seeded) // 2)
                seeded.extend(await asyncio.to_thread(seed, setup.env, more, 30))
            return AppTable(seeded[number], servers, recorder)

        ramp = Ramp("app", servers, make, args.seconds, args.warmup, recorder)
        if args.parts:
            ramp.parts_files = [Path(s.env["BENCH_PARTS_FILE"]) for s in servers]
        return await ramp.run(args.steps, args.refine, args.retries)
    finally:
        for server in servers:
            server.stop()


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    watcher = asyncio.create_task(STALLS.watch())
    report: dict[str, Any] = {
        "bench": "live",
        "machine": machine(),
        "target_p99_ms": TARGET_MS,
        "min_pace": MIN_PACE,
        "pace_actions_per_table_s": 1 / PACE_SECONDS,
        "seconds_per_step": args.seconds,
        "client_loop": args.client_loop,
        "conn_max_age": args.conn_max_age,
        # The fan-out without Channels' trip to the database thread per message, or without
        # Channels at all (side figures; bench/fanout_asgi.py).
        "fanout_lean_dispatch": os.environ.get("FANOUT_LEAN_DISPATCH") == "1",
        "fanout_raw": os.environ.get("FANOUT_RAW") == "1",
        "configs": {},
    }
    with tempfile.TemporaryDirectory(prefix="toepen-bench-") as tmp:
        workdir = Path(tmp)
        for name in args.config:
            log(f"{name}: setting up")
            setup = (
                embedded_setup(workdir, args.conn_max_age)
                if name == "embedded"
                else scaleout_setup(args.conn_max_age, args.processes)
            )
            try:
                fanout = await bench_fanout(setup, workdir, args) if args.only != "app" else None
                app = await bench_app(setup, workdir, args) if args.only != "fanout" else None
            finally:
                for cleanup in reversed(setup.cleanup):
                    with contextlib.suppress(Exception):
                        cleanup()
            ratio = None
            if app is not None and fanout is not None and fanout["max_tables"]:
                ratio = app["max_tables"] / fanout["max_tables"]
            report["configs"][name] = {
                "servers": f"{setup.processes} {args.server}",
                "database": "sqlite" if name == "embedded" else "postgresql",
                "compression": phones.COMPRESSION,
                "listen": args.listen,
                "route": ROUTE if setup.processes > 1 else None,
                "allocator": ALLOCATOR.get("PYTHONMALLOC", "pymalloc"),
                "fanout": fanout,
                "app": app,
                "app_vs_fanout": round(ratio, 3) if ratio is not None else None,
                "targets": targets(app),
            }
            tables = {
                k: v["max_tables"] if v else None for k, v in [("app", app), ("fanout", fanout)]
            }
            verdict = report["configs"][name]["targets"]
            log(
                f"{name}: app {tables['app']} tables, fan-out {tables['fanout']}"
                f" (ratio {report['configs'][name]['app_vs_fanout']})"
                + (f"; targets met: {verdict['met']}" if verdict else "")
            )
    watcher.cancel()
    return report


def targets(app: dict[str, Any] | None) -> dict[str, Any] | None:
    """The app's capacity targets against its run (None: the app was not run): met when a step
    of at least TARGET_TABLES tables passed with its server CPU an action and server memory a
    phone within theirs. `measured`: that step's figures, else those of the largest count that
    passed (all None when none did)."""
    if app is None:
        return None

    def per_phone(step: dict[str, Any]) -> float:
        return round(step["rss_mib"] / (PHONES_PER_TABLE * step["tables"]), 3)

    passed = [s for s in app["steps"] if s["ok"]]
    within = [
        s
        for s in passed
        if s["tables"] >= TARGET_TABLES
        and s["server_cpu_ms_per_action"] <= TARGET_CPU_MS
        and per_phone(s) <= TARGET_MIB_PER_PHONE
    ]
    largest = [s for s in passed if s["tables"] == app["max_tables"]]
    step = within[-1] if within else largest[-1] if largest else None
    return {
        "tables": TARGET_TABLES,
        "cpu_ms_per_action": TARGET_CPU_MS,
        "mib_per_phone": TARGET_MIB_PER_PHONE,
        "measured": {
            "tables": step["tables"] if step else None,
            "cpu_ms_per_action": step["server_cpu_ms_per_action"] if step else None,
            "mib_per_phone": per_phone(step) if step else None,
        },
        "met": bool(within),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", action="append", choices=["embedded", "scaleout"], default=None)
    parser.add_argument("--seconds", type=float, default=15.0, help="measured seconds per step")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--steps", type=lambda s: [int(x) for x in s.split(",")], default=STEPS)
    parser.add_argument("--refine", type=int, default=2, help="bisection steps after a miss")
    parser.add_argument(
        "--retries",
        type=int,
        default=1,
        help="measurements again of a missed step before it counts",
    )
    parser.add_argument(
        "--conn-max-age", type=int, default=None, help="DATABASE_CONN_MAX_AGE (else the settings')"
    )
    parser.add_argument(
        "--server", choices=SERVERS, default="daphne", help="the ASGI server both apps run under"
    )
    parser.add_argument(
        "--compression",
        action="store_true",
        help="the clients offer per-message compression (permessage-deflate), as browsers do,"
        " and uvicorn accepts it (daphne never does)",
    )
    parser.add_argument(
        "--listen",
        choices=["tcp", "unix"],
        default="tcp",
        help="the servers listen on loopback ports, or on Unix sockets as behind the proxy in"
        " production (docs/performance.md); the clients connect there",
    )
    parser.add_argument(
        "--route",
        choices=["split", "table"],
        default="split",
        help="scale-out: each table's clients split over the processes, or all at one",
    )
    parser.add_argument(
        "--processes", type=int, default=2, help="scale-out: server processes (1 or more)"
    )
    parser.add_argument(
        "--allocator",
        choices=["mimalloc", "pymalloc"],
        default="mimalloc" if allocator.available() else "pymalloc",
        help="the servers' memory allocator (PYTHONMALLOC; toepen_site/allocator.py):"
        " mimalloc, as in production, where this Python has it",
    )
    parser.add_argument(
        "--client-loop",
        choices=["uvloop", "asyncio"],
        default="uvloop",
        help="the load generator's event loop: uvloop (the default) leaves the servers more of"
        " a 2-core machine",
    )
    parser.add_argument("--max-minutes", type=float, default=40.0)
    parser.add_argument(
        "--only",
        choices=["app", "fanout"],
        help="one server only (to profile it; no ratio is reported)",
    )
    parser.add_argument(
        "--parts",
        action="store_true",
        help="the app's server times its parts (bench/parts_asgi.py): CPU per action of each",
    )
    args = parser.parse_args()
    args.config = args.config or ["embedded", "scaleout"]
    if args.processes < 1:
        parser.error("--processes: at least 1")
    phones.COMPRESSION = "deflate" if args.compression else None
    global ROUTE
    ROUTE = args.route
    ALLOCATOR["PYTHONMALLOC"] = args.allocator
    loop_factory = None
    if args.client_loop == "uvloop":
        import uvloop

        loop_factory = uvloop.new_event_loop
    report = asyncio.run(
        asyncio.wait_for(main_async(args), args.max_minutes * 60), loop_factory=loop_factory
    )
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
