"""What the club page shows of its members: read here for the whole page (games.views.club_page)
and for its members section alone, which clubs' views send again after each change."""

from clubs.models import Club, Membership


def member_lists(club: Club, me: Membership) -> dict[str, object]:
    """The context of the club page's members section (`clubs/club_detail.html#members`)."""
    memberships = list(club.memberships.select_related("user").order_by("user__username"))
    return {
        "club": club,
        "me": me,
        "active_members": [m for m in memberships if m.status == Membership.Status.ACTIVE],
        "pending_members": [m for m in memberships if m.status == Membership.Status.PENDING],
        "admin_count": sum(1 for m in memberships if m.is_admin),
    }
