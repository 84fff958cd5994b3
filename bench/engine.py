"""Engine speed: random self-play hands and record replays per second, on one core.

    python bench/engine.py [--seconds 5]

Self-play: 4 players, Classic rules, each step a random choice among the `legal_actions` of a
seat the hand is waiting for (knocks and answers included), from the deal to the end of the hand.
Replay: the records of those hands, already decoded from JSON, each checked and replayed by
`replay` (the code behind `toepen_replay` and the server). Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _machine import machine

from games.engine import CLASSIC, Hand, replay


def play_random_hand(rng: random.Random, seed: int) -> Hand:
    hand = Hand.deal(CLASSIC, [CLASSIC.starting_lives] * 4, seed % 4, seed)
    # A uniform index from random() (one C call): random.choice's rejection sampling costs
    # more than the engine's own work per step and would measure the policy, not the rules.
    rand = rng.random
    while not hand.complete:
        due = hand.due()
        seat = due[0] if len(due) == 1 else due[int(rand() * len(due))]
        options = hand.legal_actions(seat)
        hand.apply(options[int(rand() * len(options))])
    return hand


def selfplay(seconds: float) -> tuple[float, list[dict[str, object]]]:
    rng = random.Random(1)
    records: list[dict[str, object]] = []
    hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(200):
            hand = play_random_hand(rng, hands)
            hands += 1
            if len(records) < 5000:
                records.append(hand.record())
        now = time.perf_counter()
        if now >= deadline:
            return hands / (now - start), records


def replays(records: list[dict[str, object]], seconds: float) -> float:
    done = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for record in records:
            if replay(record)["error"] is not None:
                raise AssertionError("a self-played record did not replay")
        done += len(records)
        now = time.perf_counter()
        if now >= deadline:
            return done / (now - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    hands_per_s, records = selfplay(args.seconds)
    records_per_s = replays(records, args.seconds)
    print(
        json.dumps(
            {
                "bench": "engine",
                "machine": machine(),
                "selfplay_hands_per_s": round(hands_per_s),
                "replay_records_per_s": round(records_per_s),
            }
        )
    )


if __name__ == "__main__":
    main()
