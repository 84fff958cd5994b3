"""The project's primary key: Django's `BigAutoField`, whose foreign keys learn their column
type without making a model field each time they ask. Every app's models take it
(`DEFAULT_AUTO_FIELD`); it lives with the games app, whose live tables are what need it."""

from __future__ import annotations

from typing import Any

from django.db import models

# The one field a foreign key's column type is read from (`Key.rel_db_type`), made at import.
_REFERENCE = models.BigIntegerField()


class Key(models.BigAutoField):
    """`BigAutoField` answers a foreign key's `db_type` with `BigIntegerField().db_type()`, a
    new model field at every ask, and on PostgreSQL Django asks at every join on a foreign key
    (`prepare_join_on_clause`) and every bulk insert. Each new field changes the class `Field`
    (`Field.creation_counter += 1`), and after a thousand changes CPython stops caching
    attribute lookups on `Field` and on every subclass for the rest of the process: a live
    server spent them within minutes. This
    asks one field made at import instead.

    The column is Django's own, and so is the deconstructed path: migrations see a
    `BigAutoField` and nothing to change."""

    def rel_db_type(self, connection: Any) -> Any:
        return _REFERENCE.db_type(connection=connection)

    def deconstruct(self) -> Any:
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.BigAutoField", args, kwargs


class RowKey(Key):
    """`Key` for a table that takes a row at every action (the action receipts): on SQLite
    without `AUTOINCREMENT`, which keeps the largest key ever given in `sqlite_sequence` and so
    writes that table's page to the log with every insert, a page more in every change's
    commit (7-10 µs of an action's CPU, with the checkpoint's copy of it). Without it SQLite
    gives the largest key in the table plus one; a key freed by deleting the newest row may
    come back, which nothing here minds (no other row refers to these). Elsewhere it is `Key`
    itself."""

    def db_type_suffix(self, connection: Any) -> Any:
        if connection.vendor == "sqlite":
            return None
        return super().db_type_suffix(connection)

    def deconstruct(self) -> Any:
        name, _path, args, kwargs = super().deconstruct()
        return name, "games.keys.RowKey", args, kwargs
