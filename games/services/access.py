"""Who may look at a table: one check for the table page and the websocket alike.

A phone sees a table live while it holds a seat there, or while its user is an active member
of the table's club and the table lets members watch. Both can change while a socket is open
(a guest leaves her seat, an admin removes a member), so the hub asks again: the seats at
every render, the membership at every heartbeat round (`watchers_allowed`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from clubs.models import Club, Membership
from games.services.state import Holder, TableState


@dataclass(frozen=True)
class Access:
    seats: tuple[int, ...]
    may_watch: bool
    can_start: bool
    can_close: bool = False

    @property
    def allowed(self) -> bool:
        return bool(self.seats) or self.may_watch


def club_role(user: Any, club: Club | int) -> str | None:
    """The role of `user`'s active membership of `club` (a `Membership.Role`), or None.

    One row's column, not `.exists()`: Django answers `exists()` with a `Value(1)`, which
    makes a new model field, and every new field bumps `Field.creation_counter` on the class.
    That invalidates the type cache of every field class, and CPython gives a class a
    thousand such versions: past them each attribute of a field is looked up the slow way for
    the rest of the process. A live server asks this at every phone's connect, so it asks
    without making a field."""
    if user is None or not user.is_authenticated:
        return None
    roles = Membership.objects.filter(club=club, user=user, status=Membership.Status.ACTIVE)
    # At most one row (one membership per club and user); unordered, as `first()` would order
    # it by the model's ordering, which joins the club and the user for nothing.
    return next(iter(roles.order_by().values_list("role", flat=True)[:1]), None)


def is_member(user: Any, club: Club | int) -> bool:
    return club_role(user, club) is not None


def is_admin(user: Any, club: Club | int) -> bool:
    return club_role(user, club) == Membership.Role.ADMIN


def table_access(state: TableState, holder: Holder, user: Any) -> Access:
    """What `holder` (speaking for `user`, who may be anonymous) may do at `state`'s table.
    A slate table is looked at through its slate alone (/s/, /ws/slates/: who has its code
    follows it, games.services.slate.may_keep says who writes), as it is changed
    (games.services.tables.check_door): here nobody holds a seat of it or watches it."""
    table = state.table
    member = user if user is not None and user.is_authenticated else None
    creator = member is not None and table.created_by_id == member.pk
    role = club_role(member, table.club_id)
    if table.slate:
        return Access(seats=(), may_watch=False, can_start=False)
    seats = tuple(state.held_by(holder))
    return Access(
        seats=seats,
        may_watch=table.allow_spectators and role is not None,
        # Any player at the table starts the next rubber (games.services.tables.start_rubber).
        can_start=bool(seats) or creator,
        can_close=creator or role == Membership.Role.ADMIN,
    )


def watchers_allowed(asked: Iterable[tuple[int, int]]) -> set[tuple[int, int]]:
    """Of these (table, user) pairs, those whose user may watch that table now: one query for
    every watching phone of a process."""
    asked = set(asked)
    if not asked:
        return set()
    rows = Membership.objects.filter(
        status=Membership.Status.ACTIVE,
        user_id__in={user for _, user in asked},
        club__tables__pk__in={table for table, _ in asked},
        club__tables__allow_spectators=True,
        club__tables__slate=False,
    ).values_list("club__tables__pk", "user_id")
    return asked & set(rows)
