"""Strong: flat Monte Carlo over determinized hands.

For each decision: deal the hidden cards many times consistently with what the seat has seen
(`world.Knowledge`), replay the hand onto each deal with the engine, try every candidate action
on a copy and play it out (`rollout.play_out`), and take the action with the best weighted mean
outcome. Every candidate is tried on the same deals with the same playout randomness, so their
difference is measured with far less noise than their values.

The outcome is counted in lives, weighed by the rubber: a life of its own counts 1, a life lost
by an opponent `OTHERS_WEIGHT` shared among them (it brings them closer to going out first),
and going out itself costs `OUT_PENALTY` more (first_out: it has lost the rubber).
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from typing import Final

from games.engine import Action, Hand, HouseRules, Observation

from .base import Habits, Memory, is_due, view_of
from .judge import win_chance
from .model import SEEN_ENOUGH
from .reads import PRIOR
from .rollout import Answering, Knocking, Style, play_out
from .simple import Normal, _answering, _find
from .world import Knowledge, Tables, sample_world

DEFAULT_BUDGET: Final = 0.2  # seconds of search per decision; keeps p95 under 300 ms
OTHERS_WEIGHT: Final = 0.6
OUT_PENALTY: Final = 4.0
OTHER_OUT_BONUS: Final = 1.5
# Playouts price a knock as Normal-like seats would answer it; a searching table answers more
# boldly, so a knock must beat playing on by this many lives before it is made. Without it
# three Strong players knock each other up to stakes of 5 and 6 and lose to a cautious player.
# It is charged for the share of the opponents still in who judge their answers: one seen to
# fold to every knock (or to stay on every one) is priced as she plays, so a knock at her costs
# no margin, as a club player knocks at the timid one whenever she is in.
KNOCK_MARGIN: Final = 0.2
KNOCK_STEP: Final = 0.5  # and this much more for every knock before it
# Likewise a searching knocker holds more than the playouts credit: with three Strong players
# the stays against each other's knocks cost 1.35 lives a stay, where folding cost about 1. So
# a stay must beat folding by this many lives, times how credible the knocker's knocks have
# been (nothing against one who knocks at every chance). Fewer fights among the players who
# judge also leave one who folds to everything as the player losing a life every hand.
STAY_MARGIN: Final = 0.6
SURE: Final = 0.03  # the share of worlds a "sure" knock or stay may still lose
# A hand that costs several lives at once is worse than its mean: the rubber is lost by the
# first to run out, so swings hurt. Each life lost in a hand costs this much more per life.
SWING: Final = 0.15
MIN_WORLDS: Final = 24
# How many standard errors of its advantage over the best other choice a knock must clear.
NOISE_Z: Final = 1.0
MAX_WORLDS: Final = 400
# Seconds of a decision's budget kept for weighing the worlds' results after the search.
AFTER_SEARCH: Final = 0.001


class Strong(Normal):
    """Searches; takes Normal's laundry and announcement habits, which a search prices poorly."""

    level = "strong"
    searches = True

    def __init__(
        self, seed: int | None = None, budget: float = DEFAULT_BUDGET, worlds: int = MAX_WORLDS
    ) -> None:
        super().__init__(seed)
        self.budget = budget
        # A fixed number of worlds (with a generous budget) makes a decision repeatable.
        self.worlds = worlds
        self.last_worlds = 0
        # When the decision now being made was asked for: its budget runs from then.
        self.asked: float | None = None

    def decide(self, obs: Observation, rules: HouseRules) -> Action | None:
        self.asked = time.perf_counter()
        try:
            return super().decide(obs, rules)
        finally:
            self.asked = None

    def choose(self, obs: Observation, rules: HouseRules) -> Action | None:
        if obs.laundry_open:
            action = self.laundry(obs)
            if action is not None:
                return action
        announce = _find(obs, "announce")
        if announce is not None and self._once("announce", self.whistle_chance):
            return announce
        due = is_due(obs)
        candidates: list[Action | None]
        if due:
            candidates = [a for a in obs.legal if a.act in ("play", "stay", "fold", "knock")]
            if _answering(obs):
                # Normal's answer to a believed line knocker: sampling finds too few of the
                # rare deals a sure knock comes from to price it by search.
                answer = self.answer_on_the_line(obs)
                if answer is not None:
                    return answer
                candidates = [a for a in candidates if a is not None and a.act in ("stay", "fold")]
        else:
            knock = _find(obs, "knock")
            # Out of turn, search only when a knock could be worth it: most offers are not.
            if knock is None or win_chance(view_of(obs)) < 0.6:
                return None
            candidates = [None, knock]
        if len(candidates) == 1:
            return candidates[0]
        return self.search(obs, rules, candidates)

    def styles(self, obs: Observation) -> list[Style]:
        """How each seat will play in the playouts: by its habits where they are plain."""
        styles = []
        for s, name in enumerate(obs.players):
            if s == obs.seat:
                styles.append(Style())
                continue
            habits = self.memory.of(name)
            answers: Answering = "judge"
            if habits.answers >= 4:
                if habits.folds >= 0.95 * habits.answers:
                    answers = "fold"
                elif habits.folds <= 0.05 * habits.answers:
                    answers = "stay"
            knocks: Knocking = "judge"
            if habits.hands >= 3 and habits.knock_rate() > 1.5:
                knocks = "always"
            elif habits.hands >= 6 and habits.knocks == 0:
                knocks = "never"
            # Judging alone folds about 55% of answers at this table's usual stakes.
            bias = 0.8 * (0.55 - habits.fold_rate())
            model = habits.model
            if model.seen() >= SEEN_ENOUGH:
                # Seen enough of her: she plays her own model where no plain habit decides;
                # before, she judges as Normal does.
                answers = "model" if answers == "judge" else answers
                knocks = "model" if knocks == "judge" else knocks
            styles.append(
                Style(
                    answers,
                    knocks,
                    stay_bias=bias,
                    knock_chances=model.knock_table(),
                    stay_chances=model.stay_table(),
                )
            )
        return styles

    def search(
        self, obs: Observation, rules: HouseRules, candidates: list[Action | None]
    ) -> Action | None:
        start = time.perf_counter()
        # The budget covers the whole decision: reading the table and judging the hand before
        # the search, and weighing the results after it (`AFTER_SEARCH`).
        deadline = (start if self.asked is None else self.asked) + self.budget - AFTER_SEARCH
        me = obs.seat
        assert me is not None
        names = obs.players

        def clean_belief(seat: int) -> float:
            return 1.0 - self.memory.of(names[seat]).dirty_rate()

        def knock_belief(seat: int) -> float:
            return _knock_belief(self.memory.of(names[seat]))

        def stay_belief(seat: int) -> float:
            return 0.8 * self.memory.of(names[seat]).fold_rate()

        def reads(seat: int) -> tuple[float, float]:
            habits = self.memory.of(names[seat])
            return habits.knocks_on_the_line(), habits.stays_on_high()

        def model(seat: int) -> Tables:
            habits = self.memory.of(names[seat]).model
            return habits.knock_table(), habits.stay_table()

        knowledge = Knowledge(obs, rules, clean_belief, knock_belief, stay_belief, reads, model)
        styles = self.styles(obs)
        typed: dict[tuple[int, int], list[Style]] = {}
        k = len(candidates)
        total_w = 0.0
        sums = [0.0] * k
        squares = [0.0] * k
        paying = [0.0] * k
        # Each world's weight and value per candidate, for the noise of a knock's advantage.
        weights: list[float] = []
        values: list[list[float]] = [[] for _ in range(k)]
        playout_rng = random.Random()
        worlds = 0
        failures = 0
        # The longest world so far: a world's cost varies with its deal, and the one that
        # would cross the budget is not started.
        longest = 0.0
        began = time.perf_counter()
        while worlds < self.worlds:
            sampled = sample_world(knowledge, self.rng)
            if sampled is None:
                failures += 1
                if failures > 5:
                    break
                continue
            world, weight, line, high = sampled
            world_styles = typed.get((line, high))
            if world_styles is None:
                world_styles = typed[line, high] = _with_habits(styles, line, high)
            seed = self.rng.getrandbits(32)
            for i, candidate in enumerate(candidates):
                branch = world.copy()
                if candidate is not None:
                    branch.apply(candidate)
                playout_rng.seed(seed)
                play_out(branch, world_styles, playout_rng)
                value = _value(branch, me, rules.end_condition == "first_out")
                sums[i] += weight * value
                values[i].append(value)
                if branch.lost[me] > 0:
                    paying[i] += weight
                squares[i] += weight * value * value
            total_w += weight
            weights.append(weight)
            worlds += 1
            now = time.perf_counter()
            longest = max(longest, now - began)
            began = now
            # Stop before a world that could end past the budget.
            if now + longest >= deadline:
                break
            if worlds >= MIN_WORLDS and worlds % 8 == 0 and _settled(sums, squares, total_w):
                break
        self.last_worlds = worlds
        if total_w <= 0.0:
            return self.fallback(obs, rules, candidates)
        # A knock or a stay on a sure winner risks nothing (this seat paid in almost no world),
        # so even a small gain makes it: "knock before you show your 10".
        margins = [
            decision_margin(obs, styles, c, self.memory) * total_w
            if c is not None and paying[i] > SURE * total_w
            else 0.0
            for i, c in enumerate(candidates)
        ]
        knocks = [i for i, c in enumerate(candidates) if c is not None and c.act == "knock"]
        if knocks and len(knocks) < k:
            # A knock must beat the best other choice by more than the noise of the few worlds
            # a short budget allows: a knock that only looks better by chance costs lives.
            others = [i for i in range(k) if i not in knocks]
            base = max(others, key=lambda i: sums[i] - margins[i])
            for i in knocks:
                margins[i] += NOISE_Z * _paired_error(weights, values[i], values[base]) * total_w
        best = max(range(k), key=lambda i: sums[i] - margins[i])
        return candidates[best]

    def fallback(
        self, obs: Observation, rules: HouseRules, candidates: list[Action | None]
    ) -> Action | None:
        """Normal's choice, should no consistent world be found (it should not happen)."""
        action = Normal.choose(self, obs, rules)
        return action if action in candidates else candidates[0]


