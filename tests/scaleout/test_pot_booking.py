"""A pot rubber whose server process is killed (SIGKILL) while it books the rubber's end, then
started again: every cent of the pot is booked once, and `rebuild_standings` counts the same.

One daphne on a PostgreSQL database of its own, a night open, a table of four computer players
playing for the pot on the server's clock. The test holds the club's settings row, which the
booking locks first (nights/services.py `record_rubber`): the transaction that ends the rubber
waits on it, its writes not yet committed, and the server is killed right there."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.scaleout.conftest import migrated_postgres
from tests.scaleout.servers import Daphne, PostgresDatabase, base_env, run

pytestmark = [pytest.mark.postgres, pytest.mark.server]

STAKE = 250

SETUP = f"""
import json, uuid
import django
django.setup()
from accounts.models import User
from clubs.models import HouseRuleProfile, Membership
from clubs.services import found_club
from games.engine import HouseRules
from games.services import tables
from nights import services
from nights.models import ClubNights

admin = User.objects.create_user(username="pot-" + uuid.uuid4().hex[:8], password="x-Pot-1234")
club = found_club(admin, "Pot Club")
club.profiles.update(is_default=False)
rules = HouseRules(starting_lives=2, end_condition="last_standing", pot_stake={STAKE})
HouseRuleProfile.objects.create(club=club, name="Pot", rules_json=rules.to_json(), is_default=True)
ClubNights.objects.get_or_create(club=club)
services.open_night(Membership.objects.select_related("club", "user").get(club=club, user=admin))
table = tables.create_table(club=club, user=admin, bots=dict.fromkeys(range(4), "easy"),
                            take_seat=None)
print(json.dumps({{"club": club.pk, "table": table.pk, "admin": admin.pk}}))
"""

START = """
import sys
import django
django.setup()
from accounts.models import User
from games.services import tables
tables.start_rubber(int(sys.argv[1]), User.objects.get(pk=int(sys.argv[2])))
"""

# The transaction that ends the rubber, waiting for the club's settings row the test holds.
BOOKING_WAITS = (
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
    " AND wait_event_type = 'Lock' AND query LIKE %s"
)


@pytest.fixture
def database() -> Iterator[PostgresDatabase]:
    with migrated_postgres() as made:
        yield made


def wait_for(probe: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


def test_a_server_killed_while_it_books_a_pot_rubber_loses_no_cent_and_books_none_twice(
    database: PostgresDatabase, tmp_path: Path
) -> None:
    env = base_env(
        DATABASE_URL=database.url,
        TOEPEN_BOT_SECONDS="0",
        TOEPEN_BETWEEN_HANDS_SECONDS="0",
        TOEPEN_LAUNDRY_SECONDS="0",
        # The booking waits for the held row as long as the test holds it.
        DATABASE_LOCK_TIMEOUT_MS="600000",
    )
    made = json.loads(run(["-c", SETUP], env).strip().splitlines()[-1])
    table, club = made["table"], made["club"]
    conn = database.connect()
    holder = database.connect()

    def one(sql: str, *params: Any) -> Any:
        return conn.execute(sql, params).fetchone()

    def rubber() -> Any:
        return one("SELECT id, over FROM games_rubber WHERE table_id = %s", table)

    def booked() -> Any:
        return conn.execute(
            "SELECT p.participant_id, p.staked, p.pot_won FROM nights_playerrubber p"
            " JOIN games_rubber r ON r.id = p.rubber_id WHERE r.table_id = %s"
            " ORDER BY p.participant_id",
            (table,),
        ).fetchall()

    server = Daphne(env, tmp_path / "daphne.log")
    try:
        holder.execute("BEGIN")
        holder.execute("SELECT 1 FROM nights_clubnights WHERE club_id = %s FOR UPDATE", (club,))
        server.start()
        run(["-c", START, str(table), str(made["admin"])], env)
        waiting = wait_for(
            lambda: conn.execute(BOOKING_WAITS, ("%nights_clubnights%",)).fetchall(),
            180,
            "the rubber's end to wait for the club's row",
        )
        server.kill()
        holder.execute("ROLLBACK")
        # The killed server's transaction is rolled back once PostgreSQL finds its client gone.
        wait_for(
            lambda: (
                not one(
                    "SELECT 1 FROM pg_stat_activity WHERE pid = ANY(%s)",
                    [pid for (pid,) in waiting],
                )
            ),
            30,
            "the killed server's transaction to end",
        )
        found = rubber()
        assert found is not None and not found[1], "the rubber's end was not committed"
        assert booked() == []

        server.start()  # its clock plays the last hand again, and the rubber ends
        wait_for(lambda: (rubber() or (0, False))[1], 120, "the rubber to end again")
        figures = booked()
        assert len(figures) == 4, figures
        assert sum(staked for _, staked, _ in figures) == 4 * STAKE
        assert sum(won for _, _, won in figures) == 4 * STAKE
        assert one("SELECT count(*) FROM nights_bookingdue")[0] == 0
        server.stop()

        run(["manage.py", "rebuild_standings"], env)
        assert booked() == figures
    finally:
        server.stop()
        holder.close()
        conn.close()
