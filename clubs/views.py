"""Club pages. Each view's first line checks access (clubs/access.py): a non-member gets 404,
never 403. The club's front page, which shows its tables too, is games.views.club_page."""

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from clubs import services
from clubs.access import get_club_for_admin, get_club_for_member
from clubs.forms import (
    ClubForm,
    HouseRulesForm,
    ImportProfileForm,
    InvitationForm,
    NewProfileForm,
)
from clubs.house_rules import FIELD_TEXT, GROUPS, option_label
from clubs.models import Club, HouseRuleProfile, Invitation, Membership
from clubs.qr import qr_svg
from clubs.reads import member_lists

Status = Membership.Status

# Pages that show a form on GET and take it on POST; any other method is refused.
require_form_methods = require_http_methods(["GET", "POST"])


@login_required
@require_GET
def club_list(request: HttpRequest) -> HttpResponse:
    memberships = (
        Membership.objects.filter(user=request.user)
        .select_related("club")
        .annotate(
            member_count=Count(
                "club__memberships", filter=Q(club__memberships__status=Status.ACTIVE)
            )
        )
        .order_by("club__name")
    )
    return render(request, "clubs/club_list.html", {"memberships": memberships})


@login_required
@require_form_methods
def club_create(request: HttpRequest) -> HttpResponse:
    form = ClubForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        club = services.found_club(request.user, form.cleaned_data["name"])
        messages.success(request, _("Your club is founded. Invite its members."))
        return redirect(club)
    return render(request, "clubs/club_form.html", {"form": form})


def _members_response(
    request: HttpRequest, club: Club, me: Membership, error: str = ""
) -> HttpResponse:
    """The member list again: in place for HTMX, else back to the club page with a message."""
    if request.htmx:
        context = member_lists(club, me)
        context["error"] = error
        return render(request, "clubs/club_detail.html#members", context)
    if error:
        messages.error(request, error)
    return redirect(club)


def _leave_page(request: HttpRequest, url: str) -> HttpResponse:
    """Go to another page; an HTMX request asks the browser to, instead of swapping it in."""
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _club_member(club: Club, pk: int) -> Membership:
    return get_object_or_404(Membership.objects.select_related("user", "club"), club=club, pk=pk)


