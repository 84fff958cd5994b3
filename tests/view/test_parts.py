"""The public part of a view holds public facts only, as a type rule: mypy refuses a seat's own
values (its cards, its buttons, its observation) put into a `PublicView` or what it is made of,
or into what the views of a render share (games.view.parts)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[2]

HEADER = """
from games.engine import Observation
from games.view.parts import (
    CardView, PlayedCard, PlayerView, PublicView, Reveal, SeatView, Shared,
)

def leak(public: PublicView, seat: SeatView, seen: Observation, shared: Shared) -> None:
"""

# Each puts a public value where it belongs: the check passes them all.
ALLOWED = [
    "public._replace(trick=(PlayedCard(0, 'Anne', CardView('10H')),))",
    "public._replace(players=public.players, reveals=public.reveals)",
    "Reveal('Anne', 'Bram', (CardView('AS'),), True)",
    "shared.public = public",
]
# Each puts one of the seat's own values into the public part: the check refuses every one.
REFUSED = [
    "public._replace(trick=seat.cards)",
    "public._replace(last_trick=seat.cards)",
    "public._replace(players=seat.cards)",
    "PlayedCard(0, 'Anne', seat.cards[0])",
    "Reveal('Anne', 'Bram', seat.cards, True)",
    "public.players[0]._replace(open_hand=seat.cards)",
    "public._replace(reveals=seen.hand)",
    "public._replace(trick=seat.other_buttons)",
    "public._replace(hand_result=seat.knock)",
    "shared.public = seat",
]


def _errors(lines: list[str], tmp_path: Path) -> dict[int, str]:
    """mypy's errors (as the project runs it: pyproject.toml) on a module that calls `lines`
    in `leak`, by the index of the line."""
    source = HEADER + "".join(f"    {line}\n" for line in lines)
    module = tmp_path / "leaking.py"
    module.write_text(source)
    first = HEADER.count("\n") + 1
    # No cache: mypy keeps a module's errors by its name and text, with the path it had then.
    options = ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", os.devnull]
    stdout, stderr, _status = api.run([*options, str(module)])
    assert not stderr, stderr
    found = {}
    for line in stdout.splitlines():
        match = re.match(rf"{re.escape(str(module))}:(\d+): error: (.*)", line)
        if match:
            found[int(match.group(1)) - first] = match.group(2)
    return found


def test_mypy_refuses_a_seats_own_values_in_the_public_part(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)  # mypy finds `games` from the project's folder
    monkeypatch.setenv("MYPYPATH", str(ROOT))
    errors = _errors(ALLOWED + REFUSED, tmp_path)
    allowed = {i: errors[i] for i in range(len(ALLOWED)) if i in errors}
    assert not allowed, allowed
    missed = [line for i, line in enumerate(REFUSED, len(ALLOWED)) if i not in errors]
    assert not missed, missed
