"""Every change to nights, seasons, rounds and the figures, checked and written in one go.

A rubber's end is booked by `record_rubber`, inside the transaction that ends it (connected to
games.services.events.rubber_finished): each player's figures, counted from the hand records
through the engine; the ratings; the rounds owed; the night's Toepkoning. `rebuild` books every
rubber of a club again, in the order they ended, through the same `settle`, so it gives the same
figures. Views show a NightError's message to whoever asked; nothing is changed then.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Count, F, Max, PositiveIntegerField, Value
from django.db.models.expressions import CombinedExpression
from django.utils import timezone
from django.utils.translation import gettext as _
from openskill.models import PlackettLuce

from accounts.models import Guest, User
from accounts.names import clean_name
from clubs.models import Club, Membership
from clubs.money import CURRENCIES
from games.engine.pot import pot_cents, shares, stakes
from games.models import PlayedHand, Rubber, RubberPlayer, Seat, Table
from games.services.prepared import Prepared
from nights.figures import FIGURES, Tally, rubber_tallies
from nights.models import (
    KING_WINS_MAX,
    POINTS_MAX,
    SEASON_NAME_MAX,
    BookingDue,
    ClubNights,
    Night,
    Payment,
    Place,
    PlayerDay,
    PlayerRubber,
    Rating,
    Round,
    Season,
)
from nights.money import settle_up

log = logging.getLogger(__name__)

# A night's version goes up at every rubber's end. `F("version") + 1` would make two new model
# fields each time (one for the 1, one for the sum), and each new field costs every field class
# its type cache in the long run (see games.services.access.club_role): the types are given.
_VERSION = PositiveIntegerField()
NEXT_VERSION = CombinedExpression(
    F("version"), "+", Value(1, output_field=_VERSION), output_field=_VERSION
)

MODEL = PlackettLuce()
SEASON_DAYS_MAX = 3 * 366


class NightError(Exception):
    """A change the club's rules do not allow; the message is for the person who asked."""


# -- who a player is --------------------------------------------------------------------------


@dataclass(frozen=True)
class Sitter:
    """Who sat in a seat of a rubber (a games.RubberPlayer row, read as plain values)."""

    participant_id: int
    rubber_id: int
    seat: int
    name: str
    user_id: int | None
    guest_id: int | None
    guest_user_id: int | None
    bot_level: str


SITTER_FIELDS = ("pk", "rubber_id", "seat", "name", "user_id", "guest_id", "guest__user_id")


def player_key(sitter: Sitter) -> tuple[str, int | None]:
    """The player's key and member: a guest who signed up counts for her account."""
    if sitter.user_id is not None:
        return f"u:{sitter.user_id}", sitter.user_id
    if sitter.guest_id is not None:
        if sitter.guest_user_id is not None:
            return f"u:{sitter.guest_user_id}", sitter.guest_user_id
        return f"g:{sitter.guest_id}", None
    return f"b:{sitter.name}", None


# -- the club's settings and its lock ---------------------------------------------------------


def _lock_club(club_id: int) -> ClubNights:
    """The club's settings row, locked: rubber ends of one club are booked one after another,
    so the Toepkoning is crowned once and each rating moves from the one before."""
    for conf in _CONF(club_id):
        return conf
    try:
        with transaction.atomic():
            ClubNights.objects.create(club_id=club_id)
    except IntegrityError:
        pass  # made by a rubber that ended at the same moment
    return ClubNights.objects.select_for_update().get(club_id=club_id)


# -- booking a rubber -------------------------------------------------------------------------


@dataclass
class Seated:
    participant: Sitter
    key: str
    user_id: int | None
    place: int
    tally: Tally


@dataclass
class RatingState:
    mu: float
    sigma: float
    rubbers: int
    name: str
    user_id: int | None


@dataclass
class Settlement:
    figures: list[PlayerRubber] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)


def rubber_winner(rubber: Rubber) -> int | None:
    """The table seat that won the rubber: the engine's winner (rules.md 2; under `first_out`
    the most lives left among those not out, a tie naming nobody). A `first_out` row that
    names no winner is counted the same way."""
    if rubber.winner is not None:
        return rubber.winner
    standing = [seat for seat in range(len(rubber.lives)) if seat not in rubber.losers]
    if not standing:
        return None
    best = max(rubber.lives[seat] for seat in standing)
    leaders = [seat for seat in standing if rubber.lives[seat] == best]
    return leaders[0] if len(leaders) == 1 else None


def _place(rubber: Rubber, seat: int, winner: int | None) -> int:
    if seat == winner:
        return Place.WON
    if seat in rubber.losers:
        return Place.LOST
    return Place.SURVIVED


