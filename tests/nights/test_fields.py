"""A rubber's booking makes no new model field.

Each model field made at run time changes the class `Field` (`Field.creation_counter`), and
CPython gives a class a thousand changes before it stops caching lookups on it and on all its
subclasses (games/keys.py). The booking at a rubber's end is the live server's work.
On the suite's SQLite, and on PostgreSQL in `make test`'s PostgreSQL pass, where Django's own
key made a field at every join on a foreign key and every bulk insert (nine in this booking).
"""

from __future__ import annotations

import pytest
from django.db.models import Field

from nights import services
from nights.models import Night, PlayerRubber
from tests.nights.conftest import open_table, play_rubber
from tests.nights.test_booking import admin
from tests.personas import Cast

pytestmark = pytest.mark.django_db


def test_a_rubber_of_the_night_is_booked_without_making_a_model_field(klaver: Cast) -> None:
    night = services.open_night(admin(klaver))
    table = open_table(klaver.club, klaver.anna, [klaver.bram, klaver.cas, klaver.guus])
    players = {0: klaver.anna, 1: klaver.bram, 2: klaver.cas, 3: klaver.guus}
    before = Field.creation_counter
    play_rubber(table, players)
    assert PlayerRubber.objects.filter(rubber__table=table).count() == 4
    assert Night.objects.get(pk=night.pk).version == night.version + 1  # booked
    assert Field.creation_counter == before
