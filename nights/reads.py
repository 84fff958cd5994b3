"""What the pages show, read with a bounded number of queries (aggregates in SQL, never a query
per row) from the booked figures (nights.models) and the stored hands."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db.models import Count, F, Max, Min, OuterRef, Prefetch, Q, QuerySet, Subquery, Sum
from django.db.models.functions import TruncMonth
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from clubs.models import Club
from clubs.money import money
from games.models import PlayedHand, RubberPlayer, Seat, Table
from nights.models import (
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

SUMS = ("lives_lost", "hands", "hands_won", "knocks", "knocks_won", "folds", "exchanges")
MORE = ("challenges", "challenges_won")


def _totals(**extra: Any) -> dict[str, Any]:
    totals: dict[str, Any] = {
        "rubbers": Count("id"),
        "won": Count("id", filter=Q(place=Place.WON)),
        "survived": Count("id", filter=Q(place=Place.SURVIVED)),
        "lost": Count("id", filter=Q(place=Place.LOST)),
    }
    totals.update({name: Sum(name) for name in SUMS + MORE})
    totals.update(extra)
    return totals


def player_url(club: Club) -> Callable[[int | None], str]:
    """A member's page address by her id, reversed once for a whole page (a table of a hundred
    members would otherwise reverse a hundred times)."""
    marker = 987654321
    pattern = reverse("nights:player", args=[club.slug, marker])
    return lambda user_id: pattern.replace(str(marker), str(user_id)) if user_id else ""


def clock(moment: datetime | None) -> str:
    return timezone.localtime(moment).strftime("%H:%M") if moment is not None else ""


def decimal(value: float | Decimal | None, places: int = 2) -> str:
    """A number in the page's language (0,50 in Dutch), formatted once in Python."""
    return "" if value is None else formats.number_format(value, decimal_pos=places)


def _key_order(key: str) -> tuple[int, int, str]:
    """Members first, then computer players, then guests; by id within each: the same order on
    every page, so a name's number is the same everywhere."""
    kind, _sep, rest = key.partition(":")
    return ({"u": 0, "b": 1}.get(kind, 2), int(rest) if rest.isdigit() else 0, rest)


class Names:
    """One label per player, so that every name on a list is one person: a guest always says
    she is one ("Kees (guest)"), and players who would read alike are numbered ("Kees",
    "Kees (2)", "Kees (guest 2)"). The players given first are numbered in a fixed order (by
    `_key_order`); those asked of later get the next free number."""

    def __init__(self, players: Iterable[tuple[str, str]] = ()) -> None:
        self._labels: dict[str, str] = {}
        self._taken: dict[tuple[str, bool], int] = {}
        first: dict[str, str] = {}
        for key, name in players:
            # A player seen under two names (a seat renamed) goes by the greater, as the
            # standings' Max("name") names her.
            first[key] = max(name, first.get(key, name))
        for key in sorted(first, key=_key_order):
            self.of(key, first[key])

    def of(self, key: str, name: str) -> str:
        label = self._labels.get(key)
        if label is not None:
            return label
        guest = key.startswith("g:")
        number = self._taken[name.casefold(), guest] = (
            self._taken.get((name.casefold(), guest), 0) + 1
        )
        if guest:
            label = (
                _("%(name)s (guest)") % {"name": name}
                if number == 1
                else _("%(name)s (guest %(number)d)") % {"name": name, "number": number}
            )
        else:
            label = name if number == 1 else f"{name} ({number})"
        self._labels[key] = label
        return label


def seat_key(seat: Seat) -> str:
    """The player key of whoever holds a seat now (nights.services.player_key's rule)."""
    if seat.user_id is not None:
        return f"u:{seat.user_id}"
    if seat.guest_id is not None:
        user_id = seat.guest.user_id if seat.guest is not None else None
        return f"u:{user_id}" if user_id is not None else f"g:{seat.guest_id}"
    return f"b:{seat.name}"


def conf_of(club: Club) -> ClubNights:
    """The club's settings, or the defaults when an admin never changed them (a page never
    writes)."""
    return ClubNights.objects.filter(club=club).first() or ClubNights(club=club)