def _seated(rubber: Rubber, participants: Sequence[Sitter], hands: Any) -> list[Seated]:
    seats = max((p.seat for p in participants), default=-1) + 1
    tallies = rubber_tallies(hands, seats)
    winner = rubber_winner(rubber)
    seated = []
    for participant in participants:
        key, user_id = player_key(participant)
        place = _place(rubber, participant.seat, winner)
        seated.append(Seated(participant, key, user_id, place, tallies[participant.seat]))
    return seated


def _rate(seated: list[Seated], ratings: dict[str, RatingState]) -> None:
    """One OpenSkill update: the winner first, the survivors tied, the losers last. A person
    holding two seats of one rubber is rated once, by her better place."""
    best: dict[str, Seated] = {}
    for one in seated:
        if one.key not in best or one.place < best[one.key].place:
            best[one.key] = one
    if len(best) < 2:
        return
    keys = list(best)
    teams = []
    for key in keys:
        state = ratings.get(key)
        teams.append([MODEL.rating() if state is None else MODEL.rating(state.mu, state.sigma)])
    rated = MODEL.rate(teams, ranks=[best[key].place + 1 for key in keys])
    for key, (rating,) in zip(keys, rated, strict=True):
        old = ratings.get(key)
        one = best[key]
        ratings[key] = RatingState(
            rating.mu,
            rating.sigma,
            (old.rubbers if old else 0) + 1,
            one.participant.name,
            one.user_id,
        )


def settle(
    rubber: Rubber,
    club_id: int,
    night: Night | None,
    seated: list[Seated],
    ratings: dict[str, RatingState],
    round_amount: Decimal | None,
) -> Settlement:
    """What a finished rubber adds: each player's figures, the ratings moved on (in
    `ratings`), and a round owed by each person who lost it in a night (computer players owe
    none)."""
    _rate(seated, ratings)
    finished = rubber.finished_at or timezone.now()
    out = Settlement()
    staked, pot_won = pot_money(rubber)
    for one in seated:
        participant = one.participant
        rating = ratings.get(one.key)
        out.figures.append(
            PlayerRubber(
                participant_id=participant.participant_id,
                rubber_id=rubber.pk,
                club_id=club_id,
                night=night,
                finished_at=finished,
                key=one.key,
                user_id=one.user_id,
                guest_id=participant.guest_id,
                is_bot=bool(participant.bot_level),
                name=participant.name,
                place=one.place,
                rating_mu=rating.mu if rating else None,
                rating_sigma=rating.sigma if rating else None,
                staked=staked[participant.seat] if participant.seat < len(staked) else 0,
                pot_won=pot_won.get(participant.seat, 0),
                **{name: getattr(one.tally, name) for name in FIGURES},
            )
        )
        if night is not None and one.place == Place.LOST and not participant.bot_level:
            out.rounds.append(
                Round(
                    night=night,
                    participant_id=participant.participant_id,
                    rubber_id=rubber.pk,
                    key=one.key,
                    name=participant.name,
                    amount=round_amount,
                    owed_at=finished,
                )
            )
    return out


def pot_money(rubber: Rubber) -> tuple[list[int], dict[int, int]]:
    """What each seat of a finished rubber put into its pot and took of it, in cents, counted
    from what the rubber keeps (rules.md 3.10): its stake, each buying back in, who took the
    pot. Nothing for a rubber without a pot."""
    if not rubber.pot_stake:
        return [], {}
    seats = len(rubber.players)
    bought = [int(seat) for seat, _before in rubber.buy_backs]
    put = stakes(rubber.pot_stake, seats, bought)
    pot = pot_cents(rubber.pot_stake, seats, len(bought))
    won = shares(pot, [int(seat) for seat in rubber.pot_takers])
    return put, won


def night_of(table: Table, finished: datetime, nights: dict[int, Night]) -> Night | None:
    """The night a rubber counts for: its table's, unless the night had closed before the
    rubber ended."""
    night = nights.get(table.night_id) if table.night_id is not None else None
    if night is None or (night.closed_at is not None and night.closed_at < finished):
        return None
    return night


def _winner(seated: list[Seated]) -> Seated | None:
    return next((one for one in seated if one.place == Place.WON), None)


def _crown(night: Night, winner: Seated, wins: int, king_wins: int, when: datetime) -> bool:
    if night.king_key or wins < king_wins:
        return False
    night.king_key = winner.key
    night.king_name = winner.participant.name
    night.king_user_id = winner.user_id
    night.crowned_at = when
    return True


