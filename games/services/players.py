"""Computer players at live tables: games.bots, asked from the table clock's worker thread.

A bot decides from its seat's `Observation` only. Strong searches in the bots' process pool, so
its thinking holds neither the event loop nor the GIL of the server process; the table is not
locked while it thinks (services.fire_deadline applies the move only if the table has not
changed meanwhile). Each process keeps its bots between decisions, so they remember the table.

Every decision of a searching bot takes the same wall time, `thinking_time(bot)`, whether it
searched or answered at once: how long it thinks would otherwise tell the table about its hand
(Strong searches an offer out of turn only when its cards make a knock worth weighing).
"""

from __future__ import annotations

import time
from collections import OrderedDict

from games.bots import Bot, make_bot, shared_pool
from games.bots.aio import decide_in, thinking_time
from games.engine import Action, HouseRules, Observation

DECISION_TIMEOUT = 10.0
_MAX_BOTS = 512
_bots: OrderedDict[tuple[int, int, int], Bot] = OrderedDict()


def bot_for(table_id: int, rubber: int, seat: int, level: str) -> Bot:
    key = (table_id, rubber, seat)
    bot = _bots.get(key)
    if bot is None:
        bot = _bots[key] = make_bot(level)
        if len(_bots) > _MAX_BOTS:
            _bots.popitem(last=False)
    _bots.move_to_end(key)
    return bot


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
