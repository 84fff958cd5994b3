"""A club's life after the table: club nights, the Toepkoning, the rounds owed, seasons, ratings.

Everything here is derived from the stored rubbers and hands (games.models), written when a
rubber ends (nights.services.record_rubber, in that action's transaction) and rebuilt from the
records by `manage.py rebuild_standings`. The pages read these tables with aggregates, never a
query per row.

A *player* is named by a key: `u:<user id>` for a member (a guest who signed up counts for her
account), `g:<guest id>` for a guest, `b:<name>` for a computer player.
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

KING_WINS_DEFAULT = 3
KING_WINS_MAX = 20
POINTS_MAX = 10
SEASON_NAME_MAX = 60


class ClubNights(models.Model):
    """A club's own settings for its nights; its row is also the lock that puts the bookkeeping
    of the club's rubber ends in one order (the Toepkoning, the ratings)."""

    club = models.OneToOneField(
        "clubs.Club", verbose_name=_("club"), on_delete=models.CASCADE, related_name="nights_conf"
    )
    king_wins = models.PositiveSmallIntegerField(
        _("rubbers won to be Toepkoning"),
        default=KING_WINS_DEFAULT,
        validators=[MinValueValidator(1), MaxValueValidator(KING_WINS_MAX)],
        help_text=_("The first player to win this many rubbers in one night is its Toepkoning."),
    )
    members_open_nights = models.BooleanField(
        _("any member may open a night"),
        default=False,
        help_text=_("Otherwise only the club's admins open and close nights."),
    )
    round_amount = models.DecimalField(
        _("amount for the kitty"),
        max_digits=6,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0.01")), MaxValueValidator(Decimal("1000"))],
        help_text=_("Empty: whoever loses a rubber owes a round. Else this amount to the kitty."),
    )

    class Meta:
        verbose_name = _("club night settings")
        verbose_name_plural = _("club night settings")

    def __str__(self) -> str:
        return str(self.club)


class Night(models.Model):
    """A club night: the tables opened while it is open belong to it (games.Table.night)."""

    club = models.ForeignKey(
        "clubs.Club", verbose_name=_("club"), on_delete=models.CASCADE, related_name="nights"
    )
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("opened by"),
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    opened_at = models.DateTimeField(_("opened"), auto_now_add=True)
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)
    # The Toepkoning: the first player to win `king_wins` rubbers this night.
    king_key = models.CharField(_("Toepkoning"), max_length=80, blank=True)
    king_name = models.CharField(_("Toepkoning"), max_length=40, blank=True)
    king_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("Toepkoning"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="nights_as_king",
    )
    crowned_at = models.DateTimeField(_("crowned"), null=True, blank=True)
    # Rubbers won this night per player key, counted as they end (the Toepkoning's race).
    wins = models.JSONField(_("rubbers won"), default=dict, blank=True)
    # Bumped whenever what the night's page shows changes (a rubber ends, a round is paid).
    version = models.PositiveIntegerField(_("version"), default=0)

    class Meta:
        verbose_name = _("club night")
        verbose_name_plural = _("club nights")
        ordering = ("-opened_at",)
        constraints = (
            models.UniqueConstraint(
                fields=("club",), condition=Q(closed_at__isnull=True), name="one_open_night"
            ),
        )

    def __str__(self) -> str:
        return f"{self.club} {self.opened_at:%Y-%m-%d}"

    def get_absolute_url(self) -> str:
        return reverse("nights:night", args=[self.club.slug, self.pk])

    @property
    def is_open(self) -> bool:
        return self.closed_at is None


