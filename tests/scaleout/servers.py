"""Real servers for scale-out tests and the live benchmark: databases, Redis, daphne processes.

Nothing here is mocked: a fresh PostgreSQL database (or SQLite file) migrated by `manage.py`, a
Redis database this run owns, and `daphne` processes on loopback ports. Every process is started
in its own session and is stopped (terminate, then kill) by whoever started it, and every wait is
bounded.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toepen_site import allocator

REPO = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
DAPHNE = str(Path(sys.executable).with_name("daphne"))
# The ASGI servers a process can run the same application under (`Daphne(server=...)`).
SERVERS = ("daphne", "uvicorn", "granian", "hypercorn")
# The ones the project supports (docs/performance.md): the scale-out tests run under each.
SUPPORTED = ("daphne", "uvicorn")


# uvicorn's options in production (docs/performance.md): the lifespan protocol starts the
# table clock with the server (toepen_site/asgi.py); views go uncompressed, as under daphne.
UVICORN = ["--lifespan", "on", "--ws-per-message-deflate", "false"]
# uvicorn with per-message compression (bench/live.py --compression; daphne has none).
UVICORN_COMPRESSING = ["--ws-per-message-deflate", "true"]
# uvicorn on a Unix socket, the proxy its only client (docs/performance.md): the addresses
# the proxy forwards are believed from whoever may open the socket.
UVICORN_UNIX = ["--forwarded-allow-ips", "*", "--uds"]
# daphne as docs/deploy.md runs it behind the proxy: the phone's address taken from the proxy's
# `X-Forwarded-For` (else every phone without a session is counted as the proxy,
# games/throttle.py). It believes whoever connects, so it listens on 127.0.0.1 or a socket.
DAPHNE_PROXIED = ["--proxy-headers"]


def server_command(
    server: str, app: str, port: int, compress: bool = False, unix: str | None = None
) -> list[str]:
    """The command line that serves `app` on 127.0.0.1:`port` with `server` (`compress`: with
    per-message compression, where the server has it; `unix`: on that Unix socket instead, as
    behind the proxy in production)."""
    host = "127.0.0.1"
    if server == "daphne":
        where = ["-u", unix] if unix else ["-b", host, "-p", str(port)]
        return [DAPHNE, *where, *DAPHNE_PROXIED, app]
    binary = str(Path(sys.executable).with_name(server))
    if server == "uvicorn":
        # As docs/deploy.md runs it in production (its access log aside).
        quiet = ["--no-access-log", "--log-level", "warning"]
        options = [*UVICORN, *(UVICORN_COMPRESSING if compress else [])]
        where = [*UVICORN_UNIX, unix] if unix else ["--host", host, "--port", str(port)]
        return [binary, *where, *options, *quiet, app]
    if unix:
        raise ValueError(f"{server} is not run on a Unix socket here: daphne or uvicorn")
    if server == "granian":
        return [binary, "--interface", "asgi", "--host", host, "--port", str(port), app]
    if server == "hypercorn":
        return [binary, "-b", f"{host}:{port}", app]
    raise ValueError(f"unknown ASGI server {server!r}: one of {', '.join(SERVERS)}")


PG_HOST, PG_PORT = "127.0.0.1", 5432
REDIS_HOST, REDIS_PORT = "127.0.0.1", 6379

# The clocks of a table under test: nothing happens by itself while phones think, and the end
# of a hand stays on the screen (no next deal) until the test has compared it.
CALM_TIMERS = {
    "TOEPEN_LAUNDRY_SECONDS": "0",
    "TOEPEN_BOT_SECONDS": "0",
    "TOEPEN_BETWEEN_HANDS_SECONDS": "600",
    "TOEPEN_TURN_SECONDS": "600",
    "TOEPEN_GRACE_SECONDS": "600",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def unix_open(path: str) -> bool:
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(0.5)
            sock.connect(path)
            return True
    except OSError:
        return False


def unix_path() -> str:
    """A fresh path for a server's Unix socket: short, as the system's limit on such a path is
    about a hundred bytes, and a test's own directory can be longer."""
    return os.path.join(tempfile.gettempdir(), f"toepen-{uuid.uuid4().hex[:12]}.sock")


