"""The write on the event loop (games/services/store/) and the faults of a held table on
PostgreSQL: tests/services/loop_write_cases.py and fault_cases.py, run by a pytest of its own
with its settings on a PostgreSQL database (this suite's own database is SQLite)."""

from __future__ import annotations

import pytest

from tests.scaleout.servers import PostgresDatabase, base_env, run

pytestmark = pytest.mark.postgres


def test_the_postgresql_cases_pass(postgres: PostgresDatabase) -> None:
    # Connections closed after each use, so the worker threads' ones do not keep pytest-django
    # from dropping its test database at the end. A short lock timeout: a held table is
    # refused sooner.
    env = base_env(
        DATABASE_URL=postgres.url, DATABASE_CONN_MAX_AGE="0", DATABASE_LOCK_TIMEOUT_MS="500"
    )
    cases = [
        "tests/services/loop_write_cases.py",
        "tests/services/fault_cases.py",
        "tests/services/every_change_cases.py",
    ]
    try:
        out = run(
            ["-m", "pytest", "-q", "-p", "no:cacheprovider", *cases],
            env,
            timeout=300,
        )
    finally:
        PostgresDatabase(name=f"test_{postgres.name}").drop()  # if pytest-django could not
    # Every case ran and passed (`run` raises with the output otherwise); none was skipped.
    assert " passed" in out and "skipped" not in out and "error" not in out.lower(), out
