"""A slate table's view: the slate in chalk, as every phone that follows it sees it.

Everything shown comes from the engine: the lives, the stake, who is poor, folded, due; and
every button carries an entry the engine takes now (`Hand.legal_actions` of each player), so the
phone decides no rule. A slate hand has no cards, so every phone sees the same slate; one that
may keep it sees the buttons too.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from clubs.money import DEFAULT_CURRENCY, money
from games.engine import Action
from games.models import Seat, Table
from games.services.slate import Counted
from games.services.state import TableState
from games.view.context import render_error


@dataclass
class SlateRow:
    seat: int
    name: str
    lives: int
    strokes: list[int] = field(default_factory=list)
    dealer: bool = False
    poor: bool = False
    folded: bool = False
    immune: bool = False
    out: bool = False
    due: bool = False
    knocks: int = 0
    exchanges: int = 0
    open_hand: bool = False
    away: str = ""  # why she is away, as her badge reads
    buttons: list[dict[str, str]] = field(default_factory=list)
    away_buttons: list[dict[str, str]] = field(default_factory=list)  # a break, a round
    back: str = ""  # the frame of "back at the table", while she is away
    knock: str = ""  # the knock's frame, for the double tap on her name
    buy_back: str = ""  # the frame of buying back in (rules.md 3.10), while she may


def _entry(seats: Sequence[int], action: Action) -> dict[str, Any]:
    """`action` as an entry names it: table seats (`seats`: the hand's, by hand seat)."""
    entry: dict[str, Any] = {"act": action.act, "seat": seats[action.seat]}
    if action.target is not None:
        entry["target"] = seats[action.target]
    if action.clean is not None:
        entry["clean"] = action.clean
    return entry


def _frame(state: TableState, action: Action) -> dict[str, Any]:
    return {**_entry(state.hand_seats, action), "hand": state.hand_name()}


def _label(act: str) -> str:
    return {
        "knock": _("Knock"),
        "stay": _("Stay"),
        "fold": _("Fold"),
        "exchange": _("Exchange"),
        "last_trick": _("Last trick"),
    }[act]


def _away(seat: Seat) -> str:
    """Why a player is away, as every phone shows it (rules.md 3.8)."""
    if seat.away == "break":
        return _("on a break")
    if seat.away == "round":
        return _("back next hand") if seat.back_at_deal else _("buying a round")
    return ""


def _offer_away(state: TableState, row: SlateRow) -> None:
    """What a keeper may write now of `row`'s player being away, or back."""
    labels = {"break": _("On a break"), "round": _("Buying a round")}
    for choice in state.away_choices(row.seat):
        frame: dict[str, Any] = {"type": "away", "seat": row.seat, "hand": state.hand_name()}
        if choice == "back":
            frame["type"] = "back"
            row.back = json.dumps(frame)
        else:
            frame["reason"] = choice
            row.away_buttons.append(
                {"act": choice, "label": labels[choice], "frame": json.dumps(frame)}
            )


def _said(names: Sequence[str], action: Action) -> str:
    """One entry of a hand as the slate reads it (`names`: the hand's players, by hand seat)."""
    name = names[action.seat]
    if action.act == "challenge" and action.target is not None:
        target = names[action.target]
        outcome = _("clean") if action.clean else _("not clean")
        return _("%(name)s challenges %(target)s: %(outcome)s") % {
            "name": name,
            "target": target,
            "outcome": outcome,
        }
    texts = {
        "knock": _("%(name)s knocks"),
        "stay": _("%(name)s stays"),
        "fold": _("%(name)s folds"),
        "exchange": _("%(name)s exchanges"),
        "last_trick": _("%(name)s takes the last trick"),
    }
    text = texts.get(action.act, "%(name)s " + action.act) % {"name": name}
    return text + (" " + _("(by the table)") if action.auto else "")


def _hand_result(state: TableState) -> str:
    """What the finished hand cost whom, by the names it was dealt under ("" while it is
    played): the slate shows it, with its undo, until a keeper opens the next hand."""
    hand, row = state.hand, state.hand_row
    if hand is None or row is None or not hand.complete or row.result is None:
        return ""
    result, names = row.result, hand.players
    winner = result["winner"]
    if winner is None:
        parts = [_("Nobody wins this hand.")]
    else:
        parts = [_("%(name)s wins the hand.") % {"name": names[winner]}]
    for seat, lost in enumerate(result["lives_lost"]):
        if lost:
            text = ngettext(
                "%(name)s loses %(lives)s life.", "%(name)s loses %(lives)s lives.", lost
            )
            parts.append(text % {"name": names[seat], "lives": lost})
    return " ".join(parts)


def slate_context(state: TableState, can_keep: bool) -> dict[str, Any]:
    table, hand, rubber = state.table, state.hand, state.rubber
    rows: list[SlateRow] = []
    challenges: list[dict[str, Any]] = []
    lives = list(rubber.lives) if rubber is not None else []
    playing = table.status == Table.Status.PLAYING and hand is not None and not hand.complete
    rubber_over = table.status == Table.Status.RUBBER_OVER
    buyers = state.buyers() if can_keep else ()
    pot = state.pot()
    currency = rubber.currency if rubber is not None else DEFAULT_CURRENCY
    for seat in state.seats:
        hand_seat = state.hand_seat(seat.index)
        row = SlateRow(seat=seat.index, name=seat.name, lives=0, away=_away(seat))
        if hand is not None and hand_seat is not None:
            row.lives = hand.lives[hand_seat]
            row.dealer = hand.dealer == hand_seat
            row.poor = hand.poor[hand_seat]
            row.folded = hand.folded[hand_seat]
            row.immune = hand.immune[hand_seat]
            row.due = hand_seat in hand.due()
            row.knocks = hand.knocks[hand_seat]
            row.exchanges = hand.exchanges[hand_seat]
            row.open_hand = hand.open_hand[hand_seat]
        else:
            row.lives = lives[seat.index] if seat.index < len(lives) else 0
            row.out = rubber is not None
        row.strokes = list(range(row.lives))
        if can_keep and playing and hand is not None and hand_seat is not None:
            for action in hand.legal_actions(hand_seat):
                if action.auto:
                    continue  # the table's for a player buying the round, not the keeper's
                frame = json.dumps(_frame(state, action))
                if action.act == "challenge" and action.target is not None:
                    challenges.append(
                        {
                            "frame": frame,
                            "text": _("%(name)s challenges %(target)s")
                            % {
                                "name": seat.name,
                                "target": state.seats[state.table_seat(action.target)].name,
                            },
                            "clean": action.clean,
                        }
                    )
                    continue
                if action.act == "knock":
                    row.knock = frame
                row.buttons.append({"act": action.act, "label": _label(action.act), "frame": frame})
        if can_keep and (rubber_over or not row.out or seat.away):
            _offer_away(state, row)
        if seat.index in buyers:
            frame = {"type": "buy_back", "seat": seat.index, "hand": state.hand_name()}
            row.buy_back = json.dumps(frame)
        rows.append(row)
    said = [] if hand is None else [_said(hand.players, a) for a in hand.actions]
    stake = hand.stake if hand is not None else 0
    score = ", ".join(f"{row.name} {row.lives}" for row in rows if not row.out)
    return {
        "table": table,
        "rows": rows,
        "challenges": challenges,
        "said": said,
        "step": len(said),
        "stake": stake,
        "hand_name": state.hand_name(),
        "rubber_number": rubber.number if rubber is not None else 0,
        "hand_number": state.hand_row.number if state.hand_row is not None else 0,
        "laundry": bool(hand is not None and hand.laundry and not hand.complete),
        "poverty": bool(hand is not None and hand.poverty),
        "rubber_over": rubber_over,
        "losers": [state.seats[s].name for s in (rubber.losers if rubber else [])],
        "winner": (
            state.seats[rubber.winner].name
            if rubber is not None and rubber.winner is not None
            else ""
        ),
        "pot": money(pot, currency) if pot else "",
        "buy_back_price": money(rubber.pot_stake, currency) if rubber and buyers else "",
        "pot_takers": [
            str(rubber.players[seat])
            for seat in (rubber.pot_takers if rubber_over and rubber else [])
        ],
        "can_keep": can_keep,
        "can_undo": can_keep and rubber is not None and table.status != Table.Status.CLOSED,
        "undo_frame": json.dumps({"type": "undo", "hand": state.hand_name()}),
        "result": _hand_result(state),
        # The hand is over and the rubber is not: a keeper opens the next one.
        "can_deal": can_keep
        and table.status == Table.Status.PLAYING
        and hand is not None
        and hand.complete,
        "next_frame": json.dumps({"type": "next_hand", "hand": state.hand_name()}),
        "speech": _("Score: %(score)s") % {"score": score},
    }


def render_slate(state: TableState, can_keep: bool) -> str:
    """The live slate (`#slate-live`, out of band), in the active language."""
    return render_to_string("games/slate.html#live", slate_context(state, can_keep))


def render_refusal(message: str, code: str, action_id: str, counted: Counted) -> str:
    """A refused entry (`message` translated), and beside it what was counted on its hand
    since the phone saw it (`#slate-since`): each entry with its frame's fields, so the phone
    that sent it can leave out its own and show the others'."""
    since = []
    for action in counted.actions:
        said = _said(counted.names, action)
        text = said if action.auto else _("Entered on another phone: %(entry)s") % {"entry": said}
        entry = {**_entry(counted.seats, action), **({"auto": True} if action.auto else {})}
        since.append({"text": text, "entry": json.dumps(entry)})
    context = {"action_id": action_id, "since": since}
    return render_error(message, code, action_id) + render_to_string(
        "games/slate.html#since", context
    )
