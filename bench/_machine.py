"""What machine a benchmark ran on, for the JSON line every benchmark ends with."""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path
from typing import Any


def cpu_name() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def python_build() -> str:
    """How this interpreter was built, as far as speed goes: "pgo+lto" for the optimized builds
    (python.org's, Debian's, the official Docker images'), else what it lacks; "shared" when
    it runs from a shared library. A plain `pyenv install` builds neither optimization, as a
    shared library: in one thread (bench/actions.py) a tenth slower than an optimized build,
    in a loaded server a few per cent."""
    args = str(sysconfig.get_config_var("CONFIG_ARGS") or "")
    parts = [
        "pgo" if "--enable-optimizations" in args else "no-pgo",
        "lto" if "--with-lto" in args else "no-lto",
    ]
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        parts.append("shared")
    return "+".join(parts)


def compiled_modules() -> list[str]:
    """The modules that run compiled (games/compiled.py, `make compile`): the view's
    renders about a quarter less CPU, the engine's hands half."""
    from games import compiled  # the benchmarks run from the repository's root

    return compiled.running_builds()


def allocator() -> str:
    """The allocator this process runs on (toepen_site/allocator.py): mimalloc spent a few per
    cent to a tenth less CPU an action in a loaded server."""
    from toepen_site import allocator

    return allocator.running()


ROOT = Path(__file__).resolve().parent.parent


def release() -> str:
    """The version of the code that ran: pyproject.toml's, as the checkout has it."""
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])


def commit() -> str:
    """The checkout's commit, "+" when its files differ from it ("" outside a git checkout)."""
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return head + ("+" if dirty else "")
    return ""


def machine() -> dict[str, Any]:
    memory = ""
    with contextlib.suppress(OSError):
        memory = Path("/proc/meminfo").read_text().splitlines()[0].split(":", 1)[1].strip()
    return {
        "release": release(),
        "commit": commit(),
        "nproc": os.cpu_count(),
        "cpu": cpu_name(),
        "memory": memory,
        "python": platform.python_version(),
        "python_build": python_build(),
        "python_executable": sys.executable,
        "compiled": compiled_modules(),
        # This process's (bench/live.py's servers: its configs say theirs).
        "allocator": allocator(),
        "platform": platform.platform(),
        # Whatever else ran on the machine when this was taken (the 1-minute load average).
        "loadavg": round(os.getloadavg()[0], 2),
    }
