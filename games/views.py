"""Table pages and a club's front page: thin edges that check access first, then call
games.services."""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.csp import CSP, build_policy
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.guests import SESSION_KEY as GUEST_SESSION_KEY
from accounts.guests import get_guest, get_or_create_guest
from accounts.models import Guest
from clubs.access import get_club_for_member
from clubs.qr import qr_svg
from clubs.reads import member_lists
from games import throttle
from games.forms import CodeForm, JoinForm, SlateForm, TableForm
from games.models import SeatRequest, Table
from games.services import member_seats, slate, tables
from games.services.access import is_admin, is_member, table_access
from games.services.club_page import open_tables, standings
from games.services.conf import seconds
from games.services.snapshots import load_state
from games.services.state import HOLDER_SESSION_KEY, Holder
from games.services.store import one_snapshot
from games.services.tables import TableError
from games.view.context import Viewer, choose_active, render_error, render_view
from games.view.slate_html import render_slate


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"code_form": CodeForm()})


def allow_own_websocket(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """The site's policy, with this page's own websocket origin named in connect-src: 'self'
    covers a same-origin ws:/wss: only in CSP Level 3 browsers, and Safari before 16 is not one.
    Django's middleware keeps a policy header the view has set."""
    scheme = "wss" if request.is_secure() else "ws"
    policy = {**settings.SECURE_CSP, "connect-src": [CSP.SELF, f"{scheme}://{request.get_host()}"]}
    response.headers[CSP.HEADER_ENFORCE] = build_policy(policy)
    return response


def holder_key(request: HttpRequest) -> str:
    """This browser's key for the seats it holds (a shared phone holds several)."""
    key = request.session.get(HOLDER_SESSION_KEY)
    if not key:
        key = secrets.token_urlsafe(24)
        request.session[HOLDER_SESSION_KEY] = key
    return str(key)


def _table(request: HttpRequest, code: str) -> Table:
    """The table with this code; 404 when there is none. A wrong code counts against the
    client's throttle (TOEPEN_CODE_GUESS_RATE), so codes cannot be guessed by the thousand."""
    throttle.take(request, "code")
    table = get_object_or_404(Table.objects.select_related("club"), code=code.upper())
    throttle.give_back(request, "code")
    return table


@require_GET
def club_page(request: HttpRequest, slug: str) -> HttpResponse:
    """A club's front page: its members and house-rule profiles, its open tables and its
    standings. Here, not in clubs, because it shows the club's play."""
    if not request.user.is_authenticated:
        # Every address looks alike to a stranger: sign in first, whether the club exists or not.
        return redirect_to_login(request.get_full_path())
    club, me = get_club_for_member(request, slug)
    context = member_lists(club, me)
    context.update(
        {
            "profiles": club.profiles.all(),
            "tables": open_tables(club),
            "standings": standings(club),
            # What she holds to be seated on another player's phone (a shared phone).
            "seat_requests": member_seats.asked_of(request.user, club),
            "seat_code": member_seats.code_of(request.user),
        }
    )
    return render(request, "clubs/club_detail.html", context)


@require_POST
@login_required
def seat_code(request: HttpRequest, slug: str) -> HttpResponse:
    """A member asks for a fresh seat code, to be seated on another player's phone."""
    club, _membership = get_club_for_member(request, slug)
    member_seats.new_code(request.user)  # type: ignore[arg-type]
    return redirect(f"{reverse('games:club', args=[club.slug])}#seat-code")


@require_POST
@login_required
def seat_request(request: HttpRequest, pk: int) -> HttpResponse:
    """A member answers a request to seat her on another player's phone: only her own."""
    asked = SeatRequest.objects.filter(pk=pk, user=request.user).select_related("table__club")
    found = asked.first()
    if found is None:
        raise Http404
    back = reverse("games:club", args=[found.table.club.slug])
    accept = request.POST.get("answer") == "accept"
    try:
        table = member_seats.answer(pk, request.user, accept)
    except TableError as error:
        messages.error(request, error.message)
    else:
        if table is not None:
            messages.success(
                request,
                _("You are seated at table %(code)s, on the phone that asked.")
                % {"code": table.code},
            )
    return redirect(back)


@login_required
def table_new(request: HttpRequest, slug: str) -> HttpResponse:
    club, _membership = get_club_for_member(request, slug)
    form = TableForm(request.POST or None, club=club)
    if request.method == "POST" and form.is_valid():
        try:
            table = tables.create_table(
                club=club,
                user=request.user,  # type: ignore[arg-type]
                profile=form.cleaned_data["profile"],
                seat_count=form.cleaned_data["seat_count"],
                bots=form.bots(),
                allow_spectators=form.cleaned_data["allow_spectators"],
                holder_key=holder_key(request),
            )
        except TableError as error:
            form.add_error(None, error.message)
        else:
            return redirect(table)
    return render(request, "games/table_new.html", {"club": club, "form": form})


def table_page(request: HttpRequest, code: str) -> HttpResponse:
    """The table: seated players and watching members see it live; anyone with the code may
    take a free seat (guests too); nobody else learns anything about it."""
    with one_snapshot():
        table = _table(request, code)
        state = load_state(table)
    if table.slate:
        return redirect("games:slate", table.code)
    access = table_access(state, Holder.from_session(request.session, request.user), request.user)
    seats = access.seats
    free = [seat.index for seat in state.seats if seat.is_free]
    waiting = table.status in (Table.Status.WAITING, Table.Status.RUBBER_OVER)
    if not access.allowed and not (free and waiting):
        return _no_room(request, table)
    viewer = Viewer(
        seats=seats,
        active=choose_active(state, seats, None),
        can_start=access.can_start,
        can_close=access.can_close,
    )
    guest = get_guest(request)
    default_name = (
        str(request.user)
        if request.user.is_authenticated
        else (guest.display_name if guest else "")
    )
    invite_url = request.build_absolute_uri(table.get_absolute_url())
    context = {
        "table": table,
        "status": table.status,
        "viewer_seats": seats,
        # The view the socket then keeps fresh, written as every push writes it.
        "live_html": mark_safe(render_view(state, viewer, get_token(request))),  # noqa: S308
        "ws_path": f"/ws/tables/{table.code}/",
        "heartbeat": f"{seconds('TOEPEN_HEARTBEAT_SECONDS'):g}",
        "join_form": JoinForm(initial={"name": "" if seats else default_name}),
        # A second player on this phone may be a member of the club, who confirms it herself.
        "seat_members": member_seats.members_to_seat(table, request.user) if seats else [],
        "seat_asked": member_seats.asked_from(table, holder_key(request)) if seats else [],
        "free_seats": free if waiting else [],
        "invite_url": invite_url,
        "qr": qr_svg(invite_url),
    }
    holder_key(request)
    return allow_own_websocket(request, render(request, "games/table.html", context))


def _no_room(request: HttpRequest, table: Table) -> HttpResponse:
    """A table with no seat for this visitor, who may not watch it: say why (full, or a rubber
    on) and where watching is possible, and nothing else of it (no names, no cards)."""
    user = request.user
    member = user.is_authenticated and is_member(user, table.club)
    context = {
        "code": table.code,
        "playing": table.status == Table.Status.PLAYING,
        # Members of the club watch where the table lets them: a visitor not signed in may be
        # one of them.
        "sign_in_to_watch": table.allow_spectators and not user.is_authenticated,
        "members_only": user.is_authenticated and not member,
        "no_watchers": member and not table.allow_spectators,
    }
    return render(request, "games/table_no_room.html", context)


@require_POST
def table_join(request: HttpRequest, code: str) -> HttpResponse:
    throttle.take(request, "join")
    table = _table(request, code)
    form = JoinForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            messages.error(request, errors[0])
        return redirect(table)
    name = form.cleaned_data["name"]
    key = holder_key(request)
    state = load_state(table)
    already = state.held_by(Holder.from_session(request.session, request.user))
    free = [seat.index for seat in state.seats if seat.is_free]
    index = form.cleaned_data["seat"]
    if index is None:
        index = free[0] if free else -1
    session_guest = request.session.get(GUEST_SESSION_KEY)
    try:
        # The guest is made in the seat's transaction: a refused seat leaves no guest behind.
        with transaction.atomic():
            if request.user.is_authenticated and not already:
                holder = Holder(user_id=request.user.pk, key=key)
            elif not already:
                guest = get_or_create_guest(request, name)
                holder = Holder(guest_id=guest.pk, key=key)
            else:
                # Another player on this phone (a shared phone): a guest of her own.
                companion = Guest.objects.create(display_name=" ".join(name.split())[:40])
                holder = Holder(guest_id=companion.pk, key=key)
            tables.take_seat(table.pk, index, holder, name)
    except (TableError, ValueError) as error:
        # A guest made and rolled back may still be named in the session; its id can be
        # given to someone else's guest next (SQLite reuses it), so the session forgets it.
        if session_guest is None:
            request.session.pop(GUEST_SESSION_KEY, None)
        messages.error(request, error.message if isinstance(error, TableError) else str(error))
    return redirect(table)


@require_POST
@login_required
def table_member(request: HttpRequest, code: str) -> HttpResponse:
    """This phone's member seats another member of the club on it: at once with her seat code,
    else she is asked on her own phone."""
    throttle.take(request, "join")
    table = _table(request, code)
    holder = Holder.from_session(request.session, request.user)
    raw = request.POST.get("member", "")
    member_id = int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 19 else None
    try:
        done = member_seats.ask(
            table, request.user, holder, member_id, request.POST.get("code", "")[:20]
        )
    except TableError as error:
        messages.error(request, error.message)
    else:
        if done == "asked":
            messages.success(
                request,
                _(
                    "Asked: she accepts on her own phone (her club page), or type her seat code "
                    "here."
                ),
            )
    return redirect(table)


def _table_change(request: HttpRequest, table: Table, change: Callable[[], object]) -> HttpResponse:
    """A change asked of the table from its page. From the live page (htmx) a refusal comes back
    as the page's refusal box, and the new view over the socket; without htmx, the table page
    again, with the refusal as a message."""
    try:
        change()
    except TableError as error:
        if request.headers.get("HX-Request"):
            # 200: htmx swaps no part of a 4xx answer, and this one is a message to show.
            return HttpResponse(render_error(str(error.message), error.code))
        messages.error(request, error.message)
        return redirect(table)
    if request.headers.get("HX-Request"):
        return HttpResponse(status=204)
    return redirect(table)


@require_POST
def table_leave(request: HttpRequest, code: str, index: int) -> HttpResponse:
    """A player gets up (between hands, or between rubbers)."""
    table = _table(request, code)
    holder = Holder.from_session(request.session, request.user)
    return _table_change(request, table, lambda: tables.leave_seat(table.pk, index, holder))


@login_required
def table_close(request: HttpRequest, code: str) -> HttpResponse:
    """The table's creator or a club admin closes it. The page asks first, saying what is lost
    (a rubber under way is abandoned); only its form, which carries the confirmation, closes a
    table with a rubber under way."""
    table = _table(request, code)
    user = request.user
    if request.method == "POST":
        confirmed = request.POST.get("confirm") == "abandon"
        try:
            tables.close_table(table.pk, user, confirmed=confirmed)  # type: ignore[arg-type]
        except TableError as error:
            if error.code != "confirm_close":
                messages.error(request, error.message)
                return redirect(table)
            if request.headers.get("HX-Request"):
                response = HttpResponse(status=204)
                response["HX-Redirect"] = reverse("games:close", args=[table.code])
                return response
        else:
            if request.headers.get("HX-Request"):
                return HttpResponse(status=204)
            return redirect(table)
    elif request.method != "GET":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    if table.created_by_id != user.pk and not is_admin(user, table.club_id):  # type: ignore[arg-type]
        raise PermissionDenied
    state = load_state(table)
    rubber = state.rubber if tables.rubber_under_way(state) else None
    lives = list(rubber.lives) if rubber is not None else []
    context = {
        "table": table,
        "closed": table.status == Table.Status.CLOSED,
        "rubber": rubber,
        "hands": state.hand_row.number if rubber is not None and state.hand_row else 0,
        "players": [
            (seat.name, lives[seat.index] if seat.index < len(lives) else None)
            for seat in state.seats
        ],
    }
    return render(request, "games/table_close.html", context)


@require_POST
def table_start(request: HttpRequest, code: str) -> HttpResponse:
    """Any player at the table starts the rubber (guests too)."""
    table = _table(request, code)
    holder = Holder.from_session(request.session, request.user)
    return _table_change(request, table, lambda: tables.start_rubber(table.pk, holder))


def play_code(request: HttpRequest) -> HttpResponse:
    """Type a table's code to join it."""
    form = CodeForm(request.GET or None)
    if form.is_valid():
        throttle.take(request, "code")
        if Table.objects.filter(code=form.cleaned_data["code"]).exists():
            throttle.give_back(request, "code")
            return redirect("games:table", form.cleaned_data["code"])
        form.add_error("code", _("There is no table with that code."))
    return render(request, "games/play.html", {"form": form})


@login_required
def slate_new(request: HttpRequest, slug: str) -> HttpResponse:
    """A member opens a slate table: real cards at the pub, the app keeps the slate."""
    club, _membership = get_club_for_member(request, slug)
    form = SlateForm(request.POST or None, club=club)
    if request.method == "POST" and form.is_valid():
        try:
            table = slate.create_slate_table(
                club=club,
                user=request.user,  # type: ignore[arg-type]
                players=form.players(),
                profile=form.cleaned_data["profile"],
                keepers=form.cleaned_data["keepers"],
            )
        except TableError as error:
            form.add_error(None, error.message)
        else:
            return redirect("games:slate", table.code)
    return render(request, "games/slate_new.html", {"club": club, "form": form})


def slate_page(request: HttpRequest, code: str) -> HttpResponse:
    """A slate table: anyone with its code follows it live; its keepers write on it."""
    with one_snapshot():
        table = _table(request, code)
        if not table.slate:
            return redirect(table)
        state = load_state(table)
    can_keep = slate.may_keep(table, request.user)
    context = {
        "table": table,
        "live_html": mark_safe(render_slate(state, can_keep)),  # noqa: S308
        "ws_path": f"/ws/slates/{table.code}/",
        "heartbeat": f"{seconds('TOEPEN_HEARTBEAT_SECONDS'):g}",
        "qr": qr_svg(request.build_absolute_uri(reverse("games:slate", args=[table.code]))),
    }
    return allow_own_websocket(request, render(request, "games/slate.html", context))
