"""Every kind of change, proven one way (tests/services/every_change_cases.py), on the suite's
own database (SQLite); `make test`'s PostgreSQL pass runs the cases on PostgreSQL."""

from __future__ import annotations

import pytest

from tests.services.every_change_cases import *  # noqa: F403 (the shared cases, collected here)
from tests.services.every_change_cases import clock  # noqa: F401 (their fixture)

pytestmark = pytest.mark.django_db(transaction=True)
