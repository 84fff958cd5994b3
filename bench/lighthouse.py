"""Lighthouse (mobile) on a live table page, served by daphne, seen by a seated player.

    .venv/bin/python bench/lighthouse.py [--runs 3]

Installs npm's `lighthouse` into bench/lighthouse/node_modules on first use (git-ignored), runs it
with Debian's chromium (CHROME_PATH=/usr/bin/chromium; never a downloaded browser) against a table
with three computer players where it is the player's turn, signed in with a session cookie in
the browser profile. The last report is kept in bench/results/. Prints one JSON line: the
median scores (0-100) of performance, accessibility and best practices, the page's transferred
bytes (all, and JavaScript), its layout shift and largest paint, and the machine it ran on;
kept in bench/figures.jsonl, bench/figures.py shows it in docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _machine import machine  # noqa: E402

from tests.browser.conftest import CHROME_ARGS, CHROMIUM, LiveServer  # noqa: E402

TOOL = ROOT / "bench" / "lighthouse"
CLI = TOOL / "node_modules" / "lighthouse" / "cli" / "index.js"
CATEGORIES = ("performance", "accessibility", "best-practices")


def ensure_lighthouse() -> None:
    if CLI.exists():
        return
    TOOL.mkdir(exist_ok=True)
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--silent", "lighthouse@12"],
        cwd=TOOL,
        check=True,
    )


def signed_in_profile(profile: Path, url: str, cookie: str) -> Path:
    """A chromium profile holding the session cookie: Lighthouse's extra headers do not reach
    the websocket handshake, a cookie does."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(profile), executable_path="/usr/bin/chromium", args=CHROME_ARGS
        )
        context.add_cookies(
            [{"name": "sessionid", "value": cookie, "url": url, "expires": time.time() + 3600}]
        )
        context.close()
    return profile


def chromium_version() -> str:
    """What `chromium --version` says: "Chromium 131.0.6778.139 built on Debian ..."."""
    done = subprocess.run(
        [str(CHROMIUM), "--version"], capture_output=True, text=True, timeout=30, check=False
    )
    return done.stdout.strip()


def run_once(url: str, profile: Path, out: Path) -> dict[str, float]:
    flags = " ".join(["--headless=new", *CHROME_ARGS, f"--user-data-dir={profile}"])
    subprocess.run(
        [
            "node",
            str(CLI),
            url,
            "--quiet",
            "--output=json",
            f"--output-path={out}",
            f"--only-categories={','.join(CATEGORIES)}",
            "--form-factor=mobile",
            f"--chrome-flags={flags}",
            # Keep the profile's cookie; its caches are empty anyway (a fresh profile).
            "--disable-storage-reset",
        ],
        env={**os.environ, "CHROME_PATH": "/usr/bin/chromium"},
        check=True,
    )
    report = json.loads(out.read_text())
    keep = ROOT / "bench" / "results"
    keep.mkdir(exist_ok=True)
    (keep / "lighthouse-table.json").write_text(out.read_text())
    audits = report["audits"]
    scripts = [
        item
        for item in audits["resource-summary"]["details"]["items"]
        if item["resourceType"] == "script"
    ]
    return {
        **{name: round(report["categories"][name]["score"] * 100) for name in CATEGORIES},
        "transferred_bytes": audits["total-byte-weight"]["numericValue"],
        "script_bytes": scripts[0]["transferSize"] if scripts else 0,
        "cls": audits["cumulative-layout-shift"]["numericValue"],
        "lcp_ms": audits["largest-contentful-paint"]["numericValue"],
        "failed": sorted(
            ref["id"]
            for name in CATEGORIES[1:]
            for ref in report["categories"][name]["auditRefs"]
            if ref["weight"] and (audits[ref["id"]]["score"] or 0) < 1
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    ensure_lighthouse()
    with tempfile.TemporaryDirectory() as folder:
        server = LiveServer(Path(folder))
        server.env["TOEPEN_TURN_SECONDS"] = "600"
        server.start()
        try:
            table = server.seed(
                people=["anna"],
                seats=4,
                bots={"1": "normal", "2": "normal", "3": "normal"},
                start=True,
            )
            time.sleep(4)  # the laundry closes and the computer players reach anna's turn
            url = f"{server.url}/t/{table['code']}/"
            runs = []
            for i in range(args.runs):
                # A fresh profile each run: a first visit, with no service worker cache yet.
                profile = signed_in_profile(
                    Path(folder) / f"profile-{i}", server.url, table["people"]["anna"]
                )
                runs.append(run_once(url, profile, Path(folder) / f"report-{i}.json"))
        finally:
            server.close()
    result: dict[str, object] = {"bench": "lighthouse", "machine": machine()}
    result.update(
        {key: statistics.median(run[key] for run in runs) for key in runs[0] if key != "failed"}
    )
    result["failed_audits"] = sorted({audit for run in runs for audit in run["failed"]})
    result.update(runs=args.runs, url="/t/<CODE>/", chromium=chromium_version())
    print(json.dumps(result))


if __name__ == "__main__":
    main()
