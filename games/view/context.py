"""Each recipient's view of a table, as typed values (games.view.parts) for games.view.html.

The public part, shared by every phone of a render, is made from a spectator's observation of
the hand (`observe(None)`); a phone's own part takes its cards only from the engine's `observe`
for the seat it shows. So no other player's hidden card can reach a phone. A phone that holds
several seats (a shared phone) is shown one hand at a time: when another of its seats is due,
it gets a privacy screen until that player taps to show her cards.
"""

from __future__ import annotations

import functools
import json
from datetime import datetime
from typing import Any, NamedTuple

from django.utils import timezone, translation

from clubs.money import money
from games.engine import TOKENS, Action, HouseRules, Observation, public_fields
from games.engine import table as table_rules
from games.models import Seat
from games.services.conf import pace
from games.services.refusals import refusal_message
from games.services.state import CLOSED, PLAYING, TableState
from games.view.html import error_html, gettext, live_html, set_view_language
from games.view.parts import (
    Button,
    CardView,
    HandResult,
    HeldCard,
    KnockButton,
    LivesLost,
    PlayedCard,
    PlayerView,
    PublicView,
    Reveal,
    RubberResult,
    SeatView,
    Shared,
)

_ = gettext
LAUNDRY_BUTTONS = frozenset({"exchange", "challenge", "ready"})


@functools.cache
def card_view(card: int) -> CardView:
    """A card every phone may see (kept: 32 cards)."""
    return CardView(TOKENS[card])


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


def due_table_seats(state: TableState) -> tuple[int, ...]:
    if state.hand is None or state.hand.complete:
        return ()
    return tuple(state.table_seat(s) for s in state.hand.due())


def build_view(
    state: TableState,
    viewer: Viewer,
    now: datetime | None = None,
    shared: Shared | None = None,
    language: str | None = None,
) -> tuple[PublicView, SeatView]:
    """`viewer`'s view of `state`: the public part (`shared.public` when another view of the
    pass made it) and the viewer's own, in `language` (the active one when not given; a caller
    that knows it saves asking for it)."""
    language = set_view_language(language or translation.get_language())
    if shared is None:
        shared = Shared()
    if shared.now is None:  # the first view of a pass reads the clock; the others share it
        shared.now = now or timezone.now()
    now = shared.now
    table = state.table
    hand = state.hand
    fields = shared.fields
    if hand is not None and fields is None:
        # What every seat sees alike of the hand is gathered once for the phones of a pass.
        fields = shared.fields = public_fields(hand)
    public = shared.public
    if public is None:
        public = shared.public = _public_view(state, fields, now)
    due = public.due
    active = viewer.active
    # A shared phone whose due player is not the one shown: cover the cards until she taps.
    # In the laundry every player of the phone may act, so each one not yet done with it is
    # due in turn (her "done" passes the phone on).
    privacy_for = None
    in_laundry = public.laundry_open
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
    active_hand_seat = state.hand_seat(active) if active is not None else None

    cards: tuple[HeldCard, ...] = ()
    buttons: list[Button] = []
    knock: KnockButton | None = None
    if active_hand_seat is not None and fields is not None:
        observation = state.observe(active, fields)
        if observation is not None and observation.hand is not None:
            # Exactly the cards the table takes now (none while the laundry is open): the
            # seat's own observation lists what the engine allows her.
            allowed = table_rules.in_window(observation.legal, in_laundry)
            playable = {a.card for a in allowed if a.act == "play"}
            cards = tuple(_held(card, card in playable) for card in observation.hand)
            buttons = _buttons(state, allowed, active, in_laundry, public.hand_name)
            knock = _knock_button(
                state, observation, active_hand_seat, buttons, in_laundry, language
            )

    acts = {b.act for b in buttons}
    answering = "stay" in acts
    answer_buttons: list[Button] = []
    laundry: list[Button] = []
    others: list[Button] = []
    fold_vals = ""
    for button in buttons:
        act = button.act
        if act == "fold":
            fold_vals = button.vals_json
        if answering and act in ("stay", "fold"):
            answer_buttons.append(button)
        elif act in LAUNDRY_BUTTONS:
            laundry.append(button)
        elif act != "knock":
            others.append(button)
    players = public.players
    seats = viewer.seats
    mine = [p for p in players if p.seat in seats]
    return public, SeatView(
        language=language,
        seats=seats,
        active=active,
        active_name=state.seats[active].name if active is not None else "",
        hand_owner=state.seats[active].name if active is not None and len(seats) > 1 else "",
        out=bool(seats) and table.status == PLAYING and all(p.lives == 0 for p in mine),
        in_hand=any(p.in_hand and not p.folded for p in mine),
        privacy_for=privacy_for,
        privacy_name=state.seats[privacy_for].name if privacy_for is not None else "",
        cards=cards,
        knock=knock,
        answer_buttons=tuple(answer_buttons),
        laundry_buttons=tuple(laundry),
        other_buttons=tuple(others) + _buy_back_buttons(state, active, language),
        away_buttons=_away_buttons(state, active, language),
        my_clock=public.clocks.get(active) if active is not None else None,
        fold_vals=fold_vals,
        my_turn=active is not None and active in due,
        ack=viewer.ack,
        challenge_cost=_challenge_cost(state.rules) if "challenge" in acts else "",
        can_start=viewer.can_start and table_rules.between_rubbers(table.status),
        can_close=viewer.can_close and table.status != CLOSED,
        # Between rubbers, or between two hands of one (a computer player takes over).
        can_leave=active is not None and table_rules.leave_refusal(table.status, hand) is None,
    )


