"""Determinization: deal the hidden cards in a way consistent with everything one seat has seen,
and rebuild the whole hand with the engine by replaying the public history onto that deal.

What a seat knows (and so what every sample respects):
- its own cards, the cards it laid aside, the cards it drew (its own exchange block);
- every card played, the cards shown by challenges, open hands;
- voids: a player who did not follow suit holds no card of that suit from then on;
- announcements: a whistle the table made by itself (it is not in `history`) means exactly
  three tens after the laundry, a stand four; every other player has at most two tens; a chosen
  whistle or stand means three or four jacks.
What it may believe, as weights: a player who exchanged usually laid aside a clean hand (drawn
per that player's record), and knocks and stays say a hand is strong, by the player's habits.
A player read as knocking on the line or staying only on a high card (`reads`) is dealt that
habit in a share of the worlds as large as the belief in it; in those worlds her knocks, stays
and folds must fit her cards at the moment she made them (a world where they do not keeps a
weight of `reads.SLIP`, or `LINE_SLIP` for a knock: a sure hand is so rare among the deals that
a larger slip would outweigh them), and the playouts let her play the habit.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final, NamedTuple

from games.engine import Hand, HouseRules, IllegalAction, Observation

from .judge import ALL, JACKS, SUIT_BITS, TENS, mask_of
from .model import CLASSES, strength
from .reads import SLIP, knock_is_sure, stay_is_high, trick_done
from .rollout import view_in

CARDS: Final = 4
FACES: Final = sum(1 << card for card in range(32) if card & 7 < 4)
LINE_SLIP: Final = 0.001


def _bits(mask: int) -> list[int]:
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


# What a knock, stay or fold of another seat says: (history index, seat, act, belief weight).
Telling = tuple[int, int, str, float]
# A player's read habits as beliefs: (knocks on the line, stays only on a high card).
Reads = Callable[[int], tuple[float, float]]
# A player's model (`model.Model`): her knock chances (early classes, then late) and her stay
# chances (at a stake of 2, then above), by strength class.
Tables = tuple[tuple[float, ...], tuple[float, ...]]
# A choice another seat made that her model prices: (seat, act, stake): act "knock", "pass"
# (a card played without a knock in that trick before it), "stay" or "fold".
Choice = tuple[int, str, int]


class Sample(NamedTuple):
    """A world, its weight, and the seats dealt each read habit in it (bit masks)."""

    world: Hand
    weight: float
    line: int = 0
    high: int = 0


class Knowledge:
    """The fixed facts about the hidden cards for one observation; `sample` deals a world."""

    def __init__(
        self,
        obs: Observation,
        rules: HouseRules,
        clean_belief: Callable[[int], float] | None = None,
        knock_belief: Callable[[int], float] | None = None,
        stay_belief: Callable[[int], float] | None = None,
        reads: Reads | None = None,
        models: Callable[[int], Tables | None] | None = None,
    ) -> None:
        me = obs.seat
        assert me is not None and obs.hand is not None
        self.obs = obs
        self.rules = rules
        self.me = me
        n = self.n = len(obs.players)
        played: list[list[int]] = [[] for _ in range(n)]
        void = [0] * n
        for _, plays, _ in obs.tricks:
            led = plays[0][1] >> 3
            for seat, card in plays:
                played[seat].append(card)
                if card >> 3 != led:
                    void[seat] |= SUIT_BITS[led]
        self.played = played
        self.void = void
        self.exchange_order = [action.seat for action in obs.history if action.act == "exchange"]
        # Each seat's successive hands: laid-aside blocks, then the hand it plays. None: hidden.
        blocks: list[list[list[int] | None]] = [[None] * obs.exchanges[s] for s in range(n)]
        count = [0] * n
        reveals = iter(obs.reveals)
        for action in obs.history:
            if action.act == "exchange":
                count[action.seat] += 1
            elif action.act == "challenge" and action.target is not None:
                reveal = next(reveals)
                blocks[action.target][count[action.target] - 1] = list(reveal[2])
        own_laid = list(obs.laid_aside)
        for j in range(obs.exchanges[me]):
            blocks[me][j] = own_laid[CARDS * j : CARDS * (j + 1)]
        self.blocks = blocks
        self.known_now: list[list[int]] = [
            list(obs.open_hands.get(s, ())) if s != me else list(obs.hand) for s in range(n)
        ]
        self.hidden = [
            0 if s == me else CARDS - len(played[s]) - len(self.known_now[s]) for s in range(n)
        ]
        known = obs.visible_cards()
        for seat_blocks in blocks:
            for block in seat_blocks:
                if block is not None:
                    known.update(block)
        self.pool = _bits(ALL & ~mask_of(tuple(known)))
        # Announcement constraints on the hand each seat held when the laundry closed.
        chosen = {action.seat for action in obs.history if action.act == "announce"}
        self.exact_tens: dict[int, int] = {}
        self.min_jacks: dict[int, int] = {}
        self.max_two_tens: list[int] = []
        if rules.announcements and not obs.laundry_open:
            for s in range(n):
                if s == me:
                    continue
                kind = obs.announcements.get(s)
                if kind is not None and s not in chosen:
                    self.exact_tens[s] = 3 if kind == "whistle" else 4
                else:
                    self.max_two_tens.append(s)
                    if kind is not None:
                        self.min_jacks[s] = 3 if kind == "whistle" else 4
        # Fill the most constrained seats first, so a sample rarely runs out of allowed cards.
        self.order = sorted(
            (s for s in range(n) if self.hidden[s] > 0),
            key=lambda s: (s not in self.exact_tens, -void[s].bit_count()),
        )
        self.start_lives = [
            lives + lost for lives, lost in zip(obs.lives, obs.lives_lost, strict=True)
        ]
        self.clean_belief = clean_belief
        self.reads = [reads(s) if reads is not None and s != me else (0.0, 0.0) for s in range(n)]
        self.tables: list[Tables | None] = [
            models(s) if models is not None and s != me else None for s in range(n)
        ]
        self.choices = self._choices()
        if models is not None:
            # The model prices every knock, stay and fold; the beliefs only type the worlds.
            knock_belief = stay_belief = None
        self.telling = self._telling(knock_belief, stay_belief)

    def _choices(self) -> dict[int, Choice]:
        """Each modelled seat's choices so far in the hand, by history index."""
        choices: dict[int, Choice] = {}
        tables = self.tables
        if not any(tables):
            return choices
        knocked = self.obs.poverty
        stake = 2 if knocked else 1
        knocked_in_trick: set[int] = set()
        trick: list[tuple[int, int]] = []
        folded: set[int] = set()
        n = self.n
        last_knocker = -1
        for i, action in enumerate(self.obs.history):
            seat, act = action.seat, action.act
            modelled = tables[seat] is not None
            if act == "knock":
                if modelled:
                    choices[i] = (seat, act, stake)
                knocked = True
                stake += 1
                knocked_in_trick.add(seat)
                last_knocker = seat
            elif act in ("stay", "fold") and knocked:
                if modelled:
                    choices[i] = (seat, act, stake)
            elif act == "play" and action.card is not None:
                if modelled and seat not in knocked_in_trick and seat != last_knocker:
                    choices[i] = (seat, "pass", stake)
                knocked = False
                trick.append((seat, action.card))
            if act == "fold":
                folded.add(seat)
            if trick and trick_done(trick, n, folded):
                trick = []
                knocked_in_trick = set()
        return choices

    def _telling(
        self,
        knock_belief: Callable[[int], float] | None,
        stay_belief: Callable[[int], float] | None,
    ) -> dict[int, Telling]:
        """Each other seat's knock, stay or fold that says something of her cards, by history
        index, with how much her hand's strength should weigh (by her habits)."""
        telling: dict[int, Telling] = {}
        knocked = False
        for i, action in enumerate(self.obs.history):
            seat, act = action.seat, action.act
            if seat == self.me:
                knocked = knocked or act == "knock"
                continue
            line, high = self.reads[seat]
            belief = 0.0
            if act == "knock":
                knocked = True
                belief = knock_belief(seat) if knock_belief is not None else 0.0
                if belief > 0.0 or line > 0.0:
                    telling[i] = (i, seat, act, belief)
            elif act in ("stay", "fold") and knocked:
                if act == "stay" and stay_belief is not None:
                    belief = stay_belief(seat)
                if belief > 0.0 or high > 0.0:
                    telling[i] = (i, seat, act, belief)
        return telling

    def _deal_hidden(self, rng: random.Random, pool: list[int]) -> list[list[int]] | None:
        """Hidden cards per seat, drawn from `pool` (which is shuffled and consumed)."""
        hidden: list[list[int]] = [[] for _ in range(self.n)]
        for s in self.order:
            need = self.hidden[s]
            void = self.void[s]
            allowed = [card for card in pool if not (1 << card) & void]
            exact = self.exact_tens.get(s)
            if exact is not None:
                held_tens = (mask_of(self.played[s] + self.known_now[s]) & TENS).bit_count()
                want = exact - held_tens
                tens = [card for card in allowed if (1 << card) & TENS]
                rest = [card for card in allowed if not (1 << card) & TENS]
                if want < 0 or want > len(tens) or need - want > len(rest):
                    return None
                chosen = tens[:want] + rest[: need - want]
            else:
                if len(allowed) < need:
                    return None
                chosen = allowed[:need]
            hidden[s] = chosen
            taken = set(chosen)
            pool[:] = [card for card in pool if card not in taken]
        return hidden

    def sample(self, rng: random.Random) -> Sample | None:
        """A world consistent with the observation, replayed to now, and its weight."""
        line = high = 0
        for s, (line_belief, high_belief) in enumerate(self.reads):
            if line_belief > 0.0 and rng.random() < line_belief:
                line |= 1 << s
            if high_belief > 0.0 and rng.random() < high_belief:
                high |= 1 << s
        pool = self.pool.copy()
        rng.shuffle(pool)
        blocks = [list(seat_blocks) for seat_blocks in self.blocks]
        if self.clean_belief is not None:
            # Laid-aside blocks: clean as often as that player's exchanges have been.
            for s in range(self.n):
                for j, block in enumerate(blocks[s]):
                    if block is None and rng.random() < self.clean_belief(s):
                        faces = [card for card in pool if (1 << card) & FACES][:CARDS]
                        if len(faces) == CARDS:
                            blocks[s][j] = faces
                            taken = set(faces)
                            pool = [card for card in pool if card not in taken]
        hidden = self._deal_hidden(rng, pool)
        if hidden is None:
            return None
        finals: list[list[int]] = []
        for s in range(self.n):
            final = self.played[s] + self.known_now[s] + hidden[s]
            mask = mask_of(final)
            if s in self.max_two_tens and (mask & TENS).bit_count() > 2:
                return None
            if s in self.min_jacks and (mask & JACKS).bit_count() < self.min_jacks[s]:
                return None
            finals.append(final)
        rest = iter(pool)
        for s in range(self.n):
            for j, block in enumerate(blocks[s]):
                if block is None:
                    blocks[s][j] = [next(rest) for _ in range(CARDS)]
        # The stock: each exchange drew the next four, in the order the exchanges happened.
        drawn = [0] * self.n
        stock: list[int] = []
        for s in self.exchange_order:
            drawn[s] += 1
            later = blocks[s][drawn[s]] if drawn[s] < len(blocks[s]) else finals[s]
            stock.extend(later)  # type: ignore[arg-type]
        stock.extend(rest)
        dealt = [blocks[s][0] if blocks[s] else finals[s] for s in range(self.n)]
        obs = self.obs
        world = Hand(
            self.rules,
            self.start_lives,
            obs.dealer,
            dealt,  # type: ignore[arg-type]
            stock,
            obs.immune,
            obs.players,
        )
        weight = 1.0
        telling = self.telling
        choices = self.choices
        tables = self.tables
        try:
            for i, action in enumerate(obs.history):
                tell = telling.get(i)
                if tell is not None:
                    weight *= _likelihood(world, tell, line, high, finals)
                choice = choices.get(i)
                if choice is not None:
                    seat = choice[0]
                    typed = (line if choice[1] in ("knock", "pass") else high) >> seat & 1
                    seat_tables = tables[seat]
                    if not typed and seat_tables is not None:
                        weight *= _chance(world, choice, seat_tables)
                world.apply(action)
        except IllegalAction:
            return None
        return Sample(world, weight, line, high)


