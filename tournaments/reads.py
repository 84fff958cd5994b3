"""What a tournament's pages show, read in a fixed number of queries whatever its size: the
players, the rounds and their tables, and the leaderboard, counted from the first rubber of
each table the rounds opened (games.models), never from a copy.

At a table the winner is first, then those who did not lose by fewer lives lost, then those
who lost by fewer lives lost; players alike share their places, and the points of the places
they share are split between them (5, 3, 2, 1 with two second: 2.5 each). The leaderboard
orders by points, then fewer lives lost, then the result between the tied players (how often
each placed above the others at the tables they shared); a final table, once played, decides
the top places in its own order.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from django.db.models import Count, Max, Q
from django.urls import reverse

from games.models import Rubber, RubberPlayer, Table
from tournaments.models import DrawnSeat, DrawnTable, Entry, Tournament


@dataclass
class Player:
    """A place at a drawn table: who sat there and, once its rubber is over, how it went."""

    entry_id: int
    name: str
    seat: int
    place: int | None = None
    points: Fraction | None = None
    lives_lost: int | None = None

    @property
    def points_shown(self) -> str:
        return "" if self.points is None else show_points(self.points)


@dataclass
class TableRead:
    number: int
    code: str
    slate: bool
    status: str
    players: list[Player]
    # The table's first rubber: the one that counts (None before it starts).
    rubber_id: int | None = None
    done: bool = False
    abandoned: bool = False

    @property
    def names(self) -> str:
        return ", ".join(player.name for player in self.players)

    @property
    def url(self) -> str:
        return reverse("games:slate" if self.slate else "games:table", args=[self.code])


@dataclass
class RoundRead:
    number: int
    final: bool
    tables: list[TableRead]

    @property
    def done(self) -> bool:
        return all(table.done for table in self.tables)

    @property
    def playing(self) -> list[TableRead]:
        return [table for table in self.tables if not table.done]


@dataclass
class Standing:
    entry_id: int
    name: str
    left: bool
    rank: int = 0
    points: Fraction = Fraction(0)
    lives_lost: int = 0
    played: int = 0
    head_to_head: int = 0
    final_place: int | None = None
    places: list[int] = field(default_factory=list)

    @property
    def points_shown(self) -> str:
        return show_points(self.points)


def show_points(points: Fraction) -> str:
    """Points as a person writes them: 5, 2.5, 3.33."""
    if points.denominator == 1:
        return str(points.numerator)
    return f"{float(points):.2f}".rstrip("0")


@dataclass
class Page:
    tournament: Tournament
    entries: list[Entry]
    rounds: list[RoundRead]
    standings: list[Standing]
    # What `shown_page` read it at (empty when read for a change): names its parts in a cache.
    version: tuple = ()

    @property
    def version_key(self) -> str:
        return "-".join(str(part) for part in self.version).replace(" ", "_")

    @property
    def current(self) -> RoundRead | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def playing(self) -> bool:
        return self.current is not None and not self.current.done

    @property
    def regular_done(self) -> int:
        return sum(1 for read in self.rounds if not read.final)

    @property
    def final_drawn(self) -> bool:
        return any(read.final for read in self.rounds)

    @property
    def over(self) -> bool:
        """Every round drawn and played, the final too when there is one."""
        t = self.tournament
        if self.playing or self.regular_done < t.rounds:
            return False
        return self.final_drawn or not t.final_size

    @property
    def next_is_final(self) -> bool:
        t = self.tournament
        return bool(t.final_size) and self.regular_done >= t.rounds and not self.final_drawn

    def table_of(self, entry_id: int | None) -> TableRead | None:
        """The player's table in the round drawn last, if she has one there."""
        if self.current is None or entry_id is None:
            return None
        return next(
            (t for t in self.current.tables if any(p.entry_id == entry_id for p in t.players)),
            None,
        )

    @property
    def active(self) -> list[Entry]:
        """Who the next round's draw takes."""
        number = len(self.rounds) + 1
        return [e for e in self.entries if not e.left and e.from_round <= number]


