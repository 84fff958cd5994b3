"""A rubber: hands one after another, lives carried over, until it ends (rules.md 2, 3.1, 3.7).

Rubber seats are the table's seats, 0..n-1. A hand seats only the players still in (those with
lives left), so each hand has its own seat numbers; `hand_seats` maps them back. A slate rubber
(`slate`, rules.md 3.9) deals slate hands, under the same lives, deal and end as any other.
A rubber played for a pot (rules.md 3.10, `pot.py`) keeps each buying back in and, at its end,
who took the pot.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import pot as pot_rules
from .errors import EngineError
from .hand import Hand
from .rules import HouseRules


class RubberOver(EngineError):
    """No hand can be dealt: the rubber has ended."""

    def __init__(self, message: str = "the rubber is over") -> None:
        super().__init__("hand_over", message)


@dataclass
class HandOutcome:
    """One finished hand, in rubber seats."""

    number: int
    seats: tuple[int, ...]
    record: dict[str, Any]
    result: dict[str, Any]
    lives_lost: dict[int, int]
    winner: int | None
    went_out: tuple[int, ...]


@dataclass
class Rubber:
    rules: HouseRules
    players: list[str]
    dealer: int = -1
    lives: list[int] = field(default_factory=list)
    number: int = 1
    hand: Hand | None = None
    hand_seats: tuple[int, ...] = ()
    outcomes: list[HandOutcome] = field(default_factory=list)
    over: bool = False
    winner: int | None = None
    losers: tuple[int, ...] = ()
    slate: bool = False
    # The seats that went out in the last hand finished: who may buy back in before the deal.
    went_out: tuple[int, ...] = ()
    # Each buying back in (rules.md 3.10): the seat, and the number of the hand it came before.
    buy_backs: list[tuple[int, int]] = field(default_factory=list)
    # Who took the pot at the rubber's end, the one a remainder of cents goes to first.
    pot_takers: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.players)
        if not self.rules.min_players <= n <= 8:
            raise ValueError(f"a rubber under these rules seats {self.rules.min_players} to 8")
        if not self.lives:
            self.lives = [self.rules.starting_lives] * n
        if self.dealer < 0:
            self.dealer = first_dealer(n)

    @property
    def n(self) -> int:
        return len(self.players)

    def alive(self) -> list[int]:
        return [seat for seat in range(self.n) if self.lives[seat] > 0]

    def deal(self, seed: int | None = None, immune: Sequence[int] = ()) -> Hand:
        """Deal the next hand (from `seed`; None draws one from `secrets`)."""
        if self.over:
            raise RubberOver()
        if self.hand is not None and not self.hand.complete:
            raise EngineError("hand_over", "the current hand is not finished")
        seats = tuple(self.alive())
        index = {seat: i for i, seat in enumerate(seats)}
        self.hand_seats = seats
        lives = [self.lives[seat] for seat in seats]
        players = [self.players[seat] for seat in seats]
        in_hand = [index[seat] for seat in immune if seat in index]
        if self.slate:
            # Real cards: nothing to shuffle, `seed` goes unused.
            self.hand = Hand.slate_hand(
                self.rules, lives, index[self.dealer], players=players, immune=in_hand
            )
        else:
            self.hand = Hand.deal(
                self.rules, lives, index[self.dealer], seed, players=players, immune=in_hand
            )
        return self.hand

    def to_hand_seat(self, seat: int) -> int | None:
        try:
            return self.hand_seats.index(seat)
        except ValueError:
            return None

    def finish_hand(self) -> HandOutcome:
        """Carry a complete hand's lives over, decide whether the rubber ends, pick the dealer."""
        hand = self.hand
        if hand is None or not hand.complete:
            raise EngineError("hand_over", "the hand is not complete")
        seats = self.hand_seats
        for i, seat in enumerate(seats):
            self.lives[seat] = hand.lives[i]
        went_out = tuple(seat for i, seat in enumerate(seats) if hand.lives[i] == 0)
        winner = seats[hand.winner] if hand.winner is not None else None
        next_dealer = hand.next_dealer()
        assert next_dealer is not None
        outcome = HandOutcome(
            number=len(self.outcomes) + 1,
            seats=seats,
            record=hand.record(),
            result=hand.result(),
            lives_lost={seat: hand.lost[i] for i, seat in enumerate(seats)},
            winner=winner,
            went_out=went_out,
        )
        self.outcomes.append(outcome)
        self.hand = None
        dealt_by = self.dealer
        self.dealer = seats[next_dealer]
        self.went_out = went_out
        self._decide_end(went_out)
        if self.over and self.rules.pot:
            self.pot_takers = self._pot_takers(dealt_by, went_out)
        return outcome

    def _pot_takers(self, dealt_by: int, went_out: tuple[int, ...]) -> tuple[int, ...]:
        alive = self.alive()
        if alive:
            # Stopped with too few left to deal: a tie on the most lives shares the pot.
            best = max(self.lives[seat] for seat in alive)
            sharing = [seat for seat in alive if self.lives[seat] == best]
        else:
            sharing = list(went_out)
        return pot_rules.pot_takers(self.n, dealt_by, self.winner, sharing)

    def bought_back(self, seat: int) -> int:
        """How often the player in `seat` has bought back in this rubber."""
        return sum(1 for bought, _before in self.buy_backs if bought == seat)

    def buy_back_refusal(
        self, seat: int, *, bot: bool = False, away: bool = False
    ) -> pot_rules.BuyBackRefused | None:
        """Why the player in `seat` may not buy back in now, or None (rules.md 3.10)."""
        return pot_rules.buy_back_refusal(
            buy_back=self.rules.buy_back,
            lives=self.lives,
            went_out=self.went_out,
            bought=self.bought_back(seat),
            seat=seat,
            over=self.over,
            between_hands=self.hand is None or self.hand.complete,
            bot=bot,
            away=away,
        )

    def buy_back(
        self, seat: int, before_hand: int = 0, *, bot: bool = False, away: bool = False
    ) -> int:
        """The player in `seat` buys back in before the hand numbered `before_hand` (0: the
        next of this rubber's own count) with the lives of the player still in who has the
        fewest; BuyBackRefused when the rules do not allow it now. The lives she comes back
        with."""
        refused = self.buy_back_refusal(seat, bot=bot, away=away)
        if refused is not None:
            raise refused
        self.lives[seat] = pot_rules.lives_bought(self.lives, seat)
        self.buy_backs.append((seat, before_hand or len(self.outcomes) + 1))
        return self.lives[seat]

    @property
    def pot(self) -> int:
        """The pot as it stands, in cents (0 without one)."""
        return pot_rules.pot_cents(self.rules.pot_stake, self.n, len(self.buy_backs))

    def pot_shares(self) -> dict[int, int]:
        """What each taker of the pot gets, in cents, once the rubber is over."""
        return pot_rules.shares(self.pot, self.pot_takers)

    def _decide_end(self, went_out: tuple[int, ...]) -> None:
        if self.rules.end_condition == "first_out":
            if went_out:
                # Who went out lost; of the others the most lives left wins (a tie: nobody),
                # as a club night counts it.
                self.over = True
                self.losers = went_out
                self.winner = self._most_lives(self.alive())
            return
        alive = self.alive()
        if len(alive) == 1:
            self.over, self.winner = True, alive[0]
        elif not alive:
            # The last players went out together: they share the last place, nobody wins.
            self.over = True
        elif len(alive) < self.rules.min_players:
            # Too few left to deal a hand under these rules: the most lives left wins, a tie
            # shares it (nobody wins outright).
            self.over = True
            self.winner = self._most_lives(alive)
        if self.over:
            self.losers = tuple(seat for seat in range(self.n) if seat != self.winner)

    def _most_lives(self, seats: Sequence[int]) -> int | None:
        """Of `seats`, the one with the most lives left; None at a tie (or with none)."""
        if not seats:
            return None
        best = max(self.lives[seat] for seat in seats)
        leaders = [seat for seat in seats if self.lives[seat] == best]
        return leaders[0] if len(leaders) == 1 else None

    def next_rubber(self) -> Rubber:
        """A new rubber with the same seats; the winner of the last hand deals."""
        if not self.over:
            raise EngineError("hand_over", "the rubber is still going on")
        last = self.outcomes[-1]
        return Rubber(
            self.rules,
            list(self.players),
            dealer=first_dealer_after(last.result, last.seats),
            number=self.number + 1,
            slate=self.slate,
        )


def first_dealer(n: int, result: Mapping[str, Any] | None = None, seats: Sequence[int] = ()) -> int:
    """The first dealer of a rubber of `n` seats (a table seat): after another rubber at the
    same seats, as `first_dealer_after` its last hand (`result`, `seats`); else drawn at
    random, with `secrets`."""
    if result is None:
        return secrets.randbelow(n)
    return first_dealer_after(result, seats)


def first_dealer_after(result: Mapping[str, Any], seats: Sequence[int]) -> int:
    """The first dealer of the next rubber (a table seat): whoever won the last rubber's last
    hand, or took its last trick when nobody won it. `result` is that hand's toepen-result/1,
    `seats` its hand seats' table seats."""
    in_hand = result["winner"] if result["winner"] is not None else result["last_trick_winner"]
    return int(seats[in_hand])
