"""Compiling the project's .po catalogues to .mo with polib, so set-up needs no gettext tools."""

from pathlib import Path

import polib
from django.conf import settings


def compile_catalogues(force: bool = False) -> list[Path]:
    """Write each locale/*/LC_MESSAGES/*.mo whose .po is newer; the .mo files written."""
    written = []
    for locale_dir in settings.LOCALE_PATHS:
        for po_path in sorted(Path(locale_dir).glob("*/LC_MESSAGES/*.po")):
            mo_path = po_path.with_suffix(".mo")
            if force or not mo_path.exists() or mo_path.stat().st_mtime < po_path.stat().st_mtime:
                polib.pofile(str(po_path)).save_as_mofile(str(mo_path))
                written.append(mo_path)
    return written
