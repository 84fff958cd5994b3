"""How strong the computer players are: rubbers between levels, loss rates with 95% intervals.

    python bench/bots.py [--rubbers 400] [--budget 0.2] [--exploit-budget 0.2] [--jobs 1]
                         [--rubbers-per-table 5]

Classic rules, 4 players. Each line-up is one level under test (seat "hero") among three of
another. The rubbers are played at tables of `--rubbers-per-table` rubbers each, by the same
four bots, so what they learnt of each other carries from rubber to rubber as it does at a
club table (1: new bots with empty memories for every rubber). The hero's seat rotates from
table to table (seat t mod 4 at table t) and the first dealer from rubber to rubber (r mod 4).
A rubber is lost by every player who reaches 0 lives in the hand that ends it (first_out), so
loss rates over the four seats can add up to a little over 100%.

Line-ups and their targets (TARGETS):
- strong among three normal: loses at most 15% (a fair share is 25%);
- normal among three easy: loses at most 20%;
- cautious among three strong and reckless among three strong: each loses more than 25%,
  with the whole 95% interval above 25%;
- strong among three lijntoepers, three knockers, or three of one club style of the battery
  (games/bots/styles.py): each loses at most 15%.
Strong's thinking time is measured on every ask while its seat is due (searches and the cheap
answers alike) and on searches alone; the 95th percentile of both must stay under the budget.

The last line printed is one JSON object holding every figure.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _machine import cpu_name

from games.bots import BATTERY, make_bot
from games.bots.table import play_rubber
from games.engine import CLASSIC

LINEUPS: dict[str, tuple[str, str]] = {
    "strong_vs_normal": ("strong", "normal"),
    "normal_vs_easy": ("normal", "easy"),
    "cautious_vs_strong": ("cautious", "strong"),
    "reckless_vs_strong": ("reckless", "strong"),
    "strong_vs_lijntoeper": ("strong", "lijntoeper"),
    "strong_vs_knocker": ("strong", "knocker"),
    **{f"strong_vs_{style}": ("strong", style) for style in BATTERY},
}
TARGETS: dict[str, tuple[str, float]] = {
    "strong_vs_normal": ("at_most", 0.15),
    "normal_vs_easy": ("at_most", 0.2),
    "cautious_vs_strong": ("interval_above", 0.25),
    "reckless_vs_strong": ("interval_above", 0.25),
    "strong_vs_lijntoeper": ("at_most", 0.15),
    "strong_vs_knocker": ("at_most", 0.15),
    **{f"strong_vs_{style}": ("at_most", 0.15) for style in BATTERY},
}


def wilson(losses: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval: sound for rates near 0 or 1 and for small counts."""
    if n == 0:
        return 0.0, 1.0
    p = losses / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def one_table(job: tuple[str, int, float, int]) -> list[dict[str, Any]]:
    """The rubbers of one table, played one after the other by the same four bots."""
    name, table, budget, count = job
    hero, field = LINEUPS[name]
    hero_seat = table % 4
    levels = [hero if s == hero_seat else field for s in range(4)]
    bots = [make_bot(level, seed=table * 8 + s, budget=budget) for s, level in enumerate(levels)]
    return [one_rubber(bots, hero_seat, table * count + j) for j in range(count)]


