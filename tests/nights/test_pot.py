"""A night played for the pot (rules.md 3.10): buying back in at a live table, each player's
stakes and winnings booked at the rubber's end, who pays whom once the night closes, and every
cent counted once: after a rebuild, and after a server that died at the rubber's end."""

from __future__ import annotations

import random
import secrets
from collections import OrderedDict
from html import unescape
from io import StringIO

import pytest
from django.core.management import call_command
from django.db.models import Sum

from clubs.models import HouseRuleProfile, Membership
from clubs.money import money
from games.bots import make_bot
from games.engine import HouseRules
from games.models import Rubber, Table
from games.services import bot_seats, tables
from games.services.snapshots import load_state
from games.services.tables import TableError
from games.view.context import Viewer, render_view
from nights import services
from nights.models import Night, Payment, PlayerRubber
from tests.nights.conftest import open_table, step
from tests.personas import Cast

pytestmark = pytest.mark.django_db

POT = HouseRules(starting_lives=2, end_condition="last_standing", pot_stake=250, buy_back=1)


@pytest.fixture
def pot_club(klaver: Cast) -> Cast:
    """The cast's club plays for the pot by default: €2.50 a rubber, one buying back in."""
    klaver.club.profiles.update(is_default=False)
    HouseRuleProfile.objects.create(
        club=klaver.club, name="Pot", rules_json=POT.to_json(), is_default=True
    )
    return klaver


def admin(klaver: Cast) -> Membership:
    return Membership.objects.select_related("club", "user").get(
        club=klaver.club, user=klaver.anna.user
    )


def pot_rubber(klaver: Cast, seed: int, buy: bool = True) -> tuple[Table, int | None]:
    """A rubber at Anna's table with Bram, Cas and a computer player, played to its end; the
    first person who may buy back in does (`buy`). The table and the seat that bought.

    Everything in it comes from `seed`: the people's moves, and the cards, the first dealer
    and the computer player's choices too (else drawn from `secrets` afresh each run), so a
    seed plays the same rubber every time."""
    deals = random.Random(f"deals {seed}")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(secrets, "randbits", deals.getrandbits)
        patch.setattr(secrets, "randbelow", deals.randrange)
        patch.setattr(bot_seats, "make_bot", lambda level: make_bot(level, seed))
        patch.setattr(bot_seats, "_bots", OrderedDict())  # no bot of an earlier table's id
        table = open_table(klaver.club, klaver.anna, [klaver.bram, klaver.cas], bots={3: "easy"})
        players = {0: klaver.anna, 1: klaver.bram, 2: klaver.cas}
        rng = random.Random(seed)
        bought = None
        for _ in range(3000):
            state = load_state(Table.objects.get(pk=table.pk))
            assert 3 not in state.buyers(), "a computer player is never offered to buy back in"
            buyers = [seat for seat in state.buyers() if seat in players]
            if buy and buyers and bought is None:
                bought = buyers[0]
                tables.buy_back(table.pk, players[bought].holder, bought)
                continue
            if not step(table.pk, players, rng):
                return Table.objects.get(pk=table.pk), bought
    raise AssertionError("the rubber did not end")


def cents(**where) -> tuple[int, int]:
    sums = PlayerRubber.objects.filter(**where).aggregate(s=Sum("staked"), w=Sum("pot_won"))
    return sums["s"] or 0, sums["w"] or 0


def a_seed_that_buys_back(klaver: Cast) -> tuple[Table, int]:
    for seed in range(20):
        table, bought = pot_rubber(klaver, seed)
        if bought is not None:
            return table, bought
    raise AssertionError("nobody could buy back in")


def test_a_player_who_went_out_buys_back_in_and_every_cent_is_booked_once(pot_club: Cast) -> None:
    services.open_night(admin(pot_club))
    table, bought = a_seed_that_buys_back(pot_club)
    rubber = Rubber.objects.filter(table=table).get()
    assert rubber.over and rubber.pot_stake == 250
    assert [seat for seat, _before in rubber.buy_backs] == [bought]
    pot = 250 * 5
    assert cents(rubber=rubber) == (pot, pot)
    mine = PlayerRubber.objects.get(rubber=rubber, participant__seat=bought)
    assert mine.staked == 500
    takers = PlayerRubber.objects.filter(rubber=rubber, pot_won__gt=0)
    assert {row.participant.seat for row in takers} == set(rubber.pot_takers)


