"""What every level shares: the calling contract, reading an observation, and table memory."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from games.engine import Action, HouseRules, Observation

from .judge import ALL, TRICKS, View, mask_of
from .model import Model
from .reads import (
    HIGH_STAY_ANYWAY,
    SURE_KNOCK_ANYWAY,
    belief,
    knock_is_sure,
    knocks_made,
    shown_moments,
    shown_seats,
    stay_is_high,
)


def is_due(obs: Observation) -> bool:
    """The hand waits for this seat: an answer (stay/fold) or a card is among its legal actions.

    This matches `Hand.due()`: only the seat whose answer is due (all awaited seats with
    simultaneous answers) is offered stay, and only the seat to play is offered cards."""
    return any(action.act in ("stay", "play") for action in obs.legal)


def decided_tricks(obs: Observation) -> int:
    return sum(1 for _, _, winner in obs.tricks if winner is not None)


def current_trick(obs: Observation) -> tuple[tuple[int, int], ...]:
    if obs.tricks and obs.tricks[-1][2] is None:
        return obs.tricks[-1][1]
    return ()


def view_of(obs: Observation) -> View:
    """The judging view of a seat's observation: only what the seat may see."""
    seat = obs.seat
    assert seat is not None and obs.hand is not None
    folded = set(obs.folded)
    unknown = ALL & ~mask_of(tuple(obs.visible_cards()))
    others = [s for s in range(len(obs.players)) if s != seat and s not in folded]
    known_held = 0
    held = 0
    for other in others:
        if other in obs.open_hands:
            known_held |= mask_of(obs.open_hands[other])
        else:
            held += obs.hand_sizes[other]
    trick = current_trick(obs)
    played = {s for s, _ in trick}
    trick_left = sum(1 for s in others if s not in played) if trick else 0
    leads = not trick and obs.to_play == seat
    return View(
        obs.hand,
        unknown,
        held,
        trick,
        trick_left,
        TRICKS - decided_tricks(obs),
        leads,
        len(others),
        known_held,
        seat,
    )


@dataclass
class Habits:
    """What a table learns of one player over the hands it has watched."""

    hands: int = 0
    knocks: int = 0
    answers: int = 0
    folds: int = 0
    exchanges: int = 0
    dirty: int = 0
    clean: int = 0
    shown_knocks: int = 0  # hands this player knocked in that were played to the last trick
    won_knocks: int = 0  # ... and that she won
    # Her shown choices (`reads.shown_choices`): knocks on a sure last trick or not, stays on a
    # high card or not.
    sure_knocks: int = 0
    unsure_knocks: int = 0
    high_stays: int = 0
    low_stays: int = 0
    # Her knocks, passes, stays and folds by the strength of her cards (`model`).
    model: Model = field(default_factory=Model)

    def fold_rate(self) -> float:
        # A prior of four answers at one fold in two keeps one early answer from deciding it.
        return (self.folds + 2.0) / (self.answers + 4.0)

    def knock_rate(self) -> float:
        """Knocks per hand, with a prior of 0.4 over three hands."""
        return (self.knocks + 1.2) / (self.hands + 3.0)

    def knock_truth(self) -> float:
        """How often this player's knocks held up when the hand was played out (prior 0.6)."""
        return (self.won_knocks + 1.8) / (self.shown_knocks + 3.0)

    def dirty_rate(self) -> float:
        return (self.dirty + 0.2) / (self.dirty + self.clean + 2.0)

    def knocks_on_the_line(self) -> float:
        """Belief that she knocks only when the last trick is surely hers (`reads`)."""
        return belief(self.sure_knocks, self.unsure_knocks, SURE_KNOCK_ANYWAY)

    def stays_on_high(self) -> float:
        """Belief that she stays on a knock only with a high card (`reads`)."""
        return belief(self.high_stays, self.low_stays, HIGH_STAY_ANYWAY)


