"""Changes written from the event loop in a worker thread (those with more rows than the table's
and the hand's record: a deal, the end of a hand) share one transaction when they come together
(games/services/store/claim.py, `GroupCommit`): each is written, or not, exactly as alone."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from games.models import ActionReceipt, PlayedHand, Seat, Table
from games.services import store
from games.services.store import claim
from tests.personas import Cast
from tests.services.loop_write_cases import a_card, decided, snapshot
from tests.tables import four_people_table, people

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture
def batches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many changes each transaction of the group commit held."""
    sizes: list[int] = []
    real = claim.write_all

    def counted(changes: list[Any]) -> list[Exception | None]:
        sizes.append(len(changes))
        return real(changes)

    monkeypatch.setattr(claim, "write_all", counted)
    return sizes


async def a_decided_card(klaver: Cast, table: Table, action_id: str) -> tuple[Any, ...]:
    """The due player's card at `table`, decided on this process's snapshot, with a row more
    to write than the hand's record (its seats seen), as a deal or a hand's end has."""
    seat, payload = await sync_to_async(a_card)(table.pk)
    await snapshot(table.pk)
    now = timezone.now()
    state, base = decided(table.pk, people(klaver)[seat].holder, seat, payload, now)
    state.later.append(lambda: Seat.objects.filter(table_id=table.pk).update(last_seen=now))
    return state, base, now, action_id


def written(table: Table) -> tuple[int, int, list[str]]:
    """The table's version, its hand's actions and its receipts, as the database has them."""
    hand = PlayedHand.objects.filter(rubber__table_id=table.pk).latest("number")
    receipts = ActionReceipt.objects.filter(table_id=table.pk).values_list("action_id", flat=True)
    return (
        Table.objects.get(pk=table.pk).version,
        len(hand.record["actions"]),
        sorted(receipts),
    )


async def test_changes_that_come_together_share_one_transaction(
    klaver: Cast, batches: list[int]
) -> None:
    at = [await sync_to_async(four_people_table)(klaver) for _ in range(3)]
    before = [await sync_to_async(written)(table) for table in at]
    changes = [await a_decided_card(klaver, table, f"c{i}") for i, table in enumerate(at)]
    outcomes = await asyncio.gather(*(store.acommit(*change) for change in changes))
    assert outcomes == [True, True, True]
    assert batches == [3]
    for i, table in enumerate(at):
        version, actions, _ = before[i]
        assert await sync_to_async(written)(table) == (version + 1, actions + 1, [f"c{i}"])


async def test_changes_that_come_while_one_is_written_go_together_next(
    klaver: Cast, batches: list[int]
) -> None:
    at = [await sync_to_async(four_people_table)(klaver) for _ in range(3)]
    first, *rest = [await a_decided_card(klaver, table, f"c{i}") for i, table in enumerate(at)]
    on_its_way = asyncio.ensure_future(store.acommit(*first))
    await asyncio.sleep(0)  # the first is sent at once, alone
    outcomes = await asyncio.gather(*(store.acommit(*change) for change in rest))
    assert await on_its_way and outcomes == [True, True]
    assert batches == [1, 2]


async def test_a_change_that_lost_its_race_costs_the_others_nothing(
    klaver: Cast, batches: list[int]
) -> None:
    """Two changes decided on one version of a table: the first is written, the second
    writes nothing (its caller decides again), and a third table's change is written."""
    one, other = [await sync_to_async(four_people_table)(klaver) for _ in range(2)]
    twice = [await a_decided_card(klaver, one, action_id) for action_id in ("a", "b")]
    elsewhere = await a_decided_card(klaver, other, "c")
    before_one = await sync_to_async(written)(one)
    outcomes = await asyncio.gather(*(store.acommit(*change) for change in [*twice, elsewhere]))
    assert outcomes == [True, False, True]
    assert batches == [3]
    version, actions, _ = before_one
    assert await sync_to_async(written)(one) == (version + 1, actions + 1, ["a"])
    assert (await sync_to_async(written)(other))[2] == ["c"]


async def test_a_change_that_fails_fails_alone(klaver: Cast, batches: list[int]) -> None:
    """A change whose writing raises is not written, and its caller hears why; the change
    beside it in the transaction is written."""
    broken, sound = [await sync_to_async(four_people_table)(klaver) for _ in range(2)]
    bad = await a_decided_card(klaver, broken, "bad")
    good = await a_decided_card(klaver, sound, "good")
    before = await sync_to_async(written)(broken)

    def fails() -> None:
        Table.objects.filter(pk=broken.pk).update(profile_name="half way")
        raise RuntimeError("a step of the change failed")

    bad[0].later.append(fails)
    outcomes = await asyncio.gather(
        *(store.acommit(*change) for change in (bad, good)), return_exceptions=True
    )
    assert isinstance(outcomes[0], RuntimeError) and outcomes[1] is True
    assert batches == [2]
    assert await sync_to_async(written)(broken) == before
    assert (await sync_to_async(Table.objects.get)(pk=broken.pk)).profile_name != "half way"
    assert (await sync_to_async(written)(sound))[2] == ["good"]
