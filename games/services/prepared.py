"""Queries the live table runs on every action, compiled by the ORM once instead of each time.

Building a query's SQL is most of what a short ORM query costs. On PostgreSQL on the machine
of docs/live.md, reading a table's seats took 0.58 ms through the ORM and 0.12 ms prepared;
looking up an action's receipt 0.51 and 0.08 ms; locking the table row (with its transaction)
1.01 and 0.64 ms. A `Prepared` query keeps the SQL, the column converters and the fields the
ORM chose the first time it is run, and then only binds new parameters: the rows are the same
model instances (or value tuples) the ORM would give, with the same conversions (JSON, dates).

The writes of every action are prepared too (`RowUpdate`, `RowInsert`, `RowCreate`): the SQL
of an `UPDATE` of a few columns by primary key, or of a one-row `INSERT`, built once.

(Sending a change's statements together in psycopg's pipeline mode was tried: fewer round
trips, but no less CPU per action in the servers; see docs/live.md.)"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, NamedTuple

from django.db import connections, models, router
from django.db.models import Field, Model, QuerySet
from django.db.models.sql.compiler import SQLCompiler

from games.encoding import ColumnEncoder, column_text


class Prepared:
    """`build(*params)` (a QuerySet whose SQL takes exactly `params`, each once), prepared.

    Call it with the parameters: a list of model instances, or of tuples for a `values_list`
    query. The SQL is compiled on the first call, for the database that query reads (a
    process serves one database)."""

    def __init__(self, build: Callable[..., QuerySet[Any]]) -> None:
        self.build = build
        self.compiled: _Compiled | None = None

    def __call__(self, *params: Any) -> list[Any]:
        compiled = self.compiled
        if compiled is None:
            queryset = self.build(*params)
            compiled = _compile(queryset, params)
            if compiled is None:
                # Parameters that cannot be told apart in the SQL (two equal values): this
                # once, the ORM runs the query; the next call compiles it.
                return list(queryset)
            self.compiled = compiled
        connection = connections[compiled.alias]
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, [params[i] for i in compiled.order])
            rows = cursor.fetchall()
        return compiled.convert(rows, connection)


class _Compiled:
    def __init__(self, compiler: SQLCompiler, sql: str, order: list[int]) -> None:
        self.alias = compiler.using
        self.sql = sql
        self.order = order
        self.model: type[Model] | None = None
        self.attnames: list[str] = []
        expressions = [column[0] for column in compiler.select]
        self.converters = list(compiler.get_converters(expressions).items())
        if compiler.klass_info is not None and not compiler.query.values_select:
            self.model = compiler.klass_info["model"]
            self.attnames = [
                compiler.select[i][0].target.attname for i in compiler.klass_info["select_fields"]
            ]
            if len(self.attnames) != len(compiler.select):
                raise ValueError("a prepared query reads one model's own columns only")

    def convert(self, rows: list[tuple[Any, ...]], connection: Any) -> list[Any]:
        if self.converters:
            converted = []
            for row in rows:
                values = list(row)
                for index, (functions, expression) in self.converters:
                    value = values[index]
                    for function in functions:
                        value = function(value, expression, connection)
                    values[index] = value
                converted.append(values)
            rows = converted  # type: ignore[assignment]
        if self.model is None:
            return [tuple(row) for row in rows]
        return [self.model.from_db(self.alias, self.attnames, row) for row in rows]


def _compile(queryset: QuerySet[Any], params: tuple[Any, ...]) -> _Compiled | None:
    """The queryset's SQL, with where each of its placeholders takes its value from; None
    when that cannot be told from these parameters (two of them equal)."""
    compiler = queryset.query.get_compiler(using=queryset.db)
    sql, compiled_params = compiler.as_sql()
    order: list[int] = []
    for value in compiled_params:
        candidates = [
            i
            for i, given in enumerate(params)
            if i not in order and type(given) is type(value) and given == value
        ]
        if not candidates:
            raise ValueError(
                f"a prepared query takes each of its parameters once, as given, and nothing "
                f"else: {value!r} in its SQL is none of {params!r}"
            )
        if len(candidates) > 1:
            return None
        order.append(candidates[0])
    if len(order) != len(params):
        raise ValueError(f"a prepared query must use all of its parameters: {params!r}")
    return _Compiled(compiler, sql, order)


def _as_is(field: Any, value: Any, connection: Any) -> Any:
    return value


def _integer(field: Any, value: int, connection: Any) -> Any:
    return connection.ops.adapt_integerfield_value(value, field.get_internal_type())


# Two of SQLite's adaptations written out (each value of a change's writes is prepared on the
# event loop): the backend's own went through Django's settings and time zone helpers for each
# date, and `json.dumps` with an encoder made for each JSON column, a tenth of the loop's write.


def _moment(field: Any, value: datetime, connection: Any) -> Any:
    if value.utcoffset() is None:  # naive: the field warns, and takes it as local time
        return field.get_db_prep_save(value, connection=connection)
    if connection.vendor == "sqlite":
        zone = connection.timezone  # None without USE_TZ, where SQLite's refuses it
        if zone is not None:
            # The backend's: the moment in the connection's time zone, naive, as text.
            return str(value.astimezone(zone).replace(tzinfo=None))
    return connection.ops.adapt_datetimefield_value(value)


def _json(field: Any, value: Any, connection: Any) -> Any:
    if connection.vendor == "sqlite" and field.encoder is ColumnEncoder:
        return column_text(value)  # what `json.dumps(value, cls=ColumnEncoder)` returns
    return connection.ops.adapt_json_value(value, field.encoder)


Prepare = Callable[[Any, Any, Any], Any]
_INTEGERS = (
    models.IntegerField,
    models.SmallIntegerField,
    models.BigIntegerField,
    models.PositiveIntegerField,
    models.PositiveSmallIntegerField,
    models.PositiveBigIntegerField,
)
# What `get_db_prep_save` makes of a value of these exact types, by the field's exact class:
# its own preparation (`get_prep_value`'s chain of calls, five or six a value) hands such a
# value back unchanged, so only the backend's adaptation is left. None stays None in all of
# them. Every other value, and every other field (a subclass may prepare differently), goes
# through the field itself. tests/services/test_prepared.py holds each to the field's result.
FAST: dict[type[Field[Any, Any]], tuple[frozenset[type], Prepare]] = {
    **dict.fromkeys(_INTEGERS, (frozenset({int}), _integer)),
    models.CharField: (frozenset({str}), _as_is),
    models.TextField: (frozenset({str}), _as_is),
    models.BooleanField: (frozenset({bool}), _as_is),
    models.DateTimeField: (frozenset({datetime}), _moment),
    models.JSONField: (frozenset({dict, list}), _json),
}


def prepare_all(
    fields: list[Field[Any, Any]],
    fast: list[tuple[frozenset[type], Prepare] | None],
    values: tuple[Any, ...],
    connection: Any,
) -> list[Any]:
    """`values` as `field.get_db_prep_save` prepares each for `connection`, the values of
    `FAST`'s types without the field's calls (`fast`: each field's entry in it)."""
    params = []
    for field, quick, value in zip(fields, fast, values, strict=True):
        if quick is not None:
            if value is None:
                params.append(None)
                continue
            if type(value) in quick[0]:
                params.append(quick[1](field, value, connection))
                continue
        params.append(field.get_db_prep_save(value, connection=connection))
    return params


class _RowWrite:
    """SQL built once for one model's `fields`, with each value prepared by its field as the
    ORM prepares it for saving (JSON, dates and times); plain placeholders only."""

    def __init__(self, model: type[Model], fields: tuple[str, ...]) -> None:
        self.model = model
        self.fields: list[Field[Any, Any]] = [model._meta.get_field(name) for name in fields]
        for field in self.fields:
            if not field.concrete or hasattr(field, "get_placeholder_sql"):
                raise ValueError(f"a prepared write takes plain columns only, not {field.name}")
        self.fast = [FAST.get(type(field)) for field in self.fields]
        self.alias = router.db_for_write(model)
        self.sql = ""

    def statement(
        self, connection: Any, values: tuple[Any, ...], key: tuple[Any, ...] = ()
    ) -> tuple[str, list[Any]]:
        """The SQL and its parameters, with the values prepared for `connection` (which need
        not be connected: games/services/store/ sends them on a connection of its own too)."""
        if len(values) != len(self.fields):
            raise ValueError(f"{len(self.fields)} values are needed, not {len(values)}")
        if not self.sql:
            self.sql = self.build(connection.ops.quote_name)
        params = prepare_all(self.fields, self.fast, values, connection)
        return self.sql, [*params, *key]

    def run(self, values: tuple[Any, ...], key: tuple[Any, ...] = ()) -> int:
        """Run it on the model's database; the number of rows it wrote."""
        connection = connections[self.alias]
        with connection.cursor() as cursor:
            cursor.execute(*self.statement(connection, values, key))
            return int(cursor.rowcount)

    def build(self, quote: Callable[[str], str]) -> str:
        raise NotImplementedError


class RowUpdate(_RowWrite):
    """`UPDATE` of `fields` in the row with a given primary key: `update(pk, *values)`, the
    number of rows written. `at`: columns the row must also hold given values in (`WHERE ...
    AND version = %s`): `update(pk, *at_values, *values)`."""

    def __init__(
        self, model: type[Model], fields: tuple[str, ...], at: tuple[str, ...] = ()
    ) -> None:
        super().__init__(model, fields)
        self.at = [model._meta.get_field(name) for name in at]

    def build(self, quote: Callable[[str], str]) -> str:
        meta = self.model._meta
        assignments = ", ".join(f"{quote(field.column)} = %s" for field in self.fields)
        # Only the model's own quoted names go into the SQL; every value is a parameter.
        table, key = quote(meta.db_table), quote(meta.pk.column)
        where = "".join(f" AND {quote(field.column)} = %s" for field in self.at)
        return f"UPDATE {table} SET {assignments} WHERE {key} = %s{where}"  # noqa: S608

    def __call__(self, pk: Any, *values: Any) -> int:
        at, values = values[: len(self.at)], values[len(self.at) :]
        return self.run(values, (pk, *at))


class RowInsert(_RowWrite):
    """`INSERT` of one row with `fields`: `insert(*values)`; nothing is read back."""

    def build(self, quote: Callable[[str], str]) -> str:
        columns = ", ".join(quote(field.column) for field in self.fields)
        places = ", ".join("%s" for _ in self.fields)
        table = quote(self.model._meta.db_table)
        return f"INSERT INTO {table} ({columns}) VALUES ({places})"  # noqa: S608

    def __call__(self, *values: Any) -> int:
        return self.run(values)


class Returning(NamedTuple):
    """A statement whose first row comes back to `then` once it has run (a new row's key):
    whoever runs a change's statements runs it as the others, then hands `then` that row."""

    sql: str
    params: list[Any]
    then: Callable[[tuple[Any, ...]], None]


# A statement as the writers send it: SQL with %s placeholders and its parameters.
Statement = tuple[str, list[Any]] | Returning


def run_all(cursor: Any, statements: list[Statement]) -> None:
    """`statements` run in order on `cursor` (a DB-API cursor: Django's, or sqlite3's), each
    `Returning` one's row handed to its `then` (its rows all read, so nothing is left in
    progress when the transaction commits)."""
    for statement in statements:
        cursor.execute(statement[0], statement[1])
        if isinstance(statement, Returning):
            statement.then(cursor.fetchall()[0])


class RowCreate(RowInsert):
    """`INSERT` of one new row with `fields`, as `save` of a new instance writes it, its
    primary key read back with `RETURNING` as the ORM does: `creating(connection, values,
    then)`, a statement that hands `then` the new key."""

    def build(self, quote: Callable[[str], str]) -> str:
        return f"{super().build(quote)} RETURNING {quote(self.model._meta.pk.column)}"

    def creating(
        self, connection: Any, values: tuple[Any, ...], then: Callable[[int], None]
    ) -> Returning:
        sql, params = self.statement(connection, values)
        return Returning(sql, params, lambda row: then(int(row[0])))
