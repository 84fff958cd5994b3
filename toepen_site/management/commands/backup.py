"""A backup of the site's database, taken while the servers run (docs/deploy.md, "Backups").

    manage.py backup [--keep N] DIRECTORY

PostgreSQL: `pg_dump` in its custom format (`toepen-YYYYmmdd-HHMMSS.dump`, restored with
`manage.py restore_backup` or `pg_restore`). SQLite, the embedded default: SQLite's online
backup (`toepen-YYYYmmdd-HHMMSS.sqlite3`), a consistent copy however the servers write
meanwhile. The file appears under its name only once whole; with --keep, the oldest backups
beyond the newest N in DIRECTORY are deleted. Prints the new file's path.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections

PREFIX = "toepen-"
SUFFIXES = {"postgresql": ".dump", "sqlite": ".sqlite3"}


def postgres_env(settings_dict: dict[str, Any]) -> dict[str, str]:
    """libpq's environment for the database Django connects to (so that no password is on a
    command line, where other users could read it)."""
    env = dict(os.environ)
    for variable, key in (
        ("PGHOST", "HOST"),
        ("PGPORT", "PORT"),
        ("PGUSER", "USER"),
        ("PGPASSWORD", "PASSWORD"),
        ("PGDATABASE", "NAME"),
    ):
        if settings_dict.get(key):
            env[variable] = str(settings_dict[key])
    return env


def client(name: str) -> str:
    """The path of PostgreSQL's client program `name` (Debian's postgresql-client)."""
    found = shutil.which(name)
    if found is None:
        raise CommandError(f"{name} is not installed (apt install postgresql-client)")
    return found


def backups(directory: Path, vendor: str) -> list[Path]:
    """This site's backups in `directory`, oldest first (their names sort by time)."""
    return sorted(directory.glob(f"{PREFIX}*{SUFFIXES[vendor]}"))


class Command(BaseCommand):
    help = "Write a backup of the database into a directory (pg_dump, or SQLite's backup)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path)
        parser.add_argument(
            "--keep", type=int, default=0, help="keep the newest N backups, delete older ones"
        )

    def handle(self, *args: Any, directory: Path, keep: int, **options: Any) -> None:
        if keep < 0:
            raise CommandError("--keep must be 0 (keep all) or more")
        if not directory.is_dir():
            raise CommandError(f"{directory} is not a directory")
        connection = connections["default"]
        vendor = connection.vendor
        if vendor not in SUFFIXES:
            raise CommandError(f"no backup for a {vendor} database")
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        target = directory / f"{PREFIX}{stamp}{SUFFIXES[vendor]}"
        if target.exists():
            raise CommandError(f"{target} exists already: one backup a second at most")
        partial = target.with_name(f".{target.name}.partial")
        try:
            if vendor == "postgresql":
                self.dump_postgres(connection.settings_dict, partial)
            else:
                self.copy_sqlite(connection.settings_dict["NAME"], partial)
            partial.rename(target)
        finally:
            partial.unlink(missing_ok=True)
        if keep:
            for old in backups(directory, vendor)[:-keep]:
                old.unlink()
        self.stdout.write(str(target))

    def dump_postgres(self, settings_dict: dict[str, Any], path: Path) -> None:
        done = subprocess.run(  # noqa: S603  (a fixed program; the path is ours)
            [client("pg_dump"), "--format=custom", "--no-owner", "--file", str(path)],
            env=postgres_env(settings_dict),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise CommandError(f"pg_dump failed: {done.stderr.strip()}")

    def copy_sqlite(self, name: str, path: Path) -> None:
        if not Path(name).is_file():
            raise CommandError(f"no database file at {name}")
        source = sqlite3.connect(name, timeout=20)
        try:
            target = sqlite3.connect(path)
            try:
                source.backup(target)
            finally:
                target.close()
        finally:
            source.close()
