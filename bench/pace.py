"""How long a computer player thinks, on the wall clock, and what its thinking costs the loop.

    python bench/pace.py [--decisions 9] [--budget 0.05]

The suite checks these on clocks of its own (tests/bots/test_pace.py, test_levels.py,
test_async.py), so that a busy machine fails none of them; here they are timed:
- pause: the median wall time of `games.services.bot_seats.decide` over offers out of turn that
  Strong searches and over ones it dismisses at once, beside the pace both should take
  (`thinking_time`: the budget and the hand-over). The two medians should differ by little
  more than a timer's jitter, or the pause tells a strong hand from a weak one.
- search: Strong's own search time against its budget (it stops at the first world past it).
- loop: how late 5 ms sleeps on an event loop wake while Strong thinks in a process pool
  (median and worst): about the 5 ms switch interval if the search held the GIL.

Figures from a quiet machine mean something; on a busy one the pauses and the lateness grow.
Prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _machine import cpu_name

from games.bots import decide_async, make_bot
from games.bots.aio import thinking_time
from games.bots.base import is_due
from games.bots.strong import Strong
from games.engine import CLASSIC, Hand, Observation, observe


def offers(searched: bool, count: int, budget: float) -> list[Observation]:
    """Seats offered a knock out of turn in the first trick that Strong searches (or not)."""
    found: list[Observation] = []
    seed = 0
    while len(found) < count:
        hand = Hand.deal(CLASSIC, [10] * 4, dealer=seed % 4, seed=seed)
        seed += 1
        leader = hand.due()[0]
        hand.apply(next(a for a in hand.legal_actions(leader) if a.act == "play"))
        for seat in range(hand.n):
            obs = observe(hand, seat)
            if is_due(obs) or not any(a.act == "knock" for a in obs.legal):
                continue
            probe = Strong(seed, budget=budget)
            probe.decide(obs, CLASSIC)
            if (probe.last_worlds > 0) == searched:
                found.append(obs)
    return found[:count]


def pauses(count: int, budget: float) -> dict[str, float]:
    from games.services import bot_seats

    strong, weak = offers(True, count, budget), offers(False, count, budget)
    bot = Strong(1, budget=budget)
    bot_seats.decide(bot, weak[0], CLASSIC)  # the pool's worker starts and imports the bots

    def median(observations: list[Observation]) -> float:
        times = []
        for obs in observations:
            started = time.perf_counter()
            bot_seats.decide(bot, obs, CLASSIC)
            times.append(time.perf_counter() - started)
        return statistics.median(times)

    return {
        "pace_ms": thinking_time(bot) * 1000,
        "searched_ms": median(strong) * 1000,
        "dismissed_ms": median(weak) * 1000,
    }


def searches(count: int, budget: float) -> dict[str, float]:
    times = []
    for seed in range(count):
        hand = Hand.deal(CLASSIC, [10] * 4, 3, seed=seed)
        bot = Strong(seed, budget=budget)
        started = time.perf_counter()
        bot.decide(observe(hand, hand.due()[0]), CLASSIC)
        times.append(time.perf_counter() - started)
    return {
        "budget_ms": budget * 1000,
        "search_median_ms": statistics.median(times) * 1000,
        "search_worst_ms": max(times) * 1000,
    }


async def lateness(budget: float) -> dict[str, float]:
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    try:
        bot = make_bot("strong", seed=1, budget=budget)
        hand = Hand.deal(CLASSIC, [10] * 4, dealer=3, seed=12)
        obs = observe(hand, hand.due()[0])
        await decide_async(bot, obs, CLASSIC, pool)  # warm
        work = asyncio.ensure_future(decide_async(bot, obs, CLASSIC, pool))
        overshoots = []
        while not work.done():
            started = time.perf_counter()
            await asyncio.sleep(0.005)
            overshoots.append(time.perf_counter() - started - 0.005)
        await work
    finally:
        pool.shutdown()
    return {
        "sleep_late_median_ms": statistics.median(overshoots) * 1000,
        "sleep_late_worst_ms": max(overshoots) * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=9)
    parser.add_argument("--budget", type=float, default=0.05)
    args = parser.parse_args()
    import django

    django.setup()
    figures = {
        **pauses(args.decisions, args.budget),
        **searches(args.decisions, args.budget),
        **asyncio.run(lateness(0.3)),
    }
    print(
        json.dumps(
            {
                "benchmark": "pace",
                "decisions": args.decisions,
                **{name: round(value, 1) for name, value in figures.items()},
                "machine": platform.machine(),
                "processor": cpu_name(),
                "python": platform.python_version(),
            }
        )
    )


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toepen_site.settings")
    main()