# -- a night ----------------------------------------------------------------------------------


@dataclass
class RubberRow:
    rubber_id: int
    number: int
    table: str
    time: str
    players: list[tuple[str, int]] = field(default_factory=list)


@dataclass
class NightPage:
    night: Night
    standings: list[dict[str, Any]]
    tables: list[Table]
    rubbers: list[RubberRow]
    rounds: list[Round]
    owed: list[dict[str, Any]]
    king_wins: int
    leader_wins: int
    king_name: str = ""
    # The pot rubbers' money (rules.md 3.10): whether any was played for, and once the night
    # is closed who pays whom, each payment with its amount as the reader writes it.
    pot: bool = False
    payments: list[Payment] = field(default_factory=list)


def table_state(table: Table) -> str:
    """A table's state as a night names it: in play, paused (nobody at it), between rubbers
    (its last one over), waiting for players, or closed."""
    if table.status == Table.Status.PLAYING:
        return "paused" if table.paused else "playing"
    return str(table.status)


def night_standings(night: Night, names: Names | None = None) -> list[dict[str, Any]]:
    """The night's players, each once, by rubbers won; `names` (made from these rows when not
    given) labels each of them."""
    rows = list(
        PlayerRubber.objects.filter(night=night)
        .values("key")
        .annotate(
            **_totals(
                name=Max("name"),
                user_id=Max("user_id"),
                staked=Sum("staked"),
                pot_won=Sum("pot_won"),
            )
        )
        .order_by("-won", "lost", "lives_lost", "name")
    )
    if names is None:
        names = Names((row["key"], row["name"]) for row in rows)
    url = player_url(night.club)
    currency = night.club.currency
    for row in rows:
        row["url"] = url(row["user_id"])
        row["name"] = names.of(row["key"], row["name"])
        staked, won = row["staked"] or 0, row["pot_won"] or 0
        row["stakes"], row["winnings"] = money(staked, currency), money(won, currency)
        row["balance_cents"] = won - staked
        row["balance"] = money(won - staked, currency)
    return rows


def night_page(night: Night) -> NightPage:
    conf = conf_of(night.club)
    rows = list(
        PlayerRubber.objects.filter(night=night)
        .order_by("-finished_at", "-rubber_id", "participant__seat")
        .values(
            "rubber_id",
            "rubber__number",
            "rubber__table__code",
            "finished_at",
            "key",
            "name",
            "place",
            "lives_lost",
        )
    )
    # Every player of the night by one label: the standings, the rubbers, the rounds owed,
    # the Toepkoning and whoever sits at a table now.
    names = Names((row["key"], row["name"]) for row in rows)
    standings = night_standings(night, names)
    tables = list(
        Table.objects.filter(night=night)
        .exclude(status=Table.Status.CLOSED)
        .prefetch_related(Prefetch("seats", Seat.objects.select_related("guest")))
        .order_by("created_at")
    )
    for table in tables:
        table.state = table_state(table)  # type: ignore[attr-defined]
        table.players = [  # type: ignore[attr-defined]
            names.of(seat_key(seat), seat.name) if seat.name else "\u2013"
            for seat in table.seats.all()
        ]
    rubbers: dict[int, RubberRow] = {}
    for row in rows:
        rubber = rubbers.get(row["rubber_id"])
        if rubber is None:
            rubber = rubbers[row["rubber_id"]] = RubberRow(
                row["rubber_id"],
                row["rubber__number"],
                row["rubber__table__code"],
                clock(row["finished_at"]),
            )
        rubber.players.append((names.of(row["key"], row["name"]), row["place"]))
    rounds = list(Round.objects.filter(night=night).order_by("owed_at", "pk"))
    owed: dict[str, dict[str, Any]] = {}
    for owed_round in rounds:
        owed_round.time = clock(owed_round.owed_at)  # type: ignore[attr-defined]
        owed_round.price = decimal(owed_round.amount)  # type: ignore[attr-defined]
        owed_round.name = names.of(owed_round.key, owed_round.name)
        if owed_round.paid_at is None:
            entry = owed.setdefault(
                owed_round.key, {"name": owed_round.name, "rounds": 0, "amount": Decimal(0)}
            )
            entry["rounds"] += 1
            entry["amount"] += owed_round.amount or 0
    for entry in owed.values():
        entry["price"] = decimal(entry["amount"]) if entry["amount"] else ""
    payments = list(Payment.objects.filter(night=night).order_by("pk"))
    for payment in payments:
        payment.amount = money(payment.cents, payment.currency)  # type: ignore[attr-defined]
    return NightPage(
        night=night,
        standings=standings,
        tables=tables,
        rubbers=list(rubbers.values()),
        rounds=rounds,
        owed=sorted(owed.values(), key=lambda e: (-e["rounds"], e["name"])),
        king_wins=conf.king_wins,
        leader_wins=max((row["won"] for row in standings), default=0),
        king_name=names.of(night.king_key, night.king_name) if night.king_key else "",
        pot=any(row["staked"] for row in standings),
        payments=payments,
    )


