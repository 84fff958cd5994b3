import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _

from clubs.money import CURRENCIES, DEFAULT_CURRENCY
from games.engine.rules import HouseRules

NAME_MAX = 60


class Club(models.Model):
    name = models.CharField(_("name"), max_length=NAME_MAX)
    slug = models.SlugField(_("address"), max_length=80, unique=True)
    # The club's money (the pot, rules.md 3.10; the kitty), as an ISO 4217 code.
    currency = models.CharField(
        _("currency"),
        max_length=3,
        choices=[(code, code) for code in CURRENCIES],
        default=DEFAULT_CURRENCY,
    )
    created_at = models.DateTimeField(_("founded"), auto_now_add=True)

    class Meta:
        verbose_name = _("club")
        verbose_name_plural = _("clubs")
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("games:club", args=[self.slug])

    @staticmethod
    def unique_slug(name: str) -> str:
        """A slug from the name; a random suffix when it is taken (or the name has no letters)."""
        base = slugify(name)[:60] or "club"
        slug = base
        while Club.objects.filter(slug=slug).exists():
            slug = f"{base}-{secrets.token_hex(3)}"
        return slug


class Membership(models.Model):
    class Role(models.TextChoices):
        ADMIN = "admin", _("admin")
        MEMBER = "member", _("member")

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting for an admin")
        ACTIVE = "active", _("member")

    club = models.ForeignKey(
        Club, verbose_name=_("club"), on_delete=models.CASCADE, related_name="memberships"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        related_name="memberships",
    )
    role = models.CharField(_("role"), max_length=10, choices=Role, default=Role.MEMBER)
    status = models.CharField(_("status"), max_length=10, choices=Status, default=Status.ACTIVE)
    created_at = models.DateTimeField(_("since"), auto_now_add=True)

    class Meta:
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints = (
            models.UniqueConstraint(fields=("club", "user"), name="one_membership_per_club"),
        )
        ordering = ("club", "user__username")

    def __str__(self) -> str:
        return f"{self.user} / {self.club}"

    @property
    def is_admin(self) -> bool:
        return self.role == self.Role.ADMIN and self.status == self.Status.ACTIVE

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE


def new_token() -> str:
    # 32 random bytes: unguessable, and short enough for a QR code a phone reads at arm's length.
    return secrets.token_urlsafe(32)


class Invitation(models.Model):
    """A link (and its QR code) that lets anyone who has it ask to join the club.

    Several people may use one link until it expires or an admin withdraws it; each request
    waits for an admin to accept it.
    """

    DURATIONS = (1, 7, 30)

    club = models.ForeignKey(
        Club, verbose_name=_("club"), on_delete=models.CASCADE, related_name="invitations"
    )
    token = models.CharField(_("token"), max_length=64, unique=True, default=new_token)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("made by"),
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(_("made"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))
    revoked_at = models.DateTimeField(_("withdrawn"), null=True, blank=True)

    class Meta:
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"{self.club} / {self.expires_at:%Y-%m-%d %H:%M}"

    @classmethod
    def for_days(cls, club: Club, days: int, created_by: Any = None) -> "Invitation":
        return cls.objects.create(
            club=club, created_by=created_by, expires_at=timezone.now() + timedelta(days=days)
        )

    @property
    def is_usable(self) -> bool:
        return self.revoked_at is None and self.expires_at > timezone.now()

    @classmethod
    def usable(cls) -> models.QuerySet["Invitation"]:
        return cls.objects.filter(revoked_at__isnull=True, expires_at__gt=timezone.now())


class HouseRuleProfile(models.Model):
    """A club's named set of house rules (rules.md section 4), stored as the engine's JSON.

    A table must not follow later edits: when a table starts, it stores `snapshot()` with
    itself and plays by that copy for its whole life. Editing a profile changes new tables only.
    """

    club = models.ForeignKey(
        Club, verbose_name=_("club"), on_delete=models.CASCADE, related_name="profiles"
    )
    name = models.CharField(_("name"), max_length=NAME_MAX)
    rules_json = models.JSONField(_("rules"), default=dict)
    is_default = models.BooleanField(_("default"), default=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("changed"), auto_now=True)

    class Meta:
        verbose_name = _("house-rule profile")
        verbose_name_plural = _("house-rule profiles")
        ordering = ("-is_default", "name")
        constraints = (
            models.UniqueConstraint(fields=("club", "name"), name="profile_name_unique_in_club"),
            models.UniqueConstraint(
                fields=("club",),
                condition=models.Q(is_default=True),
                name="one_default_profile_per_club",
            ),
        )

    def __str__(self) -> str:
        return self.name

    def rules(self) -> HouseRules:
        """The profile as the engine's object; RulesError if the stored JSON is not valid."""
        return HouseRules.from_json(self.rules_json)

    def snapshot(self) -> dict[str, Any]:
        """A validated copy of every field, for a table to keep as the rules it started with."""
        return self.rules().to_json()

    def set_rules(self, rules: HouseRules) -> None:
        self.rules_json = rules.to_json()
