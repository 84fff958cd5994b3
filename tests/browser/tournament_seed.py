"""Sets up a club with two tournaments of 13 players in the browser tests' database, run in
its own process.

    python -m tests.browser.tournament_seed '{}'

A club whose admin "toos" has a session; short rubbers (two lives, the first player out ends
it); a tournament at app tables of 13 easy computer players and one at slate tables of 13
guests by name, each 3 rounds at tables of 4 with a final table of the best four. Prints one
JSON line: the admin's session cookie and both tournaments' addresses.
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
    from tournaments import services

    club = Club.objects.create(name="Toernooiclub", slug="toernooiclub")
    rules = HouseRules(starting_lives=2)
    HouseRuleProfile.objects.create(
        club=club, name="Kort", rules_json=rules.to_json(), is_default=True
    )
    user = User.objects.create_user(
        username="toos", password="x-long-password-1", display_name="Toos"
    )
    me = Membership.objects.create(club=club, user=user, role=Membership.Role.ADMIN)
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    me = Membership.objects.select_related("club", "user").get(pk=me.pk)
    out: dict[str, Any] = {"session": store.session_key}
    for slate in (False, True):
        tournament = services.create_tournament(
            me,
            name="Slatebokaal" if slate else "Appbokaal",
            profile=None,
            slate_tables=slate,
            rounds=3,
            table_size=4,
            points=[5, 3, 2, 1],
            final_size=4,
        )
        for number in range(13):
            if slate:
                services.register(tournament, me, guest_name=f"Speler {number + 1}")
            else:
                services.register(tournament, me, bot_level="easy")
        out["slate" if slate else "live"] = tournament.get_absolute_url()
    return out


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
