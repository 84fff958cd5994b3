"""Shared test fixtures.

Tests that need PostgreSQL, Redis or a browser call `require_service`: on a developer's machine
a missing service skips them, in CI (CI=true) it fails them, so CI can never pass by skipping.
"""

import os
import socket
from collections.abc import Iterator
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
