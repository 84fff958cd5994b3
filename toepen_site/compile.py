"""Builds the modules that games/compiled.py names with mypyc, beside their sources; without a
C compiler the build is skipped with a warning and the sources run as they are; in CI
(`CI=true`) a failed build fails.

    python -m toepen_site.compile           # build them (`make compile`)
    python -m toepen_site.compile --clean   # back to the sources alone
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import warnings

# Importing `games` warns of the builds older than their sources: the ones this replaces.
with warnings.catch_warnings(action="ignore"):
    from games.compiled import GROUP, MODULES, ROOT, builds, group_library, stale, strays


def clean() -> None:
    for module in (*MODULES, *strays()):
        for build in builds(ROOT / module):
            build.unlink()
    for build in builds(group_library()):
        build.unlink()


def build() -> None:
    """Compile MODULES in place (mypyc's C and objects in a temporary directory)."""
    from mypyc.build import mypycify  # the build's own tools: mypy and setuptools (dev extra)
    from setuptools import setup

    clean()
    with tempfile.TemporaryDirectory(prefix="toepen-mypyc-") as work:
        here = os.getcwd()
        os.chdir(ROOT)  # mypyc names modules by their paths from here
        try:
            extensions = mypycify(
                list(MODULES), opt_level="3", group_name=GROUP, target_dir=f"{work}/c"
            )
            setup(
                name="toepen-compiled",
                ext_modules=extensions,
                script_args=[
                    "--quiet",
                    "build_ext",
                    "--inplace",
                    f"--build-temp={work}/temp",
                    f"--build-lib={work}/lib",
                ],
            )
        finally:
            os.chdir(here)


def main(argv: list[str]) -> int:
    if "--clean" in argv:
        clean()
        print("compiled modules removed: the sources run as they are")
        return 0
    if not stale() and not strays() and all(builds(ROOT / module) for module in MODULES):
        print("compiled modules up to date")
        return 0
    try:
        if shutil.which(os.environ.get("CC", "cc")) is None:
            raise RuntimeError("no C compiler (cc) found")
        build()
    except (Exception, SystemExit) as error:  # setuptools ends a failed build with SystemExit
        clean()  # a half build must not shadow the sources
        print(f"warning: the modules were not compiled ({error}); the sources run", file=sys.stderr)
        return 1 if os.environ.get("CI") == "true" else 0
    print(f"compiled: {', '.join(MODULES)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