# -- seasons and ratings ----------------------------------------------------------------------


def season_money(season: Season) -> list[dict[str, Any]]:
    """The balances of the season's nights (those opened in it) that played for a pot: per
    night, each player's balance in the club's currency, from the pot rubbers' figures (one
    query)."""
    rows = (
        PlayerRubber.objects.filter(
            club=season.club_id,
            night__isnull=False,
            night__opened_at__date__gte=season.starts_on,
            night__opened_at__date__lte=season.ends_on,
            staked__gt=0,
        )
        .values("night_id", "key")
        .annotate(
            opened=Max("night__opened_at"),
            name=Max("name"),
            staked=Sum("staked"),
            pot_won=Sum("pot_won"),
        )
        .order_by("-opened", "name")
    )
    currency = season.club.currency
    nights: dict[int, dict[str, Any]] = {}
    for row in rows:
        night = nights.setdefault(row["night_id"], {"opened_at": row["opened"], "players": []})
        balance = row["pot_won"] - row["staked"]
        night["players"].append(
            {"name": row["name"], "cents": balance, "balance": money(balance, currency)}
        )
    return list(nights.values())


def season_standings(season: Season) -> list[dict[str, Any]]:
    """Members only (a guest counts once she is one), by points, then points per rubber.
    Summed from the members' days (nights.models.PlayerDay), not from every rubber."""
    rows = list(
        PlayerDay.objects.filter(
            club=season.club_id, day__gte=season.starts_on, day__lte=season.ends_on
        )
        .values("user_id")
        .annotate(
            **{name: Sum(name) for name in ("rubbers", "won", "survived", "lost", *SUMS, *MORE)}
        )
    )
    names = dict(
        User.objects.filter(pk__in=[row["user_id"] for row in rows]).values_list(
            "pk", "display_name"
        )
    )
    usernames = (
        dict(
            User.objects.filter(pk__in=[row["user_id"] for row in rows]).values_list(
                "pk", "username"
            )
        )
        if any(not name for name in names.values())
        else {}
    )
    ratings = {
        rating.user_id: rating
        for rating in Rating.objects.filter(club=season.club_id, user__in=list(names))
    }
    url = player_url(season.club)
    labels = Names(
        (f"u:{row['user_id']}", names.get(row["user_id"]) or usernames.get(row["user_id"], "?"))
        for row in rows
    )
    for row in rows:
        row["url"] = url(row["user_id"])
        row["name"] = labels.of(f"u:{row['user_id']}", "?")
        row["points"] = (
            row["won"] * season.points_win
            + row["survived"] * season.points_survive
            + row["lost"] * season.points_lose
        )
        row["per_rubber"] = row["points"] / row["rubbers"] if row["rubbers"] else 0.0
        row["rating"] = ratings.get(row["user_id"])
        row["per_rubber_text"] = decimal(row["per_rubber"])
        rating = row["rating"]
        row["rating_text"] = (
            f"{decimal(rating.mu, 1)} ± {decimal(rating.sigma, 1)}"
            if rating is not None
            else "\u2013"
        )
    rows.sort(key=lambda r: (-r["points"], -r["per_rubber"], r["name"]))
    return rows


