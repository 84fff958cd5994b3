"""Sets up people and tables in the browser tests' database, run in its own process.

`python -m tests.browser.seed '<json>'` with DATABASE_URL pointing at the live server's
database; prints one JSON line: session cookies and table codes (or, given `{"report": code}`,
the server's figures of that table's rubber). With `--serve` it stays up and answers one spec
a line from stdin (`Seeder`, the way the tests use it: Django starts once, not for every
table). The test process itself never opens that database, so pytest-django's own test
database stays out of the way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import traceback
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

# The line a serving seeder answers with, before its JSON.
ANSWER = "seeded: "


def serve(main: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Answer each spec read from stdin with what `main` made, until stdin closes; a spec that
    fails is answered with its traceback, and the next is read."""
    for line in sys.stdin:
        try:
            answer = {"made": main(json.loads(line))}
        except Exception:
            answer = {"error": traceback.format_exc()}
        print(ANSWER + json.dumps(answer), flush=True)


class Seeder:
    """`python -m MODULE --serve` in the environment of a live server: `ask(spec)` is what
    `python -m MODULE '<spec>'` would print, from one process kept for every spec."""

    def __init__(self, module: str, env: dict[str, str], cwd: Path, log: Path) -> None:
        self.module = module
        with log.open("ab") as errors:
            self.process = subprocess.Popen(
                [sys.executable, "-m", module, "--serve"],
                cwd=cwd,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
            )
        self.log = log

    def ask(self, spec: dict[str, Any]) -> dict[str, Any]:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps(spec) + "\n")
        stdin.flush()
        answer = _answer(stdout)
        if answer is None:
            raise RuntimeError(f"{self.module} ended:\n{self.log.read_text()[-3000:]}")
        if "error" in answer:
            raise RuntimeError(f"{self.module} could not seed {spec}:\n{answer['error']}")
        return dict(answer["made"])

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()  # it ends at the end of its input
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def _answer(stdout: TextIO) -> dict[str, Any] | None:
    for line in stdout:
        if line.startswith(ANSWER):
            return dict(json.loads(line.removeprefix(ANSWER)))
    return None


def main(spec: dict[str, Any]) -> dict[str, Any]:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toepen_site.settings")
    django.setup()

    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    from accounts.models import User
    from clubs.house_rules import BUILT_IN_NAMES
    from clubs.models import Club, HouseRuleProfile, Membership
    from games.engine import HouseRules
    from games.engine.rules import BUILT_IN_PROFILES
    from games.models import Table
    from games.services import tables
    from games.services.state import HOLDER_SESSION_KEY, Holder

    if "report" in spec:
        return report(spec["report"])
    club, _ = Club.objects.get_or_create(name="De Gouden Klaver", slug="de-gouden-klaver")
    # A built-in profile by its key ("siwweschroom"), as a club starts one; else test rules.
    builtin = spec.get("builtin")
    rules = BUILT_IN_PROFILES[builtin] if builtin else HouseRules(**spec.get("rules", {}))
    name = str(BUILT_IN_NAMES[builtin]) if builtin else "Test"
    profile = HouseRuleProfile.objects.create(
        club=club, name=f"{name} {HouseRuleProfile.objects.count()}", rules_json=rules.to_json()
    )
    out: dict[str, Any] = {"people": {}}
    users = {}
    for name in spec["people"]:
        user, created = User.objects.get_or_create(username=name)
        if created:
            user.set_password("x-long-password-1")
            user.save()
        Membership.objects.get_or_create(
            club=club,
            user=user,
            defaults={"role": Membership.Role.ADMIN, "status": Membership.Status.ACTIVE},
        )
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store[HOLDER_SESSION_KEY] = f"phone-of-{name}-{uuid.uuid4().hex[:8]}"
        store.create()
        users[name] = (user, store[HOLDER_SESSION_KEY])
        out["people"][name] = store.session_key
    creator, creator_key = users[spec["people"][0]]
    # {"night": true}: a club night is open, so the table belongs to it.
    if spec.get("night"):
        from nights.services import open_night

        open_night(Membership.objects.select_related("club", "user").get(club=club, user=creator))
    if spec.get("slate"):
        # A slate table: the people as members, then guests by name; it starts at once.
        from games.services.slate import SlatePlayer, create_slate_table

        players = [SlatePlayer(name, users[name][0]) for name in spec["people"]]
        players += [SlatePlayer(name) for name in spec.get("guests", [])]
        slate_table = create_slate_table(
            club=club, user=creator, players=players, profile=profile, keepers=spec["slate"]
        )
        out["code"] = slate_table.code
        return out
    table = tables.create_table(
        club=club,
        user=creator,
        profile=profile,
        seat_count=spec["seats"],
        bots=spec.get("bots", {}) and {int(k): v for k, v in spec["bots"].items()},
        allow_spectators=True,
        holder_key=creator_key,
    )
    # Other seats: {"1": "bram"}; a shared phone names the creator's phone for a second player.
    for index, name in spec.get("seat", {}).items():
        if name.startswith("shared:"):
            companion = name.split(":", 1)[1]
            from accounts.models import Guest

            guest = Guest.objects.create(display_name=companion)
            holder = Holder(guest_id=guest.pk, key=creator_key)
            tables.take_seat(table.pk, int(index), holder, companion)
        else:
            user, key = users[name]
            tables.take_seat(table.pk, int(index), Holder(user_id=user.pk, key=key), name)
    # {"round": true}: the creator buys a round before the first deal (rules.md 3.8).
    if spec.get("round"):
        tables.go_away(table.pk, Holder(user_id=creator.pk, key=creator_key), 0, "round")
    if spec.get("start"):
        tables.start_rubber(table.pk, creator)
    # {"challenges": [["anna", "bram"], ...]}: each target exchanges and is challenged, then
    # everyone is done with the laundry; {"play_to": 4}: cards are played (each the first
    # one the table takes) until the trick holds four, and "due" names whose turn it is.
    if spec.get("challenges") or spec.get("play_to"):
        out["due"] = play_for(table.pk, spec, users)
    # {"lives": [1, 2, 2, 2]}: the first hand is dealt to these lives (a table seat each), as if
    # the rubber had gone on a while.
    if spec.get("lives"):
        set_lives(table.pk, spec["lives"])
    out["code"] = Table.objects.get(pk=table.pk).code
    return out


