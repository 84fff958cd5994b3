"""A table's state as the engine sees it, and who is looking at it: plain objects, no queries.

`TableState` is one version of a table: its rows (the table, seats, rubber, hand) and the
engine's hand replayed from the record. snapshots.py reads and keeps them per process;
tables.py changes a copy and the store (games/services/store/) commits it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final, NamedTuple

from accounts.guests import SESSION_KEY as GUEST_SESSION_KEY
from games.engine import Hand, HouseRules, Observation, observe, replayed
from games.engine import table as table_rules
from games.engine.pot import BuyBackRefused, pot_cents
from games.engine.rubber import Rubber as EngineRubber
from games.engine.table import CLOSED as CLOSED
from games.engine.table import PLAYING as PLAYING
from games.engine.table import RUBBER_OVER as RUBBER_OVER
from games.engine.table import WAITING as WAITING
from games.models import PlayedHand, Rubber, Seat, Table
from games.services.conf import seconds
from games.services.prepared import Statement

# Where a browser's session keeps its key to the seats it holds (a shared phone holds several).
HOLDER_SESSION_KEY: Final = "table_holder"


class SeatKeys(NamedTuple):
    """What `Holder.holds` reads of a seat, without a model instance (a heartbeat round reads
    these for every seat of a process's tables)."""

    holder_key: str
    user_id: int | None
    guest_id: int | None
    bot_level: str


def seat_keys(seat: Seat) -> SeatKeys:
    """What `Holder.holds` reads of a seat's row."""
    return SeatKeys(seat.holder_key, seat.user_id, seat.guest_id, seat.bot_level)


@dataclass(frozen=True)
class Holder:
    """Who a request or a websocket speaks for: a member, a guest, and the browser's seat key."""

    user_id: int | None = None
    guest_id: int | None = None
    key: str = ""

    @classmethod
    def from_session(cls, session: Any, user: Any) -> Holder:
        """Who a request or a websocket speaks for, from its session (a mapping; None without
        one) and its user (anonymous, or None): the account when signed in, else the session's
        guest, and the session's seat key either way."""
        user_id = user.pk if user is not None and user.is_authenticated else None
        if session is None:
            return cls(user_id=user_id)
        guest_id = session.get(GUEST_SESSION_KEY) if user_id is None else None
        return cls(user_id=user_id, guest_id=guest_id, key=session.get(HOLDER_SESSION_KEY) or "")

    def holds(self, seat: SeatKeys) -> bool:
        if seat.bot_level or not seat.holder_key:
            return False
        if self.key and seat.holder_key == self.key:
            return True
        if self.user_id is not None and seat.user_id == self.user_id:
            return True
        return self.guest_id is not None and seat.guest_id == self.guest_id


# When the phones at this process's tables were last heard, by table and seat id, as the last
# heartbeat round read them from the database (`snapshots.refresh_presence`). Presence moves at
# every seat every round without a new version of the table, so it is kept beside the states,
# not in them: a round that made a new state of every table (its seats copied with the new
# moments) made some 25 objects a table for Python's cycle collector, a young pass every few
# seconds in a loaded server, each holding every phone's next view for 0.1-0.2 s. Replaced
# whole, never changed: a reader in another thread sees one round or the next. Moments are not
# tracked by the collector, nor dicts holding only them.
_heard: dict[int, dict[int, datetime | None]] = {}


def set_presence(heard: dict[int, dict[int, datetime | None]]) -> None:
    """The presence a heartbeat round read (`_heard`)."""
    global _heard
    _heard = heard


def presence_round() -> dict[int, dict[int, datetime | None]]:
    return _heard


# When this process last began to keep the tables' time again after a gap in which it could
# not hear its phones (it started, or its heartbeats reach the database again), and whether it
# is in such a gap now (a heartbeat round or a look of the clock failed). Every clock that
# counts a person's time (her phone's grace, her turn, her answer) counts from then at the
# earliest (`Moment.resumed_at`): a phone the server could not hear is not a phone gone quiet,
# so a player is never played for or put on a break for the server's own fault.
_resumed: datetime | None = None
_deaf = False


def server_started(at: datetime) -> None:
    """The server started at `at`: the phones it served before get their grace to reconnect."""
    global _resumed, _deaf
    _resumed, _deaf = at, False


def phones_unheard() -> None:
    """The phones here cannot be heard now (the database is out of reach): until
    `phones_heard`, every person's clock starts afresh at every look."""
    global _deaf
    _deaf = True


def phones_heard(at: datetime) -> None:
    """The phones' presence reaches the database again at `at` (after `phones_unheard`;
    nothing otherwise)."""
    global _resumed, _deaf
    if _deaf:
        _resumed, _deaf = at, False


def unheard() -> bool:
    return _deaf


def resumed_at() -> datetime | None:
    """The moment no person's clock at a table counts from before (None: no gap)."""
    return datetime.now(UTC) if _deaf else _resumed


def forget_resumed() -> None:
    """No gap (a test's fresh start)."""
    global _resumed, _deaf
    _resumed, _deaf = None, False


def last_seen(seat: Seat) -> datetime | None:
    """When `seat`'s phone was last heard: its row's moment (set as it was taken) or the last
    heartbeat round's, whichever is later (both only ever move on)."""
    return _seen_in(seat, _heard.get(seat.table_id))


def _seen_in(seat: Seat, round_: dict[int, datetime | None] | None) -> datetime | None:
    """`last_seen` with the round of the seat's table already read."""
    seen: datetime | None = seat.last_seen
    moment = round_.get(seat.pk) if round_ is not None else None
    if moment is None or (seen is not None and seen >= moment):
        return seen
    return moment


# What `Holder.holds` reads of each seat of a list of seats (`TableState._seat_keys`).
type SeatsKeys = tuple[list[Seat], list[tuple[int, SeatKeys]]]

# The seats as a state's clock saw them (`TableState._clock_seats`): the list of seats and the
# slate they were seen for, what the clock sees of each, who is away, the presence round read.
type ClockSeats = tuple[
    list[Seat],
    bool,
    tuple[table_rules.Seat, ...],
    tuple[str, ...],
    dict[int, datetime | None] | None,
]


@dataclass
class TableState:
    table: Table
    seats: list[Seat]
    rubber: Rubber | None = None
    hand_row: PlayedHand | None = None
    hand: Hand | None = None
    # hand seat -> table seat, for the current hand
    hand_seats: list[int] = field(default_factory=list)
    # A change in the making (`editable_state`): the version it started from, and how many of
    # the hand's actions were there then; None once it does more than add actions to the hand
    # (a deal, the end of a hand), or for a state read from the database.
    base: tuple[int, int] | None = None
    # The hand's record has new actions that are not written yet (the store writes them
    # with the table's row).
    record_changed: bool = False
    # The change's other rows (seats, a new rubber or hand, a rubber's end), written in the
    # change's transaction once the table's row is claimed at the version it was read at.
    later: list[Callable[[], None]] = field(default_factory=list)
    # Rows beside the table's that plain statements write (the end of a hand, a new hand): each
    # makes its statements for the connection that writes the change (the store), so the event
    # loop's writers send them too, and a hand's end or a deal needs no trip to a worker thread.
    statements: list[Callable[[Any], list[Statement]]] = field(default_factory=list)
    # A new hand dealt from the version this was (the rubber unchanged): another process takes
    # the table's fields from the change message and reads only the new hand's row.
    dealt_from: int | None = None
    # The id of the phone's action this change takes (the store writes its receipt): the views
    # rendered from this state tell the phone that sent it (games/live/consumers.py).
    taken: str | None = None
    # What the state has worked out once and keeps (`rules`, `_clock_seats`).
    parsed_rules: HouseRules | None = field(default=None, repr=False, compare=False)
    clock_seats: ClockSeats | None = field(default=None, repr=False, compare=False)
    seat_keys: SeatsKeys | None = field(default=None, repr=False, compare=False)

    @property
    def rules(self) -> HouseRules:
        # Parsed (and checked) once per state: views and deadlines ask for it many times.
        rules = self.parsed_rules
        if rules is None:
            rules = self.parsed_rules = self.table.rules()
        return rules

    def same_rules_as(self, earlier: TableState) -> TableState:
        """This state, with the house rules `earlier` has parsed already when its table holds
        the same ones (a copy of `earlier`'s table row, or the row read again with rules
        equal to them): a change, a heard change or a deadline makes a new state, and parsing
        the rules again was a few per cent of a busy server's time (`HouseRules` is frozen)."""
        parsed = earlier.parsed_rules
        mine, theirs = self.table.rules_json, earlier.table.rules_json
        if parsed is not None and (mine is theirs or mine == theirs):
            self.parsed_rules = parsed
        # The clock's view of the seats too: it is checked against the seats at each use.
        if earlier.clock_seats is not None:
            self.clock_seats = earlier.clock_seats
        # And what `held_by` reads of them, checked the same way.
        if earlier.seat_keys is not None:
            self.seat_keys = earlier.seat_keys
        return self

    def hand_seat(self, table_seat: int) -> int | None:
        try:
            return self.hand_seats.index(table_seat)
        except ValueError:
            return None

    def table_seat(self, hand_seat: int) -> int:
        return self.hand_seats[hand_seat]

    def hand_name(self) -> str:
        """The hand being played, as "rubber/hand" (what an action names it by)."""
        rubber = self.rubber.number if self.rubber is not None else 0
        return f"{rubber}/{self.hand_row.number if self.hand_row is not None else 0}"

    def held_by(self, holder: Holder) -> list[int]:
        return [index for index, keys in self._seat_keys() if holder.holds(keys)]

    def _seat_keys(self) -> list[tuple[int, SeatKeys]]:
        """Each seat's index and what `Holder.holds` reads of it, kept while the state holds
        the same list of seats (a change to a seat makes a new list: `_changed_seat`) and
        passed on to the next state with the rules: every phone's view asks at every change
        who its phone holds, and a seat's member and guest are read through Django's
        descriptors, in Python (1.3% of an action's instructions, read for each phone)."""
        kept = self.seat_keys
        if kept is not None and kept[0] is self.seats:
            return kept[1]
        keys = [(seat.index, seat_keys(seat)) for seat in self.seats]
        self.seat_keys = (self.seats, keys)
        return keys

    def observe(
        self, table_seat: int | None, public: dict[str, Any] | None = None
    ) -> Observation | None:
        """`table_seat`'s observation of the hand (`public`: the hand's `public_fields`, when
        the caller observes it for several seats)."""
        if self.hand is None:
            return None
        hand_seat = None if table_seat is None else self.hand_seat(table_seat)
        if hand_seat is not None and self.table.status != PLAYING:
            # Once the rubber is over a seat may change hands: the last hand is shown to
            # everyone as it is to a spectator, never with its unplayed cards to whoever sits
            # there next.
            hand_seat = None
        # A player who is out of the rubber watches like a spectator.
        return observe(self.hand, hand_seat, public)

    def engine_rubber(self, with_hand: bool = True) -> EngineRubber:
        """The rubber as the engine plays it; `with_hand` False: as it stands between hands,
        without a hand the slate opened and nothing is written on yet."""
        row = self.rubber
        assert row is not None
        rubber = EngineRubber(
            self.rules,
            list(row.players),
            dealer=row.dealer,
            lives=list(row.lives),
            number=row.number,
            over=row.over,
            slate=self.table.slate,
            went_out=tuple(row.went_out),
            buy_backs=[(int(seat), int(before)) for seat, before in row.buy_backs],
            pot_takers=tuple(row.pot_takers),
        )
        if self.hand is not None and with_hand:
            rubber.hand = self.hand
            rubber.hand_seats = tuple(self.hand_seats)
        return rubber

    def buy_back_refusal(self, index: int) -> BuyBackRefused | None:
        """Why seat `index`'s player may not buy back in now, or None (rules.md 3.10): between
        the hand she went out in and the next deal (at a slate, until the next hand's first
        entry), never a computer player, nor a player away."""
        rubber = self.rubber
        if not self.rules.buy_back or rubber is None or self.table.status != PLAYING:
            return BuyBackRefused("no_buy_back" if not self.rules.buy_back else "rubber_over")
        seat = self.seats[index]
        engine = self.engine_rubber(with_hand=table_rules.under_way(self.hand))
        return engine.buy_back_refusal(index, bot=bool(seat.bot_level), away=bool(seat.away))

    def buyers(self) -> tuple[int, ...]:
        """The seats whose players may buy back in now: the next deal waits for them."""
        if not self.rules.buy_back or self.rubber is None or self.hand_under_way():
            return ()
        return tuple(i for i in range(len(self.seats)) if self.buy_back_refusal(i) is None)

    def pot(self) -> int:
        """The pot of the rubber as it stands, in cents (0: no pot)."""
        rubber = self.rubber
        if rubber is None or not rubber.pot_stake:
            return 0
        return pot_cents(rubber.pot_stake, len(rubber.players), len(rubber.buy_backs))

    def hand_under_way(self) -> bool:
        """A hand of the rubber is being played: no round is bought now (rules.md 3.8)."""
        playing = self.table.status == PLAYING and self.rubber is not None
        return playing and table_rules.under_way(self.hand)

    def round_bought(self, index: int) -> bool:
        """The player in seat `index` bought her round of this rubber already; between
        rubbers, a round counts for the next one."""
        rubber = self.rubber
        playing = self.table.status == PLAYING and rubber is not None
        this_rubber = (rubber.number if playing else rubber.number + 1) if rubber else 1
        bought: int | None = self.seats[index].round_in_rubber
        return bought == this_rubber

    def away_choices(self, index: int) -> list[str]:
        """What may be said now of seat `index`'s player being away: "break", "round", "back"."""
        if self.table.status == CLOSED:
            return []
        seat = self.seats[index]
        return table_rules.away_choices(
            self.rules,
            seat.away,
            seat.back_at_deal,
            self.hand_under_way(),
            self.round_bought(index),
            self.out_of_rubber(index),
        )

    def out_of_rubber(self, index: int) -> bool:
        """Whether seat `index`'s player has no lives left in the rubber under way."""
        rubber = self.rubber
        if self.table.status != PLAYING or rubber is None or rubber.over:
            return False
        lives = rubber.lives
        return index < len(lives) and lives[index] <= 0

    def laundry_open(self, now: datetime) -> bool:
        return table_rules.laundry_open(self.hand, self.table.laundry_until, now)

    def moment(self) -> table_rules.Moment:
        """The table as its clock's rules see it (games.engine.table)."""
        table = self.table
        seats, away = self._clock_seats()
        return table_rules.Moment(
            hand=self.hand,
            hand_seats=self.hand_seats,
            seats=seats,
            changed_at=table.changed_at,
            playing=table.status == PLAYING and self.rubber is not None,
            rubber_over=self.rubber is not None and self.rubber.over,
            laundry_until=table.laundry_until,
            laundry_ready=table.laundry_ready,
            bots_offered=table.bots_offered,
            awaiting_since=table.awaiting_since,
            away=away,
            paused=table.paused,
            resumed_at=resumed_at(),
            buyers=self.buyers(),
        )

    def _clock_seats(self) -> tuple[tuple[table_rules.Seat, ...], tuple[str, ...]]:
        """The seats as the clock sees them, and who is away; kept while the state holds the
        same list of seats (a change to a seat makes a new list: `changed_seat`) and no
        heartbeat round has been heard since (`set_presence`), and passed on to the next state
        with the rules (`same_rules_as`): the views and the deadlines ask for a moment at every
        change."""
        kept = self.clock_seats
        slate = self.table.slate
        round_ = _heard.get(self.table.pk)
        if kept is not None and kept[0] is self.seats and kept[1] == slate and kept[4] is round_:
            return kept[2], kept[3]
        seats = tuple(
            table_rules.Seat(
                bot=bool(s.bot_level),
                last_seen=_seen_in(s, round_),  # the round the moment is kept for
                # A slate's players have no phones: one keeps the slate for all.
                person=bool(s.holder_key) and not s.bot_level and not slate,
                back=s.back_at_deal,
            )
            for s in self.seats
        )
        away = tuple(seat.away for seat in self.seats)
        self.clock_seats = (self.seats, slate, seats, away, round_)
        return seats, away

    def away_seats(self, now: datetime) -> set[int]:
        """The seats of people whose phones have not been heard from lately."""
        since = now - timedelta(seconds=seconds("TOEPEN_PRESENCE_SECONDS"))
        resumed = resumed_at()
        if resumed is not None and resumed >= since:
            return set()  # nobody has been unheard for long since the server resumed
        round_ = _heard.get(self.table.pk)
        return {
            seat.index
            for seat in self.seats
            if seat.holder_key
            and not seat.bot_level
            and ((seen := _seen_in(seat, round_)) is None or seen < since)
        }


def take_hand(state: TableState, hand_row: PlayedHand) -> None:
    """`hand_row` as `state`'s hand: its seats, and the hand replayed from its record."""
    state.hand_row = hand_row
    state.hand_seats = list(hand_row.seats)
    state.hand = replayed(hand_row.record)


def finish_hand(state: TableState, now: datetime) -> Any:
    """The end of `state`'s hand (complete): the hand's result and the rubber as the rules
    leave them, in `state`'s own rows (changes.rubbers.end_hand saves them; another process moves
    its snapshot through the same end without a query). The engine's outcome."""
    hand, row, rubber_row = state.hand, state.hand_row, state.rubber
    assert hand is not None and hand.complete and row is not None and rubber_row is not None
    rubber = state.engine_rubber()
    outcome = rubber.finish_hand()
    row.complete = True
    row.result = outcome.result
    row.finished_at = now
    rubber_row.lives = rubber.lives
    rubber_row.dealer = rubber.dealer
    rubber_row.over = rubber.over
    rubber_row.winner = rubber.winner
    rubber_row.losers = list(rubber.losers)
    rubber_row.went_out = list(rubber.went_out)
    rubber_row.pot_takers = list(rubber.pot_takers)
    table = state.table
    if rubber.over:
        rubber_row.finished_at = now
        table.status = RUBBER_OVER
    table.laundry_until = None
    table.awaiting_since = None
    return outcome


# The table's fields a change writes (games/services/store/), as a change message carries them.
# Every field of `Table` is here or in OPENING_FIELDS (tests/services/test_changed_fields.py):
# a field a change sets but the claim leaves out would be lost at the next read.
CHANGED_FIELDS: Final = (
    "version",
    "changed_at",
    "laundry_until",
    "laundry_ready",
    "awaiting_since",
    "status",
    "bots_offered",
    "deadline_at",
    "paused",
)
# The table's fields set when it opens, which no change writes (the claim would write a copy's
# old value over whatever else set them).
OPENING_FIELDS: Final = (
    "id",
    "club_id",
    "code",
    "created_by_id",
    "profile_id",
    "profile_name",
    "rules_json",
    "seat_count",
    "allow_spectators",
    "night_id",
    "slate",
    "slate_keepers",
    "created_at",
)
# The changed fields that hold a moment: a change message carries them as ISO text (JSON has
# no moments), read from the model, so none can be missed.
MOMENTS: Final = tuple(
    name
    for name in CHANGED_FIELDS
    if Table._meta.get_field(name).get_internal_type() == "DateTimeField"
)


def change_of(state: TableState) -> dict[str, Any] | None:
    """What another process needs to move its snapshot of the table to `state` (just
    committed) without reading the database, or with one read: the version it starts from, the
    table's new fields, and the actions added to the hand or the new hand's number in the
    rubber (a deal: its key is the database's, not known before it is written). Only
    public facts: the actions are what everybody at the table saw happen, and the cards they
    deal stay inside each process's own copy of the hand. None when the change did more (a
    new rubber): the other processes read the table."""
    if state.hand is None or state.hand_row is None:
        return None
    table = state.table
    fields = {name: getattr(table, name) for name in CHANGED_FIELDS}
    for name in MOMENTS:
        fields[name] = fields[name].isoformat() if fields[name] is not None else None
    fields_of = {"table": fields}
    if state.base is not None:
        version, known = state.base
        actions = state.hand_row.record["actions"][known:]
        return {"base": version, "actions": actions, "table": fields}
    if state.dealt_from is not None:
        known = len(state.hand_row.record["actions"])
        number = state.hand_row.number
        return {"base": state.dealt_from, "deal": number, "known": known, **fields_of}
    return None
