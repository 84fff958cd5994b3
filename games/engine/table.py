"""The live table's own rules around a hand: its windows, its pace, and what it allows now.

A hand knows what each seat may do. A table played live adds time: after the deal the laundry
is open for a while (and only the laundry may happen in it), answers to a knock may be due
within a window, computer players are asked in an order, and the table plays for a player whose
time is up or whose phone is gone. These rules are here, pure, so the server only stores,
times and sends: `allowed` is what a phone is offered, `verify` refuses the rest with a code and
a reason, and `plan` is everything the table will do by itself, each with its moment.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final, NamedTuple

from .actions import Action
from .errors import IllegalAction
from .hand import Hand
from .observe import Observation
from .rules import HouseRules

LAUNDRY_ACTS = frozenset({"exchange", "challenge"})

# A table's status (games.models.Table.Status's values, as plain strings: the engine knows no
# models, and the compiled modules check the types mypy sees; tests/test_compiled.py holds them
# to the model's).
WAITING: Final = "waiting"
PLAYING: Final = "playing"
RUBBER_OVER: Final = "rubber_over"
CLOSED: Final = "closed"


class Refused(Exception):
    """Why the table takes no such action now: `code` for programs (the engine's codes, and the
    table's own `laundry_open`), `reason` for the words a player reads (IllegalAction.reason)."""

    def __init__(self, code: str, reason: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message


def laundry_open(hand: Hand | None, until: datetime | None, now: datetime) -> bool:
    """The table's laundry window: open while the engine's laundry is and time is left."""
    return (
        hand is not None
        and hand.laundry
        and not hand.complete
        and until is not None
        and now < until
    )


def allowed(hand: Hand, seat: int, in_laundry: bool) -> list[Action]:
    """What the table takes from `seat` (a hand seat) now: in the laundry window the laundry
    alone; outside it never the laundry, though the engine's stays open until the first other
    action."""
    return in_window(hand.legal_actions(seat), in_laundry)


def in_window(legal: Iterable[Action], in_laundry: bool) -> list[Action]:
    """Of a seat's legal actions (`Hand.legal_actions`), those the table's window takes now
    from her: her own (a player buying the round has none; the table's for her are `auto`)."""
    return [a for a in legal if (a.act in LAUNDRY_ACTS) == in_laundry and not a.auto]


def check_window(action: Action, in_laundry: bool) -> None:
    """Raise Refused when `action` does not belong to the table's window now."""
    if action.act in LAUNDRY_ACTS and not in_laundry:
        raise Refused(f"cannot_{action.act}", "laundry_closed", "the laundry window has closed")
    if action.act not in LAUNDRY_ACTS and in_laundry:
        raise Refused("laundry_open", "laundry_open", "wait: the laundry is still open")


def verify(hand: Hand, action: Action, in_laundry: bool) -> None:
    """Raise Refused when the table does not take `action` now; change nothing."""
    check_window(action, in_laundry)
    try:
        hand.verify(action)
    except IllegalAction as error:
        raise _refused(error) from None


def knock_refusal(hand: Hand, seat: int, in_laundry: bool) -> Refused | None:
    """What `verify` of a knock by `seat` (a hand seat) would raise now, or None; copies
    nothing (a live view asks it for every phone that may not knock)."""
    try:
        check_window(Action(seat, "knock"), in_laundry)
    except Refused as refused:
        return refused
    error = hand.knock_refusal(seat)
    return None if error is None else _refused(error)


def _refused(error: IllegalAction) -> Refused:
    return Refused(error.code, error.reason, error.message)


def auto_action(observation: Observation) -> Action:
    """What the table plays for a player who is away or out of time (rules.md 3.8): no
    exchange, challenge, knock or announcement; on a knock she must answer, she folds; in her
    turn her lowest legal card (the lowest rank; between equal ranks the suit first in C D H S).
    Nothing else: never a fold of her own accord, nor a slate hand's last trick (ValueError)."""
    legal = observation.legal
    if not legal:
        raise ValueError("nothing is legal for this seat")
    acts = {action.act for action in legal}
    if "stay" in acts:
        # An answer is due (to a knock, or to poverty's stake of two): she folds.
        return next(a for a in legal if a.act == "fold")
    plays = [action for action in legal if action.act == "play"]
    if plays:
        # A card is suit * 8 + rank, suits C D H S: rank first, then the suit.
        return min(plays, key=lambda action: ((action.card or 0) & 7, (action.card or 0) >> 3))
    raise ValueError("the table has nothing to play for this seat now")


# Why a player is away (rules.md 3.8): on a break, or buying a round.
AWAY_REASONS = ("break", "round")


def under_way(hand: Hand | None) -> bool:
    """Whether a hand is being played, so that it is not "between hands" (rules.md 3.8): from
    its deal to its end. A slate hand (3.9) only from its first entry: its keeper opens it
    while the real cards are still to be dealt at the table."""
    if hand is None or hand.complete:
        return False
    return not hand.slate or bool(hand.actions)


def away_choices(
    rules: HouseRules,
    away: str,
    back_at_deal: bool,
    hand_under_way: bool,
    round_bought: bool,
    out: bool = False,
) -> list[str]:
    """What a table offers to say now of a player who is `away` ("", "break" or "round"):
    "back" while she is away (not once she is back at the next deal), else "break" and, between
    hands and once a rubber, "round", but nothing to a player who is `out` of the rubber under
    way (no lives left: the table deals her nothing to be away from); each one `check_away`
    (or coming back) takes."""
    if not rules.away_conventions:
        return []
    if away:
        return [] if back_at_deal else ["back"]
    if out:
        return []
    if hand_under_way or round_bought:
        return ["break"]
    return ["break", "round"]


def check_away(
    rules: HouseRules, reason: str, hand_under_way: bool, round_bought: bool, out: bool = False
) -> None:
    """Raise Refused unless a player may now go away for `reason` (`hand_under_way`: a hand is
    dealt and not over; `round_bought`: she bought a round in this rubber already; `out`: she
    has no lives left in the rubber under way)."""
    if not rules.away_conventions:
        raise Refused("no_away", "no_away", "these rules have no breaks or rounds")
    if reason not in AWAY_REASONS:
        raise Refused("bad_action", "bad_action", f"{reason!r} is not a reason to be away")
    if out:
        raise Refused(
            "out", "out_of_rubber", "a player who is out is dealt no hand to be away from"
        )
    if reason == "round" and hand_under_way:
        raise Refused("not_between_hands", "round_between_hands", "a round is bought between hands")
    if reason == "round" and round_bought:
        raise Refused("round_bought", "round_bought", "a round is bought once a rubber")


def away_after_round(back: bool) -> str:
    """What a player is once the hand of her round is over (rules.md 3.8): a round covers that
    one hand; then she plays again if she said she is back (`back`), else she is on a break,
    not immune, until she says she is."""
    return "" if back else "break"


def laundry_done(hand_seats: Sequence[int], ready: Sequence[int], away: Sequence[str]) -> bool:
    """Whether every player still to have her say in the laundry has said she is done: players
    away have no say (the table makes no exchange for them)."""
    return all(seat in ready or (away and away[seat]) for seat in hand_seats)


@dataclass(frozen=True)
class Pace:
    """The table's clocks, in seconds."""

    turn: float = 60.0  # a due player who does nothing this long has the table act for her
    grace: float = 30.0  # a dropped phone keeps its seat this long before the table plays for it
    bot: float = 1.0  # computer players act after this pause, so people can follow
    between_hands: float = 5.0  # the end of a hand stays on the screen this long
    abandon: float = 3 * 3600.0  # a table paused this long is closed, its rubber abandoned
    laundry: float = 10.0  # after the deal the laundry is open this long (0: no window)
    challenge: float = 5.0  # after an exchange it stays open at least this long, to challenge it
    buy_back: float = 20.0  # the next deal waits this long for a player who may buy back in


@dataclass(frozen=True)
class Seat:
    """A table seat as the clock sees it: a computer player's, or a person's (`person`: held by
    someone's phone, last heard from at `last_seen`; `back`: back from buying a round, dealt in
    again at the next deal)."""

    bot: bool = False
    last_seen: datetime | None = None
    person: bool = True
    back: bool = False


class Moment(NamedTuple):
    """A live table at one version: its hand (None before the first deal), and the table's own
    fields in table seats (`hand_seats[i]` is the table seat of hand seat i). A named tuple, as
    `Step`: made at every change and for every render pass, a frozen dataclass of these twelve
    fields cost three times what the tuple costs to make (its `__init__` sets each field through
    `object.__setattr__`)."""

    hand: Hand | None
    hand_seats: Sequence[int]
    seats: Sequence[Seat]
    changed_at: datetime
    playing: bool = True
    rubber_over: bool = False
    laundry_until: datetime | None = None
    laundry_ready: Sequence[int] = ()
    bots_offered: Sequence[int] = ()
    awaiting_since: datetime | None = None
    # Per table seat: "" (here), "break" or "round" (rules.md 3.8); empty: nobody away.
    away: Sequence[str] = ()
    # Nobody was at the table: the clock waits for someone to come back.
    paused: bool = False
    # The server could not keep the table's time before this moment (it started, or had its
    # database back): no clock that counts a person's time (her phone's grace, her turn, her
    # answer) runs out from what it counted before it. None: the server kept time throughout.
    resumed_at: datetime | None = None
    # Table seats whose players may buy back in before the next deal (rules.md 3.10).
    buyers: Sequence[int] = ()

    def is_away(self, table_seat: int) -> bool:
        return bool(self.away) and bool(self.away[table_seat])

    def heard(self, table_seat: int) -> datetime:
        """When the seat's phone counts as last heard: its own moment (the table's last change
        when it has none), or the moment the server resumed if that is later; a phone the
        server could not hear is not a phone gone quiet."""
        return _later(self.seats[table_seat].last_seen or self.changed_at, self.resumed_at)

    def nobody_here_from(self, pace: Pace) -> datetime | None:
        """From when nobody is at the table, unless a phone is heard again: the last moment a
        player who is not away still counts as here (her phone's grace), or at once when every
        player is away. None at a table no person plays at (computer players alone, or a slate,
        whose players have no phones of their own)."""
        people = [i for i, seat in enumerate(self.seats) if seat.person and not seat.bot]
        if not people:
            return None
        grace = timedelta(seconds=pace.grace)
        here = [self.heard(i) + grace for i in people if not self.is_away(i) or self.seats[i].back]
        return max(here) if here else self.changed_at + timedelta(seconds=pace.bot)


class Windows(NamedTuple):
    """The table's own fields that its windows move (in table seats): until when the laundry
    is open (None: over, or none), who has said she is done with it, and since when answers
    to a knock (or to poverty's stake of two) are due."""

    laundry_until: datetime | None
    laundry_ready: Sequence[int]
    awaiting_since: datetime | None


def dealt(hand: Hand, pace: Pace, now: datetime) -> Windows:
    """The windows of a hand dealt at `now`: the laundry open for `pace.laundry` (none at 0
    seconds, under rules without the laundry, or at a slate hand, whose laundry lasts until its
    players write something else), and answers due from the deal when it makes any due; with
    no window, poverty's answers are due from the deal too."""
    timed = hand.laundry and pace.laundry > 0 and not hand.slate
    until = now + timedelta(seconds=pace.laundry) if timed else None
    due = hand.awaiting or (until is None and hand.laundry and hand.after_laundry().awaiting)
    return Windows(until, [], now if due else None)


def take(table: Moment, action: Action, pace: Pace, now: datetime) -> Windows:
    """`action` taken at `now`: refused (Refused) unless it belongs to the table's window,
    applied to the table's hand (`table.hand`, changed in place; IllegalAction, with nothing
    changed, when the hand refuses it), and the windows as it leaves them.

    An exchange keeps the laundry open at least `pace.challenge` longer, so the others may
    challenge it, and the computer players who were done look again (the people who said so
    stay done). The first action after the window ends the engine's laundry; the answers that
    makes due (poverty's) are due since the window closed, not from this action on."""
    hand = table.hand
    if hand is None or hand.complete:
        raise Refused("hand_over", "hand_over", "no hand is being played")
    until, ready, since = table.laundry_until, table.laundry_ready, table.awaiting_since
    check_window(action, laundry_open(hand, until, now))
    ending_laundry = hand.laundry and action.act not in LAUNDRY_ACTS
    if ending_laundry:
        until = None
    was_awaiting = bool((hand.after_laundry() if ending_laundry else hand).awaiting)
    hand.apply(action)
    if action.act == "exchange":
        until = max(until or now, now + timedelta(seconds=pace.challenge))
        exchanger = table.hand_seats[action.seat]
        ready = [s for s in ready if s != exchanger and not table.seats[s].bot]
    if not hand.awaiting:
        since = None
    elif not was_awaiting:
        since = now
    return Windows(until, ready, since)


def laundry_closed(table: Moment, now: datetime) -> Windows:
    """The windows once the laundry's time is up at `now` (the clock's "close_laundry"): the
    answers its end makes due (poverty's) are due from now."""
    hand = table.hand
    since = table.awaiting_since
    if hand is not None and hand.laundry and hand.after_laundry().awaiting:
        since = now
    return Windows(None, table.laundry_ready, since)


def done_with_laundry(table: Moment, seat: int | None, now: datetime) -> Windows:
    """The windows once table seat `seat` has said she is done with the laundry at `now` (a
    player's "ready", a computer player's turn in it), or once a player went away, who has no
    say in it (None): when every player still to have her say has, the laundry closes early,
    as when its time is up (`laundry_closed`)."""
    ready = table.laundry_ready
    if seat is not None and seat not in ready:
        ready = [*ready, seat]
    if laundry_open(table.hand, table.laundry_until, now) and laundry_done(
        table.hand_seats, ready, table.away
    ):
        return laundry_closed(table._replace(laundry_ready=ready), now)
    return Windows(table.laundry_until, ready, table.awaiting_since)


def unanswered(table: Moment) -> list[Action]:
    """What the table does when the answer window closes (the clock's "close_answers"):
    whoever has not answered stays (rules.md 3.5), each stay the table's ("auto")."""
    hand = table.hand
    if hand is None or hand.complete:
        return []
    if hand.laundry:
        hand = hand.after_laundry()
    return [Action(seat, "stay", auto=True) for seat in hand.awaiting]


def answers_close(table: Moment) -> datetime | None:
    """When the table closes the answer window (`unanswered`): `response_seconds` after the
    answers fell due, under `simultaneous` answers, while answers are awaited once the laundry
    window is over; None otherwise (and while the table's clock stands still: paused, or no
    rubber going on; a slate's answers are awaited until given). The one deadline the clock
    keeps and a phone counts down."""
    hand = table.hand
    if not table.playing or table.paused or hand is None or hand.complete or hand.slate:
        return None
    if hand.laundry:
        if table.laundry_until is not None:
            return None  # in the laundry window, nothing is answered
        hand = hand.after_laundry()
    return _answers_close(table, hand)


def _answers_close(table: Moment, hand: Hand) -> datetime | None:
    """`answers_close`, of `hand`: the table's, as it is once its laundry is over."""
    if not hand.awaiting or hand.rules.response_order != "simultaneous":
        return None
    since = _later(table.awaiting_since or table.changed_at, table.resumed_at)
    return since + timedelta(seconds=hand.rules.response_seconds)


def dropped_to_a_break(
    rules: HouseRules, away: str, last_seen: datetime | None, pace: Pace, now: datetime
) -> bool:
    """Whether a player the table has just played for is on a break from `now` (rules.md
    3.8): her phone stayed silent past its grace, and the rules have breaks. A player whose
    turn clock ran out with her phone here is not away."""
    if away or not rules.away_conventions:
        return False
    return last_seen is None or last_seen <= now - timedelta(seconds=pace.grace)


def leave_refusal(status: str, hand: Hand | None) -> Refused | None:
    """Why a player may not get up from her seat now, or None: she may between rubbers, and
    between two hands of one (a computer player then plays the rubber out); not during a hand,
    nor at a closed table."""
    if status == CLOSED:
        return Refused("closed", "closed", "this table is closed")
    if status == PLAYING and hand is not None and not hand.complete:
        return Refused("hand_under_way", "hand_under_way", "a player leaves between hands")
    return None


def between_rubbers(status: str) -> bool:
    """Whether a rubber may be started at a table with this status: before its first, or after
    the last one ended (a start is offered then, and refused with why while a seat is free)."""
    return status in (WAITING, RUBBER_OVER)


def start_refusal(status: str, seats_free: bool) -> Refused | None:
    """Why no rubber starts now at a table with this status (`seats_free`: a seat has neither a
    player nor a computer player), or None."""
    if status == CLOSED:
        return Refused("closed", "closed", "this table is closed")
    if not between_rubbers(status):
        return Refused("playing", "playing", "a rubber is going on")
    if seats_free:
        return Refused("seats_free", "seats_free", "every seat needs a player")
    return None


# What a step is; a "bot_offer" asks a computer player that is not due whether it knocks,
# announces or folds out of turn; "pause" stops the clock when nobody is at the table, and
# "abandon" closes a table paused for too long.
STEP_KINDS = (
    "deal",
    "close_laundry",
    "close_answers",
    "bot_laundry",
    "bot",
    "bot_offer",
    "auto",
    "pause",
    "abandon",
)
BOT_STEPS = frozenset({"bot", "bot_laundry", "bot_offer"})


class Step(NamedTuple):
    """Something the table does by itself at `when`; `seat` is a table seat. (A named tuple: a
    plan makes several at every change and every render pass.)"""

    when: datetime
    kind: str
    seat: int | None = None


def plan(table: Moment, pace: Pace, now: datetime) -> list[Step]:
    """Everything the table will do by itself, each with its moment: one source for both the
    stored deadline and carrying it out, so the two can never disagree.

    A table nobody is at does nothing for its absent players: it pauses when the last of them
    goes (her phone silent past its grace, or away), before anything it would do from then on,
    and waits. Paused for `pace.abandon`, it is closed."""
    if not table.playing:
        return []
    if table.paused:
        return [Step(table.changed_at + timedelta(seconds=pace.abandon), "abandon")]
    steps = steps_while_here(table, pace, now)
    gone = table.nobody_here_from(pace)
    if not steps or gone is None:
        return steps
    return [step for step in steps if step.when < gone] + [Step(gone, "pause")]


def steps_while_here(table: Moment, pace: Pace, now: datetime) -> list[Step]:
    """What the table does by itself while someone is at it: `plan` before the pause. The
    turn clock a phone shows comes from here (its player is at the table, watching it)."""
    hand = table.hand
    changed = table.changed_at
    bot_at = changed + timedelta(seconds=pace.bot)
    if hand is None or hand.complete:
        if table.rubber_over or (hand is not None and hand.slate):
            # A slate's keeper opens the next hand herself, once she has seen what the last
            # one cost whom (rules.md 3.9).
            return []
        # A player who may buy back in has until the deal to say so (rules.md 3.10).
        wait = max(pace.between_hands, pace.buy_back) if table.buyers else pace.between_hands
        return [Step(changed + timedelta(seconds=wait), "deal")]
    if table.laundry_until is not None and hand.laundry:
        steps = [Step(table.laundry_until, "close_laundry")]
        if now >= table.laundry_until:
            # The clock comes late (a busy or restarted server): the window is over, and a
            # computer player's exchange now would be refused.
            return steps
        for table_seat in table.hand_seats:
            if table.seats[table_seat].bot and table_seat not in table.laundry_ready:
                steps.append(Step(bot_at, "bot_laundry", table_seat))
        return steps
    if hand.laundry:
        # The window closed with no action: the hand is planned as it is once its laundry is
        # over, when the poverty answers fall due (together, under simultaneous answers).
        hand = hand.after_laundry()
    steps = []
    due = [table.hand_seats[hand_seat] for hand_seat in hand.due()]
    if hand.slate:
        # Real cards (rules.md 3.9): no turn, no computer player, and every answer is awaited
        # until given; the table only folds for a player who is away when her answer is due.
        return [Step(bot_at, "auto", s) for s in due if table.is_away(s)]
    if not hand.awaiting:
        # A computer player not due may still knock, announce or fold: offered once a version,
        # before the seat the hand waits for is asked. Offered whatever it may do: what it may
        # do depends on its cards, and an offer takes the table's time.
        for hand_seat, table_seat in enumerate(table.hand_seats):
            if (
                table.seats[table_seat].bot
                and table_seat not in due
                and table_seat not in table.bots_offered
                and not hand.folded[hand_seat]
            ):
                steps.append(Step(bot_at, "bot_offer", table_seat))
    closing = _answers_close(table, hand)
    if closing is not None:
        steps.append(Step(closing, "close_answers"))
        steps += [Step(bot_at, "bot", s) for s in due if table.seats[s].bot]
        # The table answers for a player who is away, at a computer player's pace.
        return steps + [Step(bot_at, "auto", s) for s in due if table.is_away(s)]
    for table_seat in due:
        seat = table.seats[table_seat]
        if seat.bot:
            steps.append(Step(bot_at, "bot", table_seat))
            continue
        if table.is_away(table_seat):
            steps.append(Step(bot_at, "auto", table_seat))
            continue
        # The turn clock, or sooner if her phone goes quiet for the grace period.
        turn = turn_ends(table, pace)
        grace = table.heard(table_seat) + timedelta(seconds=pace.grace)
        steps.append(Step(min(turn, max(bot_at, grace)), "auto", table_seat))
    return steps


def turn_ends(table: Moment, pace: Pace) -> datetime:
    """When the table plays for a due player whose phone is heard: the turn clock she sees,
    counted from the last change, or afresh from when the server resumed."""
    return _later(table.changed_at, table.resumed_at) + timedelta(seconds=pace.turn)


def _later(moment: datetime, other: datetime | None) -> datetime:
    return moment if other is None or other <= moment else other


def next_deadline(steps: Sequence[Step]) -> datetime | None:
    return min(step.when for step in steps) if steps else None


def due_step(steps: Sequence[Step], now: datetime) -> Step | None:
    """The step to carry out at `now`: the earliest due, out-of-turn offers before the rest."""
    due = [step for step in steps if step.when <= now]
    return min(due, key=lambda step: (step.when, step.kind != "bot_offer")) if due else None
