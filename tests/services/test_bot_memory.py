"""Computer players at a live table remember it: each is kept for its seat from
rubber to rubber, watches every hand the table finished, and a new process's computer player
learns the same from the stored hands."""

from __future__ import annotations

import pytest

from games.models import PlayedHand, Table
from games.services import bot_seats, tables
from tests.personas import Cast
from tests.tables import bot_table, clock_plays, play_out_rubber, state_of

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_bots_kept():
    """Each test starts as a process that has met no table."""
    bot_seats._bots.clear()
    yield
    bot_seats._bots.clear()


def _bot_table(klaver: Cast) -> Table:
    return bot_table(klaver, {0: "normal", 1: "normal", 2: "easy", 3: "normal"}, lives=4)


def test_a_computer_player_keeps_what_it_read_from_rubber_to_rubber_and_after_a_restart(
    klaver: Cast,
) -> None:
    table = _bot_table(klaver)
    first = None
    # The deals are random, and a rubber may pass without a knock (about one in ten here) or
    # end in its first hand (a knock war at four lives): the table plays rubbers until its
    # players have shown something to remember over more than one finished hand.
    for _ in range(10):
        play_out_rubber(table.pk)
        tables.start_rubber(table.pk, klaver.anna.user)
        state = state_of(table)
        bot = bot_seats.bot_for(state, 1)
        first = first or bot
        # The bot that played the rubbers before, kept.
        assert bot is first
        names = state.rubber.players
        learnt = {name: bot.memory.of(name) for name in names}
        finished = PlayedHand.objects.filter(rubber__table=table, complete=True).count()
        shown = sum(h.knocks + h.answers + h.sure_knocks + h.high_stays for h in learnt.values())
        if shown and finished >= 2:
            break
    else:
        raise AssertionError("ten rubbers without a knock over two hands")
    # Having watched every hand the table finished.
    assert bot is bot_seats.bot_for(state_of(table), 1)
    assert {name: bot.memory.of(name).hands for name in names} == dict.fromkeys(names, finished)

    bot_seats._bots.clear()  # a restart: this process has met no table
    again = bot_seats.bot_for(state_of(table), 1)
    assert again is not bot
    assert {name: again.memory.of(name) for name in names} == learnt


def test_a_finished_hand_is_watched_once(klaver: Cast) -> None:
    table = _bot_table(klaver)
    for _ in range(3000):
        if PlayedHand.objects.filter(rubber__table=table, complete=True).count() >= 2:
            break
        clock_plays(table.pk)
    state = state_of(table)
    bot = bot_seats.bot_for(state, 0)
    hands = {name: habits.hands for name, habits in bot.memory.habits.items()}
    assert bot_seats.bot_for(state, 0) is bot
    assert {name: habits.hands for name, habits in bot.memory.habits.items()} == hands
