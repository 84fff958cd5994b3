"""How long a computer player thinks at a table says nothing of its hidden cards.

Strong searches an offer out of turn only when its hand makes a knock worth weighing, so
unpaced its pause before the table moves on would tell a strong hand from a weak one. These
decisions go through `games.services.bot_seats.decide`, the table clock's way of asking a bot.
"""

from __future__ import annotations

import statistics
import time

from games.bots.aio import thinking_time
from games.bots.base import is_due
from games.bots.strong import Strong
from games.engine import CLASSIC, Hand, Observation, observe
from games.services import bot_seats

BUDGET = 0.05  # a short search keeps the test quick; the pace follows the budget
DECISIONS = 5
TOLERANCE = 0.02


def _offers(searched: bool) -> list[Observation]:
    """Seats offered a knock out of turn in the first trick whose hand Strong weighs (a search)
    or dismisses at once, as a fresh Strong decides in this process."""
    found: list[Observation] = []
    seed = 0
    while len(found) < DECISIONS:
        hand = Hand.deal(CLASSIC, [10] * 4, dealer=seed % 4, seed=seed)
        seed += 1
        leader = hand.due()[0]
        hand.apply(next(a for a in hand.legal_actions(leader) if a.act == "play"))
        for seat in range(hand.n):
            obs = observe(hand, seat)
            if is_due(obs) or not any(a.act == "knock" for a in obs.legal):
                continue
            probe = Strong(seed, budget=BUDGET)
            probe.decide(obs, CLASSIC)
            if (probe.last_worlds > 0) == searched:
                found.append(obs)
    return found[:DECISIONS]


def _median_pause(bot: Strong, offers: list[Observation]) -> float:
    pauses = []
    for obs in offers:
        started = time.perf_counter()
        bot_seats.decide(bot, obs, CLASSIC)
        pauses.append(time.perf_counter() - started)
    return statistics.median(pauses)


def test_strong_takes_as_long_over_an_offer_out_of_turn_whatever_its_hand() -> None:
    strong, weak = _offers(searched=True), _offers(searched=False)
    bot = Strong(1, budget=BUDGET)
    bot_seats.decide(bot, weak[0], CLASSIC)  # warm: the pool's worker starts and imports the bots
    strong_pause = _median_pause(bot, strong)
    weak_pause = _median_pause(bot, weak)
    assert abs(strong_pause - weak_pause) < TOLERANCE, (
        f"a strong hand thinks {strong_pause * 1000:.0f} ms, a weak one {weak_pause * 1000:.0f} ms"
    )
    pace = thinking_time(bot)
    assert pace <= weak_pause < pace + TOLERANCE
    assert pace <= strong_pause < pace + TOLERANCE
