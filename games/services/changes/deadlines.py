"""What a table does by itself when a deadline falls due: the clock's step, planned by the
engine (games/engine/table.py), a computer player's move, the turn clock's, a window
closing, a pause, a deal."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.utils import timezone

from games.engine import Action
from games.engine import table as table_rules
from games.engine.table import BOT_STEPS, Step
from games.services import bot_seats, store
from games.services.changes.decide import (
    InThread,
    NotDue,
    TableError,
    Unchanged,
    change,
    change_here,
    changed_seat,
    on_the_loop,
    set_windows,
)
from games.services.changes.play import apply_action
from games.services.changes.rubbers import deal
from games.services.changes.seats import close
from games.services.conf import pace
from games.services.state import TableState

log = logging.getLogger(__name__)


def due_step(state: TableState, now: datetime) -> Step | None:
    return table_rules.due_step(table_rules.plan(state.moment(), pace(), now), now)


def _think(state: TableState, step: Step) -> Action | None:
    """A computer player's decision, from its seat's observation only."""
    assert step.seat is not None and state.rubber is not None
    observation = state.observe(step.seat)
    assert observation is not None
    # Offer only what the table allows now: in its laundry window the laundry alone (keep the
    # hand, exchange, challenge); outside it never the laundry, though the engine's stays open
    # until the first other action.
    hand_seat = state.hand_seat(step.seat)
    assert state.hand is not None and hand_seat is not None
    legal = table_rules.allowed(state.hand, hand_seat, step.kind == "bot_laundry")
    observation = observation._replace(legal=tuple(legal))
    bot = bot_seats.bot_for(state, step.seat)
    return bot_seats.decide(bot, observation, state.rules)


def _carry_out(state: TableState, step: Step, now: datetime, decision: Action | None) -> None:
    if step.kind == "deal":
        if not deal(state, now):
            # The rubber and the seats are as the hand's end left them: other processes read
            # only the new hand.
            state.dealt_from = state.table.version
    elif step.kind == "close_laundry":
        set_windows(state, table_rules.laundry_closed(state.moment(), now))
    elif step.kind == "close_answers":
        for stay in table_rules.unanswered(state.moment()):
            apply_action(state, stay, now)
    elif step.kind == "pause":
        # Nobody is at the table: it waits, and every phone still watching says so.
        state.table.paused = True
    elif step.kind == "abandon":
        log.info("table %s: paused too long, closed", state.table.pk)
        close(state)
    elif step.kind == "bot_laundry":
        assert step.seat is not None
        if decision is not None:
            apply_action(state, decision, now)
        set_windows(state, table_rules.done_with_laundry(state.moment(), step.seat, now))
    elif step.kind == "bot_offer":
        assert step.seat is not None
        if decision is None:
            # Nothing now: not asked again until the table changes.
            state.table.bots_offered = [*state.table.bots_offered, step.seat]
            raise Unchanged
        apply_action(state, decision, now)
    else:
        assert step.seat is not None
        observation = state.observe(step.seat)
        assert observation is not None
        if step.kind == "auto" or decision is None:
            action = table_rules.auto_action(observation)
            decision = action.as_auto() if step.kind == "auto" else action
        apply_action(state, decision, now)
        if step.kind == "auto":
            _dropped_to_a_break(state, step.seat, now)


def _dropped_to_a_break(state: TableState, index: int, now: datetime) -> None:
    """A player whose phone stayed silent past its grace is on a break from now on, so every
    phone says so and the table goes on at its pace; one tap brings her back."""
    # When her phone counts as last heard: a phone the server could not hear (its database
    # away, the server down) did not go quiet.
    heard = state.moment().heard(index)
    if table_rules.dropped_to_a_break(state.rules, state.seats[index].away, heard, pace(), now):
        changed_seat(state, index, away="break")


def fire_deadline(table_id: int, now: datetime | None = None) -> bool:
    """Do what the table must do by itself at `now`; True when it changed. Raises Busy, at
    once, when another transaction holds the table's row.

    The step is planned, and a computer player thinks, on the table as it was read, with no
    lock: the change holds only if the table is still at that version when it is written
    (else it is decided again on the new version, which has its own deadline)."""
    return change(table_id, _due, now=now or timezone.now(), waits=False).changed


async def fire_here(table_id: int) -> bool:
    """`fire_deadline` from the event loop for a due deal, decided on this process's snapshot
    of the table (no query) and committed on the loop; True when it was written. False when
    there is no snapshot, the step due is not a deal (a computer player thinks, a table pauses,
    a laundry closes: decided on the table as the database has it), or the write found the
    table moved on: the caller fires it in a worker thread, on the database's version."""
    outcome = await change_here(table_id, _due, alone=True)
    return outcome is not None and outcome.changed


def _due(state: TableState, now: datetime) -> None:
    """The clock's decision: the step due at `now` carried out (NotDue when none is due; only
    the next deadline noted when the table waits for nothing now). On the event loop a deal
    alone: a computer player thinks in a worker thread, and a table pauses or closes a window
    on its phones' presence as the database has it."""
    deadline = state.table.deadline_at
    if deadline is None or deadline > now:
        raise NotDue
    step = due_step(state, now)
    if on_the_loop() and (step is None or step.kind != "deal"):
        raise InThread
    if step is None:
        raise Unchanged
    decision = _think(state, step) if step.kind in BOT_STEPS else None
    try:
        _carry_out(state, step, now, decision)
    except TableError:
        # Should not happen (the plan and the engine agree); never spin on it: retry later.
        log.exception("table %s: a deadline could not be carried out", state.table.pk)
        state.table.deadline_at = now + timedelta(seconds=5)
        store.note_deadline(state.table, state.table.version)
        raise NotDue from None
