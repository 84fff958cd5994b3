"""The service layer: one truth in the database, refusals, simultaneous actions, and timers."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.db.models import F
from django.utils import timezone

from clubs.models import HouseRuleProfile
from games.engine import HouseRules
from games.live import clock
from games.models import ActionReceipt, PlayedHand, Seat, Table
from games.services import bot_seats, snapshots, store, tables
from games.services.access import club_role
from games.services.tables import TableError
from tests.conftest import command_env
from tests.personas import Cast
from tests.tables import (
    bot_table,
    clock_plays,
    four_people_table,
    people,
    play_a_card,
    play_out_rubber,
    seat_people,
    state_of,
)

pytestmark = pytest.mark.django_db(transaction=True)
REPO = Path(__file__).resolve().parents[2]


def act(klaver: Cast, table: Table, seat: int, **payload) -> tables.Outcome:
    return tables.act(table.pk, people(klaver)[seat].holder, seat, payload, uuid.uuid4().hex)


def record_actions(table: Table) -> list[dict]:
    return PlayedHand.objects.filter(rubber__table=table).latest("number").record["actions"]


def test_two_knocks_at_the_same_instant_give_one_accepted_and_one_refused(klaver: Cast) -> None:
    table = four_people_table(klaver)
    state = state_of(table)
    knockers = [
        s
        for s in range(4)
        if any(a.act == "knock" for a in state.hand.legal_actions(state.hand_seat(s)))
    ]
    assert len(knockers) >= 2
    first, second = knockers[:2]
    barrier = threading.Barrier(2)
    outcomes: dict[int, object] = {}

    def knock(seat: int) -> None:
        from django.db import connection

        barrier.wait()
        try:
            outcomes[seat] = act(klaver, table, seat, act="knock")
        except TableError as error:
            outcomes[seat] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=knock, args=(seat,)) for seat in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    accepted = [o for o in outcomes.values() if isinstance(o, tables.Outcome)]
    refused = [o for o in outcomes.values() if isinstance(o, TableError)]
    assert len(accepted) == 1 and len(refused) == 1
    assert refused[0].code == "answers_awaited"
    assert [a["act"] for a in record_actions(table)] == ["knock"]
    # The state in the database is whole: it replays, and the stake is 2.
    assert state_of(table).hand.stake == 2


def test_a_knock_and_a_card_at_the_same_instant_never_corrupt_the_hand(klaver: Cast) -> None:
    table = four_people_table(klaver)
    state = state_of(table)
    leader = state.table_seat(state.hand.due()[0])
    card = next(a for a in state.hand.legal_actions(state.hand_seat(leader)) if a.act == "play")
    other = next(
        s
        for s in range(4)
        if s != leader
        and any(a.act == "knock" for a in state.hand.legal_actions(state.hand_seat(s)))
    )
    barrier = threading.Barrier(2)
    results: list[object] = []

    def go(seat: int, payload: dict) -> None:
        from django.db import connection

        barrier.wait()
        try:
            results.append(act(klaver, table, seat, **payload))
        except TableError as error:
            results.append(error)
        finally:
            connection.close()

    play = {"act": "play", "card": card.to_json()["card"]}
    threads = [
        threading.Thread(target=go, args=(leader, play)),
        threading.Thread(target=go, args=(other, {"act": "knock"})),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    # Both may be legal in either order; whatever happened replays from the database.
    stored = record_actions(table)
    accepted = sum(isinstance(r, tables.Outcome) for r in results)
    assert len(stored) == accepted >= 1
    assert state_of(table).hand is not None


@pytest.mark.slow  # manage.py in a process of its own
def test_a_stored_hand_replays_to_what_the_table_showed(klaver: Cast, tmp_path: Path) -> None:
    table = four_people_table(klaver, HouseRules(starting_lives=2))
    # Play on with the table's own auto player until the first hand is over.
    for _ in range(200):
        state = state_of(table)
        row = PlayedHand.objects.filter(rubber__table=table, number=1).get()
        if row.complete:
            break
        clock_plays(table.pk)
    row = PlayedHand.objects.get(rubber__table=table, number=1)
    assert row.complete
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(row.record))
    replayed = subprocess.run(
        [sys.executable, "manage.py", "toepen_replay", str(path)],
        cwd=REPO,
        env=command_env(),
        capture_output=True,
        text=True,
        timeout=300,  # a bound for a busy machine: it ends in seconds
        check=True,
    )
    assert json.loads(replayed.stdout) == row.result
    assert all(action.get("auto") for action in row.record["actions"])
    assert state is not None


def test_the_simultaneous_answer_window_closes_with_stays_marked_auto(klaver: Cast) -> None:
    rules = HouseRules(response_order="simultaneous", response_seconds=3)
    table = four_people_table(klaver, rules)
    state = state_of(table)
    knocker = next(
        s
        for s in range(4)
        if any(a.act == "knock" for a in state.hand.legal_actions(state.hand_seat(s)))
    )
    act(klaver, table, knocker, act="knock")
    table.refresh_from_db()
    answered_by = next(s for s in range(4) if s != knocker)
    act(klaver, table, answered_by, act="fold")
    assert not tables.fire_deadline(table.pk, timezone.now() + timedelta(seconds=1))
    assert tables.fire_deadline(table.pk, timezone.now() + timedelta(seconds=4))
    actions = record_actions(table)
    assert actions[0] == {"seat": state.hand_seat(knocker), "act": "knock"}
    assert actions[1] == {"seat": state.hand_seat(answered_by), "act": "fold"}
    stays = actions[2:]
    assert len(stays) == 2 and all(a["act"] == "stay" and a["auto"] for a in stays)
    assert not state_of(table).hand.awaiting


def test_the_turn_clock_plays_the_lowest_card_for_a_player_who_does_nothing(
    klaver: Cast,
) -> None:
    table = four_people_table(klaver)
    state = state_of(table)
    due = state.hand.due()[0]
    hand = state.hand.hands[due]
    # Her phone is heard all along (as its heartbeats would keep it): only the turn clock runs.
    Seat.objects.filter(table=table, index=state.table_seat(due)).update(
        last_seen=timezone.now() + timedelta(seconds=120)
    )
    assert not tables.fire_deadline(table.pk, timezone.now() + timedelta(seconds=30))
    assert tables.fire_deadline(table.pk, timezone.now() + timedelta(seconds=61))
    [action] = record_actions(table)
    assert action["seat"] == due and action["act"] == "play" and action["auto"] is True
    from games.engine import card_from_token

    assert card_from_token(action["card"]) & 7 == min(card & 7 for card in hand)


def test_a_dropped_phone_keeps_its_seat_for_the_grace_period_then_the_table_plays(
    klaver: Cast,
) -> None:
    table = four_people_table(klaver)
    state = state_of(table)
    due = state.table_seat(state.hand.due()[0])
    # Her phone was last heard when she sat down, and never since (30 s of grace); the others'
    # phones are heard throughout.
    heard = Seat.objects.get(table=table, index=due).last_seen
    Seat.objects.filter(table=table).exclude(index=due).update(
        last_seen=heard + timedelta(seconds=31)
    )
    assert not tables.fire_deadline(table.pk, heard + timedelta(seconds=28))
    assert record_actions(table) == []
    assert tables.fire_deadline(table.pk, heard + timedelta(seconds=31))
    [action] = record_actions(table)
    assert action["auto"] is True and action["seat"] == state.hand_seat(due)


def test_a_player_back_from_away_takes_over_again(klaver: Cast) -> None:
    table = four_people_table(klaver)
    state = state_of(table)
    due = state.table_seat(state.hand.due()[0])
    now = timezone.now()
    # While her phone was quiet the table planned to play for her in 5 s ...
    Seat.objects.filter(table=table, index=due).update(last_seen=now - timedelta(seconds=25))
    Table.objects.filter(pk=table.pk).update(deadline_at=now + timedelta(seconds=5))
    store.mark_seen(table.pk, people(klaver)[due].holder)  # ... but her phone is back
    # The deadline comes, finds her here, plays nothing, and plans her turn clock again.
    assert not tables.fire_deadline(table.pk, now + timedelta(seconds=6))
    assert record_actions(table) == []
    table.refresh_from_db()
    assert table.deadline_at > now + timedelta(seconds=20)


def test_the_laundry_window_holds_the_first_card_and_closes_by_itself(
    klaver: Cast,
    settings,
) -> None:
    settings.TOEPEN_LAUNDRY_SECONDS = 10
    table = four_people_table(klaver)
    state = state_of(table)
    leader = state.table_seat(state.hand.due()[0])
    card = next(a for a in state.hand.legal_actions(state.hand_seat(leader)) if a.act == "play")
    with pytest.raises(TableError) as early:
        act(klaver, table, leader, act="play", card=card.to_json()["card"])
    assert early.value.code == "laundry_open"
    exchanger = (leader + 1) % 4
    act(klaver, table, exchanger, act="exchange")
    assert tables.fire_deadline(table.pk, timezone.now() + timedelta(seconds=11))
    with pytest.raises(TableError) as late:
        act(klaver, table, leader, act="exchange")
    assert late.value.code == "cannot_exchange"
    act(klaver, table, leader, act="play", card=card.to_json()["card"])
    assert [a["act"] for a in record_actions(table)] == ["exchange", "play"]


def test_everyone_ready_closes_the_laundry_window_early(klaver: Cast, settings) -> None:
    settings.TOEPEN_LAUNDRY_SECONDS = 30
    table = four_people_table(klaver)
    for seat in range(4):
        assert state_of(table).laundry_open(timezone.now())
        tables.ready(table.pk, people(klaver)[seat].holder, seat)
    assert not state_of(table).laundry_open(timezone.now())


def test_computer_players_play_whole_rubbers_by_themselves(klaver: Cast) -> None:
    table = bot_table(klaver, {0: "easy", 1: "normal", 2: "strong", 3: "easy"}, lives=3)
    play_out_rubber(table.pk, steps=2000)
    table.refresh_from_db()
    assert table.status == "rubber_over"
    hands = PlayedHand.objects.filter(rubber__table=table)
    assert hands.count() >= 1 and all(hand.complete for hand in hands)


def test_a_pending_deadline_fires_after_a_restart_with_no_phone(klaver: Cast) -> None:
    table = four_people_table(klaver)
    # The "old server" is gone; the deadline it stored is due.
    Table.objects.filter(pk=table.pk).update(
        changed_at=timezone.now() - timedelta(seconds=120),
        deadline_at=timezone.now() - timedelta(seconds=60),
    )

    async def new_server() -> None:
        clock.ensure_started()
        for _ in range(100):
            await asyncio.sleep(0.05)
            if await _actions_count(table) > 0:
                break
        await clock.stop()

    asyncio.run(new_server())
    assert record_actions(table)[0]["auto"] is True


async def _actions_count(table: Table) -> int:
    from channels.db import database_sync_to_async

    return await database_sync_to_async(lambda: len(record_actions(table)))()


def test_only_a_player_at_the_table_starts_a_rubber_and_only_with_every_seat_filled(
    klaver: Cast,
) -> None:
    table = tables.create_table(
        club=klaver.club, user=klaver.anna.user, holder_key=klaver.anna.holder_key
    )
    with pytest.raises(TableError) as empty:
        tables.start_rubber(table.pk, klaver.anna.user)
    assert empty.value.code == "seats_free"
    seat_people(table.pk, [(1, klaver.bram), (2, klaver.cas), (3, klaver.dirk)])
    with pytest.raises(TableError) as not_seated:
        tables.start_rubber(table.pk, klaver.eva.user)
    assert not_seated.value.code == "not_allowed"
    assert not PlayedHand.objects.filter(rubber__table=table).exists()
    tables.start_rubber(table.pk, klaver.bram.user)  # not the creator, but at the table
    assert PlayedHand.objects.filter(rubber__table=table).exists()


def test_a_non_member_cannot_open_a_table_for_the_club(klaver: Cast) -> None:
    with pytest.raises(TableError) as refused:
        tables.create_table(club=klaver.club, user=klaver.eva.user)
    assert refused.value.code == "not_allowed"
    assert not Table.objects.exists()


def test_a_table_keeps_its_rules_when_the_profile_is_edited(klaver: Cast) -> None:
    profile = HouseRuleProfile.objects.create(
        club=klaver.club, name="Kroeg", rules_json=HouseRules(starting_lives=15).to_json()
    )
    table = tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        profile=profile,
        bots={1: "easy", 2: "easy"},
        seat_count=3,
        holder_key=klaver.anna.holder_key,
    )
    profile.rules_json = HouseRules(starting_lives=5).to_json()
    profile.save()
    tables.start_rubber(table.pk, klaver.anna.user)
    assert state_of(table).rubber.lives == [15, 15, 15]
    assert Table.objects.get(pk=table.pk).rules().starting_lives == 15


def test_a_computer_player_is_offered_the_laundry_only_in_its_window(
    klaver: Cast,
    settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    offered: list[set[str]] = []
    real_decide = bot_seats.decide

    def spy(bot, observation, rules):
        offered.append({a.act for a in observation.legal})
        return real_decide(bot, observation, rules)

    monkeypatch.setattr(bot_seats, "decide", spy)
    settings.TOEPEN_LAUNDRY_SECONDS = 10
    table = tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        bots={0: "easy", 1: "easy", 2: "easy", 3: "easy"},
        take_seat=None,
    )
    tables.start_rubber(table.pk, klaver.anna.user)
    # The four computer players' laundry (again after any exchange), the window, then play:
    # each deadline fired at its own moment, as the clock does.
    for _ in range(60):
        tables.fire_deadline(table.pk, Table.objects.get(pk=table.pk).deadline_at)
        if any(a["act"] == "play" for a in record_actions(table)):
            break
    laundry_acts = {"exchange", "challenge"}
    # Every offer is the laundry alone (in the window) or nothing of it (after the window).
    assert all(acts <= laundry_acts or not acts & laundry_acts for acts in offered)
    assert any(acts and acts <= laundry_acts for acts in offered)
    assert any("play" in acts for acts in offered)


def test_a_computer_player_may_knock_out_of_turn_and_is_asked_once_a_version(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[int, int, bool]] = []  # (version, seat, due)

    def knock_out_of_turn_once(bot, observation, rules):
        due = any(a.act in ("play", "stay") for a in observation.legal)
        version = Table.objects.get(pk=table.pk).version
        asked.append((version, observation.seat, due))
        knocks = [a for a in observation.legal if a.act == "knock"]
        if not due and knocks and not any(v == version for v, _, d in asked[:-1] if not d):
            return knocks[0]
        if due:
            return next(a for a in observation.legal if a.act in ("play", "stay"))
        return None

    monkeypatch.setattr(bot_seats, "decide", knock_out_of_turn_once)
    table = tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        bots={1: "easy", 2: "easy", 3: "easy"},
        holder_key=klaver.anna.holder_key,
    )
    tables.start_rubber(table.pk, klaver.anna.user)
    later = timezone.now() + timedelta(seconds=5)
    for _ in range(12):
        tables.fire_deadline(table.pk, later)
    actions = record_actions(table)
    assert any(a["act"] == "knock" for a in actions), actions
    # Never asked twice about one version for one seat, out of turn.
    offers = [(version, seat) for version, seat, due in asked if not due]
    assert len(offers) == len(set(offers))


def test_a_clock_that_comes_after_the_laundry_window_just_closes_it(klaver: Cast, settings) -> None:
    """A busy or restarted server fires late: the computer players' laundry is not offered any
    more (their exchange would be refused), the window closes and play begins."""
    settings.TOEPEN_LAUNDRY_SECONDS = 10
    table = tables.create_table(
        club=klaver.club,
        user=klaver.anna.user,
        bots={0: "easy", 1: "easy", 2: "easy", 3: "easy"},
        take_seat=None,
    )
    tables.start_rubber(table.pk, klaver.anna.user)
    late = timezone.now() + timedelta(seconds=11)
    assert tables.fire_deadline(table.pk, late)
    table = Table.objects.get(pk=table.pk)
    assert table.laundry_until is None
    assert record_actions(table) == []
    assert table.deadline_at is not None  # the first card is planned


def test_a_change_that_loses_the_race_is_decided_again_then_refused_busy(
    klaver: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store writes only at the version a change was decided on; a change that finds the
    table moved on is decided once more on the table as it is, and after a second loss it is
    refused as busy with nothing written."""
    table = four_people_table(klaver)
    real_write = store.commit
    bases: list[int] = []

    def another_change_came_first(state, base, now, action_id=None, **kwargs):
        bases.append(base)
        if len(bases) <= losses:
            # Another process's change lands between the decision and the write.
            Table.objects.filter(pk=table.pk).update(version=F("version") + 1)
        return real_write(state, base, now, action_id, **kwargs)

    monkeypatch.setattr(store, "commit", another_change_came_first)
    losses = 1
    before, outcome = play_a_card(klaver, table, "once")
    assert bases == [table.version, table.version + 1]  # decided again on the newer version
    assert outcome == tables.Outcome(table.version + 2)
    assert len(record_actions(table)) == len(before.hand_row.record["actions"]) + 1

    bases.clear()
    losses = 2
    actions = record_actions(table)
    version = Table.objects.get(pk=table.pk).version
    with pytest.raises(tables.Busy):
        play_a_card(klaver, table, "twice")
    assert len(bases) == 2 and record_actions(table) == actions
    assert Table.objects.get(pk=table.pk).version == version + 2  # the other changes' only
    assert not ActionReceipt.objects.filter(table=table, action_id="twice").exists()


