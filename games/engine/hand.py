"""One hand of Toepen: the state, what each seat may do, and applying it (rules.md section 3).

`Hand` is mutable on purpose: computer players search thousands of hands per decision, so
`apply` changes the hand in place (after validating, so a refused action changes nothing) and
`copy()` branches it. Seats are the hand's own, 0..n-1, every one of them dealt in.

A slate hand (rules.md 3.9) is the same `Hand` without cards: the players hold real ones and
the hand keeps the slate. It shares every rule that does not need a card (the laundry's count,
challenges, poverty, knocks, answers, folds, lives, immunity, the next dealer); what the cards
would decide, the players say: a challenge's outcome, and who took the last trick.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from .actions import (
    ANNOUNCE,
    CHALLENGE,
    EXCHANGE,
    FOLD,
    KNOCK,
    LAST_TRICK,
    PLAY,
    SLATE_CHALLENGE,
    STAY,
    Action,
)
from .cards import JACK, SEVEN, TEN, TOKENS
from .errors import IllegalAction
from .rules import CLASSIC, HouseRules

TRICKS_PER_HAND: Final = 4
CARDS_PER_PLAYER: Final = 4
DECK_SIZE: Final = 32
LAUNDRY_ACTS: Final = frozenset(("exchange", "challenge"))
_SUIT_INDEX: Final = {"C": 0, "D": 1, "H": 2, "S": 3}


class Trick:
    """A trick begun: who led, each card as (seat, card) in the order played, who won it."""

    __slots__ = ("leader", "plays", "winner")

    def __init__(self, leader: int) -> None:
        self.leader = leader
        self.plays: list[tuple[int, int]] = []
        self.winner: int | None = None

    def copy(self) -> Trick:
        trick = Trick(self.leader)
        trick.plays = self.plays.copy()
        trick.winner = self.winner
        return trick

    def to_json(self) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "plays": [[seat, TOKENS[card]] for seat, card in self.plays],
            "winner": self.winner,
        }


class Reveal:
    """A challenge settled: the exchanger's laid-aside cards shown to the table."""

    __slots__ = ("challenger", "target", "cards", "clean")

    def __init__(self, challenger: int, target: int, cards: tuple[int, ...], clean: bool) -> None:
        self.challenger = challenger
        self.target = target
        self.cards = cards
        self.clean = clean

    def to_json(self) -> dict[str, Any]:
        return {
            "challenger": self.challenger,
            "target": self.target,
            "cards": [TOKENS[card] for card in self.cards],
            "clean": self.clean,
        }


def _refuse(code: Any, message: str, reason: str | None = None) -> IllegalAction:
    return IllegalAction(code, message, reason)


# Why a seat may not knock, as reasons (IllegalAction.reason) with the engine's English words.
KNOCK_REASONS = {
    "knocked_last": "you knocked last; someone else must knock before you may again",
    "poor": "a poor player may not knock in this hand",
    "over_lives": "a stake of {stake} is more than your {lives} lives",
    "knock_limit": "you have knocked the {limit} times the rules allow",
}


_CLEAN_WORDS: Final = {True: "clean", False: "not clean"}


def _seat_count(lives: Sequence[int] | None, players: Sequence[str] | None, n: int | None) -> int:
    return n or (len(lives) if lives is not None else len(players or ()) or 4)


