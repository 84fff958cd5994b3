"""Properties that hold in any legal play under any house rules (hypothesis).

Each example draws a profile, a table (2..8 seats, lives, dealer, immune seats) and a seed, then
plays a random legal hand in which any seat may act at any moment (knocks out of turn included);
a slate hand (rules.md 3.9) likewise, the players saying now and then who took the last trick.
After every action the invariants are checked against the hand itself, not against what the
engine says of it.
"""

from __future__ import annotations

import contextlib
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    TOKENS,
    Action,
    Hand,
    HouseRules,
    IllegalAction,
    Rubber,
    observe,
    replay,
)
from games.engine.actions import (
    ANNOUNCE,
    CHALLENGE,
    EXCHANGE,
    FOLD,
    KNOCK,
    LAST_TRICK,
    PLAY,
    SLATE_CHALLENGE,
    STAY,
)
from games.engine.observe import Observation, public_fields
from games.engine.rules import FIELDS
from tests.visibility import visible_to

ALL_CARDS = frozenset(range(32))


@st.composite
def house_rules(draw: st.DrawFn) -> HouseRules:
    values = {}
    for name, spec in FIELDS.items():
        if spec.choices:
            values[name] = draw(st.sampled_from(spec.choices))
        elif isinstance(spec.default, bool):
            values[name] = draw(st.booleans())
        else:
            assert spec.minimum is not None and spec.maximum is not None
            numbers = st.integers(spec.minimum, spec.maximum)
            values[name] = draw(st.none() | numbers if spec.nullable else numbers)
    # Small lives make poverty, knock caps and players going out common.
    values["starting_lives"] = draw(st.sampled_from([1, 2, 3, 5, 10, 30]))
    # A pot is played last_standing, and buying back in needs a pot (rules.md 3.10).
    if values["end_condition"] != "last_standing":
        values["pot_stake"] = 0
    if not values["pot_stake"]:
        values["buy_back"] = 0
    return HouseRules(**values)


@st.composite
def dealt_hands(draw: st.DrawFn) -> tuple[Hand, int]:
    rules = draw(house_rules())
    n = draw(st.integers(rules.min_players, 8))
    lives = draw(st.lists(st.integers(1, rules.starting_lives), min_size=n, max_size=n))
    dealer = draw(st.integers(0, n - 1))
    immune = draw(st.lists(st.integers(0, n - 1), max_size=2, unique=True))
    seed = draw(st.integers(0, 2**32))
    players = [f"P{seat}" for seat in range(n)]
    hand = Hand.deal(rules, lives, dealer, seed, players=players, immune=immune)
    return hand, draw(st.integers(0, 2**32))


def every_action(seat: int, n: int) -> list[Action]:
    """Every action a seat could name, legal or not (a slate hand's own acts included)."""
    return [
        EXCHANGE[seat],
        KNOCK[seat],
        STAY[seat],
        FOLD[seat],
        ANNOUNCE[seat]["whistle"],
        ANNOUNCE[seat]["stand"],
        LAST_TRICK[seat],
        *(CHALLENGE[seat][target] for target in range(n)),
        *(outcome for target in range(n) for outcome in SLATE_CHALLENGE[seat][target]),
        *PLAY[seat],
    ]


def cards_in_play(hand: Hand) -> list[int]:
    cards = list(hand.stock)
    for seat in range(hand.n):
        cards += hand.hands[seat] + hand.laid[seat] + hand.discarded[seat]
    for trick in hand.tricks:
        cards += [card for _, card in trick.plays]
    return cards


def snapshot(hand: Hand) -> str:
    return json.dumps([hand.result(), hand.record()], sort_keys=True)


