"""The opponent model: per player, how her knocks and stays depend on the strength of her cards,
read from the hands she showed, and how Strong weighs its worlds and plays its playouts by it."""

from __future__ import annotations

import dataclasses
import random

import pytest

from games.bots import make_bot
from games.bots.base import Habits, view_of
from games.bots.model import (
    CLASSES,
    PRIOR_KNOCK,
    PRIOR_STAY,
    SEEN_ENOUGH,
    SURE,
    Model,
    strength,
)
from games.bots.reads import shown_moments
from games.bots.rollout import Style, play_out, view_in
from games.bots.strong import Strong
from games.bots.table import play_rubber
from games.bots.world import Knowledge, sample_world
from games.engine import CLASSIC, Action, Hand, observe

from .helpers import random_rules


def test_an_unseen_player_is_the_general_prior() -> None:
    model = Model()
    for late in (False, True):
        for klass in range(CLASSES):
            assert model.knock(late, klass) == pytest.approx(PRIOR_KNOCK[late][klass])
    for stake, row in ((2, 0), (3, 1)):
        for klass in range(CLASSES):
            assert model.stay(stake, klass) == pytest.approx(PRIOR_STAY[row][klass])


def test_the_model_moves_from_the_prior_towards_what_she_showed() -> None:
    model = Model()
    before_weak, before_sure = model.knock(True, 0), model.knock(True, SURE)
    for _ in range(10):
        model.chances[True][SURE] += 1
        model.knocks[True][SURE] += 1
        model.chances[True][0] += 1
    assert model.knock(True, SURE) > 0.8 > before_sure
    assert model.knock(True, 0) < before_weak
    # Stays shown only with a top card, and many folds: she needs a high card to stay.
    for _ in range(8):
        model.stays[False][4] += 1
        model.folds[False] += 2
    assert model.stay(2, 4) > PRIOR_STAY[0][4]
    assert model.stay(2, 0) < PRIOR_STAY[0][0]
    assert model.stay(2, 0) >= 0.002 and model.stay(2, 4) <= 0.998
    # The other stake is not touched.
    assert model.stay(3, 0) == pytest.approx(PRIOR_STAY[1][0])


def _recorded_hand(rng: random.Random, number: int) -> tuple[Hand, dict[int, tuple[str, object]]]:
    """A hand played out by Normal, eager and calling players, with the choice each knock,
    stay and knock chance let go (a card played with no knock of hers in that trick before it,
    unless she knocked last) was, and the view its seat had the moment before, by history index."""
    rules = dataclasses.replace(random_rules(rng), exchange=False, poverty="off")
    n = rng.choice((3, 4))
    hand = Hand.deal(rules, [rules.starting_lives] * n, dealer=number % n, seed=number)
    bots = [make_bot(rng.choice(("normal", "eager", "caller")), seed=s) for s in range(n)]
    seen: dict[int, tuple[str, object]] = {}
    knocked_in_trick: set[int] = set()
    trick_no = 0
    while not hand.complete:
        # The trick the next card goes to.
        if len(hand.tricks) + (hand.current is None) != trick_no:
            trick_no = len(hand.tricks) + (hand.current is None)
            knocked_in_trick = set()
        due = hand.due()
        action = None
        for seat in range(n):
            if seat not in due and hand.legal_actions(seat):
                action = bots[seat].decide(observe(hand, seat), rules)
                if action is not None:
                    break
        if action is None:
            action = bots[due[0]].decide(observe(hand, due[0]), rules)
        assert action is not None
        view = view_of(observe(hand, action.seat))
        if action.act == "knock":
            seen[len(hand.actions)] = ("knock", view)
            knocked_in_trick.add(action.seat)
        elif action.act == "stay":
            seen[len(hand.actions)] = ("stay", view)
        elif (
            action.act == "play"
            and action.seat not in knocked_in_trick
            and action.seat != hand.last_knocker
        ):
            seen[len(hand.actions)] = ("pass", view)
        hand.apply(action)
    return hand, seen


def test_a_pass_is_read_with_the_view_she_had_before_her_card() -> None:
    """Every card a shown player played without knocking in that trick is a knock chance let
    go; the table reconstructs each of her choices with her strength then exactly as her own
    observation held it."""
    rng = random.Random(21)
    counts = {"pass": 0, "knock": 0, "stay": 0}
    for number in range(150):
        hand, seen = _recorded_hand(rng, number)
        obs = observe(hand, None)
        moments = list(shown_moments(obs))
        if not moments:
            continue
        shown = {
            s
            for s in range(hand.n)
            if sum(1 for _, plays, _ in obs.tricks for t, _ in plays if t == s) == 4
        }
        expected = [
            (i, act, view)
            for i, (act, view) in sorted(seen.items())
            if obs.history[i].seat in shown
        ]
        assert len(moments) == len(expected)
        for (seat, act, view, stake), (index, real_act, real) in zip(
            moments, expected, strict=True
        ):
            assert (seat, act) == (obs.history[index].seat, real_act)
            assert sorted(view.cards) == sorted(real.cards)  # type: ignore[attr-defined]
            assert strength(view) == strength(real)  # type: ignore[arg-type]
            assert stake >= 1
            counts[act] += 1
    assert counts["pass"] > 300 and counts["knock"] > 20 and counts["stay"] > 20


