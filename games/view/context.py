"""Each recipient's view of a table, as HTML fragments for htmx.

The cards in a view come only from the engine's `observe` for the recipient's own seat (or a
spectator's `observe(None)`), so no other player's hidden card can reach a phone. A phone that
holds several seats (a shared phone) is shown one hand at a time: when another of its seats is
due, it gets a privacy screen until that player taps to show her cards.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from django.utils import timezone, translation

from games.engine import TOKENS, Action, HouseRules, Observation, public_fields
from games.engine import table as table_rules
from games.models import Seat
from games.services.conf import pace
from games.services.refusals import refusal_message
from games.services.state import CLOSED, PLAYING, TableState
from games.view.html import (
    SUIT_NAMES,
    SUIT_SYMBOLS,
    error_html,
    gettext,
    live_html,
    speak,
    speaking,
)

_ = gettext
LAUNDRY_BUTTONS = frozenset({"exchange", "challenge", "ready"})


@dataclass(frozen=True)
class CardView:
    token: str
    rank: str
    suit: str
    symbol: str
    suit_name: str
    legal: bool = False


@functools.cache
def card_view(card: int, legal: bool = False) -> CardView:
    """A card as the views show it (kept: 32 cards, playable or not)."""
    token = TOKENS[card]
    suit = token[-1]
    return CardView(token, token[:-1], suit, SUIT_SYMBOLS[suit], SUIT_NAMES[suit], legal)


class Viewer(NamedTuple):
    """Who a view is for: the seats this phone holds and which one's cards it shows. (A named
    tuple: one is made for every phone at every change, where a frozen dataclass's `__init__`
    cost three times as much.)"""

    seats: tuple[int, ...] = ()
    active: int | None = None
    can_start: bool = False
    can_close: bool = False
    # The id of this phone's action the view's change took: the view is its acknowledgement
    # (one frame per phone per change, static/js/table.js).
    ack: str = ""


def choose_active(
    state: TableState, viewer_seats: tuple[int, ...], shown: int | None
) -> int | None:
    """The seat whose cards a phone shows: its only seat, else the one it last chose to show."""
    if len(viewer_seats) == 1:
        return viewer_seats[0]
    return shown if shown in viewer_seats else None


def due_table_seats(state: TableState) -> list[int]:
    if state.hand is None or state.hand.complete:
        return []
    return [state.table_seat(s) for s in state.hand.due()]


class Shared(dict[str, Any]):
    """What the views of one version share, built by the first of them and reused by the rest
    (one render pass over a process's phones): the moment they are rendered at, the script
    prefix and URL conf of the forms' addresses, the public part of the context, and the markup
    of the felt and of the players' places by language. Never the cards of a hand."""


def build_context(
    state: TableState,
    viewer: Viewer,
    now: datetime | None = None,
    shared: Shared | None = None,
    language: str | None = None,
) -> dict[str, Any]:
    """`viewer`'s view of `state` as a context for games.view.html, in `language` (the active
    one when not given; a caller that knows it saves asking for it)."""
    language = language or translation.get_language()
    speak(language)
    if shared is None:
        shared = Shared()
    if "now" not in shared:  # the first view of a pass reads the clock; the others share it
        shared["now"] = now or timezone.now()
    now = shared["now"]
    table = state.table
    hand = state.hand
    active = viewer.active
    public = shared.get("public")
    due = public["due"] if public is not None else due_table_seats(state)
    # A shared phone whose due player is not the one shown: cover the cards until she taps.
    # In the laundry every player of the phone may act, so each one not yet done with it is
    # due in turn (her "done" passes the phone on).
    privacy_for = None
    in_laundry = public["laundry_open"] if public is not None else state.laundry_open(now)
    if len(viewer.seats) > 1:
        waiting = [seat for seat in due if seat in viewer.seats]
        if in_laundry:
            washing = [
                seat
                for seat in viewer.seats
                if seat in state.hand_seats and seat not in table.laundry_ready
            ]
            waiting = washing or waiting
        if waiting and active not in waiting:
            privacy_for = waiting[0]
        elif active is None:
            privacy_for = viewer.seats[0]
    if privacy_for is not None:
        active = None
    observation: Observation | None = None
    if hand is not None:
        # What every seat sees alike of the hand is gathered once for the phones of a pass.
        fields = shared.get("observed")
        if fields is None:
            fields = shared["observed"] = public_fields(hand)
        observation = state.observe(active, fields)
    if public is None:
        # Every seat's observation shows the same of the table; only the hand and the legal
        # actions are its own.
        public = shared["public"] = _public_context(state, observation, due, now)
    active_hand_seat = state.hand_seat(active) if active is not None else None

    my_cards: list[CardView] = []
    actions: list[dict[str, Any]] = []
    knock: dict[str, Any] | None = None
    fold_vals = ""
    if observation is not None and active_hand_seat is not None and observation.hand is not None:
        # Exactly the cards the table takes now (none while the laundry is open): the seat's
        # own observation lists what the engine allows her.
        allowed = table_rules.in_window(observation.legal, in_laundry)
        playable = {a.card for a in allowed if a.act == "play"}
        my_cards = [card_view(card, card in playable) for card in observation.hand]
        actions = _actions(state, allowed, active, in_laundry, public["hand_name"])
        knock = _knock_button(state, observation, active_hand_seat, actions, in_laundry)
        fold = next((a for a in actions if a["act"] == "fold"), None)
        fold_vals = fold["vals_json"] if fold is not None else ""

    # Stay and fold on a knock make the answer window, the laundry's buttons a sheet of their
    # own (both over the felt); the rest sit beside the knock button.
    acts = {a["act"] for a in actions}
    answering = "stay" in acts
    answer_actions: list[dict[str, Any]] = []
    laundry: list[dict[str, Any]] = []
    other_actions: list[dict[str, Any]] = []
    for action in actions:
        act = action["act"]
        if answering and act in ("stay", "fold"):
            answer_actions.append(action)
        elif act in LAUNDRY_BUTTONS:
            laundry.append(action)
        elif act != "knock":
            other_actions.append(action)
    # The phone's players as the rubber stands: out (no lives left) when every one of them is,
    # and still in the hand (not folded) when any one is; a knock is no cue for the others.
    lives, in_hand = public["lives_by_seat"], public["in_hand_seats"]
    return {
        **public,
        "shared": shared,
        "language": language,
        "viewer_seats": viewer.seats,
        "spectator": not viewer.seats,
        "active": active,
        "active_name": state.seats[active].name if active is not None else "",
        # A shared phone says whose cards it shows.
        "hand_owner": (
            state.seats[active].name if active is not None and len(viewer.seats) > 1 else ""
        ),
        "out": bool(viewer.seats)
        and table.status == PLAYING
        and all(lives.get(seat) == 0 for seat in viewer.seats),
        "in_hand": any(seat in in_hand for seat in viewer.seats),
        "privacy_for": privacy_for,
        "privacy_name": state.seats[privacy_for].name if privacy_for is not None else "",
        "observation": observation,
        "my_cards": my_cards,
        "actions": actions,
        # The knock button stays in one place: enabled, or disabled with the engine's reason.
        "knock": knock,
        "answer_actions": answer_actions,
        "laundry_actions": laundry,
        "other_actions": other_actions,
        # The turn clock of the shown seat, when the table will act for her.
        "my_clock": public["clocks"].get(active) if active is not None else None,
        # What the phone's script needs to name gestures and give cues; never a rule decided
        # there: a swipe sends the fold the server offered, a double tap presses the knock button.
        "fold_vals": fold_vals,
        "my_turn": active is not None and active in due,
        "my_seats": " ".join(str(seat) for seat in viewer.seats),
        "ack": viewer.ack,
        "away_buttons": _away_buttons(state, active),
        "challenge_cost": _challenge_cost(state.rules) if "challenge" in acts else "",
        "can_start": viewer.can_start and table_rules.between_rubbers(table.status),
        "can_close": viewer.can_close and table.status != CLOSED,
        # Between rubbers, or between two hands of one (a computer player takes over).
        "can_leave": active is not None and table_rules.leave_refusal(table.status, hand) is None,
    }


def _public_context(
    state: TableState, observation: Observation | None, due: list[int], now: datetime
) -> dict[str, Any]:
    """The part of the view every phone at the table sees alike (`observation`: any seat's)."""
    table = state.table
    hand = state.hand
    away = state.away_seats(now)
    trick: list[dict[str, Any]] = []
    last_trick: list[dict[str, Any]] = []
    taker = None
    if observation is not None and observation.tricks:
        _, plays, winner = observation.tricks[-1]
        shown = [
            {
                "seat": state.table_seat(s),
                "name": state.seats[state.table_seat(s)].name,
                "card": card_view(c),
            }
            for s, c in plays
        ]
        if winner is None:
            trick = shown
        else:
            last_trick = shown
            taker = state.table_seat(winner)
    reveals = []
    if observation is not None:
        for challenger, target, cards, clean in observation.reveals:
            reveals.append(
                {
                    "challenger": state.seats[state.table_seat(challenger)].name,
                    "target": state.seats[state.table_seat(target)].name,
                    "cards": [card_view(c) for c in cards],
                    "clean": clean,
                }
            )
    players = [_player(state, seat, observation, due, away) for seat in state.seats]
    return {
        "table": table,
        "version": table.version,
        "status": table.status,
        "paused": table.paused and table.status == PLAYING,
        # Which hand, and how many of its actions, this view shows (for a phone's own checks).
        "hand_number": state.hand_row.number if state.hand_row is not None else 0,
        "hand_name": state.hand_name(),
        "rubber_number": state.rubber.number if state.rubber is not None else 0,
        "step": len(hand.actions) if hand is not None else 0,
        "rules": state.rules,
        "due": due,
        "players": players,
        "lives_by_seat": {p.seat: p.lives for p in players},
        "in_hand_seats": {p.seat for p in players if p.in_hand and not p.folded},
        "stake": observation.stake if observation is not None else None,
        "trick": trick,
        "last_trick": last_trick,
        # Who took the last trick (a table seat), and which trick of which hand is on the felt.
        "taker": taker,
        "taker_name": state.seats[taker].name if taker is not None else "",
        "trick_key": (
            f"{state.hand_name()}/{len(observation.tricks)}" if observation is not None else ""
        ),
        "clocks": _clocks(state, now),
        "reveals": reveals,
        "laundry_open": state.laundry_open(now),
        "laundry_seconds": _seconds_left(table.laundry_until, now),
        "answer_seconds": _answer_seconds(state, now),
        "awaiting_names": [
            state.seats[state.table_seat(s)].name
            for s in (observation.awaiting if observation else ())
        ],
        "due_names": [state.seats[s].name for s in due],
        "hand_result": _hand_result(state),
        "rubber": state.rubber,
        "rubber_result": _rubber_result(state),
        "knocks_total": sum(observation.knocks) if observation is not None else 0,
        "last_knocker": (
            state.table_seat(observation.last_knocker)
            if observation is not None and observation.last_knocker is not None
            else None
        ),
    }


class PlayerView(NamedTuple):
    """One player's place at the table, as every phone sees it (her seat's own class aside). A
    hashable value: its markup is kept from one version to the next (games.view.html), where
    an action changes one or two of a table's players."""

    seat: int
    name: str
    free: bool
    bot: str  # a computer player's level ("easy", ...), "" for a person
    away: bool
    # Away from the table by her own word (rules.md 3.8): "break" or "round".
    away_reason: str
    back_at_deal: bool
    due: bool
    lives: int | None
    strokes: tuple[bool, ...]
    in_hand: bool = False
    folded: bool = False
    dealer: bool = False
    knocks: int = 0
    announcement: str | None = None
    poor: bool = False
    open_hand: tuple[CardView, ...] = ()


def _player(
    state: TableState,
    seat: Seat,
    observation: Observation | None,
    due: list[int],
    away: set[int],
) -> PlayerView:
    index = seat.index
    hand_seat = state.hand_seat(index)
    at_table = (
        index,
        seat.name,
        seat.is_free,
        seat.bot_level,
        index in away,
        seat.away,
        seat.back_at_deal,
        index in due,
    )
    if observation is None or hand_seat is None:
        lives = _rubber_lives(state, index)
        return PlayerView(*at_table, lives, _strokes(lives))
    lives = observation.lives[hand_seat]
    return PlayerView(
        *at_table,
        lives,
        _strokes(lives),
        True,
        hand_seat in observation.folded,
        observation.dealer == hand_seat,
        observation.knocks[hand_seat],
        observation.announcements.get(hand_seat),
        hand_seat in observation.poor,
        tuple(card_view(card) for card in observation.open_hands.get(hand_seat, ())),
    )


@functools.cache
def _strokes(lives: int | None) -> tuple[bool, ...]:
    """Lives as chalk strokes on a slate, tallied in fives: True is the fifth, struck across."""
    if not lives or lives < 0:
        return ()
    return tuple((i + 1) % 5 == 0 for i in range(min(lives, 20)))


def _rubber_lives(state: TableState, seat: int) -> int | None:
    if state.rubber is None:
        return state.rules.starting_lives
    lives = state.rubber.lives
    return lives[seat] if seat < len(lives) else None


def _clocks(state: TableState, now: datetime) -> dict[int, int]:
    """The turn clock: seconds until the table plays for each due person, from the plan the
    table's clock carries out (a phone gone quiet is played for sooner; it shows as away)."""
    if state.hand is None or state.table.status != PLAYING or state.table.paused:
        return {}
    moment, clock = state.moment(), pace()
    left = max(0, round((table_rules.turn_ends(moment, clock) - now).total_seconds()))
    return {
        step.seat: left
        for step in table_rules.steps_while_here(moment, clock, now)
        if step.kind == "auto" and step.seat is not None
    }


def _seconds_left(until: datetime | None, now: datetime) -> int | None:
    if until is None:
        return None
    return max(0, round((until - now).total_seconds()))


def _answer_seconds(state: TableState, now: datetime) -> int | None:
    """Seconds until the table closes the answer window: the deadline its clock keeps."""
    return _seconds_left(table_rules.answers_close(state.moment()), now)


def _actions(
    state: TableState, allowed: list[Action], seat: int | None, in_laundry: bool, hand: str
) -> list[dict[str, Any]]:
    """The buttons for the shown seat: every action the table takes from her now
    (`allowed`) but the cards (those are the cards), each naming the hand it was shown for
    (`hand`: `state.hand_name()`)."""
    if seat is None:
        return []
    buttons = []
    for action in allowed:
        if action.act == "play":
            continue
        vals: dict[str, Any] = {"act": action.act, "seat": seat, "hand": hand}
        label: str = action.act
        if action.act == "challenge" and action.target is not None:
            target = state.table_seat(action.target)
            vals["target"] = target
            label = f"challenge:{state.seats[target].name}"
        if action.act == "announce":
            vals["kind"] = action.kind
            label = f"announce:{action.kind}"
        buttons.append(_button(action.act, label, vals))
    if in_laundry and seat not in state.table.laundry_ready:
        buttons.append(_button("ready", "ready", {"type": "ready", "seat": seat, "hand": hand}))
    return buttons


def _knock_button(
    state: TableState,
    observation: Observation,
    hand_seat: int,
    actions: list[dict[str, Any]],
    in_laundry: bool,
) -> dict[str, Any] | None:
    """The knock button for the shown seat while her hand is on: why not, when she may not."""
    hand = state.hand
    if hand is None or hand.complete or observation.complete or hand_seat in observation.folded:
        return None
    offered = next((a for a in actions if a["act"] == "knock"), None)
    if offered is not None:
        return {**offered, "reason": ""}
    refused = table_rules.knock_refusal(hand, hand_seat, in_laundry)
    if refused is None:
        reason = ""  # allowed after all (the buttons and the rules agree: never shown)
    else:
        stake, lives = observation.stake + 1, observation.lives[hand_seat]
        reason = _why_not(speaking(), refused.code, refused.reason, refused.message, stake, lives)
    return {"act": "knock", "text": _("Knock"), "vals_json": "", "reason": reason}


@functools.lru_cache(maxsize=1024)
def _why_not(language: str, code: str, reason: str, message: str, stake: int, lives: int) -> str:
    """Why a seat may not knock, in `language` (the one being rendered in): most phones at a
    table are told it at every change, in a few words that recur."""
    if reason == "laundry_open":
        return _("You may knock once the laundry is over.")
    if reason == "answers_awaited":
        return _("Answers to the last knock are due first.")
    refused = table_rules.Refused(code, reason, message)
    with translation.override(language):  # its words are Django's, in the language kept
        return refusal_message(refused, stake=stake, lives=lives)


def _away_buttons(state: TableState, seat: int | None) -> list[dict[str, Any]]:
    """A break, buying a round, and back from them, for the seat shown (rules.md 3.8); only
    what the table takes now."""
    if seat is None:
        return []
    return list(_away_buttons_of(speaking(), seat, tuple(state.away_choices(seat))))


@functools.lru_cache(maxsize=256)
def _away_buttons_of(language: str, seat: int, choices: tuple[str, ...]) -> tuple[Any, ...]:
    """`_away_buttons` in `language` (the one being rendered in): the same few for every phone
    at every change (a seat, what it may say), so made once; never changed by a view."""
    buttons = []
    for choice in choices:
        if choice == "back":
            buttons.append(_button("back", "back", {"type": "back", "seat": seat}))
        else:
            vals = {"type": "away", "seat": seat, "reason": choice}
            buttons.append(_button("away", f"away:{choice}", vals))
    return tuple(buttons)


def _challenge_cost(rules: HouseRules) -> str:
    if rules.dirty_penalty == "open_hand":
        return _(
            "A challenge costs you 1 life if the laid-aside cards were clean; "
            "if not, she plays her new cards face up."
        )
    return _(
        "A challenge costs you 1 life if the laid-aside cards were clean; if not, she loses 1 life."
    )


def _button(act: str, label: str, vals: dict[str, Any]) -> dict[str, Any]:
    kind, _sep, detail = label.partition(":")
    if kind == "challenge":
        text = _("Challenge %(name)s") % {"name": detail}
    elif kind == "announce":
        text = _("Whistle") if detail == "whistle" else _("Stand")
    elif kind == "knock":
        text = _("Knock")
    elif kind == "stay":
        text = _("Stay")
    elif kind == "fold":
        text = _("Fold")
    elif kind == "exchange":
        text = _("Exchange")
    elif kind == "ready":
        text = _("Done with the laundry")
    elif kind == "away":
        text = _("Take a break") if detail == "break" else _("Buy a round")
    elif kind == "back":
        text = _("I'm back")
    else:
        text = kind
    vals_json = _vals_json(tuple(vals.items()))
    return {"act": act, "label": label, "vals": vals, "vals_json": vals_json, "text": text}


@functools.lru_cache(maxsize=4096)
def _vals_json(items: tuple[tuple[str, Any], ...]) -> str:
    """A button's values as htmx sends them (the same few buttons recur hand after hand)."""
    return json.dumps(dict(items))


def _hand_result(state: TableState) -> dict[str, Any] | None:
    row = state.hand_row
    if row is None or not row.complete or row.result is None:
        return None
    result = row.result
    seats = row.seats

    def name(hand_seat: int | None) -> str | None:
        return None if hand_seat is None else state.seats[seats[hand_seat]].name

    return {
        "winner": name(result["winner"]),
        "lost": [
            {"name": name(i), "lives": lost} for i, lost in enumerate(result["lives_lost"]) if lost
        ],
        "next_dealer": name(result["next_dealer"]),
        "stake": result["stake"],
    }


def _rubber_result(state: TableState) -> dict[str, Any] | None:
    """Who won and who lost the rubber, once it is over."""
    rubber = state.rubber
    if rubber is None or not rubber.over:
        return None
    names = rubber.players

    def name(seat: int) -> str:
        return str(names[seat]) if seat < len(names) else state.seats[seat].name

    return {
        "winner": name(rubber.winner) if rubber.winner is not None else None,
        "losers": [name(seat) for seat in rubber.losers],
        "outright": state.rules.end_condition == "last_standing",
    }


def render_view(
    state: TableState,
    viewer: Viewer,
    csrf_token: str = "",
    shared: Shared | None = None,
    language: str | None = None,
) -> str:
    """`viewer`'s view of `state` (in `language`, the active one when not given); views of one
    version rendered together pass one `shared`."""
    return live_html(build_context(state, viewer, shared=shared, language=language), csrf_token)


def render_error(message: str, code: str = "", action_id: str = "") -> str:
    return error_html(message, code, action_id)
