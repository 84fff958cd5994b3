from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from accounts.translations import compile_catalogues


class Command(BaseCommand):
    help = "Compile the project's translations (locale/*/LC_MESSAGES/*.po) without gettext."
    # An install step (`make install`): the checks would open the database, and make its file.
    requires_system_checks = ()

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--force", action="store_true", help="compile even if up to date")

    def handle(self, *args: Any, force: bool = False, **options: Any) -> None:
        written = compile_catalogues(force=force)
        for path in written:
            self.stdout.write(f"compiled {path}")
        if not written:
            self.stdout.write("translations are up to date")
