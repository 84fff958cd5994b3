"""Shared test fixtures.

Tests that need PostgreSQL, Redis or a browser call `require_service`: on a developer's machine
a missing service skips them, in CI (CI=true) it fails them, so CI can never pass by skipping.
They carry the markers `postgres`, `redis`, `browser` and `server` (starts a server process),
which `make check` leaves out; a test that takes a fixture of those services without its
marker is refused at collection.
"""

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation

from tests.personas import (  # noqa: F401  (the one cast, a fixture each)
    anna,
    anna_client,
    anonymous_client,
    bram,
    bram_client,
    cas,
    club,
    dirk,
    eva,
    eva_client,
    femke,
    femke_client,
    guest_client,
    guus,
    klaver,
)

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def service_reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


# The fixtures that start a service's use (tests/scaleout/conftest.py), and the marker a test
# taking one must carry.
MARKED_FIXTURES = {
    "postgres": "postgres",
    "redis_db": "redis",
    "cluster": "server",
    "unix_cluster": "server",
    "embedded": "server",
    "faulty": "server",
}
# The scale-out modules whose server processes hold PostgreSQL connections (a few per thread
# each), in two xdist groups (`--dist loadgroup`): however many workers, at most two of them
# run at once, well within PostgreSQL's default connection limit beside other clients. A
# module not named here that is marked `postgres` joins the second group; the others (a SQLite
# file, Redis alone) run on any worker.
POSTGRES_SERVER_GROUPS = {
    "test_faults.py": "scaleout-postgres-1",
    "test_proxy.py": "scaleout-postgres-1",
    "test_connections_postgres.py": "scaleout-postgres-1",
    "test_two_servers.py": "scaleout-postgres-2",
    "test_systemd.py": "scaleout-postgres-2",
    "test_health.py": "scaleout-postgres-2",
    "test_redis_down.py": "scaleout-postgres-2",
}


def xdist_group(path: str, markers: set[str]) -> str | None:
    """The xdist group of a test in the file `path` (from the repository's root): a browser
    module's tests share its server and the browser on one worker; see POSTGRES_SERVER_GROUPS."""
    folder, _, name = path.removeprefix("tests/").partition("/")
    if folder == "browser":
        return f"browser-{name}"
    if folder == "scaleout":
        default = "scaleout-postgres-2" if "postgres" in markers else None
        return POSTGRES_SERVER_GROUPS.get(name, default)
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    root = Path(__file__).resolve().parent.parent
    unmarked = []
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        markers = {mark.name for mark in item.iter_markers()}
        unmarked += [
            f"{item.nodeid} takes {name} without @pytest.mark.{marker}"
            for name, marker in MARKED_FIXTURES.items()
            if name in fixtures and marker not in markers
        ]
        path = item.path.relative_to(root).as_posix()
        if path.startswith("tests/scaleout/"):  # the processes of a real set-up
            item.add_marker(pytest.mark.server)
        if path.startswith("tests/browser/"):  # chromium and a server of its own
            item.add_marker(pytest.mark.browser)
        group = xdist_group(path, markers)
        if group and "xdist_group" not in markers:
            item.add_marker(pytest.mark.xdist_group(group))
    if unmarked:
        raise pytest.UsageError("\n".join(unmarked))


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """The SQLite test database in the temporary directory, not in the clone (a run that is
    killed leaves it there): settings.py names it after the test process, pytest-django adds
    the xdist worker."""
    import tempfile

    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        name = Path(database["TEST"]["NAME"]).name
        database["TEST"]["NAME"] = str(Path(tempfile.gettempdir()) / f"toepen{name}")


def command_env(**extra: str) -> dict[str, str]:
    """The environment of a `manage.py` command a test runs: this process's, on an in-memory
    database (a command opens the default database, whose file would be made in the clone)."""
    return {**os.environ, "DATABASE_URL": "sqlite://:memory:", **extra}


def require_service(name: str, available: bool) -> None:
    if available:
        return
    if IN_CI:
        pytest.fail(f"{name} is required in CI but is not available")
    pytest.skip(f"{name} is not available on this machine")


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    """Personas are made by the dozen: hashing their passwords for real only slows the suite."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def fresh_throttles() -> None:
    """Sign-in limits and throttles count in the cache: each test starts with nothing counted.
    Only an in-process cache is cleared; a shared Redis belongs to more than this test."""
    from django.conf import settings
    from django.core.cache import cache

    if settings.CACHES["default"]["BACKEND"].endswith("LocMemCache"):
        cache.clear()


@pytest.fixture(autouse=True)
def english_outside_requests() -> Iterator[None]:
    """A request leaves its language active in the thread; code called directly starts in
    English."""
    with translation.override("en"):
        yield


def pytest_sessionfinish() -> None:
    """The databases `migrate` copies from (tests/scaleout/servers.py) go with the session."""
    from tests.scaleout.servers import drop_templates

    drop_templates()


@pytest.fixture(autouse=True)
def server_kept_time() -> Iterator[None]:
    """A test that made the process lose its database (games.services.state.phones_unheard),
    or start as a server, leaves no gap in the tables' clocks to the next."""
    from games.services.state import forget_resumed

    forget_resumed()
    yield
    forget_resumed()
