"""Deciding without blocking the server's event loop.

A Strong decision is ~200 ms of pure Python. In a thread it would still hold the GIL and the
loop would only get it back at each switch interval (5 ms), so the search runs in a separate
process. The bot's memory is read in the calling process first (cheap, and it must see every
observation in order); the worker gets a copy of the bot, decides, and returns the action.

At a table a searching bot's every decision takes `thinking_time(bot)`, searched or not, so
the pause before it acts says nothing of its hidden cards (docs/bots.md).
"""

from __future__ import annotations

import asyncio
import atexit
import copy
import multiprocessing
import time
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Final

from games.engine import Action, HouseRules, Observation

from .base import Bot

# A search stops at the first world past its budget, then its answer comes back from the
# worker: a few milliseconds on an idle machine. The pace leaves room for that on a busy one.
HANDOVER_SECONDS: Final = 0.05

_pool: ProcessPoolExecutor | None = None


def thinking_time(bot: Bot) -> float:
    """The wall time of every decision of a searching bot at a table: its search budget and
    the hand-over, so a decision made at once (no search) is not told apart from a search."""
    budget: float = getattr(bot, "budget", 0.0)
    return budget + HANDOVER_SECONDS


def shared_pool(workers: int = 1) -> ProcessPoolExecutor:
    """One process pool for every table's bots (created on first use, shut down at exit).

    "spawn" rather than fork: the server process holds sockets and threads a fork would copy."""
    global _pool
    if _pool is None:
        _pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        atexit.register(_pool.shutdown, wait=False, cancel_futures=True)
    return _pool


def _choose(bot: Bot, obs: Observation, rules: HouseRules) -> Action | None:
    return bot.decide(obs, rules)


def worker_for(bot: Bot, obs: Observation) -> Bot:
    """The copy of a searching bot that decides in another process: the bot reads the
    observation into its memory here first, and the copy gets its own seed, so the parent's
    generator moves on as if it had decided itself."""
    bot.notice(obs)
    worker = copy.copy(bot)
    worker.rng = type(bot.rng)(bot.rng.getrandbits(64))
    return worker


def decide_in(
    executor: Executor, bot: Bot, obs: Observation, rules: HouseRules
) -> Future[Action | None]:
    """Start a searching bot's decision in `executor` (from a worker thread or a script)."""
    return executor.submit(_choose, worker_for(bot, obs), obs, rules)


async def decide_async(
    bot: Bot, obs: Observation, rules: HouseRules, executor: Executor | None = None
) -> Action | None:
    """`bot.decide` off the event loop. Levels that do not search answer in place (microseconds);
    Strong runs in `executor` (default: `shared_pool()`) and takes `thinking_time` each time."""
    if not getattr(bot, "searches", False):
        return bot.decide(obs, rules)
    started = time.monotonic()
    action = None
    if obs.legal:
        action = await asyncio.wrap_future(decide_in(executor or shared_pool(), bot, obs, rules))
    await asyncio.sleep(max(0.0, started + thinking_time(bot) - time.monotonic()))
    return action