def base_env(**extra: str) -> dict[str, str]:
    """The environment of a server or a script: this one's, minus anything that would point
    it at another database or Redis, plus `extra`."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TOEPEN_", "DATABASE_", "REDIS_", "DJANGO_", "PYTEST_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="toepen_site.settings",
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_LOG_LEVEL="WARNING",
        PYTHONPATH=str(REPO),
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def run(args: list[str], env: dict[str, str], timeout: float = 120) -> str:
    """Run a Python command in the repository; its stdout, or an error with its output."""
    done = subprocess.run(
        [PYTHON, *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{args} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


def start_rubber(env: dict[str, str], table_id: int) -> None:
    """The table's creator starts its rubber (a table `seed` left waiting)."""
    run(
        [
            "-c",
            "import django; django.setup();"
            "from games.models import Table; from games.services import tables;"
            f"table = Table.objects.get(pk={table_id});"
            "tables.start_rubber(table.pk, table.created_by)",
        ],
        env,
    )


def migrate(env: dict[str, str]) -> None:
    """The database `env`'s DATABASE_URL names as `manage.py migrate` leaves it. Migrating
    takes seconds of CPU, so a new SQLite file or an empty PostgreSQL database on the local
    server is made a copy of one that this process migrated with `manage.py migrate` once
    (SQLite's backup of the file; PostgreSQL's CREATE DATABASE from it as a template); any
    other database is migrated."""
    import dj_database_url

    target = dj_database_url.parse(env["DATABASE_URL"])
    name = str(target["NAME"])
    if target["ENGINE"].endswith("sqlite3") and name != ":memory:":
        path = Path(name) if Path(name).is_absolute() else REPO / name
        if not path.exists() or path.stat().st_size == 0:
            _copy_sqlite(_template("sqlite", env), path)
            return
    if target["ENGINE"].endswith("postgresql") and _empty_local_postgres(target):
        _copy_postgres(_template("postgresql", env), name)
        return
    run(["manage.py", "migrate", "--noinput", "-v", "0"], env, timeout=180)


# The databases this process migrated, by kind: a SQLite file's path, a PostgreSQL database's
# name. Dropped when the process ends (and at the end of a test session, tests/conftest.py).
_TEMPLATES: dict[str, str] = {}


def _template(kind: str, env: dict[str, str]) -> str:
    if kind not in _TEMPLATES:
        if not _TEMPLATES:
            atexit.register(drop_templates)
        if kind == "sqlite":
            path = Path(tempfile.gettempdir()) / f"toepen-migrated-{uuid.uuid4().hex[:12]}.db"
            url, made = f"sqlite:///{path}", str(path)
        else:
            database = PostgresDatabase(name=f"toepen_migrated_{uuid.uuid4().hex[:12]}").create()
            url, made = database.url, database.name
        _TEMPLATES[kind] = made  # dropped even if the migration fails half-way
        run(["manage.py", "migrate", "--noinput", "-v", "0"], {**env, "DATABASE_URL": url}, 180)
    return _TEMPLATES[kind]


def _copy_sqlite(template: str, path: Path) -> None:
    with (
        contextlib.closing(sqlite3.connect(template)) as source,
        contextlib.closing(sqlite3.connect(path)) as copy,
    ):
        source.backup(copy)


def _empty_local_postgres(target: dict[str, Any]) -> bool:
    """Whether `target` is a database on the local server that holds no table yet and that
    nobody else is connected to (a copy replaces it)."""
    if (target.get("HOST"), int(target.get("PORT") or 5432)) != (PG_HOST, PG_PORT):
        return False
    conn, _ = _pg_connect(str(target["NAME"]))
    with conn:
        ((tables,),) = conn.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog',"
            " 'information_schema')"
        ).fetchall()
        ((others,),) = conn.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return int(tables) == 0 and int(others) == 0


def _copy_postgres(template: str, name: str) -> None:
    conn, _ = _pg_connect()
    with conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')


def drop_templates() -> None:
    """Drop the databases `migrate` copies from (they are this process's alone)."""
    for kind, made in list(_TEMPLATES.items()):
        del _TEMPLATES[kind]
        if kind == "sqlite":
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(made + suffix)
        else:
            with contextlib.suppress(Exception):
                PostgresDatabase(name=made).drop()