def _save_ratings(club_id: int, ratings: dict[str, RatingState], keys: Iterable[str]) -> None:
    rows = [
        Rating(
            club_id=club_id,
            key=key,
            user_id=ratings[key].user_id,
            name=ratings[key].name,
            mu=ratings[key].mu,
            sigma=ratings[key].sigma,
            rubbers=ratings[key].rubbers,
        )
        for key in keys
        if key in ratings
    ]
    Rating.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["club", "key"],
        update_fields=["user", "name", "mu", "sigma", "rubbers"],
    )


# The reads of a rubber's booking, compiled by the ORM once (games.services.prepared): each ORM
# query cost half a millisecond of this process's time to build, most of a booking's budget.
_CONF = Prepared(lambda club_id: ClubNights.objects.select_for_update().filter(club_id=club_id))
_SITTERS = Prepared(
    lambda rubber_id: (
        RubberPlayer.objects.filter(rubber_id=rubber_id)
        .order_by("seat")
        .values_list(*SITTER_FIELDS, "bot_level")
    )
)
_EARLIER_HANDS = Prepared(
    lambda rubber_id, last_id: (
        PlayedHand.objects.filter(rubber_id=rubber_id)
        .exclude(pk=last_id)
        .order_by("number")
        .values_list("seats", "record", "complete")
    )
)
_NIGHT = Prepared(lambda night_id: Night.objects.filter(pk=night_id))
_RATINGS: dict[int, Prepared] = {}


def _ratings_of(count: int) -> Prepared:
    """The ratings of `count` players of a club (one prepared query per number of players)."""
    if count not in _RATINGS:
        _RATINGS[count] = Prepared(
            lambda club_id, *keys: Rating.objects.filter(club_id=club_id, key__in=keys)
        )
    return _RATINGS[count]


DAY_SUMS = ("rubbers", "won", "survived", "lost", *FIGURES)
PLACE_FIELD = {Place.WON: "won", Place.SURVIVED: "survived", Place.LOST: "lost"}


def member_days(figures: Iterable[PlayerRubber]) -> dict[tuple[int, date], dict[str, int]]:
    """The members' figures summed per (member, day of the club's time zone)."""
    days: dict[tuple[int, date], dict[str, int]] = {}
    for row in figures:
        if row.user_id is None:
            continue
        day = timezone.localdate(row.finished_at)
        sums = days.setdefault((row.user_id, day), dict.fromkeys(DAY_SUMS, 0))
        sums["rubbers"] += 1
        sums[PLACE_FIELD[Place(row.place)]] += 1
        for name in FIGURES:
            sums[name] += getattr(row, name)
    return days


def _add_days(club_id: int, days: dict[tuple[int, date], dict[str, int]]) -> None:
    """Add to the members' days in one statement (an insert that adds to a day already there:
    `ON CONFLICT DO UPDATE`, which PostgreSQL and SQLite both speak)."""
    if not days:
        return
    meta = PlayerDay._meta
    quote = connection.ops.quote_name
    columns = ["club_id", "user_id", "day", *DAY_SUMS]
    names = ", ".join(quote(meta.get_field(c.removesuffix("_id")).column) for c in columns)
    row = "(" + ", ".join(["%s"] * len(columns)) + ")"
    adds = ", ".join(
        f"{quote(name)} = {quote(meta.db_table)}.{quote(name)} + EXCLUDED.{quote(name)}"
        for name in DAY_SUMS
    )
    keys = ", ".join(quote(meta.get_field(c).column) for c in ("club", "user", "day"))
    params: list[Any] = []
    for (user_id, day), sums in days.items():
        params += [club_id, user_id, day, *(sums[name] for name in DAY_SUMS)]
    # Only the model's own quoted names go into the SQL; every value is a parameter.
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({names}) VALUES "  # noqa: S608
        + ", ".join([row] * len(days))
        + f" ON CONFLICT ({keys}) DO UPDATE SET {adds}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def record_rubber(rubber: Rubber, table: Table, last: PlayedHand, now: datetime) -> None:
    """Book a finished rubber, in the transaction that ended it (a handful of statements).
    `last` is its last hand as the action left it: its record is not written yet."""
    conf = _lock_club(table.club_id)
    participants = [Sitter(*row) for row in _SITTERS(rubber.pk)]
    earlier = [
        (seats, record) for seats, record, done in _EARLIER_HANDS(rubber.pk, last.pk) if done
    ]
    hands = [*earlier, (last.seats, last.record)]
    seated = _seated(rubber, participants, hands)
    nights = {}
    if table.night_id is not None:
        nights = {n.pk: n for n in _NIGHT(table.night_id)}
    night = night_of(table, rubber.finished_at or now, nights)
    keys = sorted({one.key for one in seated})
    ratings = {
        r.key: RatingState(r.mu, r.sigma, r.rubbers, r.name, r.user_id)
        for r in _ratings_of(len(keys))(table.club_id, *keys)
    }
    out = settle(rubber, table.club_id, night, seated, ratings, conf.round_amount)
    PlayerRubber.objects.bulk_create(out.figures)
    _add_days(table.club_id, member_days(out.figures))
    _save_ratings(table.club_id, ratings, keys)
    if night is None:
        return
    if out.rounds:
        Round.objects.bulk_create(out.rounds)
    winner = _winner(seated)
    changed = ["version"]
    if winner is not None:
        night.wins[winner.key] = wins = night.wins.get(winner.key, 0) + 1
        changed.append("wins")
        if _crown(night, winner, wins, conf.king_wins, rubber.finished_at or now):
            changed += ["king_key", "king_name", "king_user", "crowned_at"]
    night.version = NEXT_VERSION
    night.save(update_fields=changed)


