"""Production settings pass Django's deployment checks, and refuse to start half-configured."""

from __future__ import annotations

import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import command_env

pytestmark = pytest.mark.slow  # manage.py in processes of its own

REPO = Path(__file__).resolve().parents[1]


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in command_env().items() if not k.startswith(("DJANGO_", "EMAIL_"))}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_check_deploy_is_clean_with_production_settings() -> None:
    done = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="toepen.example.nl",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_production_refuses_to_start_without_a_secret_key_or_hosts() -> None:
    no_key = manage("check", DJANGO_DEBUG="false", DJANGO_ALLOWED_HOSTS="toepen.example.nl")
    assert no_key.returncode != 0 and "DJANGO_SECRET_KEY" in no_key.stderr
    no_hosts = manage("check", DJANGO_DEBUG="false", DJANGO_SECRET_KEY=secrets.token_urlsafe(50))
    assert no_hosts.returncode != 0 and "DJANGO_ALLOWED_HOSTS" in no_hosts.stderr


def test_x_forwarded_headers_are_believed_only_when_a_proxy_is_said_to_be_in_front() -> None:
    # A client that sends X-Forwarded-Proto itself must not pass for https, nor X-Forwarded-For
    # for another address in the sign-in limits and throttles.
    script = (
        "from django.test import RequestFactory;"
        "from allauth.core.internal.ratelimit import get_ip;"
        "r = RequestFactory().get('/', HTTP_X_FORWARDED_PROTO='https',"
        " HTTP_X_FORWARDED_FOR='203.0.113.9', REMOTE_ADDR='10.0.0.2');"
        "print(r.is_secure(), get_ip(r))"
    )
    production = {
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "toepen.example.nl",
    }
    alone = manage("shell", "--no-imports", "-c", script, **production)
    assert alone.stdout.split() == ["False", "10.0.0.2"], alone.stdout + alone.stderr
    proxied = manage(
        "shell", "--no-imports", "-c", script, DJANGO_BEHIND_PROXY="true", **production
    )
    assert proxied.stdout.split() == ["True", "203.0.113.9"], proxied.stdout + proxied.stderr
    check = manage(
        "check", "--deploy", "--fail-level", "WARNING", DJANGO_BEHIND_PROXY="true", **production
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_snapshot_bound_that_is_no_whole_number_above_zero_stops_the_start() -> None:
    """`TOEPEN_SNAPSHOT_TABLES` (tables whose snapshots a process keeps) is refused, naming
    itself, when it is not a whole number of at least 1; a good one starts."""
    for bad in ("0", "-5", "lots"):
        done = manage("check", TOEPEN_SNAPSHOT_TABLES=bad)
        assert done.returncode != 0 and "TOEPEN_SNAPSHOT_TABLES" in done.stderr, bad
    assert manage("check", TOEPEN_SNAPSHOT_TABLES="64").returncode == 0
