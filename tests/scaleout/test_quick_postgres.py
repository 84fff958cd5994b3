"""The quick path (games/quick.py) on PostgreSQL: tests/live/quick_cases.py, run by a pytest of
its own with its settings on a PostgreSQL database (this suite's own database is SQLite)."""

from __future__ import annotations

import pytest

from tests.scaleout.servers import PostgresDatabase, base_env, run

pytestmark = pytest.mark.postgres


def test_the_quick_path_cases_pass_on_postgresql(postgres: PostgresDatabase) -> None:
    # Connections closed after each use, so the worker threads' ones do not keep pytest-django
    # from dropping its test database at the end.
    env = base_env(DATABASE_URL=postgres.url, DATABASE_CONN_MAX_AGE="0")
    try:
        out = run(
            ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/live/quick_cases.py"],
            env,
            timeout=300,
        )
    finally:
        PostgresDatabase(name=f"test_{postgres.name}").drop()  # if pytest-django could not
    # Every case ran and passed (`run` raises with the output otherwise); none was skipped.
    assert " passed" in out and "skipped" not in out and "error" not in out.lower(), out
