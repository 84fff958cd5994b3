"""Tables, seats, rubbers and hands: everything a live table is, kept in the database.

The database is the only truth. A hand is stored as its growing `toepen-hand/1` record, so its
state is rebuilt by replaying it (games.services.snapshots.load_state); nothing about a game
lives only in a server process, and a restarted server carries on where the last one stopped.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from games.encoding import ColumnEncoder
from games.engine.rules import HouseRules
from games.keys import RowKey

# No 0/O, 1/I/L: a code is read aloud across a pub table and typed on a phone.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class BotLevel(models.TextChoices):
    EASY = "easy", _("easy")
    NORMAL = "normal", _("normal")
    STRONG = "strong", _("strong")


class SlateKeepers(models.TextChoices):
    """Who may write on a slate table's slate (everyone with its code may follow it)."""

    CREATOR = "creator", _("the member who opened it")
    MEMBERS = "members", _("members of the club")
    ANYONE = "anyone", _("anyone with the code")


class Table(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", _("waiting for players")
        PLAYING = "playing", _("playing")
        RUBBER_OVER = "rubber_over", _("rubber over")
        CLOSED = "closed", _("closed")

    club = models.ForeignKey(
        "clubs.Club", verbose_name=_("club"), on_delete=models.CASCADE, related_name="tables"
    )
    code = models.CharField(_("join code"), max_length=12, unique=True, default=new_code)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        on_delete=models.PROTECT,
        related_name="tables_created",
    )
    profile = models.ForeignKey(
        "clubs.HouseRuleProfile",
        verbose_name=_("house rules"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tables",
        help_text=_("Where the rules came from; the table plays by its own copy."),
    )
    profile_name = models.CharField(_("house rules"), max_length=60, blank=True)
    # The exact rules the table started with: later edits of the profile never reach it.
    rules_json = models.JSONField(_("rules"), encoder=ColumnEncoder)
    seat_count = models.PositiveSmallIntegerField(_("seats"))
    allow_spectators = models.BooleanField(_("members may watch"), default=True)
    # The club night the table was opened in (nights.Night), if one was open then.
    night = models.ForeignKey(
        "nights.Night",
        verbose_name=_("club night"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tables",
    )
    status = models.CharField(_("status"), max_length=12, choices=Status, default=Status.WAITING)
    # Bumped by every change; each update a phone receives carries it.
    version = models.PositiveIntegerField(_("version"), default=0)
    # The next moment the table must act by itself (a timer, a computer player, the next deal).
    deadline_at = models.DateTimeField(_("next deadline"), null=True, blank=True, db_index=True)
    # When the table last changed: the start of every answer window and turn clock.
    changed_at = models.DateTimeField(_("changed"), auto_now_add=True)
    # The laundry window: open until this moment (None: closed, or no laundry in these rules).
    laundry_until = models.DateTimeField(_("laundry window closes"), null=True, blank=True)
    # Seats that are done with the laundry; when every seat is, the window closes early.
    laundry_ready = models.JSONField(
        _("ready after the laundry"), default=list, blank=True, encoder=ColumnEncoder
    )
    # Computer players already offered an out-of-turn action at this version (who said no).
    bots_offered = models.JSONField(
        _("computer players asked"), default=list, blank=True, encoder=ColumnEncoder
    )
    # When the answers now awaited fell due: the start of a simultaneous answer window.
    awaiting_since = models.DateTimeField(_("answers due since"), null=True, blank=True)
    # Nobody is at the table (every player's phone gone or away): its clock waits for someone
    # to come back, and a table paused too long is closed (games/engine/table.py, `plan`).
    paused = models.BooleanField(_("paused"), default=False)
    # Played with real cards: the app keeps only the slate (rules.md 3.9, games/services/slate.py).
    slate = models.BooleanField(_("slate table"), default=False)
    slate_keepers = models.CharField(
        _("who keeps the slate"), max_length=8, choices=SlateKeepers, default=SlateKeepers.CREATOR
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"{self.club} · {self.code}"

    def get_absolute_url(self) -> str:
        return reverse("games:table", args=[self.code])

    @property
    def name(self) -> str:
        return f"{self.code} · {self.profile_name}"

    def rules(self) -> HouseRules:
        return HouseRules.from_json(self.rules_json)


AWAY_CHOICES = (("break", _("on a break")), ("round", _("buying a round")))


class Seat(models.Model):
    """A chair at a table: empty, a person (member or guest) on some phone, or a computer player.

    `holder_key` names the browser holding the seat (a random key kept in its session), so one
    shared phone can hold several seats.
    """

    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="seats"
    )
    index = models.PositiveSmallIntegerField(_("seat"))
    name = models.CharField(_("name"), max_length=40, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("member"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="seats",
    )
    guest = models.ForeignKey(
        "accounts.Guest",
        verbose_name=_("guest"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="seats",
    )
    holder_key = models.CharField(_("phone"), max_length=64, blank=True, db_index=True)
    bot_level = models.CharField(_("computer player"), max_length=8, choices=BotLevel, blank=True)
    last_seen = models.DateTimeField(_("last seen"), null=True, blank=True)
    # Away from the table (rules.md 3.8): the table plays for her while she is.
    away = models.CharField(_("away"), max_length=8, choices=AWAY_CHOICES, blank=True)
    # She said she is back from buying a round: she is, from the next deal on.
    back_at_deal = models.BooleanField(_("back at the next deal"), default=False)
    # The rubber in which she was last dealt a hand while buying a round (once a rubber).
    round_in_rubber = models.PositiveIntegerField(
        _("round bought in rubber"), null=True, blank=True
    )

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ("table", "index")
        constraints = (
            models.UniqueConstraint(fields=("table", "index"), name="seat_index_unique"),
        )

    def __str__(self) -> str:
        return f"{self.table.code} #{self.index} {self.name}"

    @property
    def is_free(self) -> bool:
        return not self.bot_level and not self.holder_key


class Rubber(models.Model):
    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="rubbers"
    )
    number = models.PositiveIntegerField(_("number"))
    rules_json = models.JSONField(_("rules"), encoder=ColumnEncoder)
    # Names per table seat, as they sat when the rubber started.
    players = models.JSONField(_("players"), encoder=ColumnEncoder)
    # Lives per table seat, carried from hand to hand; the dealer of the next hand (table seat).
    lives = models.JSONField(_("lives"), encoder=ColumnEncoder)
    dealer = models.PositiveSmallIntegerField(_("dealer"))
    over = models.BooleanField(_("over"), default=False)
    winner = models.PositiveSmallIntegerField(_("winner"), null=True, blank=True)
    losers = models.JSONField(_("losers"), default=list, encoder=ColumnEncoder)
    # Left unfinished (its table closed): it counts in no standings.
    abandoned = models.BooleanField(_("abandoned"), default=False)
    # Played for the pot (rules.md 3.10): what each player put in at the start, in cents (0: no
    # pot); each buying back in, [seat, number of the hand it came before]; who went out in
    # the last hand finished (who may buy back in before the next deal); who took the pot at
    # the end, the first of them given a remainder of cents. Every cent is counted from these.
    pot_stake = models.PositiveIntegerField(_("stake for the pot (cents)"), default=0)
    currency = models.CharField(_("currency"), max_length=3, default="EUR")
    buy_backs = models.JSONField(
        _("bought back in"), default=list, blank=True, encoder=ColumnEncoder
    )
    went_out = models.JSONField(
        _("went out in the last hand"), default=list, blank=True, encoder=ColumnEncoder
    )
    pot_takers = models.JSONField(
        _("took the pot"), default=list, blank=True, encoder=ColumnEncoder
    )
    started_at = models.DateTimeField(_("started"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("rubber")
        verbose_name_plural = _("rubbers")
        ordering = ("table", "number")
        constraints = (
            models.UniqueConstraint(fields=("table", "number"), name="rubber_number_unique"),
        )

    def __str__(self) -> str:
        return f"{self.table.code} rubber {self.number}"


class RubberPlayer(models.Model):
    """Who sat in a rubber and how it went for them: the club's standings are summed from here."""

    rubber = models.ForeignKey(
        Rubber, verbose_name=_("rubber"), on_delete=models.CASCADE, related_name="participants"
    )
    seat = models.PositiveSmallIntegerField(_("seat"))
    name = models.CharField(_("name"), max_length=40)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("member"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="rubbers_played",
    )
    guest = models.ForeignKey(
        "accounts.Guest",
        verbose_name=_("guest"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="rubbers_played",
    )
    bot_level = models.CharField(_("computer player"), max_length=8, blank=True)
    # The number of the rubber's last hand she was dealt, when she got up before its end (a
    # computer player played her seat on): the hands after it were never hers to see.
    left_after = models.PositiveIntegerField(_("got up after hand"), null=True, blank=True)
    lives_lost = models.PositiveIntegerField(_("lives lost"), default=0)
    lost = models.BooleanField(_("lost the rubber"), default=False)
    won = models.BooleanField(_("won the rubber"), default=False)

    class Meta:
        verbose_name = _("rubber player")
        verbose_name_plural = _("rubber players")
        ordering = ("rubber", "seat")
        constraints = (
            models.UniqueConstraint(fields=("rubber", "seat"), name="rubber_seat_unique"),
        )

    def __str__(self) -> str:
        return f"{self.rubber} #{self.seat} {self.name}"


class PlayedHand(models.Model):
    """One hand, stored as its `toepen-hand/1` record while it is played (hand-record.md)."""

    rubber = models.ForeignKey(
        Rubber, verbose_name=_("rubber"), on_delete=models.CASCADE, related_name="hands"
    )
    number = models.PositiveIntegerField(_("number"))
    # The table seat of each of the hand's seats (players who are out are not dealt in).
    seats = models.JSONField(_("seats"), encoder=ColumnEncoder)
    record = models.JSONField(_("record"), encoder=ColumnEncoder)
    complete = models.BooleanField(_("complete"), default=False)
    result = models.JSONField(_("result"), null=True, blank=True, encoder=ColumnEncoder)
    started_at = models.DateTimeField(_("started"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("hand")
        verbose_name_plural = _("hands")
        ordering = ("rubber", "number")
        constraints = (
            models.UniqueConstraint(fields=("rubber", "number"), name="hand_number_unique"),
        )

    def __str__(self) -> str:
        return f"{self.rubber} hand {self.number}"


class ActionReceipt(models.Model):
    """An action id a phone sent, so that a repeated frame is applied once."""

    # A row at every action: its key is SQLite's without AUTOINCREMENT (games/keys.py).
    id = RowKey(primary_key=True, verbose_name="ID")
    # No index of its own: `action_id_once`'s (table, action_id) finds a table's receipts too,
    # and every action inserts a receipt, so an index more is a page more written each time.
    table = models.ForeignKey(
        Table,
        verbose_name=_("table"),
        on_delete=models.CASCADE,
        related_name="receipts",
        db_index=False,
    )
    action_id = models.CharField(_("action id"), max_length=64)
    version = models.PositiveIntegerField(_("version"))
    created_at = models.DateTimeField(_("received"), auto_now_add=True)

    class Meta:
        verbose_name = _("action receipt")
        verbose_name_plural = _("action receipts")
        constraints = (
            models.UniqueConstraint(fields=("table", "action_id"), name="action_id_once"),
        )

    def __str__(self) -> str:
        return f"{self.table.code} {self.action_id}"


class SeatRequest(models.Model):
    """A phone that holds a seat at a table asks to seat a member of the table's club on it too
    (a shared phone). She is not seated until she accepts it from her own signed-in phone
    (games/services/member_seats.py); unanswered, it lapses at `expires_at`."""

    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="seat_requests"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("member"),
        on_delete=models.CASCADE,
        related_name="seat_requests",
    )
    asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("asked by"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    # The phone that asked: the seat is held by it once she accepts.
    holder_key = models.CharField(_("phone"), max_length=64)
    created_at = models.DateTimeField(_("asked"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))

    class Meta:
        verbose_name = _("seat request")
        verbose_name_plural = _("seat requests")
        ordering = ("-created_at",)
        constraints = (models.UniqueConstraint(fields=("table", "user"), name="seat_request_once"),)

    def __str__(self) -> str:
        return f"{self.table.code} {self.user}"


class SeatCode(models.Model):
    """A member's short code that seats her on another player's phone at once: shown on her own
    club page, good once, for a short time, and void after a few wrong tries."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("member"),
        on_delete=models.CASCADE,
        related_name="seat_code",
    )
    code = models.CharField(_("code"), max_length=8)
    expires_at = models.DateTimeField(_("expires"))
    misses = models.PositiveSmallIntegerField(_("wrong tries"), default=0)

    class Meta:
        verbose_name = _("seat code")
        verbose_name_plural = _("seat codes")

    def __str__(self) -> str:
        return str(self.user)
