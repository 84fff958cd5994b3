"""A finished hand, step by step, for the replay page: its record replayed through the engine.

Step 0 is the deal with every hand open; step i is the table just after the record's i-th
action. Only a complete hand is ever shown this way (the views refuse any other): its cards are
no longer anyone's secret. Every figure is read off the engine's own state (`Hand`), so the
replay can never tell a different story from the table that played it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import translation
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import TOKENS, Action, BadRecord, Hand, IllegalAction, parse_record
from games.view.html import card_html


class Unreplayable(Exception):
    """The stored record does not replay (it never should)."""


@dataclass(frozen=True)
class SeatView:
    seat: int
    name: str
    cards: list[SafeString]
    laid_aside: list[SafeString]
    lives: int
    lives_at_start: int
    lost: int
    knocks: int
    folded: bool
    dealer: bool
    acting: bool
    winner: bool
    open_hand: bool
    announcement: str


@dataclass(frozen=True)
class TrickView:
    number: int
    plays: list[tuple[str, SafeString]]
    winner: str | None


@dataclass(frozen=True)
class StepView:
    step: int
    last: int
    said: str
    card: SafeString
    stake: int
    stock: int
    laundry: bool
    seats: list[SeatView]
    tricks: list[TrickView]
    reveals: list[str]
    complete: bool
    outcome: str

    @property
    def previous(self) -> int | None:
        return self.step - 1 if self.step > 0 else None

    @property
    def next(self) -> int | None:
        return self.step + 1 if self.step < self.last else None


def _cards(cards: Any) -> list[SafeString]:
    language = translation.get_language() or "en"  # the page's: the labels name the suits
    return [mark_safe(card_html(TOKENS[card], language)) for card in cards]  # noqa: S308 (escaped there)


def _token(card: int | None) -> SafeString:
    return _cards([card])[0] if card is not None else mark_safe("")


def parse(record: Any) -> tuple[Hand, list[Action]]:
    try:
        return parse_record(record)
    except BadRecord as error:
        raise Unreplayable(error.message) from None


def _decided(hand: Hand) -> int:
    return sum(1 for trick in hand.tricks if trick.winner is not None)


def _said(hand: Hand, action: Action, before: Hand) -> str:
    """The action in words, as the table saw it happen."""
    names = hand.players
    who = names[action.seat]
    act = action.act
    if act == "exchange":
        text = _("%(name)s exchanges: four new cards from the stock.") % {"name": who}
    elif act == "challenge":
        assert action.target is not None
        reveal = hand.reveals[-1]
        names_of = {"name": who, "target": names[action.target]}
        if reveal.clean:
            text = (
                _(
                    "%(name)s challenges %(target)s: the cards laid aside were clean, so "
                    "%(name)s loses a life."
                )
                % names_of
            )
        else:
            text = (
                _(
                    "%(name)s challenges %(target)s: the cards laid aside were not clean, so "
                    "%(target)s pays."
                )
                % names_of
            )
    elif act == "knock":
        text = _("%(name)s knocks: the stake is now %(stake)d.") % {
            "name": who,
            "stake": hand.stake,
        }
    elif act == "stay":
        text = _("%(name)s stays in.") % {"name": who}
    elif act == "fold":
        lost = hand.lost[action.seat] - before.lost[action.seat]
        text = ngettext(
            "%(name)s folds and loses %(lost)d life.",
            "%(name)s folds and loses %(lost)d lives.",
            lost,
        ) % {"name": who, "lost": lost}
    elif act == "play":
        text = _("%(name)s plays a card.") % {"name": who}
    elif act == "last_trick":
        text = _("%(name)s takes the last trick.") % {"name": who}
    elif act == "announce" and action.kind == "whistle":
        text = _("%(name)s announces a whistle.") % {"name": who}
    else:
        text = _("%(name)s announces a stand.") % {"name": who}
    if _decided(hand) > _decided(before):
        winner = hand.tricks[_decided(hand) - 1].winner
        assert winner is not None
        text += " " + _("%(name)s takes the trick.") % {"name": names[winner]}
    if action.auto:
        text += " " + _("(The table did this for the player.)")
    return text


def _outcome(hand: Hand) -> str:
    if not hand.complete:
        return ""
    if hand.winner is None:
        return _("Nobody wins the hand.")
    return _("%(name)s wins the hand.") % {"name": hand.players[hand.winner]}


def step_view(record: Any, step: int) -> StepView:
    """The table after the first `step` actions of `record` (clamped to the hand's length)."""
    hand, actions = parse(record)
    step = max(0, min(step, len(actions)))
    if hand.slate:
        # Real cards: the slate kept what was said, never the cards.
        said = _("The deal with real cards: %(dealer)s deals.") % {
            "dealer": hand.players[hand.dealer]
        }
    else:
        said = _("The deal: every hand open, %(dealer)s deals.") % {
            "dealer": hand.players[hand.dealer]
        }
    acting = None
    played = None
    try:
        for index, action in enumerate(actions[:step]):
            before = hand.copy() if index == step - 1 else hand
            hand.apply(action)
            if index == step - 1:
                said = _said(hand, action, before)
                acting = action.seat
                played = action.card if action.act == "play" else None
    except IllegalAction as error:
        raise Unreplayable(error.message) from None
    seats = [
        SeatView(
            seat=seat,
            name=hand.players[seat],
            cards=_cards(sorted(hand.hands[seat]) if step else hand.hands[seat]),
            laid_aside=_cards(hand.laid[seat]),
            lives=hand.lives[seat],
            lives_at_start=hand.start_lives[seat],
            lost=hand.lost[seat],
            knocks=hand.knocks[seat],
            folded=hand.folded[seat],
            dealer=seat == hand.dealer,
            acting=seat == acting,
            winner=hand.complete and hand.winner == seat,
            open_hand=hand.open_hand[seat],
            announcement=hand.announcements.get(seat, ""),
        )
        for seat in range(hand.n)
    ]
    tricks = [
        TrickView(
            number=number,
            plays=[(hand.players[seat], _token(card)) for seat, card in trick.plays],
            winner=hand.players[trick.winner] if trick.winner is not None else None,
        )
        for number, trick in enumerate(hand.tricks, start=1)
    ]
    reveals = [
        (
            _("%(name)s challenged %(target)s: clean.")
            if reveal.clean
            else _("%(name)s challenged %(target)s: not clean.")
        )
        % {"name": hand.players[reveal.challenger], "target": hand.players[reveal.target]}
        for reveal in hand.reveals
    ]
    return StepView(
        step=step,
        last=len(actions),
        said=said,
        card=_token(played),
        stake=hand.stake,
        stock=len(hand.stock),
        laundry=hand.laundry,
        seats=seats,
        tricks=tricks,
        reveals=reveals,
        complete=hand.complete and step == len(actions),
        outcome=_outcome(hand) if step == len(actions) else "",
    )
