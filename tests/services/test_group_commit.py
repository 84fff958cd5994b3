"""Changes written from the event loop in a worker thread (those with ORM work: a seat, a
rubber) share one transaction when they come together (games/services/store/claim.py,
`GroupCommit`): each is written, or not, exactly as alone. What each writes is the walk's
(tests/services/every_change_cases.py); these are the races and faults a walk never meets."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from games.models import ActionReceipt, PlayedHand, Seat, Table
from games.services import store
from tests.personas import Cast
from tests.services.loop_write_cases import a_card, decided, snapshot
from tests.tables import four_people_table, people

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


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


async def test_a_change_that_lost_its_race_costs_the_others_nothing(klaver: Cast) -> None:
    """Two changes decided on one version of a table: the first is written, the second
    writes nothing (its caller decides again), and a third table's change is written."""
    one, other = [await sync_to_async(four_people_table)(klaver) for _ in range(2)]
    twice = [await a_decided_card(klaver, one, action_id) for action_id in ("a", "b")]
    elsewhere = await a_decided_card(klaver, other, "c")
    before_one = await sync_to_async(written)(one)
    outcomes = await asyncio.gather(*(store.acommit(*change) for change in [*twice, elsewhere]))
    assert outcomes == [True, False, True]
    version, actions, _ = before_one
    assert await sync_to_async(written)(one) == (version + 1, actions + 1, ["a"])
    assert (await sync_to_async(written)(other))[2] == ["c"]


async def test_a_change_that_fails_fails_alone(klaver: Cast) -> None:
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
    assert await sync_to_async(written)(broken) == before
    assert (await sync_to_async(Table.objects.get)(pk=broken.pk)).profile_name != "half way"
    assert (await sync_to_async(written)(sound))[2] == ["good"]