def random_playout(hand: Hand, rng: random.Random, check_step) -> None:
    steps = 0
    while not hand.complete:
        steps += 1
        assert steps < 400, "a random hand did not end"
        if steps > 60:
            # Knocking can go on (knock_cap none): let only the due seat play cards from here.
            seat = hand.due()[0]
            options = [a for a in hand.legal_actions(seat) if a.act in ("play", "stay", "fold")]
        else:
            seat = rng.randrange(hand.n)
            options = hand.legal_actions(seat)
            if not options:
                continue
        before = hand.copy()
        hand.apply(rng.choice(options))
        check_step(before, hand)


def try_every_action(
    state: Hand, before: str, seat: int, actions: list[Action], legal: set[Action]
) -> None:
    """Each of `actions` (named by `seat`) tried on `state`, whose snapshot is `before`: a
    listed one is accepted, on a copy of its own; every other is refused, and a refusal changes
    nothing. The refused are tried one after another on one copy, which must then still be
    `state` (its snapshot, and what the seat may do): a refusal that changed anything shows
    there, and is named by trying each alone. One snapshot a seat, not one an action: the
    snapshot's JSON was most of the CPU of these properties."""
    refused = []
    unchanged = state.copy()
    for action in actions:
        trial = state.copy() if action in legal else unchanged
        try:
            trial.apply(action)
        except IllegalAction as error:
            assert action not in legal, f"{action} listed as legal but refused: {error}"
            refused.append(action)
        else:
            assert action in legal, f"{action} accepted but not listed as legal"
    if snapshot(unchanged) == before and unchanged.legal_actions(seat) == state.legal_actions(seat):
        return
    for action in refused:  # which one
        trial = state.copy()
        with contextlib.suppress(IllegalAction):
            trial.apply(action)
        assert snapshot(trial) == before, f"refused {action} changed the hand"
        assert trial.legal_actions(seat) == state.legal_actions(seat), f"refused {action}"
    raise AssertionError("the refused actions together changed the hand")


PROPERTY_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@PROPERTY_SETTINGS
@given(dealt_hands())
def test_the_32_cards_are_always_all_accounted_for(case: tuple[Hand, int]) -> None:
    hand, seed = case

    def check(_before: Hand, after: Hand) -> None:
        cards = cards_in_play(after)
        assert len(cards) == 32
        assert set(cards) == ALL_CARDS

    check(hand, hand)
    random_playout(hand, random.Random(seed), check)


@PROPERTY_SETTINGS
@given(dealt_hands())
def test_lives_never_rise_and_never_drop_below_zero(case: tuple[Hand, int]) -> None:
    hand, seed = case

    def check(before: Hand, after: Hand) -> None:
        for seat in range(after.n):
            assert 0 <= after.lives[seat] <= before.lives[seat]
            assert after.lives[seat] + after.lost[seat] == after.start_lives[seat]
            if after.immune[seat]:
                assert after.lost[seat] == 0

    random_playout(hand, random.Random(seed), check)


@PROPERTY_SETTINGS
@given(dealt_hands())
def test_a_player_buying_the_round_makes_no_action_of_her_own(case: tuple[Hand, int]) -> None:
    hand, seed = case

    def check(before: Hand, after: Hand) -> None:
        for seat in range(after.n):
            if not after.immune[seat]:
                continue
            for action in after.legal_actions(seat):
                assert action.auto and action.act in ("play", "stay", "fold"), action
            for action in every_action(seat, after.n):
                if action.act == "last_trick":
                    continue  # a slate's act: who took it is the players' to say (bad_record here)
                trial = after.copy()
                try:
                    trial.apply(action)
                except IllegalAction as error:
                    assert error.code in ("immune", "hand_over"), error
                else:
                    raise AssertionError(f"{action} of a player buying the round was taken")

    random_playout(hand, random.Random(seed), check)
    for action in hand.actions:
        assert action.auto or not hand.immune[action.seat], action