def _likelihood(world: Hand, tell: Telling, line: int, high: int, finals: list[list[int]]) -> float:
    """How well the cards `world` dealt explain one telling choice, the moment before it."""
    _, seat, act, belief = tell
    bit = 1 << seat
    if act == "knock" and line & bit:
        return 1.0 if knock_is_sure(view_in(world, seat)) else LINE_SLIP
    if act != "knock" and high & bit:
        fits = stay_is_high(view_in(world, seat)) == (act == "stay")
        return 1.0 if fits else SLIP
    if act == "fold":
        return 1.0
    return 1.0 - belief + belief * _strength(finals[seat])


def _chance(world: Hand, choice: Choice, tables: Tables) -> float:
    """How likely her model makes one choice, with the cards `world` gave her then."""
    seat, act, stake = choice
    view = view_in(world, seat)
    klass = strength(view)
    if act in ("knock", "pass"):
        late = CLASSES if view.tricks_left <= 2 else 0
        chance = tables[0][late + klass]
        return chance if act == "knock" else 1.0 - chance
    chance = tables[1][(CLASSES if stake > 2 else 0) + klass]
    return chance if act == "stay" else 1.0 - chance


def _strength(cards: list[int]) -> float:
    """How telling a hand is of a knock or a stay: driven by its best card (10 high)."""
    best = max((card & 7 for card in cards), default=0)
    return ((best + 1) / 8.0) ** 3


def sample_world(knowledge: Knowledge, rng: random.Random, tries: int = 40) -> Sample | None:
    for _ in range(tries):
        sampled = knowledge.sample(rng)
        if sampled is not None:
            return sampled
    return None
