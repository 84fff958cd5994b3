"""Club nights, seasons, players and hands. Each view's first line checks access: the club's
members only (404 for anyone else); a guest sees only the finished hands she was dealt in."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    StreamingHttpResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.guests import get_guest
from accounts.models import User
from clubs.access import get_club_for_admin, get_club_for_member
from clubs.models import Club, Membership
from games.models import PlayedHand
from nights import plots, reads, services
from nights.forms import NightSettingsForm, SeasonForm
from nights.models import Night, Season
from nights.replay import Unreplayable, step_view

require_form_methods = require_http_methods(["GET", "POST"])

# A whole number as the URLs' `<int:...>` reads one: ASCII digits only (`str.isdigit` takes "²"
# and "①", which `int` then refuses) and at most 18 of them (a database's bigint; SQLite cannot
# even be asked about a larger one).
_WHOLE_NUMBER = re.compile(r"[0-9]{1,18}")


def _whole_number(raw: str) -> int | None:
    """An id or a number from a query string or a form; None for anything else."""
    return int(raw) if _WHOLE_NUMBER.fullmatch(raw) else None


def _number_from_url(request: HttpRequest, name: str) -> int | None:
    """The query string's number `name`, None without one; a page not found when it is not a
    whole number, as for a path whose id is not one."""
    raw = request.GET.get(name)
    if not raw:
        return None
    number = _whole_number(raw)
    if number is None:
        raise Http404
    return number


def _night(club: Club, pk: int) -> Night:
    return get_object_or_404(Night.objects.select_related("club"), club=club, pk=pk)


# -- the hub ----------------------------------------------------------------------------------


@require_GET
def index(request: HttpRequest, slug: str) -> HttpResponse:
    club, me = get_club_for_member(request, slug)
    conf = reads.conf_of(club)
    nights = list(Night.objects.filter(club=club).order_by("-opened_at")[:30])
    return render(
        request,
        "nights/index.html",
        {
            "club": club,
            "me": me,
            "conf": conf,
            "nights": nights,
            "open_night": next((n for n in nights if n.is_open), None),
            "may_open": services.may_open_nights(me, conf),
            "seasons": Season.objects.filter(club=club)[:20],
            "ratings": reads.club_ratings(club),
        },
    )


@require_POST
def night_open(request: HttpRequest, slug: str) -> HttpResponse:
    club, me = get_club_for_member(request, slug)
    try:
        night = services.open_night(me)
    except services.NightError as error:
        messages.error(request, str(error))
        return redirect("nights:index", slug=club.slug)
    messages.success(request, _("The night is open: tables opened now belong to it."))
    return redirect(night)


@require_form_methods
def night_settings(request: HttpRequest, slug: str) -> HttpResponse:
    club, _me = get_club_for_admin(request, slug)
    conf = reads.conf_of(club)
    initial = {
        "king_wins": conf.king_wins,
        "members_open_nights": conf.members_open_nights,
        "round_amount": conf.round_amount,
        "currency": club.currency,
    }
    form = NightSettingsForm(request.POST or None, initial=initial)
    if request.method == "POST":
        if form.is_valid():
            services.update_settings(club, **form.cleaned_data)
            messages.success(request, _("Saved."))
            return redirect("nights:index", slug=club.slug)
        return render(request, "nights/settings.html", {"club": club, "form": form}, status=400)
    return render(request, "nights/settings.html", {"club": club, "form": form})


# -- a night ----------------------------------------------------------------------------------


def _night_context(request: HttpRequest, club: Club, me: Membership, night: Night) -> dict:
    page = reads.night_page(night)
    conf = reads.conf_of(club)
    return {
        "club": club,
        "me": me,
        "night": night,
        "page": page,
        "hands_url": reverse("nights:hands", args=[club.slug]),
        "may_close": night.is_open
        and (services.may_open_nights(me, conf) or night.opened_by_id == me.user_id),
        # The paid rounds this member may undo (she ticked them, or she is an admin).
        "untickable": {
            owed.pk
            for owed in page.rounds
            if owed.paid_at is not None and services.may_untick(me, owed)
        },
        "untickable_payments": {
            payment.pk
            for payment in page.payments
            if payment.paid_at is not None and (me.is_admin or payment.paid_by_id == me.user_id)
        },
    }


@require_GET
def night_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, me = get_club_for_member(request, slug)
    night = _night(club, pk)
    return render(request, "nights/night.html", _night_context(request, club, me, night))


@require_GET
def night_live(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The live part of the night's page (or of its big screen), polled by htmx."""
    club, me = get_club_for_member(request, slug)
    night = _night(club, pk)
    template = "nights/screen.html#board" if request.GET.get("view") == "screen" else None
    return render(
        request,
        template or "nights/night.html#live",
        _night_context(request, club, me, night),
    )