@PROPERTY_SETTINGS
@given(dealt_hands())
def test_every_finished_hand_has_one_winner_or_none_only_when_the_last_trick_winner_folded(
    case: tuple[Hand, int],
) -> None:
    hand, seed = case
    random_playout(hand, random.Random(seed), lambda before, after: None)
    result = hand.result()
    assert result["complete"] is True
    in_hand = [seat for seat in range(hand.n) if seat not in result["folded"]]
    if result["winner"] is None:
        # 3.7: nobody wins only when the winner of the last trick had folded.
        assert len(result["tricks"]) == 4
        assert result["last_trick_winner"] in result["folded"]
        assert hand.rules.folded_card_wins
    else:
        assert result["winner"] in in_hand
        # The winner pays no stake: whatever she lost, she lost in challenges.
        challenges = sum(1 for r in hand.reveals if result["winner"] in (r.challenger, r.target))
        assert result["lives_lost"][result["winner"]] <= challenges
        if len(in_hand) == 1:
            assert result["winner"] == in_hand[0]
        else:
            assert result["last_trick_winner"] == result["winner"]
    assert result["next_dealer"] is not None


@pytest.mark.slow  # every action tried at every step of 60 hands
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dealt_hands())
def test_every_listed_action_is_accepted_and_every_other_is_refused(
    case: tuple[Hand, int],
) -> None:
    hand, seed = case

    def check_all(state: Hand) -> None:
        before = snapshot(state)
        for seat in range(state.n):
            legal = set(state.legal_actions(seat))
            if not state.immune[seat]:
                # The table may make any of a player's own actions for her.
                legal |= {action.as_auto() for action in legal}
            named = every_action(seat, state.n)
            try_every_action(state, before, seat, [*named, *(a.as_auto() for a in named)], legal)

    check_all(hand)
    random_playout(hand, random.Random(seed), lambda before, after: check_all(after))


@PROPERTY_SETTINGS
@given(dealt_hands())
def test_no_observation_ever_holds_a_card_its_seat_may_not_see(case: tuple[Hand, int]) -> None:
    hand, seed = case

    def check(_before: Hand, after: Hand) -> None:
        for seat in [*range(after.n), None]:
            hidden = ALL_CARDS - visible_to(after, seat)
            view = observe(after, seat)
            assert not (view.visible_cards() & hidden)
            text = json.dumps(view.to_json())
            for card in hidden:
                assert f'"{TOKENS[card]}"' not in text, f"seat {seat} was shown {TOKENS[card]}"
            if seat is None:
                assert view.hand is None and view.laid_aside == () and view.legal == ()

    check(hand, hand)
    random_playout(hand, random.Random(seed), check)


@PROPERTY_SETTINGS
@given(dealt_hands())
def test_every_field_of_an_observation_holds_the_value_of_its_name(case: tuple[Hand, int]) -> None:
    """`observe` makes its named tuple from values in the fields' order: each must land in the
    field of its own name, as the tuple made by keyword has it."""
    hand, seed = case

    def check(_before: Hand, after: Hand) -> None:
        public = public_fields(after)
        for seat in [*range(after.n), None]:
            if seat is None:
                own = {"hand": None, "laid_aside": (), "may_announce": (), "legal": ()}
            else:
                own = {
                    "hand": tuple(after.hands[seat]),
                    "laid_aside": tuple(after.laid[seat]),
                    "may_announce": after.may_announce[seat],
                    "legal": tuple(after.legal_actions(seat)),
                }
            by_name = Observation(seat=seat, **own, **public)
            assert observe(after, seat)._asdict() == by_name._asdict()
            assert observe(after, seat, public) == by_name

    check(hand, hand)
    random_playout(hand, random.Random(seed), check)


@PROPERTY_SETTINGS
@given(dealt_hands())
def test_the_record_of_a_played_hand_replays_to_the_same_result(case: tuple[Hand, int]) -> None:
    hand, seed = case
    rng = random.Random(seed)
    stop_after = rng.randrange(0, 40)

    def maybe_check(_before: Hand, after: Hand) -> None:
        if len(after.actions) == stop_after:
            assert replay(json.loads(json.dumps(after.record()))) == after.result()

    random_playout(hand, rng, maybe_check)
    record = json.loads(json.dumps(hand.record()))
    assert replay(record) == hand.result()


