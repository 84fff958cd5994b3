"""Compare the live table's prepared queries with the ORM on this environment's database.

    DATABASE_URL=... python -m tests.scaleout.prepared_check --table 1

Fills the table's JSON and date columns and gives it an action receipt first, and writes
with the prepared writes what it then writes with the ORM; prints one JSON line:
{"mismatches": [...]} (empty when the prepared queries read and write as the ORM does).
"""

from __future__ import annotations

import argparse
import json
from datetime import timedelta

import django


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--table", type=int, required=True)
    args = parser.parse_args()
    django.setup()

    from django.utils import timezone

    from games.models import ActionReceipt, Table
    from tests.services.prepared_cases import mismatches, write_mismatches

    Table.objects.filter(pk=args.table).update(
        laundry_ready=[0, 2],
        bots_offered=[1],
        laundry_until=timezone.now() + timedelta(seconds=5),
    )
    ActionReceipt.objects.create(table_id=args.table, action_id="check", version=3)
    found = mismatches(args.table, "check") + write_mismatches(args.table)
    print(json.dumps({"mismatches": found}))


if __name__ == "__main__":
    main()