@require_GET
def night_screen(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The night on the pub's big screen: landscape, large, updating by itself."""
    club, me = get_club_for_member(request, slug)
    night = _night(club, pk)
    return render(request, "nights/screen.html", _night_context(request, club, me, night))


def _back_to_night(
    request: HttpRequest, club: Club, me: Membership, night: Night, error: str = ""
) -> HttpResponse:
    if request.htmx:
        night.refresh_from_db()
        context = _night_context(request, club, me, night)
        context["error"] = error
        return render(request, "nights/night.html#live", context, status=200)
    if error:
        messages.error(request, error)
    return redirect(night)


@require_POST
def round_paid(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """A round ticked as paid, or a tick undone: the night's one form, the round named by the
    button pressed (`round` ticks it, `unpaid` undoes the tick)."""
    club, me = get_club_for_member(request, slug)
    night = _night(club, pk)
    undo = "unpaid" in request.POST
    raw = request.POST.get("unpaid" if undo else "round", "")
    round_id = _whole_number(raw)
    try:
        if undo:
            services.untick_round(night, round_id, me)
        else:
            services.tick_round(night, round_id, me.user)
    except services.NightError as error:
        return _back_to_night(request, club, me, night, str(error))
    return _back_to_night(request, club, me, night)


@require_POST
def payment_paid(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """A payment of the night's settlement ticked as paid, or a tick undone, as a round is."""
    club, me = get_club_for_member(request, slug)
    night = _night(club, pk)
    undo = "unpaid" in request.POST
    payment_id = _whole_number(request.POST.get("unpaid" if undo else "payment", ""))
    try:
        if undo:
            services.untick_payment(night, payment_id, me)
        else:
            services.tick_payment(night, payment_id, me.user)
    except services.NightError as error:
        return _back_to_night(request, club, me, night, str(error))
    return _back_to_night(request, club, me, night)


@require_POST
def night_close(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, me = get_club_for_member(request, slug)
    night = _night(club, pk)
    try:
        services.close_night(me, night)
    except services.NightError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("The night is closed."))
    return redirect(night)


# Where a spreadsheet may begin a cell in a text: at its start and after any separator a reader
# may split on ("," in English, ";" in Dutch and German, a tab, a line break), past the spaces
# and quotes it may trim; and what begins a formula there.
_FORMULA_START = re.compile(r'(^|[,;\t\r\n])([ "]*)(?=[=+\-@\t\r])')
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _csv_cell(value: Any) -> Any:
    """A text as a spreadsheet shows it, never as a formula: an apostrophe before each formula
    start, whatever the reader's separator (`x;=1+1;` gives `x;'=1+1;`). A number stays one."""
    if isinstance(value, str) and not _NUMBER.fullmatch(value):
        return _FORMULA_START.sub(r"\1\2'", value)
    return value


def csv_response(filename: str, header: list[str], rows: list[list[Any]]) -> HttpResponse:
    """A CSV download whose cells a spreadsheet never reads as a formula (`_csv_cell`): the
    night's, the season's and a tournament's exports."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    writer = csv.writer(response)
    writer.writerow(header)
    for row in rows:
        writer.writerow([_csv_cell(value) for value in row])
    return response


STANDING_COLUMNS = (
    ("rubbers", "Rubbers"),
    ("won", "Won"),
    ("survived", "Survived"),
    ("lost", "Lost"),
    ("lives_lost", "Lives lost"),
    ("hands", "Hands"),
    ("knocks", "Knocks"),
    ("knocks_won", "Knocks that won"),
)


def _standing_header() -> list[str]:
    labels = {
        "rubbers": _("Rubbers"),
        "won": _("Won"),
        "survived": _("Survived"),
        "lost": _("Lost"),
        "lives_lost": _("Lives lost"),
        "hands": _("Hands"),
        "knocks": _("Knocks"),
        "knocks_won": _("Knocks that won"),
    }
    return [labels[name] for name, _label in STANDING_COLUMNS]


@require_GET
def night_csv(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, _me = get_club_for_member(request, slug)
    night = _night(club, pk)
    rows = [
        [row["name"]] + [row[name] or 0 for name, _label in STANDING_COLUMNS]
        for row in reads.night_standings(night)
    ]
    filename = f"{club.slug}-{timezone.localtime(night.opened_at):%Y-%m-%d}-{night.pk}.csv"
    return csv_response(filename, [_("Player"), *_standing_header()], rows)


# -- seasons ----------------------------------------------------------------------------------


@require_form_methods
def seasons(request: HttpRequest, slug: str) -> HttpResponse:
    club, me = get_club_for_member(request, slug)
    form = SeasonForm(request.POST or None) if me.is_admin else None
    if request.method == "POST":
        if form is None:
            raise PermissionDenied(_("Only the club's admins can do this."))
        if form.is_valid():
            data = form.cleaned_data
            season = services.create_season(
                club, data["name"], data["starts_on"], data["ends_on"], form.points()
            )
            return redirect(season)
    context = {"club": club, "me": me, "form": form, "seasons": Season.objects.filter(club=club)}
    status = 400 if request.method == "POST" else 200
    return render(request, "nights/seasons.html", context, status=status)


@require_GET
def season_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, me = get_club_for_member(request, slug)
    season = get_object_or_404(Season.objects.select_related("club"), club=club, pk=pk)
    return render(
        request,
        "nights/season.html",
        {
            "club": club,
            "me": me,
            "season": season,
            "standings": reads.season_standings(season),
            "nights_money": reads.season_money(season),
        },
    )


@require_GET
def season_csv(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, _me = get_club_for_member(request, slug)
    season = get_object_or_404(Season.objects.select_related("club"), club=club, pk=pk)
    rows = [
        [row["name"], row["points"], f"{row['per_rubber']:.2f}"]
        + [row[name] or 0 for name, _label in STANDING_COLUMNS]
        + ([f"{row['rating'].mu:.2f}", f"{row['rating'].sigma:.2f}"] if row["rating"] else ["", ""])
        for row in reads.season_standings(season)
    ]
    header = [
        _("Member"),
        _("Points"),
        _("Points per rubber"),
        *_standing_header(),
        _("Rating"),
        _("Uncertainty"),
    ]
    return csv_response(f"{club.slug}-{slugify(season.name) or 'season'}.csv", header, rows)


# -- guests -----------------------------------------------------------------------------------


def _members(club: Club) -> list[Membership]:
    return list(
        Membership.objects.filter(club=club, status=Membership.Status.ACTIVE)
        .select_related("user")
        .order_by("user__display_name", "user__username")
    )


@require_GET
def guests(request: HttpRequest, slug: str) -> HttpResponse:
    """The guests who played at the club's tables, each with a form to merge her into a
    member. Admins only."""
    club, me = get_club_for_admin(request, slug)
    members = _members(club)
    names = {m.user_id: str(m.user) for m in members}
    rows = services.club_guests(club)
    for row in rows:
        row["member"] = names.get(row["user_id"], "") if row["user_id"] else ""
    return render(
        request,
        "nights/guests.html",
        {"club": club, "me": me, "guests": rows, "members": members},
    )


@require_POST
def guest_merge(request: HttpRequest, slug: str) -> HttpResponse:
    """Merge a guest into a member: first a page that says what will be brought together, then,
    confirmed, the merge and the club counted again. Admins only; a forged or foreign id is
    refused with why, and changes nothing."""
    club, me = get_club_for_admin(request, slug)
    guest_id = _whole_number(request.POST.get("guest", ""))
    user_id = _whole_number(request.POST.get("member", ""))
    try:
        if request.POST.get("confirm") != "merge":
            merge = services.check_merge(me, guest_id, user_id)
            return render(
                request, "nights/guest_merge.html", {"club": club, "me": me, "merge": merge}
            )
        merge = services.merge_guest(me, guest_id, user_id)
    except services.NightError as error:
        messages.error(request, str(error))
        return redirect("nights:guests", slug=club.slug)
    messages.success(
        request,
        _("%(guest)s now counts for %(member)s: the club's figures are counted again.")
        % {"guest": merge.guest.display_name, "member": merge.member},
    )
    return redirect("nights:guests", slug=club.slug)


# -- a player ---------------------------------------------------------------------------------


@require_GET
def player(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    club, me = get_club_for_member(request, slug)
    user = get_object_or_404(User, pk=user_id)
    is_member = Membership.objects.filter(
        club=club, user=user, status=Membership.Status.ACTIVE
    ).exists()
    if not is_member and not reads.player_figures(club, user).exists():
        raise Http404
    page = reads.player_page(club, user)
    return render(
        request,
        "nights/player.html",
        {
            "club": club,
            "me": me,
            "player": user,
            "page": page,
            "months_plot": plots.month_bars(page.months),
            "rating_plot": plots.rating_line(page.ratings),
        },
    )


# -- hands ------------------------------------------------------------------------------------


def _viewer(request: HttpRequest, slug: str) -> tuple[Club, Membership | None]:
    """A member of the club, or someone who played in it as a guest; 404 for anyone else."""
    try:
        return get_club_for_member(request, slug)
    except Http404:
        club = get_object_or_404(Club, slug=slug)
        if get_guest(request) is None and not request.user.is_authenticated:
            raise
        return club, None


def _hand(request: HttpRequest, slug: str, pk: int) -> tuple[Club, Membership | None, PlayedHand]:
    """A finished hand of the club that the viewer may see; 404 for any other (one being
    played, another club's, or one a guest was not dealt in)."""
    club, me = _viewer(request, slug)
    hand = reads.finished_hands(club).select_related("rubber__table").filter(pk=pk).first()
    if hand is None:
        raise Http404
    if me is None and not reads.guest_played(hand, request.user, get_guest(request)):
        raise Http404
    return club, me, hand


@require_GET
def hands(request: HttpRequest, slug: str) -> HttpResponse:
    club, me = _viewer(request, slug)
    rubber = _number_from_url(request, "rubber")
    if me is None:
        shown = reads.guest_hands(club, request.user, get_guest(request))
    elif rubber is not None:
        shown = list(
            reads.finished_hands(club)
            .filter(rubber_id=rubber)
            .select_related("rubber__table")
            .order_by("number")
        )
    else:
        shown = list(
            reads.finished_hands(club)
            .select_related("rubber__table")
            .order_by("-finished_at", "-pk")[:50]
        )
    if me is None and not shown:
        raise Http404
    return render(request, "nights/hands.html", {"club": club, "me": me, "hands": shown})


@require_GET
def hand_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, me, hand = _hand(request, slug, pk)
    step = _number_from_url(request, "step") or 0
    try:
        view = step_view(hand.record, step)
    except Unreplayable:
        raise Http404 from None
    context = {"club": club, "me": me, "hand": hand, "view": view}
    if request.htmx:
        return render(request, "nights/hand.html#step", context)
    return render(request, "nights/hand.html", context)


@require_GET
def hand_record(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, _me, hand = _hand(request, slug, pk)
    body = json.dumps(hand.record, ensure_ascii=False, indent=1)
    response = HttpResponse(body + "\n", content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{club.slug}-hand-{hand.pk}.json"'
    return response


@require_GET
def hands_export(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    """Every finished hand of the club, one `toepen-hand/1` record per line (toepen_replay
    reads it as it is). Admins only."""
    club, _me = get_club_for_admin(request, slug)
    records = reads.finished_hands(club).order_by("pk").values_list("record", flat=True)

    def lines() -> Iterator[str]:
        for record in records.iterator(chunk_size=500):
            yield json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"

    response = StreamingHttpResponse(lines(), content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{club.slug}-hands.jsonl"'
    return response