@functools.cache
def _held(card: int, playable: bool) -> HeldCard:
    """A card of the shown seat's hand (kept: 32 cards, playable or not)."""
    return HeldCard(TOKENS[card], playable)


def _public_view(state: TableState, fields: dict[str, Any] | None, now: datetime) -> PublicView:
    """The part of the view every phone at the table sees alike, from a spectator's observation
    of the hand (`fields`: its public fields), so from no seat's own cards."""
    table = state.table
    seen = state.observe(None, fields) if fields is not None else None
    due = due_table_seats(state)
    away = state.away_seats(now)
    trick: tuple[PlayedCard, ...] = ()
    last_trick: tuple[PlayedCard, ...] = ()
    taker = None
    taker_name = ""
    # The hand's players by the names they were dealt in under: whoever got up since, what
    # happened in the hand stays with who did it.
    dealt = seen.players if seen is not None else ()
    if seen is not None and seen.tricks:
        _, plays, winner = seen.tricks[-1]
        shown = tuple(PlayedCard(state.table_seat(s), dealt[s], card_view(c)) for s, c in plays)
        if winner is None:
            trick = shown
        else:
            last_trick = shown
            taker = state.table_seat(winner)
            taker_name = dealt[winner]
    reveals: tuple[Reveal, ...] = ()
    if seen is not None:
        reveals = tuple(
            Reveal(
                dealt[challenger],
                dealt[target],
                tuple(card_view(c) for c in cards),
                clean,
            )
            for challenger, target, cards, clean in seen.reveals
        )
    hand = state.hand
    return PublicView(
        code=table.code,
        version=table.version,
        status=table.status,
        paused=table.paused and table.status == PLAYING,
        hand_number=state.hand_row.number if state.hand_row is not None else 0,
        hand_name=state.hand_name(),
        rubber_number=state.rubber.number if state.rubber is not None else 0,
        step=len(hand.actions) if hand is not None else 0,
        due=due,
        due_names=tuple(state.seats[s].name for s in due),
        awaiting_names=tuple(
            state.seats[state.table_seat(s)].name for s in (seen.awaiting if seen else ())
        ),
        players=tuple(_player(state, seat, seen, due, away) for seat in state.seats),
        stake=seen.stake if seen is not None else None,
        trick=trick,
        last_trick=last_trick,
        taker=taker,
        taker_name=taker_name,
        trick_key=f"{state.hand_name()}/{len(seen.tricks)}" if seen is not None else "",
        clocks=_clocks(state, now),
        reveals=reveals,
        laundry_open=state.laundry_open(now),
        laundry_seconds=_seconds_left(table.laundry_until, now),
        answer_seconds=_answer_seconds(state, now),
        hand_result=_hand_result(state),
        rubber_result=_rubber_result(state),
        knocks_total=sum(seen.knocks) if seen is not None else 0,
        last_knocker=(
            state.table_seat(seen.last_knocker)
            if seen is not None and seen.last_knocker is not None
            else None
        ),
        pot=state.pot(),
        currency=state.rubber.currency if state.rubber is not None else "EUR",
        pot_takers=_pot_takers(state),
    )


