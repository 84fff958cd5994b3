"""Every change to a table, by job, as lila's round module and Zulip's `zerver/actions/` split
theirs: the one decider (decide.py), tables and seats (seats.py), rubbers and hands
(rubbers.py), a player's actions (play.py) and the table's own steps at its deadlines
(deadlines.py). games/services/tables.py is their public face."""
