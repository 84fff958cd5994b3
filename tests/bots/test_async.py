"""A Strong bot thinking never blocks the event loop: the humans at its table stay served."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from games.bots import decide_async, make_bot
from games.engine import CLASSIC, Hand, observe


async def _worst_lateness(work: asyncio.Future, tick: float = 0.005) -> float:  # type: ignore[type-arg]
    """Sleep `tick` again and again until `work` is done; the worst overshoot of a sleep."""
    worst = 0.0
    while not work.done():
        start = time.perf_counter()
        await asyncio.sleep(tick)
        worst = max(worst, time.perf_counter() - start - tick)
    return worst


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
    worst = await _worst_lateness(decision)
    action = await decision
    assert action in obs.legal
    assert time.perf_counter() - started > 0.05, "no search ran: nothing was measured"
    assert worst < 0.02, f"a 5 ms sleep overshot by {worst * 1000:.1f} ms"


async def test_rule_levels_answer_in_place_without_a_pool() -> None:
    hand = Hand.deal(CLASSIC, [10] * 4, dealer=3, seed=5)
    obs = observe(hand, 0)
    action = await decide_async(make_bot("normal", seed=1), obs, CLASSIC, executor=None)
    assert action is None or action in obs.legal