def test_the_table_reads_a_careful_player_apart_from_an_eager_one() -> None:
    """Two careful and two eager players for ten rubbers: the watcher's models say the careful
    one stays only with a card that tops its suit, and knocks early less than the eager one."""
    bots = [make_bot(level, seed=s) for s, level in enumerate(("careful", "eager") * 2)]
    for number in range(10):
        play_rubber(CLASSIC, bots, seed=number, dealer=number % 4)
    watcher = bots[2].memory
    careful, eager = watcher.of("P0").model, watcher.of("P1").model
    assert careful.seen() > 50 and eager.seen() > 50
    # Without a top card she folds; with one she stays.
    for klass in (0, 1, 2):
        assert careful.stay(2, klass) < 0.5 * PRIOR_STAY[0][klass]
    assert careful.stay(2, 3) > 0.9 and careful.stay(2, 4) > 0.9
    assert eager.stay(2, 1) > careful.stay(2, 1)
    early = sum(careful.knock_table()[:CLASSES]), sum(eager.knock_table()[:CLASSES])
    assert early[0] < early[1]


def test_worlds_are_weighed_by_how_likely_her_model_makes_her_knock() -> None:
    """Against a player modelled as knocking only on a sure last trick, the worlds where she
    was sure when she knocked carry nearly all the weight; under the prior they do not."""
    rng = random.Random(8)
    line = Model()
    for late in (0, 1):
        for klass in range(CLASSES):
            line.chances[late][klass] += 40
            line.knocks[late][klass] += 40 if klass == SURE else 0
    checked = 0
    for number in range(400):
        hand = Hand.deal(CLASSIC, [15] * 4, dealer=3, seed=number)
        knocker = None
        while not hand.complete:
            seat = hand.due()[0]
            if strength(view_in(hand, seat)) == SURE:
                knocker = seat
                break
            hand.apply(rng.choice([a for a in hand.legal_actions(seat) if a.act == "play"]))
        if knocker is None:
            continue
        hand.apply(Action(knocker, "knock"))
        me = (knocker + 1) % 4
        obs = observe(hand, me)
        shares = []
        for tables in (Model(), line):
            knowledge = Knowledge(
                obs,
                CLASSIC,
                models=lambda s, t=tables: (t.knock_table(), t.stay_table()),
            )
            sure = total = 0.0
            sure_worlds = 0
            for _ in range(100):
                sampled = sample_world(knowledge, rng)
                assert sampled is not None
                past = _before_last(sampled.world)
                total += sampled.weight
                was_sure = strength(view_in(past, knocker)) == SURE
                sure += sampled.weight * was_sure
                sure_worlds += was_sure
            shares.append(sure / total if sure_worlds >= 3 else -1.0)
        if min(shares) < 0.0:
            continue  # too few sure deals drawn to compare
        assert shares[1] > 0.8 and shares[1] > shares[0]
        checked += 1
        if checked == 5:
            break
    assert checked == 5


def _before_last(world: Hand) -> Hand:
    """A fresh copy of `world` as dealt, with all but its last action applied."""
    fresh = Hand(
        world.rules,
        list(world.start_lives),
        world.dealer,
        [list(cards) for cards in world.dealt],
        list(world.initial_stock),
        [seat for seat, immune in enumerate(world.immune) if immune],
        world.players,
    )
    for action in world.actions[:-1]:
        fresh.apply(action)
    return fresh


def test_a_modelled_player_plays_her_model_in_the_playouts() -> None:
    """A player whose model never stays folds to every knock in the playouts; one whose model
    always stays, stays."""
    never = Style(
        "model", "never", stay_chances=(0.0,) * 2 * CLASSES, knock_chances=(0.0,) * 2 * CLASSES
    )
    always = Style(
        "model", "never", stay_chances=(1.0,) * 2 * CLASSES, knock_chances=(0.0,) * 2 * CLASSES
    )
    knocker = Style("always", "always")
    for style, act in ((never, "fold"), (always, "stay")):
        for number in range(20):
            world = Hand.deal(CLASSIC, [15] * 4, dealer=3, seed=number)
            play_out(world, [knocker, style, style, style], random.Random(number))
            answers = {a.act for a in world.actions if a.seat != 0 and a.act in ("stay", "fold")}
            assert answers == {act}


def test_strong_lets_a_player_seen_enough_play_her_model() -> None:
    hand = Hand.deal(CLASSIC, [15] * 4, dealer=3, seed=1)
    obs = observe(hand, 0)
    bot = Strong(seed=1)
    assert {style.answers for style in bot.styles(obs)[1:]} == {"judge"}
    seen = Habits()
    seen.model.chances[0][2] = SEEN_ENOUGH
    bot.memory.habits[obs.players[1]] = seen
    styles = bot.styles(obs)
    assert (styles[1].answers, styles[1].knocks) == ("model", "model")
    assert styles[1].knock_chances == seen.model.knock_table()
    assert styles[2].answers == "judge"
