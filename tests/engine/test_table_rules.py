"""The live table's own rules (games.engine.table), as properties over random hands (hypothesis).

The table offers a seat exactly what it takes: `allowed` passes `verify`, and every action a
seat could name that is not allowed is refused with a code and a reason. Every step the table
plans by itself is one the engine and the table take.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import Action, Hand, HouseRules, IllegalAction, observe
from games.engine import table as table_rules
from games.engine.rubber import first_dealer
from games.engine.table import LAUNDRY_ACTS, Moment, Pace, Refused, Seat, Step, plan
from tests.engine.test_properties import dealt_hands, every_action, slate_hands

NOW = datetime(2026, 11, 24, 20, 0, tzinfo=UTC)


def walked(hand: Hand, seed: int, steps: int) -> Hand:
    """`hand` after up to `steps` random legal actions by any seat."""
    rng = random.Random(seed)
    for _ in range(steps):
        if hand.complete:
            break
        legal = [a for seat in range(hand.n) for a in hand.legal_actions(seat)]
        if not legal:
            break
        hand.apply(rng.choice(legal))
    return hand


def accepts(hand: Hand, action: Action, in_laundry: bool) -> bool:
    try:
        table_rules.verify(hand, action, in_laundry)
    except Refused as refused:
        assert refused.code and refused.reason and refused.message
        return False
    return True


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(dealt_hands(), st.just(0) | st.integers(0, 40), st.booleans())
def test_a_seat_is_offered_exactly_what_the_table_takes(
    dealt: tuple[Hand, int], steps: int, window: bool
) -> None:
    hand, seed = dealt
    hand = walked(hand, seed, steps)
    in_laundry = window and hand.laundry and not hand.complete
    before = hand.record(), [list(cards) for cards in hand.hands]
    for seat in range(hand.n):
        allowed = table_rules.allowed(hand, seat, in_laundry)
        for action in every_action(seat, hand.n):
            assert accepts(hand, action, in_laundry) == (action in allowed), action
        # Never the laundry outside its window, nothing but the laundry in it.
        assert all((a.act in LAUNDRY_ACTS) == in_laundry for a in allowed)
    assert (
        hand.record(),
        [list(cards) for cards in hand.hands],
    ) == before  # verify changes nothing


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(dealt_hands(), st.just(0) | st.integers(0, 40), st.booleans())
def test_a_knocks_refusal_is_the_one_verify_raises(
    dealt: tuple[Hand, int], steps: int, window: bool
) -> None:
    """`knock_refusal` (what a live view asks for every phone, without a copy) answers as
    `verify` does: the same code, reason and words, or None where verify takes the knock."""
    hand, seed = dealt
    hand = walked(hand, seed, steps)
    in_laundry = window and hand.laundry and not hand.complete
    before = hand.record(), [list(cards) for cards in hand.hands], hand.laundry
    for seat in [*range(hand.n), hand.n]:
        try:
            table_rules.verify(hand, Action(seat, "knock"), in_laundry)
            expected = None
        except Refused as refused:
            expected = (refused.code, refused.reason, refused.message)
        got = table_rules.knock_refusal(hand, seat, in_laundry)
        assert (got and (got.code, got.reason, got.message)) == expected, seat
    assert (hand.record(), [list(cards) for cards in hand.hands], hand.laundry) == before


def moment_of(
    hand: Hand,
    bots: list[bool],
    laundry: bool,
    awaiting_since: bool,
    away: list[str] = (),
    heard: timedelta = timedelta(0),
) -> Moment:
    """A table playing `hand` whose players' phones were last heard `heard` before now (all
    at once: one player's phone alone going quiet makes no difference to the plan), whose last
    change was 200 s ago: every turn clock has run out."""
    return Moment(
        away=[reason if not bot else "" for reason, bot in zip(away, bots, strict=False)],
        hand=hand,
        hand_seats=list(range(hand.n)),
        seats=[Seat(bot=bot, last_seen=NOW - heard, person=not hand.slate) for bot in bots],
        changed_at=NOW - timedelta(seconds=200),
        laundry_until=NOW + timedelta(seconds=5) if laundry else None,
        awaiting_since=NOW - timedelta(seconds=100) if awaiting_since else None,
    )


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    dealt_hands(),
    st.just(0) | st.integers(0, 40),
    st.lists(st.booleans(), min_size=8, max_size=8),
    st.booleans(),
    st.booleans(),
    st.lists(st.sampled_from(["", "", "break", "round"]), min_size=8, max_size=8),
)
def test_every_step_the_table_plans_is_one_the_table_takes(
    dealt: tuple[Hand, int],
    steps: int,
    bots: list[bool],
    laundry: bool,
    since: bool,
    away: list[str],
) -> None:
    hand, seed = dealt
    hand = walked(hand, seed, steps)
    moment = moment_of(hand, bots[: hand.n], laundry and hand.laundry, since, away[: hand.n])
    in_laundry = table_rules.laundry_open(hand, moment.laundry_until, NOW)
    planned = table_rules.plan(moment, Pace(), NOW)
    # With a person at the table, her phone's grace ends in a pause unless she is heard again.
    people = [s for s in range(hand.n) if not bots[s]]
    if people and all(moment.is_away(s) for s in people):
        # Nobody at the table: it pauses at once, and plays for none of them.
        bot_at = moment.changed_at + timedelta(seconds=Pace().bot)
        assert planned == [Step(bot_at, "pause")]
        return
    if people:
        assert planned[-1] == Step(NOW + timedelta(seconds=Pace().grace), "pause")
        assert all(step.when < planned[-1].when for step in planned[:-1])
        planned = planned[:-1]
    if hand.complete:
        assert [step.kind for step in planned] == ["deal"]
        return
    assert planned, "a hand under way always has something the table will do"
    # Once the window is closed the hand is as its first action will leave the laundry: the
    # poverty answers it then awaits are due.
    settled = hand.after_laundry() if hand.laundry and not in_laundry else hand
    for step in planned:
        assert step.kind in table_rules.STEP_KINDS
        if step.kind in ("auto", "bot"):
            # The table plays for the due seat: what it plays is always taken.
            assert step.seat in settled.due()
            observation = observe(hand, step.seat)
            # Hers, and for a player buying the round the table's (auto), which no phone offers.
            allowed = [
                action
                for action in hand.legal_actions(step.seat)
                if (action.act in table_rules.LAUNDRY_ACTS) == in_laundry
            ]
            assert allowed, "a due seat always has something to do"
            offered = table_rules.allowed(hand, step.seat, in_laundry)
            assert offered == ([] if hand.immune[step.seat] else allowed)
            choice = table_rules.auto_action(observation._replace(legal=tuple(allowed)))
            assert accepts(hand, choice, in_laundry)
            if any(a.act == "stay" for a in allowed):
                assert choice.act == "fold"  # an answer due: the table folds for her
        elif step.kind == "close_answers":
            assert settled.awaiting and hand.rules.response_order == "simultaneous"
            for seat in settled.awaiting:
                assert accepts(hand, Action(seat, "stay", auto=True), in_laundry)
        elif step.kind == "bot_laundry":
            assert in_laundry and bots[step.seat]
        elif step.kind == "bot_offer":
            assert not in_laundry and bots[step.seat] and not hand.folded[step.seat]
            assert step.seat not in settled.due()
    due = table_rules.due_step(planned, NOW + timedelta(hours=1))
    assert due is not None and due.when == table_rules.next_deadline(planned)
    # A player who is away is played for at a computer player's pace, never left to her clock.
    bot_at = moment.changed_at + timedelta(seconds=Pace().bot)
    for seat in settled.due() if not in_laundry else ():
        if moment.is_away(seat):
            assert Step(bot_at, "auto", seat) in planned, (seat, planned)


def test_the_table_plays_the_lowest_card_and_between_equal_ranks_clubs_first() -> None:
    from games.engine import card_from_token

    def playing(*tokens: str) -> Action:
        legal = tuple(Action(0, "play", card=card_from_token(t)) for t in tokens)
        hand = Hand.deal(HouseRules(), [10, 10, 10], 0, 1)
        observation = observe(hand, 0)._replace(legal=legal, awaiting=())
        return table_rules.auto_action(observation)

    assert playing("KH", "JS", "10C").card == card_from_token("JS")
    assert playing("7S", "7D", "9C").card == card_from_token("7D")
    assert playing("JS", "JH", "JD", "JC").card == card_from_token("JC")


def test_on_a_knock_the_table_folds_for_a_player_who_is_away() -> None:
    hand = Hand.deal(HouseRules(), [10, 10, 10], 0, 5)
    knocker = next(s for s in range(3) if Action(s, "knock") in hand.legal_actions(s))
    hand.apply(Action(knocker, "knock"))
    answering = hand.due()[0]
    choice = table_rules.auto_action(observe(hand, answering))
    assert choice == Action(answering, "fold")


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    slate_hands(),
    st.integers(0, 12),
    st.lists(st.booleans(), min_size=8, max_size=8),
    st.lists(st.sampled_from(["", "", "break", "round"]), min_size=8, max_size=8),
)
def test_at_a_slate_hand_the_table_only_folds_for_an_away_player_whose_answer_is_due(
    slate: tuple[Hand, int], steps: int, bots: list[bool], away: list[str]
) -> None:
    hand, seed = slate
    hand = walked(hand, seed, steps)
    moment = moment_of(hand, bots[: hand.n], False, True, away[: hand.n])
    planned = table_rules.plan(moment, Pace(), NOW)
    if hand.complete:
        assert planned == []  # a keeper opens the next hand, once she has seen this one's end
        return
    settled = hand.after_laundry() if hand.laundry else hand
    # Real cards: no computer player, no turn clock, no answer window; every answer is awaited
    # until given, but for a player who is away.
    bot_at = moment.changed_at + timedelta(seconds=Pace().bot)
    assert planned == [Step(bot_at, "auto", s) for s in settled.due() if moment.is_away(s)]
    for step in planned:
        choice = table_rules.auto_action(observe(settled, step.seat))
        # A player buying the round (immune) has only the table's actions, already `auto`.
        assert choice._replace(auto=False) == Action(step.seat, "fold")
        assert accepts(hand, choice.as_auto(), False)


def test_the_table_never_folds_of_her_own_accord_nor_ends_a_slate_hand_for_her() -> None:
    hand = Hand.slate_hand(HouseRules(voluntary_fold=True), [10, 10, 10], 0)
    legal = observe(hand, 1).legal
    assert Action(1, "fold") in legal and Action(1, "last_trick") in legal
    with pytest.raises(ValueError):
        table_rules.auto_action(observe(hand, 1))


@pytest.mark.parametrize(
    ("rules", "reason", "under_way", "bought", "code"),
    [
        (HouseRules(), "break", True, True, None),
        (HouseRules(), "round", False, False, None),
        (HouseRules(), "round", True, False, "not_between_hands"),
        (HouseRules(), "round", False, True, "round_bought"),
        (HouseRules(away_conventions=False), "break", False, False, "no_away"),
        (HouseRules(), "nap", False, False, "bad_action"),
    ],
)
def test_who_may_go_away_and_when(
    rules: HouseRules, reason: str, under_way: bool, bought: bool, code: str | None
) -> None:
    if code is None:
        table_rules.check_away(rules, reason, under_way, bought)
        return
    with pytest.raises(Refused) as refused:
        table_rules.check_away(rules, reason, under_way, bought)
    assert refused.value.code == code


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    dealt_hands(),
    st.integers(0, 40),
    st.lists(st.booleans(), min_size=8, max_size=8),
    st.integers(0, 400),
)
def test_a_table_nobody_is_at_pauses_before_it_would_play_for_them(
    dealt: tuple[Hand, int], steps: int, bots: list[bool], quiet: int
) -> None:
    hand, seed = dealt
    hand = walked(hand, seed, steps)
    moment = moment_of(hand, bots[: hand.n], False, True, heard=timedelta(seconds=quiet))
    planned = table_rules.plan(moment, Pace(), NOW)
    if all(bots[: hand.n]):
        # Computer players alone: nobody to wait for, the table plays on.
        assert all(step.kind != "pause" for step in planned)
        return
    gone = NOW - timedelta(seconds=quiet) + timedelta(seconds=Pace().grace)
    assert planned[-1] == Step(gone, "pause")
    # Nothing is done from the moment the last phone's grace ran out: the table waits.
    assert all(step.when < gone for step in planned[:-1])
    paused = moment._replace(paused=True)
    later = moment.changed_at + timedelta(seconds=Pace().abandon)
    assert table_rules.plan(paused, Pace(), NOW) == [Step(later, "abandon")]


def test_a_slate_never_pauses_its_players_have_no_phones() -> None:
    hand = Hand.slate_hand(HouseRules(), [10, 10, 10], 0)
    moment = moment_of(hand, [False] * 3, False, True, heard=timedelta(hours=5))
    assert table_rules.plan(moment, Pace(), NOW) == []


def test_a_slate_hand_is_between_hands_until_its_first_entry() -> None:
    slate = Hand.slate_hand(HouseRules(), [10, 10, 10], 0)
    assert not table_rules.under_way(None)
    assert not table_rules.under_way(slate)  # the real cards are still to be dealt
    slate.apply(Action(1, "knock"))
    assert table_rules.under_way(slate)
    dealt = Hand.deal(HouseRules(), [10, 10, 10], 0, 5)
    assert table_rules.under_way(dealt)


@given(
    st.sampled_from([HouseRules(), HouseRules(away_conventions=False)]),
    st.sampled_from(["", "break", "round"]),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_a_table_offers_to_go_away_exactly_when_it_takes_it(
    rules: HouseRules, away: str, back_at_deal: bool, under_way: bool, bought: bool, out: bool
) -> None:
    choices = table_rules.away_choices(rules, away, back_at_deal, under_way, bought, out)
    if away:
        assert choices == ([] if back_at_deal or not rules.away_conventions else ["back"])
        return
    for reason in table_rules.AWAY_REASONS:
        try:
            table_rules.check_away(rules, reason, under_way, bought, out)
        except Refused:
            assert reason not in choices
        else:
            assert reason in choices


def test_a_player_who_is_out_of_the_rubber_is_offered_no_break_and_no_round() -> None:
    assert table_rules.away_choices(HouseRules(), "", False, False, False, out=True) == []
    for reason in table_rules.AWAY_REASONS:
        with pytest.raises(Refused) as refused:
            table_rules.check_away(HouseRules(), reason, False, False, out=True)
        assert refused.value.reason == "out_of_rubber"


# -- the windows: the laundry's and the answers' (rules.md 5) -----------------------------------


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    dealt_hands(),
    st.just(0) | st.integers(0, 40),
    st.lists(st.booleans(), min_size=8, max_size=8),
    st.booleans(),
    st.booleans(),
    st.lists(st.integers(0, 7), max_size=8, unique=True),
    st.data(),
)
def test_the_table_takes_an_action_exactly_when_verify_does_and_moves_its_windows(
    dealt: tuple[Hand, int],
    steps: int,
    bots: list[bool],
    laundry: bool,
    since: bool,
    ready: list[int],
    data: st.DataObject,
) -> None:
    """`take` refuses what `verify` refuses (changing nothing), applies the rest, and leaves
    the windows as rules.md 5 says: an exchange keeps the laundry open for a challenge and
    sends the computer players back to it; answers are due from when they fall due."""
    hand, seed = dealt
    hand = walked(hand, seed, steps)
    moment = moment_of(hand, bots[: hand.n], laundry and hand.laundry, since)
    moment = moment._replace(laundry_ready=[s for s in ready if s < hand.n])
    in_laundry = table_rules.laundry_open(hand, moment.laundry_until, NOW)
    pace = Pace(challenge=7.0)
    seat = data.draw(st.integers(0, hand.n - 1))
    action = data.draw(st.sampled_from(every_action(seat, hand.n)))
    before = hand.record(), hand.laundry
    settled = hand.after_laundry() if hand.laundry and action.act not in LAUNDRY_ACTS else hand
    was_awaiting = bool(settled.awaiting)
    if not accepts(hand, action, in_laundry):
        with pytest.raises((Refused, IllegalAction)):
            table_rules.take(moment, action, pace, NOW)
        assert (hand.record(), hand.laundry) == before
        return
    windows = table_rules.take(moment, action, pace, NOW)
    assert hand.record()["actions"][-1] == action.to_json()
    if action.act == "exchange":
        assert windows.laundry_until is not None
        assert windows.laundry_until >= NOW + timedelta(seconds=pace.challenge)
        assert windows.laundry_until >= moment.laundry_until
        # Who was done stays done, but the exchanger and the computer players.
        assert windows.laundry_ready == [
            s for s in moment.laundry_ready if s != seat and not bots[s]
        ]
    elif action.act == "challenge":
        assert (windows.laundry_until, windows.laundry_ready) == (
            moment.laundry_until,
            moment.laundry_ready,
        )
    else:
        assert windows.laundry_until is None  # the laundry is over with any other action
    if not hand.awaiting:
        assert windows.awaiting_since is None
    elif was_awaiting:
        assert windows.awaiting_since == moment.awaiting_since
    else:
        assert windows.awaiting_since == NOW


@pytest.mark.parametrize("seconds", [0.0, 12.0])
@given(dealt_hands())
@settings(max_examples=60, deadline=None)
def test_a_deal_opens_the_laundry_for_the_paces_seconds(
    seconds: float, dealt: tuple[Hand, int]
) -> None:
    hand, _ = dealt
    windows = table_rules.dealt(hand, Pace(laundry=seconds), NOW)
    timed = hand.laundry and seconds > 0
    assert windows.laundry_until == (NOW + timedelta(seconds=seconds) if timed else None)
    assert windows.laundry_ready == []
    # Answers due at the deal are due from it; with no window, poverty's too.
    settled = hand.after_laundry() if hand.laundry and not timed else hand
    assert windows.awaiting_since == (NOW if settled.awaiting else None)


def test_a_slate_hand_has_no_laundry_window() -> None:
    slate = Hand.slate_hand(HouseRules(), [10, 10, 10], 0)
    assert slate.laundry
    assert table_rules.dealt(slate, Pace(laundry=10.0), NOW).laundry_until is None


POVERTY = HouseRules(poverty="stake_two", response_order="simultaneous", response_seconds=8)


def poverty_hand() -> Hand:
    """Seat 0 on her last life: poverty's stake of two, answers due once the laundry ends."""
    hand = Hand.deal(POVERTY, [1, 10, 10, 10], 0, 11, players=["a", "b", "c", "d"])
    assert hand.poverty and hand.laundry and not hand.awaiting
    return hand


