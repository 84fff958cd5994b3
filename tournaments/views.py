"""A club's tournaments. Each view's first line checks access: the club's members see them
(404 for anyone else), its admins create them, register players and draw rounds (403 for a
member); a guest's seat link is the one door for someone who is not a member."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.guests import SESSION_KEY as GUEST_SESSION_KEY
from clubs.access import get_club_for_member
from clubs.models import Club, Membership
from nights.views import csv_response
from tournaments import reads, services
from tournaments.forms import RegisterForm, TournamentForm
from tournaments.models import Tournament


def _tournament(club: Club, pk: int) -> Tournament:
    return get_object_or_404(Tournament.objects.select_related("club"), club=club, pk=pk)


@require_http_methods(["GET", "POST"])
def index(request: HttpRequest, slug: str) -> HttpResponse:
    club, me = get_club_for_member(request, slug)
    form = TournamentForm(request.POST or None, club=club) if me.is_admin else None
    if request.method == "POST":
        if form is None:
            raise PermissionDenied(_("Only the club's admins can do this."))
        if form.is_valid():
            data = form.cleaned_data
            try:
                tournament = services.create_tournament(
                    me,
                    name=data["name"],
                    profile=data["profile"],
                    slate_tables=bool(data["slate"]),
                    rounds=data["rounds"],
                    table_size=data["table_size"],
                    points=data["points"],
                    final_size=data["final_size"],
                )
            except services.TournamentError as error:
                form.add_error(None, str(error.message))
            else:
                return redirect(tournament)
    context = {"club": club, "me": me, "form": form, "tournaments": club.tournaments.all()}
    status = 400 if request.method == "POST" else 200
    return render(request, "tournaments/index.html", context, status=status)


def _context(request: HttpRequest, club: Club, me: Membership, tournament: Tournament) -> dict:
    page = reads.shown_page(tournament)
    mine = next((e for e in page.entries if e.user_id == me.user_id), None)
    my_table = page.table_of(mine.pk if mine is not None else None)
    # The page read is shared by every request while it is current: nothing is written on it.
    links: dict[int, str] = {}
    if me.is_admin and not tournament.slate:
        # A guest's seat link, for the admin to pass on (her phone then holds her seats).
        for e in page.entries:
            if e.guest_id is not None and not e.left:
                token = services.guest_link(e)
                url = reverse("tournaments:guest", args=[club.slug, tournament.pk, token])
                links[e.pk] = request.build_absolute_uri(url)
    return {
        "club": club,
        "me": me,
        "tournament": tournament,
        "page": page,
        "entries": [(e, links.get(e.pk, "")) for e in page.entries],
        "mine": mine,
        "my_table": my_table,
        "register_form": RegisterForm(tournament=tournament) if me.is_admin else None,
    }


@require_GET
def detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, me = get_club_for_member(request, slug)
    tournament = _tournament(club, pk)
    return render(request, "tournaments/detail.html", _context(request, club, me, tournament))


@require_GET
def live(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The live part of the tournament's page (or of its big screen), polled by htmx."""
    club, me = get_club_for_member(request, slug)
    tournament = _tournament(club, pk)
    screen = request.GET.get("view") == "screen"
    template = "tournaments/screen.html#board" if screen else "tournaments/detail.html#live"
    return render(request, template, _context(request, club, me, tournament))


@require_GET
def screen(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The tournament on the pub's big screen: the draw, the tables playing, the leaderboard."""
    club, me = get_club_for_member(request, slug)
    tournament = _tournament(club, pk)
    return render(request, "tournaments/screen.html", _context(request, club, me, tournament))


def _done(request: HttpRequest, tournament: Tournament, error: Any = None) -> HttpResponse:
    if error is not None:
        messages.error(request, str(error))
    return redirect(tournament)


@require_POST
def register(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """A member registers herself (`me`), or an admin registers a member, a guest or a
    computer player."""
    club, me = get_club_for_member(request, slug)
    tournament = _tournament(club, pk)
    try:
        if "me" in request.POST:
            entry = services.register(tournament, me, user=me.user)
        else:
            if not me.is_admin:
                raise PermissionDenied(_("Only the club's admins can do this."))
            form = RegisterForm(request.POST, tournament=tournament)
            if not form.is_valid():
                errors = [error for errors in form.errors.values() for error in errors]
                return _done(request, tournament, errors[0])
            data = form.cleaned_data
            entry = services.register(
                tournament,
                me,
                user=data["member"],
                guest_name=data["guest"],
                bot_level=data.get("bot") or "",
            )
    except services.TournamentError as error:
        return _done(request, tournament, error.message)
    messages.success(request, _("%(name)s is registered.") % {"name": entry.name})
    return redirect(tournament)


@require_POST
def leave(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, me = get_club_for_member(request, slug)
    tournament = _tournament(club, pk)
    try:
        entry = services.leave(tournament, me, request.POST.get("entry", ""))
    except services.TournamentError as error:
        return _done(request, tournament, error.message)
    messages.success(request, _("%(name)s has left the tournament.") % {"name": entry.name})
    return redirect(tournament)


@require_POST
def start(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, me = get_club_for_member(request, slug)
    tournament = _tournament(club, pk)
    try:
        number = services.start_round(tournament, me)
    except services.TournamentError as error:
        return _done(request, tournament, error.message)
    messages.success(request, _("Round %(number)s is drawn.") % {"number": number})
    return redirect(tournament)


@require_GET
def round_detail(request: HttpRequest, slug: str, pk: int, number: int) -> HttpResponse:
    """A round as it was played: each table, its players' places, lives lost and points, and
    its hands to replay."""
    club, me = get_club_for_member(request, slug)
    tournament = _tournament(club, pk)
    page = reads.shown_page(tournament)
    drawn = next((read for read in page.rounds if read.number == number), None)
    if drawn is None:
        raise Http404
    context = {"club": club, "me": me, "tournament": tournament, "round": drawn}
    return render(request, "tournaments/round.html", context)


@require_GET
def leaderboard_csv(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, _me = get_club_for_member(request, slug)
    tournament = _tournament(club, pk)
    page = reads.shown_page(tournament)
    header = [
        _("Place"),
        _("Player"),
        _("Points"),
        _("Lives lost"),
        _("Tables played"),
        _("Final table"),
    ]
    rows = [
        [
            row.rank,
            row.name,
            row.points_shown,
            row.lives_lost,
            row.played,
            row.final_place or "",
        ]
        for row in page.standings
    ]
    filename = f"{club.slug}-{slugify(tournament.name) or 'tournament'}.csv"
    return csv_response(filename, header, rows)


@require_GET
def guest(request: HttpRequest, slug: str, pk: int, token: str) -> HttpResponse:
    """A guest's seat link: this phone speaks for her from now on, and shows her table."""
    club = get_object_or_404(Club, slug=slug)
    tournament = _tournament(club, pk)
    try:
        person = services.guest_of_link(tournament, token)
    except services.TournamentError:
        raise Http404 from None
    if request.user.is_authenticated:
        raise Http404
    request.session[GUEST_SESSION_KEY] = person.pk
    page = reads.page(tournament)
    entry = next(e for e in page.entries if e.guest_id == person.pk)
    context = {"tournament": tournament, "entry": entry, "table": page.table_of(entry.pk)}
    return render(request, "tournaments/guest.html", context)
