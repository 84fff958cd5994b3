from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _

DISPLAY_NAME_MAX = 40


class User(AbstractUser):
    """A person with an account: a display name for the table and a language for the pages."""

    display_name = models.CharField(
        _("display name"),
        max_length=DISPLAY_NAME_MAX,
        blank=True,
        help_text=_("The name other players see at the table. Empty: your username."),
    )
    language = models.CharField(
        _("language"),
        max_length=8,
        blank=True,
        choices=settings.LANGUAGES,
        help_text=_("Empty: the language of your browser."),
    )

    def __str__(self) -> str:
        return self.display_name or self.username


def user_display(user: User) -> str:
    """What allauth shows for a user (ACCOUNT_USER_DISPLAY)."""
    return str(user)


class Guest(models.Model):
    """Someone at a table without an account, known by the browser session that holds its id.

    When the guest signs up, `user` is set (see accounts.signals), so whatever the guest played
    can be found from the account: rows that point at the guest keep pointing at it.
    """

    display_name = models.CharField(_("display name"), max_length=DISPLAY_NAME_MAX)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("account"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="guests",
        help_text=_("Set when the guest signed up."),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    claimed_at = models.DateTimeField(_("signed up"), null=True, blank=True)

    class Meta:
        verbose_name = _("guest")
        verbose_name_plural = _("guests")

    def __str__(self) -> str:
        return self.display_name