def one_rubber(bots: list[Any], hero_seat: int, index: int) -> dict[str, Any]:
    asks: list[float] = []
    searches: list[float] = []

    def timer(seat: int, seconds: float) -> None:
        bot = bots[seat]
        if bot.level == "strong":
            asks.append(seconds)
            if getattr(bot, "last_worlds", 0):
                searches.append(seconds)
                bot.last_worlds = 0  # type: ignore[attr-defined]

    rubber = play_rubber(CLASSIC, bots, seed=index, dealer=index % 4, timer=timer)
    return {
        "hero_lost": hero_seat in rubber.losers,
        "field_losses": sum(1 for s in rubber.losers if s != hero_seat),
        "hands": len(rubber.outcomes),
        "asks": asks,
        "searches": searches,
    }


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rubbers", type=int, default=400, help="rubbers per line-up")
    parser.add_argument("--budget", type=float, default=0.2, help="Strong's seconds per decision")
    parser.add_argument(
        "--exploit-budget",
        type=float,
        default=None,
        help="Strong's budget in the cautious/reckless line-ups (default: --budget)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="tables played in parallel")
    parser.add_argument(
        "--rubbers-per-table",
        type=int,
        default=5,
        help="rubbers the same four bots play one after the other (1: fresh bots each rubber)",
    )
    parser.add_argument("--lineups", default=",".join(LINEUPS), help="comma-separated names")
    args = parser.parse_args()
    exploit_budget = args.budget if args.exploit_budget is None else args.exploit_budget
    figures: dict[str, object] = {}
    all_asks: list[float] = []
    all_searches: list[float] = []
    started = time.time()
    context = multiprocessing.get_context("fork")
    with context.Pool(args.jobs) as pool:
        for name in args.lineups.split(","):
            budget = (
                exploit_budget
                if name in ("cautious_vs_strong", "reckless_vs_strong")
                else (args.budget)
            )
            t0 = time.time()
            per_table = args.rubbers_per_table
            tables = math.ceil(args.rubbers / per_table)
            jobs = [(name, table, budget, per_table) for table in range(tables)]
            results = [
                rubber for table in pool.map(one_table, jobs, chunksize=1) for rubber in table
            ][: args.rubbers]
            losses = sum(1 for r in results if r["hero_lost"])
            low, high = wilson(losses, len(results))
            kind, bound = TARGETS[name]
            rate = losses / len(results)
            met = rate <= bound if kind == "at_most" else low > bound
            asks = [t for r in results for t in r["asks"]]
            searches = [t for r in results for t in r["searches"]]
            if budget == args.budget:
                all_asks += asks
                all_searches += searches
            figures[name] = {
                "hero": LINEUPS[name][0],
                "field": LINEUPS[name][1],
                "rubbers": len(results),
                "hero_losses": losses,
                "hero_loss_rate": round(rate, 4),
                "interval95": [round(low, 4), round(high, 4)],
                "field_loss_rate_per_seat": round(
                    sum(r["field_losses"] for r in results) / (3 * len(results)),
                    4,
                ),
                "hands_per_rubber": round(sum(r["hands"] for r in results) / len(results), 2),
                "strong_budget_s": budget,
                "rubbers_per_table": per_table,
                "target": f"{kind} {bound}",
                "met": met,
                "seconds": round(time.time() - t0, 1),
            }
            print(name, json.dumps(figures[name]), flush=True)

    def ms(values: list[float], q: float) -> float | None:
        value = percentile(values, q)
        return None if value is None else round(1000 * value, 1)

    timing = {
        "budget_s": args.budget,
        "asks": len(all_asks),
        "ask_p50_ms": ms(all_asks, 0.5),
        "ask_p95_ms": ms(all_asks, 0.95),
        "ask_p99_ms": ms(all_asks, 0.99),
        "searches": len(all_searches),
        "search_p50_ms": ms(all_searches, 0.5),
        "search_p95_ms": ms(all_searches, 0.95),
        "search_p99_ms": ms(all_searches, 0.99),
        "search_max_ms": ms(all_searches, 1.0),
        "p95_target_met": max(ms(all_asks, 0.95) or 0.0, ms(all_searches, 0.95) or 0.0)
        <= 1000 * args.budget,
    }
    print(
        json.dumps(
            {
                "lineups": figures,
                "strong_decision_time": timing,
                "jobs": args.jobs,
                "wall_seconds": round(time.time() - started, 1),
                "machine": {
                    "nproc": os.cpu_count(),
                    "processor": cpu_name(),
                    "python": platform.python_version(),
                    "machine": platform.machine(),
                    "load_avg_at_end": os.getloadavg(),
                },
            }
        )
    )


if __name__ == "__main__":
    main()
