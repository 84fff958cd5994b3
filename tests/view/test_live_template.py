"""The live view as a Jinja2 template (games/jinja2/games/live.html, rendered by
games.view.jinja.live_view) writes exactly what games.view.html.live_html writes, byte for byte,
for any table and any phone: the proof that the template can replace the Python.

Tables are drawn under any house rules, from the seats' chairs (free, a computer, away on a
break or buying a round, gone quiet) to any point of a rubber: before it, the laundry with its
exchanges and challenges, knocks and their answers, folds and announcements, the end of a hand
with its result and the end of the rubber. Each is rendered for every kind of phone (each seat,
a watcher, shared phones with and without their privacy screen), in one pass sharing the public
part as the hub does, in English, Dutch and German, and with names that are markup.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from django.template import engines
from django.utils import timezone, translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jinja2 import Environment

from games.engine import HouseRules
from games.engine.rubber import Rubber as EngineRubber
from games.models import PlayedHand, Rubber, Seat, Table
from games.services.state import TableState, finish_hand
from games.view import html
from games.view.context import Shared, Viewer, build_context
from games.view.html import live_html
from games.view.jinja import live_view
from tests.engine.test_properties import house_rules
from tests.engine.test_table_rules import walked
from tests.live.test_markup import NASTY

NAMES = st.sampled_from(
    [NASTY, "Anne", "Zoë", "O'Neil & Co", "a %(name)s b", "{{ x }}", "</li><b>", "50% off"]
) | st.text(max_size=12)


@st.composite
def tables(draw: st.DrawFn) -> TableState:
    """A table at any point: waiting for its first rubber, or in a rubber's hand after any
    legal actions by anyone, or at the end of that hand (and maybe of the rubber)."""
    rules: HouseRules = draw(house_rules())
    players = draw(st.integers(rules.min_players, 6))
    names = draw(st.lists(NAMES, min_size=players, max_size=players))
    free = draw(st.integers(0, 2))  # chairs beyond the rubber's players, nobody on them
    now = timezone.now()
    table = Table(
        code="ABC234",
        rules_json=rules.to_json(),
        seat_count=players + free,
        status=Table.Status.WAITING,
        version=draw(st.integers(1, 999)),
        changed_at=now - timedelta(seconds=draw(st.integers(0, 90))),
        created_by_id=1,
    )
    seats = []
    for index in range(players + free):
        taken = index < players
        seat = Seat(
            index=index,
            name=names[index] if taken else "",
            holder_key=f"key{index}" if taken else "",
            last_seen=now - timedelta(seconds=draw(st.sampled_from([0, 5, 60]))),
        )
        if taken and draw(st.integers(0, 4)) == 0:
            seat.bot_level, seat.holder_key = "strong", ""
        if taken:
            seat.away = draw(st.sampled_from(["", "", "break", "round"]))
            seat.back_at_deal = seat.away == "round" and draw(st.booleans())
        seats.append(seat)
    if draw(st.integers(0, 5)) == 0:
        return TableState(table, seats)

    # Lives as the rubber stands: some players may be out already.
    lives = draw(
        st.lists(st.integers(0, rules.starting_lives), min_size=players, max_size=players).filter(
            lambda lives: sum(1 for left in lives if left) >= rules.min_players
        )
    )
    alive = [seat for seat in range(players) if lives[seat]]
    rubber = EngineRubber(rules, names, dealer=draw(st.sampled_from(alive)), lives=lives)
    hand = rubber.deal(seed=draw(st.integers(0, 2**32)))
    for act in ("exchange", "challenge"):  # the laundry's reveals, which a random walk seldom makes
        offered = [a for s in range(hand.n) for a in hand.legal_actions(s) if a.act == act]
        if offered and draw(st.booleans()):
            hand.apply(draw(st.sampled_from(offered)))
    hand = walked(hand, draw(st.integers(0, 2**32)), draw(st.just(0) | st.integers(0, 40)))
    table.status = Table.Status.PLAYING
    row = PlayedHand(number=draw(st.integers(1, 9)), seats=list(rubber.hand_seats))
    row.record = hand.record()
    played = Rubber(number=1, players=names, lives=list(lives), dealer=rubber.dealer)
    state = TableState(table, seats, played, row, hand, list(rubber.hand_seats))
    if not hand.actions and draw(st.booleans()):
        table.laundry_until = now + timedelta(seconds=draw(st.integers(0, 10)))
        table.laundry_ready = draw(st.lists(st.sampled_from(alive), unique=True))
    if hand.awaiting:
        table.awaiting_since = now - timedelta(seconds=draw(st.integers(0, 10)))
    if hand.complete and draw(st.booleans()):
        finish_hand(state, now)
    return state


def viewers(state: TableState, rng: random.Random) -> list[Viewer]:
    """Every kind of phone at `state`: each seat alone, a watcher, and shared phones (two or
    three seats), showing a seat of theirs or none (the privacy screen)."""
    seats = [seat.index for seat in state.seats]
    phones = [Viewer(seats=(seat,), active=seat) for seat in seats] + [Viewer()]
    for size in (2, 3):
        if len(seats) >= size:
            held = tuple(sorted(rng.sample(seats, size)))
            phones.append(Viewer(seats=held, active=None))
            phones.append(Viewer(seats=held, active=rng.choice(held)))
    return [
        Viewer(
            phone.seats, phone.active, can_start=rng.random() < 0.5, can_close=rng.random() < 0.5
        )
        for phone in phones
    ]


def both(
    state: TableState, phones: list[Viewer], csrf_token: str, now: Any
) -> list[tuple[str, str]]:
    """Each phone's view written by html.py and by the template, each way in one pass sharing
    its own public part (games.view.context.Shared), as the hub renders a process's phones."""
    python, template = Shared(), Shared()
    return [
        (
            live_html(build_context(state, phone, now, python), csrf_token),
            live_view(build_context(state, phone, now, template), csrf_token),
        )
        for phone in phones
    ]


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(tables(), st.randoms(use_true_random=False), st.sampled_from(["", "t0ken<&>'\""]))
def test_the_template_writes_what_the_python_writes(
    state: TableState, rng: random.Random, csrf_token: str
) -> None:
    phones = viewers(state, rng)
    rng.shuffle(phones)
    now = state.table.changed_at + timedelta(seconds=rng.randint(0, 90))
    for language in ("en", "nl", "de"):
        with translation.override(language):
            for phone, (python, template) in zip(
                phones, both(state, phones, csrf_token, now), strict=True
            ):
                assert template == python, (language, phone)