def test_when_the_laundry_closes_povertys_answers_fall_due_and_unanswered_stay() -> None:
    hand = poverty_hand()
    moment = moment_of(hand, [False] * 4, laundry=True, awaiting_since=False)
    closed = table_rules.laundry_closed(moment, NOW)
    assert closed.laundry_until is None and closed.awaiting_since == NOW
    moment = moment._replace(laundry_until=None, awaiting_since=NOW)
    # Due together, the window closing response_seconds after the laundry's close...
    assert table_rules.answers_close(moment) == NOW + timedelta(seconds=8)
    # ...when whoever has not answered stays, the table's stay.
    stays = table_rules.unanswered(moment)
    assert stays == [Action(s, "stay", auto=True) for s in hand.after_laundry().awaiting]
    assert len(stays) == 3
    for stay in stays:
        moment = moment._replace(**table_rules.take(moment, stay, Pace(), NOW)._asdict())
    assert not hand.awaiting and table_rules.unanswered(moment) == []
    assert table_rules.answers_close(moment) is None


def test_the_laundry_closes_early_once_all_with_a_say_are_done_as_at_its_time() -> None:
    """The last player done (or a player going away, who has no say) closes the laundry as
    its clock would: poverty's answers are due from then, so the countdown shows it."""
    hand = poverty_hand()
    moment = moment_of(hand, [False] * 4, laundry=True, awaiting_since=False)
    for seat in (0, 1, 2):
        windows = table_rules.done_with_laundry(moment, seat, NOW)
        assert windows.laundry_until == moment.laundry_until and windows.awaiting_since is None
        moment = moment._replace(**windows._asdict())
    assert list(moment.laundry_ready) == [0, 1, 2]
    away = moment._replace(away=["", "", "", "break"])
    assert table_rules.done_with_laundry(away, None, NOW) == table_rules.laundry_closed(away, NOW)
    closed = table_rules.done_with_laundry(moment, 3, NOW)
    assert closed.laundry_until is None and closed.awaiting_since == NOW
    assert list(closed.laundry_ready) == [0, 1, 2, 3]
    # Once it is over, nothing a player says of it opens or closes anything.
    over = moment._replace(laundry_until=NOW - timedelta(seconds=1))
    assert table_rules.done_with_laundry(over, 3, NOW).laundry_until == over.laundry_until


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    dealt_hands(),
    st.just(0) | st.integers(0, 40),
    st.lists(st.booleans(), min_size=8, max_size=8),
    st.booleans(),
    st.booleans(),
)
def test_the_answer_window_closes_when_the_plan_closes_it(
    dealt: tuple[Hand, int], steps: int, bots: list[bool], laundry: bool, since: bool
) -> None:
    """One deadline: what a phone counts down (`answers_close`) is when the table's clock
    closes the window, whether or not the table noted since when answers are due."""
    hand, seed = dealt
    hand = walked(hand, seed, steps)
    moment = moment_of(hand, bots[: hand.n], laundry and hand.laundry, since)
    planned = table_rules.steps_while_here(moment, Pace(), NOW)
    closing = [step.when for step in planned if step.kind == "close_answers"]
    assert [table_rules.answers_close(moment)] == (closing or [None])
    if closing:
        stays = table_rules.unanswered(moment)
        assert stays and all(accepts(hand, stay, False) for stay in stays)
    # A table whose clock stands still closes nothing.
    assert table_rules.answers_close(moment._replace(paused=True)) is None
    assert table_rules.answers_close(moment._replace(playing=False)) is None