def _with_habits(styles: list[Style], line: int, high: int) -> list[Style]:
    """The playout styles of a world whose seats in `line` knock only on the line and in
    `high` stay only on a high card, where their plain habits do not already decide."""
    if not line and not high:
        return styles
    result = []
    for s, style in enumerate(styles):
        if line >> s & 1 and style.knocks in ("judge", "model"):
            style = dataclasses.replace(style, knocks="line")
        if high >> s & 1 and style.answers in ("judge", "model"):
            style = dataclasses.replace(style, answers="high")
        result.append(style)
    return result


def knock_margin(stake: int) -> float:
    """Lives a knock must gain over playing on: more for each knock already made."""
    return KNOCK_MARGIN + KNOCK_STEP * (stake - 1)


def _knock_belief(habits: Habits) -> float:
    """How much a player's knock says her hand is strong: her knocks held up, and are rare."""
    return min(0.95, max(0.0, habits.knock_truth() + 0.5 - 0.5 * habits.knock_rate()))


def decision_margin(
    obs: Observation, styles: list[Style], candidate: Action, memory: Memory
) -> float:
    """Lives `candidate` must gain over the others before it is taken, for the misjudged
    answerers and knockers it meets (see KNOCK_MARGIN and STAY_MARGIN)."""
    if candidate.act == "knock":
        folded = set(obs.folded)
        others = [s for s in range(len(obs.players)) if s != obs.seat and s not in folded]
        # One read as staying only on a high card is priced as she plays, as far as believed.
        judging = sum(
            1.0 - _beyond_prior(memory.of(obs.players[s]).stays_on_high())
            for s in others
            if styles[s].answers in ("judge", "model")
        )
        return knock_margin(obs.stake) * judging / max(1, len(others))
    if candidate.act == "stay" and obs.answer_to is not None:
        if styles[obs.answer_to].knocks not in ("judge", "model"):
            return 0.0
        return STAY_MARGIN * _knock_belief(memory.of(obs.players[obs.answer_to]))
    return 0.0


