from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from accounts.names import clean_display_name
from clubs.models import Club, HouseRuleProfile, Membership
from games.engine.rules import MAX_SEATS
from games.models import CODE_LENGTH, BotLevel, SlateKeepers
from games.services.slate import SlatePlayer

SEAT_CHOICES = [("", _("a person")), *BotLevel.choices]


class TableForm(forms.Form):
    profile = forms.ModelChoiceField(
        label=_("House rules"), queryset=HouseRuleProfile.objects.none(), required=False
    )
    seat_count = forms.TypedChoiceField(
        label=_("Seats"),
        coerce=int,
        choices=[(n, str(n)) for n in range(2, MAX_SEATS + 1)],
        initial=4,
    )
    allow_spectators = forms.BooleanField(
        label=_("Other members may watch"), required=False, initial=True
    )

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["profile"].queryset = club.profiles.all()
        self.fields["profile"].initial = club.profiles.filter(is_default=True).first()
        self.fields["profile"].empty_label = _("Classic (built in)")
        # Seat 0 is the creator's; the others are a person or a computer player.
        for index in range(1, MAX_SEATS):
            self.fields[f"seat_{index}"] = forms.ChoiceField(
                label=_("Seat %(number)d") % {"number": index + 1},
                choices=SEAT_CHOICES,
                required=False,
                initial=BotLevel.NORMAL if index < 4 else "",
            )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        count = data.get("seat_count")
        profile = data.get("profile")
        if count is not None:
            minimum = profile.rules().min_players if profile is not None else 3
            if count < minimum:
                raise forms.ValidationError(
                    _("These rules need at least %(count)d players.") % {"count": minimum}
                )
        return data

    def bots(self) -> dict[int, str]:
        count = self.cleaned_data["seat_count"]
        return {
            index: level
            for index in range(1, count)
            if (level := self.cleaned_data.get(f"seat_{index}"))
        }


class JoinForm(forms.Form):
    name = forms.CharField(
        label=_("Your name at the table"),
        max_length=40,
        error_messages={"required": _("Enter a name to play under.")},
    )
    seat = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=0)

    def clean_name(self) -> str:
        return clean_display_name(self.cleaned_data["name"])


class CodeForm(forms.Form):
    code = forms.CharField(
        label=_("Table code"),
        max_length=CODE_LENGTH + 4,
        # A phone's keyboard in capitals, no corrections: codes are letters and digits.
        widget=forms.TextInput(
            attrs={"autocapitalize": "characters", "autocomplete": "off", "spellcheck": "false"}
        ),
    )

    def clean_code(self) -> str:
        return "".join(self.cleaned_data["code"].split()).upper()


class SlateForm(forms.Form):
    """A slate table: the house rules, who plays (members of the club, guests by name; in
    seat order, members first), and who may keep the slate."""

    profile = forms.ModelChoiceField(
        label=_("House rules"), queryset=HouseRuleProfile.objects.none(), required=False
    )
    members = forms.ModelMultipleChoiceField(
        label=_("Members who play"),
        queryset=User.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    guests = forms.CharField(
        label=_("Guests who play (one name a line)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    keepers = forms.ChoiceField(
        label=_("Who keeps the slate"), choices=SlateKeepers.choices, initial=SlateKeepers.CREATOR
    )

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["profile"].queryset = club.profiles.all()
        self.fields["profile"].initial = club.profiles.filter(is_default=True).first()
        self.fields["profile"].empty_label = _("Classic (built in)")
        self.fields["members"].queryset = User.objects.filter(
            memberships__club=club, memberships__status=Membership.Status.ACTIVE
        ).order_by("username")

    def players(self) -> list[SlatePlayer]:
        members = [SlatePlayer(str(user), user) for user in self.cleaned_data["members"]]
        names = [line.strip() for line in self.cleaned_data["guests"].splitlines()]
        return members + [SlatePlayer(name) for name in names if name]
