"""Fast playouts of a determinized hand to its end.

Every seat in a playout plays like Normal from its own cards and the cards on the table only
(never from the sampled cards of others), so a playout prices a knock as real opponents would
answer it rather than as all-seeing ones. Seats whose habits the table has learnt (always
folds, never folds, always knocks, never knocks, knocks only on the line, stays only on a high
card) play those habits.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final, Literal

from games.engine import Hand
from games.engine.actions import FOLD, KNOCK, PLAY, STAY

from .judge import ALL, TRICKS, View, choose_card, mask_of, win_chance
from .model import CLASSES, strength
from .reads import knock_is_sure, stay_is_high
from .simple import knock_threshold, stay_is_better

# "high": stays only on a high card; "line": knocks only on a sure last trick (`reads`);
# "model": by her model's chances for the strength of her cards (`model`).
Answering = Literal["judge", "fold", "stay", "high", "model"]
Knocking = Literal["judge", "always", "never", "line", "model"]
# Knocks a playout allows before it stops them: long knock wars are rare and slow to play out.
MAX_KNOCKS: Final = 6


@dataclass(frozen=True, slots=True)
class Style:
    answers: Answering = "judge"
    knocks: Knocking = "judge"
    credibility: float = 0.6
    # Added to a judging seat's chance before it answers: a seat seen to stay more often than
    # judging alone would is modelled as bolder (and one that folds more, as more timid).
    stay_bias: float = 0.0
    # Her model's knock chances (early classes, then late) and stay chances (at a stake of 2,
    # then above), for "model".
    knock_chances: tuple[float, ...] = ()
    stay_chances: tuple[float, ...] = ()


def view_in(world: Hand, seat: int) -> View:
    """What `seat` knows in `world` that the judging needs (open hands left out)."""
    cards = world.hands[seat]
    seen = mask_of(cards)
    for done in world.tricks:
        for _, card in done.plays:
            seen |= 1 << card
    folded = world.folded
    hands = world.hands
    others = [s for s in range(world.n) if s != seat and not folded[s]]
    held = sum(len(hands[s]) for s in others)
    current = world.current
    trick = current.plays if current is not None else []
    if trick:
        played = {s for s, _ in trick}
        trick_left = sum(1 for s in others if s not in played)
    else:
        trick_left = 0
    decided = len(world.tricks) - (1 if current is not None else 0)
    leads = current is None and world.turn == seat
    return View(
        cards, ALL & ~seen, held, trick, trick_left, TRICKS - decided, leads, len(others), 0, seat
    )


def play_out(world: Hand, styles: list[Style], rng: random.Random) -> None:
    """Play `world` to its end in place."""
    considered: set[tuple[int, int, int]] = set()
    knocks = 0
    while not world.complete:
        if world.awaiting or (world.laundry and world.poverty):
            seat = world.due()[0]
            style = styles[seat]
            if style.answers == "judge":
                view = view_in(world, seat)
                win = min(1.0, max(0.0, win_chance(view) + style.stay_bias))
                stay = stay_is_better(win, world.stake, world.lives[seat], style.credibility)
                if rng.random() < 0.1:
                    stay = not stay
            elif style.answers == "high":
                stay = stay_is_high(view_in(world, seat))
            elif style.answers == "model":
                klass = strength(view_in(world, seat))
                row = CLASSES if world.stake > 2 else 0
                stay = rng.random() < style.stay_chances[row + klass]
            else:
                stay = style.answers == "stay"
            if world.immune[seat]:
                # Buying the round (rules.md 3.8): the table answers for her, and folds.
                world.apply(FOLD[seat].as_auto())
                continue
            world.apply(STAY[seat] if stay else FOLD[seat])
            continue
        turn = world.turn
        assert turn is not None
        seat = turn
        view = view_in(world, seat)
        moment = (seat, len(world.tricks), len(world.current.plays) if world.current else 0)
        if knocks < MAX_KNOCKS and moment not in considered:
            considered.add(moment)
            if _knocks(world, seat, view, styles[seat], rng) and KNOCK[seat] in world.legal_actions(
                seat
            ):
                knocks += 1
                world.apply(KNOCK[seat])
                continue
        hand = world.hands[seat]
        current = world.current
        playable = hand
        if current is not None and current.plays:
            suit = current.plays[0][1] >> 3
            playable = [card for card in hand if card >> 3 == suit] or hand
        card = PLAY[seat][choose_card(view, playable)]
        # The table plays for a player buying the round (rules.md 3.8): none of her own.
        world.apply(card.as_auto() if world.immune[seat] else card)


def _knocks(world: Hand, seat: int, view: View, style: Style, rng: random.Random) -> bool:
    if style.knocks == "line":
        return knock_is_sure(view)
    if style.knocks == "model":
        row = CLASSES if view.tricks_left <= 2 else 0
        return rng.random() < style.knock_chances[row + strength(view)]
    if style.knocks != "judge":
        return style.knocks == "always"
    if world.poverty and world.poor[seat]:
        return False
    win = win_chance(view)
    late = view.tricks_left <= 2
    if win >= knock_threshold(world.stake, world.lives[seat], late):
        return True
    if world.stake == 1 and late and win < 0.25:
        return rng.random() < 0.08
    return False
