"""The documentation holds together: every link between the pages leads somewhere, and no file
speaks of how the code got here (working sessions, issue numbers): that is the git log's job."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted([REPO / "README.md", REPO / "CHANGELOG.md", *(REPO / "docs").glob("*.md")])
# A Markdown link or an image's source, to a file of the repository (not a web address).
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)|src=\"([^\"]+)\"")
ORDINAL = (
    r"(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth"
    r"|[a-z]+teenth|[a-z]+tieth|[a-z]+-(first|second|third|fourth|fifth|sixth|seventh|eighth"
    r"|ninth))"
)
HISTORY = re.compile(
    rf"\b{ORDINAL}( and [a-z-]+)? sessions?\b|\bsessions? [0-9]+\b|\bissues? #[0-9]+",
    re.IGNORECASE,
)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_every_link_of_a_page_leads_to_a_file(page: Path) -> None:
    targets = [a or b for a, b in LINK.findall(page.read_text())]
    missing = [
        target
        for target in targets
        if "://" not in target
        and not target.startswith("mailto:")
        and not (page.parent / target).exists()
    ]
    assert not missing, f"{page.name} links to what is not there: {missing}"


def test_no_file_speaks_of_working_sessions_or_issue_numbers() -> None:
    files = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    found = []
    for name in files:
        path = REPO / name
        if path == Path(__file__) or path.suffix in {".png", ".ico", ".woff2", ".mo"}:
            continue
        try:
            text = path.read_text()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if HISTORY.search(line):
                found.append(f"{name}:{number}: {line.strip()[:80]}")
    assert not found, "history belongs in the commit messages:\n" + "\n".join(found)


def test_the_history_pattern_finds_what_it_is_for() -> None:
    for said in (
        "the eighteenth session",
        "as the twenty-fifth and twenty-sixth sessions found",
        "session 40",
        "issue #21's targets",
    ):
        assert HISTORY.search(said), said
    for innocent in ("a browser session", "the session cookie", "its session and its locks"):
        assert not HISTORY.search(innocent), innocent
