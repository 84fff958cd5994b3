"""Whole rubbers played live: no phone and no spectator is ever sent a card it may not see."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from clubs.models import HouseRuleProfile
from games import services
from games.engine import HouseRules
from games.models import PlayedHand, Rubber, RubberPlayer, Table
from tests.live.conftest import Club4, aseat_people, connect, live_attrs, member
from tests.live.driver import assert_no_leaks, play_rubber

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@database_sync_to_async
def open_table(klaver: Club4, rules: HouseRules | None = None, bots: dict | None = None) -> Table:
    profile = None
    if rules is not None:
        profile = HouseRuleProfile.objects.create(
            club=klaver.club,
            name=f"p{HouseRuleProfile.objects.count()}",
            rules_json=rules.to_json(),
        )
    return services.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        profile=profile,
        bots=bots or {},
        holder_key=klaver.anna.holder_key,
    )


async def test_four_phones_and_a_spectator_play_two_rubbers_and_see_no_hidden_card(
    klaver: Club4,
) -> None:
    table = await open_table(klaver)
    people = {0: klaver.anna, 1: klaver.bram, 2: klaver.cas, 3: klaver.dirk}
    await aseat_people(table.pk, [(i, p) for i, p in people.items() if i])
    femke = await database_sync_to_async(member)(klaver.club, "femke")
    phones = {seat: await connect(person, table.code) for seat, person in people.items()}
    spectator = await connect(femke, table.code)
    await database_sync_to_async(services.start_rubber)(table.pk, klaver.anna.user)
    await play_rubber(table.pk, phones, seed=3)
    await database_sync_to_async(services.start_rubber)(table.pk, klaver.anna.user)
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


async def test_a_watching_member_sees_the_table_and_no_hidden_card(klaver: Club4) -> None:
    table = await open_table(klaver, bots={1: "normal", 2: "normal", 3: "normal"})
    anna = await connect(klaver.anna, table.code)
    bram = await connect(klaver.bram, table.code)  # a member, not seated: watches
    await database_sync_to_async(services.start_rubber)(table.pk, klaver.anna.user)
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
    klaver: Club4, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The test plays at machine speed, two frames a move: lift the limit meant for people.
    monkeypatch.setattr("games.consumers.RATE_PER_SECOND", 1000)
    monkeypatch.setattr("games.consumers.FLOOD_FRAMES", 100000)
    table = await open_table(klaver, bots={2: "easy", 3: "easy"})
    # Bram sits at Anna's phone: the same browser holds seats 0 and 1.
    from games.tables import Holder

    await database_sync_to_async(services.take_seat)(
        table.pk, 1, Holder(user_id=klaver.bram.user.pk, key=klaver.anna.holder_key), "Bram"
    )
    phone = await connect(klaver.anna, table.code)
    await database_sync_to_async(services.start_rubber)(table.pk, klaver.anna.user)

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


async def test_a_finished_rubber_is_stored_with_its_hands_and_standings(klaver: Club4) -> None:
    table = await open_table(klaver, bots={1: "easy", 2: "easy", 3: "easy"})
    phone = await connect(klaver.anna, table.code)
    await database_sync_to_async(services.start_rubber)(table.pk, klaver.anna.user)
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
