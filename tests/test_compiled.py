"""The view's and the engine's modules compiled with mypyc (games/compiled.py): in CI the
suite runs on the build, and an edited source never runs as its old build."""

from __future__ import annotations

import importlib.machinery
import os
import time
import tomllib
from pathlib import Path

import pytest

from games import compiled
from games.models import Table
from games.services import state


def test_in_ci_the_suite_runs_on_the_compiled_modules() -> None:
    """Production runs the build (docs/performance.md): CI tests what production
    runs, so a type that only the compiled module checks fails here, not at a table."""
    built = compiled.running_builds()
    if os.environ.get("CI") != "true" and not built:
        pytest.skip("the modules run from their sources here (no build; CI requires one)")
    assert built == list(compiled.NAMES)
    assert "games.engine.hand" in built and "games.view.html" in built


def test_mypy_checks_every_compiled_module() -> None:
    """`make lint` checks what mypyc compiles: the two lists (pyproject's mypy `files` and
    MODULES) cannot drift apart unseen."""
    config = tomllib.loads((compiled.ROOT / "pyproject.toml").read_text())
    checked = config["tool"]["mypy"]["files"]
    for module in compiled.MODULES:
        assert any(module == path or module.startswith(f"{path}/") for path in checked), module


def _module(root: Path, module: str) -> Path:
    source = root / module
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text("")
    return source


def test_a_source_edited_after_its_build_runs_as_it_reads(tmp_path: Path) -> None:
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    source = _module(tmp_path, "games/view/html.py")
    _module(tmp_path, "games/view/context.py")
    hand = _module(tmp_path, "games/engine/hand.py")
    source.with_name("html" + suffix).write_bytes(b"")
    hand.with_name("hand" + suffix).write_bytes(b"")
    assert compiled.sources_if_stale(tmp_path) is None  # built after the source
    later = time.time() + 5
    os.utime(source, (later, later))  # then the source is edited
    assert compiled.stale(tmp_path) == ["games/view/html.py"]
    finder = compiled.sources_if_stale(tmp_path)
    assert finder is not None
    # Every compiled module from its source: they share one library, which would call the old
    # code, the engine's as well as the view's.
    for name, path in (
        ("games.view.html", source),
        ("games.view.context", source.with_name("context.py")),
        ("games.engine.hand", hand),
    ):
        spec = finder.find_spec(name)
        assert spec is not None
        assert isinstance(spec.loader, importlib.machinery.SourceFileLoader)
        assert spec.origin == str(path)
    assert finder.find_spec("games.view.slate_html") is None  # never compiled: as it was
    assert finder.find_spec("games.engine.record") is None


def test_a_build_older_than_a_module_it_was_compiled_against_runs_the_sources(
    tmp_path: Path,
) -> None:
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in ("html", "context"):
        _module(tmp_path, f"games/view/{name}.py").with_name(name + suffix).write_bytes(b"")
    engine = _module(tmp_path, "games/engine/rules.py")
    earlier = time.time() - 5
    os.utime(engine, (earlier, earlier))
    assert compiled.stale(tmp_path) == []
    later = time.time() + 5
    os.utime(engine, (later, later))  # the engine's types changed after the build
    assert compiled.stale(tmp_path) == ["games/view/html.py", "games/view/context.py"]
    assert compiled.sources_if_stale(tmp_path) is not None


def test_a_module_without_a_build_runs_its_source(tmp_path: Path) -> None:
    _module(tmp_path, "games/view/html.py")
    _module(tmp_path, "games/view/context.py")
    assert compiled.stale(tmp_path) == []
    assert compiled.sources_if_stale(tmp_path) is None


def test_the_statuses_the_state_and_the_view_compare_with_are_the_models() -> None:
    statuses = (state.WAITING, state.PLAYING, state.RUBBER_OVER, state.CLOSED)
    assert sorted(statuses) == sorted(Table.Status.values)


def test_a_build_of_a_module_no_longer_compiled_is_passed_over(tmp_path: Path) -> None:
    """A build beside a source MODULES does not name (taken off the list, or left by a checkout
    that compiled more) would be imported ahead of the source: it runs from its source."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in ("html", "context"):
        _module(tmp_path, f"games/view/{name}.py").with_name(name + suffix).write_bytes(b"")
    snapshots = _module(tmp_path, "games/services/snapshots.py")
    _module(tmp_path, "games/services/tables.py")  # never built: no stray
    assert compiled.strays(tmp_path) == []
    snapshots.with_name("snapshots" + suffix).write_bytes(b"")
    assert compiled.stale(tmp_path) == []
    assert compiled.strays(tmp_path) == ["games/services/snapshots.py"]
    finder = compiled.sources_if_stale(tmp_path)
    assert finder is not None
    spec = finder.find_spec("games.services.snapshots")
    assert spec is not None and spec.origin == str(snapshots)
    assert finder.find_spec("games.view.html") is None  # its build is current: it runs
    assert finder.find_spec("games.services.tables") is None
