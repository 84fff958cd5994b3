"""The rule-of-thumb levels: Easy, Normal, and the benchmark styles Cautious, Reckless,
Lijntoeper and Knocker."""

from __future__ import annotations

from typing import Final

from games.engine import Action, HouseRules, Observation
from games.engine.cards import is_face

from .base import Bot, Habits, decided_tricks, is_due, view_of
from .judge import (
    View,
    choose_card,
    naive_strength,
    sure_of_last_trick,
    sure_top,
    sure_winner,
    win_chance,
)
from .model import SEEN_ENOUGH


def _find(obs: Observation, act: str) -> Action | None:
    return next((action for action in obs.legal if action.act == act), None)


def _answering(obs: Observation) -> bool:
    return any(action.act == "stay" for action in obs.legal)


def _plays(obs: Observation) -> list[int]:
    return [action.card for action in obs.legal if action.act == "play" and action.card is not None]


def _play(obs: Observation, card: int) -> Action:
    return next(action for action in obs.legal if action.act == "play" and action.card == card)


class RuleBot(Bot):
    """Decides in a fixed order: laundry, announcement, answer, knock, card.

    Optional choices that the table may offer again and again (exchange, challenge, a jack
    whistle) are drawn once per hand, so being asked often does not make them likelier."""

    exchange_bluff = 0.0  # chance to exchange a weak hand that is not clean
    challenge_chance = 0.0  # chance to challenge an exchange with no reason to doubt it
    whistle_chance = 0.0  # chance to whistle on three jacks, to mislead

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._draws: dict[tuple[object, ...], bool] = {}

    def _once(self, tag: object, chance: float) -> bool:
        key = (self.memory.key, tag)
        drawn = self._draws.get(key)
        if drawn is None:
            if len(self._draws) > 256:
                self._draws.clear()
            drawn = self._draws[key] = self.rng.random() < chance
        return drawn

    def choose(self, obs: Observation, rules: HouseRules) -> Action | None:
        if obs.laundry_open:
            action = self.laundry(obs)
            if action is not None:
                return action
        announce = _find(obs, "announce")
        if announce is not None and self._once("announce", self.whistle_chance):
            return announce
        if _answering(obs):
            return self.answer(obs)
        knock = _find(obs, "knock")
        due = is_due(obs)
        if knock is not None and self.wants_knock(obs, due):
            return knock
        plays = _plays(obs)
        if plays:
            return _play(obs, self.card(obs, plays))
        return None

    def laundry(self, obs: Observation) -> Action | None:
        hand = obs.hand or ()
        exchange = _find(obs, "exchange")
        if exchange is not None and obs.exchanges[obs.seat or 0] == 0:
            clean = all(is_face(card) for card in hand)
            if clean and self._once("exchange", self.exchange_clean):
                return exchange
            if (
                not clean
                and naive_strength(hand) < 0.6
                and self._once("bluff", self.exchange_bluff)
            ):
                return exchange
        for action in obs.legal:
            if action.act == "challenge" and action.target is not None:
                target = obs.players[action.target]
                doubt = self.memory.of(target).dirty_rate() > 0.45
                tag = ("challenge", action.target, obs.exchanges[action.target])
                if doubt or self._once(tag, self.challenge_chance):
                    return action
        return None

    exchange_clean = 1.0

    def answer(self, obs: Observation) -> Action:
        raise NotImplementedError

    def wants_knock(self, obs: Observation, due: bool) -> bool:
        return False

    def card(self, obs: Observation, plays: list[int]) -> int:
        return choose_card(view_of(obs), plays)


def knocker_credibility(bot: Bot, obs: Observation) -> float:
    """How much a knock says about the knocker's cards: little from someone who knocks a lot."""
    if obs.answer_to is None:
        return 0.0  # the poverty stake: the poor player was forced, not confident
    habits = bot.memory.of(obs.players[obs.answer_to])
    # Knocks that held up when played out, and knocks that are rare, both mean strength.
    credibility = min(1.0, max(0.1, habits.knock_truth() + 0.6 - 0.5 * habits.knock_rate()))
    if habits.model.seen() >= SEEN_ENOUGH:
        # Her model: how often her knocks at this moment come from a good hand.
        late = decided_tricks(obs) >= 2
        credibility = 0.5 * credibility + 0.5 * habits.model.credibility(late)
    if obs.announcements.get(obs.answer_to):
        credibility = min(1.0, credibility + 0.2)
    return credibility