# -- slate hands (rules.md 3.9) -------------------------------------------------------------------


@st.composite
def slate_hands(draw: st.DrawFn) -> tuple[Hand, int]:
    rules = draw(house_rules())
    n = draw(st.integers(rules.min_players, 8))
    lives = draw(st.lists(st.integers(1, rules.starting_lives), min_size=n, max_size=n))
    dealer = draw(st.integers(0, n - 1))
    immune = draw(st.lists(st.integers(0, n - 1), max_size=2, unique=True))
    players = [f"P{seat}" for seat in range(n)]
    hand = Hand.slate_hand(rules, lives, dealer, players=players, immune=immune)
    return hand, draw(st.integers(0, 2**32))


def every_slate_action(seat: int, n: int) -> list[Action]:
    """Every action a seat could name at a slate hand, legal or not, of its form or not (one
    card stands for all: a slate hand has none)."""
    return every_action(seat, n)[: -len(PLAY[seat]) + 1]


def random_slate_playout(hand: Hand, rng: random.Random, check_step) -> None:
    """Random legal actions by any seat in any order; the players say who took the last trick
    now and then, so knocks, answers and folds come first."""
    steps = 0
    while not hand.complete:
        steps += 1
        assert steps < 400, "a random slate hand did not end"
        seat = rng.randrange(hand.n)
        options = hand.legal_actions(seat)
        if not options:
            continue
        others = [a for a in options if a.act != "last_trick"]
        if others and steps < 60 and rng.random() < 0.9:
            options = others
        before = hand.copy()
        hand.apply(rng.choice(options))
        check_step(before, hand)


def charged(hand: Hand) -> list[int]:
    """What the rules charge each seat for the hand's actions, worked out afresh from them:
    challenges (3.2), folds on a knock or the poverty stake and voluntary ones (3.3, 3.5), the
    stake at the last trick (3.7); never more than the lives, nothing for the immune."""
    rules = hand.rules
    n = hand.n
    lives = list(hand.start_lives)
    lost = [0] * n
    immune = set(hand.record().get("immune", []))
    poor = [rules.poverty != "off" and life == 1 for life in lives]
    poverty = any(poor) and not all(poor)
    stake = 2 if poverty else 1
    folded: set[int] = set()
    awaiting: set[int] = set()
    laundry = True

    def lose(seat: int, amount: int) -> None:
        if seat not in immune:
            amount = min(amount, lives[seat])
            lives[seat] -= amount
            lost[seat] += amount

    for action in hand.actions:
        seat = action.seat
        if laundry and action.act not in ("exchange", "challenge"):
            laundry = False
            if poverty:
                awaiting = {s for s in range(n) if not poor[s]}
        if action.act == "challenge":
            assert action.target is not None
            if action.clean:
                lose(seat, 1)
            elif rules.dirty_penalty != "open_hand":
                lose(action.target, 1)
        elif action.act == "knock":
            stake += 1
            awaiting = {s for s in range(n) if s != seat and s not in folded}
        elif action.act == "stay":
            awaiting.discard(seat)
        elif action.act == "fold":
            lose(seat, stake - 1 if seat in awaiting else stake)
            awaiting.discard(seat)
            folded.add(seat)
        elif action.act == "last_trick":
            winner = None if seat in folded else seat
            for other in range(n):
                if other != winner and other not in folded:
                    lose(other, stake)
    return lost