class Hand:
    """The state of one hand, from the deal to its end."""

    __slots__ = (
        "rules",
        "slate",
        "in_order",
        "n",
        "players",
        "start_lives",
        "lives",
        "lost",
        "dealer",
        "dealt",
        "initial_stock",
        "immune",
        "hands",
        "stock",
        "laid",
        "discarded",
        "exchanges",
        "challengers",
        "reveals",
        "open_hand",
        "folded",
        "n_in",
        "stake",
        "laundry",
        "poor",
        "poverty",
        "awaiting",
        "answer_to",
        "last_knocker",
        "knocks",
        "tricks",
        "current",
        "next_leader",
        "turn",
        "announcements",
        "may_announce",
        "complete",
        "winner",
        "last_trick_winner",
        "actions",
    )

    def __new__(cls, *args: object, **kwargs: object) -> Hand:
        # A blank hand, for `copy` to fill without running `__init__`: compiled with mypyc
        # (games/compiled.py), a class's instance is made without its `__init__` only here.
        return object.__new__(cls)

    def __init__(
        self,
        rules: HouseRules,
        lives: Sequence[int],
        dealer: int,
        hands: Sequence[Sequence[int]],
        stock: Sequence[int],
        immune: Sequence[int] = (),
        players: Sequence[str] | None = None,
        *,
        slate: bool = False,
    ) -> None:
        n = len(hands)
        self.rules = rules
        self.slate = slate
        # Whether answers are due one by one: under `sequential`, never on a slate (3.9).
        self.in_order = not slate and rules.response_order == "sequential"
        self.n = n
        self.players = list(players) if players is not None else [f"Seat {s}" for s in range(n)]
        self.start_lives = tuple(lives)
        self.lives = list(lives)
        self.lost = [0] * n
        self.dealer = dealer
        self.dealt = tuple(tuple(hand) for hand in hands)
        self.initial_stock = tuple(stock)
        self.immune = [False] * n
        for seat in immune:
            self.immune[seat] = True
        self.hands = [list(hand) for hand in hands]
        self.stock = list(stock)
        # Every card laid aside by each seat, in order; the last four are its latest exchange.
        self.laid: list[list[int]] = [[] for _ in range(n)]
        self.discarded: list[list[int]] = [[] for _ in range(n)]
        self.exchanges = [0] * n
        self.challengers: list[list[int]] = [[] for _ in range(n)]
        self.reveals: list[Reveal] = []
        self.open_hand = [False] * n
        self.folded = [False] * n
        self.n_in = n
        self.laundry = rules.exchange
        self.poor = [False] * n
        self.poverty = False
        if rules.poverty != "off":
            self.poor = [life == 1 for life in lives]
            self.poverty = any(self.poor) and not all(self.poor)
        self.stake = 2 if self.poverty else 1
        self.awaiting: list[int] = []
        self.answer_to: int | None = None
        self.last_knocker: int | None = None
        self.knocks = [0] * n
        self.tricks: list[Trick] = []
        self.current: Trick | None = None
        self.next_leader = (dealer + 1) % n
        if self.poverty and rules.poverty == "stake_two_poor_leads":
            self.next_leader = self._first_poor()
        # A slate hand has no turn: its cards are played at the table, in no order it keeps.
        self.turn: int | None = None if slate else self.next_leader
        self.announcements: dict[int, str] = {}
        self.may_announce: list[tuple[str, ...]] = [()] * n
        self.complete = False
        self.winner: int | None = None
        self.last_trick_winner: int | None = None
        self.actions: list[Action] = []
        if not self.laundry:
            self._close_laundry()

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def deal(
        cls,
        rules: HouseRules = CLASSIC,
        lives: Sequence[int] | None = None,
        dealer: int = 0,
        seed: int | None = None,
        *,
        players: Sequence[str] | None = None,
        n: int | None = None,
        immune: Sequence[int] = (),
    ) -> Hand:
        """Shuffle and deal from `seed` (None: a fresh seed from `secrets`)."""
        if seed is None:
            import secrets

            seed = secrets.randbits(64)
        count = _seat_count(lives, players, n)
        deck = list(range(DECK_SIZE))
        random.Random(seed).shuffle(deck)
        hands = [deck[CARDS_PER_PLAYER * s : CARDS_PER_PLAYER * (s + 1)] for s in range(count)]
        stock = deck[CARDS_PER_PLAYER * count :]
        return cls(
            rules,
            lives if lives is not None else [rules.starting_lives] * count,
            dealer,
            hands,
            stock,
            immune,
            players,
        )

    @classmethod
    def slate_hand(
        cls,
        rules: HouseRules = CLASSIC,
        lives: Sequence[int] | None = None,
        dealer: int = 0,
        *,
        players: Sequence[str] | None = None,
        n: int | None = None,
        immune: Sequence[int] = (),
    ) -> Hand:
        """A hand dealt with real cards, of which the app keeps only the slate (rules.md 3.9)."""
        count = _seat_count(lives, players, n)
        return cls(
            rules,
            lives if lives is not None else [rules.starting_lives] * count,
            dealer,
            [()] * count,
            (),
            immune,
            players,
            slate=True,
        )

    def copy(self) -> Hand:
        """An independent copy to branch from (for search)."""
        other = Hand.__new__(Hand)
        other.rules = self.rules
        other.slate = self.slate
        other.in_order = self.in_order
        other.n = self.n
        other.players = self.players
        other.start_lives = self.start_lives
        other.lives = self.lives.copy()
        other.lost = self.lost.copy()
        other.dealer = self.dealer
        other.dealt = self.dealt
        other.initial_stock = self.initial_stock
        other.immune = self.immune
        other.hands = [hand.copy() for hand in self.hands]
        other.stock = self.stock.copy()
        other.laid = [cards.copy() for cards in self.laid]
        other.discarded = [cards.copy() for cards in self.discarded]
        other.exchanges = self.exchanges.copy()
        other.challengers = [seats.copy() for seats in self.challengers]
        other.reveals = self.reveals.copy()
        other.open_hand = self.open_hand.copy()
        other.folded = self.folded.copy()
        other.n_in = self.n_in
        other.stake = self.stake
        other.laundry = self.laundry
        other.poor = self.poor
        other.poverty = self.poverty
        other.awaiting = self.awaiting.copy()
        other.answer_to = self.answer_to
        other.last_knocker = self.last_knocker
        other.knocks = self.knocks.copy()
        other.tricks = [trick.copy() for trick in self.tricks]
        other.current = other.tricks[-1] if self.current is not None else None
        other.next_leader = self.next_leader
        other.turn = self.turn
        other.announcements = self.announcements.copy()
        other.may_announce = self.may_announce.copy()
        other.complete = self.complete
        other.winner = self.winner
        other.last_trick_winner = self.last_trick_winner
        other.actions = self.actions.copy()
        return other

    # -- queries --------------------------------------------------------------------------------

    def _left_of(self, seat: int) -> int:
        """The first seat to the left of `seat` that has not folded."""
        n = self.n
        folded = self.folded
        for step in range(1, n + 1):
            other = (seat + step) % n
            if not folded[other]:
                return other
        raise AssertionError("every seat has folded")

    def _first_poor(self) -> int:
        for step in range(1, self.n + 1):
            seat = (self.dealer + step) % self.n
            if self.poor[seat]:
                return seat
        raise AssertionError("no poor player")

    def _answer_order(self, after: int, skip_poor: bool = False) -> list[int]:
        n = self.n
        folded = self.folded
        poor = self.poor
        order = []
        for step in range(1, n):
            seat = (after + step) % n
            if not folded[seat] and not (skip_poor and poor[seat]):
                order.append(seat)
        return order

    def _next_turn(self) -> int | None:
        """Who plays the next card; None when every player still in has played to the trick
        (and always in a slate hand, which keeps no cards)."""
        if self.slate:
            return None
        current = self.current
        if current is None:
            leader = self.next_leader
            return leader if not self.folded[leader] else self._left_of(leader)
        n = self.n
        folded = self.folded
        seat = current.plays[-1][0]
        leader = current.leader
        while True:
            seat = seat + 1 if seat + 1 < n else 0
            if seat == leader:
                return None
            if not folded[seat]:
                return seat

    @property
    def to_play(self) -> int | None:
        return None if self.complete else self.turn

    @property
    def stock_count(self) -> int:
        """The cards in the stock. A slate hand counts them: the real stock holds what the deal
        left, less four for every exchange (rules.md 3.2, 3.9)."""
        if self.slate:
            return DECK_SIZE - CARDS_PER_PLAYER * (self.n + sum(self.exchanges))
        return len(self.stock)

    def next_dealer(self) -> int | None:
        """Who deals next (3.7): the winner, else the winner of the last trick, skipping the out."""
        if not self.complete:
            return None
        dealer = self.winner if self.winner is not None else self.last_trick_winner
        if dealer is None:  # pragma: no cover - a complete hand has one or the other
            raise AssertionError("a complete hand without a winner or a last trick")
        if self.lives[dealer] == 0 and self.rules.end_condition == "last_standing":
            alive = [seat for seat in range(self.n) if self.lives[seat] > 0]
            if len(alive) >= 2:
                for step in range(1, self.n):
                    seat = (dealer + step) % self.n
                    if self.lives[seat] > 0:
                        return seat
        return dealer

    def _knock_problem(self, seat: int) -> str | None:
        """Why `seat` may not knock now (a KNOCK_REASONS key), or None (folded and awaited
        answers aside)."""
        if self.last_knocker == seat:
            return "knocked_last"
        if self.poverty and self.poor[seat]:
            return "poor"
        if self.rules.knock_cap == "lives" and self.stake + 1 > self.lives[seat]:
            return "over_lives"
        limit = self.rules.max_knocks_per_player
        if limit is not None and self.knocks[seat] >= limit:
            return "knock_limit"
        return None

    def after_laundry(self) -> Hand:
        """The hand as it is once its laundry is over (the first other action ends it): what
        it then awaits (the poverty answers) and the announcements it then makes. A copy: the
        record has no action that closes the laundry by itself."""
        other = self.copy()
        if other.laundry:
            other._close_laundry()
        return other

    def verify(self, action: Action) -> None:
        """Raise the IllegalAction that `apply(action)` would raise, changing nothing."""
        self.copy().apply(action)

    def knock_refusal(self, seat: int) -> IllegalAction | None:
        """The IllegalAction `apply` of a knock by `seat` would raise now, or None: `verify`
        for a knock without copying the hand (a live view asks it for every phone), but in
        the laundry, which the knock would end first."""
        refusal = self._unplayable(seat) or self._immune_problem(seat, "knock", False)
        if refusal is not None:
            return refusal
        if self.laundry:
            return self.after_laundry()._knock_refusal(seat)
        return self._knock_refusal(seat)

    def _unplayable(self, seat: int) -> IllegalAction | None:
        """Why the hand takes no action from `seat` at all now, or None."""
        if self.complete:
            return _refuse("hand_over", "the hand is over")
        if not 0 <= seat < self.n:
            return _refuse("not_your_turn", f"there is no seat {seat} in this hand")
        return None

    def _immune_problem(self, seat: int, act: str, auto: bool) -> IllegalAction | None:
        """Why a seat buying the round (rules.md 3.8) may not take `act` (`auto`: the table's
        for her), or None: she makes no action of her own in the hand; the table answers for
        her and plays her cards, nothing else. Who took a slate's last trick is the players'
        to say, of any seat."""
        if not self.immune[seat] or act == "last_trick":
            return None
        if not auto:
            return _refuse(
                "immune", "the table plays for a player buying the round", "buying_round"
            )
        if act == "play" or (act in ("stay", "fold") and seat in self.awaiting):
            return None
        return _refuse("immune", f"the table makes no {act} for a player buying the round")

    def _announce_problem(self, seat: int, kind: str) -> str | None:
        if not self.rules.announcements:
            return "announcements are off"
        if self.tricks and self.tricks[0].winner is not None:
            return "announcements are over once the first trick is complete"
        if seat in self.announcements:
            return "you have already announced"
        if kind not in self.may_announce[seat]:
            return f"you may not {kind}"
        return None

    def _exchange_problem(self, seat: int) -> str | None:
        if not self.rules.exchange:
            return "the rules have no laundry"
        if not self.laundry:
            return "the laundry is over"
        if self.exchanges[seat] >= self.rules.exchange_limit:
            return f"you may exchange at most {self.rules.exchange_limit} times a hand"
        if self.stock_count < CARDS_PER_PLAYER:
            return "the stock holds fewer than 4 cards"
        return None

    def _challenge_problem(self, seat: int, target: int, clean: bool | None = None) -> str | None:
        if not self.rules.exchange or not self.laundry:
            return "challenges are over"
        if target == seat:
            return "you cannot challenge your own exchange"
        if not 0 <= target < self.n:
            return f"there is no seat {target}"
        if self.exchanges[target] == 0:
            return f"seat {target} has not exchanged"
        challengers = self.challengers[target]
        if self.rules.challenge_scoring == "single":
            if challengers:
                return f"seat {target}'s exchange was already challenged"
        elif seat in challengers:
            return f"you already challenged seat {target}'s exchange"
        if challengers and clean is not None:
            # A slate challenge after the first of the same exchange saw the same cards.
            shown = next(r.clean for r in reversed(self.reveals) if r.target == target)
            if clean != shown:
                return f"seat {target}'s laid-aside cards were shown {_CLEAN_WORDS[shown]}"
        return None

    def _playable(self, seat: int) -> list[int]:
        hand = self.hands[seat]
        current = self.current
        if current is None or not current.plays:
            return hand
        suit = current.plays[0][1] >> 3
        follow = [card for card in hand if card >> 3 == suit]
        return follow or hand

    # -- legal actions --------------------------------------------------------------------------

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action `seat` may take now, in turn or not (answers and knocks included).

        A seat buying the round (`immune`, rules.md 3.8) makes no action of her own: hers are
        the table's answers and cards for her, each `auto`, and on a slate who took the last
        trick, which the players say."""
        if self.complete:
            return []
        legal = self._legal(seat)
        if not self.immune[seat]:
            return legal
        # An answer is due when staying is legal: only then is a fold the table's to make.
        answering = STAY[seat] in legal
        return [
            action if action.act == "last_trick" else action.as_auto()
            for action in legal
            if action.act in ("play", "last_trick")
            or (answering and action.act in ("stay", "fold"))
        ]

    def _legal(self, seat: int) -> list[Action]:
        """`legal_actions` as the hand's rules alone have them, for any seat."""
        if not self.laundry:
            return self._legal_after_laundry(seat)
        legal: list[Action] = []
        if self._exchange_problem(seat) is None:
            legal.append(EXCHANGE[seat])
        for target in range(self.n):
            if not self.slate:
                if self._challenge_problem(seat, target) is None:
                    legal.append(CHALLENGE[seat][target])
                continue
            for outcome in SLATE_CHALLENGE[seat][target]:
                if self._challenge_problem(seat, target, outcome.clean) is None:
                    legal.append(outcome)
        # Any other action ends the laundry first: judge it as the hand would be then.
        self._close_laundry()
        try:
            legal.extend(self._legal_after_laundry(seat))
        finally:
            self._reopen_laundry()
        return legal

    def _legal_after_laundry(self, seat: int) -> list[Action]:
        if self.folded[seat]:
            if self.slate and not self.awaiting and self.rules.folded_card_wins:
                # Her card, played before she folded, may have taken the last trick (3.7).
                return [LAST_TRICK[seat]]
            return []
        awaiting = self.awaiting
        if awaiting:
            if seat in awaiting and (awaiting[0] == seat or not self.in_order):
                return [STAY[seat], FOLD[seat]]
            return []
        legal: list[Action] = []
        if self.turn == seat:
            plays = PLAY[seat]
            legal = [plays[card] for card in self._playable(seat)]
        if self._knock_problem(seat) is None:
            legal.append(KNOCK[seat])
        if self.rules.voluntary_fold and self.last_knocker != seat:
            legal.append(FOLD[seat])
        if self.may_announce[seat]:
            for kind in self.may_announce[seat]:
                if self._announce_problem(seat, kind) is None:
                    legal.append(ANNOUNCE[seat][kind])
        if self.slate:
            legal.append(LAST_TRICK[seat])
        return legal

    def due(self) -> list[int]:
        """The seats the hand is waiting for: answers due, else the seat to play."""
        if self.complete:
            return []
        if self.awaiting:
            if self.in_order:
                return self.awaiting[:1]
            return self.awaiting.copy()
        if self.laundry and self.poverty:
            # The poverty answers fall due the moment the laundry ends.
            order = self._answer_order(self._first_poor(), skip_poor=True)
            return order if self.slate else order[:1]
        # A slate hand waits for nobody in particular: its end is said by the players.
        return [] if self.turn is None else [self.turn]

    # -- applying -------------------------------------------------------------------------------

    def apply(self, action: Action) -> Hand:
        """Apply a legal action in place, or raise IllegalAction and change nothing."""
        seat = action.seat
        refusal = self._unplayable(seat)
        if refusal is not None:
            raise refusal
        act = action.act
        if self.laundry and act not in LAUNDRY_ACTS:
            self._close_laundry()
            try:
                self._check_immune(seat, action)
                self._dispatch(act, seat, action)
            except IllegalAction:
                self._reopen_laundry()
                raise
        else:
            self._check_immune(seat, action)
            self._dispatch(act, seat, action)
        self.actions.append(action)
        return self

    def _check_immune(self, seat: int, action: Action) -> None:
        # After the laundry's close: a poverty answer the close makes due may be the table's.
        refusal = self._immune_problem(seat, action.act, action.auto)
        if refusal is not None:
            raise refusal

    def _dispatch(self, act: str, seat: int, action: Action) -> None:
        if self.slate and act in ("play", "announce"):
            raise _refuse("bad_record", f"a slate hand has no {act}: its cards are real")
        if act == "play":
            self._play(seat, action.card)
        elif act == "stay":
            self._stay(seat)
        elif act == "fold":
            self._fold(seat)
        elif act == "knock":
            self._knock(seat)
        elif act == "exchange":
            self._exchange(seat)
        elif act == "challenge":
            self._challenge(seat, action.target, action.clean)
        elif act == "announce":
            self._announce(seat, action.kind)
        elif act == "last_trick" and self.slate:
            self._last_trick(seat)
        else:
            raise _refuse("bad_record", f"unknown action {act!r}")

    def _play(self, seat: int, card: int | None) -> None:
        if self.folded[seat]:
            raise _refuse("folded", "you have folded")
        if self.awaiting:
            raise _refuse("answers_awaited", "answers to the knock are due first")
        if self.turn != seat:
            raise _refuse("not_your_turn", "it is not your turn to play")
        hand = self.hands[seat]
        if card is None or card not in hand:
            token = TOKENS[card] if card is not None else "that card"
            raise _refuse("card_not_in_hand", f"you do not hold {token}")
        current = self.current
        if current is None:
            current = self.current = Trick(seat)
            self.tricks.append(current)
        elif card >> 3 != current.plays[0][1] >> 3:
            suit = current.plays[0][1] >> 3
            for held in hand:
                if held >> 3 == suit:
                    raise _refuse("must_follow_suit", "you must follow suit")
        hand.remove(card)
        current.plays.append((seat, card))
        self._advance()

    def _stay(self, seat: int) -> None:
        if self.folded[seat]:
            raise _refuse("folded", "you have folded")
        self._check_answer(seat)
        self.awaiting.remove(seat)
        if not self.awaiting:
            self._answers_done()

    def _check_answer(self, seat: int) -> None:
        awaiting = self.awaiting
        if seat not in awaiting:
            raise _refuse("not_awaited", "no answer is due from you")
        if awaiting[0] != seat and self.in_order:
            # The record's code; the reason, what a player is told, is the answers before hers.
            raise _refuse(
                "not_your_turn", f"seat {awaiting[0]} answers before you", "answers_awaited"
            )

    def _fold(self, seat: int) -> None:
        if self.folded[seat]:
            raise _refuse("folded", "you have already folded")
        if self.awaiting:
            if seat not in self.awaiting:
                if seat == self.answer_to:
                    raise _refuse("cannot_fold", "you cannot fold on your own knock")
                # A fold meant before the knock came (or after her own answer): what stands
                # in its way is the others' answers.
                raise _refuse(
                    "not_awaited", "answers to the knock are due first", "answers_awaited"
                )
            self._check_answer(seat)
            self.awaiting.remove(seat)
            # Folding on a knock costs the stake before it (1 on the poverty stake).
            self._lose(seat, self.stake - 1)
            self._fold_out(seat)
            if not self.complete and not self.awaiting:
                self._answers_done()
            return
        if not self.rules.voluntary_fold:
            raise _refuse("cannot_fold", "the rules have no voluntary fold")
        if self.last_knocker == seat:
            raise _refuse("cannot_fold", "the last knocker cannot fold")
        self._lose(seat, self.stake)
        self._fold_out(seat)
        if not self.complete:
            self._advance()

    def _fold_out(self, seat: int) -> None:
        self.folded[seat] = True
        self.discarded[seat].extend(self.hands[seat])
        self.hands[seat] = []
        self.n_in -= 1
        if self.n_in == 1:
            self._finish(self._left_of(seat))
        else:
            self.turn = self._next_turn()

    def _knock_refusal(self, seat: int) -> IllegalAction | None:
        if self.folded[seat]:
            return _refuse("folded", "you have folded")
        if self.awaiting:
            return _refuse("answers_awaited", "answers to the last knock are due first")
        problem = self._knock_problem(seat)
        if problem is not None:
            message = KNOCK_REASONS[problem].format(
                stake=self.stake + 1,
                lives=self.lives[seat],
                limit=self.rules.max_knocks_per_player,
            )
            return _refuse("cannot_knock", message, problem)
        return None

    def _knock(self, seat: int) -> None:
        refusal = self._knock_refusal(seat)
        if refusal is not None:
            raise refusal
        self.stake += 1
        self.knocks[seat] += 1
        self.last_knocker = seat
        self.answer_to = seat
        self.awaiting = self._answer_order(seat)

    def _exchange(self, seat: int) -> None:
        problem = self._exchange_problem(seat)
        if problem is not None:
            raise _refuse("cannot_exchange", problem)
        self.laid[seat].extend(self.hands[seat])
        self.hands[seat] = self.stock[:CARDS_PER_PLAYER]
        del self.stock[:CARDS_PER_PLAYER]
        self.exchanges[seat] += 1
        self.challengers[seat] = []

    def _challenge(self, seat: int, target: int | None, said: bool | None = None) -> None:
        if (said is None) == self.slate:
            # The outcome is the cards' to show, or on a slate the players' to say.
            if self.slate:
                raise _refuse("bad_record", "a slate challenge says whether the cards were clean")
            raise _refuse("bad_record", "the cards show whether they were clean")
        if target is None:
            raise _refuse("cannot_challenge", "a challenge names its target")
        problem = self._challenge_problem(seat, target, said)
        if problem is not None:
            raise _refuse("cannot_challenge", problem)
        self.challengers[target].append(seat)
        cards = tuple(self.laid[target][-CARDS_PER_PLAYER:])
        sevens = sum(1 for card in cards if card & 7 == SEVEN)
        numbers = sum(1 for card in cards if card & 7 >= SEVEN)
        if said is not None:
            clean = said
        elif self.rules.clean_hand == "four_face":
            clean = numbers == 0
        else:
            clean = numbers == sevens and sevens <= 1
        self.reveals.append(Reveal(seat, target, cards, clean))
        if clean:
            self._lose(seat, 1)
            return
        penalty = self.rules.dirty_penalty
        if penalty != "open_hand":
            self._lose(target, 1)
        if penalty != "life":
            self.open_hand[target] = True

    def _announce(self, seat: int, kind: str | None) -> None:
        if self.folded[seat]:
            raise _refuse("folded", "you have folded")
        if self.awaiting:
            raise _refuse("answers_awaited", "answers to the knock are due first")
        problem = self._announce_problem(seat, kind or "")
        if problem is not None:
            raise _refuse("cannot_announce", problem)
        assert kind is not None
        self.announcements[seat] = kind

    def _last_trick(self, seat: int) -> None:
        if self.awaiting:
            raise _refuse("answers_awaited", "answers to the knock are due first")
        if self.folded[seat] and not self.rules.folded_card_wins:
            raise _refuse("cannot_end", "a player who has folded cannot take the last trick")
        self.last_trick_winner = seat
        # Her card may have won it after she folded: then nobody wins (3.7).
        self._finish(None if self.folded[seat] else seat)

    # -- transitions ----------------------------------------------------------------------------

    def _close_laundry(self) -> None:
        self.laundry = False
        if self.rules.announcements:
            for seat in range(self.n):
                hand = self.hands[seat]
                tens = sum(1 for card in hand if card & 7 == TEN)
                jacks = sum(1 for card in hand if card & 7 == JACK)
                if tens == 4:
                    self.announcements[seat] = "stand"
                elif tens == 3:
                    self.announcements[seat] = "whistle"
                elif jacks == 4:
                    self.may_announce[seat] = ("whistle", "stand")
                elif jacks == 3:
                    self.may_announce[seat] = ("whistle",)
        if self.poverty:
            self.awaiting = self._answer_order(self._first_poor(), skip_poor=True)
            self.answer_to = None

    def _reopen_laundry(self) -> None:
        self.laundry = True
        self.announcements.clear()
        self.may_announce = [()] * self.n
        self.awaiting = []
        self.answer_to = None

    def _answers_done(self) -> None:
        self.answer_to = None
        self._advance()

    def _advance(self) -> None:
        """After a card or a fold: settle the trick once everyone still in has played to it."""
        if self.slate:
            return
        turn = self.turn = self._next_turn()
        if turn is None and not self.awaiting:
            self._decide_trick()

    def _decide_trick(self) -> None:
        current = self.current
        assert current is not None
        plays = current.plays
        suit = plays[0][1] >> 3
        if self.rules.folded_card_wins:
            counted = plays
        else:
            folded = self.folded
            counted = [play for play in plays if not folded[play[0]]]
            if not any(card >> 3 == suit for _, card in counted):
                present = {card >> 3 for _, card in counted}
                order: str = self.rules.suit_order  # (mypyc fails to iterate a Literal)
                suit = next(_SUIT_INDEX[s] for s in order if _SUIT_INDEX[s] in present)
        best_seat = -1
        best_card = -1
        for seat, card in counted:
            if card >> 3 == suit and card > best_card:
                best_seat, best_card = seat, card
        current.winner = best_seat
        self.current = None
        if len(self.tricks) == TRICKS_PER_HAND:
            self.last_trick_winner = best_seat
            self._finish(None if self.folded[best_seat] else best_seat)
            return
        self.next_leader = best_seat
        self.turn = self._next_turn()

    def _finish(self, winner: int | None) -> None:
        """End the hand: everyone still in but the winner pays the stake."""
        self.complete = True
        self.winner = winner
        self.awaiting = []
        self.answer_to = None
        self.turn = None
        if self.last_trick_winner is not None:
            for seat in range(self.n):
                if seat != winner and not self.folded[seat]:
                    self._lose(seat, self.stake)

    def _lose(self, seat: int, amount: int) -> None:
        if self.immune[seat]:
            return
        amount = min(amount, self.lives[seat])
        self.lives[seat] -= amount
        self.lost[seat] += amount

    # -- reading out ----------------------------------------------------------------------------

    def result(self) -> dict[str, Any]:
        """The `toepen-result/1` object for the hand as it stands (without `error`)."""
        return {
            "format": "toepen-result/1",
            "complete": self.complete,
            "winner": self.winner,
            "last_trick_winner": self.last_trick_winner,
            "stake": self.stake,
            "lives_lost": self.lost.copy(),
            "lives": self.lives.copy(),
            "folded": [seat for seat in range(self.n) if self.folded[seat]],
            "out": [seat for seat in range(self.n) if self.lives[seat] == 0],
            "next_dealer": self.next_dealer(),
            "to_play": self.to_play,
            "awaiting": self.awaiting.copy(),
            "announcements": {str(seat): kind for seat, kind in sorted(self.announcements.items())},
            "tricks": [trick.to_json() for trick in self.tricks],
            "error": None,
        }

    def record(self) -> dict[str, Any]:
        """The `toepen-hand/1` record of this hand so far."""
        record: dict[str, Any] = {
            "format": "toepen-hand/1",
            "rules": self.rules.changes(),
            "players": list(self.players),
            "lives": list(self.start_lives),
            "dealer": self.dealer,
        }
        if self.slate:
            record["slate"] = True
        else:
            record["hands"] = [[TOKENS[card] for card in hand] for hand in self.dealt]
            record["stock"] = [TOKENS[card] for card in self.initial_stock]
        immune = [seat for seat in range(self.n) if self.immune[seat]]
        if immune:
            record["immune"] = immune
        record["actions"] = [action.to_json() for action in self.actions]
        return record
