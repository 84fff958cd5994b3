"""The figures table of docs/performance.md, written from the benchmarks' JSON lines.

    .venv/bin/python bench/engine.py | tail -1 >> bench/figures.jsonl   # keep a run's line
    .venv/bin/python bench/figures.py            # rewrite the table in docs/performance.md
    .venv/bin/python bench/figures.py --check    # exit 1 when the page's table is not current

Each line of bench/figures.jsonl is the last line a benchmark printed (bench/engine.py,
actions.py, live.py, nights.py, faults.py, pings.py, lighthouse.py), as it printed it: its
`machine` says the release and commit that ran and on what. The page gets one table per
release and machine, newest release first; a figure measured more than once in the same set-up
shows as a range. Nothing else of the page is touched: the table sits between the two marker
lines below.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LINES = ROOT / "bench" / "figures.jsonl"
PAGE = ROOT / "docs" / "performance.md"
BEGIN = "<!-- figures: written by bench/figures.py from bench/figures.jsonl; do not edit -->"
END = "<!-- end of figures -->"

# One figure of one run: (benchmark, what, set-up, value, unit).
Figure = tuple[str, str, str, float, str]
# The same, with the machine's load average when the run began (None: not said).
Measured = tuple[str, str, str, float, str, float | None]


class BadLine(ValueError):
    """A line of the figures file that is not a benchmark's JSON line this script reads."""


def _python(machine: dict[str, Any]) -> str:
    compiled = "compiled" if machine.get("compiled") else "not compiled"
    return (
        f"Python {machine['python']} ({machine['python_build']}), {machine['allocator']},"
        f" {compiled}"
    )


def _engine(run: dict[str, Any]) -> Iterator[Figure]:
    setup = _python(run["machine"])
    yield "engine", "random self-play, one core", setup, run["selfplay_hands_per_s"], "hands/s"
    yield "engine", "records replayed, one core", setup, run["replay_records_per_s"], "records/s"


def _actions(run: dict[str, Any]) -> Iterator[Figure]:
    setup = f"{run['database']}, on the {run['on']}; " + _python(run["machine"])
    yield "actions", "an action's server CPU, one thread", setup, run["act_cpu_ms"], "ms"
    yield "actions", "its four phones' views", setup, run["render4_cpu_ms"], "ms"


def _live(run: dict[str, Any]) -> Iterator[Figure]:
    for name, config in sorted(run["configs"].items()):
        app = config["app"]
        if app is None:
            continue
        setup = (
            f"{name}: {config['servers']} on {config['database']}, {config['listen']}"
            + (f", routed by {config['route']}" if config["route"] else "")
            + f"; {_python(run['machine'])}"
        )
        passed = [s for s in app["steps"] if s["ok"] and s["tables"] == app["max_tables"]]
        if passed:
            yield "live", "tables carried at p99 under 200 ms", setup, app["max_tables"], "tables"
            step, there = passed[-1], "there"
        else:  # every count tried missed: what the smallest of them did
            step = min(app["steps"], key=lambda s: s["tables"])
            there = f"at {step['tables']:,} tables (missed)"
            yield "live", f"p99 {there}", setup, step["p99_ms"], "ms"
            yield "live", f"actions kept to pace {there}", setup, 100 * step["at_pace"], "%"
        phones = 4 * step["tables"]
        yield "live", f"server CPU an action {there}", setup, step["server_cpu_ms_per_action"], "ms"
        if passed:
            yield "live", "p99 there", setup, step["p99_ms"], "ms"
        yield "live", f"server memory a phone {there}", setup, step["rss_mib"] / phones, "MiB"


def _nights(run: dict[str, Any]) -> Iterator[Figure]:
    setup = f"{run['rubbers']:,} rubbers on PostgreSQL; " + _python(run["machine"])
    for page, figures in sorted(run["pages"].items()):
        yield "nights", f"the {page} page, p95", setup, figures["p95_ms"], "ms"
    if run["rubber_end"]:
        yield "nights", "a rubber's end, p95", setup, run["rubber_end"]["p95_ms"], "ms"


def _faults(run: dict[str, Any]) -> Iterator[Figure]:
    setup = "two servers on PostgreSQL; " + _python(run["machine"])
    reach, freeze = run["reach"], run["freeze"]
    what = "a change to the other server's phones, its writer killed, median"
    yield "faults", what, setup, reach["median_ms"], "ms"
    what = "the longest an unaffected table stood still while a server was stopped"
    yield "faults", what, setup, freeze["paused_unaffected_longest_s"], "s"


