"""Sets up a club night in the browser tests' database, run in its own process.

    python -m tests.browser.nights_seed '{"do": "night"}'
    python -m tests.browser.nights_seed '{"do": "again", "codes": ["ABC123"]}'

"night": a club whose first rubber winner of a night is Toepkoning, an open night, and two tables in
it, each a member and two computer players, under rules where the last one standing wins (so a
rubber has a winner and everyone else owes a round); no rubber started yet. The members' sessions
hold their seats: a page of theirs at the table keeps them there, and their short turn clock plays
for them. Prints one JSON line: session cookies, table codes (and whose), the night's address.
With "crowd": true the night is crowded too (tests/nights/crowd.py): many players, rubbers,
rounds owed and tables in every state.
"again": a rubber at each table that plays none (the first, or the next once one is over).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def main(spec: dict[str, Any]) -> dict[str, Any]:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toepen_site.settings")
    django.setup()

    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    from accounts.models import User
    from clubs.models import Club, HouseRuleProfile, Membership
    from games.engine import HouseRules
    from games.models import Table
    from games.services import tables
    from games.services.state import HOLDER_SESSION_KEY, Holder
    from nights import services as nights
    from nights.models import ClubNights

    if spec["do"] == "again":
        for code in spec["codes"]:
            table = Table.objects.get(code=code)
            if table.status in (Table.Status.WAITING, Table.Status.RUBBER_OVER):
                tables.start_rubber(table.pk, table.created_by)
        return {}

    club = Club.objects.create(name="De Vrolijke Boer", slug="de-vrolijke-boer")
    rules = HouseRules(starting_lives=2, end_condition="last_standing")
    profile = HouseRuleProfile.objects.create(
        club=club, name="Kort", rules_json=rules.to_json(), is_default=True
    )
    ClubNights.objects.create(club=club, king_wins=1)
    out: dict[str, Any] = {"people": {}, "codes": [], "tables": {}}
    users = {}
    for name, role in (("anna", "admin"), ("bram", "member")):
        user = User.objects.create_user(
            username=name, password="x-long-password-1", display_name=name.capitalize()
        )
        Membership.objects.create(club=club, user=user, role=role)
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store[HOLDER_SESSION_KEY] = f"phone-of-{name}"
        store.create()
        users[name] = user
        out["people"][name] = store.session_key
    night = nights.open_night(Membership.objects.get(club=club, user=users["anna"]))
    for name in ("anna", "bram"):
        user = users[name]
        holder = Holder(user_id=user.pk, key=f"phone-of-{name}")
        table = tables.create_table(
            club=club,
            user=user,
            profile=profile,
            seat_count=3,
            bots={1: "easy", 2: "easy"},
            holder_key=holder.key,
        )
        out["codes"].append(table.code)
        out["tables"][name] = table.code
    if spec.get("crowd"):
        from tests.nights.crowd import crowd

        crowd(night, Table.objects.get(code=out["codes"][0]))
    out["night"] = f"/clubs/{club.slug}/nights/{night.pk}/"
    out["club"] = club.slug
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        from tests.browser.seed import serve

        serve(main)
    else:
        print(json.dumps(main(json.loads(sys.argv[1]))))
