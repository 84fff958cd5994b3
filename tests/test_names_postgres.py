"""The name checks on PostgreSQL (tests/test_names.py and tests/accounts/test_display_names.py,
run by a pytest of its own whose settings point at a PostgreSQL database): there a NUL that got
past them would be a server error, not a saved name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import require_service, service_reachable
from tests.scaleout.servers import PG_HOST, PG_PORT, PostgresDatabase, base_env, run

pytestmark = pytest.mark.postgres


@pytest.fixture
def postgres() -> Iterator[PostgresDatabase]:
    require_service("PostgreSQL on 127.0.0.1:5432", service_reachable(PG_HOST, PG_PORT))
    database = PostgresDatabase()  # pytest-django makes and drops test_<name> itself
    try:
        yield database
    finally:
        PostgresDatabase(name=f"test_{database.name}").drop()  # if pytest-django could not


def test_the_name_checks_hold_on_postgresql(postgres: PostgresDatabase) -> None:
    # Without the connection pool, which cannot set up a test database (pytest-django).
    env = base_env(DATABASE_URL=postgres.url, DATABASE_CONN_MAX_AGE="0", DATABASE_POOL_SIZE="0")
    files = ["tests/test_names.py", "tests/accounts/test_display_names.py"]
    out = run(["-m", "pytest", "-q", "-p", "no:cacheprovider", *files], env, timeout=600)
    # Every test ran and passed (`run` raises with the output otherwise); none was skipped.
    assert " passed" in out and "skipped" not in out and "error" not in out.lower(), out