def test_buying_back_in_is_refused_for_a_player_still_in_and_after_the_deal(
    pot_club: Cast,
) -> None:
    table = open_table(pot_club.club, pot_club.anna, [pot_club.bram, pot_club.cas, pot_club.dirk])
    players = {0: pot_club.anna, 1: pot_club.bram, 2: pot_club.cas, 3: pot_club.dirk}
    version = Table.objects.get(pk=table.pk).version
    with pytest.raises(TableError) as caught:
        tables.buy_back(table.pk, pot_club.anna.holder, 0)
    assert caught.value.code == "not_between_hands"
    assert Table.objects.get(pk=table.pk).version == version
    went_out = None
    for seed in range(20):
        if seed:
            table = open_table(
                pot_club.club, pot_club.anna, [pot_club.bram, pot_club.cas, pot_club.dirk]
            )
        rng = random.Random(seed)
        while went_out is None:
            state = load_state(Table.objects.get(pk=table.pk))
            if state.buyers():
                went_out = state.buyers()[0]
                still_in = next(s for s in range(4) if state.rubber.lives[s] > 0)
                with pytest.raises(TableError) as caught:
                    tables.buy_back(table.pk, players[still_in].holder, still_in)
                assert caught.value.code == "not_out"
                step(table.pk, players, rng)  # the next deal: she stayed out
            elif not step(table.pk, players, rng):
                break
        if went_out is not None:
            break
    assert went_out is not None
    before = Rubber.objects.get(table=table)
    with pytest.raises(TableError) as caught:
        tables.buy_back(table.pk, players[went_out].holder, went_out)
    assert caught.value.code in ("not_between_hands", "not_out")
    after = Rubber.objects.get(table=table)
    assert (after.lives, after.buy_backs) == (before.lives, before.buy_backs)


def test_the_closed_night_lists_who_pays_whom_and_each_payment_is_ticked_once(
    pot_club: Cast,
) -> None:
    night = services.open_night(admin(pot_club))
    a_seed_that_buys_back(pot_club)
    services.close_night(admin(pot_club), night)
    payments = list(Payment.objects.filter(night=night))
    balance: dict[str, int] = {}
    for row in PlayerRubber.objects.filter(night=night):
        balance[row.key] = balance.get(row.key, 0) + row.pot_won - row.staked
    assert sum(balance.values()) == 0
    people = sum(1 for value in balance.values() if value)
    assert 0 < len(payments) <= people - 1
    for payment in payments:
        balance[payment.payer_key] += payment.cents
        balance[payment.payee_key] -= payment.cents
    assert set(balance.values()) == {0}
    first = payments[0]
    services.tick_payment(night, first.pk, pot_club.cas.user)
    with pytest.raises(services.NightError):
        services.tick_payment(night, first.pk, pot_club.bram.user)
    first.refresh_from_db()
    assert first.paid_by == pot_club.cas.user


