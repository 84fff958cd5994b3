"""The people in these tests, as in healthchecks' hc/test.py.

Anna founded De Gouden Klaver and is its admin; Bram is a member; Cas has an account but is
in no club of theirs (he admins his own, Het Zwarte Schaap); Dirk asked to join and waits.
A guest plays without an account; an anonymous visitor has neither.
"""

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import translation

from accounts.guests import SESSION_KEY
from accounts.models import Guest, User
from accounts.translations import compile_catalogues
from clubs import services
from clubs.models import Club, Membership

PASSWORD = "klaver-boer-7"

# The pages are checked in Dutch and German too: the catalogues must be compiled first.
compile_catalogues()


def make_user(username: str, display_name: str = "") -> User:
    return User.objects.create_user(
        username=username,
        email=f"{username}@example.com",
        password=PASSWORD,
        display_name=display_name,
    )


@pytest.fixture(autouse=True)
def _fresh_rate_limits() -> None:
    # allauth counts failed sign-ins in the cache; each test starts with none.
    cache.clear()


@pytest.fixture(autouse=True)
def _english_outside_requests() -> Iterator[None]:
    # A request leaves its language active in the thread; code called directly starts in English.
    with translation.override("en"):
        yield


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def anna(db: None) -> User:
    return make_user("anna", "Anna")


@pytest.fixture
def bram(db: None) -> User:
    return make_user("bram", "Bram")


@pytest.fixture
def cas(db: None) -> User:
    return make_user("cas", "Cas")


@pytest.fixture
def dirk(db: None) -> User:
    return make_user("dirk", "Dirk")


@pytest.fixture
def club(anna: User, bram: User, cas: User, dirk: User) -> Club:
    club = services.found_club(anna, "De Gouden Klaver")
    Membership.objects.create(club=club, user=bram)
    Membership.objects.create(club=club, user=dirk, status=Membership.Status.PENDING)
    services.found_club(cas, "Het Zwarte Schaap")
    return club


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def anna_client(anna: User) -> Client:
    return client_for(anna)


@pytest.fixture
def bram_client(bram: User) -> Client:
    return client_for(bram)


@pytest.fixture
def cas_client(cas: User) -> Client:
    return client_for(cas)


@pytest.fixture
def dirk_client(dirk: User) -> Client:
    return client_for(dirk)


@pytest.fixture
def guest_client(db: None) -> Client:
    """Guus, a guest: a browser session that holds a guest, no account."""
    client = Client()
    guest = Guest.objects.create(display_name="Guus")
    session = client.session
    session[SESSION_KEY] = guest.pk
    session.save()
    return client


@pytest.fixture
def anonymous_client() -> Client:
    return Client()
