"""The people of every test, one cast for every layer (as healthchecks' hc/test.py).

De Gouden Klaver (`klaver.club`): Anna founded it and is its admin; Bram, Cas and Dirk are its
members. Eva has an account but is in no club of theirs: she founded Het Zwarte Schaap
(`klaver.other`). Femke asked to join De Gouden Klaver and waits for an admin. Guus plays as a
guest, without an account. An anonymous visitor has neither.

Each of them is a fixture of their own (a `User`, or for Guus a `Guest`); `klaver` is the two
clubs with everyone in their place, each a `Persona` with a signed-in session of their own (for
a websocket's cookie or a test client) and the phone key that holds their seats.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client

from accounts.guests import SESSION_KEY as GUEST_SESSION_KEY
from accounts.models import Guest, User
from accounts.translations import compile_catalogues
from clubs import services
from clubs.models import Club, HouseRuleProfile, Membership
from games.engine import HouseRules
from games.services.state import HOLDER_SESSION_KEY, Holder

PASSWORD = "klaver-boer-7"

# The pages are checked in Dutch and German too: the catalogues must be compiled first.
compile_catalogues()


@dataclass
class Persona:
    """Someone at the pub with a phone: an account or a guest, a session, the key of the phone
    that holds their seats."""

    name: str
    user: User | None = None
    guest: Guest | None = None
    holder_key: str = ""
    session_key: str = ""

    def __post_init__(self) -> None:
        self.holder_key = self.holder_key or f"phone-of-{self.name.lower()}"

    @property
    def holder(self) -> Holder:
        return Holder(
            user_id=self.user.pk if self.user else None,
            guest_id=self.guest.pk if self.guest else None,
            key=self.holder_key,
        )

    def cookie(self) -> bytes:
        """The session cookie a websocket of this phone sends."""
        return f"{django_settings.SESSION_COOKIE_NAME}={self.session_key}".encode()

    def client(self) -> Client:
        """A test client signed in as this person (a guest's session holds the guest)."""
        client = Client()
        if self.user is not None:
            client.force_login(self.user)
        if self.guest is not None:
            session = client.session
            session[GUEST_SESSION_KEY] = self.guest.pk
            session.save()
        return client


def make_user(username: str, display_name: str = "") -> User:
    return User.objects.create_user(
        username=username,
        email=f"{username}@example.com",
        password=PASSWORD,
        display_name=display_name,
    )


def signed_in(user: User | None = None, guest: Guest | None = None, holder: str = "") -> str:
    """A stored session for `user` or `guest`, whose phone key is `holder`: its key."""
    store = SessionStore()
    if user is not None:
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    if guest is not None:
        store[GUEST_SESSION_KEY] = guest.pk
    if holder:
        store[HOLDER_SESSION_KEY] = holder
    store.create()
    return store.session_key or ""


def persona(user: User | None = None, guest: Guest | None = None, name: str = "") -> Persona:
    """`user` or `guest` as a Persona, with a session of their own."""
    name = name or (str(user) if user is not None else guest.display_name if guest else "")
    person = Persona(name, user=user, guest=guest)
    person.session_key = signed_in(user, guest, person.holder_key)
    return person


def guest(name: str) -> Persona:
    """A guest who walked in tonight, with a session of her own."""
    return persona(guest=Guest.objects.create(display_name=name))


def member(club: Club, username: str, role: str = Membership.Role.MEMBER) -> Persona:
    """Another active member of `club`, with a session of her own."""
    user = make_user(username, username.capitalize())
    Membership.objects.create(club=club, user=user, role=role, status=Membership.Status.ACTIVE)
    return persona(user)


@dataclass
class Cast:
    club: Club  # De Gouden Klaver
    other: Club  # Het Zwarte Schaap, Eva's
    anna: Persona  # founded De Gouden Klaver: its admin
    bram: Persona  # member
    cas: Persona  # member
    dirk: Persona  # member
    eva: Persona  # no member of De Gouden Klaver; admin of Het Zwarte Schaap
    femke: Persona  # asked to join De Gouden Klaver, waits
    guus: Persona  # a guest


def short_rubbers(cast: Cast) -> Cast:
    """Both clubs play rubbers of two lives by default ("Kort"): a test that plays to a
    rubber's end does so in a few hands."""
    for club in (cast.club, cast.other):
        club.profiles.update(is_default=False)
        HouseRuleProfile.objects.create(
            club=club,
            name="Kort",
            rules_json=HouseRules(starting_lives=2).to_json(),
            is_default=True,
        )
    return cast


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
def eva(db: None) -> User:
    return make_user("eva", "Eva")


@pytest.fixture
def femke(db: None) -> User:
    return make_user("femke", "Femke")


@pytest.fixture
def guus(db: None) -> Guest:
    return Guest.objects.create(display_name="Guus")


@pytest.fixture
def klaver(
    anna: User, bram: User, cas: User, dirk: User, eva: User, femke: User, guus: Guest
) -> Cast:
    club = services.found_club(anna, "De Gouden Klaver")
    for user in (bram, cas, dirk):
        Membership.objects.create(club=club, user=user)
    Membership.objects.create(club=club, user=femke, status=Membership.Status.PENDING)
    other = services.found_club(eva, "Het Zwarte Schaap")
    return Cast(
        club,
        other,
        *(persona(user) for user in (anna, bram, cas, dirk, eva, femke)),
        persona(guest=guus),
    )


@pytest.fixture
def club(klaver: Cast) -> Club:
    return klaver.club


@pytest.fixture
def anna_client(anna: User) -> Client:
    return client_for(anna)


@pytest.fixture
def bram_client(bram: User) -> Client:
    return client_for(bram)


@pytest.fixture
def eva_client(eva: User) -> Client:
    return client_for(eva)


@pytest.fixture
def femke_client(femke: User) -> Client:
    return client_for(femke)


@pytest.fixture
def guest_client(guus: Guest) -> Client:
    """Guus's phone: a browser session that holds a guest, no account."""
    return Persona("Guus", guest=guus).client()


@pytest.fixture
def anonymous_client() -> Client:
    return Client()


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client
