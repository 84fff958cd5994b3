"""Judging a hand: how likely each card is to top its suit, the chance of winning the last trick,
and which card to play. Shared by every level and by the Strong search's rollouts, so it works
on plain ints and bit masks (bit `card` set = that card) and stays cheap.

Only the last trick scores in Toepen. A card wins it if it is the highest of the suit led; the
player who leads it chooses that suit, so the plan is always: keep one "keeper" that is likely
the top of its suit, and win the third trick with another card to lead the keeper last.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

TRICKS: Final = 4
ALL: Final = (1 << 32) - 1
SUIT_BITS: Final = tuple(0xFF << (8 * suit) for suit in range(4))
# Same-suit cards above each card: above[c] & unknown is what could beat c.
ABOVE: Final = tuple(SUIT_BITS[c >> 3] & ~((1 << (c + 1)) - 1) for c in range(32))
TENS: Final = sum(1 << (suit * 8 + 7) for suit in range(4))
JACKS: Final = sum(1 << (suit * 8) for suit in range(4))
# When a player without the lead still wins the last trick: the leader must lead the suit of
# her keeper (or a lower card of it). A rough share, checked against self-play.
NO_LEAD_SHARE: Final = 0.3
LEAD_SHARE: Final = 0.8
UNSURE_CAP: Final = 0.9


def mask_of(cards: Sequence[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def none_held(higher: int, unknown: int, held: int) -> float:
    """Chance that none of `higher` specific unknown cards is among the `held` cards opponents
    hold, when those are drawn from `unknown` unseen cards (hypergeometric)."""
    if higher <= 0:
        return 1.0
    if held <= 0:
        return 1.0
    if held + higher > unknown:
        return 0.0
    chance = 1.0
    for i in range(higher):
        chance *= (unknown - held - i) / (unknown - i)
    return chance


def top_chance(
    card: int, unknown: int, unknown_count: int, held: int, known_held: int = 0
) -> float:
    """Chance that no opponent holds a card of `card`'s suit above it.

    `unknown`: mask of cards this player has not seen; `held`: how many of them opponents still
    in hold; `known_held`: cards opponents are known to hold (open hands)."""
    if ABOVE[card] & known_held:
        return 0.0
    higher = (ABOVE[card] & unknown).bit_count()
    return none_held(higher, unknown_count, held)


class View:
    """What one player knows that the judging needs, built from an observation or a playout."""

    __slots__ = (
        "cards",
        "unknown",
        "unknown_count",
        "held",
        "known_held",
        "trick",
        "trick_left",
        "tricks_left",
        "leads",
        "opponents",
        "played",
    )

    def __init__(
        self,
        cards: Sequence[int],
        unknown: int,
        held: int,
        trick: Sequence[tuple[int, int]],
        trick_left: int,
        tricks_left: int,
        leads: bool,
        opponents: int,
        known_held: int = 0,
        seat: int | None = None,
    ) -> None:
        self.cards = list(cards)
        self.unknown = unknown
        self.unknown_count = unknown.bit_count()
        self.held = held
        self.known_held = known_held
        # The cards on the table in the trick begun, as (seat, card), and how many players
        # still in are yet to play to it after this player.
        self.trick = list(trick)
        self.trick_left = trick_left
        # Tricks not yet decided, the one on the table included.
        self.tricks_left = tricks_left
        self.leads = leads
        self.opponents = opponents
        # The card this player has already put into the trick on the table, if any.
        self.played = next((card for s, card in trick if s == seat), None)

    def top(self, card: int, held: int | None = None) -> float:
        return top_chance(
            card,
            self.unknown,
            self.unknown_count,
            self.held if held is None else held,
            self.known_held,
        )


def keeper(view: View) -> int | None:
    """The card to keep for the last trick: the likeliest top of its suit, higher on a tie
    (and the same card whatever the order of the hand)."""
    best: int | None = None
    best_key = (-1.0, -1, -1)
    for card in view.cards:
        key = (view.top(card), card & 7, card)
        if key > best_key:
            best, best_key = card, key
    return best


def _trick_best(trick: Sequence[tuple[int, int]]) -> int:
    suit = trick[0][1] >> 3
    return max(card for _, card in trick if card >> 3 == suit)


def win_chance(view: View) -> float:
    """Rough chance of winning the last trick from here (0..1)."""
    if view.opponents == 0:
        return 1.0
    trick = view.trick
    played = view.played
    if view.tricks_left == 1:
        if played is not None or not view.cards:
            # The last card is down: it wins unless beaten by those still to play.
            if played is None or not trick:
                return 0.0
            if _trick_best(trick) != played:
                return 0.0
            return view.top(played, view.trick_left)
        card = view.cards[0]
        if trick:
            if card >> 3 != trick[0][1] >> 3 or card < _trick_best(trick):
                return 0.0
            return view.top(card, view.trick_left)
        if view.leads:
            return view.top(card)
        return NO_LEAD_SHARE * view.top(card)
    keep = keeper(view)
    if keep is None:
        return 0.0
    keep_top = view.top(keep)
    rest = [card for card in view.cards if card != keep]
    # Taking the third trick to lead the keeper is far from sure even with a good second card:
    # others fight for that lead too.
    lead = LEAD_SHARE * max((view.top(card) for card in rest), default=0.0)
    if view.tricks_left == 2 and played is not None:
        # Already played to the third trick: the lead is the card's to win.
        lead = view.top(played, view.trick_left) if _trick_best(trick) == played else 0.0
    elif view.tricks_left == 2 and trick and view.cards:
        # Winning this trick leads the last: can a card other than the keeper still take it?
        suit = trick[0][1] >> 3
        best = _trick_best(trick)
        if any(c >> 3 == suit for c in view.cards):
            beating = [c for c in rest if c >> 3 == suit and c > best]
            lead = max((view.top(c, view.trick_left) for c in beating), default=0.0)
        else:
            lead = 0.0
    elif view.tricks_left > 2:
        lead = min(1.0, lead + 0.05 * (view.tricks_left - 2))
    chance = keep_top * (lead + (1.0 - lead) * NO_LEAD_SHARE)
    # Two tricks or more to go, nothing is sure: the cap keeps two strong hands from a knock war.
    return min(chance, UNSURE_CAP)


def choose_card(view: View, playable: Sequence[int]) -> int:
    """A sound card: shed low cards early, take the third trick for the lead, keep the keeper."""
    if len(playable) == 1:
        return playable[0]
    keep = keeper(view)
    others = [card for card in playable if card != keep] or list(playable)
    trick = view.trick
    if trick:
        suit = trick[0][1] >> 3
        best = _trick_best(trick)
        following = playable[0] >> 3 == suit
        if not following:
            # Void: throw away the card least likely to matter.
            return min(others, key=lambda card: (view.top(card), card & 7))
        if view.tricks_left == 2:
            beating = [card for card in others if card > best]
            if beating:
                return min(beating)
        return min(others)
    if view.tricks_left == 2:
        # Lead the third trick with the best card but the keeper, to lead the keeper last.
        return max(others, key=lambda card: (view.top(card), card & 7))
    return min(others, key=lambda card: (view.top(card), card & 7))


def naive_strength(cards: Sequence[int]) -> float:
    """A beginner's reading: how high the highest cards are, nothing counted."""
    if not cards:
        return 0.0
    ranks = sorted((card & 7 for card in cards), reverse=True)
    score = ranks[0] / 7.0
    if len(ranks) > 1:
        score = 0.75 * score + 0.25 * ranks[1] / 7.0
    return score


