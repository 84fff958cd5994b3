"""The database of the suite's PostgreSQL pass (`make test`): the same tests as on SQLite where
both databases must agree, run again with DATABASE_URL pointing at the local server.

    python -m tests.postgres            # prints the DATABASE_URL for the pass
    python -m tests.postgres --drop URL  # after the pass: drops its test database if left

pytest-django creates `test_<name>` from that URL and drops it at the end, unless a session
still holds it then; the database named in the URL is never made. Without a usable server it
says what is missing on stderr, then prints nothing (the pass is skipped) or, in CI, exits 1.
"""

from __future__ import annotations

import os
import sys
import uuid

from tests.scaleout.servers import PG_HOST, PG_PORT, PostgresDatabase, postgres_role

# As tests/conftest.py reads it (not imported here: it needs Django set up).
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def main() -> int:
    if sys.argv[1:2] == ["--drop"]:
        name = sys.argv[2].rsplit("/", 1)[1]
        PostgresDatabase(name=f"test_{name}").drop()  # with its sessions
        return 0
    try:
        role = postgres_role()
    except RuntimeError as missing:
        print(f"make test: {missing}", file=sys.stderr)
        if IN_CI:
            return 1
        print("make test: the PostgreSQL tests are skipped on this machine", file=sys.stderr)
        return 0
    print(f"postgres://{role}@{PG_HOST}:{PG_PORT}/toepen_{uuid.uuid4().hex[:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