def _player(
    state: TableState,
    seat: Seat,
    seen: Observation | None,
    due: tuple[int, ...],
    away: set[int],
) -> PlayerView:
    """A player's place, from a spectator's observation of the hand (`seen`)."""
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
    if seen is None or hand_seat is None:
        lives = _rubber_lives(state, index)
        return PlayerView(*at_table, lives, _strokes(lives))
    if seat.is_free or seen.players[hand_seat] != seat.name:
        # She got up after the hand: what she did in it stays with her (the hand's result and
        # its trick name her), not with whoever sits here now. A computer player plays on with
        # the seat's lives; a free seat has none.
        lives = None if seat.is_free else _rubber_lives(state, index)
        return PlayerView(*at_table, lives, _strokes(lives))
    lives = seen.lives[hand_seat]
    return PlayerView(
        *at_table,
        lives,
        _strokes(lives),
        True,
        hand_seat in seen.folded,
        seen.dealer == hand_seat,
        seen.knocks[hand_seat],
        seen.announcements.get(hand_seat),
        hand_seat in seen.poor,
        tuple(card_view(card) for card in seen.open_hands.get(hand_seat, ())),
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


def _buttons(
    state: TableState, allowed: list[Action], seat: int | None, in_laundry: bool, hand: str
) -> list[Button]:
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
    buttons: list[Button],
    in_laundry: bool,
    language: str,
) -> KnockButton | None:
    """The knock button for the shown seat while her hand is on: why not, when she may not."""
    hand = state.hand
    if hand is None or hand.complete or observation.complete or hand_seat in observation.folded:
        return None
    offered = next((b for b in buttons if b.act == "knock"), None)
    if offered is not None:
        return KnockButton(offered.vals_json, offered.text, "")
    refused = table_rules.knock_refusal(hand, hand_seat, in_laundry)
    if refused is None:
        reason = ""  # allowed after all (the buttons and the rules agree: never shown)
    else:
        stake, lives = observation.stake + 1, observation.lives[hand_seat]
        reason = _why_not(language, refused.code, refused.reason, refused.message, stake, lives)
    return KnockButton("", _("Knock"), reason)


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


def _away_buttons(state: TableState, seat: int | None, language: str) -> tuple[Button, ...]:
    """A break, buying a round, and back from them, for the seat shown (rules.md 3.8); only
    what the table takes now."""
    if seat is None:
        return ()
    return _away_buttons_of(language, seat, tuple(state.away_choices(seat)))


def _buy_back_buttons(state: TableState, seat: int | None, language: str) -> tuple[Button, ...]:
    """Buying back in (rules.md 3.10), for the seat shown: offered only where the engine
    allows it, beside the knock button (not in the away menu: it is a move of the game)."""
    rubber = state.rubber
    if seat is None or rubber is None or seat not in state.buyers():
        return ()
    price = money(rubber.pot_stake, rubber.currency, language)
    text = _("Buy back in (%(price)s)") % {"price": price}
    return (Button("buy_back", _vals_json((("type", "buy_back"), ("seat", seat))), text),)


@functools.lru_cache(maxsize=256)
def _away_buttons_of(language: str, seat: int, choices: tuple[str, ...]) -> tuple[Button, ...]:
    """`_away_buttons` in `language` (the one being rendered in): the same few for every phone
    at every change (a seat, what it may say), so made once."""
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


def _button(act: str, label: str, vals: dict[str, Any]) -> Button:
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
    return Button(act, _vals_json(tuple(vals.items())), text)


@functools.lru_cache(maxsize=4096)
def _vals_json(items: tuple[tuple[str, Any], ...]) -> str:
    """A button's values as htmx sends them (the same few buttons recur hand after hand)."""
    return json.dumps(dict(items))


def _hand_result(state: TableState) -> HandResult | None:
    row = state.hand_row
    if row is None or not row.complete or row.result is None:
        return None
    result = row.result
    # By the names the hand was dealt under: who got up since is still who lost.
    players = state.hand.players if state.hand is not None else row.record["players"]

    def name(hand_seat: int | None) -> str | None:
        return None if hand_seat is None else str(players[hand_seat])

    return HandResult(
        winner=name(result["winner"]),
        lost=tuple(LivesLost(name(i), lost) for i, lost in enumerate(result["lives_lost"]) if lost),
        next_dealer=name(result["next_dealer"]),
        stake=result["stake"],
    )


def _rubber_result(state: TableState) -> RubberResult | None:
    """Who won and who lost the rubber, once it is over."""
    rubber = state.rubber
    if rubber is None or not rubber.over:
        return None
    names = rubber.players

    def name(seat: int) -> str:
        return str(names[seat]) if seat < len(names) else state.seats[seat].name

    return RubberResult(
        winner=name(rubber.winner) if rubber.winner is not None else None,
        losers=tuple(name(seat) for seat in rubber.losers),
        outright=state.rules.end_condition == "last_standing",
    )


def _pot_takers(state: TableState) -> tuple[str, ...]:
    """Who took the pot of a rubber that is over, by name."""
    rubber = state.rubber
    if rubber is None or not rubber.over:
        return ()
    return tuple(str(rubber.players[seat]) for seat in rubber.pot_takers)


def render_view(
    state: TableState,
    viewer: Viewer,
    csrf_token: str = "",
    shared: Shared | None = None,
    language: str | None = None,
) -> str:
    """`viewer`'s view of `state` as the `#table-live` fragment, in `language` (the active one
    when not given): the one way a table page and every websocket push are written. Views of
    one version rendered together pass one `shared`. `csrf_token`: the page's (a view pushed
    over the socket has none; htmx sends the page's token in a header)."""
    public, seat = build_view(state, viewer, shared=shared, language=language)
    return live_html(public, seat, csrf_token, shared)


def render_error(message: str, code: str = "", action_id: str = "") -> str:
    return error_html(message, code, action_id)
