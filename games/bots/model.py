"""The opponent model: how each player's knocks, stays and folds depend on what she held.

A player's choices are modelled as chances that depend on the strength of her cards at that
moment, as she could judge it from her own view (`strength`: seven classes, from a weak hand to
a sure last trick), and on when she chose:

- at every **knock chance** (each trick she played a card to, the moment before her card, or
  her knock if she knocked in that trick) the chance that she knocks, by her strength and by
  whether the last two tricks have begun (`late`);
- at every **answer** to a knock, the chance that she stays, by her strength and by the stake.

Every chance starts from a prior that fits players in general (`PRIOR_KNOCK`, `PRIOR_STAY`:
measured over hands of Normal and Easy players, and a little flattened) and moves towards
the player as her hands are seen: a hand played to its last trick shows the cards of every
player still in, and so her strength at each knock chance and at each stay of hers
(`reads.shown_choices`). Her cards are never shown when she folds, so the chance of a stay is
read by Bayes' rule: the shown stays of each strength class, against how many of her answers
(her folds and her shown stays) held that class, as often as a player facing a knock holds it
(`ANSWER_BASE`).

Strong weighs each world it imagines by how likely every opponent's knocks, passes, stays and
folds so far in the hand were under her model (`world.Knowledge`), and lets her play her model
in the playouts. Only public actions and the cards shown in tricks are read, the same for
every seat.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Final

from .judge import View, sure_of_last_trick, sure_top, win_chance

CLASSES: Final = 7
SURE: Final = 6


def strength(view: View) -> int:
    """A player's strength class at one moment, as she could judge it from her own view:
    without a card that tops its suit 0, 1, 2 (judged chance of the last trick under 0.25,
    under 0.5, above); with one 3, 4 (under 0.5, above); 5 a chance of at least 0.85 (the most
    the judging gives before the last two tricks); 6 a sure last trick."""
    if sure_of_last_trick(view):
        return SURE
    chance = win_chance(view)
    if chance >= 0.85:
        return 5
    if any(sure_top(view, card) for card in view.cards):
        return 3 if chance < 0.5 else 4
    return 0 if chance < 0.25 else 1 if chance < 0.5 else 2


# The tables are plain module constants: compiled, a Final tuple of tuples of floats is never
# set.
# Chance of a knock at a knock chance, by class; early (three or four tricks to go) and late.
# Players in general: Normal and Easy at tables of both, over 400 rubbers (about 3,700 hands),
# rounded up where the classes were rarely seen, so no class is ruled out before she is seen.
PRIOR_KNOCK: tuple[tuple[float, ...], ...] = (
    (0.01, 0.01, 0.01, 0.01, 0.04, 0.5, 0.3),
    (0.03, 0.01, 0.13, 0.04, 0.04, 0.43, 0.4),
)
# Chance of a stay when knocked at, by class; at a stake of 2, and above it.
PRIOR_STAY: tuple[tuple[float, ...], ...] = (
    (0.2, 0.33, 0.35, 0.4, 0.47, 0.6, 0.9),
    (0.12, 0.1, 0.4, 0.7, 0.45, 0.8, 0.9),
)
# How often a player answering a knock holds each class, at a stake of 2 and above it.
ANSWER_BASE: tuple[tuple[float, ...], ...] = (
    (0.35, 0.25, 0.12, 0.12, 0.11, 0.05, 0.01),
    (0.11, 0.13, 0.03, 0.25, 0.05, 0.28, 0.15),
)
# How often a player at a knock chance holds each class, early and late (the same hands).
CHANCE_BASE: tuple[tuple[float, ...], ...] = (
    (0.185, 0.275, 0.069, 0.079, 0.273, 0.116, 0.003),
    (0.381, 0.126, 0.123, 0.23, 0.028, 0.049, 0.064),
)
# How many of her own choices weigh as much as the prior, per class.
PRIOR_WEIGHT: Final = 3.0
# Once this many of a player's choices were shown with her cards, the levels act on her model:
# Strong lets her play it in the playouts, Normal believes her knocks and knocks at her by it.
SEEN_ENOUGH: Final = 12
# A stay chance under this on every hand without a top card: she folds those (for Normal).
FOLDS_WEAK: Final = 0.2
# No class is ever certain: a chance is kept within these bounds.
FLOOR: Final = 0.002
CEILING: Final = 0.998


def _bounded(chance: float) -> float:
    return min(CEILING, max(FLOOR, chance))


@dataclass
class Model:
    """One player's shown choices, counted per class; read into chances by `knock` and
    `stay`."""

    # [late][class]: knock chances seen, and knocks among them.
    chances: list[list[int]] = field(default_factory=lambda: [[0] * CLASSES, [0] * CLASSES])
    knocks: list[list[int]] = field(default_factory=lambda: [[0] * CLASSES, [0] * CLASSES])
    # [late]: knocks whose cards were never shown (everyone folded, or she did later).
    unshown_knocks: list[int] = field(default_factory=lambda: [0, 0])
    # [high stake][class]: shown stays; [high stake]: folds (never shown).
    stays: list[list[int]] = field(default_factory=lambda: [[0] * CLASSES, [0] * CLASSES])
    folds: list[int] = field(default_factory=lambda: [0, 0])

    def learn(self, act: str, view: View, stake: int) -> None:
        """Count one shown choice: "knock" or "pass" at a knock chance, or "stay"."""
        klass = strength(view)
        if act == "stay":
            self.stays[stake > 2][klass] += 1
            return
        late = view.tricks_left <= 2
        self.chances[late][klass] += 1
        self.knocks[late][klass] += act == "knock"

    def seen(self) -> int:
        """How many of her choices have been shown with her cards."""
        return sum(map(sum, self.chances)) + sum(map(sum, self.stays))

    def knock(self, late: bool, klass: int) -> float:
        """The chance she knocks at a knock chance holding `klass`.

        A knock everyone folded to is never shown, nor are her knock chances in that hand: each
        such knock is counted as a knock and a chance spread over the classes as her shown
        knocks are (with the prior's shape while few are shown)."""
        prior = PRIOR_KNOCK[late][klass]
        knocks = self.knocks[late]
        unshown = self.unshown_knocks[late]
        extra = 0.0
        if unshown:
            shape = PRIOR_KNOCK[late]
            total = sum(knocks) + math.fsum(shape)
            extra = unshown * (knocks[klass] + shape[klass]) / total
        seen = self.chances[late][klass] + extra
        return _bounded((knocks[klass] + extra + PRIOR_WEIGHT * prior) / (seen + PRIOR_WEIGHT))

    def stay(self, stake: int, klass: int) -> float:
        """The chance she stays when knocked at (at `stake`, the stake she answers) holding
        `klass`."""
        high = stake > 2
        prior = PRIOR_STAY[high][klass]
        # Of the answers counted (her folds and her shown stays), about this many held the
        # class, as often as an answerer holds it; her shown stays of the class among them.
        counted = (self.folds[high] + sum(self.stays[high])) * ANSWER_BASE[high][klass]
        shown = self.stays[high][klass]
        return _bounded((shown + PRIOR_WEIGHT * prior) / (counted + PRIOR_WEIGHT))

    def knock_table(self) -> tuple[float, ...]:
        """Every knock chance, early classes then late (for the playouts)."""
        return tuple(self.knock(late, k) for late in (False, True) for k in range(CLASSES))

    def stay_table(self) -> tuple[float, ...]:
        """Every stay chance, low stake classes then high."""
        return tuple(self.stay(stake, k) for stake in (2, 3) for k in range(CLASSES))

    def credibility(self, late: bool) -> float:
        """The share of her knocks that come from a good hand (class 2 and up: a judged chance
        of at least 0.5 or a card that tops its suit), by Bayes' rule over how often a player
        at a knock chance holds each class: near 1 for one who knocks only when strong."""
        base = CHANCE_BASE[late]
        weighed = [self.knock(late, k) * base[k] for k in range(CLASSES)]
        return math.fsum(weighed[2:]) / math.fsum(weighed)

    def folds_without_a_top_card(self) -> bool:
        """She is seen to fold to a first knock unless she holds a card that tops its suit."""
        return self.seen() > 0 and max(self.stay(2, k) for k in range(3)) < FOLDS_WEAK