@PROPERTY_SETTINGS
@given(slate_hands())
def test_a_slate_hand_charges_the_lives_the_rules_charge(case: tuple[Hand, int]) -> None:
    hand, seed = case

    def check(before: Hand, after: Hand) -> None:
        assert after.lost == charged(after)
        for seat in range(after.n):
            assert 0 <= after.lives[seat] <= before.lives[seat]
            assert after.lives[seat] + after.lost[seat] == after.start_lives[seat]

    random_slate_playout(hand, random.Random(seed), check)


@PROPERTY_SETTINGS
@given(slate_hands())
def test_a_slate_hand_ends_by_its_last_trick_or_by_folds(case: tuple[Hand, int]) -> None:
    hand, seed = case
    random_slate_playout(hand, random.Random(seed), lambda before, after: None)
    result = hand.result()
    assert result["complete"] and result["tricks"] == [] and result["to_play"] is None
    assert result["next_dealer"] is not None
    last = hand.actions[-1]
    in_hand = [seat for seat in range(hand.n) if seat not in result["folded"]]
    if last.act == "last_trick":
        assert result["last_trick_winner"] == last.seat
        if last.seat in result["folded"]:
            assert result["winner"] is None and hand.rules.folded_card_wins
        else:
            assert result["winner"] == last.seat
    else:
        assert last.act == "fold" and in_hand == [result["winner"]]
        assert result["last_trick_winner"] is None


@pytest.mark.slow  # every action tried at every step of 60 hands
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(slate_hands())
def test_a_slate_hand_accepts_every_listed_action_and_refuses_every_other_unchanged(
    case: tuple[Hand, int],
) -> None:
    hand, seed = case

    def check_all(state: Hand) -> None:
        before = snapshot(state)
        for seat in range(state.n):
            legal = set(state.legal_actions(seat))
            try_every_action(state, before, seat, every_slate_action(seat, state.n), legal)

    check_all(hand)
    random_slate_playout(hand, random.Random(seed), lambda before, after: check_all(after))


@PROPERTY_SETTINGS
@given(slate_hands())
def test_the_record_of_a_slate_hand_replays_to_the_same_result(case: tuple[Hand, int]) -> None:
    hand, seed = case
    rng = random.Random(seed)
    stop_after = rng.randrange(0, 20)

    def maybe_check(_before: Hand, after: Hand) -> None:
        if len(after.actions) == stop_after:
            assert replay(json.loads(json.dumps(after.record()))) == after.result()

    random_slate_playout(hand, rng, maybe_check)
    record = json.loads(json.dumps(hand.record()))
    assert record["slate"] is True and "hands" not in record and "stock" not in record
    assert replay(record) == hand.result()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(house_rules(), st.integers(2, 8), st.integers(0, 2**32))
def test_a_slate_rubber_carries_lives_over_and_ends_as_any_rubber(
    rules: HouseRules, n: int, seed: int
) -> None:
    n = max(n, rules.min_players)
    rng = random.Random(seed)
    rubber = Rubber(rules, [f"P{seat}" for seat in range(n)], dealer=rng.randrange(n), slate=True)
    while not rubber.over:
        alive = rubber.alive()
        assert rubber.dealer in alive
        before = list(rubber.lives)
        hand = rubber.deal()
        assert hand.slate and list(rubber.hand_seats) == alive
        random_slate_playout(hand, rng, lambda _before, _after: None)
        outcome = rubber.finish_hand()
        assert sum(outcome.lives_lost.values()) > 0, "every slate hand costs someone a life"
        for seat in range(n):
            assert rubber.lives[seat] == before[seat] - outcome.lives_lost.get(seat, 0)
        assert set(outcome.went_out) == {s for s in alive if rubber.lives[s] == 0}
    if rules.end_condition == "first_out":
        assert rubber.losers and all(rubber.lives[seat] == 0 for seat in rubber.losers)
    elif rubber.winner is not None:
        assert rubber.lives[rubber.winner] > 0
        assert len(rubber.alive()) == 1 or len(rubber.alive()) < rules.min_players
    else:
        assert len(rubber.alive()) != 1
