"""The database made what a backup holds (docs/deploy.md, "Restoring a backup"): stop the server
processes first (`systemctl stop toepen.target`), then

    manage.py restore_backup /var/backups/toepen/toepen-20260101-043000.dump

PostgreSQL: `pg_restore --clean --if-exists` in one transaction (on an error nothing changes).
SQLite: the backup copied into the database file with SQLite's backup API. A backup of the
other kind of database is refused before anything changes.
"""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections

from toepen_site.management.commands.backup import SUFFIXES, client, postgres_env


class Command(BaseCommand):
    help = "Replace the database's contents with a backup written by `manage.py backup`."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("backup", type=Path)
        parser.add_argument(
            "--noinput", "--no-input", action="store_false", dest="interactive",
            help="do not ask for a confirmation",
        )  # fmt: skip

    def handle(self, *args: Any, backup: Path, interactive: bool, **options: Any) -> None:
        connection = connections["default"]
        vendor = connection.vendor
        if vendor not in SUFFIXES:
            raise CommandError(f"no restore for a {vendor} database")
        if not backup.is_file():
            raise CommandError(f"{backup} is not a file")
        if backup.suffix != SUFFIXES[vendor]:
            raise CommandError(
                f"{backup.name} is not a backup of a {vendor} database "
                f"(those end in {SUFFIXES[vendor]})"
            )
        if interactive:
            answer = input(
                f"Every row of the database now is replaced by {backup.name}. "
                "Are the server processes stopped, and go on? Type 'yes': "
            )
            if answer != "yes":
                raise CommandError("nothing restored")
        connection.close()
        if vendor == "postgresql":
            self.restore_postgres(connection.settings_dict, backup)
        else:
            self.restore_sqlite(connection.settings_dict["NAME"], backup)
        self.stdout.write(f"restored {backup}")

    def restore_postgres(self, settings_dict: dict[str, Any], backup: Path) -> None:
        done = subprocess.run(  # noqa: S603  (a fixed program; the paths are ours)
            [
                *(client("pg_restore"), "--clean", "--if-exists", "--no-owner"),
                *("--single-transaction", "--exit-on-error"),
                *("--dbname", str(settings_dict["NAME"]), str(backup)),
            ],
            env=postgres_env(settings_dict),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise CommandError(f"pg_restore failed, nothing restored: {done.stderr.strip()}")

    def restore_sqlite(self, name: str, backup: Path) -> None:
        source = sqlite3.connect(f"{backup.resolve().as_uri()}?mode=ro", uri=True)
        try:
            if source.execute("PRAGMA integrity_check").fetchone() != ("ok",):
                raise CommandError(f"{backup} is damaged: nothing restored")
            target = sqlite3.connect(name, timeout=20)
            try:
                source.backup(target)
            finally:
                target.close()
        except sqlite3.DatabaseError as error:
            raise CommandError(f"{backup} is no SQLite database: {error}") from None
        finally:
            source.close()
