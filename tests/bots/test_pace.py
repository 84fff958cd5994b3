"""How long a computer player thinks at a table says nothing of its hidden cards.

Strong searches an offer out of turn only when its hand makes a knock worth weighing, so
unpaced its pause before the table moves on would tell a strong hand from a weak one. These
decisions go through `games.services.bot_seats.decide`, the table clock's way of asking a bot.

The pause is read on a clock of the test's own, which only the pacing's sleep moves: the search
runs for real, in the pool, but a busy machine's slower search cannot change what is read.
The pauses on the wall clock are measured by bench/pace.py.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from games.bots.aio import thinking_time
from games.bots.base import is_due
from games.bots.strong import Strong
from games.engine import CLASSIC, Hand, Observation, observe
from games.services import bot_seats

BUDGET = 0.05  # a short search keeps the test quick; the pace follows the budget
DECISIONS = 5


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


class StillClock:
    """`time` for games.services.bot_seats: a clock that stands still except while asleep."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def _pauses(bot: Strong, offers: list[Observation], clock: StillClock) -> list[float]:
    pauses = []
    for obs in offers:
        started = clock.now
        action = bot_seats.decide(bot, obs, CLASSIC)
        assert action is None or action in obs.legal  # None: no knock now
        pauses.append(clock.now - started)
    return pauses


def test_strong_takes_as_long_over_an_offer_out_of_turn_whatever_its_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    strong, weak = _offers(searched=True), _offers(searched=False)
    clock = StillClock()
    monkeypatch.setattr(
        bot_seats, "time", SimpleNamespace(monotonic=clock.monotonic, sleep=clock.sleep)
    )
    bot = Strong(1, budget=BUDGET)
    pace = thinking_time(bot)
    assert pace > BUDGET  # the budget and the hand-over
    assert _pauses(bot, strong, clock) == pytest.approx([pace] * DECISIONS)
    assert _pauses(bot, weak, clock) == pytest.approx([pace] * DECISIONS)
    # Every decision slept the whole pace: the searched ones were not told by a shorter pause.
    assert clock.sleeps == pytest.approx([pace] * (2 * DECISIONS))
