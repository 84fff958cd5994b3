"""What the table plays for a player who is away or out of time (rules of the live table):
no knocks, fold on a knock, the lowest legal card. Decided from the seat's `Observation` only.
"""

from __future__ import annotations

from games.engine import Action, Observation


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