def sure_top(view: View, card: int) -> bool:
    """No card that could beat `card` in its suit is left with anyone: none unseen, none in an
    open hand."""
    return not ABOVE[card] & (view.unknown | view.known_held)


def sure_of_last_trick(view: View) -> bool:
    """The last trick is this player's whatever the others hold: she wins (or has won) the
    trick on the table with a card nobody can beat, or leads it, and every card she keeps tops
    its suit, so she leads each later trick and wins it. Counted from what she has seen only."""
    if view.opponents == 0:
        return True
    trick, played = view.trick, view.played
    if played is not None:
        if _trick_best(trick) != played or view.top(played, view.trick_left) < 1.0:
            return False
        rest = view.cards
    elif trick:
        card = sure_winner(view)
        if card is None:
            return False
        rest = [other for other in view.cards if other != card]
    elif view.leads:
        rest = view.cards
    else:
        return False  # someone else leads: she may be void in the suit led
    return all(sure_top(view, card) for card in rest)


def sure_winner(view: View) -> int | None:
    """The lowest card of hers that takes the trick on the table whatever the players after her
    hold (the lowest, so the higher ones are kept; the same whatever the order of the hand)."""
    if not view.trick or view.played is not None:
        return None
    suit = view.trick[0][1] >> 3
    best = _trick_best(view.trick)
    return min(
        (
            card
            for card in view.cards
            if card >> 3 == suit and card > best and view.top(card, view.trick_left) >= 1.0
        ),
        default=None,
    )
