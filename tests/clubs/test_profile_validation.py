"""The engine validates house rules; the form and the JSON import show its errors alike."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from clubs.forms import HouseRulesForm, ImportProfileForm
from clubs.house_rules import FIELD_TEXT, GROUPS, error_text
from games.engine.rules import BUILT_IN_PROFILES, FIELDS, HouseRules, RulesError

pytestmark = pytest.mark.django_db


def form_data(**changes: object) -> dict[str, str]:
    """What the browser posts for the classic rules, with some fields changed."""
    data = {"name": "Huisregels"}
    for name, value in HouseRules().to_json().items():
        data[name] = (
            "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
        )
    data.update({name: str(value) for name, value in changes.items()})
    return data


BAD_VALUES = [
    # field, what the form posts, the same value in JSON
    ("starting_lives", "40", 40),
    ("starting_lives", "0", 0),
    ("starting_lives", "veel", "veel"),
    ("starting_lives", "", None),
    ("end_condition", "sometimes", "sometimes"),
    ("exchange", "maybe", "maybe"),
    ("max_knocks_per_player", "9", 9),
    ("response_seconds", "1", 1),
    ("suit_order", "CDSH", "CDSH"),
]


@pytest.mark.parametrize(("field", "posted", "json_value"), BAD_VALUES)
def test_the_form_names_the_field_by_its_label_and_the_json_import_by_its_key_too(
    club, field, posted, json_value
):
    form = HouseRulesForm(club, form_data(**{field: posted}))
    assert not form.is_valid()
    [form_error] = form.errors[field]

    upload = ImportProfileForm(club, {"name": "Gedeeld", "text": json.dumps({field: json_value})})
    assert not upload.is_valid()
    [import_error] = upload.non_field_errors()

    label = str(FIELD_TEXT[field].label)
    assert form_error.startswith(f"{label}: ") and field not in form_error
    assert import_error.startswith(f"{label} ({field}): ")


def test_the_form_names_every_wrong_field_at_once(club):
    form = HouseRulesForm(club, form_data(starting_lives="99", poverty="always"))
    assert not form.is_valid()
    assert set(form.errors) == {"starting_lives", "poverty"}


def test_a_valid_form_gives_the_engines_rules(club):
    form = HouseRulesForm(
        club, form_data(starting_lives="15", max_knocks_per_player="2", exchange="false")
    )
    assert form.is_valid(), form.errors
    rules = form.cleaned_data["rules"]
    assert rules == HouseRules(starting_lives=15, max_knocks_per_player=2, exchange=False)


def test_an_empty_knock_limit_means_no_limit(club):
    form = HouseRulesForm(club, form_data(max_knocks_per_player=""))
    assert form.is_valid(), form.errors
    assert form.cleaned_data["rules"].max_knocks_per_player is None


def test_an_unknown_field_in_the_json_is_named(club):
    upload = ImportProfileForm(club, {"name": "x", "text": json.dumps({"trumps": "hearts"})})
    assert not upload.is_valid()
    assert "trumps" in upload.non_field_errors()[0]


def test_the_import_takes_what_the_export_gives(club):
    exported = {"name": "Kroeg", "rules": BUILT_IN_PROFILES["kroeg"].to_json()}
    upload = ImportProfileForm(club, {"text": json.dumps(exported)})
    assert upload.is_valid(), upload.errors
    assert upload.cleaned_data["name"] == "Kroeg"
    assert upload.cleaned_data["rules"] == BUILT_IN_PROFILES["kroeg"]


def test_the_import_takes_a_bare_rules_object_with_missing_fields_at_their_defaults(club):
    upload = ImportProfileForm(club, {"name": "Kort", "text": '{"starting_lives": 5}'})
    assert upload.is_valid(), upload.errors
    assert upload.cleaned_data["rules"] == HouseRules(starting_lives=5)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ("", "Choose a JSON file or paste the JSON"),
    ],
)
def test_broken_json_gets_a_clear_message(club, text, expected):
    upload = ImportProfileForm(club, {"name": "x", "text": text})
    assert not upload.is_valid()
    assert expected in " ".join(upload.non_field_errors())


# Python reads at most 4,300 digits of a number and nests only so deep; past that json.loads
# raises ValueError or RecursionError, not JSONDecodeError.
LONG_NUMBER = '{"starting_lives": ' + "1" * 4400 + "}"
DEEP_NESTING = '{"starting_lives": ' + "[" * 20_000 + "]" * 20_000 + "}"
UNREADABLE_JSON = [
    (LONG_NUMBER, "holds a number too long to read"),
    (DEEP_NESTING, "is nested too deep to read"),
]


@pytest.mark.parametrize(("text", "expected"), UNREADABLE_JSON)
def test_pasted_json_too_long_or_too_deep_to_read_gets_a_clear_message(club, text, expected):
    upload = ImportProfileForm(club, {"name": "x", "text": text})
    assert not upload.is_valid()
    assert expected in " ".join(upload.non_field_errors())


@pytest.mark.parametrize(("text", "expected"), UNREADABLE_JSON)
def test_an_uploaded_file_too_long_or_too_deep_to_read_gets_a_clear_message(club, text, expected):
    upload = ImportProfileForm(
        club, {"name": "x"}, {"file": SimpleUploadedFile("rules.json", text.encode())}
    )
    assert not upload.is_valid()
    assert expected in " ".join(upload.non_field_errors())


def test_a_number_too_long_to_read_is_explained_in_dutch(club):
    with translation.override("nl"):
        upload = ImportProfileForm(club, {"name": "x", "text": LONG_NUMBER})
        assert not upload.is_valid()
        assert "getal dat te lang is" in " ".join(upload.non_field_errors())


def test_a_number_too_long_for_python_in_the_form_gets_a_short_message(club):
    form = HouseRulesForm(club, form_data(starting_lives="9" * 5000))
    assert not form.is_valid()
    [message] = form.errors["starting_lives"]
    assert message.startswith("Starting lives: ")
    assert len(message) < 200


def test_a_file_that_is_not_text_is_refused(club):
    upload = ImportProfileForm(
        club, {"name": "x"}, {"file": SimpleUploadedFile("rules.json", b"\xff\xfe\x00garbage")}
    )
    assert not upload.is_valid()
    assert "file" in upload.errors


def test_a_huge_file_is_refused(club):
    big = b'{"starting_lives": 10' + b" " * 70_000 + b"}"
    upload = ImportProfileForm(club, {"name": "x"}, {"file": SimpleUploadedFile("r.json", big)})
    assert not upload.is_valid()
    assert "file" in upload.errors


def test_a_profile_name_is_unique_in_the_club(club):
    upload = ImportProfileForm(club, {"name": "classic", "text": "{}"})
    assert not upload.is_valid()
    assert "name" in upload.errors


def test_every_engine_field_is_in_exactly_one_group_with_words_for_it():
    grouped = [name for _title, names in GROUPS for name in names]
    assert sorted(grouped) == sorted(FIELDS)
    for name, spec in FIELDS.items():
        text = FIELD_TEXT[name]
        assert str(text.label) and str(text.help).endswith(".")
        for choice in spec.choices:
            assert choice in text.options, (name, choice)


def test_the_form_marks_the_default_of_every_field(club):
    form = HouseRulesForm(club)
    for name, spec in FIELDS.items():
        assert "Default:" in str(form.fields[name].help_text), name
        if spec.choices or isinstance(spec.default, bool):
            marked = [
                label for _value, label in form.fields[name].widget.choices if "(default)" in label
            ]
            assert len(marked) == 1, name


@pytest.mark.parametrize(
    ("data", "dutch"),
    [
        ({"starting_lives": 40}, "moet van 1 tot 30 zijn, niet 40"),
        ({"starting_lives": "tien"}, "moet een geheel getal zijn"),
        ({"exchange": "ja"}, "moet true of false zijn"),
        ({"poverty": "altijd"}, "moet een van"),
        ({"starting_lives": None}, "mag niet leeg zijn"),
        ({"troef": "harten"}, "onbekende huisregel"),
    ],
)
def test_every_kind_of_engine_error_is_translated(data, dutch):
    with pytest.raises(RulesError) as caught:
        HouseRules.from_json(data)
    with translation.override("nl"):
        text = error_text(caught.value)
    assert dutch in text


def test_the_editor_names_fields_and_choices_in_its_own_words_not_as_json(club):
    form = HouseRulesForm(club, form_data(end_condition="sudden_death", exchange="maybe"))
    assert not form.is_valid()
    [end] = form.errors["end_condition"]
    assert end == (
        "End of a rubber: must be one of When the first player is out, "
        "Play on until one player has lives left, not 'sudden_death'"
    )
    [laundry] = form.errors["exchange"]
    assert laundry == "Laundry: must be Yes or No"
    for message in (end, laundry):
        assert "end_condition" not in message and "first_out" not in message
        assert "exchange" not in message and "true" not in message