def test_the_night_page_shows_stakes_winnings_and_balances_in_the_readers_money(
    pot_club: Cast,
) -> None:
    night = services.open_night(admin(pot_club))
    a_seed_that_buys_back(pot_club)
    client = pot_club.bram.client()
    address = f"/clubs/{pot_club.club.slug}/nights/{night.pk}/"
    client.cookies["django_language"] = "nl"
    html = client.get(address, HTTP_ACCEPT_LANGUAGE="nl").content.decode().replace("\xa0", " ")
    assert "De pot" in html and "Saldo" in html
    staked = PlayerRubber.objects.filter(night=night, key=f"u:{pot_club.anna.user.pk}")
    anna = sum(row.staked for row in staked)
    assert money(anna, "EUR", "nl").replace("\xa0", " ") in html
    services.close_night(admin(pot_club), night)
    client.cookies["django_language"] = "en"
    html = client.get(address, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    payment = Payment.objects.filter(night=night).first()
    assert payment is not None
    assert f"{payment.payer_name} pays {payment.payee_name} €" in html.replace("&nbsp;", " ")


def test_a_rebuild_counts_the_same_cents_and_keeps_the_settlement(pot_club: Cast) -> None:
    night = services.open_night(admin(pot_club))
    a_seed_that_buys_back(pot_club)
    pot_rubber(pot_club, seed=7, buy=False)
    services.close_night(admin(pot_club), night)
    payment = Payment.objects.filter(night=night).first()
    services.tick_payment(night, payment.pk, pot_club.cas.user)

    def booked():
        rows = PlayerRubber.objects.order_by("participant_id")
        return [(r.participant_id, r.key, r.staked, r.pot_won) for r in rows]

    def settled():
        return list(Payment.objects.values_list("payer_key", "payee_key", "cents", "paid_at"))

    before, settlement = booked(), settled()
    PlayerRubber.objects.update(staked=0, pot_won=0)
    call_command("rebuild_standings", stdout=StringIO())
    assert booked() == before
    assert settled() == settlement


class Killed(BaseException):
    """The server process dying: no handler of the application catches it."""


@pytest.mark.booking_may_fail
def test_a_server_killed_at_a_rubbers_end_loses_no_cent_and_books_none_twice(
    pot_club: Cast, monkeypatch
) -> None:
    services.open_night(admin(pot_club))
    original = services.record_rubber
    deaths = []

    def dies(*args, **kwargs):
        deaths.append(1)
        monkeypatch.setattr(services, "record_rubber", original)  # the restarted server
        original(*args, **kwargs)  # the booking is written, then the process dies
        raise Killed

    monkeypatch.setattr(services, "record_rubber", dies)
    table = open_table(pot_club.club, pot_club.anna, [pot_club.bram, pot_club.cas, pot_club.dirk])
    players = {0: pot_club.anna, 1: pot_club.bram, 2: pot_club.cas, 3: pot_club.dirk}
    rng = random.Random(2)
    for _ in range(3000):
        try:
            if not step(table.pk, players, rng):
                break
        except Killed:
            # Its transaction never committed: the rubber is not over, nothing is booked.
            assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
            assert not PlayerRubber.objects.exists()
    assert deaths == [1]
    rubber = Rubber.objects.get(table=table)
    assert rubber.over
    assert PlayerRubber.objects.filter(rubber=rubber).count() == 4
    assert cents(club=pot_club.club) == (1000, 1000)
    call_command("rebuild_standings", stdout=StringIO())
    assert cents(club=pot_club.club) == (1000, 1000)
    assert Night.objects.get().version > 0


def test_the_phone_of_a_player_who_may_buy_back_in_offers_it_and_no_other_phone_does(
    pot_club: Cast,
) -> None:
    players = {0: pot_club.anna, 1: pot_club.bram, 2: pot_club.cas, 3: pot_club.dirk}
    for seed in range(20):
        table = open_table(
            pot_club.club, pot_club.anna, [pot_club.bram, pot_club.cas, pot_club.dirk]
        )
        rng = random.Random(seed)
        state = load_state(Table.objects.get(pk=table.pk))
        while not state.buyers() and step(table.pk, players, rng):
            state = load_state(Table.objects.get(pk=table.pk))
        if state.buyers():
            break
    [out] = state.buyers()[:1]
    for seat in range(4):
        html = unescape(render_view(state, Viewer(seats=(seat,), active=seat), language="en"))
        assert "Pot: €10.00" in html
        assert ("Buy back in (€2.50)" in html) == (seat in state.buyers()), seat
    assert out in state.buyers()
    tables.buy_back(table.pk, players[out].holder, out)
    state = load_state(Table.objects.get(pk=table.pk))
    html = unescape(render_view(state, Viewer(seats=(out,), active=out), language="en"))
    assert "Pot: €12.50" in html and "Buy back in" not in html


def test_an_admin_sets_the_clubs_currency_and_the_pot_is_shown_in_it(pot_club: Cast) -> None:
    path = f"/clubs/{pot_club.club.slug}/nights/settings/"
    client = pot_club.anna.client()
    assert client.post(path, {"king_wins": "3", "currency": "XYZ"}).status_code == 400
    pot_club.club.refresh_from_db()
    assert pot_club.club.currency == "EUR"
    assert client.post(path, {"king_wins": "3", "currency": "CHF"}).status_code == 302
    pot_club.club.refresh_from_db()
    assert pot_club.club.currency == "CHF"
    table, _bought = pot_rubber(pot_club, seed=7, buy=False)
    assert Rubber.objects.get(table=table).currency == "CHF"