def seed(
    env: dict[str, str],
    tables: int = 1,
    lives: int = 10,
    bots: int = 0,
    slates: int = 0,
    waiting: bool = False,
) -> list[dict[str, Any]]:
    """Tables of four people, each with her own session, the first rubber dealt (unless
    `waiting`), then `bots` tables of four computer players and `slates` slate tables
    (seed.py)."""
    out = run(
        [
            *("-m", "tests.scaleout.seed", "--tables", str(tables)),
            *("--lives", str(lives), "--bots", str(bots), "--slates", str(slates)),
            *(["--waiting"] if waiting else []),
        ],
        env,
        timeout=60 + tables + bots + slates,
    )
    return list(json.loads(out.strip().splitlines()[-1])["tables"])


# -- PostgreSQL ---------------------------------------------------------------------------------


# What the PostgreSQL tests need, said whenever it is missing.
PG_NEEDED = (
    f"the PostgreSQL tests need a local server on {PG_HOST}:{PG_PORT} with trust auth for a "
    "role that can create databases (postgres, or root when the tests run as root)"
)
PG_ROLES = ("postgres", "root")


def _pg_connect(dbname: str = "postgres") -> Any:
    """A connection as the first role the server lets in, and that role's name."""
    import psycopg

    last: Exception | None = None
    for user in PG_ROLES:
        try:
            return psycopg.connect(
                host=PG_HOST, port=PG_PORT, user=user, dbname=dbname, autocommit=True
            ), user
        except psycopg.OperationalError as error:
            last = error
    raise RuntimeError(f"PostgreSQL let none of {', '.join(PG_ROLES)} in: {PG_NEEDED} ({last})")


def postgres_role() -> str:
    """The role the tests create their databases as; RuntimeError saying what is missing when
    no server answers, none lets a role in, or the role may not create databases."""
    if not port_open(PG_PORT, PG_HOST):
        raise RuntimeError(f"no PostgreSQL server answers: {PG_NEEDED}")
    conn, user = _pg_connect()
    with conn:
        (allowed,) = conn.execute(
            "SELECT rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user"
        ).fetchone()
    if not allowed:
        raise RuntimeError(f"PostgreSQL's role {user} may not create databases: {PG_NEEDED}")
    return str(user)


@dataclass
class PostgresDatabase:
    """A database of our own on the local server: created, then dropped (with its sessions)."""

    name: str = field(default_factory=lambda: f"toepen_scaleout_{uuid.uuid4().hex[:12]}")
    user: str = ""

    def create(self) -> PostgresDatabase:
        conn, self.user = _pg_connect()
        with conn:
            conn.execute(f'CREATE DATABASE "{self.name}"')
        return self

    @property
    def url(self) -> str:
        return f"postgres://{self.user}@{PG_HOST}:{PG_PORT}/{self.name}"

    def connect(self) -> Any:
        conn, _ = _pg_connect(self.name)
        return conn

    def drop(self) -> None:
        conn, _ = _pg_connect()
        with conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


# -- Redis --------------------------------------------------------------------------------------

OWNER_KEY = "toepen-scaleout:owner"


@dataclass
class RedisDatabase:
    """One of Redis's numbered databases, claimed for this run: empty when we took it, flushed
    when we give it back. Another run on the same server claims another number."""

    number: int = -1
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    def claim(self) -> RedisDatabase:
        import redis

        for number in range(15, 0, -1):
            client = redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=number)
            try:
                if client.set(OWNER_KEY, self.token, nx=True, ex=6 * 3600):
                    if client.dbsize() == 1:
                        self.number = number
                        return self
                    client.delete(OWNER_KEY)  # someone's data is there: leave it alone
            finally:
                client.close()
        raise RuntimeError("no free Redis database (1-15) to claim")

    @property
    def url(self) -> str:
        return f"redis://{REDIS_HOST}:{REDIS_PORT}/{self.number}"

    def release(self) -> None:
        import redis

        client = redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=self.number)
        try:
            if client.get(OWNER_KEY) == self.token.encode():
                client.flushdb()
        finally:
            client.close()


# -- daphne -------------------------------------------------------------------------------------


