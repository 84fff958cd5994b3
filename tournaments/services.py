"""A tournament's changes: created, players registered and leaving, a round drawn and its
tables opened. Each is checked whole before anything is written, and written in one
transaction: a refusal (`TournamentError`, with a message for whoever asked) changes nothing.
The tables themselves are opened and changed only through games.services."""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from itertools import combinations
from typing import Any

from django.core import signing
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from accounts.models import DISPLAY_NAME_MAX, Guest, User
from accounts.names import clean_name
from clubs.models import HouseRuleProfile, Membership
from games.models import BotLevel, SlateKeepers
from games.services import slate, tables
from games.services.changes.seats import BOT_NAMES, bot_name
from games.services.tables import TableError
from tournaments import draw, reads
from tournaments.models import (
    POINTS_MAX,
    ROUNDS_MAX,
    DrawnRound,
    DrawnSeat,
    DrawnTable,
    Entry,
    Tournament,
)

FINAL_SIZES = (0, 4, 5)
GUEST_LINK_SALT = "tournaments.guest"


class TournamentError(Exception):
    """A refusal, with a message for whoever asked; nothing was changed."""

    def __init__(self, message: Any) -> None:
        super().__init__(str(message))
        self.message = message


def _admin(me: Membership) -> None:
    if not me.is_admin:
        raise TournamentError(_("Only the club's admins can do this."))


def parse_points(raw: object) -> list[int]:
    """Points per place written as "5, 3, 2, 1": whole numbers, none larger than the one
    before it."""
    text = str(raw).replace(";", ",").replace(" ", ",")
    parts = [part for part in text.split(",") if part]
    if not parts or len(parts) > 8 or not all(part.isascii() and part.isdigit() for part in parts):
        raise TournamentError(_("Write the points per place as whole numbers: 5, 3, 2, 1."))
    points = [int(part) for part in parts]
    if any(p > POINTS_MAX for p in points) or points != sorted(points, reverse=True):
        raise TournamentError(
            format_lazy(
                _("Points go down from the first place, and none is over {most}."),
                most=POINTS_MAX,
            )
        )
    return points


def create_tournament(
    me: Membership,
    *,
    name: str,
    profile: HouseRuleProfile | None,
    slate_tables: bool,
    rounds: int,
    table_size: int,
    points: Sequence[int],
    final_size: int,
) -> Tournament:
    _admin(me)
    club = me.club
    try:
        name = clean_name(name, 60, str(_("Give the tournament a name.")))
    except ValidationError as error:
        raise TournamentError(error.messages[0]) from None
    if profile is not None and profile.club_id != club.pk:
        raise TournamentError(_("That profile belongs to another club."))
    if not 1 <= rounds <= ROUNDS_MAX:
        raise TournamentError(
            format_lazy(_("A tournament has 1 to {most} rounds."), most=ROUNDS_MAX)
        )
    if table_size not in (3, 4, 5):
        raise TournamentError(_("A table seats 3, 4 or 5 players."))
    if final_size not in FINAL_SIZES:
        raise TournamentError(_("A final table seats the best 4 or 5."))
    return Tournament.objects.create(
        club=club,
        name=name,
        profile=profile or club.profiles.filter(is_default=True).first(),
        slate=slate_tables,
        rounds=rounds,
        table_size=table_size,
        points=list(points),
        final_size=final_size,
        created_by=me.user,
    )


def _locked(tournament: Tournament) -> Tournament:
    """The tournament's row, locked for the transaction: its changes one after another."""
    return Tournament.objects.select_for_update().select_related("club").get(pk=tournament.pk)


def register(
    tournament: Tournament,
    me: Membership,
    *,
    user: User | None = None,
    guest_name: str = "",
    bot_level: str = "",
) -> Entry:
    """A player registered: a member (an admin registers any; a member herself), a guest by
    name or a computer player (admins). Registered once a round is drawn, she plays from the
    next round."""
    if user is None or user.pk != me.user_id:
        _admin(me)
    given = [user is not None, bool(guest_name.strip()), bool(bot_level)]
    if sum(given) != 1:
        raise TournamentError(_("Register one player: a member, a guest or a computer player."))
    with transaction.atomic():
        tournament = _locked(tournament)
        page = reads.page(tournament)
        if page.regular_done >= tournament.rounds:
            raise TournamentError(_("The tournament has drawn its rounds: no more players."))
        entry = Entry(tournament=tournament, from_round=len(page.rounds) + 1)
        if user is not None:
            member = Membership.objects.filter(
                club=tournament.club, user=user, status=Membership.Status.ACTIVE
            ).exists()
            if not member:
                raise TournamentError(_("A player picked from the club must be its member."))
            if any(e.user_id == user.pk for e in page.entries):
                raise TournamentError(_("That member is registered already."))
            entry.user, entry.name = user, str(user)[:40]
        elif bot_level:
            if tournament.slate:
                raise TournamentError(_("Computer players play at app tables, not at a slate."))
            if bot_level not in BotLevel.values:
                raise TournamentError(_("Choose the computer player's level."))
            entry.bot_level = bot_level
            taken = sum(1 for e in page.entries if e.bot_level)
            # Short, as the player strip of a phone wants it: Anne, Bart, ..., Anne 2.
            lap = taken // len(BOT_NAMES)
            entry.name = bot_name(taken) + (f" {lap + 1}" if lap else "")
        else:
            try:
                required = str(_("Every player needs a name."))
                entry.name = clean_name(guest_name, DISPLAY_NAME_MAX, required)
            except ValidationError as error:
                raise TournamentError(error.messages[0]) from None
            entry.guest = Guest.objects.create(display_name=entry.name)
        if any(e.name.casefold() == entry.name.casefold() for e in page.entries):
            raise TournamentError(_("Two players cannot have the same name."))
        entry.save()
    return entry


