from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from accounts.names import clean_display_name


class ProfileForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ("display_name", "language")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["language"].choices = [("", _("As my browser"))] + [
            choice for choice in self.fields["language"].choices if choice[0]
        ]

    def clean_display_name(self) -> str:
        value = self.cleaned_data["display_name"]
        # Empty is allowed (the username is shown); anything else is trimmed like a guest's.
        return clean_display_name(value) if value.strip() else ""


class GuestForm(forms.Form):
    display_name = forms.CharField(
        label=_("Your name at the table"),
        max_length=200,
        widget=forms.TextInput(attrs={"autocomplete": "nickname", "autofocus": True}),
    )

    def clean_display_name(self) -> str:
        return clean_display_name(self.cleaned_data["display_name"])
