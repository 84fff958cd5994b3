"""Every text the product shows has its Dutch and German words: a string added to a template or
to the code without its translation fails here, not in front of a Dutch table.

`makemessages` runs on a copy of the tracked files (the checkout's catalogues stay as they are),
with the same files left out as `make messages`; every entry it finds must be translated and not
fuzzy in each language."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest

from tests.conftest import require_service

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = ["nl", "de"]
# As the Makefile's `messages` target leaves them out.
IGNORED = [".venv/*", "tests/*", "bench/*", "staticfiles/*"]

pytestmark = pytest.mark.slow


def tracked_copy(into: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)


def test_every_text_is_translated_into_dutch_and_german(tmp_path: Path) -> None:
    require_service("gettext (xgettext, msgmerge)", shutil.which("xgettext") is not None)
    require_service("a git checkout", (ROOT / ".git").exists())
    tracked_copy(tmp_path)
    command = [sys.executable, "manage.py", "makemessages", "--no-location"]
    command += [f"-l{language}" for language in LANGUAGES]
    command += [f"--ignore={pattern}" for pattern in IGNORED]
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "toepen_site.settings"}
    env.pop("DATABASE_URL", None)
    subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, check=True, timeout=240)
    missing = {}
    for language in LANGUAGES:
        catalogue = polib.pofile(str(tmp_path / "locale" / language / "LC_MESSAGES" / "django.po"))
        missing[language] = [
            entry.msgid
            for entry in catalogue
            if not entry.obsolete and (not entry.translated() or "fuzzy" in entry.flags)
        ]
    assert missing == {language: [] for language in LANGUAGES}
