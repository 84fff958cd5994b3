"""Refusals in the player's language.

A refusal keeps its stable code for programs and carries a lazily translated message, turned
into text where it is shown (the consumer renders in each phone's language). The engine's own
messages are English and precise; at the table they are shown by their code.
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from games.engine import IllegalAction

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
}


def engine_message(error: IllegalAction) -> Promise | str:
    return ENGINE_REFUSALS.get(error.code, error.message)