def stay_is_better(win: float, stake: int, lives: int, credibility: float) -> bool:
    """Stay when the expected loss staying is below the sure loss folding (stake - 1).

    A credible knocker makes the estimate too rosy, more knocks may follow, and losing with
    the last lives on the line ends the rubber: each pushes towards folding."""
    win *= 1.0 - 0.3 * credibility
    stay_loss = (1.0 - win) * (stake + 0.2)
    if lives <= stake:
        stay_loss += (1.0 - win) * 2.0
    return stay_loss <= stake - 1


def knock_threshold(stake: int, lives: int, late: bool) -> float:
    """The chance of the last trick that makes a knock pay: higher as the stake climbs (a knock
    war costs the loser dearly) and when the new stake would risk half the lives left."""
    need = (0.75 if late else 0.88) + 0.08 * (stake - 1)
    if 2 * (stake + 1) > lives:
        need = max(need, 0.95)
    return min(need, 0.99)


# A habit read (`reads`) is acted on by Normal once it is believed at least this much.
READ: Final = 0.5
# How much lower Normal's knock threshold is when every player still in is read as staying
# only on a high card: she folds anything else, so a good hand need not be a sure one.
HIGH_STAYERS_DISCOUNT: Final = 0.1


def _folds_weak(habits: Habits) -> bool:
    """She is read as staying only on a high card, or her model says she folds without one."""
    if habits.stays_on_high() >= READ:
        return True
    return habits.model.seen() >= SEEN_ENOUGH and habits.model.folds_without_a_top_card()


class Normal(RuleBot):
    """Judges its chance of the last trick from its cards, the cards gone and its position;
    folds to a player read as knocking on the line, and knocks more readily at players read as
    staying only on a high card."""

    level = "normal"
    exchange_bluff = 0.2
    challenge_chance = 0.04
    whistle_chance = 0.5

    def answer(self, obs: Observation) -> Action:
        on_the_line = self.answer_on_the_line(obs)
        if on_the_line is not None:
            return on_the_line
        seat = obs.seat or 0
        win = win_chance(view_of(obs))
        stay = stay_is_better(win, obs.stake, obs.lives[seat], knocker_credibility(self, obs))
        return _find(obs, "stay" if stay else "fold") or obs.legal[0]

    def answer_on_the_line(self, obs: Observation) -> Action | None:
        """The answer to a player believed to knock only on the line: her knock is never a
        bluff, so stay only on a sure last trick. None for any other knocker."""
        knocker = obs.answer_to
        if knocker is None or self.memory.of(obs.players[knocker]).knocks_on_the_line() < READ:
            return None
        return _find(obs, "stay" if sure_of_last_trick(view_of(obs)) else "fold")

    def wants_knock(self, obs: Observation, due: bool) -> bool:
        view = view_of(obs)
        win = win_chance(view)
        lives = obs.lives[obs.seat or 0]
        if not due:
            # Out of turn only when sure: then the timing costs nothing.
            return win >= knock_threshold(obs.stake, lives, late=True) and win >= 0.9
        late = view.tricks_left <= 2
        need = knock_threshold(obs.stake, lives, late)
        if self._among_high_stayers(obs):
            need -= HIGH_STAYERS_DISCOUNT
        if win >= need:
            return obs.knocks[obs.seat or 0] < 2 or win >= 0.99
        if obs.stake == 1 and late and win < 0.25 and lives > 2:
            return self.rng.random() < self.bluff_chance(obs)
        return False

    def _among_high_stayers(self, obs: Observation) -> bool:
        folded = set(obs.folded)
        others = [s for s in range(len(obs.players)) if s != obs.seat and s not in folded]
        return bool(others) and all(_folds_weak(self.memory.of(obs.players[s])) for s in others)

    def bluff_chance(self, obs: Observation) -> float:
        """Bluff more against players who fold a lot, and not into a table of callers."""
        seat = obs.seat
        folded = set(obs.folded)
        rates = [
            self.memory.of(obs.players[s]).fold_rate()
            for s in range(len(obs.players))
            if s != seat and s not in folded
        ]
        if not rates:
            return 0.0
        everyone_folds = 1.0
        for rate in rates:
            everyone_folds *= rate
        # Tame: against beginners who stay on any 10, freer bluffing lost Normal rubbers.
        return min(0.4, 0.02 + 0.5 * everyone_folds)


