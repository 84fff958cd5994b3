from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from clubs.money import CURRENCIES
from nights import services
from nights.models import KING_WINS_MAX, POINTS_MAX


class NightSettingsForm(forms.Form):
    king_wins = forms.IntegerField(
        label=_("Rubbers won to be Toepkoning"),
        min_value=1,
        max_value=KING_WINS_MAX,
        help_text=_("The first player to win this many rubbers in one night is its Toepkoning."),
    )
    members_open_nights = forms.BooleanField(
        label=_("Any member may open and close a night"), required=False
    )
    round_amount = forms.DecimalField(
        label=_("Amount for the kitty per rubber lost"),
        required=False,
        min_value=Decimal("0.01"),
        max_value=Decimal("1000"),
        max_digits=6,
        decimal_places=2,
        help_text=_("Empty: whoever loses a rubber owes a round."),
    )
    currency = forms.ChoiceField(
        label=_("The club's currency"),
        choices=[(code, code) for code in CURRENCIES],
        required=False,
        help_text=_("For the pot and the kitty."),
    )


class SeasonForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=60)
    starts_on = forms.DateField(
        label=_("First day"), widget=forms.DateInput(attrs={"type": "date"})
    )
    ends_on = forms.DateField(label=_("Last day"), widget=forms.DateInput(attrs={"type": "date"}))
    points_win = forms.IntegerField(
        label=_("Points for a win"), min_value=0, max_value=POINTS_MAX, initial=3
    )
    points_survive = forms.IntegerField(
        label=_("Points for surviving"), min_value=0, max_value=POINTS_MAX, initial=1
    )
    points_lose = forms.IntegerField(
        label=_("Points for a loss"), min_value=0, max_value=POINTS_MAX, initial=0
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        fields = ("name", "starts_on", "ends_on", "points_win", "points_survive", "points_lose")
        if all(data.get(name) is not None for name in fields):
            try:
                data["name"] = services.check_season(
                    data["name"],
                    data["starts_on"],
                    data["ends_on"],
                    (data["points_win"], data["points_survive"], data["points_lose"]),
                )
            except services.NightError as error:
                raise forms.ValidationError(str(error)) from None
        return data

    def points(self) -> tuple[int, int, int]:
        data = self.cleaned_data
        return data["points_win"], data["points_survive"], data["points_lose"]
