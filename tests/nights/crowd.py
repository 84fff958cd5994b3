"""A crowded club night, written straight into its rows: many players with finished rubbers,
a round owed by each loser, and tables in play, paused, between rubbers and waiting. For
pages that must hold whatever a night holds (the big screen)."""

from __future__ import annotations

from django.utils import timezone

from games.models import Rubber, RubberPlayer, Table
from nights.models import Night, Place, PlayerRubber, Round


def crowd(night: Night, table: Table, rubbers: int = 12) -> None:
    """Add `rubbers` finished rubbers of three new players each at `table`, and eight tables."""
    now = timezone.now()
    first = (
        Rubber.objects.filter(table=table)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
        or 0
    ) + 1
    for number in range(first, first + rubbers):
        names = [f"Speler {number:02d}{seat} met een lange naam" for seat in range(3)]
        rubber = Rubber.objects.create(
            table=table,
            number=number,
            rules_json=table.rules_json,
            players=names,
            lives=[0, 1, 3],
            dealer=0,
            over=True,
            winner=2,
            losers=[0],
            finished_at=now,
        )
        for seat, name in enumerate(names):
            player = RubberPlayer.objects.create(rubber=rubber, seat=seat, name=name)
            key = f"crowd:{number}:{seat}"
            place = Place.WON if seat == 2 else Place.LOST if seat == 0 else Place.SURVIVED
            PlayerRubber.objects.create(
                participant=player,
                rubber=rubber,
                club=table.club,
                night=night,
                finished_at=now,
                key=key,
                name=name,
                place=place,
                lives_lost=3 - [0, 1, 3][seat],
                hands=4,
                knocks=seat,
            )
            if seat == 0:
                Round.objects.create(
                    night=night, participant=player, rubber=rubber, key=key, name=name, owed_at=now
                )
    states = [
        (Table.Status.PLAYING, False),
        (Table.Status.PLAYING, True),
        (Table.Status.RUBBER_OVER, False),
        (Table.Status.WAITING, False),
    ]
    for index in range(8):
        status, paused = states[index % len(states)]
        Table.objects.create(
            club=table.club,
            night=night,
            code=f"CRW{index:03d}",
            created_by=table.created_by,
            status=status,
            paused=paused,
            rules_json=table.rules_json,
            seat_count=table.seat_count,
        )
