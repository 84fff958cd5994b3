import re
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.names import clean_name
from clubs.house_rules import BUILT_IN_NAMES, FIELD_TEXT, GROUPS, default_label, error_text
from clubs.models import NAME_MAX, Club, HouseRuleProfile
from games.engine.jsontext import UnreadableJson, read_json
from games.engine.rules import BUILT_IN_PROFILES, FIELDS, HouseRules, RulesError

IMPORT_MAX_BYTES = 64 * 1024
_WHOLE_NUMBER = re.compile(r"-?\d+")


class ClubForm(forms.ModelForm):
    class Meta:
        model = Club
        fields = ("name",)

    def clean_name(self) -> str:
        return clean_name(self.cleaned_data["name"], NAME_MAX, _("Give the club a name."))


class InvitationForm(forms.Form):
    days = forms.TypedChoiceField(
        label=gettext_lazy("Valid for"),
        coerce=int,
        choices=[
            (1, gettext_lazy("1 day")),
            (7, gettext_lazy("7 days")),
            (30, gettext_lazy("30 days")),
        ],
        initial=7,
    )


def _clean_profile_name(club: Club, value: str, exclude_pk: int | None = None) -> str:
    name = clean_name(value, NAME_MAX, _("Give the profile a name."))
    taken = HouseRuleProfile.objects.filter(club=club, name__iexact=name)
    if exclude_pk is not None:
        taken = taken.exclude(pk=exclude_pk)
    if taken.exists():
        raise ValidationError(
            _("This club already has a profile called “%(name)s”.") % {"name": name}
        )
    return name


