"""The systemd units in deploy/systemd/ run as written: their ExecStart, ExecStartPost and
Environment lines, and the settings of env.example, are read from the files, with only the
machine's paths moved into a temporary directory (/srv/toepen to this checkout, /run/toepen,
/var/backups/toepen and /etc/toepen/env to the test's own). A server process is started on its
Unix socket, answers the health check, starts the table clock with itself, and a backup taken
by the backup unit restores the database as it was, on PostgreSQL and on the embedded SQLite.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shlex
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_service, service_reachable
from tests.scaleout.http import Browser
from tests.scaleout.servers import (
    PG_HOST,
    PG_PORT,
    PYTHON,
    REPO,
    PostgresDatabase,
    RedisDatabase,
    migrate,
    seed,
    unix_open,
)

UNITS = REPO / "deploy" / "systemd"
SITE = "toepen.example.nl"


def unit(name: str) -> dict[str, dict[str, list[str]]]:
    """A unit file's sections, each key with its values in order (systemd allows repeats)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    for raw in (UNITS / name).read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def env_file(path: Path) -> dict[str, str]:
    values = {}
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip().strip("\"'")
    return values


class Machine:
    """The units' paths, moved into `root`; `settings` overriding env.example's."""

    def __init__(self, root: Path, settings: dict[str, str]) -> None:
        self.run_dir = root / "run"
        self.backups = root / "backups"
        self.etc = root / "etc"
        for directory in (self.run_dir, self.backups, self.etc):
            directory.mkdir()
        example = env_file(UNITS / "env.example")
        (self.etc / "env").write_text(
            "".join(f"{k}={v}\n" for k, v in {**example, **settings}.items())
        )
        # A socket path must stay short (about a hundred bytes): the run directory's own.
        self.short_run = Path(f"/tmp/toepen-run-{secrets.token_hex(4)}")
        self.short_run.symlink_to(self.run_dir)

    def moved(self, value: str, instance: str = "1") -> str:
        return (
            value.replace("/srv/toepen", str(REPO))
            .replace("/run/toepen", str(self.short_run))
            .replace("/var/backups/toepen", str(self.backups))
            .replace("/etc/toepen", str(self.etc))
            .replace("%i", instance)
        )

    def service(self, name: str) -> tuple[dict[str, str], Path, dict[str, list[str]]]:
        """The unit's command lines' environment and directory, and its [Service] section."""
        section = unit(name)["Service"]
        env = {
            k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_",
                                                                      "REDIS_", "TOEPEN_"))
        }  # fmt: skip
        for assignment in section.get("Environment", []):
            key, _, value = shlex.split(assignment)[0].partition("=")
            env[key] = value
        for path in section.get("EnvironmentFile", []):
            env.update(env_file(Path(self.moved(path.lstrip("-")))))
        workdir = Path(self.moved(section["WorkingDirectory"][0]))
        return env, workdir, section

    def command(self, line: str) -> list[str]:
        return shlex.split(self.moved(line))

    def close(self) -> None:
        self.short_run.unlink(missing_ok=True)


class Process:
    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, log: Path) -> None:
        with open(log, "ab") as out:
            self.proc = subprocess.Popen(
                argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        self.log = log

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # what systemd sends on a stop
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)


def run_line(argv: list[str], env: dict[str, str], cwd: Path, timeout: float = 180) -> str:
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{argv} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(
    params=["sqlite", pytest.param("postgresql", marks=[pytest.mark.postgres, pytest.mark.redis])]
)
def database(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[dict[str, str], Callable[[str], list[tuple[Any, ...]]]]]:
    """The settings of one kind of database, and a query on it."""
    if request.param == "sqlite":
        path = tmp_path / "db.sqlite3"

        def query(sql: str) -> list[tuple[Any, ...]]:
            with contextlib.closing(sqlite3.connect(path, timeout=10)) as conn:
                return conn.execute(sql).fetchall()

        # The embedded default: no Redis either.
        yield {"DATABASE_URL": f"sqlite:///{path}", "REDIS_URL": ""}, query
        return
    require_service("PostgreSQL on 127.0.0.1:5432", service_reachable(PG_HOST, PG_PORT))
    redis_db = request.getfixturevalue("redis_db")
    assert isinstance(redis_db, RedisDatabase)
    db = PostgresDatabase().create()
    connections: list[Any] = []  # opened on the first query, once the test has migrated

    def query(sql: str) -> list[tuple[Any, ...]]:
        if not connections:
            connections.append(db.connect())
        return list(connections[0].execute(sql).fetchall())

    try:
        yield {"DATABASE_URL": db.url, "REDIS_URL": redis_db.url}, query
    finally:
        for conn in connections:
            conn.close()
        db.drop()


