"""A big club tournament: how long its draws take, and how fast its page answers.

    python bench/tournaments.py [--players 200] [--rounds 8] [--requests 200]

- draw: `players` players at tables of four drawn for `rounds` rounds one after another
  (tournaments/draw.py), each round avoiding the pairs of the rounds before; the total wall
  time (target: under 1 s) and the pairs met twice (none, at these numbers).
- page: a tournament of as many players (guests by name) with its rounds drawn through
  tournaments.services on slate tables in a fresh SQLite database (or DATABASE_URL's), each
  table's first rubber then marked over with random places (what the page reads, without
  playing thousands of rubbers hand by hand), and its page asked `requests` times through
  Django's test client as the club's admin: p50 and p95 wall time (target: p95 under 150 ms)
  and this process's CPU per request (which moves much less with the machine's load), and the
  queries the page's view makes (the same whatever the tournament's size).

Not part of the test suite. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _machine import cpu_name


def bench_draw(players: int, rounds: int) -> dict[str, float | int]:
    from tournaments.draw import draw, pair, repeats, table_sizes

    rng = random.Random(1)
    field = list(range(1, players + 1))
    sizes = table_sizes(players, 4)
    met: dict[tuple[int, int], int] = {}
    repeated = 0
    start = time.perf_counter()
    for _ in range(rounds):
        tables = draw(field, sizes, met, rng)
        repeated += repeats(tables, met)
        for table in tables:
            for a, b in combinations(table, 2):
                met[pair(a, b)] = met.get(pair(a, b), 0) + 1
    return {"draw_s": round(time.perf_counter() - start, 3), "pairs_met_twice": repeated}


def bench_page(players: int, rounds: int, requests: int) -> dict[str, float | int]:
    folder = tempfile.mkdtemp(prefix="bench-tournaments-")
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{folder}/db.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toepen_site.settings")
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection, reset_queries
    from django.test import Client, RequestFactory
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from accounts.models import User
    from clubs.models import Membership
    from clubs.services import found_club
    from games.models import Rubber, RubberPlayer
    from tournaments import services, views
    from tournaments.models import DrawnTable

    call_command("migrate", verbosity=0)
    admin = User.objects.create_user(username="bench-admin", password="bench-password-1")
    club = found_club(admin, "Bench Club")
    me = Membership.objects.select_related("club", "user").get(club=club, user=admin)
    tournament = services.create_tournament(
        me,
        name="Bench",
        profile=None,
        slate_tables=True,
        rounds=rounds,
        table_size=4,
        points=[5, 3, 2, 1],
        final_size=0,
    )
    for number in range(players):
        services.register(tournament, me, guest_name=f"Player {number + 1}")
    rng = random.Random(2)
    for number in range(rounds):
        services.start_round(tournament, me, rng)
        drawn = DrawnTable.objects.filter(round__tournament=tournament, round__number=number + 1)
        for rubber in Rubber.objects.filter(table__tournament_table__in=drawn):
            people = list(RubberPlayer.objects.filter(rubber=rubber))
            rng.shuffle(people)
            for place, person in enumerate(people):
                person.won, person.lost = place == 0, place == len(people) - 1
                person.lives_lost = place
                person.save(update_fields=["won", "lost", "lives_lost"])
            rubber.over, rubber.finished_at = True, timezone.now()
            rubber.save(update_fields=["over", "finished_at"])
    client = Client()
    client.force_login(admin)
    address = tournament.get_absolute_url()
    client.get(address)
    # The view itself, in this thread: the client's request may run on another connection.
    request = RequestFactory().get(address)
    request.user = admin
    reset_queries()  # a full log (DEBUG keeps the last 9000) would show no new query
    with CaptureQueriesContext(connection) as queries:
        views.detail(request, club.slug, tournament.pk)
    if os.environ.get("BENCH_PROFILE"):
        import cProfile
        import pstats

        profile = cProfile.Profile()
        profile.enable()
        for _ in range(5):
            client.get(address)
        profile.disable()
        pstats.Stats(profile, stream=sys.stderr).sort_stats(
            os.environ["BENCH_PROFILE"]
        ).print_stats(25)
    times, cpu = [], []
    for _ in range(requests):
        start, start_cpu = time.perf_counter(), time.process_time()
        response = client.get(address)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        assert response.status_code == 200
    cuts = statistics.quantiles(times, n=100)
    return {
        "page_p50_ms": round(statistics.median(times), 1),
        "page_p95_ms": round(cuts[94], 1),
        # This process's own CPU per request: moves much less with the machine's load.
        "page_cpu_p50_ms": round(statistics.median(cpu), 1),
        "page_queries": len(queries),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    figures: dict[str, object] = {"players": args.players, "rounds": args.rounds}
    figures.update(bench_draw(args.players, args.rounds))
    figures.update(bench_page(args.players, args.rounds, args.requests))
    figures.update({"python": platform.python_version(), "cpu": cpu_name()})
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