# The pages read last, by tournament, each with the version it was read at: a page is read
# again only when something it shows has changed. Kept in the process (never shared, nothing to
# unpickle), a few tournaments at a time; the pages' views never change what they are given.
_READ: OrderedDict[int, tuple[tuple, Page]] = OrderedDict()
_READ_KEPT = 8
_READ_LOCK = threading.Lock()


def version(tournament: Tournament) -> tuple:
    """What the page shows changes only with this (three aggregate queries): the players
    (registered, leaving), the drawn tables and how many are closed, and the tables' first
    rubbers: how many started, ended or were abandoned, and the last moment one ended (a
    slate's undo that reopens a rubber's last hand and ends it again ends it later). A card
    played moves none of it."""
    entries = Entry.objects.filter(tournament=tournament).aggregate(
        n=Count("pk"), last=Max("pk"), left=Count("pk", filter=Q(left=True))
    )
    tables = DrawnTable.objects.filter(round__tournament=tournament).aggregate(
        n=Count("pk"),
        last=Max("table_id"),
        closed=Count("pk", filter=Q(table__status=Table.Status.CLOSED)),
    )
    rubbers = Rubber.objects.filter(
        table__tournament_table__round__tournament=tournament, number=1
    ).aggregate(
        n=Count("pk"),
        over=Count("pk", filter=Q(over=True)),
        abandoned=Count("pk", filter=Q(abandoned=True)),
        ended=Max("finished_at"),
    )
    return (
        tournament.created_at,
        *(entries[name] for name in ("n", "last", "left")),
        *(tables[name] for name in ("n", "last", "closed")),
        *(rubbers[name] for name in ("n", "over", "abandoned", "ended")),
    )


def shown_page(tournament: Tournament) -> Page:
    """`page(tournament)` for the pages that only show it: read again only when its
    `version` moved since this process last read it. Not for a change, which reads the page
    it decides on afresh under the tournament's lock."""
    now = version(tournament)
    with _READ_LOCK:
        kept = _READ.get(tournament.pk)
        if kept is not None and kept[0] == now:
            _READ.move_to_end(tournament.pk)
            return kept[1]
    read = page(tournament)
    read.version = now
    with _READ_LOCK:
        _READ[tournament.pk] = (now, read)
        _READ.move_to_end(tournament.pk)
        while len(_READ) > _READ_KEPT:
            _READ.popitem(last=False)
    return read


def place_key(won: bool, lost: bool, lives_lost: int) -> tuple[int, int]:
    """A player's place at a table, smaller first: won, survived, lost; then lives lost."""
    return (0 if won else 2 if lost else 1), lives_lost


def placed(keys: Sequence[tuple[int, int]], points: Sequence[int]) -> list[tuple[int, Fraction]]:
    """Each player's place (1 first; alike players share the best of their places) and her
    points, the points of the places she shares split evenly."""
    order = sorted(range(len(keys)), key=lambda i: keys[i])
    out: list[tuple[int, Fraction]] = [(0, Fraction(0))] * len(keys)
    at = 0
    while at < len(order):
        end = at
        while end < len(order) and keys[order[end]] == keys[order[at]]:
            end += 1
        shared = [points[i] if i < len(points) else 0 for i in range(at, end)]
        share = Fraction(sum(shared), end - at)
        for i in order[at:end]:
            out[i] = (at + 1, share)
        at = end
    return out


