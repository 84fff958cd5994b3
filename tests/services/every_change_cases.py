"""Every kind of change a live table takes, proven one way, in the spirit of Zulip's
`verify_action`: random legal sequences of changes (a seat taken and left, away and back,
ready, exchange, challenge, knock, stay, fold, play, the laundry's and the answers' windows
closing, the table's own actions: a computer player's move, a pause, a table abandoned or
closed; a deal, a hand's end, a rubber's end and the next rubber), each made once through
the decider in a worker thread (`decide.change`, `store.commit`) and once from the event loop
as the phones and the clock make it (`decide.achange` and the clock's `fire_here`: the
snapshot, `store.acommit` and its loop writers, else `change` in a worker thread). After every
change:

- both executors wrote the same rows (the table's, its seats', rubbers', players', hands' and
  receipts');
- another process, which had the table as it was, moves its snapshot on by the change's notice
  (its text, as PostgreSQL carries it) to exactly the table a fresh read gives;
- every phone's view rendered in one pass with the others is the view rendered alone;
- no phone is sent a card its holder may not see (tests/visibility.py).

A slate's entries (a keeper writes what the real cards did, undoes an entry, writes a player
away and back, starts the next rubber) are walked the same way, from a worker thread and from
the event loop, and each slate view a keeper and a follower are sent shows no card.

A walk is cheap per step where it can be: each view is rendered in one language a step (they
take turns), and a walk stops once its table is closed.

Not collected by the suite itself: tests/services/test_every_change.py runs the cases on SQLite,
and `make test`'s PostgreSQL pass on PostgreSQL (the Makefile's POSTGRES_PASS).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import random
import secrets
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connections
from django.db.models import Model
from django.utils import timezone, translation

from clubs.models import HouseRuleProfile
from games.bots import make_bot
from games.engine import HouseRules
from games.engine import table as table_rules
from games.engine.cards import token
from games.live import notices
from games.models import ActionReceipt, PlayedHand, Rubber, RubberPlayer, Seat, Table
from games.services import bot_seats, events, slate, snapshots, store, tables
from games.services.changes import deadlines
from games.services.slate import SlatePlayer
from games.services.snapshots import advance, load_state, remember
from games.services.state import CHANGED_FIELDS, Holder, TableState
from games.view.context import Viewer, render_view
from games.view.parts import Shared
from games.view.slate_html import render_slate
from tests.personas import Cast, Persona
from tests.tables import KEEP_PUBLISHED, cards_in, people
from tests.visibility import visible_to

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = [
    "test_every_change_is_written_alike_announced_exactly_and_shown_only_to_its_seats",
    "test_every_slate_entry_is_written_alike_and_announced_exactly",
]

# (seed, rules): each walk's changes come from its seed; the rules reach the windows of both
# kinds of answers (sequential, and simultaneous with poverty) and the laundry's.
WALKS = [
    (1, HouseRules(starting_lives=3)),
    (2, HouseRules(starting_lives=3, response_order="simultaneous", poverty="stake_two")),
    (3, HouseRules(starting_lives=4, exchange_limit=2, voluntary_fold=True)),
    # For the pot, buying back in (rules.md 3.10): a change to the rubber's own row.
    (
        2,
        HouseRules(
            starting_lives=2,
            end_condition="last_standing",
            min_players=2,
            pot_stake=100,
            buy_back=3,
        ),
    ),
]
STEPS = 180
# A slate's entries are cheaper and fewer in kind: one walk covers them all, and one more
# the pot's buying back in.
SLATE_WALKS = [
    (4, HouseRules(starting_lives=3, exchange_limit=3)),
    # For the pot, buying back in on the slate (rules.md 3.10).
    (8, HouseRules(starting_lives=2, end_condition="last_standing", pot_stake=100, buy_back=3)),
]
SLATE_STEPS = 200
# From this version on a walk may end its table: its phones fall silent (the table plays for
# them, pauses, and is abandoned), or its creator closes it.
ENDING_FROM = 130


class Clock:
    """The moment every part of the server reads (`timezone.now`), moved on by the walk."""

    def __init__(self) -> None:
        self.now = timezone.now().replace(microsecond=0)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch, settings: Any) -> Clock:
    settings.TOEPEN_LAUNDRY_SECONDS = 10  # a window, so that the laundry has its changes
    moment = Clock()
    monkeypatch.setattr(timezone, "now", moment)
    return moment


def _values(rows: Any, *left_out: str) -> list[dict[str, Any]]:
    """Rows as plain values, without their keys (two tables' rows differ by those alone)."""
    return [{k: v for k, v in row.items() if k not in ("id", *left_out)} for row in rows.values()]


def rows_of(table_id: int) -> dict[str, Any]:
    """Every row a table's changes write, as values another table's would equal."""
    table = Table.objects.values(*CHANGED_FIELDS, "deadline_at", "bots_offered").get(pk=table_id)
    rubbers = Rubber.objects.filter(table_id=table_id).order_by("number")
    hands = PlayedHand.objects.filter(rubber__table_id=table_id).order_by(
        "rubber__number", "number"
    )
    return {
        "table": table,
        "seats": _values(Seat.objects.filter(table_id=table_id).order_by("index"), "table_id"),
        "rubbers": _values(rubbers, "table_id"),
        "players": _values(
            RubberPlayer.objects.filter(rubber__table_id=table_id).order_by(
                "rubber__number", "seat"
            ),
            "rubber_id",
        ),
        "hands": [
            {**row, "rubber": number}
            for row, number in zip(
                _values(hands, "rubber_id"),
                hands.values_list("rubber__number", flat=True),
                strict=True,
            )
        ],
        "receipts": _values(
            ActionReceipt.objects.filter(table_id=table_id).order_by("version"), "table_id"
        ),
    }


def facts(state: TableState) -> dict[str, Any]:
    """What a phone's view and the next change read of a state: every field of its table, its
    seats (but when their phones were last heard: the heartbeats'), its rubber and its hand.
    A field a change sets in the state but not in the database (not in `CHANGED_FIELDS`, or not
    queued with the store's `with_*`) makes the state differ from a fresh read."""

    def fields(row: Model | None, *left_out: str) -> dict[str, Any] | None:
        if row is None:
            return None
        names = [f.attname for f in type(row)._meta.concrete_fields if f.attname not in left_out]
        return {name: getattr(row, name) for name in names}

    return {
        "table": fields(state.table),
        "seats": [fields(seat, "last_seen") for seat in state.seats],
        "rubber": fields(state.rubber),
        "hand": fields(state.hand_row),
        "hand_seats": list(state.hand_seats),
        "actions": None if state.hand is None else [a.to_json() for a in state.hand.actions],
    }


def read(table_id: int) -> TableState:
    return load_state(Table.objects.get(pk=table_id))


def table_for(cast: Cast, rules: HouseRules) -> Table:
    """A table of the cast's four people under `rules`, its first rubber started."""
    profile, _ = HouseRuleProfile.objects.get_or_create(
        club=cast.club,
        name=f"walk {hashlib.sha1(repr(rules).encode()).hexdigest()[:12]}",
        rules_json=rules.to_json(),
    )
    table = tables.create_table(
        club=cast.club, user=cast.anna.user, profile=profile, holder_key=cast.anna.holder_key
    )
    for index in (1, 2, 3):
        person = people(cast)[index]
        tables.take_seat(table.pk, index, person.holder, person.name)
    tables.start_rubber(table.pk, cast.anna.user)
    return Table.objects.get(pk=table.pk)


def slate_table_for(cast: Cast, rules: HouseRules) -> Table:
    """A slate table of the cast's four people under `rules`, its first rubber started."""
    profile, _ = HouseRuleProfile.objects.get_or_create(
        club=cast.club,
        name=f"slate {hashlib.sha1(repr(rules).encode()).hexdigest()[:12]}",
        rules_json=rules.to_json(),
    )
    players = [SlatePlayer(p.name, p.user) for p in people(cast).values()]
    return slate.create_slate_table(
        club=cast.club, user=cast.anna.user, players=players, profile=profile
    )


def slate_choices(state: TableState) -> list[tuple[Any, ...]]:
    """Every entry the slate takes now (its keeper writes them), and the clock's steps."""
    table, hand = state.table, state.hand
    found: list[tuple[Any, ...]] = []
    if table.status == Table.Status.CLOSED:
        return found
    if table.status == Table.Status.RUBBER_OVER:
        found += [("next_rubber",)] * 4
    elif hand is not None and not hand.complete:
        for hand_seat in range(hand.n):
            for action in hand.legal_actions(hand_seat):
                if action.auto:
                    continue  # the table's own (for a player buying the round), not an entry
                frame = action.to_json()
                frame["seat"] = state.table_seat(hand_seat)
                if "target" in frame:
                    frame["target"] = state.table_seat(frame["target"])
                found.append(("entry", {**frame, "hand": state.hand_name()}))
        if hand.actions:
            found.append(("undo",))
    elif table.status == Table.Status.PLAYING and hand is not None:
        # The hand's end is on the slate: a keeper opens the next one, or undoes its last entry.
        found += [("next_hand",)] * 3 + [("undo",)]
    if table.status != Table.Status.CLOSED and hand is not None:
        for seat in state.seats:
            for why in state.away_choices(seat.index):
                found.append(("back", seat.index) if why == "back" else ("away", seat.index, why))
        found += [("buy_back", index) for index in state.buyers()] * 3
    if table.deadline_at is not None:
        found += [("clock",)] * 3
    if table.status != Table.Status.CLOSED and table.version >= ENDING_FROM:
        found.append(("close",))
    return found


def choices(state: TableState, now: datetime) -> list[tuple[Any, ...]]:
    """Every change the table takes now: the people's, and the clock's when a deadline waits."""
    table, hand = state.table, state.hand
    found: list[tuple[Any, ...]] = []
    between = table.status in (Table.Status.WAITING, Table.Status.RUBBER_OVER)
    if between:
        if not any(s.is_free for s in state.seats):
            found += [("start",)] * 8  # and the walk goes on to more hands
        found += [("leave", s.index) for s in state.seats if s.holder_key] * 2
        found += [("take", s.index) for s in state.seats if s.is_free] * 4
    elif table.status == Table.Status.PLAYING and hand is not None and hand.complete:
        # Between two hands the last seat's player may get up: a computer player plays the
        # rubber out, and its moves are the table's own from then on.
        if state.seats[-1].holder_key:
            found.append(("leave", state.seats[-1].index))
    elif table.status == Table.Status.PLAYING and hand is not None and not hand.complete:
        laundry = state.laundry_open(now)
        for hand_seat in range(hand.n):
            seat = state.table_seat(hand_seat)
            if not state.seats[seat].holder_key:
                continue  # a computer player's: the table's own
            for action in table_rules.allowed(hand, hand_seat, laundry):
                if action.auto:
                    continue  # the table's own (for a player buying the round)
                payload = {k: v for k, v in action.to_json().items() if k != "seat"}
                if "target" in payload:
                    payload["target"] = state.table_seat(payload["target"])
                found.append(("act", seat, {**payload, "hand": state.hand_name()}))
            if laundry and seat not in table.laundry_ready:
                found.append(("ready", seat))
    if table.status != Table.Status.CLOSED:
        for seat in state.seats:
            if not seat.holder_key:
                continue
            for why in state.away_choices(seat.index):
                found.append(("back", seat.index) if why == "back" else ("away", seat.index, why))
        found += [("buy_back", index) for index in state.buyers() if state.seats[index].holder_key]
        if table.paused:
            found.append(("arrive", 0))
    if table.paused and table.version >= ENDING_FROM:
        return [("clock",)]  # nobody comes back: the table is abandoned
    if table.deadline_at is not None and not table.paused:
        # (A paused table's next step would close it: its players arrive instead.)
        found += [("clock",)] * 3  # the table's own steps move a walk on
    if table.status != Table.Status.CLOSED and table.version >= ENDING_FROM:
        found.append(("close",))
    return found


# The changes a page's view makes (a seat taken or left) and a phone's connect (`arrive`): made
# by their services in a worker thread in both walks, as the server makes them.
IN_A_VIEW = ("take", "leave", "arrive")


class Walk:
    """One table's walk: each change chosen from what the table takes now, made by the thread's
    decider or the loop's, with the checks of this module after it."""

    def __init__(self, cast: Cast, table: Table, clock: Clock, on_the_loop: bool) -> None:
        self.cast, self.table_id, self.clock, self.on_the_loop = cast, table.pk, clock, on_the_loop
        self.seated: dict[int, Persona] = people(cast)
        self.published: list[TableState] = []
        self.kinds: set[str] = set()
        self.fresh: TableState | None = None  # the table as the last check read it

    def keep(
        self, sender: Any, *, table_id: int, state: TableState | None = None, **_: Any
    ) -> None:
        if table_id == self.table_id and state is not None:
            self.published.append(state)

    async def step(self, rng: random.Random) -> dict[str, Any] | None:
        """One change, and the rows after it; None when the table takes none (closed)."""
        # The table as the last change's check read it, else (a change that wrote nothing new:
        # a deadline noted) read again.
        before, self.fresh = self.fresh or await sync_to_async(read)(self.table_id), None
        slate_table = before.table.slate
        options = slate_choices(before) if slate_table else choices(before, self.clock.now)
        if not options:
            return None
        change = rng.choice(options)
        # Else the phones are silent: the turn clock acts for them (and late in a walk, always).
        heard = rng.random() < 0.8 and before.table.version < ENDING_FROM
        self.clock.now += timedelta(seconds=1)
        if change[0] == "clock":
            assert before.table.deadline_at is not None
            self.clock.now = max(self.clock.now, before.table.deadline_at)
        if heard:
            await sync_to_async(self.heartbeats)()
        published = len(self.published)
        try:
            await self.make(before, change)
        except tables.TableError as refused:
            # A legal change is refused only when the table is not as it was read (never here).
            raise AssertionError(f"{change} refused: {refused.code}") from None
        if len(self.published) > published:
            self.kinds.add(self.kind(before, change))
            await sync_to_async(self.check)(before, self.published[-1], rng.random() < 0.5)
        return await sync_to_async(rows_of)(self.table_id)

    def heartbeats(self) -> None:
        """A heartbeat round of the hub (games/live/hub.py): every phone heard, and the
        process's presence read back, which the snapshots' decisions see."""
        store.mark_seen_all([(self.table_id, p.holder) for p in self.seated.values()])
        snapshots.refresh_presence(store.presence([self.table_id]))

    def kind(self, before: TableState, change: tuple[Any, ...]) -> str:
        if change[0] == "act":
            return str(change[2]["act"])
        if change[0] == "entry":
            return f"slate: {change[1]['act']}"
        if before.table.slate:
            return f"slate: {change[0]}"
        if change[0] == "clock":
            step = deadlines.due_step(before, self.clock.now)
            return f"clock: {step.kind if step is not None else 'nothing'}"
        return str(change[0])

    async def make(self, before: TableState, change: tuple[Any, ...]) -> None:
        kind, table_id = change[0], self.table_id
        if kind == "clock":
            if self.on_the_loop:
                await sync_to_async(snapshots.view_state)(table_id)
                with self.snapshot_kept():
                    if await tables.fire_here(table_id):
                        return
            await sync_to_async(tables.fire_deadline)(table_id, self.clock.now)
            return
        if self.on_the_loop and kind not in IN_A_VIEW:
            # As the phones' sockets make every change: the one decider's door on the loop.
            action_id, decision = self.decision(before, change)
            await sync_to_async(snapshots.view_state)(table_id)
            with self.snapshot_kept():
                await tables.achange(table_id, decision, action_id)
            return
        if kind == "close":
            await sync_to_async(tables.close_table)(table_id, self.cast.anna.user, True)
            return
        if before.table.slate:
            await sync_to_async(self.make_on_the_slate)(before, change)
            return
        if kind == "start":
            await sync_to_async(tables.start_rubber)(table_id, self.cast.anna.user)
            return
        if kind == "take":
            person = self.seated[change[1]]
            await sync_to_async(tables.take_seat)(table_id, change[1], person.holder, person.name)
            return
        if kind == "arrive":
            await sync_to_async(tables.arrive)(table_id, self.seated[change[1]].holder)
            return
        holder = self.seated[change[1]].holder
        if kind == "act":
            action_id = f"a{self.clock.now.timestamp():.0f}"
            if self.on_the_loop:
                await sync_to_async(snapshots.view_state)(table_id)
                with self.snapshot_kept():
                    await tables.act_here(table_id, holder, change[1], change[2], action_id)
            else:
                await sync_to_async(tables.act)(table_id, holder, change[1], change[2], action_id)
        elif kind == "ready":
            await sync_to_async(tables.ready)(table_id, holder, change[1])
        elif kind == "away":
            await sync_to_async(tables.go_away)(table_id, holder, change[1], change[2])
        elif kind == "back":
            await sync_to_async(tables.come_back)(table_id, holder, change[1])
        elif kind == "buy_back":
            await sync_to_async(tables.buy_back)(table_id, holder, change[1])
        elif kind == "leave":
            await sync_to_async(tables.leave_seat)(table_id, change[1], holder)
        else:
            raise AssertionError(kind)

    def decision(self, before: TableState, change: tuple[Any, ...]) -> tuple[Any, Any]:
        """The change as a decision for `achange`, with its action id (or None)."""
        kind, anna = change[0], self.cast.anna.user
        if kind == "close":
            return None, tables.closing(anna, True)
        if before.table.slate:
            action_id = f"s{self.clock.now.timestamp():.0f}"
            named = before.hand_name()
            if kind == "entry":
                return action_id, slate.writing(anna, change[1])
            if kind == "undo":
                return action_id, slate.undoing(anna, named)
            if kind == "next_hand":
                return action_id, slate.dealing_next_hand(anna, named)
            if kind == "next_rubber":
                return None, slate.starting_next_rubber(anna)
            if kind == "away":
                frame = {"seat": change[1], "reason": change[2], "hand": named}
                return action_id, slate.going_away(anna, frame)
            if kind == "back":
                return action_id, slate.coming_back(anna, {"seat": change[1], "hand": named})
            if kind == "buy_back":
                return action_id, slate.buying_back(anna, {"seat": change[1], "hand": named})
            raise AssertionError(kind)
        if kind == "start":
            return None, tables.starting(Holder(user_id=anna.pk))
        holder = self.seated[change[1]].holder
        if kind == "act":
            return f"a{self.clock.now.timestamp():.0f}", tables.playing(
                holder, change[1], change[2]
            )
        if kind == "ready":
            return None, tables.readying(holder, change[1])
        if kind == "away":
            return None, tables.going_away(holder, change[1], change[2])
        if kind == "back":
            return None, tables.coming_back(holder, change[1])
        if kind == "buy_back":
            return None, tables.buying_back(holder, change[1])
        raise AssertionError(kind)

    def make_on_the_slate(self, before: TableState, change: tuple[Any, ...]) -> None:
        """A keeper's entry on the slate (games/services/slate.py), through the same decider."""
        kind, keeper = change[0], self.cast.anna.user
        action_id = f"s{self.clock.now.timestamp():.0f}"
        named = before.hand_name()
        if kind == "entry":
            slate.write(self.table_id, keeper, change[1], action_id)
        elif kind == "undo":
            slate.undo(self.table_id, keeper, named, action_id)
        elif kind == "next_hand":
            slate.next_hand(self.table_id, keeper, named, action_id)
        elif kind == "next_rubber":
            slate.next_rubber(self.table_id, keeper)
        elif kind == "away":
            frame = {"seat": change[1], "reason": change[2], "hand": named}
            slate.go_away(self.table_id, keeper, frame, action_id)
        elif kind == "back":
            slate.come_back(self.table_id, keeper, {"seat": change[1], "hand": named}, action_id)
        elif kind == "buy_back":
            slate.buy_back(self.table_id, keeper, {"seat": change[1], "hand": named}, action_id)
        else:
            raise AssertionError(kind)

    @contextlib.contextmanager
    def snapshot_kept(self) -> Iterator[None]:
        """The process's snapshot, which a change on the loop is decided from (on a copy), is
        as it was after it: a snapshot is shared, by the phones' views and the next change."""
        shared = snapshots.snapshot_of(self.table_id)
        assert shared is not None
        was = copy.deepcopy(facts(shared))
        yield
        assert facts(shared) == was, "a change changed the snapshot it was decided on"

    def check(self, before: TableState, after: TableState, dutch: bool) -> None:
        fresh = read(self.table_id)
        left, wrote = facts(after), facts(fresh)
        # The state a change left is the table it wrote.
        assert left == wrote, first_difference(left, wrote)
        self.check_notice(before, after, fresh)
        if self.on_the_loop:
            # The same tables as the other walk's (their rows are compared): rendered once.
            self.check_views(fresh, "nl" if dutch else "en")
        self.fresh = fresh

    def check_notice(self, before: TableState, after: TableState, fresh: TableState) -> None:
        """Another process that had `before` hears the change's notice, as its text."""
        text = events.notice(self.table_id, after.table.version, after)
        sender = notices.SENDER
        notices.SENDER = "another process"
        try:
            message = notices.heard(text, {self.table_id})
        finally:
            notices.SENDER = sender
        assert message is not None and message["version"] == fresh.table.version
        if "change" not in message:
            return  # a change the other processes read (a seat, a rubber): nothing to move on
        snapshots._views.clear()
        snapshots._played.clear()
        remember(before)
        moved = advance(self.table_id, [message["change"]], store.hand_row)
        assert moved is not None, message["change"]
        assert facts(moved) == facts(fresh), message["change"]
        snapshots._views.clear()
        snapshots._played.clear()

    def check_views(self, state: TableState, language: str) -> None:
        """Each phone's view in `language`, rendered alone and with the others, and the cards
        it shows (a slate's players hold real cards: its view, a keeper's or a follower's,
        shows none)."""
        if state.table.slate:
            for keeper in (True, False):
                with translation.override(language):
                    assert not cards_in(render_slate(state, keeper)), keeper
            return
        hand = state.hand
        viewers = [Viewer(seats=(seat,), active=seat) for seat in range(len(state.seats))]
        viewers.append(Viewer())
        shared = Shared()
        for viewer in viewers:
            with translation.override(language):
                alone = render_view(state, viewer)
                together = render_view(state, viewer, shared=shared)
            assert together == alone, (viewer, language)
            if hand is None:
                continue
            hand_seat = state.hand_seat(viewer.seats[0]) if viewer.seats else None
            allowed = {token(card) for card in visible_to(hand, hand_seat)}
            assert cards_in(alone) <= allowed, (viewer, cards_in(alone) - allowed)


async def walk(
    cast: Cast,
    clock: Clock,
    seed: int,
    rules: HouseRules,
    on_the_loop: bool,
    steps: int = STEPS,
    table_for: Any = table_for,
) -> Any:
    """The walk of `seed` on a new table: the rows after each change, and the kinds made."""
    start = clock.now

    def deals() -> random.Random:
        # A deal's draws come from the walk's seed and the moment in the walk: the same in both
        # walks, and for a deal decided twice (on the snapshot, then in a worker thread).
        return random.Random(f"{seed} {(clock.now - start).total_seconds()}")

    patch = pytest.MonkeyPatch()
    patch.setattr(secrets, "randbits", lambda bits: deals().getrandbits(bits))
    patch.setattr(secrets, "randbelow", lambda n: deals().randrange(n))
    patch.setattr(random.SystemRandom, "randrange", lambda _, n: deals().randrange(n))
    # A computer player's choices from the walk's seed too, the same in both walks.
    patch.setattr(bot_seats, "make_bot", lambda level: make_bot(level, seed))
    try:
        table = await sync_to_async(table_for)(cast, rules)
        table_walk = Walk(cast, table, clock, on_the_loop)
        events.table_changed.connect(table_walk.keep, weak=False, dispatch_uid=KEEP_PUBLISHED)
        rng = random.Random(seed)
        after = []
        for _ in range(steps):
            rows = await table_walk.step(rng)
            if rows is None:
                break  # the table is closed
            after.append(rows)
    finally:
        events.table_changed.disconnect(dispatch_uid=KEEP_PUBLISHED)
        patch.undo()
        clock.now = start
        if on_the_loop:
            await store.loop_writer().close()  # its connection is its own
        # The worker thread's connection too, so that the test database can be dropped.
        await sync_to_async(connections.close_all)()
    return after, table_walk.kinds


def first_difference(a: Any, b: Any, path: str = "") -> str:
    """Where two rows' values first differ, and how."""
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        for key in a:
            if a[key] != b[key]:
                return first_difference(a[key], b[key], f"{path}/{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return first_difference(x, y, f"{path}/{index}")
    return f"{path}: {a!r} != {b!r}"


# Every kind of change the walks must have made, so that each is proven.
KINDS = {
    "take",
    "leave",
    "start",
    "away",
    "back",
    "ready",
    "exchange",
    "challenge",
    "knock",
    "stay",
    "fold",
    "play",
    "clock: close_laundry",
    "clock: close_answers",
    "clock: auto",
    "clock: pause",
    "clock: deal",
    "clock: bot",
    "clock: bot_laundry",
    "clock: abandon",
    "close",
    "buy_back",
}


async def test_every_change_is_written_alike_announced_exactly_and_shown_only_to_its_seats(
    klaver: Cast, clock: Clock
) -> None:
    made: set[str] = set()
    for seed, rules in WALKS:
        in_threads, kinds = await walk(klaver, clock, seed, rules, on_the_loop=False)
        on_the_loop, _ = await walk(klaver, clock, seed, rules, on_the_loop=True)
        for step, (thread_rows, loop_rows) in enumerate(zip(in_threads, on_the_loop, strict=True)):
            assert thread_rows == loop_rows, (seed, step, first_difference(thread_rows, loop_rows))
        made |= kinds
    assert made >= KINDS, KINDS - made


# The slate's entries and changes the walks must have made.
SLATE_KINDS = {
    "slate: knock",
    "slate: stay",
    "slate: fold",
    "slate: last_trick",
    "slate: undo",
    "slate: next_hand",
    "slate: away",
    "slate: back",
    "slate: next_rubber",
    "slate: close",
    "slate: buy_back",
}


async def test_every_slate_entry_is_written_alike_and_announced_exactly(
    klaver: Cast, clock: Clock
) -> None:
    """The slate's entries (a keeper writes what the real cards did) go through the same
    decider, from a worker thread and from the event loop: both write the same rows; after
    each, the state it left is the table a fresh read gives, another process moved on by its
    notice has the same, and the slate's views show no card."""
    made: set[str] = set()
    for seed, rules in SLATE_WALKS:
        in_threads, kinds = await walk(
            klaver, clock, seed, rules, False, SLATE_STEPS, slate_table_for
        )
        on_the_loop, _ = await walk(klaver, clock, seed, rules, True, SLATE_STEPS, slate_table_for)
        for step, (thread_rows, loop_rows) in enumerate(zip(in_threads, on_the_loop, strict=True)):
            assert thread_rows == loop_rows, (seed, step, first_difference(thread_rows, loop_rows))
        made |= kinds
    assert made >= SLATE_KINDS, SLATE_KINDS - made
