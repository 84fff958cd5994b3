"""The memory allocator a server's Python runs on: mimalloc, where the interpreter has it.

CPython 3.13 carries two allocators for its objects, its own (pymalloc) and mimalloc, and takes
the one the PYTHONMALLOC environment variable names when the interpreter starts, so it is chosen
by whatever starts the server: `make run`, the production set-up (docs/performance.md)
and the servers the tests and the benchmarks start (tests/scaleout/servers.py) all ask for
mimalloc. A loaded live server allocates and frees a view's dicts and strings per phone at
every change, among a thousand tables' snapshots: on mimalloc it spent a few per cent to a tenth
less CPU an action in runs in turns, for about 5% more memory.

    python -m toepen_site.allocator     # prints PYTHONMALLOC=mimalloc, or nothing

An interpreter built without mimalloc (`--without-mimalloc`) refuses to start with it asked
for: it then gets nothing here and runs on pymalloc, as before.
"""

from __future__ import annotations

import os
import sys
import sysconfig

MIMALLOC = "mimalloc"


def available() -> bool:
    """Whether this interpreter was built with mimalloc (CPython 3.13's default)."""
    return bool(sysconfig.get_config_var("WITH_MIMALLOC"))


def server_env() -> dict[str, str]:
    """What a server process's environment needs for mimalloc (nothing where it is missing)."""
    return {"PYTHONMALLOC": MIMALLOC} if available() else {}


def running() -> str:
    """The allocator this process was started with, as its environment asked for it
    ("pymalloc" when it asked for none; a debug variant keeps its name)."""
    if sys.flags.ignore_environment:
        return "pymalloc"
    return os.environ.get("PYTHONMALLOC") or "pymalloc"


if __name__ == "__main__":
    for name, value in server_env().items():
        print(f"{name}={value}")
