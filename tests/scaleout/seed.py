"""Seed a running set-up's database with tables of four people, each rubber dealt.

    DATABASE_URL=... python -m tests.scaleout.seed --tables 2 --lives 10 [--bots 1]

Run as a separate process with the servers' own environment, so it writes exactly where the
servers read. Each person gets her own account and session (the `sessionid` a phone presents)
and holds her seat by her session's seat key. `--bots` adds tables of four computer players
(easy), which play by themselves on the servers' clocks; `--slates` slate tables of four
players known by name (a phone follows one by its code alone); `--waiting` leaves the people's
tables before their first rubber. Prints one JSON line:
{"tables": [{"id", "code", "phones": [{"seat", "name", "session"}, ...]}, ...]} (the bot
tables, then the slates, last, with no phones; a slate's entry says `"slate": true`).
"""

from __future__ import annotations

import argparse
import json
import uuid

import django


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=1)
    parser.add_argument("--lives", type=int, default=10)
    parser.add_argument("--bots", type=int, default=0)
    parser.add_argument("--slates", type=int, default=0)
    # The people's tables wait for their first rubber (their phones connect first).
    parser.add_argument("--waiting", action="store_true")
    args = parser.parse_args()
    django.setup()

    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    from accounts.models import User
    from clubs.models import Club, HouseRuleProfile, Membership
    from games.engine import HouseRules
    from games.services import slate, tables
    from games.services.state import HOLDER_SESSION_KEY, Holder

    run = uuid.uuid4().hex[:8]
    club = Club.objects.create(name=f"Scale-out {run}", slug=f"scale-out-{run}")
    HouseRuleProfile.objects.create(
        club=club,
        name="Scale-out",
        rules_json=HouseRules(starting_lives=args.lives).to_json(),
        is_default=True,
    )

    def person(name: str) -> tuple[User, str, str]:
        # No password: hashing hundreds of them would only slow the benchmark's set-up.
        user = User.objects.create_user(username=name, password=None)
        Membership.objects.create(club=club, user=user, status=Membership.Status.ACTIVE)
        holder = f"phone-{name}"
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store[HOLDER_SESSION_KEY] = holder
        store.create()
        return user, holder, store.session_key or ""

    seeded = []
    for t in range(args.tables):
        people = [person(f"p{run}t{t}s{seat}") for seat in range(4)]
        owner, owner_holder, _ = people[0]
        table = tables.create_table(club=club, user=owner, holder_key=owner_holder, take_seat=0)
        for seat, (user, holder, _) in enumerate(people[1:], start=1):
            tables.take_seat(table.pk, seat, Holder(user_id=user.pk, key=holder), str(user))
        if not args.waiting:
            tables.start_rubber(table.pk, owner)
        seeded.append(
            {
                "id": table.pk,
                "code": table.code,
                "phones": [
                    {"seat": seat, "name": str(user), "session": session}
                    for seat, (user, _, session) in enumerate(people)
                ],
            }
        )
    owner = person(f"p{run}bots")[0] if args.bots else None
    for _ in range(args.bots):
        assert owner is not None
        table = tables.create_table(
            club=club, user=owner, bots=dict.fromkeys(range(4), "easy"), take_seat=None
        )
        tables.start_rubber(table.pk, owner)
        seeded.append({"id": table.pk, "code": table.code, "phones": []})
    keeper = person(f"p{run}slates")[0] if args.slates else None
    for _ in range(args.slates):
        assert keeper is not None
        players = [slate.SlatePlayer(name) for name in ("Anna", "Bram", "Cor", "Dirk")]
        table = slate.create_slate_table(club=club, user=keeper, players=players)
        seeded.append({"id": table.pk, "code": table.code, "phones": [], "slate": True})
    print(json.dumps({"tables": seeded}))


if __name__ == "__main__":
    main()
