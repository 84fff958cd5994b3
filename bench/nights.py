"""Club nights at the size of a big club, on PostgreSQL: what its pages and a rubber's end cost.

    .venv/bin/python bench/nights.py                 # 200 members, 20,000 rubbers, ~400,000 hands
    .venv/bin/python bench/nights.py --rubbers 2000  # a quicker look

Creates its own database on 127.0.0.1:5432 (dropped at the end), and a club of `--members`
members with `--rubbers` rubbers of four over two years of club nights (10 tables a night, 10
rubbers a table), each rubber played out hand by hand through the engine (random legal play,
28 lives: about 20 hands a rubber), stored as the app stores them (rubbers, their players, every
hand's `toepen-hand/1` record and result). The figures are booked by `rebuild_standings` (its
time is reported too). Then, through Django's test client as a member: the night page of a
random night, the season standings (one season over the last year) and a random member's page,
each `--requests` times: p50 and p95 wall time and the number of queries. Last, a night's live
table plays rubbers to their end through `games.services.tables` and the booking each end adds to
the action that ends it is timed (`nights.services.record_rubber`, inside that action's
transaction). Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _machine import machine

from tests.scaleout.servers import PostgresDatabase, base_env, migrate, run

TABLES_PER_NIGHT = 10
RUBBERS_PER_TABLE = 10
LIVES = 28


def random_hand(hand: Any, rand: Any) -> None:
    """A random legal hand: knocks now and then, answers mostly stay, few challenges."""
    while not hand.complete:
        due = hand.due()
        seat = due[0] if len(due) == 1 else due[int(rand() * len(due))]
        options = hand.legal_actions(seat)
        knocks = [o for o in options if o.act == "knock"]
        stays = [o for o in options if o.act == "stay"]
        quiet = [o for o in options if o.act not in ("knock", "fold", "stay", "challenge")]
        if knocks and rand() < 0.04:
            pool = knocks
        elif stays:
            pool = stays if rand() < 0.85 else options
        else:
            pool = quiet or options
        hand.apply(pool[int(rand() * len(pool))])


def build(members: int, rubbers: int, rng: random.Random) -> dict[str, Any]:
    """The club and its history, written in bulk."""
    from django.contrib.auth.hashers import make_password
    from django.utils import timezone

    from accounts.models import User
    from clubs.models import Club, HouseRuleProfile, Membership
    from games.engine import HouseRules, Rubber
    from games.models import PlayedHand, RubberPlayer, Seat, Table
    from games.models import Rubber as RubberRow
    from nights.models import Night

    rules = HouseRules(starting_lives=LIVES)
    club = Club.objects.create(name="De Gouden Klaver", slug="de-gouden-klaver")
    profile = HouseRuleProfile.objects.create(
        club=club, name="Lang", rules_json=rules.to_json(), is_default=True
    )
    password = make_password("x-long-password-1")
    users = User.objects.bulk_create(
        User(username=f"lid{i:03d}", display_name=f"Lid {i:03d}", password=password)
        for i in range(members)
    )
    Membership.objects.bulk_create(
        Membership(club=club, user=u, role="admin" if i == 0 else "member")
        for i, u in enumerate(users)
    )
    per_night = TABLES_PER_NIGHT * RUBBERS_PER_TABLE
    nights_count = max(1, -(-rubbers // per_night))
    now = timezone.now()
    first = now - timedelta(days=730)
    spacing = timedelta(days=730 / nights_count)
    nights = []
    for n in range(nights_count):
        opened = (first + n * spacing).replace(hour=19, minute=30, second=0, microsecond=0)
        nights.append(Night(club=club, opened_by=users[0], closed_at=opened + timedelta(hours=5)))
    nights = Night.objects.bulk_create(nights)
    # auto_now_add ignores the value given: set the nights' dates afterwards.
    for n, night in enumerate(nights):
        night.opened_at = (first + n * spacing).replace(hour=19, minute=30, second=0)
    Night.objects.bulk_update(nights, ["opened_at"])

    made = hands_made = 0
    generate = store = 0.0
    for n, night in enumerate(nights):
        tables = []
        for _ in range(TABLES_PER_NIGHT):
            tables.append(
                Table(
                    club=club,
                    night=night,
                    code=uuid.uuid4().hex[:12].upper(),
                    created_by=users[0],
                    profile=profile,
                    profile_name=profile.name,
                    rules_json=rules.to_json(),
                    seat_count=4,
                    status=Table.Status.RUBBER_OVER,
                )
            )
        tables = Table.objects.bulk_create(tables)
        seats, rubber_rows, players, hands = [], [], [], []
        at = night.opened_at
        for table in tables:
            people = rng.sample(users, 4)
            seats += [Seat(table=table, index=i, name=str(u), user=u) for i, u in enumerate(people)]
            for number in range(1, RUBBERS_PER_TABLE + 1):
                if made >= rubbers:
                    break
                started = time.perf_counter()
                rubber = Rubber(rules, [str(u) for u in people], dealer=rng.randrange(4))
                outcomes = []
                while not rubber.over:
                    random_hand(rubber.deal(seed=rng.getrandbits(64)), rng.random)
                    outcomes.append(rubber.finish_hand())
                generate += time.perf_counter() - started
                finished = at + timedelta(minutes=rng.randrange(5, 300))
                row = RubberRow(
                    table=table,
                    number=number,
                    rules_json=rules.to_json(),
                    players=[str(u) for u in people],
                    lives=rubber.lives,
                    dealer=rubber.dealer,
                    over=True,
                    winner=rubber.winner,
                    losers=list(rubber.losers),
                    finished_at=finished,
                )
                rubber_rows.append(row)
                lost = [0] * 4
                for outcome in outcomes:
                    for seat, count in outcome.lives_lost.items():
                        lost[seat] += count
                players.append(
                    [
                        RubberPlayer(
                            rubber=row,
                            seat=i,
                            name=str(u),
                            user=u,
                            lives_lost=lost[i],
                            lost=i in rubber.losers,
                            won=i == rubber.winner,
                        )
                        for i, u in enumerate(people)
                    ]
                )
                hands.append(
                    [
                        PlayedHand(
                            rubber=row,
                            number=o.number,
                            seats=list(o.seats),
                            record=o.record,
                            complete=True,
                            result=o.result,
                            finished_at=finished,
                        )
                        for o in outcomes
                    ]
                )
                made += 1
        started = time.perf_counter()
        Seat.objects.bulk_create(seats)
        RubberRow.objects.bulk_create(rubber_rows)
        RubberPlayer.objects.bulk_create([p for group in players for p in group])
        flat = [h for group in hands for h in group]
        PlayedHand.objects.bulk_create(flat, batch_size=1000)
        hands_made += len(flat)
        store += time.perf_counter() - started
        if n % 20 == 0:
            print(f"  night {n + 1}/{len(nights)}: {made} rubbers, {hands_made} hands", flush=True)
    return {
        "club": club,
        "users": users,
        "nights": nights,
        "rubbers": made,
        "hands": hands_made,
        "generate_s": round(generate, 1),
        "store_s": round(store, 1),
    }


def existing() -> dict[str, Any]:
    """What `build` made, read back from a kept database."""
    from accounts.models import User
    from clubs.models import Club
    from games.models import PlayedHand, Rubber
    from nights.models import Night

    club = Club.objects.get(slug="de-gouden-klaver")
    return {
        "club": club,
        "users": list(User.objects.filter(memberships__club=club).order_by("pk")),
        "nights": list(Night.objects.filter(club=club, closed_at__isnull=False)),
        "rubbers": Rubber.objects.filter(table__club=club).count(),
        "hands": PlayedHand.objects.filter(rubber__table__club=club).count(),
    }


def measure(client: Any, paths: list[str], requests: int, rng: random.Random) -> dict[str, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for path in paths[:5]:  # warm: compiled templates, the connection, caches
        assert client.get(path).status_code == 200, path
    walls, cpus, queries = [], [], []
    load = os.getloadavg()[0]
    for _ in range(requests):
        path = rng.choice(paths)
        with CaptureQueriesContext(connection) as captured:
            started, cpu = time.perf_counter(), time.thread_time()
            response = client.get(path)
            walls.append(time.perf_counter() - started)
            cpus.append(time.thread_time() - cpu)
        assert response.status_code == 200, path
        queries.append(len(captured))
    walls.sort()
    cpus.sort()
    return {
        "requests": requests,
        "p50_ms": round(1000 * statistics.median(walls), 1),
        "p95_ms": round(1000 * walls[int(0.95 * (len(walls) - 1))], 1),
        "max_ms": round(1000 * walls[-1], 1),
        # This process's own CPU per request (the database's work is not in it): steady
        # whatever else shares the machine, unlike the wall times.
        "cpu_p50_ms": round(1000 * statistics.median(cpus), 1),
        "cpu_p95_ms": round(1000 * cpus[int(0.95 * (len(cpus) - 1))], 1),
        "queries_max": max(queries),
        "queries_min": min(queries),
        "load_before": round(load, 1),
        "load_after": round(os.getloadavg()[0], 1),
    }


def rubber_ends(data: dict[str, Any], rubbers: int, rng: random.Random) -> dict[str, Any]:
    """Rubbers of a live table in an open night, played through games.services.tables to their end;
    the booking each end adds to the action that ends it."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from clubs.models import Membership
    from games.engine import observe
    from games.models import Seat, Table
    from games.services import tables as games_services
    from games.services.events import rubber_finished
    from games.services.snapshots import load_state
    from games.services.state import Holder
    from nights import services
    from nights.models import Night

    users = data["users"]
    Night.objects.filter(club=data["club"], closed_at__isnull=True).update(closed_at=timezone.now())
    services.open_night(
        Membership.objects.select_related("club", "user").get(club=data["club"], user=users[0])
    )
    people = users[:4]
    holders = [Holder(user_id=u.pk, key=f"phone-{u.pk}") for u in people]
    table = games_services.create_table(
        club=data["club"], user=people[0], holder_key=holders[0].key
    )
    for i in range(1, 4):
        games_services.take_seat(table.pk, i, holders[i], str(people[i]))

    # What the hook adds to the action that ends a rubber: the whole signal (the receiver's
    # savepoint and its booking), timed where games/services/tables.py sends it.
    hook, hook_queries, ending = [], [], []
    send = rubber_finished.send
    profile = None
    if os.environ.get("BENCH_PROFILE"):
        import cProfile

        profile = cProfile.Profile()

    hook_cpu: list[float] = []

    def timed(*args: Any, **kwargs: Any) -> Any:
        with CaptureQueriesContext(connection) as captured:
            if profile is not None:
                profile.enable()
            started, cpu = time.perf_counter(), time.thread_time()
            result = send(*args, **kwargs)
            hook.append(time.perf_counter() - started)
            hook_cpu.append(time.thread_time() - cpu)
            if profile is not None:
                profile.disable()
        hook_queries.append(len(captured))
        if os.environ.get("BENCH_PROFILE") == "sql":
            for query in captured.captured_queries:
                print(query["time"], query["sql"][:150])
        return result

    rubber_finished.send = timed  # type: ignore[method-assign]
    try:
        for _ in range(rubbers):
            games_services.start_rubber(table.pk, people[0])
            while True:
                state = load_state(Table.objects.get(pk=table.pk))
                if state.table.status != Table.Status.PLAYING:
                    break
                hand = state.hand
                if hand is None or hand.complete or not hand.due():
                    # The next deal, its players still at the table (else it would pause).
                    later = timezone.now() + timedelta(hours=1)
                    Seat.objects.filter(table=table).update(last_seen=later)
                    games_services.fire_deadline(table.pk, later)
                    continue
                hand_seat = hand.due()[0]
                seat = state.table_seat(hand_seat)
                legal = [
                    a
                    for a in observe(hand, hand_seat).legal
                    if a.act not in ("exchange", "challenge")
                ]
                knocks = [a for a in legal if a.act == "knock"]
                stays = [a for a in legal if a.act == "stay"]
                if knocks and rng.random() < 0.04:
                    pool = knocks
                elif stays and rng.random() < 0.85:
                    pool = stays
                else:
                    pool = [a for a in legal if a.act != "knock"] or legal
                payload = pool[int(rng.random() * len(pool))].to_json()
                payload.pop("seat")
                before = len(hook)
                started = time.perf_counter()
                games_services.act(table.pk, holders[seat], seat, payload, uuid.uuid4().hex)
                if len(hook) > before:
                    ending.append(time.perf_counter() - started)
    finally:
        del rubber_finished.send
    if profile is not None:
        import pstats

        pstats.Stats(profile).sort_stats(os.environ.get("BENCH_SORT", "cumulative")).print_stats(35)

    def ms(values: list[float], q: float) -> float:
        values = sorted(values)
        return round(1000 * values[int(q * (len(values) - 1))], 2)

    return {
        "rubbers": len(hook),
        "hook_p50_ms": ms(hook, 0.5),
        "hook_p95_ms": ms(hook, 0.95),
        "hook_max_ms": ms(hook, 1.0),
        "hook_cpu_p50_ms": ms(hook_cpu, 0.5),
        "hook_cpu_p95_ms": ms(hook_cpu, 0.95),
        "load": round(os.getloadavg()[0], 1),
        "hook_queries": max(hook_queries),
        "ending_action_p50_ms": ms(ending, 0.5),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--rubbers", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--ends", type=int, default=30)
    parser.add_argument("--keep", action="store_true", help="keep the database (name printed)")
    parser.add_argument("--reuse", help="a database kept by --keep: measure it again")
    parser.add_argument("--only", choices=["pages", "ends"], help="measure only these")
    args = parser.parse_args()
    rng = random.Random(7)

    database = PostgresDatabase(name=args.reuse) if args.reuse else PostgresDatabase().create()
    try:
        env = base_env(
            DATABASE_URL=database.url,
            DJANGO_DEBUG="false",
            DJANGO_SECRET_KEY="bench",
            DJANGO_SECURE_SSL_REDIRECT="false",
            TOEPEN_LAUNDRY_SECONDS="0",
            TOEPEN_BETWEEN_HANDS_SECONDS="0",
            # The pages name their static files as production does: collected once, here.
            DJANGO_STATIC_ROOT=tempfile.mkdtemp(prefix="bench-static-"),
        )
        if not args.reuse:
            migrate(env)
        run(["manage.py", "collectstatic", "--noinput", "-v", "0"], env)
        os.environ.update(env)
        import django

        django.setup()
        from django.conf import settings
        from django.test import Client
        from django.test.utils import setup_test_environment

        setup_test_environment()
        settings.ALLOWED_HOSTS = ["testserver"]
        from nights.models import Season
        from nights.services import rebuild

        if args.reuse:
            data = existing()
            built_s = rebuild_s = 0.0
        else:
            started = time.perf_counter()
            data = build(args.members, args.rubbers, rng)
            built_s = time.perf_counter() - started
            print(f"built {data['rubbers']} rubbers, {data['hands']} hands in {built_s:.0f} s")
            started = time.perf_counter()
            rebuild(data["club"])
            rebuild_s = time.perf_counter() - started
            print(f"rebuild_standings: {rebuild_s:.0f} s", flush=True)
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        club, users = data["club"], data["users"]
        today = datetime.now().date()
        season, _ = Season.objects.get_or_create(
            club=club,
            name="Dit jaar",
            defaults={"starts_on": today - timedelta(days=365), "ends_on": today},
        )
        client = Client()
        client.force_login(users[1])
        base = f"/clubs/{club.slug}"
        pages = {
            "night": [f"{base}/nights/{n.pk}/" for n in data["nights"]],
            "season": [f"{base}/seasons/{season.pk}/"],
            "player": [f"{base}/players/{u.pk}/" for u in users],
        }
        results: dict[str, Any] = {}
        ends: dict[str, Any] = {}
        if args.only != "ends":
            for name, paths in pages.items():
                results[name] = measure(client, paths, args.requests, rng)
                print(name, results[name], flush=True)
        if args.only != "pages":
            ends = rubber_ends(data, args.ends, rng)
            print("rubber end", ends, flush=True)
    finally:
        from django.db import connections

        connections.close_all()
        if args.keep or args.reuse:
            print(f"kept: --reuse {database.name}", flush=True)
        else:
            database.drop()
    report = {
        "bench": "nights",
        "machine": machine(),
        "members": args.members,
        "rubbers": data["rubbers"],
        "hands": data["hands"],
        "build_s": round(built_s),
        "rebuild_s": round(rebuild_s),
        "pages": results,
        "rubber_end": ends,
    }
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