def page(tournament: Tournament) -> Page:
    entries = list(Entry.objects.filter(tournament=tournament).order_by("pk"))
    names = {entry.pk: entry.name for entry in entries}
    tables = list(
        DrawnTable.objects.filter(round__tournament=tournament)
        .order_by("round__number", "number")
        .values(
            "pk",
            "number",
            "round__number",
            "round__final",
            "table_id",
            "table__code",
            "table__slate",
            "table__status",
        )
    )
    seats = DrawnSeat.objects.filter(round__tournament=tournament).values_list(
        "table_id", "entry_id", "seat"
    )
    rubbers = {
        row["table_id"]: row
        for row in Rubber.objects.filter(
            table__tournament_table__round__tournament=tournament, number=1
        ).values("pk", "table_id", "over", "abandoned")
    }
    results: dict[int, dict[int, tuple[int, int]]] = defaultdict(dict)
    for table_id, seat, won, lost, lives_lost in RubberPlayer.objects.filter(
        rubber__table__tournament_table__round__tournament=tournament,
        rubber__number=1,
        rubber__over=True,
        rubber__abandoned=False,
    ).values_list("rubber__table_id", "seat", "won", "lost", "lives_lost"):
        results[table_id][seat] = (place_key(won, lost, lives_lost)[0], lives_lost)
    by_table: dict[int, list[Player]] = defaultdict(list)
    for drawn_id, entry_id, seat in seats:
        by_table[drawn_id].append(Player(entry_id, names.get(entry_id, ""), seat))
    points = [int(p) for p in tournament.points]
    rounds: list[RoundRead] = []
    for row in tables:
        players = sorted(by_table[row["pk"]], key=lambda player: player.seat)
        rubber = rubbers.get(row["table_id"])
        closed = row["table__status"] == Table.Status.CLOSED
        read = TableRead(
            number=row["number"],
            code=row["table__code"],
            slate=row["table__slate"],
            status=row["table__status"],
            players=players,
            rubber_id=rubber["pk"] if rubber else None,
            done=closed or bool(rubber and (rubber["over"] or rubber["abandoned"])),
            abandoned=closed and not (rubber and rubber["over"]),
        )
        result = results.get(row["table_id"])
        if result and len(result) == len(players):
            keys = [result[player.seat] for player in players]
            for player, key, (place, share) in zip(
                players, keys, placed(keys, points), strict=True
            ):
                player.place, player.points, player.lives_lost = place, share, key[1]
        if not rounds or rounds[-1].number != row["round__number"]:
            rounds.append(RoundRead(row["round__number"], row["round__final"], []))
        rounds[-1].tables.append(read)
    return Page(tournament, entries, rounds, leaderboard(entries, rounds))


def leaderboard(entries: Sequence[Entry], rounds: Sequence[RoundRead]) -> list[Standing]:
    rows = {entry.pk: Standing(entry.pk, entry.name, entry.left) for entry in entries}
    # Per pair of players, how often the first placed above the second at a shared table.
    above: dict[tuple[int, int], int] = defaultdict(int)
    final: list[Player] = []
    for read in rounds:
        for table in read.tables:
            scored = [p for p in table.players if p.place is not None]
            if read.final:
                final = scored if len(scored) == len(table.players) else []
                continue
            for player in scored:
                row = rows[player.entry_id]
                assert player.points is not None and player.place is not None
                row.points += player.points
                row.lives_lost += player.lives_lost or 0
                row.played += 1
                row.places.append(player.place)
            for a in scored:
                for b in scored:
                    if a.place is not None and b.place is not None and a.place < b.place:
                        above[(a.entry_id, b.entry_id)] += 1
    board = sorted(rows.values(), key=lambda row: (-row.points, row.lives_lost))
    # The result between the tied players: each one's wins over the others of her group.
    start = 0
    while start < len(board):
        end = start
        tie = (board[start].points, board[start].lives_lost)
        while end < len(board) and (board[end].points, board[end].lives_lost) == tie:
            end += 1
        group = board[start:end]
        for row in group:
            row.head_to_head = sum(
                above[(row.entry_id, other.entry_id)] - above[(other.entry_id, row.entry_id)]
                for other in group
                if other is not row
            )
        board[start:end] = sorted(group, key=lambda row: (-row.head_to_head, row.name.lower()))
        start = end
    if final:
        finalists = {p.entry_id: p.place for p in final}
        for row in board:
            row.final_place = finalists.get(row.entry_id)
        top = sorted(
            (row for row in board if row.final_place is not None),
            key=lambda row: row.final_place or 0,
        )
        board = top + [row for row in board if row.final_place is None]

    def key(row: Standing) -> tuple:
        if row.final_place is not None:
            return (0, row.final_place)
        return (1, -row.points, row.lives_lost, -row.head_to_head)

    for i, row in enumerate(board):
        row.rank = board[i - 1].rank if i and key(board[i - 1]) == key(row) else i + 1
    return board
