"""What a phone is shown of a table, as typed values: the part every phone of a render shares
(`PublicView`) and each phone's own (`SeatView`).

`games.view.context` builds them from a state; `games.view.html` writes them out. The public
part is built once for all the phones of a render and its markup is shared between them, so it
may hold public facts only: its fields' types admit no seat's own values (a `HeldCard`, a
`Button`, an `Observation`), and mypy refuses one put there (tests/view/test_parts.py). Named
tuples: a view is made for every phone at every change, and compiled (games/compiled.py)
a named tuple costs a fraction of what a frozen dataclass costs to make.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

# -- the public part: what every phone at the table sees alike ----------------------------------


class CardView(NamedTuple):
    """A card every phone may see: played to a trick, shown by a challenge, or in a hand
    played open."""

    token: str  # "10H": games.engine.TOKENS


class PlayedCard(NamedTuple):
    """A card on the felt and who played it (a table seat)."""

    seat: int
    name: str
    card: CardView


class Reveal(NamedTuple):
    """The laid-aside cards a challenge turned over, and what they showed."""

    challenger: str
    target: str
    cards: tuple[CardView, ...]
    clean: bool


class PlayerView(NamedTuple):
    """One player's place at the table, as every phone sees it (her own phone's mark aside).
    It holds everything her place's markup reads, and only values that hash: the markup is kept
    by it from one version to the next (games.view.html `_player`), where an action changes one
    or two of a table's players."""

    seat: int
    name: str
    free: bool
    bot: str  # a computer player's level ("easy", ...), "" for a person
    away: bool
    # Away from the table by her own word (rules.md 3.8): "break" or "round".
    away_reason: str
    back_at_deal: bool
    due: bool
    lives: int | None
    strokes: tuple[bool, ...]
    in_hand: bool = False
    folded: bool = False
    dealer: bool = False
    knocks: int = 0
    announcement: str | None = None
    poor: bool = False
    open_hand: tuple[CardView, ...] = ()


class LivesLost(NamedTuple):
    name: str | None
    lives: int


class HandResult(NamedTuple):
    """How a finished hand ended, by the players' names."""

    winner: str | None
    lost: tuple[LivesLost, ...]
    next_dealer: str | None
    stake: int


class RubberResult(NamedTuple):
    """Who won and who lost a finished rubber."""

    winner: str | None
    losers: tuple[str, ...]
    outright: bool  # the rubber is played to the last one standing


class PublicView(NamedTuple):
    """The part of a view that every phone at the table sees alike, in any language: made from
    a spectator's observation of the hand (no seat's own cards), once for the phones of a
    render, and written once per language for them (`Shared`)."""

    code: str  # the table's
    version: int
    status: str
    paused: bool
    # Which hand, and how many of its actions, this view shows (for a phone's own checks).
    hand_number: int
    hand_name: str  # "rubber/hand", as an action names its hand
    rubber_number: int
    step: int
    due: tuple[int, ...]  # table seats
    due_names: tuple[str, ...]
    awaiting_names: tuple[str, ...]  # who must still answer a knock
    players: tuple[PlayerView, ...]
    stake: int | None
    trick: tuple[PlayedCard, ...]  # the trick being played
    last_trick: tuple[PlayedCard, ...]  # the trick just taken, while no card of the next is out
    taker: int | None  # who took the last trick (a table seat)
    taker_name: str
    trick_key: str  # which trick of which hand is on the felt
    clocks: dict[int, int]  # seconds before the table plays for each due person, by seat
    reveals: tuple[Reveal, ...]
    laundry_open: bool
    laundry_seconds: int | None
    answer_seconds: int | None
    hand_result: HandResult | None
    rubber_result: RubberResult | None
    knocks_total: int
    last_knocker: int | None
    # A rubber played for the pot (rules.md 3.10): the pot as it stands, in cents of
    # `currency`, and once it is over who took it (by name, the first given any odd cent).
    pot: int = 0
    currency: str = "EUR"
    pot_takers: tuple[str, ...] = ()


# -- the seat's own part: what one phone is shown besides -------------------------------------


class HeldCard(NamedTuple):
    """A card in the shown seat's own hand: seen by her phone alone."""

    token: str
    playable: bool  # the table takes it from her now


class Button(NamedTuple):
    """A button of the shown seat: the frame it sends (as htmx sends it) and its words."""

    act: str
    vals_json: str
    text: str


class KnockButton(NamedTuple):
    """The knock button, always in one place: enabled (`vals_json`), or disabled with the
    engine's reason why not."""

    vals_json: str  # "" when she may not knock now
    text: str
    reason: str


class SeatView(NamedTuple):
    """What one phone is shown besides the public part: whose cards it shows, those cards, and
    the buttons of the seat shown."""

    language: str
    seats: tuple[int, ...]  # the seats the phone holds
    active: int | None  # the seat whose cards it shows
    active_name: str
    hand_owner: str  # a shared phone says whose cards it shows
    # Out of the rubber (no lives left) when every one of its players is; still in the hand
    # (not folded) when any one is.
    out: bool
    in_hand: bool
    # A shared phone whose due player is not the one shown covers the cards until she taps.
    privacy_for: int | None
    privacy_name: str
    cards: tuple[HeldCard, ...]
    knock: KnockButton | None
    # Stay and fold on a knock make the answer window, the laundry's buttons a sheet of their
    # own (both over the felt); the rest sit beside the knock button.
    answer_buttons: tuple[Button, ...]
    laundry_buttons: tuple[Button, ...]
    other_buttons: tuple[Button, ...]
    away_buttons: tuple[Button, ...]  # a break, a round, and back
    my_clock: int | None  # the turn clock of the shown seat
    # What the phone's script needs to name gestures and give cues; never a rule decided
    # there: a swipe sends the fold the server offered.
    fold_vals: str
    my_turn: bool
    # The id of this phone's action the view's change took: the view is its acknowledgement.
    ack: str
    challenge_cost: str
    can_start: bool
    can_close: bool
    can_leave: bool


class Shared:
    """What the views of one render pass share (one pass over a process's phones at a version):
    the moment they are rendered at, the hand's public fields, the public part, its markup by
    language, and the forms' script prefix and URL conf. Built by the first view of the pass,
    read by the rest; never a seat's own part."""

    def __init__(self, now: datetime | None = None) -> None:
        self.now: datetime | None = now
        self.fields: dict[str, Any] | None = None  # games.engine.public_fields of the hand
        self.public: PublicView | None = None
        self.felt: dict[str, str] = {}  # the felt's markup, by language
        # The players' places by language: each seat, its `<li>`'s classes and the rest of it.
        self.places: dict[str, list[tuple[int, str, str]]] = {}
        self.urls: tuple[str, Any] | None = None  # get_script_prefix(), get_urlconf()