def _entry(tournament: Tournament, entry_id: object) -> Entry:
    number = entry_id if isinstance(entry_id, int) else None
    if isinstance(entry_id, str) and entry_id.isascii() and entry_id.isdigit():
        number = int(entry_id[:18])
    entry = Entry.objects.filter(tournament=tournament, pk=number).first() if number else None
    if entry is None:
        raise TournamentError(_("There is no such player in this tournament."))
    return entry


def leave(tournament: Tournament, me: Membership, entry_id: object) -> Entry:
    """A player leaves (an admin takes anyone out; a member herself): drawn in no later round,
    her points kept."""
    with transaction.atomic():
        tournament = _locked(tournament)
        entry = _entry(tournament, entry_id)
        if entry.user_id != me.user_id:
            _admin(me)
        if entry.left:
            raise TournamentError(_("That player has left already."))
        entry.left = True
        entry.save(update_fields=["left"])
    return entry


def start_round(tournament: Tournament, me: Membership, rng: random.Random | None = None) -> int:
    """The next round drawn and its tables opened, each with its players seated (a live table
    keeps each seat for its player's phone; a slate table starts its rubber at once). The final
    table, when the rounds are played, seats the best of the leaderboard. Returns its number."""
    _admin(me)
    rng = rng or random.Random(secrets.randbits(64))
    with transaction.atomic():
        tournament = _locked(tournament)
        page = reads.page(tournament)
        if page.playing:
            raise TournamentError(_("A round is still being played: finish it first."))
        if page.over:
            raise TournamentError(_("The tournament has played all its rounds."))
        number = len(page.rounds) + 1
        by_id = {entry.pk: entry for entry in page.entries}
        if page.next_is_final:
            finalists = [row.entry_id for row in page.standings if not row.left]
            finalists = finalists[: tournament.final_size]
            if len(finalists) < draw.SMALLEST:
                raise TournamentError(_("Too few players are left for a final table."))
            groups = [finalists]
        else:
            active = [entry.pk for entry in page.active]
            try:
                sizes = draw.table_sizes(len(active), tournament.table_size)
            except draw.DrawError:
                raise TournamentError(
                    format_lazy(
                        _("{count} players cannot fill a table: a table needs at least 3."),
                        count=len(active),
                    )
                ) from None
            groups = draw.draw(active, sizes, met_before(page), rng)
        drawn = DrawnRound.objects.create(
            tournament=tournament, number=number, final=page.next_is_final
        )
        try:
            for index, group in enumerate(groups, 1):
                _open_table(tournament, me, drawn, index, [by_id[pk] for pk in group])
        except TableError as error:
            raise TournamentError(error.message) from None
    return number


def met_before(page: reads.Page) -> dict[draw.Pair, int]:
    """How often each pair of players shared a table in the rounds drawn so far."""
    met: dict[draw.Pair, int] = {}
    for read in page.rounds:
        for table in read.tables:
            for a, b in combinations([p.entry_id for p in table.players], 2):
                key = draw.pair(a, b)
                met[key] = met.get(key, 0) + 1
    return met


def _open_table(
    tournament: Tournament,
    me: Membership,
    drawn: DrawnRound,
    number: int,
    players: list[Entry],
) -> None:
    club, user = tournament.club, me.user
    if tournament.slate:
        table = slate.create_slate_table(
            club=club,
            user=user,
            players=[slate.SlatePlayer(p.name, p.user) for p in players],
            profile=tournament.profile,
            keepers=SlateKeepers.MEMBERS,
        )
    else:
        kept = {
            seat: tables.Reserved(
                name=p.name, user_id=p.user_id, guest_id=p.guest_id, bot_level=p.bot_level
            )
            for seat, p in enumerate(players)
        }
        table = tables.create_table(
            club=club,
            user=user,
            profile=tournament.profile,
            seat_count=len(players),
            take_seat=None,
            reserved=kept,
        )
        if all(p.bot_level for p in players):
            # Nobody's phone would start it: the computer players begin at once.
            tables.start_rubber(table.pk, user)
    at = DrawnTable.objects.create(round=drawn, number=number, table=table)
    DrawnSeat.objects.bulk_create(
        DrawnSeat(round=drawn, table=at, entry=p, seat=seat) for seat, p in enumerate(players)
    )


def guest_link(entry: Entry) -> str:
    """The token of a guest's seat link: her phone opens it to hold her seats at live tables."""
    # No moment in it: the same link whenever it is shown, good for the whole tournament.
    signer = signing.Signer(salt=GUEST_LINK_SALT)
    return signer.sign_object({"t": entry.tournament_id, "g": entry.guest_id})


def guest_of_link(tournament: Tournament, token: str) -> Guest:
    """The guest a seat link names, or TournamentError for a link forged or of another
    tournament."""
    try:
        data = signing.Signer(salt=GUEST_LINK_SALT).unsign_object(token)
    except (signing.BadSignature, ValueError):
        raise TournamentError(_("That link is not valid.")) from None
    named = data.get("g") if isinstance(data, dict) else None
    if not isinstance(named, int) or data.get("t") != tournament.pk:
        raise TournamentError(_("That link is not valid."))
    entry = Entry.objects.filter(
        tournament=tournament, guest_id=named, guest__user__isnull=True
    ).first()
    if entry is None or entry.guest is None:
        raise TournamentError(_("That link is not valid."))
    return entry.guest
