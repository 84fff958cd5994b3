"""Who may open a club's pages: the check each club view makes first, in clubs and in the apps
built on it. A non-member gets 404, never 403: she cannot tell a club from no club."""

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.utils.translation import gettext as _

from clubs.models import Club, Membership


def get_membership(request: HttpRequest, slug: str) -> Membership:
    """The signed-in user's active membership of the club; Http404 for anyone else."""
    if not request.user.is_authenticated:
        raise Http404
    membership = (
        Membership.objects.select_related("club")
        .filter(club__slug=slug, user=request.user, status=Membership.Status.ACTIVE)
        .first()
    )
    if membership is None:
        raise Http404
    return membership


def get_club_for_member(request: HttpRequest, slug: str) -> tuple[Club, Membership]:
    membership = get_membership(request, slug)
    return membership.club, membership


def get_club_for_admin(request: HttpRequest, slug: str) -> tuple[Club, Membership]:
    """Like get_club_for_member; a member who is not an admin is refused (403: she may see it)."""
    membership = get_membership(request, slug)
    if not membership.is_admin:
        raise PermissionDenied(_("Only the club's admins can do this."))
    return membership.club, membership
