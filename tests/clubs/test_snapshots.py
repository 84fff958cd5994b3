"""A table keeps the exact rules it started with: edits of its profile reach new tables only."""

import json

import pytest

from clubs import services
from clubs.models import HouseRuleProfile
from games.engine.rules import BUILT_IN_PROFILES, FIELDS, HouseRules

pytestmark = pytest.mark.django_db


def test_a_snapshot_holds_every_field_of_the_profile(club):
    profile = club.profiles.get(is_default=True)
    snapshot = profile.snapshot()
    assert set(snapshot) == set(FIELDS)
    assert HouseRules.from_json(snapshot) == profile.rules()


def test_a_tables_rules_survive_an_edit_of_its_profile(club):
    profile = services.create_profile(club, "Kroeg", BUILT_IN_PROFILES["kroeg"])
    # What a table stores when it starts (the live table keeps this with the table).
    started_with = json.loads(json.dumps(profile.snapshot()))

    services.update_profile(
        profile, "Kroeg", HouseRules(starting_lives=5, poverty="off", knock_cap="none")
    )

    assert started_with["starting_lives"] == 15
    assert started_with["poverty"] == "stake_two_poor_leads"
    assert HouseRules.from_json(started_with) == BUILT_IN_PROFILES["kroeg"]
    fresh = HouseRuleProfile.objects.get(pk=profile.pk)
    assert fresh.snapshot()["starting_lives"] == 5


def test_a_snapshot_is_a_copy_not_a_view_of_the_profile(club):
    profile = club.profiles.get(is_default=True)
    snapshot = profile.snapshot()
    snapshot["starting_lives"] = 3
    assert profile.rules_json["starting_lives"] == 10
