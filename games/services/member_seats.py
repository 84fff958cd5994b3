"""A member of the club on another player's phone (a shared phone).

The phone's signed-in member picks her from the club's members; she is seated only once she
confirms it, once: from her own signed-in phone, by accepting the request the phone left for
her, or with the short seat code she holds (her club page shows it), typed on that phone. Her
seat is then a member's seat held by that phone: her rubbers count for her, and the phone shows
her cards behind its privacy screen as it does for every player it holds.

    ask(table, asker, holder, member_id, code)   # "seated" with her code, else "asked"
    answer(request_id, user, accept=True)        # the table she was seated at, or None
    new_code(user)                               # her code, good for CODE_FOR
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any, Literal

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from clubs.models import Club, Membership
from games.models import SeatCode, SeatRequest, Table
from games.services.access import is_member
from games.services.changes.decide import TableError
from games.services.changes.seats import take_seat
from games.services.snapshots import load_state
from games.services.state import Holder

# How long a request waits for her answer, and how long a code is good for: the moments
# between tables at a pub night.
ASK_FOR = timedelta(minutes=10)
CODE_FOR = timedelta(minutes=10)
# Six digits, void after this many wrong tries: a guess has five chances in a million.
CODE_DIGITS = 6
CODE_MISSES = 5

SEATING = (Table.Status.WAITING, Table.Status.RUBBER_OVER)


def members_to_seat(table: Table, user: Any) -> list[User]:
    """The club's active members a phone of `user` may seat at `table`: none for anyone but a
    member of the club, and never one who is at the table already."""
    if table.slate or table.status not in SEATING or not is_member(user, table.club_id):
        return []
    seated = table.seats.exclude(user=None).values("user_id")
    return list(
        User.objects.filter(
            memberships__club_id=table.club_id, memberships__status=Membership.Status.ACTIVE
        )
        .exclude(pk__in=seated)
        .order_by("display_name", "username")
    )


def asked_from(table: Table, holder_key: str) -> list[SeatRequest]:
    """The requests this phone left at `table` that wait for an answer."""
    return list(
        SeatRequest.objects.filter(
            table=table, holder_key=holder_key, expires_at__gt=timezone.now()
        ).select_related("user")
    )


def asked_of(user: Any, club: Club) -> list[SeatRequest]:
    """The requests for `user` at the club's tables that wait for her answer."""
    return list(
        SeatRequest.objects.filter(
            user=user, table__club=club, expires_at__gt=timezone.now()
        ).select_related("table", "asked_by")
    )


def code_of(user: Any) -> SeatCode | None:
    """Her seat code while it is good."""
    return SeatCode.objects.filter(user=user, expires_at__gt=timezone.now()).first()


def new_code(user: User) -> SeatCode:
    """A fresh code for her (any code she had before is void)."""
    code = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
    seat_code, _made = SeatCode.objects.update_or_create(
        user=user,
        defaults={"code": code, "expires_at": timezone.now() + CODE_FOR, "misses": 0},
    )
    return seat_code


def ask(
    table: Table, asker: Any, holder: Holder, member_id: object, code: str = ""
) -> Literal["seated", "asked"]:
    """The phone of `asker` (a member holding a seat at `table`) seats the member `member_id`:
    at once with her seat code, else it leaves her a request to accept. Anything amiss is a
    TableError with why, and changes nothing (a wrong code counts against it)."""
    member = _member_to_seat(table, asker, holder, member_id)
    code = "".join(code.split())
    if not code:
        SeatRequest.objects.update_or_create(
            table=table,
            user=member,
            defaults={
                "asked_by": asker,
                "holder_key": holder.key,
                "expires_at": timezone.now() + ASK_FOR,
            },
        )
        return "asked"
    with transaction.atomic():
        # Used once: gone with the seat, back if the seat is refused (the transaction).
        if _code_matches(member, code):
            SeatCode.objects.filter(user=member).delete()
            _seat(table, member, holder.key)
            SeatRequest.objects.filter(table=table, user=member).delete()
            return "seated"
    raise TableError(
        "bad_code",
        _("That is not her seat code, or it is no longer good: she finds it on her club page."),
    )


def answer(request_id: object, user: Any, accept: bool) -> Table | None:
    """She answers a request for her: accepted, she is seated at its table, held by the phone
    that asked (that table is returned); declined, it is gone. Only her own requests."""
    if not isinstance(request_id, int) or isinstance(request_id, bool):
        raise TableError("no_request", _("There is no such request."))
    asked = SeatRequest.objects.filter(pk=request_id, user=user).select_related("table").first()
    if asked is None:
        raise TableError("no_request", _("There is no such request."))
    if not accept:
        asked.delete()
        return None
    if asked.expires_at <= timezone.now():
        asked.delete()
        raise TableError("request_lapsed", _("That request has lapsed: ask again at the table."))
    table = asked.table
    if not is_member(user, table.club_id):
        asked.delete()
        raise TableError("not_allowed", _("Only members of the club are seated as members."))
    if not load_state(table).held_by(Holder(key=asked.holder_key)):
        asked.delete()
        raise TableError(
            "no_phone", _("The phone that asked holds no seat at that table any more.")
        )
    with transaction.atomic():
        asked.delete()
        _seat(table, user, asked.holder_key)
    return table


def _member_to_seat(table: Table, asker: Any, holder: Holder, member_id: object) -> User:
    if not is_member(asker, table.club_id):
        raise TableError("not_allowed", _("Only members of the club seat a member on their phone."))
    if table.slate or table.status not in SEATING:
        raise TableError("not_waiting", _("Seats are taken before a rubber starts."))
    state = load_state(table)
    if not holder.key or not state.held_by(holder):
        raise TableError("no_seat", _("Take a seat at this table first, then seat another player."))
    if not isinstance(member_id, int) or isinstance(member_id, bool):
        raise TableError("no_member", _("There is no such member in this club."))
    member = User.objects.filter(pk=member_id).first()
    if member is None or not is_member(member, table.club_id):
        raise TableError("no_member", _("There is no such member in this club."))
    if any(seat.user_id == member.pk for seat in state.seats):
        raise TableError("already_seated", _("That member is at this table already."))
    return member


def _code_matches(member: User, code: str) -> bool:
    """Whether `code` is her good seat code. A wrong one counts as a miss, kept whatever
    follows; at CODE_MISSES her code is void."""
    with transaction.atomic():
        held = SeatCode.objects.select_for_update().filter(user=member).first()
        if held is None or held.expires_at <= timezone.now():
            return False
        if secrets.compare_digest(held.code, code):
            return True
        held.misses += 1
        if held.misses >= CODE_MISSES:
            held.delete()
        else:
            held.save(update_fields=["misses"])
        return False


def _seat(table: Table, member: User, holder_key: str) -> None:
    free = [seat.index for seat in load_state(table).seats if seat.is_free]
    if not free:
        raise TableError("seat_taken", _("Every seat is taken."))
    take_seat(table.pk, free[0], Holder(user_id=member.pk, key=holder_key), str(member))
