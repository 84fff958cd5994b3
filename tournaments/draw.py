"""The draw of a tournament round: the players spread over tables as evenly as they can be,
nobody twice, and no two players together again while a draw without a repeat exists.

Pure Python, no Django: players are whole numbers (the entries' ids), `met` counts how often
each pair already shared a table. A complete search (a player with the fewest possible
companions first, then every group of companions she may sit with) finds a draw without a
repeated pair whenever one exists, within a budget of steps far above what a small field
needs; when there is none, or the budget runs out on a big field, a search of swaps between
tables (the swap that helps most, none undone at once) looks on for a draw without a repeat,
and else brings the repeats down to as few as it finds.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from itertools import combinations

# Never a table of two; and no more at one table than the engine seats sensibly for a draw.
SMALLEST = 3
LARGEST = 6
# Steps of the complete search before it gives up looking for a draw without a repeat: a
# field of nine players tries every draw there is in far fewer.
SEARCH_BUDGET = 20_000
# The search of swaps that brings the repeats down when no draw without one was found: each
# swap weighs every player, so its number of swaps is this divided by the players (a draw
# that needs a repeat costs a fraction of a second at any size).
SWAP_BUDGET = 200_000
SWAP_STEPS = 5_000  # and no more swaps than this on a small field

Pair = tuple[int, int]


class DrawError(Exception):
    """The players cannot be seated so (too few for a table of three)."""


def pair(a: int, b: int) -> Pair:
    return (a, b) if a < b else (b, a)


def table_sizes(players: int, size: int) -> list[int]:
    """How `players` sit at tables of at most `size`: as many tables as that takes, their
    sizes at most one apart, largest first; fewer, larger tables when that would leave a
    table of two (7 at tables of 3: a 4 and a 3)."""
    if players < SMALLEST:
        raise DrawError(players)
    tables = -(-players // size)
    if players // tables < SMALLEST:
        tables = players // SMALLEST
    base, extra = divmod(players, tables)
    sizes = [base + 1] * extra + [base] * (tables - extra)
    if sizes[0] > LARGEST:
        raise DrawError(players)
    return sizes


def repeats(tables: Sequence[Sequence[int]], met: Mapping[Pair, int]) -> int:
    """How many pairs at these tables already met before."""
    return sum(1 for table in tables for a, b in combinations(table, 2) if met.get(pair(a, b)))


class _Exhausted(Exception):
    pass


def draw(
    players: Sequence[int],
    sizes: Sequence[int],
    met: Mapping[Pair, int],
    rng: random.Random,
    budget: int = SEARCH_BUDGET,
) -> list[list[int]]:
    """The round's tables (lists of players, in the order of `sizes`): without a pair that
    met before whenever such a draw exists (found within `budget` steps), else with as few
    repeats as the swaps find."""
    if sum(sizes) != len(players) or len(set(players)) != len(players):
        raise DrawError(len(players))
    order = list(players)
    rng.shuffle(order)
    partners: dict[int, set[int]] = {p: set() for p in order}
    for (a, b), times in met.items():
        if times and a in partners and b in partners:
            partners[a].add(b)
            partners[b].add(a)
    try:
        found = _search(order, sorted(sizes, reverse=True), partners, budget)
    except _Exhausted:
        found = None
    if found is None:
        found = _fewest_repeats(order, sorted(sizes, reverse=True), met, rng)
    # In the order of `sizes` asked for.
    by_size: dict[int, list[list[int]]] = {}
    for table in found:
        by_size.setdefault(len(table), []).append(table)
    return [by_size[size].pop() for size in sizes]


def _search(
    order: list[int], sizes: list[int], partners: dict[int, set[int]], budget: int
) -> list[list[int]] | None:
    """Every draw without a repeated pair, one after another until one seats everybody; None
    when none exists. Raises _Exhausted past `budget` steps."""
    rank = {p: i for i, p in enumerate(order)}
    free = set(order)
    left = list(sizes)  # table sizes still to fill, largest first
    tables: list[list[int]] = []
    steps = 0

    def room(p: int) -> int:
        """How many of the players still free p may sit with."""
        return len(free) - 1 - len(partners[p] & free)

    def seatable() -> bool:
        smallest = min(left) if left else 0
        return all(room(p) >= smallest - 1 for p in free)

    def groups(group: list[int], candidates: list[int], want: int) -> Iterator[list[int]]:
        nonlocal steps
        steps += 1
        if steps > budget:
            raise _Exhausted
        if len(group) == want:
            yield group
            return
        for i, q in enumerate(candidates):
            if len(candidates) - i < want - len(group):
                return
            rest = [r for r in candidates[i + 1 :] if r not in partners[q]]
            yield from groups([*group, q], rest, want)

    def place() -> bool:
        if not free:
            return True
        # The player with the fewest possible companions, so a dead end shows early.
        pivot = min(free, key=lambda p: (room(p), rank[p]))
        candidates = sorted(
            (q for q in free if q != pivot and q not in partners[pivot]), key=rank.__getitem__
        )
        for size in sorted(set(left), reverse=True):
            for group in groups([pivot], candidates, size):
                free.difference_update(group)
                left.remove(size)
                tables.append(group)
                if seatable() and place():
                    return True
                tables.pop()
                left.append(size)
                left.sort(reverse=True)
                free.update(group)
        return False

    return [list(table) for table in tables] if place() else None


def _fewest_repeats(
    order: list[int], sizes: list[int], met: Mapping[Pair, int], rng: random.Random
) -> list[list[int]]:
    """A draw with as few repeated pairs as a search of swaps finds, starting from the players
    in order: again and again a player who meets someone again is swapped with the player at
    another table that brings the repeats down most (or raises them least), a swap just undone
    not made again for a while, until no pair is repeated or the swaps have weighed
    `SWAP_BUDGET` players. The best draw seen is kept."""
    tables: list[list[int]] = []
    at = 0
    for size in sizes:
        tables.append(order[at : at + size])
        at += size
    if len(tables) < 2:
        return tables
    where = {p: t for t, table in enumerate(tables) for p in table}

    def weight(a: int, b: int) -> int:
        return met.get(pair(a, b), 0) if a != b else 0

    # load[p][t]: how often p met the players at table t (herself aside).
    load = {p: [sum(weight(p, q) for q in table) for table in tables] for p in order}
    total = sum(load[p][where[p]] for p in order) // 2
    best, best_total = [list(table) for table in tables], total
    tabu: dict[tuple[int, int], int] = {}
    tenure = min(10, len(order) // 4 + 1)
    for step in range(min(SWAP_STEPS, SWAP_BUDGET // len(order))):
        if not total:
            break
        clashing = [p for p in order if load[p][where[p]]]
        a = rng.choice(clashing)
        ta = where[a]
        moves: list[int] = []
        least = None
        for b in order:
            tb = where[b]
            if tb == ta:
                continue
            ab = weight(a, b)
            delta = load[a][tb] - ab + load[b][ta] - ab - load[a][ta] - load[b][tb]
            forbidden = tabu.get((a, tb), -1) > step or tabu.get((b, ta), -1) > step
            if forbidden and total + delta >= best_total:
                continue
            if least is None or delta < least:
                least, moves = delta, [b]
            elif delta == least:
                moves.append(b)
        if least is None:
            continue
        b = rng.choice(moves)
        tb = where[b]
        for p in order:
            shift = weight(p, b) - weight(p, a)
            load[p][ta] += shift
            load[p][tb] -= shift
        tables[ta][tables[ta].index(a)] = b
        tables[tb][tables[tb].index(b)] = a
        where[a], where[b] = tb, ta
        tabu[(a, ta)] = tabu[(b, tb)] = step + tenure + rng.randrange(3)
        total += least
        if total < best_total:
            best, best_total = [list(table) for table in tables], total
    return best
