"""Imports point down (docs/architecture.md): read from the code's own import statements, so a
new import that runs up fails here, not in a review."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
APPS = ("accounts", "clubs", "games", "nights", "tournaments")
# Every part of the games app but its engine.
GAMES_ABOVE_THE_ENGINE = sorted(
    path.stem if path.suffix else path.name
    for path in (REPO / "games").iterdir()
    if path.name not in ("engine", "__init__.py")
    and (path.suffix == ".py" or (path / "__init__.py").exists())
)


def _modules(*folders: str) -> list[Path]:
    return [
        path
        for folder in folders
        for path in sorted((REPO / folder).rglob("*.py"))
        if "migrations" not in path.parts
    ]


def imported(path: Path) -> set[str]:
    """Every module `path` imports, at its top or inside a function, by its dotted name."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def reaching(paths: list[Path], *below: str) -> dict[str, list[str]]:
    """The files of `paths` that import a module in (or of) one of the packages `below`."""
    found = {}
    for path in paths:
        names = sorted(
            name
            for name in imported(path)
            if any(name == package or name.startswith(f"{package}.") for package in below)
        )
        if names:
            found[str(path.relative_to(REPO))] = names
    return found


def test_no_app_imports_the_project_package() -> None:
    """The project package (settings, URLs, the ASGI entry point) sits on top of the apps and
    wires them together: an app that imports it is tied to one project, and the two import
    each other."""
    assert reaching(_modules(*APPS), "toepen_site") == {}


def test_the_engine_imports_nothing_but_itself() -> None:
    """The rules are pure Python: no Django, no model, no service (games/engine/)."""
    engine = _modules("games/engine")
    assert engine
    project = ("django", "channels", *APPS, "toepen_site")
    found = reaching(engine, *project)
    own = {
        path: [n for n in names if not n.startswith("games.engine")]
        for path, names in found.items()
    }
    assert {path: names for path, names in own.items() if names} == {}


@pytest.mark.parametrize(
    ("folder", "above"),
    [
        # The services decide and commit; the websocket wing and the view are told after.
        ("games/services", ("games.live", "games.view", "games.views", "games.forms")),
        # The view renders the services' state: it changes nothing and sends nothing.
        (
            "games/view",
            ("games.live", "games.views", "games.services.tables", "games.services.changes"),
        ),
        # The HTTP views call the services; the consumers are the websocket's edge beside them.
        ("games/views.py", ("games.live",)),
        # Clubs keep house-rule profiles the engine reads, below the tables: of games, the
        # engine alone (which imports nothing of clubs), so the two apps are no circle.
        ("clubs", tuple(f"games.{part}" for part in GAMES_ABOVE_THE_ENGINE)),
    ],
)
def test_a_layer_imports_nothing_above_it(folder: str, above: tuple[str, ...]) -> None:
    paths = [REPO / folder] if folder.endswith(".py") else _modules(folder)
    assert reaching(paths, *above) == {}
