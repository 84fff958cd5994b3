"""Whole rubbers played live: no phone and no spectator is ever sent a card it may not see."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from clubs.models import HouseRuleProfile
from games.engine import HouseRules
from games.models import PlayedHand, Rubber, RubberPlayer, Table
from games.services import tables
from games.services.snapshots import load_state
from games.services.state import Holder
from tests.live.driver import assert_no_leaks, play_rubber
from tests.personas import Cast, Persona, member, signed_in
from tests.tables import aseat_people, connect, live_attrs

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@database_sync_to_async
def open_table(klaver: Cast, rules: HouseRules | None = None, bots: dict | None = None) -> Table:
    profile = None
    if rules is not None:
        profile = HouseRuleProfile.objects.create(
            club=klaver.club,
            name=f"p{HouseRuleProfile.objects.count()}",
            rules_json=rules.to_json(),
        )
    return tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        profile=profile,
        bots=bots or {},
        holder_key=klaver.anna.holder_key,
    )


async def test_four_phones_and_a_spectator_play_two_rubbers_and_see_no_hidden_card(
    klaver: Cast,
) -> None:
    table = await open_table(klaver)
    people = {0: klaver.anna, 1: klaver.bram, 2: klaver.cas, 3: klaver.dirk}
    await aseat_people(table.pk, [(i, p) for i, p in people.items() if i])
    hanna = await database_sync_to_async(member)(klaver.club, "hanna")
    phones = {seat: await connect(person, table.code) for seat, person in people.items()}
    spectator = await connect(hanna, table.code)
    await database_sync_to_async(tables.start_rubber)(table.pk, klaver.anna.user)
    await play_rubber(table.pk, phones, seed=3)
    await database_sync_to_async(tables.start_rubber)(table.pk, klaver.anna.user)
    await play_rubber(table.pk, phones, seed=4)
    checked = 0
    for seat, phone in phones.items():
        await phone.drain()
        checked += await assert_no_leaks(table.pk, phone, seat)
        await phone.close()
    assert checked > 100
    await spectator.drain()
    assert await assert_no_leaks(table.pk, spectator, None) > 20
    await spectator.close()
    rubbers = await database_sync_to_async(lambda: list(Rubber.objects.filter(table=table)))()
    assert [r.over for r in rubbers] == [True, True]


async def test_a_watching_member_sees_the_table_and_no_hidden_card(klaver: Cast) -> None:
    table = await open_table(klaver, bots={1: "normal", 2: "normal", 3: "normal"})
    anna = await connect(klaver.anna, table.code)
    bram = await connect(klaver.bram, table.code)  # a member, not seated: watches
    await database_sync_to_async(tables.start_rubber)(table.pk, klaver.anna.user)
    await play_rubber(table.pk, {0: anna}, seed=5)
    await bram.drain()
    await anna.drain()
    assert await assert_no_leaks(table.pk, bram, None) > 10
    assert await assert_no_leaks(table.pk, anna, 0) > 10
    played = await database_sync_to_async(PlayedHand.objects.filter(rubber__table=table).count)()
    assert played >= 1
    assert all("table-hand" in f for f in bram.frames if "table-live" in f)
    await anna.close()
    await bram.close()


async def test_a_shared_phone_shows_one_hand_at_a_time_behind_a_privacy_screen(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The test plays at machine speed, two frames a move: lift the limit meant for people.
    monkeypatch.setattr("games.live.consumers.RATE_PER_SECOND", 1000)
    monkeypatch.setattr("games.live.consumers.FLOOD_FRAMES", 100000)
    table = await open_table(klaver, bots={2: "easy", 3: "easy"})
    # Bram sits at Anna's phone: the same browser holds seats 0 and 1.
    from games.services.state import Holder

    await database_sync_to_async(tables.take_seat)(
        table.pk, 1, Holder(user_id=klaver.bram.user.pk, key=klaver.anna.holder_key), "Bram"
    )
    phone = await connect(klaver.anna, table.code)
    await database_sync_to_async(tables.start_rubber)(table.pk, klaver.anna.user)

    shows_sent = 0
    original_send = phone.send

    async def send(frame):
        nonlocal shows_sent
        # Before acting for a seat, the phone is handed over: tap to show that seat's cards.
        if isinstance(frame, dict) and "act" in frame:
            await original_send({"type": "show", "seat": frame["seat"]})
            shows_sent += 1
        await original_send(frame)

    phone.send = send  # type: ignore[method-assign]
    try:
        await play_rubber(table.pk, {0: phone, 1: phone}, seed=6)
    finally:
        await phone.drain()
        print([f for f in phone.frames if "table-live" not in f][-3:])
    await phone.drain()
    assert shows_sent > 0
    privacy = [f for f in phone.frames if "table-live" in f and live_attrs(f).get("privacy")]
    assert privacy, "the phone was never covered between its two players"
    assert any("Pass to" in f for f in privacy)
    assert await assert_no_leaks(table.pk, phone, "active") > 10
    await phone.close()


async def test_a_finished_rubber_is_stored_with_its_hands_and_standings(klaver: Cast) -> None:
    table = await open_table(klaver, bots={1: "easy", 2: "easy", 3: "easy"})
    phone = await connect(klaver.anna, table.code)
    await database_sync_to_async(tables.start_rubber)(table.pk, klaver.anna.user)
    await play_rubber(table.pk, {0: phone}, seed=7)

    @database_sync_to_async
    def stored() -> tuple[Rubber, list[PlayedHand], list[RubberPlayer]]:
        rubber = Rubber.objects.get(table=table)
        return rubber, list(rubber.hands.all()), list(rubber.participants.all())

    rubber, hands, players = await stored()
    assert rubber.over and rubber.finished_at is not None
    assert all(hand.complete and hand.result for hand in hands)
    total_lost = [0] * 4
    for hand in hands:
        for hand_seat, lost in enumerate(hand.result["lives_lost"]):
            total_lost[hand.seats[hand_seat]] += lost
    assert [p.lives_lost for p in players] == total_lost
    assert [p.lost for p in players] == [seat in rubber.losers for seat in range(4)]
    assert any(p.lost for p in players)
    assert [p.won for p in players] == [seat == rubber.winner for seat in range(4)]
    assert (await database_sync_to_async(Table.objects.get)(pk=table.pk)).status == "rubber_over"
    await phone.close()


async def test_stale_watcher_tabs_of_a_member_who_sits_down_elsewhere_leak_nothing_to_watchers(
    klaver: Cast,
) -> None:
    # Bram watches in three tabs, then takes a seat from another device under the same
    # account: his old tabs become seat holders, and none of their views may go to Femke.
    table = await open_table(klaver, bots={2: "easy", 3: "easy"})
    hanna = await database_sync_to_async(member)(klaver.club, "hanna")
    gijs = await database_sync_to_async(member)(klaver.club, "gijs")
    tabs = [await connect(klaver.bram, table.code) for _ in range(3)]
    watchers = [await connect(hanna, table.code), await connect(gijs, table.code)]
    other_device = Persona("Bram", user=klaver.bram.user, holder_key="bram-other-device")
    other_device.session_key = await database_sync_to_async(signed_in)(
        klaver.bram.user, holder=other_device.holder_key
    )
    await database_sync_to_async(tables.take_seat)(
        table.pk, 1, Holder(user_id=klaver.bram.user.pk, key=other_device.holder_key), "Bram"
    )
    anna = await connect(klaver.anna, table.code)
    bram = await connect(other_device, table.code)
    await database_sync_to_async(tables.start_rubber)(table.pk, klaver.anna.user)
    await play_rubber(table.pk, {0: anna, 1: bram}, seed=11)
    checked = 0
    for watcher in watchers:
        await watcher.drain()
        checked += await assert_no_leaks(table.pk, watcher, None)
        await watcher.close()
    assert checked > 20
    for tab in tabs:
        await tab.drain()
        # His own tabs may show his own cards, never anyone else's.
        assert await assert_no_leaks(table.pk, tab, 1) > 10
        await tab.close()
    await anna.close()
    await bram.close()


def end_rubber_by_folds(table: Table, people: dict[int, Persona]) -> list[int]:
    """Each hand: someone knocks and everyone else folds, until the rubber is over; the seats
    whose cards were left unplayed in its last hand (the winner's)."""
    for _ in range(10):
        state = load_state(Table.objects.get(pk=table.pk))
        if state.table.status == Table.Status.RUBBER_OVER:
            assert state.hand is not None
            return [s for s in state.hand_seats if state.hand.hands[state.hand_seat(s)]]
        hand = state.hand
        assert hand is not None
        if hand.complete:
            tables.fire_deadline(table.pk)  # the next deal
            continue
        knocker = next(
            s for s in range(hand.n) if "knock" in {a.act for a in hand.legal_actions(s)}
        )
        seat = state.table_seat(knocker)
        tables.act(table.pk, people[seat].holder, seat, {"act": "knock"}, f"k{_}")
        awaiting = load_state(Table.objects.get(pk=table.pk)).hand.awaiting
        for hand_seat in awaiting:
            seat = state.table_seat(hand_seat)
            tables.act(table.pk, people[seat].holder, seat, {"act": "fold"}, f"f{_}{seat}")
    raise AssertionError("the rubber did not end")


async def test_whoever_sits_down_after_a_rubber_never_sees_the_last_occupants_cards(
    klaver: Cast,
) -> None:
    table = await database_sync_to_async(tables.create_table)(
        club=klaver.club, user=klaver.anna.user, seat_count=3, holder_key=klaver.anna.holder_key
    )
    people = {0: klaver.anna, 1: klaver.bram, 2: klaver.cas}
    await aseat_people(table.pk, [(1, klaver.bram), (2, klaver.cas)])
    await database_sync_to_async(tables.start_rubber)(table.pk, klaver.anna.user)
    holding = await database_sync_to_async(end_rubber_by_folds)(table, people)
    assert holding, "the last hand was played out: nothing to test"
    seat = holding[0]
    await database_sync_to_async(tables.leave_seat)(table.pk, seat, people[seat].holder)
    hanna = await database_sync_to_async(member)(klaver.club, "hanna")
    await aseat_people(table.pk, [(seat, hanna)])
    newcomer = await connect(hanna, table.code)
    await newcomer.drain()
    # She holds the seat now, but of the last hand she may see only what a spectator saw:
    # here, with every card unplayed, not one card.
    views = [live_attrs(f) for f in newcomer.frames if "table-live" in f]
    assert views and all(v["hand"] != "0" for v in views)
    await assert_no_leaks(table.pk, newcomer, None)
    await newcomer.close()