# -- seats and rubbers --------------------------------------------------------------------------


STATUSES = [table_rules.WAITING, table_rules.PLAYING, table_rules.RUBBER_OVER, table_rules.CLOSED]


@pytest.mark.parametrize("status", STATUSES)
def test_a_player_leaves_between_rubbers_and_between_hands_never_during_one(status: str) -> None:
    under_way = Hand.deal(HouseRules(), [10, 10, 10], 0, 5)
    over = walked(Hand.deal(HouseRules(exchange=False), [1, 1, 1], 0, 5), 3, 400)
    assert over.complete
    for hand in (None, over, under_way):
        refused = table_rules.leave_refusal(status, hand)
        if status == table_rules.CLOSED:
            assert refused is not None and refused.code == "closed"
        elif status == table_rules.PLAYING and hand is under_way:
            assert refused is not None and refused.code == "hand_under_way"
        else:
            assert refused is None, (status, hand)


@pytest.mark.parametrize("status", STATUSES)
@pytest.mark.parametrize("seats_free", [False, True])
def test_a_rubber_starts_between_rubbers_once_every_seat_is_taken(
    status: str, seats_free: bool
) -> None:
    refused = table_rules.start_refusal(status, seats_free)
    between = status in (table_rules.WAITING, table_rules.RUBBER_OVER)
    assert table_rules.between_rubbers(status) == between
    if between and not seats_free:
        assert refused is None
    else:
        assert refused is not None and refused.code and refused.reason and refused.message
        assert refused.code == (
            "seats_free" if between else "closed" if status == table_rules.CLOSED else "playing"
        )


