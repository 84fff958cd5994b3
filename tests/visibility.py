"""What a seat may see, worked out from the hand itself (not from what the engine shows)."""

from __future__ import annotations

from games.engine import Hand


def visible_to(hand: Hand, seat: int | None) -> set[int]:
    """Cards played, hands played open, cards shown by a challenge; a seat's own hand and the
    cards it laid aside itself. Nothing else."""
    seen = {card for trick in hand.tricks for _, card in trick.plays}
    for other in range(hand.n):
        if hand.open_hand[other]:
            seen.update(hand.hands[other])
    for reveal in hand.reveals:
        seen.update(reveal.cards)
    if seat is not None:
        seen.update(hand.hands[seat])
        seen.update(hand.laid[seat])
    return seen
