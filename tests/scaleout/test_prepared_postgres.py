"""The prepared queries of games/services/prepared.py read on PostgreSQL what the ORM reads
there (its own JSON and time zone conversions, its row locks)."""

from __future__ import annotations

import json

import pytest

from tests.scaleout.servers import PostgresDatabase, base_env, run, seed

pytestmark = pytest.mark.postgres


def test_prepared_queries_match_the_orm_on_postgresql(postgres: PostgresDatabase) -> None:
    env = base_env(DATABASE_URL=postgres.url)
    (info,) = seed(env)
    out = run(["-m", "tests.scaleout.prepared_check", "--table", str(info["id"])], env)
    assert json.loads(out.strip().splitlines()[-1]) == {"mismatches": []}