class Season(models.Model):
    """Standings over a period the admin sets, by points per rubber in the admin's scheme."""

    club = models.ForeignKey(
        "clubs.Club", verbose_name=_("club"), on_delete=models.CASCADE, related_name="seasons"
    )
    name = models.CharField(_("name"), max_length=SEASON_NAME_MAX)
    starts_on = models.DateField(_("first day"))
    ends_on = models.DateField(_("last day"))
    points_win = models.PositiveSmallIntegerField(
        _("points for a win"), default=3, validators=[MaxValueValidator(POINTS_MAX)]
    )
    points_survive = models.PositiveSmallIntegerField(
        _("points for surviving"), default=1, validators=[MaxValueValidator(POINTS_MAX)]
    )
    points_lose = models.PositiveSmallIntegerField(
        _("points for a loss"), default=0, validators=[MaxValueValidator(POINTS_MAX)]
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
        ordering = ("-starts_on", "name")
        constraints = (
            models.CheckConstraint(
                condition=Q(ends_on__gte=models.F("starts_on")), name="season_ends_after_start"
            ),
        )

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("nights:season", args=[self.club.slug, self.pk])


class Place(models.IntegerChoices):
    WON = 0, _("won")
    SURVIVED = 1, _("survived")
    LOST = 2, _("lost")


class PlayerRubber(models.Model):
    """One player's figures in one finished rubber, counted from its hand records."""

    participant = models.OneToOneField(
        "games.RubberPlayer",
        verbose_name=_("player"),
        on_delete=models.CASCADE,
        related_name="figures",
    )
    rubber = models.ForeignKey(
        "games.Rubber", verbose_name=_("rubber"), on_delete=models.CASCADE, related_name="+"
    )
    club = models.ForeignKey(
        "clubs.Club", verbose_name=_("club"), on_delete=models.CASCADE, related_name="+"
    )
    night = models.ForeignKey(
        Night,
        verbose_name=_("club night"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="figures",
    )
    finished_at = models.DateTimeField(_("finished"))
    key = models.CharField(_("player"), max_length=80)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("member"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    guest = models.ForeignKey(
        "accounts.Guest",
        verbose_name=_("guest"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    is_bot = models.BooleanField(_("computer player"), default=False)
    name = models.CharField(_("name"), max_length=40)
    place = models.PositiveSmallIntegerField(_("place"), choices=Place)
    lives_lost = models.PositiveIntegerField(_("lives lost"), default=0)
    hands = models.PositiveIntegerField(_("hands"), default=0)
    hands_won = models.PositiveIntegerField(_("hands won"), default=0)
    knocks = models.PositiveIntegerField(_("knocks"), default=0)
    knocks_won = models.PositiveIntegerField(_("knocks that won"), default=0)
    folds = models.PositiveIntegerField(_("folds"), default=0)
    exchanges = models.PositiveIntegerField(_("exchanges"), default=0)
    challenges = models.PositiveIntegerField(_("challenges"), default=0)
    challenges_won = models.PositiveIntegerField(_("challenges won"), default=0)
    # A rubber played for the pot (rules.md 3.10): what she put in, buying back in included,
    # and what she took of the pot, in cents of the rubber's currency.
    staked = models.PositiveIntegerField(_("staked (cents)"), default=0)
    pot_won = models.PositiveIntegerField(_("won from the pot (cents)"), default=0)
    # The player's rating after this rubber (OpenSkill's mu and sigma).
    rating_mu = models.FloatField(_("rating"), null=True, blank=True)
    rating_sigma = models.FloatField(_("rating uncertainty"), null=True, blank=True)

    class Meta:
        verbose_name = _("player in a rubber")
        verbose_name_plural = _("players in rubbers")
        indexes = (
            models.Index(fields=("club", "finished_at"), name="figures_club_time"),
            models.Index(fields=("club", "user", "finished_at"), name="figures_club_user"),
            models.Index(fields=("rubber", "user"), name="figures_rubber_user"),
        )

    def __str__(self) -> str:
        return f"{self.rubber_id} {self.name}"


class Round(models.Model):
    """A round owed by whoever lost a rubber of a night: a tally anyone at the club may tick."""

    night = models.ForeignKey(
        Night, verbose_name=_("club night"), on_delete=models.CASCADE, related_name="rounds"
    )
    participant = models.OneToOneField(
        "games.RubberPlayer",
        verbose_name=_("player"),
        on_delete=models.CASCADE,
        related_name="round_owed",
    )
    rubber = models.ForeignKey(
        "games.Rubber", verbose_name=_("rubber"), on_delete=models.CASCADE, related_name="+"
    )
    key = models.CharField(_("player"), max_length=80)
    name = models.CharField(_("name"), max_length=40)
    # None: a round of drinks; else the amount for the club's kitty, as set when it was lost.
    amount = models.DecimalField(_("amount"), max_digits=6, decimal_places=2, null=True)
    owed_at = models.DateTimeField(_("owed since"))
    paid_at = models.DateTimeField(_("paid"), null=True, blank=True)
    paid_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("ticked by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        verbose_name = _("round owed")
        verbose_name_plural = _("rounds owed")
        ordering = ("owed_at", "pk")

    def __str__(self) -> str:
        return f"{self.night_id} {self.name}"


class Payment(models.Model):
    """One payment of a closed night's settlement (who pays whom, nights.money.settle_up): a
    tally anyone at the club may tick as paid, like a round."""

    night = models.ForeignKey(
        Night, verbose_name=_("club night"), on_delete=models.CASCADE, related_name="payments"
    )
    payer_key = models.CharField(_("pays"), max_length=80)
    payer_name = models.CharField(_("pays"), max_length=40)
    payee_key = models.CharField(_("is paid"), max_length=80)
    payee_name = models.CharField(_("is paid"), max_length=40)
    cents = models.PositiveIntegerField(_("amount (cents)"))
    currency = models.CharField(_("currency"), max_length=3, default="EUR")
    paid_at = models.DateTimeField(_("paid"), null=True, blank=True)
    paid_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("ticked by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        verbose_name = _("payment")
        verbose_name_plural = _("payments")
        ordering = ("night", "pk")

    def __str__(self) -> str:
        return f"{self.night_id} {self.payer_name} → {self.payee_name} {self.cents}"


class Rating(models.Model):
    """A player's skill in the club: OpenSkill (Plackett-Luce), one update per finished rubber."""

    club = models.ForeignKey(
        "clubs.Club", verbose_name=_("club"), on_delete=models.CASCADE, related_name="+"
    )
    key = models.CharField(_("player"), max_length=80)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("member"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    name = models.CharField(_("name"), max_length=40)
    mu = models.FloatField(_("rating"))
    sigma = models.FloatField(_("uncertainty"))
    rubbers = models.PositiveIntegerField(_("rubbers"), default=0)

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = (models.UniqueConstraint(fields=("club", "key"), name="rating_once"),)

    def __str__(self) -> str:
        return f"{self.name} {self.mu:.1f}±{self.sigma:.1f}"


class PlayerDay(models.Model):
    """A member's figures summed over one day of the club (the club's time zone): what season
    standings add up, a few thousand rows a year instead of every rubber. Kept with the
    figures: written by the same booking, rebuilt by the same rebuild."""

    club = models.ForeignKey(
        "clubs.Club", verbose_name=_("club"), on_delete=models.CASCADE, related_name="+"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("member"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    day = models.DateField(_("day"))
    rubbers = models.PositiveIntegerField(_("rubbers"), default=0)
    won = models.PositiveIntegerField(_("won"), default=0)
    survived = models.PositiveIntegerField(_("survived"), default=0)
    lost = models.PositiveIntegerField(_("lost"), default=0)
    lives_lost = models.PositiveIntegerField(_("lives lost"), default=0)
    hands = models.PositiveIntegerField(_("hands"), default=0)
    hands_won = models.PositiveIntegerField(_("hands won"), default=0)
    knocks = models.PositiveIntegerField(_("knocks"), default=0)
    knocks_won = models.PositiveIntegerField(_("knocks that won"), default=0)
    folds = models.PositiveIntegerField(_("folds"), default=0)
    exchanges = models.PositiveIntegerField(_("exchanges"), default=0)
    challenges = models.PositiveIntegerField(_("challenges"), default=0)
    challenges_won = models.PositiveIntegerField(_("challenges won"), default=0)

    class Meta:
        verbose_name = _("member's day")
        verbose_name_plural = _("members' days")
        constraints = (
            models.UniqueConstraint(fields=("club", "user", "day"), name="player_day_once"),
        )
        indexes = (models.Index(fields=("club", "day"), name="player_day_club_day"),)

    def __str__(self) -> str:
        return f"{self.user_id} {self.day}"


class BookingDue(models.Model):
    """A finished rubber whose booking could not be made as it ended (the club's rows held by
    another session past the lock timeout, a write that failed): the table played on, and each
    process's clock books it later, in the order the club's rubbers ended, until it holds
    (`nights.services.book_due`). While one is due, the club's later rubber ends queue behind
    it, so the ratings and the Toepkoning move in the order a rebuild gives."""

    rubber = models.OneToOneField(
        "games.Rubber", verbose_name=_("rubber"), on_delete=models.CASCADE, related_name="+"
    )
    club = models.ForeignKey(
        "clubs.Club", verbose_name=_("club"), on_delete=models.CASCADE, related_name="+"
    )
    finished_at = models.DateTimeField(_("finished"))

    class Meta:
        verbose_name = _("booking due")
        verbose_name_plural = _("bookings due")
        indexes = (models.Index(fields=("club", "finished_at"), name="booking_due_club_time"),)

    def __str__(self) -> str:
        return f"{self.rubber_id}"