def club_ratings(club: Club, limit: int = 50) -> list[Rating]:
    """The members' ratings, surest first (the rating less three times its uncertainty)."""
    return list(
        Rating.objects.filter(club=club, user__isnull=False)
        .order_by(F("mu") - 3 * F("sigma"))
        .reverse()[:limit]
    )


# -- a player ---------------------------------------------------------------------------------


STYLE_MIN_KNOCKS = 10
STYLE_MIN_HANDS = 30


@dataclass(frozen=True)
class Style:
    word: Any
    meaning: Any


STYLES = {
    "lijntoeper": Style(
        _("Lijntoeper"), _("knocks only when sure to win: most of the knocks win the hand")
    ),
    "bluffer": Style(_("Bluffer"), _("knocks on little: most of the knocks lose the hand")),
    "toeper": Style(_("Hard knocker"), _("knocks in more than half of the hands")),
    "stille": Style(_("Quiet one"), _("hardly ever knocks")),
    "vouwer": Style(_("Folder"), _("folds in more than a third of the hands")),
    "wasser": Style(_("Launderer"), _("exchanges in more than a third of the hands")),
    "controleur": Style(_("Inspector"), _("challenges often, and is right most of the time")),
}


def styles(totals: dict[str, Any]) -> list[Style]:
    """The words players use for how someone plays, read off her figures."""
    found = []
    hands = totals.get("hands") or 0
    knocks = totals.get("knocks") or 0
    if knocks >= STYLE_MIN_KNOCKS:
        rate = (totals.get("knocks_won") or 0) / knocks
        if rate >= 0.75:
            found.append(STYLES["lijntoeper"])
        elif rate <= 0.35:
            found.append(STYLES["bluffer"])
    if hands >= STYLE_MIN_HANDS:
        if knocks / hands > 0.5:
            found.append(STYLES["toeper"])
        elif knocks / hands < 0.1:
            found.append(STYLES["stille"])
        if (totals.get("folds") or 0) / hands > 1 / 3:
            found.append(STYLES["vouwer"])
        if (totals.get("exchanges") or 0) / hands > 1 / 3:
            found.append(STYLES["wasser"])
    challenges = totals.get("challenges") or 0
    if challenges >= 5 and (totals.get("challenges_won") or 0) / challenges >= 0.6:
        found.append(STYLES["controleur"])
    return found


@dataclass
class PlayerPage:
    user: User
    totals: dict[str, Any]
    months: list[dict[str, Any]]
    ratings: list[tuple[datetime, float, float]]
    rating: Rating | None
    styles: list[Style]
    opponents: list[dict[str, Any]]
    hands: list[dict[str, Any]]
    kings: list[Night]


def _rate(part: int | None, whole: int | None) -> float | None:
    return (part or 0) / whole if whole else None


def player_figures(club: Club, user: User) -> QuerySet[PlayerRubber]:
    return PlayerRubber.objects.filter(club=club, user=user)


def player_page(club: Club, user: User) -> PlayerPage:
    mine = player_figures(club, user)
    totals = mine.aggregate(**_totals(first=Min("finished_at"), last=Max("finished_at")))
    totals["win_rate"] = _rate(totals["won"], totals["rubbers"])
    totals["lives_per_hand"] = _rate(totals["lives_lost"], totals["hands"])
    totals["knock_rate"] = _rate(totals["knocks_won"], totals["knocks"])
    totals["challenge_rate"] = _rate(totals["challenges_won"], totals["challenges"])
    months = list(
        mine.annotate(month=TruncMonth("finished_at"))
        .values("month")
        .annotate(
            rubbers=Count("id"),
            won=Count("id", filter=Q(place=Place.WON)),
            hands=Sum("hands"),
            hands_won=Sum("hands_won"),
        )
        .order_by("month")
    )
    ratings = list(
        mine.filter(rating_mu__isnull=False)
        .order_by("-finished_at")
        .values_list("finished_at", "rating_mu", "rating_sigma")[:200]
    )
    ratings.reverse()
    opponents = head_to_head(club, user)
    hands = list(
        PlayedHand.objects.filter(
            complete=True, rubber__in=Subquery(mine.order_by("-finished_at").values("rubber")[:5])
        )
        .order_by("-rubber__finished_at", "-number")
        .values("pk", "number", "rubber__number", "rubber__table__code", "finished_at")[:40]
    )
    kings = list(Night.objects.filter(club=club, king_user=user).order_by("-opened_at")[:20])
    return PlayerPage(
        user=user,
        totals=totals,
        months=months,
        ratings=ratings,
        rating=Rating.objects.filter(club=club, key=f"u:{user.pk}").first(),
        styles=styles(totals),
        opponents=opponents,
        hands=hands,
        kings=kings,
    )


