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
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from games.engine import Hand, HouseRules, IllegalAction, Observation

from .judge import ALL, JACKS, SUIT_BITS, TENS, mask_of

CARDS: Final = 4
FACES: Final = sum(1 << card for card in range(32) if card & 7 < 4)


def _bits(mask: int) -> list[int]:
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


class Knowledge:
    """The fixed facts about the hidden cards for one observation; `sample` deals a world."""

    def __init__(
        self,
        obs: Observation,
        rules: HouseRules,
        clean_belief: Callable[[int], float] | None = None,
        knock_belief: Callable[[int], float] | None = None,
        stay_belief: Callable[[int], float] | None = None,
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
        self.weights = self._belief_weights(knock_belief, stay_belief)

    def _belief_weights(
        self,
        knock_belief: Callable[[int], float] | None,
        stay_belief: Callable[[int], float] | None,
    ) -> list[tuple[int, float]]:
        """(seat, how much its hand's strength should weigh) for each telling knock or stay."""
        telling: list[tuple[int, float]] = []
        knocked = False
        for action in self.obs.history:
            if action.seat == self.me:
                if action.act == "knock":
                    knocked = True
                continue
            if action.act == "knock":
                knocked = True
                if knock_belief is not None:
                    telling.append((action.seat, knock_belief(action.seat)))
            elif action.act == "stay" and knocked and stay_belief is not None:
                telling.append((action.seat, stay_belief(action.seat)))
        return [(seat, weight) for seat, weight in telling if weight > 0.0]

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

    def sample(self, rng: random.Random) -> tuple[Hand, float] | None:
        """A world consistent with the observation, replayed to now, and its weight."""
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
        try:
            for action in obs.history:
                world.apply(action)
        except IllegalAction:
            return None
        weight = 1.0
        for seat, belief in self.weights:
            weight *= 1.0 - belief + belief * _strength(finals[seat])
        return world, weight


def _strength(cards: list[int]) -> float:
    """How telling a hand is of a knock or a stay: driven by its best card (10 high)."""
    best = max((card & 7 for card in cards), default=0)
    return ((best + 1) / 8.0) ** 3


def sample_world(
    knowledge: Knowledge, rng: random.Random, tries: int = 40
) -> tuple[Hand, float] | None:
    for _ in range(tries):
        sampled = knowledge.sample(rng)
        if sampled is not None:
            return sampled
    return None