def on_rubber_finished(
    sender: Any, rubber: Rubber, table: Table, hand: PlayedHand, now: datetime, **_: Any
) -> None:
    """games.services.events.rubber_finished: book the rubber in a savepoint of the action's
    transaction. Should booking fail now (the club's rows held past the lock timeout, a
    failed write), the table plays on and the rubber is due (`BookingDue`): the clock books it
    later (`book_due`), never dropped, never twice. The club's figures never hold up a game."""
    if table.slate and PlayerRubber.objects.filter(rubber=rubber).exists():
        # A slate's undo reopened the hand that ended this rubber, and it ended again: the
        # figures stay as first booked until `rebuild_standings` books the club afresh. (A
        # rubber of an app table ends once: no query asks it.)
        log.warning("rubber %s ended again after an undo; run rebuild_standings", rubber.pk)
        return
    finished = rubber.finished_at or now
    if _DUE(table.club_id):
        # An earlier rubber of the club waits for its booking: this one is booked after it.
        BookingDue.objects.create(rubber=rubber, club_id=table.club_id, finished_at=finished)
        return
    try:
        with transaction.atomic():
            record_rubber(rubber, table, hand, now)
    except DatabaseError as error:
        log.warning("rubber %s: not booked now (%s); the clock books it later", rubber.pk, error)
        BookingDue.objects.create(rubber=rubber, club_id=table.club_id, finished_at=finished)
    except Exception:
        log.exception("rubber %s: not booked now; the clock books it later", rubber.pk)
        BookingDue.objects.create(rubber=rubber, club_id=table.club_id, finished_at=finished)


_DUE = Prepared(lambda club_id: BookingDue.objects.filter(club_id=club_id).values_list("pk")[:1])


def book_due() -> int:
    """Book the rubbers whose booking could not be made as they ended, each club's in the
    order they ended, each in one transaction with its `BookingDue` row gone: booked once. A
    club whose rows are still held (a lock timeout) or whose booking fails again keeps its
    rubbers due, for the next try. The clock calls this (games.services.events.catch_up);
    the number of rubbers booked."""
    booked = 0
    for club_id in sorted(set(BookingDue.objects.values_list("club_id", flat=True))):
        try:
            with transaction.atomic():
                _lock_club(club_id)
                # Read under the club's lock: another process that booked them first has
                # committed, and its rows are gone.
                due = BookingDue.objects.filter(club_id=club_id).order_by("finished_at", "pk")
                for one in due.select_related("rubber__table"):
                    rubber = one.rubber
                    last = rubber.hands.order_by("-number").first()
                    if last is not None:
                        record_rubber(rubber, rubber.table, last, one.finished_at)
                    one.delete()
                    booked += 1
        except DatabaseError as error:
            log.warning("club %s: its due bookings wait (%s); tried again", club_id, error)
        except Exception:
            log.exception("club %s: its due bookings failed; tried again", club_id)
    return booked


def on_catch_up(sender: Any, **_: Any) -> None:
    """games.services.events.catch_up, from the clock: book what is due. While the database
    cannot be reached what is due stays due for the next try, said as a warning: an outage is
    expected, and the clock says it is back."""
    try:
        if _ANY_DUE():
            book_due()
    except DatabaseError as error:
        log.warning("due bookings wait for the database (%s); tried again", error)


# Asked every few seconds by every process: prepared, as the live table's own queries are.
_ANY_DUE = Prepared(lambda: BookingDue.objects.values_list("pk")[:1])


# -- rebuilding from the records --------------------------------------------------------------


