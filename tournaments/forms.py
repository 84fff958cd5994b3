from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from clubs.models import Club, HouseRuleProfile, Membership
from games.models import BotLevel
from tournaments import services
from tournaments.models import ROUNDS_MAX, Tournament


class TournamentForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=60)
    profile = forms.ModelChoiceField(
        label=_("House rules"), queryset=HouseRuleProfile.objects.none(), required=False
    )
    slate = forms.TypedChoiceField(
        label=_("Tables"),
        choices=(
            ("", _("App tables: everyone plays on her own phone")),
            ("1", _("Slate tables: real cards, one phone keeps the slate")),
        ),
        coerce=bool,
        required=False,
        empty_value=False,
    )
    rounds = forms.IntegerField(label=_("Rounds"), min_value=1, max_value=ROUNDS_MAX, initial=3)
    table_size = forms.TypedChoiceField(
        label=_("Players a table"),
        choices=((3, "3"), (4, "4"), (5, "5")),
        coerce=int,
        initial=4,
        help_text=_("The draw spreads the players as evenly as it can, never a table of two."),
    )
    points = forms.CharField(
        label=_("Points per place"),
        initial="5, 3, 2, 1",
        max_length=60,
        help_text=_("First place first. Players who share a place split its points."),
    )
    final_size = forms.TypedChoiceField(
        label=_("Final table"),
        choices=(
            (0, _("No final table")),
            (4, _("The best four play a final table")),
            (5, _("The best five play a final table")),
        ),
        coerce=int,
        initial=0,
    )

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["profile"]
        field.queryset = club.profiles.all()  # type: ignore[attr-defined]
        field.initial = club.profiles.filter(is_default=True).first()
        field.empty_label = _("Classic (built in)")  # type: ignore[attr-defined]

    def clean_points(self) -> list[int]:
        try:
            return services.parse_points(self.cleaned_data["points"])
        except services.TournamentError as error:
            raise forms.ValidationError(str(error.message)) from None


class RegisterForm(forms.Form):
    """An admin registers a player: a member of the club, a guest by name, or a computer
    player."""

    member = forms.ModelChoiceField(label=_("Member"), queryset=User.objects.none(), required=False)
    guest = forms.CharField(label=_("or a guest, by name"), max_length=40, required=False)
    bot = forms.ChoiceField(
        label=_("or a computer player"),
        choices=(("", "—"), *BotLevel.choices),
        required=False,
    )

    def __init__(self, *args: Any, tournament: Tournament, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["member"]
        field.queryset = (  # type: ignore[attr-defined]
            User.objects.filter(
                memberships__club=tournament.club_id,
                memberships__status=Membership.Status.ACTIVE,
            )
            .exclude(pk__in=tournament.entries.filter(user__isnull=False).values("user_id"))
            .order_by("username")
        )
        if tournament.slate:
            del self.fields["bot"]
