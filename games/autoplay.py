"""What the table plays for a seat: for a player who is away or out of time, and for computer
players until the strong ones (games.bots) take over.

Both decide only from the seat's `Observation`, never from the hand itself.
"""

from __future__ import annotations

import random

from games.engine import Action, HouseRules, Observation

_rng = random.SystemRandom()


def auto_action(observation: Observation) -> Action:
    """For a player away or out of time: no knocks, fold on a knock, the lowest card."""
    legal = observation.legal
    if not legal:
        raise ValueError("nothing is legal for this seat")
    acts = {action.act for action in legal}
    if "stay" in acts and observation.awaiting:
        return next(a for a in legal if a.act == "fold")
    plays = [action for action in legal if action.act == "play"]
    if plays:
        return min(plays, key=lambda action: (action.card or 0) & 7)
    return next(a for a in legal if a.act not in ("knock", "announce", "exchange", "challenge"))


def _rank(action: Action) -> int:
    return (action.card or 0) & 7


def _strength(cards: tuple[int, ...]) -> int:
    """Rough worth of a hand for the last trick: high number cards count most."""
    return sum(max(0, (card & 7) - 3) for card in cards)


def bot_action(
    level: str, observation: Observation, rules: HouseRules, laundry: bool = False
) -> Action | None:
    """A sound rule-based computer player; None: nothing to do now (laundry: keep the hand)."""
    legal = observation.legal
    hand = observation.hand or ()
    if laundry:
        exchange = next((a for a in legal if a.act == "exchange"), None)
        if (
            exchange is not None
            and _strength(hand) <= 2
            and observation.exchanges[exchange.seat] == 0
        ):
            return exchange
        return None
    if not legal:
        return None
    strength = _strength(hand)
    seat = legal[0].seat
    lives = observation.lives[seat]
    if observation.awaiting and seat in observation.awaiting:
        stay = next(a for a in legal if a.act == "stay")
        fold = next(a for a in legal if a.act == "fold")
        tricks_left = 4 - sum(1 for _, _, winner in observation.tricks if winner is not None)
        need = 2 * tricks_left + observation.stake - (3 if level == "easy" else 2)
        if lives <= observation.stake - 1:
            return stay  # folding costs what she has anyway
        return stay if strength >= need or _rng.random() < 0.15 else fold
    knock = next((a for a in legal if a.act == "knock"), None)
    plays = [a for a in legal if a.act == "play"]
    if knock is not None and plays and lives > observation.stake + 1:
        bold = {"easy": 0.03, "normal": 0.08, "strong": 0.1}.get(level, 0.05)
        if strength >= 6 + observation.stake or _rng.random() < bold:
            return knock
    if plays:
        tricks_done = sum(1 for _, _, winner in observation.tricks if winner is not None)
        last = tricks_done == 3
        # Keep the strong cards for the last trick, which is the one that counts.
        return max(plays, key=_rank) if last else min(plays, key=_rank)
    return None
