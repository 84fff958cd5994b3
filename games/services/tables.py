"""Every change to a table goes through here, one way: the public face of the table's changes,
which games/services/changes/ makes by job.

A change is decided on the table as one version left it (read from the database, or this
process's snapshot of it), with no lock held: the engine and the table's own rules
(games/engine/table.py) check it and apply it to a copy of that version, the table's fields
move to a new version with its next deadline, and the store commits it in one transaction
that claims the table's row at the version it was decided on. When another change came first,
nothing is written, and the change is decided once more on the table as the database has it
then. Every change is one decision, `make(state, now)`, made by one decider
(changes/decide.py). The change is announced in its transaction and, once it commits, to this
process's hub and clock (games/services/events.py).

The rules only read the database and change the state in memory: the rows a change adds or
alters beside the table's (a seat, a rubber, a hand) are queued with the store's `with_*`
functions (games/services/store/rows.py) and written with the claim. Consumers and views never
change a table themselves, and nothing here knows about requests or sockets.
"""

from games.services.changes.deadlines import fire_deadline, fire_here
from games.services.changes.decide import (
    Busy,
    Outcome,
    TableError,
    achange,
    change,
    check_door,
    next_version,
)
from games.services.changes.play import (
    act,
    act_here,
    check_action_id,
    check_hand,
    play,
    playing,
    ready,
    readying,
)
from games.services.changes.rubbers import buy_back, buy_in, buying_back, start_rubber, starting
from games.services.changes.seats import (
    Reserved,
    arrive,
    close_table,
    closing,
    come_back,
    coming_back,
    create_table,
    go_away,
    going_away,
    heard_all,
    leave_seat,
    night_now,
    rubber_under_way,
    step_away,
    step_back,
    table_rules_of,
    take_seat,
)

__all__ = [
    "Busy",
    "Outcome",
    "Reserved",
    "TableError",
    "achange",
    "act",
    "act_here",
    "arrive",
    "buy_back",
    "buy_in",
    "buying_back",
    "change",
    "check_action_id",
    "check_door",
    "check_hand",
    "close_table",
    "closing",
    "come_back",
    "coming_back",
    "create_table",
    "fire_deadline",
    "fire_here",
    "go_away",
    "going_away",
    "heard_all",
    "leave_seat",
    "next_version",
    "night_now",
    "play",
    "playing",
    "ready",
    "readying",
    "rubber_under_way",
    "start_rubber",
    "starting",
    "step_away",
    "step_back",
    "table_rules_of",
    "take_seat",
]