def rebuild(club: Club) -> int:
    """Every figure of the club again from its rubbers and hands, through `settle` in the order
    the rubbers ended: the same figures, ratings and Toepkoningen as booked live. Rounds already
    owed keep whether they were paid; missing ones are added. The number of rubbers booked."""
    with transaction.atomic():
        conf = _lock_club(club.pk)
        PlayerRubber.objects.filter(club=club).delete()
        PlayerDay.objects.filter(club=club).delete()
        BookingDue.objects.filter(club=club).delete()  # booked below with the rest
        Rating.objects.filter(club=club).delete()
        Night.objects.filter(club=club).update(
            king_key="", king_name="", king_user=None, crowned_at=None, wins={}
        )
        nights = {n.pk: n for n in Night.objects.filter(club=club)}
        tables = {t.pk: t for t in Table.objects.filter(club=club).only("pk", "club", "night")}
        rubbers = list(
            Rubber.objects.filter(table__club=club, over=True).order_by("finished_at", "pk")
        )
        players: dict[int, list[Sitter]] = {}
        sitters = RubberPlayer.objects.filter(rubber__table__club=club, rubber__over=True)
        for row in sitters.order_by("seat").values_list(*SITTER_FIELDS, "bot_level"):
            sitter = Sitter(*row)
            players.setdefault(sitter.rubber_id, []).append(sitter)
        owed = set(Round.objects.filter(night__club=club).values_list("participant_id", flat=True))
        ratings: dict[str, RatingState] = {}
        figures: list[PlayerRubber] = []
        rounds: list[Round] = []
        for start in range(0, len(rubbers), 500):
            chunk = rubbers[start : start + 500]
            hands: dict[int, list[tuple[Any, Any]]] = {}
            rows = PlayedHand.objects.filter(rubber__in=chunk, complete=True).order_by("number")
            for rubber_id, seats, record in rows.values_list("rubber_id", "seats", "record"):
                hands.setdefault(rubber_id, []).append((seats, record))
            for rubber in chunk:
                seated = _seated(rubber, players.get(rubber.pk, []), hands.get(rubber.pk, []))
                finished = rubber.finished_at or timezone.now()
                night = night_of(tables[rubber.table_id], finished, nights)
                out = settle(rubber, club.pk, night, seated, ratings, conf.round_amount)
                figures += out.figures
                rounds += [r for r in out.rounds if r.participant_id not in owed]
                winner = _winner(seated)
                if night is not None and winner is not None:
                    night.wins[winner.key] = wins = night.wins.get(winner.key, 0) + 1
                    _crown(night, winner, wins, conf.king_wins, finished)
        PlayerRubber.objects.bulk_create(figures, batch_size=2000)
        PlayerDay.objects.bulk_create(
            (
                PlayerDay(club=club, user_id=user_id, day=day, **sums)
                for (user_id, day), sums in member_days(figures).items()
            ),
            batch_size=2000,
        )
        Round.objects.bulk_create(rounds, batch_size=2000)
        _settle_again(club, nights, figures)
        _save_ratings(club.pk, ratings, sorted(ratings))
        played = [n for n in nights.values() if n.wins]
        Night.objects.bulk_update(
            played, ["king_key", "king_name", "king_user", "crowned_at", "wins"], batch_size=500
        )
        Night.objects.filter(club=club).update(version=NEXT_VERSION)
        return len(rubbers)


def _settle_again(club: Club, nights: dict[int, Night], figures: list[PlayerRubber]) -> None:
    """The settlement of every closed night counted again from the figures just rebuilt. A
    night whose payments come out the same keeps them, ticks and all; one whose balances moved
    gets its settlement anew, unless a payment of it is ticked already: money handed over is
    not taken back by a rebuild (the log says so, for the club to sort out)."""
    rows: dict[int, list[tuple[str, str, int, int]]] = {}
    for row in figures:
        if row.night_id is not None:
            rows.setdefault(row.night_id, []).append((row.key, row.name, row.staked, row.pot_won))
    stored: dict[int, list[Payment]] = {}
    for payment in Payment.objects.filter(night__club=club).order_by("pk"):
        stored.setdefault(payment.night_id, []).append(payment)
    for night in nights.values():
        if night.closed_at is None:
            continue
        fresh = settlement(night, rows.get(night.pk, []), club.currency)
        kept = stored.get(night.pk, [])
        same = [(p.payer_key, p.payee_key, p.cents) for p in kept] == [
            (p.payer_key, p.payee_key, p.cents) for p in fresh
        ]
        if same:
            continue
        if any(p.paid_at is not None for p in kept):
            log.warning("night %s: its settlement moved, but a payment is ticked", night.pk)
            continue
        Payment.objects.filter(pk__in=[p.pk for p in kept]).delete()
        Payment.objects.bulk_create(fresh)


