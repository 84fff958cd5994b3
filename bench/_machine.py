"""What machine a benchmark ran on, for the JSON line every benchmark ends with."""

from __future__ import annotations

import contextlib
import os
import platform
from pathlib import Path
from typing import Any


def cpu_name() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def machine() -> dict[str, Any]:
    memory = ""
    with contextlib.suppress(OSError):
        memory = Path("/proc/meminfo").read_text().splitlines()[0].split(":", 1)[1].strip()
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu_name(),
        "memory": memory,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
