"""What a change writes of a table, and what the slate's changes borrow from the table's."""

from __future__ import annotations

import ast
from pathlib import Path

from games.models import Table
from games.services import slate
from games.services.state import CHANGED_FIELDS, OPENING_FIELDS


def test_every_field_of_a_table_is_written_by_its_changes_or_set_when_it_opens() -> None:
    """A field added to `Table` must be named in one of the two: a field a change sets that the
    claim does not write would be lost at the next read, and one written by every claim that
    something else sets would be put back to a copy's old value."""
    fields = sorted(field.attname for field in Table._meta.concrete_fields)
    assert sorted(CHANGED_FIELDS + OPENING_FIELDS) == fields
    assert not set(CHANGED_FIELDS) & set(OPENING_FIELDS)


def test_the_slate_borrows_only_public_names_of_the_tables_changes() -> None:
    """The slate's changes are made of the table's (a seat changed, a deal, a hand's end):
    only of what those modules offer, never of what they keep to themselves."""
    tree = ast.parse(Path(slate.__file__).read_text())
    borrowed = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith(("games.services.changes", "games.services.tables"))
        for alias in node.names
    ]
    assert borrowed and not [name for name in borrowed if name.startswith("_")]
