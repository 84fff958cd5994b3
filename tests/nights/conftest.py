"""The people of these tests, and a table driven to the end of its rubbers from the test side.

De Gouden Klaver: Anna (admin), Bram, Cas and Dirk (members). Eva has an account and her own
club, Het Zwarte Schaap, but is no member of De Gouden Klaver. Guus plays as a guest.
Rubbers are short (2 lives) and every action goes through games.services.tables, as from a phone.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone, translation

from accounts.guests import SESSION_KEY as GUEST_SESSION_KEY
from accounts.models import Guest, User
from accounts.translations import compile_catalogues
from clubs.models import Club, HouseRuleProfile, Membership
from games.engine import HouseRules
from games.models import Table
from games.services import tables
from games.services.snapshots import load_state
from games.services.state import Holder

compile_catalogues()

LAUNDRY = ("exchange", "challenge")


@pytest.fixture(autouse=True)
def clocks(settings: Any) -> None:
    settings.TOEPEN_LAUNDRY_SECONDS = 30  # closed by every seat saying ready
    settings.TOEPEN_BOT_SECONDS = 0
    settings.TOEPEN_BETWEEN_HANDS_SECONDS = 0
    settings.TOEPEN_TURN_SECONDS = 60
    settings.TOEPEN_GRACE_SECONDS = 30


@pytest.fixture(autouse=True)
def booking_never_fails(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rubber's booking that fails is logged and the table plays on (by design); in these
    tests it must never happen unnoticed."""
    if request.node.get_closest_marker("booking_may_fail"):
        return
    from nights import services as nights_services

    def fail(message: str, *args: Any, **kwargs: Any) -> None:
        raise AssertionError(message % args)

    monkeypatch.setattr(nights_services.log, "exception", fail)


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    with translation.override("en"):
        yield


@dataclass
class Player:
    name: str
    user: User | None = None
    guest: Guest | None = None

    @property
    def holder(self) -> Holder:
        return Holder(
            user_id=self.user.pk if self.user else None,
            guest_id=self.guest.pk if self.guest else None,
            key=f"phone-of-{self.name}",
        )

    def client(self) -> Client:
        client = Client()
        if self.user is not None:
            client.force_login(self.user)
        if self.guest is not None:
            session = client.session
            session[GUEST_SESSION_KEY] = self.guest.pk
            session.save()
        return client


@dataclass
class Klaver:
    club: Club
    other: Club
    anna: Player
    bram: Player
    cas: Player
    dirk: Player
    eva: Player
    guus: Player


def person(name: str) -> Player:
    user = User.objects.create_user(username=name.lower(), password="x-long-password-1")
    user.display_name = name
    user.save()
    return Player(name, user=user)


@pytest.fixture
def klaver(db: Any) -> Klaver:
    club = Club.objects.create(name="De Gouden Klaver", slug="de-gouden-klaver")
    HouseRuleProfile.objects.create(
        club=club, name="Kort", rules_json=HouseRules(starting_lives=2).to_json(), is_default=True
    )
    other = Club.objects.create(name="Het Zwarte Schaap", slug="het-zwarte-schaap")
    HouseRuleProfile.objects.create(
        club=other, name="Kort", rules_json=HouseRules(starting_lives=2).to_json(), is_default=True
    )
    people = {name: person(name) for name in ("Anna", "Bram", "Cas", "Dirk", "Eva")}
    for name, role in (
        ("Anna", "admin"),
        ("Bram", "member"),
        ("Cas", "member"),
        ("Dirk", "member"),
    ):
        Membership.objects.create(club=club, user=people[name].user, role=role)
    Membership.objects.create(club=other, user=people["Eva"].user, role="admin")
    guus = Player("Guus", guest=Guest.objects.create(display_name="Guus"))
    return Klaver(
        club,
        other,
        people["Anna"],
        people["Bram"],
        people["Cas"],
        people["Dirk"],
        people["Eva"],
        guus,
    )


def open_table(
    club: Club, opener: Player, others: list[Player], bots: dict[int, str] | None = None
) -> Table:
    """A table with `opener` in seat 0 and `others` in the next seats (computer players where
    `bots` says), its first rubber started."""
    assert opener.user is not None
    seats = 1 + len(others) + len(bots or {})
    table = tables.create_table(
        club=club,
        user=opener.user,
        seat_count=seats,
        bots=bots,
        holder_key=opener.holder.key,
    )
    free = [i for i in range(1, seats) if i not in (bots or {})]
    for index, player in zip(free, others, strict=True):
        tables.take_seat(table.pk, index, player.holder, player.name)
    tables.start_rubber(table.pk, opener.user)
    return Table.objects.get(pk=table.pk)


def step(table_id: int, players: dict[int, Player], rng: random.Random) -> bool:
    """One move at the table: a due person's random legal action, the laundry (an exchange or
    a challenge now and then, then ready), or the table's own deadline (a computer player, the
    next deal). False once the rubber is over."""
    table = Table.objects.get(pk=table_id)
    if table.status != Table.Status.PLAYING:
        return False
    state = load_state(table)
    hand = state.hand
    now = timezone.now()
    if hand is None or hand.complete:
        tables.fire_deadline(table_id, now + timedelta(seconds=1))
        return True
    if state.laundry_open(now):
        for hand_seat, table_seat in enumerate(state.hand_seats):
            player = players.get(table_seat)
            if player is None or table_seat in table.laundry_ready:
                continue
            moves = [a for a in hand.legal_actions(hand_seat) if a.act in LAUNDRY]
            if moves and rng.random() < 0.3:
                move = rng.choice(moves).to_json()
                if "target" in move:
                    move["target"] = state.table_seat(move["target"])
                move.pop("seat")
                tables.act(table_id, player.holder, table_seat, move, uuid.uuid4().hex)
                return True
            tables.ready(table_id, player.holder, table_seat)
            return True
        tables.fire_deadline(table_id, now + timedelta(seconds=1))
        return True
    due = hand.due()
    table_seat = state.table_seat(due[0]) if due else None
    if table_seat is None or table_seat not in players:
        tables.fire_deadline(table_id, now + timedelta(seconds=1))
        return True
    legal = [a for a in hand.legal_actions(due[0]) if a.act not in LAUNDRY]
    knocks = [a for a in legal if a.act == "knock"]
    others = [a for a in legal if a.act != "knock"]
    action = rng.choice(knocks if knocks and rng.random() < 0.3 else others or legal)
    move = action.to_json()
    move.pop("seat")
    tables.act(table_id, players[table_seat].holder, table_seat, move, uuid.uuid4().hex)
    return True


def play_rubber(table: Table, players: dict[int, Player], seed: int = 1) -> None:
    rng = random.Random(seed)
    for _ in range(3000):
        if not step(table.pk, players, rng):
            return
    raise AssertionError("the rubber did not end")


def play_until_hand(table: Table, players: dict[int, Player], seed: int = 1) -> None:
    """Play until a hand has begun and is under way (a card played), not yet over."""
    rng = random.Random(seed)
    for _ in range(3000):
        state = load_state(Table.objects.get(pk=table.pk))
        hand = state.hand
        if hand is not None and not hand.complete and hand.tricks and not hand.laundry:
            return
        assert step(table.pk, players, rng), "the rubber ended first"
    raise AssertionError("no hand got under way")


def next_rubber(table: Table, opener: Player) -> None:
    assert opener.user is not None
    tables.start_rubber(table.pk, opener.user)
