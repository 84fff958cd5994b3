"""The project's primary key (toepen_site/keys.py): Django's own column, and its foreign keys
read their column type without making a model field."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection, models

from clubs.models import Membership
from games.models import Seat, Table
from toepen_site.keys import Key

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
