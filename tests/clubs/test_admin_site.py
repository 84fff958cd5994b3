"""Every model of the club side is in the Django admin, and its pages open."""

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

from accounts.models import User

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("app_label", ["accounts", "clubs"])
def test_every_model_is_registered_in_the_admin(app_label):
    for model in apps.get_app_config(app_label).get_models():
        assert model in admin.site._registry, model


def test_the_admin_lists_and_shows_every_model(club, client):
    root = User.objects.create_superuser("root", "root@example.com", "root-pass-123")
    client.force_login(root)
    for app_label in ("accounts", "clubs"):
        for model in apps.get_app_config(app_label).get_models():
            opts = model._meta
            changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
            assert client.get(changelist).status_code == 200, changelist
            first = model.objects.first()
            if first is not None:
                change = reverse(
                    f"admin:{opts.app_label}_{opts.model_name}_change", args=[first.pk]
                )
                assert client.get(change).status_code == 200, change


def test_the_admin_validates_profile_rules_with_the_engine(club, client):
    root = User.objects.create_superuser("root", "root@example.com", "root-pass-123")
    client.force_login(root)
    profile = club.profiles.get()
    response = client.post(
        reverse("admin:clubs_houseruleprofile_change", args=[profile.pk]),
        {
            "club": club.pk,
            "name": profile.name,
            "rules_json": '{"starting_lives": 0}',
            "is_default": "on",
        },
    )
    assert response.status_code == 200
    assert "starting_lives" in response.content.decode()
    profile.refresh_from_db()
    assert profile.rules_json["starting_lives"] == 10


def test_the_admin_sign_in_goes_through_the_rate_limited_sign_in(client):
    response = client.get("/admin/login/?next=/admin/")
    assert response.status_code == 302
    assert response.url == f"{reverse('account_login')}?next=%2Fadmin%2F"


def test_the_admins_own_form_signs_nobody_in_staff_use_the_sign_in(client):
    User.objects.create_superuser("root", "root@example.com", "root-pass-123")
    for password in ["wrong"] * 10 + ["root-pass-123"]:
        response = client.post(
            "/admin/login/?next=/admin/", {"username": "root", "password": password}
        )
        assert response.status_code == 302
        assert response.url.startswith(reverse("account_login"))
    assert "_auth_user_id" not in client.session
    # The way in for staff is the sign-in, which counts failures.
    response = client.post(
        f"{reverse('account_login')}?next=/admin/", {"login": "root", "password": "root-pass-123"}
    )
    assert response.url == "/admin/"
    assert client.get("/admin/").status_code == 200