def test_the_first_dealer_is_drawn_at_random_and_after_a_rubber_follows_its_last_hand() -> None:
    drawn = {first_dealer(4) for _ in range(400)}
    assert drawn == {0, 1, 2, 3}
    won = {"winner": 1, "last_trick_winner": 2}
    assert first_dealer(4, won, [3, 0, 2]) == 0  # hand seat 1 is table seat 0
    nobody = {"winner": None, "last_trick_winner": 2}
    assert first_dealer(4, nobody, [3, 0, 2]) == 2


@pytest.mark.parametrize(
    ("rules", "away", "quiet", "expected"),
    [
        (HouseRules(), "", 31.0, True),  # silent past the grace: on a break
        (HouseRules(), "", 29.0, False),  # her turn clock ran out, her phone is here
        (HouseRules(), "", None, True),  # never heard at all
        (HouseRules(), "round", 31.0, False),  # away already
        (HouseRules(away_conventions=False), "", 31.0, False),  # rules with no breaks
    ],
)
def test_a_phone_silent_past_its_grace_drops_its_player_to_a_break(
    rules: HouseRules, away: str, quiet: float | None, expected: bool
) -> None:
    seen = None if quiet is None else NOW - timedelta(seconds=quiet)
    pace = Pace(grace=30.0)
    assert table_rules.dropped_to_a_break(rules, away, seen, pace, NOW) is expected


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    dealt_hands(),
    st.just(0) | st.integers(0, 40),
    st.lists(st.booleans(), min_size=8, max_size=8),
    st.booleans(),
)
def test_no_persons_clock_runs_out_on_time_the_server_could_not_keep(
    dealt: tuple[Hand, int], steps: int, bots: list[bool], since: bool
) -> None:
    """Every phone was last heard long ago and every turn clock ran out, but the server only
    kept time again from now (it started, or had its database back): nothing is done for or
    about a person before the shortest of her clocks has run from now."""
    hand, seed = dealt
    hand = walked(hand, seed, steps)
    moment = moment_of(hand, bots[: hand.n], False, since, heard=timedelta(seconds=1000))
    pace = Pace()
    gap_ends = NOW + timedelta(seconds=min(pace.grace, pace.turn, hand.rules.response_seconds))
    for resumed, first in ((None, None), (NOW, gap_ends)):
        planned = table_rules.plan(moment._replace(resumed_at=resumed), pace, NOW)
        for_people = [
            step
            for step in planned
            if step.kind in ("pause", "close_answers")
            or (step.kind == "auto" and not bots[step.seat])
        ]
        if first is None:
            # Kept time throughout: whatever is done for a person is overdue already.
            assert all(step.when < NOW for step in for_people), for_people
        else:
            assert all(step.when >= first for step in for_people), for_people
        if any(not bot for bot in bots[: hand.n]) and not hand.complete:
            assert for_people, "a person's clock always runs while she plays"


def test_the_next_deal_waits_for_a_player_who_may_buy_back_in_and_only_for_her() -> None:
    pace = Pace(between_hands=5.0, buy_back=20.0)
    # Computer players only: the plan has no pause for people gone quiet.
    ended = Moment(hand=None, hand_seats=[], seats=[Seat(bot=True)] * 4, changed_at=NOW)
    [deal] = plan(ended, pace, NOW)
    assert deal.kind == "deal" and deal.when == NOW + timedelta(seconds=5)
    [deal] = plan(ended._replace(buyers=(2,)), pace, NOW)
    assert deal.kind == "deal" and deal.when == NOW + timedelta(seconds=20)
    assert plan(ended._replace(buyers=(2,), rubber_over=True), pace, NOW) == []
