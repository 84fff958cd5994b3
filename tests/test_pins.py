"""The dependencies whose internals the project relies on are the versions it was built for.

games/services/prepared.py compiles querysets once with Django's SQL compiler and keeps the SQL;
games/live/layers.py sends with channels-redis's own key layout in one script. Both reach
below the public API, so their minor versions are pinned in pyproject.toml, and an upgrade
fails here first, with what to check, before it can fail at a club night. (The behaviour itself
is pinned by tests/services/test_prepared.py and tests/scaleout/test_layer_redis.py.)
"""

from __future__ import annotations

import inspect
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def pinned(name: str) -> Requirement:
    data = tomllib.loads(PYPROJECT.read_text())
    for line in data["project"]["dependencies"]:
        requirement = Requirement(line)
        if requirement.name.lower() == name.lower():
            return requirement
    raise AssertionError(f"{name} is not a dependency")


@pytest.mark.parametrize("name", ["Django", "channels-redis"])
def test_the_installed_version_is_the_minor_version_pinned(name: str) -> None:
    requirement = pinned(name)
    installed = version(name)
    assert requirement.specifier.contains(installed), (
        f"{name} {installed} is outside {requirement.specifier}: check games/services/prepared.py "
        "and games/live/layers.py against its changes, then move the pin"
    )
    bounds = {spec.operator: spec.version for spec in requirement.specifier}
    low, high = bounds[">="].split("."), bounds["<"].split(".")
    assert low[:2] == [high[0], str(int(high[1]) - 1)], f"{name} must be pinned to one minor"


def test_the_sql_compiler_still_has_what_the_prepared_queries_read() -> None:
    from django.db.models.sql.compiler import SQLCompiler

    assert callable(SQLCompiler.as_sql)
    assert list(inspect.signature(SQLCompiler.get_converters).parameters) == ["self", "expressions"]
    # What games/services/prepared.py reads off a compiler after as_sql(): set up there, not
    # declared.
    source = inspect.getsource(SQLCompiler)
    for attribute in ("self.select", "self.klass_info"):
        assert attribute in source, attribute
    from django.db.models.sql.query import Query

    assert "self.values_select" in inspect.getsource(Query)


def test_channels_redis_still_has_what_the_one_trip_send_uses() -> None:
    from channels_redis.core import RedisChannelLayer

    for name in ("non_local_name", "consistent_hash", "get_capacity", "connection", "serialize"):
        assert callable(getattr(RedisChannelLayer, name, None)), name
    source = inspect.getsource(RedisChannelLayer.send)
    # The stock send trims, counts, adds and expires one sorted set per channel: the script in
    # games/live/layers.py does the same four steps and must keep that layout.
    for command in ("zremrangebyscore", "zcount", "zadd", "expire"):
        assert command in source.lower(), command
