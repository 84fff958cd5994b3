"""What a club page shows of its play: the open tables and the standings of its members."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Count, Q, Sum
from django.utils import timezone

from clubs.models import Club, Membership
from games.models import RubberPlayer, Table

# A table whose rubber is over stays on the club's front page this long, for another rubber.
FINISHED_SHOWN = timedelta(hours=1)


def open_tables(club: Club) -> list[Table]:
    """The tables in play or waiting; closed ones, and finished ones nobody has touched for an
    hour, are in the club's history, not on its front page."""
    stale = timezone.now() - FINISHED_SHOWN
    return list(
        Table.objects.filter(club=club)
        .exclude(status=Table.Status.CLOSED)
        .exclude(status=Table.Status.RUBBER_OVER, changed_at__lt=stale)
        .select_related("created_by")
        .order_by("-created_at")[:20]
    )


@dataclass(frozen=True)
class Standing:
    member: str
    rubbers: int
    rubbers_lost: int
    lives_lost: int


def standings(club: Club) -> list[Standing]:
    """Per active member: rubbers played and lost, lives lost, in the club's finished rubbers.

    Hands played as a guest count for the member the guest became (accounts.Guest.user)."""
    members = {
        m.user_id: str(m.user)
        for m in Membership.objects.filter(
            club=club, status=Membership.Status.ACTIVE
        ).select_related("user")
    }
    rows = (
        RubberPlayer.objects.filter(
            rubber__table__club=club, rubber__over=True, rubber__abandoned=False
        )
        .filter(Q(user_id__in=members) | Q(guest__user_id__in=members))
        .values("user_id", "guest__user_id")
        .annotate(
            rubbers=Count("id"), lost=Count("id", filter=Q(lost=True)), lives=Sum("lives_lost")
        )
    )
    totals: dict[int, list[int]] = {}
    for row in rows:
        user_id = row["user_id"] or row["guest__user_id"]
        total = totals.setdefault(user_id, [0, 0, 0])
        total[0] += row["rubbers"]
        total[1] += row["lost"]
        total[2] += row["lives"] or 0
    table = [
        Standing(members[user_id], rubbers, lost, lives)
        for user_id, (rubbers, lost, lives) in totals.items()
    ]
    return sorted(
        table, key=lambda s: (s.rubbers_lost / s.rubbers, s.lives_lost / s.rubbers, s.member)
    )