def head_to_head(club: Club, user: User, limit: int = 15) -> list[dict[str, Any]]:
    """Against each member met most: rubbers together, and how often each finished ahead."""
    mine = player_figures(club, user)
    my_place = Subquery(mine.filter(rubber=OuterRef("rubber")).values("place")[:1])
    rows = list(
        PlayerRubber.objects.filter(club=club, rubber__in=mine.values("rubber"))
        .exclude(user=user)
        .exclude(user__isnull=True)
        .annotate(mine=my_place)
        .values("user_id")
        .annotate(
            rubbers=Count("id"),
            ahead=Count("id", filter=Q(mine__lt=F("place"))),
            behind=Count("id", filter=Q(mine__gt=F("place"))),
        )
        .order_by("-rubbers", "user_id")[:limit]
    )
    names = {u.pk: str(u) for u in User.objects.filter(pk__in=[r["user_id"] for r in rows])}
    for row in rows:
        row["name"] = names.get(row["user_id"], "?")
    return rows


# -- hands ------------------------------------------------------------------------------------


def finished_hands(club: Club) -> QuerySet[PlayedHand]:
    """The club's hands that may be shown: complete ones only, whatever their rubber."""
    return PlayedHand.objects.filter(rubber__table__club=club, complete=True)


def _played(user: Any, guest: Any) -> Q | None:
    """The seats a guest held: this browser's guest, or the guest who became `user`."""
    played = Q(pk__in=[])
    if guest is not None:
        played |= Q(guest=guest)
    if user is not None and user.is_authenticated:
        played |= Q(guest__user=user)
    return played if (guest is not None or user.is_authenticated) else None


# Per table seat a guest held in a rubber, the number of its last hand she was dealt there
# (None: she sat to the rubber's end).
Held = dict[int, int | None]


def guest_seats(club: Club, user: Any, guest: Any) -> dict[int, Held]:
    """Per rubber of the club, the table seats the guest held in it, and till which hand."""
    played = _played(user, guest)
    if played is None:
        return {}
    seats: dict[int, Held] = {}
    rows = RubberPlayer.objects.filter(played, rubber__table__club=club).values_list(
        "rubber_id", "seat", "left_after"
    )
    for rubber_id, seat, left_after in rows:
        seats.setdefault(rubber_id, {})[seat] = left_after
    return seats


def dealt_to(hand: PlayedHand, held: Held) -> bool:
    """Whether `hand` was dealt to the guest who held these seats of its rubber: a hand a
    computer player played in her seat after she got up was not."""
    return any(
        seat in hand.seats and (last is None or hand.number <= last) for seat, last in held.items()
    )


def guest_played(hand: PlayedHand, user: Any, guest: Any) -> bool:
    """Whether the guest was dealt in `hand` (one query)."""
    played = _played(user, guest)
    if played is None:
        return False
    rows = RubberPlayer.objects.filter(played, rubber_id=hand.rubber_id).values_list(
        "seat", "left_after"
    )
    return dealt_to(hand, dict(rows))


def guest_hands(club: Club, user: Any, guest: Any, limit: int = 100) -> list[PlayedHand]:
    """The finished hands of the club a guest was dealt in, the latest first."""
    seats = guest_seats(club, user, guest)
    hands = (
        finished_hands(club)
        .filter(rubber__in=list(seats))
        .select_related("rubber__table")
        .order_by("-finished_at", "-pk")
    )
    return [h for h in hands[: limit * 2] if dealt_to(h, seats[h.rubber_id])][:limit]