def test_the_template_covers_the_views_the_tests_meet():
    """The kinds of view the drawn tables must reach, so the comparison is not vacuous: seen
    at least once in a fixed sample of them."""
    seen: set[str] = set()
    marks = {
        "laundry": "laundry-sheet",
        "answer": "answer-window",
        "privacy": 'class="privacy"',
        "hand result": "hand-result",
        "rubber over": "rubber-result",
        "reveal": 'class="reveal"',
        "free seat": "free seat",
        "computer": ">computer<",
        "break": "on a break",
        "round": "buying a round",
        "away": ">away<",
        "knocked": "badge-knock",
        "playable": "is-playable",
        "last trick": "played-last",
        "start": "action-start",
        "leave": "action-leave",
        "disabled knock": "knock-why",
    }
    rng = random.Random(5)

    @settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
    @given(tables())
    def sample(state: TableState) -> None:
        now = state.table.changed_at
        for _python, template in both(state, viewers(state, rng), "", now):
            seen.update(kind for kind, mark in marks.items() if mark in template)

    with translation.override("en"):
        sample()
    assert seen == set(marks), set(marks) - seen


def test_the_gettext_callables_are_the_i18n_extensions_newstyle_ones():
    """games.view.jinja installs its own newstyle callables over the cached translations,
    without the extension's wrappers: they must write what the wrappers write."""
    ours = engines["jinja2"].env  # type: ignore[attr-defined]
    theirs = Environment(autoescape=True, extensions=["jinja2.ext.i18n"])
    theirs.install_gettext_callables(  # type: ignore[attr-defined]
        html._, html.ngettext, newstyle=True, pgettext=html.pgettext
    )
    source = (
        '{{ _("Trick") }} {{ gettext("Waiting for players.") }} {{ _("50%% off") }} '
        '{{ _("%(name)s wins the hand.", name=name) }} {{ pgettext("suit", "hearts") }} '
        '{{ ngettext("knocked once", "knocked %(knocks)s×", n, knocks=n) }} '  # noqa: RUF001
        '{{ ngettext("%(num)s", "%(num)s", n) }} '
        '<b title="{{ _("Stake: %(stake)s", stake=name) }}">'
    )
    for language in ("en", "nl", "de"):
        with translation.override(language):
            html.speak(language)
            for n in (0, 1, 2, 7):
                expected = theirs.from_string(source).render(name=NASTY, n=n)
                assert ours.from_string(source).render(name=NASTY, n=n) == expected