@require_POST
def member_accept(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, me = get_club_for_admin(request, slug)
    try:
        services.accept_member(_club_member(club, pk))
    except services.ClubError as error:
        return _members_response(request, club, me, str(error))
    return _members_response(request, club, me)


@require_POST
def member_remove(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, me = get_club_for_admin(request, slug)
    membership = _club_member(club, pk)
    try:
        services.remove_member(membership)
    except services.ClubError as error:
        return _members_response(request, club, me, str(error))
    if membership.pk == me.pk:
        return _leave_page(request, reverse("clubs:list"))
    return _members_response(request, club, me)


@require_POST
def member_role(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, me = get_club_for_admin(request, slug)
    membership = _club_member(club, pk)
    try:
        services.set_role(membership, request.POST.get("role", ""))
    except services.ClubError as error:
        return _members_response(request, club, me, str(error))
    me.refresh_from_db()
    if not me.is_admin:
        # She stepped down: the page she sees must lose its admin controls.
        return _leave_page(request, club.get_absolute_url())
    return _members_response(request, club, me)


@require_POST
def club_leave(request: HttpRequest, slug: str) -> HttpResponse:
    club, me = get_club_for_member(request, slug)
    try:
        services.leave_club(me)
    except services.ClubError as error:
        messages.error(request, str(error))
        return redirect(club)
    messages.success(request, _("You left %(club)s.") % {"club": club.name})
    return redirect("clubs:list")


# Invitations


def _invitation_url(request: HttpRequest, invitation: Invitation) -> str:
    return request.build_absolute_uri(reverse("clubs:join", args=[invitation.token]))


@require_form_methods
def invitations(request: HttpRequest, slug: str) -> HttpResponse:
    club, me = get_club_for_admin(request, slug)
    form = InvitationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        services.create_invitation(club, request.user, form.cleaned_data["days"])
        messages.success(request, _("A new invitation link is ready."))
        return redirect("clubs:invitations", slug=club.slug)
    links = []
    for invitation in Invitation.usable().filter(club=club):
        url = _invitation_url(request, invitation)
        links.append(
            {"invitation": invitation, "url": url, "qr": qr_svg(url), "id": f"link-{invitation.pk}"}
        )
    return render(
        request, "clubs/invitations.html", {"club": club, "me": me, "form": form, "links": links}
    )


@require_POST
def invitation_revoke(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, _me = get_club_for_admin(request, slug)
    services.revoke_invitation(get_object_or_404(Invitation, club=club, pk=pk))
    messages.success(request, _("The invitation link no longer works."))
    return redirect("clubs:invitations", slug=club.slug)


@require_form_methods
def join(request: HttpRequest, token: str) -> HttpResponse:
    """The one club page a non-member may see: reached with a valid invitation token."""
    invitation = Invitation.objects.select_related("club").filter(token=token).first()
    if invitation is None or not invitation.is_usable:
        expired = invitation is not None and invitation.revoked_at is None
        return render(request, "clubs/join_invalid.html", {"expired": expired}, status=404)
    club = invitation.club
    membership = None
    if request.user.is_authenticated:
        membership = Membership.objects.filter(club=club, user=request.user).first()
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        membership, created = services.request_to_join(invitation, request.user)
        if membership.is_active:
            return redirect(club)
        if created:
            messages.success(
                request, _("Your request is sent. An admin of the club will accept it.")
            )
        return redirect("clubs:join", token=token)
    return render(
        request,
        "clubs/join.html",
        {"club": club, "invitation": invitation, "membership": membership},
    )


# House-rule profiles


def _profile(club: Club, pk: int) -> HouseRuleProfile:
    return get_object_or_404(HouseRuleProfile, club=club, pk=pk)


@require_form_methods
def profile_new(request: HttpRequest, slug: str) -> HttpResponse:
    club, _me = get_club_for_admin(request, slug)
    form = NewProfileForm(club, request.POST or None)
    if request.method == "POST" and form.is_valid():
        profile = services.create_profile(
            club, form.cleaned_data["name"], form.cleaned_data["rules"]
        )
        messages.success(request, _("Profile created. Adjust its rules below."))
        return redirect("clubs:profile", slug=club.slug, pk=profile.pk)
    return render(request, "clubs/profile_new.html", {"club": club, "form": form})


@require_form_methods
def profile_import(request: HttpRequest, slug: str) -> HttpResponse:
    club, _me = get_club_for_admin(request, slug)
    form = ImportProfileForm(club, request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        profile = services.create_profile(
            club, form.cleaned_data["name"], form.cleaned_data["rules"]
        )
        messages.success(request, _("Profile imported."))
        return redirect("clubs:profile", slug=club.slug, pk=profile.pk)
    return render(request, "clubs/profile_import.html", {"club": club, "form": form})


@require_form_methods
def profile_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Members read the rules; admins edit them here too."""
    club, me = get_club_for_member(request, slug)
    profile = _profile(club, pk)
    if request.method == "POST":
        if not me.is_admin:
            raise PermissionDenied(_("Only the club's admins can do this."))
        form = HouseRulesForm(club, request.POST, profile=profile)
        if form.is_valid():
            services.update_profile(profile, form.cleaned_data["name"], form.cleaned_data["rules"])
            messages.success(request, _("Saved. New tables play by these rules."))
            return redirect("clubs:profile", slug=club.slug, pk=profile.pk)
    else:
        form = HouseRulesForm(club, profile=profile) if me.is_admin else None
    rules = profile.snapshot()
    groups = [
        (
            str(title),
            [
                {
                    "name": n,
                    "label": FIELD_TEXT[n].label,
                    "help": FIELD_TEXT[n].help,
                    "value": option_label(n, rules.get(n)),
                }
                for n in names
            ],
        )
        for title, names in GROUPS
    ]
    return render(
        request,
        "clubs/profile_detail.html",
        {"club": club, "me": me, "profile": profile, "form": form, "groups": groups},
    )


@require_POST
def profile_default(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, _me = get_club_for_admin(request, slug)
    profile = _profile(club, pk)
    services.make_default(profile)
    messages.success(
        request, _("%(name)s is now the club's default profile.") % {"name": profile.name}
    )
    return redirect(club)


@require_POST
def profile_delete(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, _me = get_club_for_admin(request, slug)
    profile = _profile(club, pk)
    try:
        services.delete_profile(profile)
    except services.ClubError as error:
        messages.error(request, str(error))
        return redirect("clubs:profile", slug=club.slug, pk=profile.pk)
    messages.success(request, _("Profile deleted."))
    return redirect(club)


@require_GET
def profile_export(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, _me = get_club_for_member(request, slug)
    profile = _profile(club, pk)
    body = json.dumps(
        {"name": profile.name, "rules": profile.snapshot()}, indent=2, ensure_ascii=False
    )
    response = HttpResponse(body + "\n", content_type="application/json; charset=utf-8")
    filename = f"{slugify(club.name)}-{slugify(profile.name) or 'profile'}.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