def _pings(run: dict[str, Any]) -> Iterator[Figure]:
    setup = f"{run['sockets']:,} sockets; " + _python(run["machine"])
    yield "pings", "a keepalive ping's server CPU", setup, run["per_ping_us"], "µs"


def _lighthouse(run: dict[str, Any]) -> Iterator[Figure]:
    setup = f"{run['chromium']}, mobile, slow 4G, 4x CPU slowdown; median of {run['runs']} runs"
    for category in ("performance", "accessibility", "best-practices"):
        name = category.replace("-", " ")
        yield "lighthouse", f"the table page's {name} score", setup, run[category], "/ 100"
    what = "the table page's first load, transferred"
    yield "lighthouse", what, setup, run["transferred_bytes"] / 1000, "KB"
    yield "lighthouse", "of which JavaScript", setup, run["script_bytes"] / 1000, "KB"
    yield "lighthouse", "cumulative layout shift", setup, run["cls"], ""
    what = "largest contentful paint, simulated mid-range phone"
    yield "lighthouse", what, setup, run["lcp_ms"] / 1000, "s"


READERS = {
    "engine": _engine,
    "actions": _actions,
    "live": _live,
    "nights": _nights,
    "faults": _faults,
    "pings": _pings,
    "lighthouse": _lighthouse,
}


def read(text: str) -> dict[tuple[str, str], list[Measured]]:
    """The figures of every line, by (release, machine)."""
    runs: dict[tuple[str, str], list[Measured]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            run = json.loads(line)
            reader = READERS[run["bench"]]
            machine = run["machine"]
            key = (machine["release"], f"{machine['cpu']}, {machine['nproc']} cores")
            load = machine.get("loadavg")
            runs.setdefault(key, []).extend((*figure, load) for figure in reader(run))
        except json.JSONDecodeError as error:
            raise BadLine(f"{LINES.name}, line {number}: not JSON ({error.msg})") from None
        except (KeyError, TypeError) as error:
            raise BadLine(
                f"{LINES.name}, line {number}: not a JSON line of {', '.join(READERS)} (no {error})"
            ) from None
    return runs


def _release(key: tuple[str, str]) -> tuple[tuple[int, ...], str]:
    release, machine = key
    return tuple(-int(part) for part in release.split(".") if part.isdigit()), machine


def _value(values: list[float], unit: str) -> str:
    def show(value: float) -> str:
        if unit == "MiB":
            return f"{value:.3f}"
        if value >= 100:
            return f"{value:,.0f}"
        return f"{value:.1f}" if value >= 10 else f"{value:.2f}"

    low, high = min(values), max(values)
    shown = show(low) if show(low) == show(high) else f"{show(low)}-{show(high)}"
    runs = f" ({len(values)} runs)" if len(values) > 1 else ""
    return f"{shown}{f' {unit}' if unit else ''}{runs}"


def _load(loads: list[float | None]) -> str:
    known = [load for load in loads if load is not None]
    if not known:
        return ""
    low, high = min(known), max(known)
    return f"; load {low:.1f}" if f"{low:.1f}" == f"{high:.1f}" else f"; load {low:.1f}-{high:.1f}"


def table(runs: dict[tuple[str, str], list[Measured]]) -> str:
    """The Markdown between the markers."""
    parts = []
    for key in sorted(runs, key=_release):
        release, machine = key
        grouped: dict[tuple[str, str, str, str], list[tuple[float, float | None]]] = {}
        for bench, what, setup, value, unit, load in runs[key]:
            grouped.setdefault((bench, what, setup, unit), []).append((value, load))
        rows = [
            f"| `{bench}` | {what} | {_value([v for v, _ in measured], unit)} |"
            f" {setup}{_load([load for _, load in measured])} |"
            for (bench, what, setup, unit), measured in grouped.items()
        ]
        parts.append(
            f"### {release} on {machine}\n\n"
            "| benchmark | figure | value | set-up |\n|---|---|---|---|\n" + "\n".join(rows)
        )
    return "\n\n".join(parts) if parts else "No figures yet."


def page_with(page: str, figures: str) -> str:
    if page.count(BEGIN) != 1 or page.count(END) != 1:
        raise BadLine(f"{PAGE.name} must hold each marker once: {BEGIN} and {END}")
    head, rest = page.split(BEGIN)
    _, tail = rest.split(END)
    return f"{head}{BEGIN}\n\n{figures}\n\n{END}{tail}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is not current")
    args = parser.parse_args()
    try:
        page = PAGE.read_text()
        written = page_with(page, table(read(LINES.read_text())))
    except BadLine as error:
        print(error, file=sys.stderr)
        return 2
    if args.check:
        if written != page:
            print(f"{PAGE} is not current: run bench/figures.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