def reattribute_guest(guest: Guest) -> None:
    """A guest signed up: what she played counts for her account from now on.

    Her account is new, so in each club it has no figures of its own: her guest key becomes
    her member key everywhere (figures, rating, rounds, the nights' wins and crowns) and her
    days are added, which is what a rebuild would give, without rebuilding a whole club in the
    sign-up's request. Should the account have figures already, the club is rebuilt."""
    if guest.user_id is None:
        return
    old, new = f"g:{guest.pk}", f"u:{guest.user_id}"
    with transaction.atomic():
        for club_id in set(
            PlayerRubber.objects.filter(guest=guest).values_list("club_id", flat=True)
        ):
            _lock_club(club_id)
            if PlayerRubber.objects.filter(club_id=club_id, key=new).exists():
                rebuild(Club.objects.get(pk=club_id))
                continue
            mine = list(PlayerRubber.objects.filter(club_id=club_id, key=old))
            PlayerRubber.objects.filter(pk__in=[row.pk for row in mine]).update(
                key=new, user_id=guest.user_id
            )
            for row in mine:
                row.user_id = guest.user_id
            _add_days(club_id, member_days(mine))
            Rating.objects.filter(club_id=club_id, key=old).update(key=new, user_id=guest.user_id)
            night_ids = {row.night_id for row in mine if row.night_id is not None}
            for night in Night.objects.filter(pk__in=night_ids):
                if old in night.wins:
                    night.wins[new] = night.wins.pop(old)
                if night.king_key == old:
                    night.king_key, night.king_user_id = new, guest.user_id
                night.save(update_fields=["wins", "king_key", "king_user"])
        Round.objects.filter(key=old).update(key=new)
        Payment.objects.filter(payer_key=old).update(payer_key=new)
        Payment.objects.filter(payee_key=old).update(payee_key=new)


# -- a guest who was a member ------------------------------------------------------------------


@dataclass(frozen=True)
class Merge:
    """A guest of the club and the member she is, as an admin asked to bring them together."""

    guest: Guest
    member: User
    rubbers: int


def club_guests(club: Club) -> list[dict[str, Any]]:
    """The guests who played rubbers at the club's tables: her name, rubbers, last rubber and
    the member she counts for (None: a guest still). One query."""
    rows = (
        RubberPlayer.objects.filter(rubber__table__club=club, guest__isnull=False)
        .values("guest_id", "guest__display_name", "guest__user_id")
        .annotate(rubbers=Count("rubber_id", distinct=True), last=Max("rubber__started_at"))
        .order_by("guest__display_name", "guest_id")
    )
    return [
        {
            "id": row["guest_id"],
            "name": row["guest__display_name"],
            "user_id": row["guest__user_id"],
            "rubbers": row["rubbers"],
            "last": row["last"],
        }
        for row in rows
    ]


def check_merge(membership: Membership, guest_id: object, user_id: object) -> Merge:
    """What merging `guest_id` into the member `user_id` would bring together, or NightError
    with why not: only an admin of the club, a guest who played at its tables (and at no
    other club's: those figures are not the club's to change), an active member, and a guest
    who counts for nobody else yet."""
    club = membership.club
    if not membership.is_admin:
        raise NightError(_("Only the club's admins merge guests."))
    if not _whole(guest_id):
        raise NightError(_("There is no such guest in this club."))
    guest = Guest.objects.filter(pk=guest_id).first()
    played = RubberPlayer.objects.filter(guest_id=guest_id)
    here = played.filter(rubber__table__club=club)
    seated = Seat.objects.filter(guest_id=guest_id)
    if guest is None or not (here.exists() or seated.filter(table__club=club).exists()):
        raise NightError(_("There is no such guest in this club."))
    if (
        played.exclude(rubber__table__club=club).exists()
        or seated.exclude(table__club=club).exists()
    ):
        raise NightError(
            _("This guest played at another club too, whose figures are not this club's.")
        )
    if not _whole(user_id):
        raise NightError(_("There is no such member in this club."))
    member = (
        Membership.objects.filter(club=club, user_id=user_id, status=Membership.Status.ACTIVE)
        .select_related("user")
        .first()
    )
    if member is None:
        raise NightError(_("There is no such member in this club."))
    if guest.user_id is not None and guest.user_id != user_id:
        raise NightError(_("This guest counts for another member already."))
    return Merge(guest, member.user, here.values("rubber_id").distinct().count())