class NewProfileForm(forms.Form):
    """A new profile starts as a copy: of a built-in profile or of one of the club's own."""

    source = forms.ChoiceField(label=gettext_lazy("Start from"), widget=forms.RadioSelect)
    name = forms.CharField(label=gettext_lazy("Name"), max_length=200, required=False)

    def __init__(self, club: Club, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.club = club
        self.profiles = {str(p.pk): p for p in club.profiles.all()}
        self.fields["source"].choices = [
            (
                gettext_lazy("Built-in profiles"),
                [(f"builtin:{key}", BUILT_IN_NAMES[key]) for key in BUILT_IN_PROFILES],
            ),
        ] + (
            [
                (
                    gettext_lazy("This club's profiles"),
                    [(f"profile:{pk}", p.name) for pk, p in self.profiles.items()],
                )
            ]
            if self.profiles
            else []
        )
        self.fields["source"].initial = "builtin:classic"
        self.fields["name"].help_text = _("Empty: the name of what you start from.")

    def source_rules_and_name(self) -> tuple[HouseRules, str]:
        kind, _sep, key = self.cleaned_data["source"].partition(":")
        if kind == "builtin":
            return BUILT_IN_PROFILES[key], str(BUILT_IN_NAMES[key])
        profile = self.profiles[key]
        return profile.rules(), _("Copy of %(name)s") % {"name": profile.name}

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if "source" not in cleaned:
            return cleaned
        rules, suggested = self.source_rules_and_name()
        try:
            cleaned["name"] = _clean_profile_name(self.club, cleaned.get("name") or suggested)
        except ValidationError as error:
            self.add_error("name", error)
        cleaned["rules"] = rules
        return cleaned


def _parse(name: str, raw: object) -> object:
    """The form's text as the JSON value it stands for; anything odd goes to the engine as is."""
    spec = FIELDS[name]
    if raw is None or raw == "":
        return None
    text = str(raw).strip()
    if isinstance(spec.default, bool):
        return {"true": True, "false": False}.get(text, text)
    if spec.choices:
        return text
    if _WHOLE_NUMBER.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # thousands of digits: Python's guard against slow conversions
            return text
    return text


def _json_value(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class HouseRulesForm(forms.Form):
    """Every field of rules.md section 4, grouped; the engine decides what is valid.

    The form's own fields only carry text: no Django validators, so that a bad value gets the
    engine's own complaint (clubs.house_rules.error_text), in the words the form shows.
    """

    name = forms.CharField(label=gettext_lazy("Name"), max_length=200)

    def __init__(
        self, club: Club, *args: Any, profile: HouseRuleProfile | None = None, **kwargs: Any
    ) -> None:
        if profile is not None and "initial" not in kwargs:
            kwargs["initial"] = {
                "name": profile.name,
                # The snapshot, not the stored JSON: a field added to the engine since shows its
                # default instead of an empty choice.
                **{name: _json_value(value) for name, value in profile.snapshot().items()},
            }
        super().__init__(*args, **kwargs)
        self.club = club
        self.profile = profile
        for name, spec in FIELDS.items():
            self.fields[name] = self._field(name, spec)

    @staticmethod
    def _field(name: str, spec: Any) -> forms.Field:
        text = FIELD_TEXT[name]
        help_text = _("%(sentence)s Default: %(default)s.") % {
            "sentence": text.help,
            "default": default_label(name),
        }
        common = {"label": text.label, "help_text": help_text, "required": False}
        if isinstance(spec.default, bool) or spec.choices:
            values = (True, False) if isinstance(spec.default, bool) else spec.choices
            choices = []
            for value in values:
                label = str(text.options.get(value, value))
                if value == spec.default:
                    label = _("%(option)s (default)") % {"option": label}
                choices.append((_json_value(value), label))
            return forms.CharField(widget=forms.RadioSelect(choices=choices), **common)
        attrs = {"inputmode": "numeric", "min": spec.minimum, "max": spec.maximum}
        if spec.nullable:
            attrs["placeholder"] = _("no limit")
        return forms.CharField(widget=forms.NumberInput(attrs=attrs), **common)

    def groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        return [(str(title), [self[name] for name in names]) for title, names in GROUPS]

    def clean_name(self) -> str:
        return _clean_profile_name(
            self.club, self.cleaned_data["name"], self.profile.pk if self.profile else None
        )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        data = {name: _parse(name, cleaned.get(name)) for name in FIELDS}
        # Field by field, so every wrong field gets its message at once; then the whole.
        for name, value in data.items():
            try:
                HouseRules.from_json({name: value})
            except RulesError as error:
                self.add_error(name, error_text(error, as_shown=True))
        if not any(name in self.errors for name in FIELDS):
            try:
                cleaned["rules"] = HouseRules.from_json(data)
            except RulesError as error:
                field = error.field if error.field in FIELDS else None
                self.add_error(field, error_text(error, as_shown=True))
        return cleaned


def _unreadable_text(error: UnreadableJson) -> str:
    if error.code == "number":
        return _("This JSON holds a number too long to read.")
    if error.code == "depth":
        return _("This JSON is nested too deep to read.")
    return _("This is not valid JSON (line %(line)d, column %(column)d).") % {
        "line": error.line,
        "column": error.column,
    }


class ImportProfileForm(forms.Form):
    """A profile from JSON: the export's {"name", "rules"} or a bare rules object."""

    name = forms.CharField(label=gettext_lazy("Name"), max_length=200, required=False)
    file = forms.FileField(label=gettext_lazy("JSON file"), required=False)
    text = forms.CharField(
        label=gettext_lazy("Or paste the JSON"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}),
    )

    def __init__(self, club: Club, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.club = club
        self.fields["name"].help_text = _("Empty: the name in the file.")

    def _raw_json(self) -> str | None:
        upload = self.cleaned_data.get("file")
        if upload:
            if upload.size > IMPORT_MAX_BYTES:
                self.add_error("file", _("This file is too large for a house-rule profile."))
                return None
            try:
                return upload.read().decode("utf-8-sig")
            except UnicodeDecodeError:
                self.add_error("file", _("This file is not text (UTF-8)."))
                return None
        text = self.cleaned_data.get("text") or ""
        if not text.strip():
            self.add_error(None, _("Choose a JSON file or paste the JSON."))
            return None
        if len(text.encode()) > IMPORT_MAX_BYTES:
            self.add_error("text", _("This text is too long for a house-rule profile."))
            return None
        return text

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        raw = self._raw_json()
        if raw is None:
            return cleaned
        try:
            data = read_json(raw)
        except UnreadableJson as error:
            self.add_error(None, _unreadable_text(error))
            return cleaned
        file_name = ""
        if isinstance(data, dict) and isinstance(data.get("rules"), dict):
            file_name = data.get("name") if isinstance(data.get("name"), str) else ""
            data = data["rules"]
        try:
            cleaned["rules"] = HouseRules.from_json(data)
        except RulesError as error:
            self.add_error(None, error_text(error))
            return cleaned
        try:
            cleaned["name"] = _clean_profile_name(self.club, cleaned.get("name") or file_name)
        except ValidationError as error:
            self.add_error("name", error)
        return cleaned
