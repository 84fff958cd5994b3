"""The benchmark's battery of club styles: players with habits set by parameters.

A style knocks when her judged chance of the last trick (`judge.win_chance`, from her own view)
reaches `knock_need`, from the trick `knock_from` on (4: the first trick, 1: only the last),
at a chance in `knock_often` each trick; bluffs (knocks on a chance under 0.3) at `bluff` each
trick from `knock_from` on; stays when knocked at if her chance reaches `stay_need` plus
`stake_fear` for every knock past the first, or, with `stay_high`, only with a card nothing
left can beat in its suit (or a sure last trick). A mixed style draws one habit per hand.
Strong never sees these definitions: it reads each player from what she shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from games.engine import Action, Observation

from .base import view_of
from .judge import sure_of_last_trick, sure_top, win_chance
from .simple import RuleBot, _find

BLUFF_BELOW: Final = 0.3


@dataclass(frozen=True)
class Habit:
    knock_need: float = 0.8
    knock_from: int = 2  # tricks left, at most, when she starts knocking
    knock_often: float = 1.0
    bluff: float = 0.0
    stay_need: float = 0.4
    stake_fear: float = 0.0
    stay_high: bool = False


# Each style: its habits and the chance of each per hand.
BATTERY: Final[dict[str, tuple[tuple[Habit, float], ...]]] = {
    # Knocks only on the last trick with a good card; stays only with a card that tops its suit.
    "careful": ((Habit(knock_need=0.8, knock_from=1, stay_high=True), 1.0),),
    # Knocks from the first trick on a fair hand, and stays on little.
    "eager": ((Habit(knock_need=0.5, knock_from=4, knock_often=0.8, stay_need=0.2), 1.0),),
    # Knocks late on a good hand and bluffs often on a weak one.
    "bluffer": ((Habit(knock_need=0.75, knock_from=2, bluff=0.3, stay_need=0.4), 1.0),),
    # Knocks on a good hand late, and stays on almost anything.
    "caller": ((Habit(knock_need=0.8, knock_from=2, bluff=0.02, stay_need=0.05), 1.0),),
    # Knocks only on a near-sure hand, and the higher the stake the more she needs to stay.
    "timid": ((Habit(knock_need=0.9, knock_from=3, stay_need=0.6, stake_fear=0.15), 1.0),),
    # Plays carefully most hands, and some hands knocks early and bluffs.
    "mixed": (
        (Habit(knock_need=0.85, knock_from=1, stay_high=True), 0.6),
        (Habit(knock_need=0.6, knock_from=3, bluff=0.25, stay_need=0.3), 0.4),
    ),
}


class Styled(RuleBot):
    """A club player of one battery style (`BATTERY`)."""

    def __init__(self, style: str, seed: int | None = None) -> None:
        if style not in BATTERY:
            raise ValueError(f"unknown style {style!r}; one of {', '.join(BATTERY)}")
        super().__init__(seed)
        self.level = style
        self.habits = BATTERY[style]
        self._values: dict[tuple[object, ...], float] = {}

    def habit(self) -> Habit:
        """This hand's habit, drawn once per hand."""
        if len(self.habits) == 1:
            return self.habits[0][0]
        draw = self._draw("habit")
        for habit, share in self.habits:
            draw -= share
            if draw < 0.0:
                return habit
        return self.habits[-1][0]

    def _draw(self, tag: object) -> float:
        key = (self.memory.key, tag)
        drawn = self._values.get(key)
        if drawn is None:
            if len(self._values) > 256:
                self._values.clear()
            drawn = self._values[key] = self.rng.random()
        return drawn

    def answer(self, obs: Observation) -> Action:
        habit = self.habit()
        view = view_of(obs)
        if habit.stay_high:
            stay = sure_of_last_trick(view) or any(sure_top(view, card) for card in view.cards)
        else:
            stay = win_chance(view) >= habit.stay_need + habit.stake_fear * (obs.stake - 2)
        return _find(obs, "stay" if stay else "fold") or obs.legal[0]

    def wants_knock(self, obs: Observation, due: bool) -> bool:
        habit = self.habit()
        view = view_of(obs)
        if not due or view.tricks_left > habit.knock_from:
            return False
        chance = win_chance(view)
        moment = ("knock", view.tricks_left, obs.stake)
        if chance >= habit.knock_need:
            return self._draw(moment) < habit.knock_often
        if chance < BLUFF_BELOW and obs.stake == 1:
            return self._draw(moment) < habit.bluff
        return False
