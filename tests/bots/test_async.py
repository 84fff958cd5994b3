"""A Strong bot thinking never blocks the event loop: the humans at its table stay served."""

from __future__ import annotations

import asyncio
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

import pytest

from games.bots import decide_async, make_bot
from games.engine import CLASSIC, Hand, observe


class Watched:
    """The pool, with the future of each search submitted to it kept."""

    def __init__(self, pool: ProcessPoolExecutor) -> None:
        self.pool = pool
        self.searches: list[Future[Any]] = []

    def submit(self, fn: Any, /, *args: Any) -> Future[Any]:
        future = self.pool.submit(fn, *args)
        self.searches.append(future)
        return future


@pytest.fixture(scope="module")
def pool():
    import multiprocessing

    executor = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    # Start the worker and import the engine there before anything is timed.
    executor.submit(pow, 2, 2).result()
    yield executor
    executor.shutdown()


async def test_the_loop_keeps_ticking_while_strong_thinks(pool: ProcessPoolExecutor) -> None:
    """The search runs in the pool's process: the loop turns again and again before its answer
    comes back. (How late the loop's sleeps wake meanwhile is measured by bench/pace.py.)"""
    bot = make_bot("strong", seed=1, budget=0.3)
    hand = Hand.deal(CLASSIC, [10] * 4, dealer=3, seed=12)
    seat = hand.due()[0]
    obs = observe(hand, seat)
    watched = Watched(pool)
    await decide_async(bot, obs, CLASSIC, watched)  # warm: the worker imports the bots
    decision = asyncio.ensure_future(decide_async(bot, obs, CLASSIC, watched))
    ticks = 0
    while len(watched.searches) < 2 or not watched.searches[1].done():
        await asyncio.sleep(0.005)
        ticks += 1
    action = await decision
    assert action in obs.legal
    assert len(watched.searches) == 2
    assert ticks >= 5, f"the loop turned {ticks} times during a search of 0.3 s"


async def test_rule_levels_answer_in_place_without_a_pool() -> None:
    hand = Hand.deal(CLASSIC, [10] * 4, dealer=3, seed=5)
    obs = observe(hand, 0)
    action = await decide_async(make_bot("normal", seed=1), obs, CLASSIC, executor=None)
    assert action is None or action in obs.legal
