"""A club tournament: players registered, rounds drawn, a table opened for each drawn group.

What the tables played is never copied here: the leaderboard is read from the rubbers of the
tables the rounds opened (games.models), so it is as true as the tables themselves and needs
no rebuild. A round's tables each count their first rubber only.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

NAME_MAX = 60
ROUNDS_MAX = 20
POINTS_MAX = 100


class Tournament(models.Model):
    club = models.ForeignKey(
        "clubs.Club", verbose_name=_("club"), on_delete=models.CASCADE, related_name="tournaments"
    )
    name = models.CharField(_("name"), max_length=NAME_MAX)
    profile = models.ForeignKey(
        "clubs.HouseRuleProfile",
        verbose_name=_("house rules"),
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    slate = models.BooleanField(_("slate tables"), default=False)
    rounds = models.PositiveSmallIntegerField(
        _("rounds"), validators=[MinValueValidator(1), MaxValueValidator(ROUNDS_MAX)]
    )
    table_size = models.PositiveSmallIntegerField(
        _("players a table"), validators=[MinValueValidator(3), MaxValueValidator(5)]
    )
    # Points for the first, second, ... place at a table; places past the list score nothing.
    points = models.JSONField(_("points per place"))
    # 0: no final; 4 or 5: the best that many play a final table that decides the top places.
    final_size = models.PositiveSmallIntegerField(_("final table"), default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournaments:detail", args=[self.club.slug, self.pk])


class Entry(models.Model):
    """A registered player: a member, a guest known by name, or a computer player."""

    tournament = models.ForeignKey(
        Tournament, verbose_name=_("tournament"), on_delete=models.CASCADE, related_name="entries"
    )
    name = models.CharField(_("name"), max_length=40)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("member"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    # A guest's row, so that her phone can hold her seat at a live table (her seat link).
    guest = models.ForeignKey(
        "accounts.Guest",
        verbose_name=_("guest"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    bot_level = models.CharField(_("computer player"), max_length=8, blank=True)
    # The first round she may be drawn in: registered while a round was drawn, the next one.
    from_round = models.PositiveSmallIntegerField(_("plays from round"), default=1)
    # Left the tournament: drawn in no later round; her points stay.
    left = models.BooleanField(_("left"), default=False)
    registered_at = models.DateTimeField(_("registered"), auto_now_add=True)

    class Meta:
        verbose_name = _("tournament player")
        verbose_name_plural = _("tournament players")
        ordering = ("tournament", "pk")
        constraints = (
            models.UniqueConstraint(fields=("tournament", "name"), name="entry_name_once"),
            models.UniqueConstraint(
                fields=("tournament", "user"),
                condition=Q(user__isnull=False),
                name="entry_member_once",
            ),
        )

    def __str__(self) -> str:
        return self.name


class DrawnRound(models.Model):
    tournament = models.ForeignKey(
        Tournament, verbose_name=_("tournament"), on_delete=models.CASCADE, related_name="drawn"
    )
    number = models.PositiveSmallIntegerField(_("round"))
    final = models.BooleanField(_("final table"), default=False)
    drawn_at = models.DateTimeField(_("drawn"), auto_now_add=True)

    class Meta:
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        ordering = ("tournament", "number")
        constraints = (
            models.UniqueConstraint(fields=("tournament", "number"), name="round_number_once"),
        )

    def __str__(self) -> str:
        return f"{self.tournament} {self.number}"


class DrawnTable(models.Model):
    """A table of a round: its number on the draw, and the table opened for it."""

    round = models.ForeignKey(
        DrawnRound, verbose_name=_("round"), on_delete=models.CASCADE, related_name="tables"
    )
    number = models.PositiveSmallIntegerField(_("table"))
    table = models.OneToOneField(
        "games.Table",
        verbose_name=_("table"),
        on_delete=models.CASCADE,
        related_name="tournament_table",
    )

    class Meta:
        verbose_name = _("drawn table")
        verbose_name_plural = _("drawn tables")
        ordering = ("round", "number")
        constraints = (
            models.UniqueConstraint(fields=("round", "number"), name="drawn_table_once"),
        )

    def __str__(self) -> str:
        return f"{self.round} {self.number}"


class DrawnSeat(models.Model):
    """A player drawn for a table's seat; once a round (the database holds it to that too)."""

    round = models.ForeignKey(
        DrawnRound, verbose_name=_("round"), on_delete=models.CASCADE, related_name="seats"
    )
    table = models.ForeignKey(
        DrawnTable, verbose_name=_("table"), on_delete=models.CASCADE, related_name="seats"
    )
    entry = models.ForeignKey(
        Entry, verbose_name=_("player"), on_delete=models.CASCADE, related_name="seats"
    )
    seat = models.PositiveSmallIntegerField(_("seat"))

    class Meta:
        verbose_name = _("drawn seat")
        verbose_name_plural = _("drawn seats")
        ordering = ("table", "seat")
        constraints = (
            models.UniqueConstraint(fields=("round", "entry"), name="once_a_round"),
            models.UniqueConstraint(fields=("table", "seat"), name="drawn_seat_once"),
        )

    def __str__(self) -> str:
        return f"{self.table} #{self.seat}"
