"""The database of the suite's PostgreSQL pass (`make test`): the same tests as on SQLite where
both databases must agree, run again with DATABASE_URL pointing at the local server.

    python -m tests.postgres     # prints the DATABASE_URL for the pass

pytest-django creates `test_<name>` from that URL and drops it at the end; the database named
in it is never made. Without a usable server it says what is missing on stderr, then prints
nothing (the pass is skipped) or, in CI, exits 1.
"""

from __future__ import annotations

import os
import sys
import uuid

from tests.scaleout.servers import PG_HOST, PG_PORT, postgres_role

# As tests/conftest.py reads it (not imported here: it needs Django set up).
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def main() -> int:
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
