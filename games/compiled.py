"""The modules compiled with mypyc, for speed, from the same source.

A live table renders its view for every phone at every change, and decides every action and
every computer player's move with the rules engine: compiled with mypyc (the compiler that
ships with mypy), `games/view/context.py` and `games/view/html.py` render the same views for
about a quarter less, the engine's hands play twice as fast, and a searching computer player
(the worlds it deals and plays out: `games/bots/`) makes the same choices for a third of the
CPU. The table's state (`games/services/state.py`), whose helpers the view and the clock call
at every change, runs compiled beside them, the calls between them then native. Nothing else
changes: the source is the one the tests read and mypy checks (`make lint`); compiled, each
annotation is also checked as the code runs, so a value of the wrong type fails loudly instead
of rendering. The engine's readers of untrusted input (a record: `record.py`; a house-rule
profile: `rules.py`) stay interpreted: there a value of any type must get the engine's own
error (`BadRecord`, `RulesError`), never a compiled check's `TypeError`, and the engine's tests
hold them to it (`tests/engine/test_records.py`, `test_cards_and_rules.py`).

    python -m toepen_site.compile           # build them beside their sources (`make compile`)
    python -m toepen_site.compile --clean   # back to the sources alone

The app names its modules and keeps an old build of them from running; the project builds them
(toepen_site/compile.py, with mypyc and setuptools, which serving does not install). A build
sits beside its source (`html.cpython-313-x86_64-linux-gnu.so` next to `html.py`) and Python
imports it first. So that an edited source never runs as its old build, `games` imports
the sources instead, with a warning that says how to build them again, when a build is older
than its source or than a module it was compiled against (`DEPENDS`;
`prefer_sources_if_stale`), and so does a module with a build that is no longer compiled
(`strays`: a checkout of code that compiled more leaves its builds).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from pathlib import Path
from typing import Any

EXTENSION_SUFFIXES = importlib.machinery.EXTENSION_SUFFIXES
ROOT = Path(__file__).resolve().parent.parent
MODULES = (
    "games/view/parts.py",
    "games/view/html.py",
    "games/view/context.py",
    "games/engine/actions.py",
    "games/engine/cards.py",
    "games/engine/hand.py",
    "games/engine/observe.py",
    "games/engine/rubber.py",
    "games/engine/table.py",
    "games/bots/rollout.py",
    "games/bots/judge.py",
    "games/bots/reads.py",
    "games/bots/world.py",
    "games/bots/model.py",
    "games/services/state.py",
)


def _name(module: str) -> str:
    """A module's dotted name, from its path."""
    return module.removesuffix(".py").replace("/", ".")


# The same modules as Python imports them.
NAMES = tuple(map(_name, MODULES))
# What the compiled modules were checked and compiled against (the types they import).
DEPENDS = (
    "games/engine",
    "games/bots",
    "games/models.py",
    "games/services/conf.py",
    "games/services/prepared.py",
    "games/services/refusals.py",
    "games/services/state.py",
)
# The library the modules share, in their package (else mypyc puts it at the project's top).
GROUP = "games._compiled"


def builds(source: Path) -> list[Path]:
    """The compiled builds of `source` (a module, or the group's library) found beside it."""
    return [
        source.with_name(source.stem + suffix)
        for suffix in EXTENSION_SUFFIXES
        if source.with_name(source.stem + suffix).exists()
    ]


def running_builds() -> list[str]:
    """The compiled modules (dotted names) that import from their builds in this process, as
    Python finds them now (a stale build is passed over: `prefer_sources_if_stale`)."""
    found = []
    for name in NAMES:
        spec = importlib.util.find_spec(name)
        if spec is not None and str(spec.origin).endswith(tuple(EXTENSION_SUFFIXES)):
            found.append(name)
    return found


def group_library() -> Path:
    package, _, name = GROUP.rpartition(".")
    return ROOT / package.replace(".", "/") / f"{name}__mypyc.py"


def _changed_at(root: Path, paths: tuple[str, ...]) -> float:
    """When the newest of `paths` (files, or packages' Python files) was changed."""
    times = [0.0]
    for path in map(root.joinpath, paths):
        files = path.glob("*.py") if path.is_dir() else [path] if path.exists() else []
        times += [file.stat().st_mtime for file in files]
    return max(times)


def stale(root: Path = ROOT) -> list[str]:
    """The modules whose build is older than their source, or than what they were compiled
    against (to build again)."""
    found = []
    depends = _changed_at(root, DEPENDS)
    for module in MODULES:
        source = root / module
        if not source.exists():
            continue
        changed = max(source.stat().st_mtime, depends)
        if any(build.stat().st_mtime < changed for build in builds(source)):
            found.append(module)
    return found


def strays(root: Path = ROOT) -> list[str]:
    """Modules with a build beside their source that MODULES no longer names (a module taken
    off the list, or a build left by a checkout that compiled more): Python would import that
    build ahead of the source, old code nothing checks. They run from their sources, and
    the build (`make compile`) removes their builds."""
    return [
        module
        for source in sorted((root / "games").rglob("*.py"))
        if (module := source.relative_to(root).as_posix()) not in MODULES and builds(source)
    ]


class Sources(importlib.abc.MetaPathFinder):
    """Imports the named modules from their sources, ahead of their builds."""

    def __init__(self, sources: dict[str, Path]) -> None:
        self.sources = sources

    def find_spec(
        self, fullname: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        source = self.sources.get(fullname)
        return importlib.util.spec_from_file_location(fullname, source) if source else None


def sources_if_stale(root: Path = ROOT) -> Sources | None:
    """A finder of the sources of every compiled module when one of them changed after the
    build, else None: the old build would run instead of the code as it reads now. All of
    them, since they share one library, whose other modules would call the old code of the
    changed one. The `strays` always run from their sources."""
    modules = [*MODULES] if stale(root) else []
    modules += strays(root)
    if not modules:
        return None
    return Sources({_name(module): root / module for module in modules})


def prefer_sources_if_stale() -> None:
    """Where `games` is imported, before any compiled module: run the sources when the build
    is older (or a stray), and say so."""
    finder = sources_if_stale()
    if finder is not None:
        sys.meta_path.insert(0, finder)
        warnings.warn(
            f"the build of {', '.join(finder.sources)} is older than its sources or what it was "
            "compiled against, or no longer compiled: running the sources; `make compile` (or "
            "`python -m toepen_site.compile`) builds it again",
            stacklevel=2,
        )