def play_for(table_id: int, spec: dict[str, Any], users: dict[str, Any]) -> str | None:
    """The seeded people's own actions at a started table (see `main`)."""
    from games.engine import TOKENS
    from games.models import Seat, Table
    from games.services import tables
    from games.services.snapshots import load_state
    from games.services.state import Holder

    seats = {seat.name: seat.index for seat in Seat.objects.filter(table_id=table_id)}
    ids = iter(range(1, 10_000))

    def holder(name: str) -> Holder:
        user, key = users[name]
        return Holder(user_id=user.pk, key=key)

    def hand_name() -> str:
        return load_state(Table.objects.get(pk=table_id)).hand_name()

    for challenger, target in spec.get("challenges", []):
        for name, frame in (
            (target, {"act": "exchange"}),
            (challenger, {"act": "challenge", "target": seats[target]}),
        ):
            frame["hand"] = hand_name()
            tables.act(table_id, holder(name), seats[name], frame, f"seed-{next(ids)}")
    if spec.get("challenges"):
        for name, index in seats.items():
            if name in users:
                tables.ready(table_id, holder(name), index)
    cards = spec.get("play_to")
    if not cards:
        return None
    for _ in range(40):
        state = load_state(Table.objects.get(pk=table_id))
        hand = state.hand
        due = [state.table_seat(s) for s in hand.due()]
        trick = hand.tricks[-1] if hand.tricks else None
        if trick is not None and trick.winner is None and len(trick.plays) >= cards:
            return state.seats[due[0]].name
        seat = due[0]
        name = state.seats[seat].name
        legal = state.observe(seat).legal
        card = next(a.card for a in legal if a.act == "play")
        frame = {"act": "play", "card": TOKENS[card], "hand": state.hand_name()}
        tables.act(table_id, holder(name), seat, frame, f"seed-{next(ids)}")
    raise AssertionError(f"never {cards} cards on the trick")


def set_lives(table_id: int, lives: list[int]) -> None:
    from django.db.models import F

    from games.models import PlayedHand, Rubber, Table

    rubber = Rubber.objects.filter(table_id=table_id).latest("number")
    rubber.lives = lives
    rubber.save(update_fields=["lives"])
    hand = PlayedHand.objects.filter(rubber=rubber).latest("number")
    hand.record = {**hand.record, "lives": [lives[seat] for seat in hand.seats]}
    hand.save(update_fields=["record"])
    Table.objects.filter(pk=table_id).update(version=F("version") + 1)


def report(code: str) -> dict[str, Any]:
    """The server's figures of a table's last rubber: lives, winner and losers (table seats),
    its hands and the seats' names."""
    from games.models import PlayedHand, Rubber, Seat

    rubber = Rubber.objects.filter(table__code=code).order_by("-number").first()
    assert rubber is not None
    return {
        "names": list(
            Seat.objects.filter(table__code=code).order_by("index").values_list("name", flat=True)
        ),
        "lives": rubber.lives,
        "over": rubber.over,
        "winner": rubber.winner,
        "losers": rubber.losers,
        "hands": PlayedHand.objects.filter(rubber=rubber).count(),
        "buy_backs": rubber.buy_backs,
        "pot_takers": rubber.pot_takers,
        "night": rubber.table.night_id,
    }


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve(main)
    else:
        print(json.dumps(main(json.loads(sys.argv[1]))))
