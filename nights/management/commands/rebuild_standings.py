"""Book every finished rubber again from the stored rubbers and hand records.

    python manage.py rebuild_standings                 # every club
    python manage.py rebuild_standings --club SLUG     # one club

The figures, ratings and Toepkoningen come out as they were booked live (nights.services.rebuild
goes through the same code); rounds already owed keep whether they were paid.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from clubs.models import Club
from nights.services import rebuild


class Command(BaseCommand):
    help = "Rebuild the club nights' standings, ratings and player figures from the records."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--club", help="the club's address (slug); default: every club")

    def handle(self, *args: Any, **options: Any) -> None:
        clubs = Club.objects.order_by("pk")
        if options["club"]:
            clubs = clubs.filter(slug=options["club"])
            if not clubs.exists():
                raise CommandError(f"there is no club {options['club']!r}")
        for club in clubs:
            count = rebuild(club)
            self.stdout.write(f"{club.slug}: {count} rubbers")
