"""The draw, by property: everybody at exactly one table a round, tables as even as they can
be and never of two, and a pair repeated only when no draw without a repeat exists (checked
against every draw there is, on small cases)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.draw import (
    LARGEST,
    SMALLEST,
    DrawError,
    Pair,
    draw,
    pair,
    repeats,
    table_sizes,
)


def partitions(players: list[int], sizes: list[int]) -> Iterator[list[list[int]]]:
    """Every way to seat `players` at tables of `sizes` (brute force: the first free player
    with every group of companions, for every size still open)."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for size in sorted(set(sizes)):
        left = list(sizes)
        left.remove(size)
        for companions in combinations(rest, size - 1):
            others = [p for p in rest if p not in companions]
            for more in partitions(others, left):
                yield [[first, *companions], *more]


def repeat_free_exists(players: list[int], sizes: list[int], met: dict[Pair, int]) -> bool:
    return any(repeats(tables, met) == 0 for tables in partitions(players, sizes))


@given(st.integers(min_value=3, max_value=400), st.integers(min_value=3, max_value=5))
def test_tables_are_as_even_as_they_can_be_and_never_of_two(players: int, size: int) -> None:
    sizes = table_sizes(players, size)
    assert sum(sizes) == players
    assert max(sizes) - min(sizes) <= 1
    assert all(SMALLEST <= s <= LARGEST for s in sizes)
    # As many tables as `size` asks for, unless that would leave a table of two.
    wanted = -(-players // size)
    assert len(sizes) == wanted or players // wanted < SMALLEST


@pytest.mark.parametrize("players", [0, 1, 2])
def test_fewer_than_three_players_fill_no_table(players: int) -> None:
    with pytest.raises(DrawError):
        table_sizes(players, 4)


@st.composite
def histories(draw_: st.DrawFn) -> tuple[list[int], list[int], dict[Pair, int]]:
    """A small field of players, its table sizes, and pairs that met before."""
    n = draw_(st.integers(min_value=3, max_value=9))
    size = draw_(st.integers(min_value=3, max_value=5))
    players = list(range(1, n + 1))
    all_pairs = [pair(a, b) for a, b in combinations(players, 2)]
    met_pairs = draw_(st.lists(st.sampled_from(all_pairs), unique=True, max_size=len(all_pairs)))
    return players, table_sizes(n, size), {p: 1 for p in met_pairs}


@settings(max_examples=200, deadline=None)
@given(histories(), st.integers(min_value=0, max_value=2**32))
def test_a_pair_meets_again_only_when_every_draw_repeats_one(
    case: tuple[list[int], list[int], dict[Pair, int]], seed: int
) -> None:
    players, sizes, met = case
    rng = random.Random(seed)
    tables = draw(players, sizes, met, rng)
    seated = [p for table in tables for p in table]
    assert sorted(seated) == players, "everybody exactly once"
    assert [len(table) for table in tables] == sizes
    if repeats(tables, met):
        assert not repeat_free_exists(players, sizes, met), (tables, met)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=6, max_value=13),
    st.integers(min_value=3, max_value=5),
    st.integers(min_value=2, max_value=5),
    st.integers(min_value=0, max_value=2**32),
)
def test_over_rounds_nobody_sits_twice_and_pairs_repeat_only_when_they_must(
    n: int, size: int, rounds: int, seed: int
) -> None:
    rng = random.Random(seed)
    players = list(range(10, 10 + n))
    sizes = table_sizes(n, size)
    met: dict[Pair, int] = {}
    for _ in range(rounds):
        tables = draw(players, sizes, met, rng)
        seated = [p for table in tables for p in table]
        assert len(seated) == len(set(seated)) == n
        if repeats(tables, met) and n <= 9:
            assert not repeat_free_exists(players, sizes, met)
        for table in tables:
            for a, b in combinations(table, 2):
                met[pair(a, b)] = met.get(pair(a, b), 0) + 1


def test_with_a_repeat_forced_the_draw_keeps_repeats_few() -> None:
    # Six players at two tables of three, a third round: every draw repeats a pair, and the
    # fewest repeats any draw has is what the swaps find.
    players = list(range(6))
    met = {pair(a, b): 1 for a, b in [(0, 1), (0, 2), (1, 2), (3, 4), (3, 5), (4, 5)]}
    met.update({pair(a, b): 1 for a, b in [(0, 3), (0, 4), (3, 4), (1, 2), (1, 5), (2, 5)]})
    tables = draw(players, [3, 3], met, random.Random(7))
    fewest = min(repeats(option, met) for option in partitions(players, [3, 3]))
    assert repeats(tables, met) == fewest


def test_the_draw_refuses_a_player_twice() -> None:
    with pytest.raises(DrawError):
        draw([1, 2, 3, 3], [4], {}, random.Random(1))


@pytest.mark.parametrize(
    ("players", "size", "rounds"),
    [(40, 4, 8), (40, 5, 5), (64, 4, 12), (64, 5, 9), (200, 4, 8)],
)
def test_a_big_field_meets_nobody_twice_while_its_numbers_allow_it(
    players: int, size: int, rounds: int
) -> None:
    # Round after round the complete search can run out of steps on a big field; a draw
    # without a repeat still exists at these numbers, and the draw must find it.
    for seed in range(3):
        rng = random.Random(seed)
        field = list(range(1, players + 1))
        sizes = table_sizes(players, size)
        met: dict[Pair, int] = {}
        for number in range(1, rounds + 1):
            tables = draw(field, sizes, met, rng)
            seated = [p for table in tables for p in table]
            assert sorted(seated) == field
            assert repeats(tables, met) == 0, (seed, number)
            for table in tables:
                for a, b in combinations(table, 2):
                    met[pair(a, b)] = met.get(pair(a, b), 0) + 1
