"""The club's rules for members and invitations, at the service layer."""

from datetime import timedelta

import pytest
from django.utils import timezone

from clubs import services
from clubs.models import Club, HouseRuleProfile, Invitation, Membership

pytestmark = pytest.mark.django_db

Role = Membership.Role
Status = Membership.Status


def membership(club: Club, user) -> Membership:
    return Membership.objects.get(club=club, user=user)


def test_a_founder_is_the_first_admin_and_the_club_starts_with_a_default_profile(anna):
    club = services.found_club(anna, "De Gouden Klaver")
    assert membership(club, anna).is_admin
    (profile,) = club.profiles.all()
    assert profile.is_default
    assert profile.rules_json["starting_lives"] == 10


def test_two_clubs_with_the_same_name_get_different_addresses(anna, bram):
    first = services.found_club(anna, "De Gouden Klaver")
    second = services.found_club(bram, "De Gouden Klaver")
    assert first.slug == "de-gouden-klaver"
    assert second.slug != first.slug


def test_the_last_admin_cannot_be_removed(club, anna):
    with pytest.raises(services.ClubError):
        services.remove_member(membership(club, anna))
    assert membership(club, anna).is_admin


def test_the_last_admin_cannot_step_down(club, anna):
    with pytest.raises(services.ClubError):
        services.set_role(membership(club, anna), Role.MEMBER)
    assert membership(club, anna).is_admin


def test_the_last_admin_cannot_leave(club, anna):
    with pytest.raises(services.ClubError):
        services.leave_club(membership(club, anna))
    assert Membership.objects.filter(club=club, user=anna).exists()


def test_with_a_second_admin_the_first_may_go(club, anna, bram):
    services.set_role(membership(club, bram), Role.ADMIN)
    services.leave_club(membership(club, anna))
    assert not Membership.objects.filter(club=club, user=anna).exists()
    assert membership(club, bram).is_admin


def test_a_member_can_leave(club, bram):
    services.leave_club(membership(club, bram))
    assert not Membership.objects.filter(club=club, user=bram).exists()


def test_a_waiting_member_cannot_be_made_admin_before_being_accepted(club, femke):
    with pytest.raises(services.ClubError):
        services.set_role(membership(club, femke), Role.ADMIN)
    assert membership(club, femke).role == Role.MEMBER


def test_an_unknown_role_is_refused(club, bram):
    with pytest.raises(services.ClubError):
        services.set_role(membership(club, bram), "king")
    assert membership(club, bram).role == Role.MEMBER


def test_accepting_makes_a_waiting_member_active_once(club, femke):
    services.accept_member(membership(club, femke))
    assert membership(club, femke).is_active
    with pytest.raises(services.ClubError):
        services.accept_member(membership(club, femke))


def test_an_invitation_token_is_long_random_and_unique(club, anna):
    tokens = {services.create_invitation(club, anna, 7).token for _ in range(20)}
    assert len(tokens) == 20
    assert all(len(token) >= 40 for token in tokens)


def test_an_invitation_lets_several_people_ask_to_join(club, anna, eva):
    invitation = services.create_invitation(club, anna, 7)
    newcomer = type(anna).objects.create_user("hanna", "hanna@example.com", "x-pass-12345")
    services.request_to_join(invitation, eva)
    services.request_to_join(invitation, newcomer)
    assert membership(club, eva).status == Status.PENDING
    assert membership(club, newcomer).status == Status.PENDING


def test_using_an_invitation_again_changes_nothing(club, anna, eva):
    invitation = services.create_invitation(club, anna, 7)
    first, created = services.request_to_join(invitation, eva)
    again, created_again = services.request_to_join(invitation, eva)
    assert created and not created_again
    assert first.pk == again.pk
    assert Membership.objects.filter(club=club, user=eva).count() == 1


def test_a_member_using_an_invitation_stays_what_she_is(club, anna):
    invitation = services.create_invitation(club, anna, 7)
    services.request_to_join(invitation, anna)
    assert membership(club, anna).is_admin


def test_an_expired_invitation_lets_nobody_in(club, anna, eva):
    invitation = services.create_invitation(club, anna, 1)
    Invitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    invitation.refresh_from_db()
    with pytest.raises(services.ClubError):
        services.request_to_join(invitation, eva)
    assert not Membership.objects.filter(club=club, user=eva).exists()


def test_a_withdrawn_invitation_lets_nobody_in(club, anna, eva):
    invitation = services.create_invitation(club, anna, 30)
    services.revoke_invitation(invitation)
    with pytest.raises(services.ClubError):
        services.request_to_join(invitation, eva)
    assert not Membership.objects.filter(club=club, user=eva).exists()


def test_an_invitation_expires_after_the_days_chosen(club, anna):
    before = timezone.now()
    invitation = services.create_invitation(club, anna, 7)
    assert before + timedelta(days=7) <= invitation.expires_at <= timezone.now() + timedelta(days=7)


def test_an_invitation_of_an_odd_length_is_refused(club, anna):
    with pytest.raises(services.ClubError):
        services.create_invitation(club, anna, 365)
    assert not club.invitations.exists()


def test_a_club_has_one_default_profile(club):
    from games.engine.rules import BUILT_IN_PROFILES

    kroeg = services.create_profile(club, "Kroeg", BUILT_IN_PROFILES["kroeg"])
    assert not kroeg.is_default
    services.make_default(kroeg)
    defaults = HouseRuleProfile.objects.filter(club=club, is_default=True)
    assert list(defaults) == [kroeg]


def test_the_default_profile_cannot_be_deleted(club):
    default = club.profiles.get(is_default=True)
    with pytest.raises(services.ClubError):
        services.delete_profile(default)
    assert HouseRuleProfile.objects.filter(pk=default.pk).exists()