def test_a_dealt_hand_is_written_as_saving_its_row_would(klaver: Cast) -> None:
    """The first hand of a new rubber (its rubber written in the same change) and the next hand
    dealt by the clock: each row holds its rubber, number, seats and record, stamped when it
    was dealt, and the state that dealt it holds the row as written."""
    before = timezone.now()
    table = four_people_table(klaver)
    for number in (1, 2):
        while not PlayedHand.objects.filter(rubber__table_id=table.pk, number=number).exists():
            assert clock_plays(table.pk)
        row = PlayedHand.objects.get(rubber__table_id=table.pk, number=number)
        # The change that dealt it is this process's snapshot of the table's version.
        dealt = snapshots.view_state(table.pk, Table.objects.get(pk=table.pk).version)
        assert dealt.hand_row.number == number
        assert dealt.hand_row.pk == row.pk and not dealt.hand_row._state.adding
        assert row.rubber_id == dealt.rubber.pk == dealt.hand_row.rubber_id
        assert row.seats == dealt.hand_seats and row.record == dealt.hand_row.record
        assert before <= row.started_at == dealt.hand_row.started_at <= timezone.now()
        assert not row.complete and row.result is None and row.finished_at is None
        before = row.started_at


def test_a_members_role_and_a_hands_row_are_read_from_their_own_table_alone(
    klaver: Cast, django_assert_num_queries
) -> None:
    # Both at most one row by a unique key: the models' orderings would join the club and the
    # user, the rubber and the table, for nothing (and on PostgreSQL each join makes a field).
    table = four_people_table(klaver)
    hand = PlayedHand.objects.get(rubber__table=table)
    with django_assert_num_queries(2) as queries:
        assert club_role(klaver.anna.user, klaver.club.pk) == "admin"
        assert store.hand_row(hand.rubber_id, hand.number) == hand
    assert not any("JOIN" in query["sql"] for query in queries.captured_queries)
    assert club_role(klaver.eva.user, klaver.club.pk) is None
    assert store.hand_row(hand.rubber_id, hand.number + 1) is None
