"""The servers run on mimalloc where Python has it (toepen_site/allocator.py): the tests' and the
benchmarks' servers as production's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.scaleout.conftest import Embedded
from tests.scaleout.servers import REPO, Daphne, base_env
from toepen_site import allocator

# CPython writes its allocator's statistics to the C stderr: pymalloc counts its arenas,
# mimalloc has none and names its block classes.
STATS = "import sys; sys._debugmallocstats()"
PYMALLOC_SAYS = "arenas allocated total"
MIMALLOC_SAYS = "Medium block threshold"


def _python(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """This Python run in the repository with `env` (and `args`), its output read."""
    return subprocess.run(
        [sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, check=True
    )


def _stats(env: dict[str, str]) -> str:
    return _python(env, "-c", STATS).stderr


def _plain(env: dict[str, str]) -> dict[str, str]:
    """`env` without an allocator named: whatever the tests themselves run on."""
    return {k: v for k, v in env.items() if k != "PYTHONMALLOC"}


def _started_environ(env: dict[str, str], log: Path, server: str) -> list[bytes]:
    """The environment a server process `Daphne` started with `env` runs in."""
    process = Daphne(env, log, server=server).start()
    try:
        assert process.proc is not None
        return Path(f"/proc/{process.proc.pid}/environ").read_bytes().split(b"\0")
    finally:
        process.stop()


@pytest.fixture
def has_mimalloc() -> None:
    if not allocator.available():
        if os.environ.get("CI"):
            pytest.fail("this Python was built without mimalloc, which production runs on")
        pytest.skip("this Python was built without mimalloc: its servers run on pymalloc")


@pytest.mark.usefixtures("has_mimalloc")
def test_a_server_environment_makes_python_allocate_with_mimalloc() -> None:
    plain = _plain(base_env())
    assert allocator.server_env() == {"PYTHONMALLOC": "mimalloc"}
    served = _stats({**plain, **allocator.server_env()})
    assert MIMALLOC_SAYS in served
    assert PYMALLOC_SAYS not in served
    # Without it, CPython's own allocator (what the servers ran on before).
    assert PYMALLOC_SAYS in _stats(plain)


def test_the_allocator_module_prints_what_a_server_needs() -> None:
    out = _python(base_env(), "-m", "toepen_site.allocator").stdout
    # What `make run` and `make test` put before their commands (`env $(...)`).
    expected = "".join(f"{name}={value}\n" for name, value in allocator.server_env().items())
    assert out == expected


@pytest.mark.usefixtures("has_mimalloc")
@pytest.mark.server
def test_a_started_server_runs_with_mimalloc_asked_for(embedded: Embedded, tmp_path: Path) -> None:
    # Asked for by the server's start, whatever the tests themselves run on (`make test` runs
    # them on mimalloc too, and the environment is passed on).
    env, server = _plain(embedded.env), embedded.server.server
    assert b"PYTHONMALLOC=mimalloc" in _started_environ(env, tmp_path / "plain.log", server)
    # A start that names another allocator keeps it (bench/live.py --allocator pymalloc).
    named = {**env, "PYTHONMALLOC": "pymalloc"}
    assert b"PYTHONMALLOC=pymalloc" in _started_environ(named, tmp_path / "named.log", server)


def test_the_allocator_a_process_runs_on_is_read_from_its_environment() -> None:
    def running(env: dict[str, str]) -> str:
        code = "from toepen_site import allocator; print(allocator.running())"
        return _python(env, "-c", code).stdout.strip()

    plain = _plain(base_env())
    assert running(plain) == "pymalloc"
    assert running({**plain, "PYTHONMALLOC": "malloc"}) == "malloc"
