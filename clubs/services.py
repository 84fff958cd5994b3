"""Every change to clubs, members and profiles: checked, then written in one transaction.

Views call these and show a ClubError's message to whoever asked; nothing is changed then.
"""

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from clubs.house_rules import BUILT_IN_NAMES
from clubs.models import Club, HouseRuleProfile, Invitation, Membership
from games.engine.rules import BUILT_IN_PROFILES, HouseRules

Role = Membership.Role
Status = Membership.Status


class ClubError(Exception):
    """A change that the club's rules do not allow; the message is for the person who asked."""


def found_club(user: User, name: str) -> Club:
    """A new club with its founder as first admin and Classic as its default profile."""
    with transaction.atomic():
        club = Club.objects.create(name=name, slug=Club.unique_slug(name))
        Membership.objects.create(club=club, user=user, role=Role.ADMIN, status=Status.ACTIVE)
        create_profile(club, str(BUILT_IN_NAMES["classic"]), BUILT_IN_PROFILES["classic"])
    return club


def request_to_join(invitation: Invitation, user: User) -> tuple[Membership, bool]:
    """A waiting membership for `user`; the existing one (and False) if there is one already."""
    if not invitation.is_usable:
        raise ClubError(_("This invitation has expired or was withdrawn."))
    with transaction.atomic():
        membership, created = Membership.objects.get_or_create(
            club=invitation.club,
            user=user,
            defaults={"role": Role.MEMBER, "status": Status.PENDING},
        )
    return membership, created


def _active_admins(club: Club) -> int:
    # Locks the club's admin rows, so two admins removing each other cannot both succeed.
    return len(
        Membership.objects.select_for_update()
        .filter(club=club, role=Role.ADMIN, status=Status.ACTIVE)
        .values_list("pk", flat=True)
    )


def _refuse_losing_last_admin(membership: Membership) -> None:
    if membership.is_admin and _active_admins(membership.club) <= 1:
        raise ClubError(_("A club needs at least one admin: make another member admin first."))


def accept_member(membership: Membership) -> Membership:
    with transaction.atomic():
        membership = Membership.objects.select_for_update().get(pk=membership.pk)
        if membership.status != Status.PENDING:
            raise ClubError(_("%(name)s is already a member.") % {"name": membership.user})
        membership.status = Status.ACTIVE
        membership.save(update_fields=["status"])
    return membership


def remove_member(membership: Membership) -> None:
    """Remove a member or turn down a request to join; never the last admin."""
    with transaction.atomic():
        _refuse_losing_last_admin(membership)
        membership.delete()


def leave_club(membership: Membership) -> None:
    with transaction.atomic():
        _refuse_losing_last_admin(membership)
        membership.delete()


def set_role(membership: Membership, role: str) -> Membership:
    if role not in Role.values:
        raise ClubError(_("That is not a role in a club."))
    with transaction.atomic():
        membership = Membership.objects.select_for_update().get(pk=membership.pk)
        if membership.status != Status.ACTIVE:
            raise ClubError(_("Accept %(name)s as a member first.") % {"name": membership.user})
        if membership.role == role:
            return membership
        if role == Role.MEMBER:
            _refuse_losing_last_admin(membership)
        membership.role = role
        membership.save(update_fields=["role"])
    return membership


def create_invitation(club: Club, user: User, days: int) -> Invitation:
    if days not in Invitation.DURATIONS:
        raise ClubError(_("Choose how long the invitation stays valid."))
    return Invitation.for_days(club, days, created_by=user)


def revoke_invitation(invitation: Invitation) -> None:
    if invitation.revoked_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])


def create_profile(club: Club, name: str, rules: HouseRules) -> HouseRuleProfile:
    """A new profile; the club's first one becomes its default."""
    with transaction.atomic():
        has_default = HouseRuleProfile.objects.filter(club=club, is_default=True).exists()
        return HouseRuleProfile.objects.create(
            club=club, name=name, rules_json=rules.to_json(), is_default=not has_default
        )


def update_profile(profile: HouseRuleProfile, name: str, rules: HouseRules) -> HouseRuleProfile:
    """New rules for new tables: tables that started keep the snapshot they stored."""
    profile.name = name
    profile.set_rules(rules)
    profile.save(update_fields=["name", "rules_json", "updated_at"])
    return profile


def make_default(profile: HouseRuleProfile) -> None:
    with transaction.atomic():
        HouseRuleProfile.objects.filter(club=profile.club, is_default=True).exclude(
            pk=profile.pk
        ).update(is_default=False)
        HouseRuleProfile.objects.filter(pk=profile.pk).update(is_default=True)


def delete_profile(profile: HouseRuleProfile) -> None:
    if profile.is_default:
        raise ClubError(_("The default profile cannot be deleted: make another one default first."))
    profile.delete()
