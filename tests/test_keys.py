"""The project's primary key (games/keys.py): Django's own column, and its foreign keys
read their column type without making a model field."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection, models

from clubs.models import Membership
from games.keys import Key
from games.models import ActionReceipt, Seat, Table
from tests.personas import Cast
from tests.tables import four_people_table, play_a_card

pytestmark = pytest.mark.django_db


def test_a_foreign_key_reads_its_column_type_without_making_a_field() -> None:
    expected = models.BigIntegerField().db_type(connection)
    before = models.Field.creation_counter
    for model, name in ((Seat, "table"), (Membership, "club"), (Table, "created_by")):
        field = model._meta.get_field(name)
        assert isinstance(field.target_field, Key)
        assert field.db_type(connection) == expected
    assert models.Field.creation_counter == before


def test_the_models_and_their_migrations_agree() -> None:
    # The key deconstructs as Django's BigAutoField: no migration for it, nor for anything else.
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_an_action_receipt_writes_no_key_sequence_on_sqlite(klaver: Cast, settings) -> None:
    """Every action inserts a receipt: its key is SQLite's own (no AUTOINCREMENT), so the
    commit writes no `sqlite_sequence` page; the other tables keep Django's AUTOINCREMENT."""
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's own key; elsewhere the receipts' key is Key itself")
    settings.TOEPEN_LAUNDRY_SECONDS = 0  # the first card may be played at once
    table = four_people_table(klaver)
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM sqlite_sequence")  # what setting the table up counted
        _, outcome = play_a_card(klaver, table, "receipt-key-1")
        assert outcome.version > 0
        assert ActionReceipt.objects.filter(table=table, action_id="receipt-key-1").exists()
        cursor.execute("SELECT name FROM sqlite_sequence")
        assert "games_actionreceipt" not in {name for (name,) in cursor.fetchall()}
        cursor.execute("SELECT name, sql FROM sqlite_master WHERE name LIKE 'games_%'")
        made = dict(cursor.fetchall())
    assert "AUTOINCREMENT" not in made["games_actionreceipt"]
    assert "AUTOINCREMENT" in made["games_table"]
