"""Computer players at live tables: games.bots, asked from the table clock's worker thread.

A bot decides from its seat's `Observation` only. Strong searches in the bots' process pool, so
its thinking holds neither the event loop nor the GIL of the server process; the table is not
locked while it thinks (services.fire_deadline applies the move only if the table has not
changed meanwhile). Each process keeps its bots between decisions, so they remember the table:
a computer player is kept for its seat from rubber to rubber, and before it decides in a new hand
it watches every hand its table finished since it last looked, from the stored records (the
public history and the cards played: what every seat saw), so it reads its opponents as a club
player does. A process that starts, or meets the table for the first time, lets it watch the
table's latest `WATCH_BACK` finished hands first: a restart or a second server loses nothing of
what it learnt.

Every decision of a searching bot takes the same wall time, `thinking_time(bot)`, whether it
searched or answered at once: how long it thinks would otherwise tell the table about its hand
(Strong searches an offer out of turn only when its cards make a knock worth weighing).
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from dataclasses import dataclass

from games.bots import Bot, make_bot, shared_pool
from games.bots.aio import decide_in, thinking_time
from games.engine import Action, EngineError, HouseRules, Observation, observe, replayed
from games.models import PlayedHand

from .state import TableState

log = logging.getLogger(__name__)

DECISION_TIMEOUT = 10.0
_MAX_BOTS = 512
# The finished hands of its table a computer player new to this process watches first (about
# a long evening at one table).
WATCH_BACK = 200


@dataclass
class _Seated:
    bot: Bot
    watched: int = 0  # the newest finished hand of its table (PlayedHand pk) it has watched
    hand: int | None = None  # the hand it was last asked in


_bots: OrderedDict[tuple[int, int, str], _Seated] = OrderedDict()


def bot_for(state: TableState, seat: int) -> Bot:
    """The computer player at `seat` of `state`'s table, kept from rubber to rubber, having
    watched every hand the table finished before the one in play."""
    key = (state.table.pk, seat, state.seats[seat].bot_level)
    seated = _bots.get(key)
    if seated is None:
        seated = _bots[key] = _Seated(make_bot(key[2]))
        if len(_bots) > _MAX_BOTS:
            _bots.popitem(last=False)
    _bots.move_to_end(key)
    row = state.hand_row
    if row is not None and seated.hand != row.pk:
        _watch(seated, state.table.pk, seat, row.pk)
        seated.hand = row.pk
    return seated.bot


def _watch(seated: _Seated, table_id: int, seat: int, current: int) -> None:
    """Show the bot the hands its table finished since it last looked, oldest first, as its
    seat saw them (as a watcher where it was not dealt in)."""
    rows = (
        PlayedHand.objects.filter(
            rubber__table_id=table_id, complete=True, pk__gt=seated.watched, pk__lt=current
        )
        .order_by("-pk")
        .values_list("pk", "seats", "record")[:WATCH_BACK]
    )
    for pk, seats, record in reversed(list(rows)):
        seated.watched = pk
        try:
            hand = replayed(record)
        except EngineError:
            log.warning("table %s: stored hand %s does not replay", table_id, pk, exc_info=True)
            continue
        seated.bot.notice(observe(hand, seats.index(seat) if seat in seats else None))


def decide(bot: Bot, observation: Observation, rules: HouseRules) -> Action | None:
    """The bot's action (None: nothing now). Searching levels think in the process pool."""
    if not getattr(bot, "searches", False):
        return bot.decide(observation, rules)
    started = time.monotonic()
    action = None
    if observation.legal:
        action = decide_in(shared_pool(), bot, observation, rules).result(timeout=DECISION_TIMEOUT)
    # In the clock's worker thread, never on the event loop; the wait holds the clock no longer
    # than a full search would.
    time.sleep(max(0.0, started + thinking_time(bot) - time.monotonic()))
    return action
