"""Computer players for Toepen: pure Python on top of `games.engine`, no Django.

    bot = make_bot("strong", seed=7)  # "easy", "normal", "strong", or a benchmark style
    action = bot.decide(observe(hand, seat), rules)      # an Action from obs.legal, or None
    action = await decide_async(bot, observe(hand, seat), rules)   # the same, off the loop

A bot sees only what its seat may see: the `Observation` of `games.engine.observe(hand, seat)`
and the house rules, which every player at the table knows. It never receives the `Hand`. It
remembers what the table did (its `Memory`: who knocks, who folds, whose exchanges were dirty)
across hands, as a club player would, read from the public `history` it is shown; and from each
hand played out it reads each player's style (`reads`: does she knock only on the line, stay
only on a high card?).

How a table asks its bots (`table.play_hand` is the reference implementation):

- After every change to the hand, offer each seat that is not due (`hand.due()`) but has legal
  actions the chance to act: `decide` returns an optional action (exchange, challenge, knock,
  announce, voluntary fold) or None for "nothing now". Offer the laundry at the deal, before the
  leader's card closes it. Apply the first action taken and offer again.
- Then ask each due seat: `decide` always returns an action when its seat is due (its legal
  actions hold a card to play or a stay/fold answer). With simultaneous answers every awaited
  seat is due; ask them one after another.
- Call `bot.notice(observe(hand, seat))` once the hand is complete, so the bot remembers its end.
- On the server use `decide_async` (or `games.services.bot_seats.decide` from a worker thread):
  Strong searches in a worker process so the event loop keeps serving the humans, and every decision
  of it takes the same time (`aio.thinking_time`) so its pace tells nothing of its hand; the
  other levels decide in microseconds in place.

Levels: Easy and Normal are rules of thumb (`simple`), Strong searches (`strong`); Cautious,
Reckless, Lijntoeper and Knocker, and the battery of club styles (`styles.BATTERY`: careful,
eager, bluffer, caller, timid, mixed) are the styles the benchmark checks Strong against. See
docs/bots.md.
"""

from __future__ import annotations

from .aio import decide_async, shared_pool
from .base import Bot, Memory, is_due
from .simple import Cautious, Easy, Knocker, Lijntoeper, Normal, Reckless
from .strong import DEFAULT_BUDGET, Strong
from .styles import BATTERY, Styled

LEVELS = (
    "easy",
    "normal",
    "strong",
    "cautious",
    "reckless",
    "lijntoeper",
    "knocker",
    *BATTERY,
)


def make_bot(level: str, seed: int | None = None, budget: float = DEFAULT_BUDGET) -> Bot:
    """A bot of `level`; `seed` makes its choices repeatable; `budget`: Strong's seconds per
    decision at most."""
    if level == "strong":
        return Strong(seed, budget)
    if level in BATTERY:
        return Styled(level, seed)
    classes: dict[str, type[Bot]] = {
        "easy": Easy,
        "normal": Normal,
        "cautious": Cautious,
        "reckless": Reckless,
        "lijntoeper": Lijntoeper,
        "knocker": Knocker,
    }
    try:
        return classes[level](seed)
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}; one of {', '.join(LEVELS)}") from None


__all__ = [
    "DEFAULT_BUDGET",
    "LEVELS",
    "Bot",
    "Cautious",
    "Easy",
    "Knocker",
    "Lijntoeper",
    "Memory",
    "Normal",
    "Reckless",
    "Strong",
    "Styled",
    "decide_async",
    "is_due",
    "make_bot",
    "shared_pool",
]
