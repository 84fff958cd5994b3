"""Production settings pass Django's deployment checks, and refuse to start half-configured."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "EMAIL_"))}
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
