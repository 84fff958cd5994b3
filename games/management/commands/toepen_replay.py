"""`manage.py toepen_replay FILE...`: replay hand records, one result line each (hand-record.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.engine.errors import BadRecord
from games.engine.record import bad_record_result, read_records, replay

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_UNREADABLE = 2


class Command(BaseCommand):
    help = (
        "Replay toepen-hand/1 records and print one toepen-result/1 line per record. A .json file "
        "holds one record; any other file (or - for standard input) holds one record per line."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", metavar="FILE")

    def handle(self, *args: Any, **options: Any) -> None:
        status = EXIT_OK
        for name in options["files"]:
            try:
                data = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
            except OSError as error:
                self.stderr.write(f"toepen_replay: cannot read {name}: {error.strerror or error}")
                status = EXIT_UNREADABLE
                continue
            single = name != "-" and name.lower().endswith(".json")
            for item in read_records(_decode(data), single):
                result = (
                    bad_record_result(item.message) if isinstance(item, BadRecord) else replay(item)
                )
                if result["error"] is not None and status == EXIT_OK:
                    status = EXIT_ERRORS
                self.stdout.write(json.dumps(result, ensure_ascii=False))
        self.stdout.flush()
        if status:
            raise SystemExit(status)


def _decode(data: bytes) -> str:
    # Undecodable bytes become U+FFFD, so the record holding them is a bad record, not a crash.
    return data.decode("utf-8-sig", errors="replace")