@dataclass
class Daphne:
    """One server process serving `app` on a loopback port (daphne unless `server` names
    another ASGI server), on the allocator production runs on (toepen_site/allocator.py) unless
    `env` names one; `kill()` is a SIGKILL."""

    env: dict[str, str]
    log_path: Path
    app: str = "toepen_site.asgi:application"
    port: int = field(default_factory=free_port)
    server: str = "daphne"
    compress: bool = False  # per-message compression where the server has it
    unix: str | None = None  # listen on this Unix socket (unix_path()) instead of the port
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def address(self) -> str:
        """Where it listens, as nginx names an upstream server."""
        return f"unix:{self.unix}" if self.unix else f"127.0.0.1:{self.port}"

    def listening(self) -> bool:
        return unix_open(self.unix) if self.unix else port_open(self.port)

    def start(self, timeout: float = 30) -> Daphne:
        assert self.proc is None or self.proc.poll() is not None, "already running"
        self.starts += 1
        self._remove_socket()  # a killed server leaves it behind; daphne would not bind over it
        with open(self.log_path, "ab") as log:
            log.write(f"\n--- start {self.starts} on {self.address} ---\n".encode())
            log.flush()
            self.proc = subprocess.Popen(
                server_command(self.server, self.app, self.port, self.compress, self.unix),
                cwd=REPO,
                env={**allocator.server_env(), **self.env},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while not self.listening():
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.server} exited at start:\n{self.log()[-3000:]}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(
                    f"{self.server} did not listen within {timeout} s:\n{self.log()}"
                )
            time.sleep(0.05)
        return self

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as when a machine or a container dies."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def pause(self) -> None:
        """SIGSTOP: the process keeps whatever it holds (sockets, row locks) and does nothing,
        as a process stuck on a swapped-out page or a frozen VM."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGCONT)  # a paused process would not see the SIGTERM
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        self._remove_socket()

    def _remove_socket(self) -> None:
        """The Unix socket's file, if it listens on one."""
        if self.unix:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.unix)

    def rss_kib(self) -> int:
        """Resident memory now (VmRSS), of the process and its children (a server such as
        granian serves from a worker process); 0 when not running."""
        if not self.running:
            return 0
        total = 0
        for pid in self._tree():
            with contextlib.suppress(OSError, ValueError):
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        return total

    def cpu_seconds(self) -> float:
        """User plus system CPU time the process and its children have used so far."""
        if not self.running:
            return 0.0
        total = 0.0
        for pid in self._tree():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return total

    def _tree(self) -> list[int]:
        """The server's process and every process below it."""
        assert self.proc is not None
        parents: dict[int, list[int]] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError, IndexError, ValueError):
                    parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                    parents.setdefault(parent, []).append(int(entry.name))
        tree, todo = [], [self.proc.pid]
        while todo:
            pid = todo.pop()
            tree.append(pid)
            todo.extend(parents.get(pid, ()))
        return tree

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""


# -- faults -------------------------------------------------------------------------------------


class StallingRelay:
    """A TCP relay in front of Redis that a test can make stop answering (a Redis hiccup) for
    the servers that connect through it, and only for them: the data is held, not lost, until
    `resume()`. Runs its own event loop in a thread."""

    def __init__(self, host: str = REDIS_HOST, port: int = REDIS_PORT) -> None:
        self.upstream = (host, port)
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.flowing = asyncio.Event()
        self.server: asyncio.Server | None = None

    def start(self) -> StallingRelay:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._serve(), self.loop).result(timeout=10)
        return self

    async def _serve(self) -> None:
        self.flowing.set()
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", self.port)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            writer.close()
            return
        await asyncio.gather(
            self._pump(reader, up_writer), self._pump(up_reader, writer), return_exceptions=True
        )

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                await self.flowing.wait()
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()

    def stall(self) -> None:
        self.loop.call_soon_threadsafe(self.flowing.clear)

    def resume(self) -> None:
        self.loop.call_soon_threadsafe(self.flowing.set)

    def stop(self) -> None:
        async def close() -> None:
            self.flowing.set()
            if self.server is not None:
                self.server.close()

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(close(), self.loop).result(timeout=5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
