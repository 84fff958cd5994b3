"""A Strong bot thinking never blocks the event loop: the humans at its table stay served."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from games.bots import decide_async, make_bot
from games.engine import CLASSIC, Hand, observe


async def _lateness(work: asyncio.Future, tick: float = 0.005) -> tuple[float, float]:  # type: ignore[type-arg]
    """Sleep `tick` again and again until `work` is done: the median and worst overshoot.

    A thread running the search would hold the GIL: each sleep would overshoot by about the
    5 ms switch interval. The median tells that apart from a busy machine's odd late wake-up."""
    overshoots = []
    while not work.done():
        start = time.perf_counter()
        await asyncio.sleep(tick)
        overshoots.append(time.perf_counter() - start - tick)
    overshoots.sort()
    return overshoots[len(overshoots) // 2], overshoots[-1]


@pytest.fixture(scope="module")
def pool():
    import multiprocessing

    executor = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    # Start the worker and import the engine there before anything is timed.
    executor.submit(pow, 2, 2).result()
    yield executor
    executor.shutdown()


async def test_the_loop_keeps_ticking_while_strong_thinks(pool: ProcessPoolExecutor) -> None:
    bot = make_bot("strong", seed=1, budget=0.3)
    hand = Hand.deal(CLASSIC, [10] * 4, dealer=3, seed=12)
    seat = hand.due()[0]
    obs = observe(hand, seat)
    await decide_async(bot, obs, CLASSIC, pool)  # warm: the worker imports the bots
    started = time.perf_counter()
    decision = asyncio.ensure_future(decide_async(bot, obs, CLASSIC, pool))
    median, worst = await _lateness(decision)
    action = await decision
    assert action in obs.legal
    assert time.perf_counter() - started > 0.05, "no search ran: nothing was measured"
    assert median < 0.002, f"5 ms sleeps overshot by {median * 1000:.1f} ms (median)"
    assert worst < 0.05, f"a 5 ms sleep overshot by {worst * 1000:.1f} ms"


async def test_rule_levels_answer_in_place_without_a_pool() -> None:
    hand = Hand.deal(CLASSIC, [10] * 4, dealer=3, seed=5)
    obs = observe(hand, 0)
    action = await decide_async(make_bot("normal", seed=1), obs, CLASSIC, executor=None)
    assert action is None or action in obs.legal