def test_the_units_serve_start_the_clock_and_back_up_as_written(
    database: tuple[dict[str, str], Callable[[str], list[tuple[Any, ...]]]], tmp_path: Path
) -> None:
    settings, query = database
    machine = Machine(
        tmp_path,
        {
            **settings,
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "DJANGO_ALLOWED_HOSTS": SITE,
            "DJANGO_STATIC_ROOT": str(tmp_path / "static"),
            "DJANGO_LOG_LEVEL": "WARNING",
            "TOEPEN_BOT_SECONDS": "0",  # computer players move at once: the clock is seen
        },
    )
    env, workdir, server_unit = machine.service("toepen@.service")
    assert workdir == REPO
    migrate(env)
    # The test's own helper (not a unit) needs the settings named; manage.py and the server
    # name them themselves.
    helper_env = {**env, "DJANGO_SETTINGS_MODULE": "toepen_site.settings"}
    (bots,) = seed(helper_env, tables=0, bots=1)

    def version() -> int:
        ((found,),) = query(f"SELECT version FROM games_table WHERE id = {int(bots['id'])}")
        return int(found)

    dealt = version()
    (start,) = server_unit["ExecStart"]
    argv = machine.command(start)
    assert "--uds" in argv and "--lifespan" in argv
    socket_path = argv[argv.index("--uds") + 1]
    (ready,) = server_unit["ExecStartPost"]

    def start_server() -> Process:
        process = Process(argv, env, workdir, tmp_path / "server.log")
        # systemd counts the start as done once ExecStartPost exits 0: the health check.
        run_line(machine.command(ready), env, workdir, timeout=90)
        return process

    server = start_server()
    try:
        proxy = Browser(unix=socket_path, host=SITE)
        assert proxy.get("/healthz").status == 200
        # The table clock started with the process: the computer players moved with no phone.
        deadline = time.monotonic() + 15
        while version() == dealt:
            assert time.monotonic() < deadline, server.log.read_text()
            time.sleep(0.1)

        # The backup unit, while the server runs.
        backup_env, backup_dir, backup_unit = machine.service("toepen-backup.service")
        (backup_line,) = backup_unit["ExecStart"]
        written = Path(run_line(machine.command(backup_line), backup_env, backup_dir).strip())
        assert written.parent == machine.backups and written.is_file()
        clubs_then = query("SELECT name FROM clubs_club ORDER BY name")

        seed(helper_env, tables=1)  # a change after the backup: gone once it is restored
        assert len(query("SELECT name FROM clubs_club")) == len(clubs_then) + 1
    finally:
        server.stop()
    assert not unix_open(socket_path)

    # Restoring, as docs/deploy.md says: the processes stopped, then restore_backup.
    run_line(
        [PYTHON, "manage.py", "restore_backup", "--noinput", str(written)],
        backup_env,
        backup_dir,
    )
    assert query("SELECT name FROM clubs_club ORDER BY name") == clubs_then
    server = start_server()
    try:
        assert Browser(unix=socket_path, host=SITE).get("/healthz").status == 200
    finally:
        server.stop()
        machine.close()


def test_the_timer_starts_the_backup_and_the_target_gathers_the_processes() -> None:
    timer = unit("toepen-backup.timer")
    assert timer["Timer"]["OnCalendar"] and timer["Install"]["WantedBy"] == ["timers.target"]
    # A timer starts the service of its own name.
    assert "Unit" not in timer["Timer"] and (UNITS / "toepen-backup.service").is_file()
    server = unit("toepen@.service")
    assert server["Install"]["WantedBy"] == ["toepen.target"]
    assert server["Unit"]["PartOf"] == ["toepen.target"]
    assert unit("toepen.target")["Install"]["WantedBy"] == ["multi-user.target"]
    # nginx's upstreams name the sockets the template listens on.
    site = (REPO / "deploy" / "nginx" / "site.conf.example").read_text()
    assert re.search(r"server unix:/run/toepen/uvicorn-1\.sock;", site)
    assert "/run/toepen/uvicorn-%i.sock" in server["Service"]["ExecStart"][0]


def test_a_backup_of_the_other_kind_of_database_is_refused_and_changes_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "db.sqlite3"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))} | {
        "DATABASE_URL": f"sqlite:///{path}"
    }
    migrate(env)
    dump = tmp_path / "toepen-20260101-000000.dump"
    dump.write_bytes(b"PGDMP not really")
    before = path.read_bytes()
    done = subprocess.run(
        [PYTHON, "manage.py", "restore_backup", "--noinput", str(dump)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode != 0 and "not a backup of a sqlite database" in done.stderr
    assert path.read_bytes() == before


def test_systemd_reads_the_units_without_a_complaint(tmp_path: Path) -> None:
    """`systemd-analyze verify` on the units as written, the code's path moved to this
    checkout (it checks that each program named exists)."""
    analyze = "/usr/bin/systemd-analyze"
    require_service(f"systemd-analyze at {analyze}", os.access(analyze, os.X_OK))
    names = ["toepen@.service", "toepen.target", "toepen-backup.service", "toepen-backup.timer"]
    for name in names:
        target = tmp_path / name.replace("@.", "@1.")
        target.write_text((UNITS / name).read_text().replace("/srv/toepen", str(REPO)))
    done = subprocess.run(
        [analyze, "verify", "--man=no", *sorted(str(p) for p in tmp_path.iterdir())],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "SYSTEMD_LOG_LEVEL": "notice"},
    )  # fmt: skip
    assert (done.returncode, done.stderr.strip()) == (0, ""), done.stderr
