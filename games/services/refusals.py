"""Refusals in the player's language.

A refusal keeps its stable code for programs and carries a lazily translated message, turned
into text where it is shown (the consumer renders in each phone's language). The engine's own
messages are English and precise; at the table they are shown by their code.
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from games.engine import IllegalAction
from games.engine.table import Refused

ENGINE_REFUSALS: dict[str, Promise] = {
    "hand_over": _("The hand is over."),
    "answers_awaited": _("Wait: answers to the knock come first."),
    "not_awaited": _("No answer is due from you."),
    "not_your_turn": _("It is not your turn."),
    "folded": _("You have folded."),
    "card_not_in_hand": _("You do not hold that card."),
    "must_follow_suit": _("You must follow suit."),
    "cannot_knock": _("You may not knock now."),
    "cannot_fold": _("You may not fold now."),
    "cannot_exchange": _("You may not exchange now."),
    "cannot_challenge": _("You may not challenge that now."),
    "cannot_announce": _("You may not announce that now."),
    "bad_record": _("That action is not understood."),
    "cannot_end": _("A player who folded cannot have taken the last trick under these rules."),
    "immune": _("Buying the round: the table plays this hand for you."),
}


# The finer reasons of the engine's and the table's refusals (IllegalAction.reason,
# games.engine.table.Refused.reason), as a player reads them; a reason not here reads as the
# code it names, else as the refusal's code.
REASONS: dict[str, Promise] = {
    "laundry_closed": _("The laundry window has closed."),
    "laundry_open": _("Wait: the laundry is still open."),
    "knocked_last": _("You knocked last; someone else must knock before you may again."),
    "poor": _("A poor player may not knock in this hand."),
    "knock_limit": _("You have knocked as often as the rules allow."),
    "over_lives": _("A higher stake would be more than your lives."),
    "closed": _("This table is closed."),
    "hand_under_way": _("You can leave between hands."),
    "playing": _("A rubber is going on."),
    "seats_free": _("Every seat needs a player or a computer player."),
    "out_of_rubber": _("You are out of this rubber."),
}


def engine_message(error: IllegalAction) -> Promise | str:
    """What a player reads: by the refusal's reason (finer than its code: an answer out of
    turn is refused for the answers awaited, not as a card out of turn), else its code."""
    return (
        REASONS.get(error.reason)
        or ENGINE_REFUSALS.get(error.reason)
        or ENGINE_REFUSALS.get(error.code, error.message)
    )


def refusal_message(refused: Refused, stake: int | None = None, lives: int | None = None) -> str:
    """`refused` in the reader's language (`stake` and `lives`: the knock it would make and the
    lives of who would make it, where the reader's own seat is known)."""
    if refused.reason == "over_lives" and stake is not None and lives is not None:
        return _("A stake of %(stake)d would be more than your %(lives)d lives.") % {
            "stake": stake,
            "lives": lives,
        }
    text = (
        REASONS.get(refused.reason)
        or ENGINE_REFUSALS.get(refused.reason)
        or ENGINE_REFUSALS.get(refused.code)
    )
    return str(text) if text is not None else refused.message
