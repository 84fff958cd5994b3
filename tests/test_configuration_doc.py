"""docs/configuration.md names every environment variable the code reads, each once, and no
other: the names are read from the code itself (every `env*(...)` of the settings, every
`os.environ` look-up, the table clocks' defaults)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from games.services.conf import DEFAULTS

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("toepen_site", "games", "clubs", "nights", "accounts")
HELPERS = {"envbool", "envint", "envlist", "envrate"}
ROW_NAMES = re.compile(r"`([A-Z][A-Z0-9_]+)`")


def _is_environ(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ"


def names_read(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        key = None
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            helper = isinstance(func, ast.Name) and func.id in HELPERS
            environ_get = (
                isinstance(func, ast.Attribute)
                and func.attr in ("get", "setdefault")
                and _is_environ(func.value)
            )
            if helper or environ_get:
                key = node.args[0]
        elif isinstance(node, ast.Subscript) and _is_environ(node.value):
            key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            found.add(key.value)
    return found


def variables_in_code() -> set[str]:
    found = set(DEFAULTS)
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            if "migrations" not in path.parts:
                found |= names_read(ast.parse(path.read_text(), str(path)))
    return found


def variables_documented() -> list[str]:
    """The names in the first cell of every table row."""
    names = []
    for line in (REPO / "docs" / "configuration.md").read_text().splitlines():
        if line.startswith("| `"):
            names += ROW_NAMES.findall(line.split("|")[1])
    return names


def test_every_variable_the_code_reads_is_documented_once_and_no_other() -> None:
    in_code = variables_in_code()
    documented = variables_documented()
    assert {"DATABASE_URL", "DATABASE_POOL_SIZE", "TOEPEN_TURN_SECONDS", "CC"} <= in_code
    twice = sorted({name for name in documented if documented.count(name) > 1})
    assert not twice, f"documented more than once: {twice}"
    assert sorted(in_code - set(documented)) == [], "read by the code, not documented"
    assert sorted(set(documented) - in_code) == [], "documented, not read by the code"


def test_the_example_settings_name_only_documented_variables() -> None:
    example = (REPO / "deploy" / "systemd" / "env.example").read_text()
    named = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", example, re.M))
    assert {"DJANGO_SECRET_KEY", "DATABASE_URL", "REDIS_URL"} <= named
    assert named <= set(variables_documented())
