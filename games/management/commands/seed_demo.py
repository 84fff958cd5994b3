from typing import Any

from allauth.account.models import EmailAddress
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from accounts.models import User
from clubs.house_rules import BUILT_IN_NAMES
from clubs.models import Club, HouseRuleProfile, Membership
from games.engine.rules import BUILT_IN_PROFILES
from games.models import Table
from games.services.tables import close_table, create_table

USERNAME = "demo"
PASSWORD = "toepen-demo"  # noqa: S105  (a published demo account, made only by this command)
EMAIL = "demo@example.com"
CLUB_NAME = "De Gouden Klaver"
CLUB_SLUG = "de-gouden-klaver"


class Command(BaseCommand):
    help = "Create (or repair) the demo account, its club and a table to start. Safe to run again."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--address",
            default="",
            help="where the server answers (http://127.0.0.1:8000): the pages are printed whole",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        address = options["address"].rstrip("/")
        with transaction.atomic():
            user, _created = User.objects.get_or_create(
                username=USERNAME, defaults={"email": EMAIL, "display_name": "Demo"}
            )
            # Set again on every run, so `make run` always leaves a demo login that works.
            user.email = EMAIL
            user.set_password(PASSWORD)
            user.save()
            EmailAddress.objects.update_or_create(
                user=user, email=EMAIL, defaults={"verified": True, "primary": True}
            )
            club, _created = Club.objects.get_or_create(
                slug=CLUB_SLUG, defaults={"name": CLUB_NAME}
            )
            Membership.objects.update_or_create(
                club=club,
                user=user,
                defaults={"role": Membership.Role.ADMIN, "status": Membership.Status.ACTIVE},
            )
            has_default = club.profiles.filter(is_default=True).exists()
            for key, rules in BUILT_IN_PROFILES.items():
                # Names in the language of the built-ins' own pages: the demo club is Dutch.
                name = {"classic": "Klassiek", "tournament": "Toernooi"}.get(
                    key, str(BUILT_IN_NAMES[key])
                )
                HouseRuleProfile.objects.get_or_create(
                    club=club,
                    name=name,
                    defaults={
                        "rules_json": rules.to_json(),
                        "is_default": key == "classic" and not has_default,
                    },
                )
            table = demo_table(club, user)
        self.stdout.write(
            f"Demo: sign in at {address}/accounts/login/ as {USERNAME} (or {EMAIL}) with "
            f"password {PASSWORD}\n"
            f"  the club “{CLUB_NAME}”: {address}/clubs/{CLUB_SLUG}/\n"
            f"  a table with three computer players, to start: {address}/t/{table.code}/"
        )


def demo_table(club: Club, user: User) -> Table:
    """A table where the demo user sits with three computer players, ready to start: the one
    made before while no rubber is going on there, else a new one (the table left mid-rubber
    is closed, its rubber abandoned)."""
    tables = Table.objects.filter(club=club, created_by=user, seats__user=user).exclude(
        status=Table.Status.CLOSED
    )
    for table in tables.order_by("-pk"):
        if table.status != Table.Status.PLAYING:
            return table
        close_table(table.pk, user, confirmed=True)  # the demo's own rubber, abandoned
    return create_table(
        club=club,
        user=user,
        bots={1: "easy", 2: "normal", 3: "strong"},
        # The seat is the demo user's on whichever browser she signs in from.
        holder_key="demo-seat",
    )
