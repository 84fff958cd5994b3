"""A finished hand's figures per player, read from its `toepen-hand/1` record through the engine.

The record is replayed (games.engine.parse_record, Hand.apply) and the figures are read off the
engine's own state: its knocks, exchanges, folds and the challenges it settled. Nothing here
decides a rule.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from games.engine import BadRecord, Hand, IllegalAction
from games.engine import replayed as engine_replayed

log = logging.getLogger(__name__)


@dataclass
class Tally:
    """What one player did in some hands (one hand, a rubber, a night...)."""

    hands: int = 0
    hands_won: int = 0
    lives_lost: int = 0
    knocks: int = 0
    knocks_won: int = 0
    folds: int = 0
    exchanges: int = 0
    challenges: int = 0
    challenges_won: int = 0

    def add(self, other: Tally) -> None:
        # Spelled out: a rubber adds a tally per player per hand, and `fields()` for each
        # addition cost a millisecond at a rubber's end.
        self.hands += other.hands
        self.hands_won += other.hands_won
        self.lives_lost += other.lives_lost
        self.knocks += other.knocks
        self.knocks_won += other.knocks_won
        self.folds += other.folds
        self.exchanges += other.exchanges
        self.challenges += other.challenges
        self.challenges_won += other.challenges_won


FIGURES = tuple(field.name for field in fields(Tally))


def replayed(record: Any) -> Hand | None:
    """The hand as its record leaves it; None (and a warning) for a record the engine refuses."""
    try:
        return engine_replayed(record)
    except (BadRecord, IllegalAction) as error:
        log.warning("a stored hand record does not replay: %s", error)
        return None


def hand_tallies(hand: Hand) -> list[Tally]:
    """Per hand seat: a knock "won" when its knocker won the hand; a challenge won when the
    laid-aside cards were not clean (the exchanger paid)."""
    tallies = []
    for seat in range(hand.n):
        won = hand.complete and hand.winner == seat
        tallies.append(
            Tally(
                hands=1,
                hands_won=int(won),
                lives_lost=hand.lost[seat],
                knocks=hand.knocks[seat],
                knocks_won=hand.knocks[seat] if won else 0,
                folds=int(hand.folded[seat]),
                exchanges=hand.exchanges[seat],
            )
        )
    for reveal in hand.reveals:
        tallies[reveal.challenger].challenges += 1
        if not reveal.clean:
            tallies[reveal.challenger].challenges_won += 1
    return tallies


def rubber_tallies(hands: Iterable[tuple[Sequence[int], Any]], seats: int) -> list[Tally]:
    """Per table seat, the sum over a rubber's finished hands, each given as (its table seats,
    its record)."""
    totals = [Tally() for _ in range(seats)]
    for hand_seats, record in hands:
        hand = replayed(record)
        if hand is None or not hand.complete:
            continue
        for hand_seat, tally in enumerate(hand_tallies(hand)):
            totals[hand_seats[hand_seat]].add(tally)
    return totals