def merge_guest(membership: Membership, guest_id: object, user_id: object) -> Merge:
    """An admin merges a guest into a member (a guest who signed up on another phone, or a
    guest who was a member all along): from now on everything the guest played counts for the
    member, and the club is counted again from its records (`rebuild`), so the figures, the
    ratings, the nights' wins and crowns and the rounds owed are hers. The guest's rows stay
    as they are: nothing she did is lost. Merging again changes nothing."""
    merge = check_merge(membership, guest_id, user_id)
    old, new = f"g:{merge.guest.pk}", f"u:{merge.member.pk}"
    with transaction.atomic():
        _lock_club(membership.club_id)
        # An update, not a save: the sign-up's signal (reattribute_guest) is not wanted here,
        # the rebuild below counts the club once.
        Guest.objects.filter(pk=merge.guest.pk, user__isnull=True).update(
            user=merge.member, claimed_at=timezone.now()
        )
        # Rounds keep whether they were paid through a rebuild: they change hands here.
        Round.objects.filter(night__club_id=membership.club_id, key=old).update(key=new)
        rebuild(membership.club)
    return merge


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# -- nights -----------------------------------------------------------------------------------


def may_open_nights(membership: Membership, conf: ClubNights) -> bool:
    return membership.is_admin or (membership.is_active and conf.members_open_nights)


def open_night(membership: Membership) -> Night:
    club = membership.club
    with transaction.atomic():
        conf = _lock_club(club.pk)
        if not may_open_nights(membership, conf):
            raise NightError(_("Only the club's admins open a night."))
        if Night.objects.filter(club=club, closed_at__isnull=True).exists():
            raise NightError(_("A night is open already: close it first."))
        return Night.objects.create(club=club, opened_by=membership.user)


def close_night(membership: Membership, night: Night) -> None:
    with transaction.atomic():
        conf = _lock_club(night.club_id)
        if not may_open_nights(membership, conf) and night.opened_by_id != membership.user_id:
            raise NightError(_("Only the club's admins close a night."))
        closed = Night.objects.filter(pk=night.pk, closed_at__isnull=True).update(
            closed_at=timezone.now(), version=NEXT_VERSION
        )
        if not closed:
            raise NightError(_("This night is closed already."))
        rows = PlayerRubber.objects.filter(night=night).values_list(
            "key", "name", "staked", "pot_won"
        )
        Payment.objects.bulk_create(settlement(night, rows, night.club.currency))


def balances(rows: Iterable[tuple[str, str, int, int]]) -> tuple[dict[str, int], dict[str, str]]:
    """Each player's balance in cents (won from pots less staked) and name, from her figures'
    rows (`key`, `name`, `staked`, `pot_won`)."""
    balance: dict[str, int] = {}
    names: dict[str, str] = {}
    for key, name, staked, won in rows:
        balance[key] = balance.get(key, 0) + won - staked
        names[key] = name
    return balance, names


def settlement(
    night: Night, rows: Iterable[tuple[str, str, int, int]], currency: str
) -> list[Payment]:
    """Who pays whom once the night is closed: the fewest payments that bring every balance to
    zero (nights.money.settle_up), as rows to tick."""
    balance, names = balances(rows)
    return [
        Payment(
            night=night,
            payer_key=payment.payer,
            payer_name=names[payment.payer],
            payee_key=payment.payee,
            payee_name=names[payment.payee],
            cents=payment.cents,
            currency=currency,
        )
        for payment in settle_up(balance)
    ]


def tick_payment(night: Night, payment_id: Any, user: User) -> Payment:
    """A payment of the night's settlement marked as paid, once: a second tick is refused."""
    return _mark_payment(night, payment_id, user, paid=True)


def untick_payment(night: Night, payment_id: Any, membership: Membership) -> Payment:
    """A payment ticked by mistake is owed again: undone by whoever ticked it, or an admin."""
    return _mark_payment(night, payment_id, membership.user, paid=False, membership=membership)


def _mark_payment(
    night: Night,
    payment_id: Any,
    user: User,
    *,
    paid: bool,
    membership: Membership | None = None,
) -> Payment:
    if not isinstance(payment_id, int) or isinstance(payment_id, bool):
        raise NightError(_("There is no such payment."))
    with transaction.atomic():
        payment = Payment.objects.select_for_update().filter(night=night, pk=payment_id).first()
        if payment is None:
            raise NightError(_("There is no such payment."))
        if paid:
            if payment.paid_at is not None:
                raise NightError(_("That payment is ticked as paid already."))
            payment.paid_at, payment.paid_by = timezone.now(), user
        else:
            if payment.paid_at is None:
                raise NightError(_("That payment is not ticked as paid."))
            assert membership is not None
            if not (membership.is_admin or payment.paid_by_id == membership.user_id):
                raise NightError(_("Only whoever ticked it, or an admin, undoes a payment."))
            payment.paid_at, payment.paid_by = None, None
        payment.save(update_fields=["paid_at", "paid_by"])
        Night.objects.filter(pk=night.pk).update(version=NEXT_VERSION)
        return payment


