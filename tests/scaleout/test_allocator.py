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


def _stats(env: dict[str, str]) -> str:
    return subprocess.run(
        [sys.executable, "-c", STATS], cwd=REPO, env=env, capture_output=True, text=True, check=True
    ).stderr


@pytest.fixture
def has_mimalloc() -> None:
    if not allocator.available():
        if os.environ.get("CI"):
            pytest.fail("this Python was built without mimalloc, which production runs on")
        pytest.skip("this Python was built without mimalloc: its servers run on pymalloc")


@pytest.mark.usefixtures("has_mimalloc")
def test_a_server_environment_makes_python_allocate_with_mimalloc() -> None:
    plain = {k: v for k, v in base_env().items() if k != "PYTHONMALLOC"}
    assert allocator.server_env() == {"PYTHONMALLOC": "mimalloc"}
    served = _stats({**plain, **allocator.server_env()})
    assert MIMALLOC_SAYS in served
    assert PYMALLOC_SAYS not in served
    # Without it, CPython's own allocator (what the servers ran on before).
    assert PYMALLOC_SAYS in _stats(plain)


def test_the_allocator_module_prints_what_a_server_needs() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "toepen_site.allocator"],
        cwd=REPO,
        env=base_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    # What `make run` and `make test` put before their commands (`env $(...)`).
    expected = "".join(f"{name}={value}\n" for name, value in allocator.server_env().items())
    assert out == expected


@pytest.mark.usefixtures("has_mimalloc")
def test_a_started_server_runs_with_mimalloc_asked_for(embedded: Embedded, tmp_path: Path) -> None:
    # Asked for by the server's start, whatever the tests themselves run on (`make test` runs
    # them on mimalloc too, and the environment is passed on).
    env = {k: v for k, v in embedded.env.items() if k != "PYTHONMALLOC"}
    server = Daphne(env, tmp_path / "plain.log", server=embedded.server.server).start()
    try:
        assert server.proc is not None
        environ = Path(f"/proc/{server.proc.pid}/environ").read_bytes().split(b"\0")
        assert b"PYTHONMALLOC=mimalloc" in environ
    finally:
        server.stop()
    # A start that names another allocator keeps it (bench/live.py --allocator pymalloc).
    server = Daphne({**env, "PYTHONMALLOC": "pymalloc"}, tmp_path / "py.log").start()
    try:
        assert server.proc is not None
        environ = Path(f"/proc/{server.proc.pid}/environ").read_bytes().split(b"\0")
        assert b"PYTHONMALLOC=pymalloc" in environ
    finally:
        server.stop()


def test_the_allocator_a_process_runs_on_is_read_from_its_environment() -> None:
    def running(env: dict[str, str]) -> str:
        code = "from toepen_site import allocator; print(allocator.running())"
        return subprocess.run(
            [sys.executable, "-c", code],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    plain = {k: v for k, v in base_env().items() if k != "PYTHONMALLOC"}
    assert running(plain) == "pymalloc"
    assert running({**plain, "PYTHONMALLOC": "malloc"}) == "malloc"
