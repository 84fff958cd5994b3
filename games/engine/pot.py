"""Playing for the pot (rules.md 3.10): the pot, buying back in, and who takes it.

Amounts are whole cents. Seats are a rubber's (the table's) seats. Everything here is counted
from what a rubber keeps beside its hands (the stake, each buying back in and who took the
pot), so the same cents come out of a live rubber's end and of a rebuild from the stored rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

# Why a player may not buy back in now: a stable code for programs (the phone's error, a
# test), and a message for a person; an interface says it in its own words from the code.
BUY_BACK_REFUSALS: Final = {
    "no_buy_back": "these rules have no buying back in",
    "rubber_over": "the rubber is over",
    "not_between_hands": "a player buys back in between her last hand and the next deal",
    "not_out": "only a player who went out in the last hand buys back in",
    "buy_backs_used": "she has bought back in as often as the rules allow",
    "too_few_left": "buying back in needs at least two other players still in",
    "computer_player": "a computer player never buys back in",
    "away": "a player away when she went out does not buy back in",
}


class BuyBackRefused(Exception):
    """A buying back in the rules do not allow now; `code` is one of BUY_BACK_REFUSALS."""

    def __init__(self, code: str) -> None:
        super().__init__(BUY_BACK_REFUSALS[code])
        self.code = code
        self.message = BUY_BACK_REFUSALS[code]


def buy_back_refusal(
    *,
    buy_back: int,
    lives: Sequence[int],
    went_out: Iterable[int],
    bought: int,
    seat: int,
    over: bool,
    between_hands: bool,
    bot: bool = False,
    away: bool = False,
) -> BuyBackRefused | None:
    """Why the player in `seat` may not buy back in now, or None (rules.md 3.10).

    `buy_back`: the rules' limit; `lives`: every seat's lives as they stand; `went_out`: the
    seats that went out in the last hand; `bought`: how often she has bought back in this
    rubber; `between_hands`: the last hand is over and the next not dealt."""
    if buy_back <= 0:
        return BuyBackRefused("no_buy_back")
    if over:
        return BuyBackRefused("rubber_over")
    if not between_hands:
        return BuyBackRefused("not_between_hands")
    if bot:
        return BuyBackRefused("computer_player")
    if seat not in went_out or lives[seat] > 0:
        return BuyBackRefused("not_out")
    if away:
        return BuyBackRefused("away")
    if bought >= buy_back:
        return BuyBackRefused("buy_backs_used")
    if sum(1 for other, left in enumerate(lives) if other != seat and left > 0) < 2:
        return BuyBackRefused("too_few_left")
    return None


def lives_bought(lives: Sequence[int], seat: int) -> int:
    """The lives a player comes back with: those of the player still in with the fewest."""
    return min(left for other, left in enumerate(lives) if other != seat and left > 0)


def pot_cents(stake: int, players: int, buy_backs: int) -> int:
    """The pot: every player's stake at the start, and one more for each buying back in."""
    return stake * (players + buy_backs)


def stakes(stake: int, players: int, buy_backs: Iterable[int]) -> list[int]:
    """What each seat put into the pot: `buy_backs` names the seat of each buying back in."""
    put = [stake] * players
    for seat in buy_backs:
        put[seat] += stake
    return put


def pot_takers(
    players: int, dealer: int, winner: int | None, sharing: Sequence[int]
) -> tuple[int, ...]:
    """Who takes the pot when a rubber ends, in the order a remainder of cents is given: the
    last player still in alone (`winner`); else those who share it (`sharing`: the last
    players, who went out together in the last hand; or, when the rubber stopped with too few
    left to deal, those tied on the most lives), counted from the left of that hand's `dealer`
    (the dealer herself last)."""
    if winner is not None:
        return (winner,)
    return tuple(sorted(sharing, key=lambda seat: (seat - dealer - 1) % players))


def shares(pot: int, takers: Sequence[int]) -> dict[int, int]:
    """The pot split between `takers` in equal whole cents; a remainder goes to the first."""
    if not takers:
        return {}
    each, rest = divmod(pot, len(takers))
    split = dict.fromkeys(takers, each)
    split[takers[0]] += rest
    return split