class Easy(RuleBot):
    """A beginner: reads only how high its cards are, folds often, knocks rarely, and wastes
    high cards on early tricks."""

    level = "easy"
    exchange_clean = 0.6
    challenge_chance = 0.1

    def answer(self, obs: Observation) -> Action:
        # Stays on the first knock with a 10 or a 9 in hand, whatever has been played; as the
        # stake climbs it takes fright and wants a 10 with a 9 or 10 beside it.
        need = 0.65 if obs.stake <= 2 else 0.95
        strong = naive_strength(obs.hand or ()) >= need
        if self.rng.random() < 0.15:
            strong = not strong  # the beginner's misjudgement, either way
        return _find(obs, "stay" if strong else "fold") or obs.legal[0]

    def wants_knock(self, obs: Observation, due: bool) -> bool:
        return due and naive_strength(obs.hand or ()) >= 0.95 and self.rng.random() < 0.25

    def card(self, obs: Observation, plays: list[int]) -> int:
        if self.rng.random() < 0.25:
            return self.rng.choice(plays)
        view: View = view_of(obs)
        if not view.trick and view.tricks_left > 1 and self.rng.random() < 0.4:
            # Leads its highest card to take an early trick, spending its best last card.
            return max(plays, key=lambda card: card & 7)
        if view.trick and view.tricks_left > 1:
            # Takes a trick whenever it can, with its highest card: the classic waste.
            suit = view.trick[0][1] >> 3
            best = max(card for _, card in view.trick if card >> 3 == suit)
            if any(card >> 3 == suit and card > best for card in plays):
                return max(plays)
        return choose_card(view, plays)


class Cautious(RuleBot):
    """Never knocks and folds to every knock (the style the rule sources say never loses)."""

    level = "cautious"

    def answer(self, obs: Observation) -> Action:
        return _find(obs, "fold") or obs.legal[0]


class Reckless(RuleBot):
    """Knocks whenever it may and never folds."""

    level = "reckless"

    def answer(self, obs: Observation) -> Action:
        return _find(obs, "stay") or obs.legal[0]

    def wants_knock(self, obs: Observation, due: bool) -> bool:
        # Without a knock cap two reckless players would knock each other forever: stop where
        # `knock_cap: lives` would have stopped it.
        return obs.stake + 1 <= max(obs.lives[obs.seat or 0], 2)


class Lijntoeper(RuleBot):
    """Knocks only when the last trick is surely hers, counted from the cards she has seen (the
    rule sources' "lijntoeper", who knocks on the line); folds to a knock unless she holds a
    high card: one that nothing left can beat in its suit."""

    level = "lijntoeper"

    def answer(self, obs: Observation) -> Action:
        view = view_of(obs)
        high = sure_of_last_trick(view) or any(sure_top(view, card) for card in view.cards)
        return _find(obs, "stay" if high else "fold") or obs.legal[0]

    def wants_knock(self, obs: Observation, due: bool) -> bool:
        return sure_of_last_trick(view_of(obs))

    def card(self, obs: Observation, plays: list[int]) -> int:
        view = view_of(obs)
        if sure_of_last_trick(view):
            # Play the line: the sure winner on the table, else lead any card (all top).
            winner = sure_winner(view)
            if winner is not None and winner in plays:
                return winner
            if not view.trick:
                return max(plays)
        return choose_card(view, plays)


# The stake a knocker does not go to, and answers by folding: staying there risks a life on
# every knock she made, and more.
KNOCKER_HIGH_STAKE = 4


class Knocker(RuleBot):
    """Knocks early and often on any cards, and stays unless the stake is high."""

    level = "knocker"

    def answer(self, obs: Observation) -> Action:
        stay = obs.stake < KNOCKER_HIGH_STAKE
        return _find(obs, "stay" if stay else "fold") or obs.legal[0]

    def wants_knock(self, obs: Observation, due: bool) -> bool:
        return obs.stake + 1 < KNOCKER_HIGH_STAKE