@dataclass
class Memory:
    """A bot's memory of the table: habits by player name, read from the history it was shown.

    Only public actions are read (`history` is the same for every seat), so remembering is
    no leak; it is how a club player learns who bluffs and who folds to everything."""

    habits: dict[str, Habits] = field(default_factory=dict)
    _key: tuple[object, ...] = ()
    _seen: int = 0
    _open_knock: bool = False
    _stake: int = 1
    _settled: bool = False

    @property
    def key(self) -> tuple[object, ...]:
        """Names the hand being read: the players, the dealer and the lives at the deal."""
        return self._key

    def of(self, name: str) -> Habits:
        habits = self.habits.get(name)
        if habits is None:
            habits = self.habits[name] = Habits()
        return habits

    def read(self, obs: Observation) -> None:
        start_lives = tuple(
            lives + lost for lives, lost in zip(obs.lives, obs.lives_lost, strict=True)
        )
        key = (obs.players, obs.dealer, start_lives)
        history = obs.history
        fresh = key != self._key or len(history) < self._seen
        if fresh:
            self._key, self._seen, self._open_knock = key, 0, obs.poverty
            self._stake = 2 if obs.poverty else 1
            self._settled = False
            for name in obs.players:
                self.of(name).hands += 1
        names = obs.players
        reveals = iter(obs.reveals)
        skipped = sum(1 for action in history[: self._seen] if action.act == "challenge")
        for _ in range(skipped):
            next(reveals, None)
        for action in history[self._seen :]:
            habits = self.of(names[action.seat])
            act = action.act
            if act == "knock":
                habits.knocks += 1
                self._open_knock = True
                self._stake += 1
            elif act in ("stay", "fold") and self._open_knock:
                habits.answers += 1
                habits.folds += act == "fold"
                habits.model.folds[self._stake > 2] += act == "fold"
            elif act == "exchange":
                habits.exchanges += 1
            elif act == "challenge":
                reveal = next(reveals, None)
                if reveal is not None:
                    target = self.of(names[reveal[1]])
                    if reveal[3]:
                        target.clean += 1
                    else:
                        target.dirty += 1
            if act == "play":
                self._open_knock = False
        self._seen = len(history)
        if obs.complete and not self._settled:
            self._settled = True
            shown = shown_seats(obs)
            for seat, tricks_left in knocks_made(obs):
                if seat not in shown:
                    self.of(names[seat]).model.unshown_knocks[tricks_left <= 2] += 1
            if len(obs.tricks) == 4 and obs.tricks[-1][2] is not None:
                # Played out: every knock in the hand is shown for what it was.
                for seat in {action.seat for action in history if action.act == "knock"}:
                    habits = self.of(names[seat])
                    habits.shown_knocks += 1
                    habits.won_knocks += obs.winner == seat
                for seat, choice, view, stake in shown_moments(obs):
                    habits = self.of(names[seat])
                    habits.model.learn(choice, view, stake)
                    if choice == "pass":
                        continue
                    if choice == "knock":
                        if knock_is_sure(view):
                            habits.sure_knocks += 1
                        else:
                            habits.unsure_knocks += 1
                    elif stay_is_high(view):
                        habits.high_stays += 1
                    else:
                        habits.low_stays += 1


class Bot:
    """A computer player. Subclasses implement `choose`; `decide` is the public entry."""

    level = "base"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.memory = Memory()

    def notice(self, obs: Observation) -> None:
        """Remember what the table did (call it with any observation of the bot's seat)."""
        self.memory.read(obs)

    def decide(self, obs: Observation, rules: HouseRules) -> Action | None:
        """An action from `obs.legal`, or None for "nothing now" (never None when due)."""
        if not obs.legal:
            return None
        self.notice(obs)
        action = self.choose(obs, rules)
        if action is None and is_due(obs):
            # Never stall a table: the levels always answer when due, this is a last resort.
            action = next(a for a in obs.legal if a.act in ("stay", "play"))
        return action

    def choose(self, obs: Observation, rules: HouseRules) -> Action | None:
        raise NotImplementedError