def _beyond_prior(belief: float) -> float:
    """How far a belief has risen above the prior, from 0 (not at all) to 1 (certain)."""
    return max(0.0, (belief - PRIOR) / (1.0 - PRIOR))


def _value(world: Hand, me: int, first_out: bool) -> float:
    lost = world.lost
    n = world.n
    others = sum(lost) - lost[me]
    mine = lost[me]
    value = -mine - SWING * mine * mine + OTHERS_WEIGHT * others / max(1, n - 1)
    if world.lives[me] == 0 and lost[me] > 0:
        value -= OUT_PENALTY
    elif first_out and any(world.lives[s] == 0 and lost[s] > 0 for s in range(n) if s != me):
        value += OTHER_OUT_BONUS
    return value


def _paired_error(weights: list[float], first: list[float], second: list[float]) -> float:
    """The standard error of the weighted mean difference between two candidates' values over
    the same worlds."""
    total = sum(weights)
    if total <= 0.0:
        return 0.0
    diffs = [a - b for a, b in zip(first, second, strict=True)]
    mean = sum(w * d for w, d in zip(weights, diffs, strict=True)) / total
    spread = sum(w * (d - mean) ** 2 for w, d in zip(weights, diffs, strict=True)) / total
    effective = total * total / sum(w * w for w in weights)
    return math.sqrt(spread / max(1.0, effective))


def _settled(sums: list[float], squares: list[float], total: float) -> bool:
    """The best candidate leads the runner-up by well over the noise."""
    means = [s / total for s in sums]
    order = sorted(range(len(means)), key=lambda i: means[i], reverse=True)
    best, second = order[0], order[1]
    spread = max(squares[i] / total - means[i] ** 2 for i in (best, second))
    # A rough effective count: weights near 1 make it close to the number of worlds.
    error = math.sqrt(max(spread, 1e-9) / max(total, 1.0))
    return means[best] - means[second] > 4.0 * error