def tick_round(night: Night, round_id: Any, user: User) -> Round:
    """A round marked as paid, once: a second tick is refused and changes nothing."""

    def tick(owed: Round) -> int:
        return Round.objects.filter(pk=owed.pk, paid_at__isnull=True).update(
            paid_at=timezone.now(), paid_by=user
        )

    return _mark_round(night, round_id, tick, _("That round is ticked as paid already."))


def untick_round(night: Night, round_id: Any, membership: Membership) -> Round:
    """A round ticked as paid by mistake is owed again: undone by whoever ticked it, or by an
    admin. Undoing a round that is not ticked is refused and changes nothing."""

    def untick(owed: Round) -> int:
        if owed.paid_at is not None and not may_untick(membership, owed):
            raise NightError(_("Only whoever ticked it, or an admin, undoes a paid round."))
        return Round.objects.filter(pk=owed.pk, paid_at__isnull=False).update(
            paid_at=None, paid_by=None
        )

    return _mark_round(night, round_id, untick, _("That round is not ticked as paid."))


def _mark_round(night: Night, round_id: Any, mark: Callable[[Round], int], done: str) -> Round:
    """`mark` the night's round `round_id` (the rows it changed; none: it was `done` already)
    in one transaction, and move the night on so its pages show it."""
    if not isinstance(round_id, int) or isinstance(round_id, bool):
        raise NightError(_("There is no such round."))
    with transaction.atomic():
        owed = Round.objects.filter(night=night, pk=round_id).first()
        if owed is None:
            raise NightError(_("There is no such round."))
        if not mark(owed):
            raise NightError(done)
        Night.objects.filter(pk=night.pk).update(version=NEXT_VERSION)
        owed.refresh_from_db()
        return owed


def may_untick(membership: Membership, owed: Round) -> bool:
    return membership.is_admin or owed.paid_by_id == membership.user_id


def update_settings(
    club: Club,
    *,
    king_wins: int,
    members_open_nights: bool,
    round_amount: Decimal | None,
    currency: str | None = None,
) -> ClubNights:
    if not 1 <= king_wins <= KING_WINS_MAX:
        raise NightError(_("A Toepkoning needs 1 to %(max)d rubbers won.") % {"max": KING_WINS_MAX})
    if round_amount is not None and not Decimal("0.01") <= round_amount <= Decimal("1000"):
        raise NightError(_("The amount must be from 0.01 to 1000."))
    currency = currency or None  # left out: as it is
    if currency is not None and currency not in CURRENCIES:
        raise NightError(_("The app does not keep money in that currency."))
    with transaction.atomic():
        conf = _lock_club(club.pk)
        conf.king_wins = king_wins
        conf.members_open_nights = members_open_nights
        conf.round_amount = round_amount
        conf.save()
        if currency is not None and currency != club.currency:
            club.currency = currency
            club.save(update_fields=["currency"])
    return conf


# -- seasons ----------------------------------------------------------------------------------


def check_season(name: str, starts_on: date, ends_on: date, points: tuple[int, int, int]) -> str:
    """The season's name as it is stored; NightError, with a message, for anything amiss."""
    try:
        name = clean_name(name, SEASON_NAME_MAX, _("A season needs a name."))
    except ValidationError as error:
        raise NightError(error.messages[0]) from None
    if ends_on < starts_on:
        raise NightError(_("A season cannot end before it starts."))
    if (ends_on - starts_on).days > SEASON_DAYS_MAX:
        raise NightError(_("A season lasts at most three years."))
    win, survive, lose = points
    if not all(0 <= p <= POINTS_MAX for p in points):
        raise NightError(_("Points are from 0 to %(max)d.") % {"max": POINTS_MAX})
    if not win >= survive >= lose or win == lose:
        raise NightError(
            _("A win must give more points than a loss, and surviving between the two.")
        )
    return name


def create_season(
    club: Club, name: str, starts_on: date, ends_on: date, points: tuple[int, int, int]
) -> Season:
    name = check_season(name, starts_on, ends_on, points)
    win, survive, lose = points
    return Season.objects.create(
        club=club,
        name=name,
        starts_on=starts_on,
        ends_on=ends_on,
        points_win=win,
        points_survive=survive,
        points_lose=lose,
    )
