"""docs/performance.md's figures are the benchmarks' own: written by bench/figures.py from the
JSON lines in bench/figures.jsonl, and current."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]


def load_figures() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_figures", REPO / "bench" / "figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


figures = load_figures()


def machine(release: str, cpu: str = "AMD EPYC", load: float = 0.5) -> dict[str, Any]:
    return {
        "release": release,
        "commit": "abc1234",
        "nproc": 2,
        "cpu": cpu,
        "python": "3.13.5",
        "python_build": "pgo+lto",
        "compiled": ["games.view.html"],
        "allocator": "mimalloc",
        "loadavg": load,
    }


def engine_line(release: str, hands: int, cpu: str = "AMD EPYC", load: float = 0.5) -> str:
    run = {
        "bench": "engine",
        "machine": machine(release, cpu, load),
        "selfplay_hands_per_s": hands,
        "replay_records_per_s": 9000,
    }
    return json.dumps(run)


def test_the_page_shows_what_the_benchmarks_printed() -> None:
    done = subprocess.run(
        [sys.executable, "bench/figures.py", "--check"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,  # a bound for a busy machine: it ends in seconds
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_one_table_per_release_and_machine_newest_release_first() -> None:
    text = "\n".join(
        [
            engine_line("0.1.0", 40000),
            engine_line("0.10.0", 50000),
            engine_line("0.2.0", 45000, cpu="Intel Xeon"),
        ]
    )
    written = figures.table(figures.read(text))
    headings = [line for line in written.splitlines() if line.startswith("### ")]
    assert headings == [
        "### 0.10.0 on AMD EPYC, 2 cores",
        "### 0.2.0 on Intel Xeon, 2 cores",
        "### 0.1.0 on AMD EPYC, 2 cores",
    ]
    assert "| 50,000 hands/s |" in written.split("### 0.2.0")[0]


def test_a_figure_run_more_than_once_shows_its_range_and_the_loads() -> None:
    text = "\n".join([engine_line("0.2.0", 41000, load=0.4), engine_line("0.2.0", 39500, load=1.3)])
    written = figures.table(figures.read(text))
    assert "| 39,500-41,000 hands/s (2 runs) |" in written
    assert "| 9,000 records/s (2 runs) |" in written
    assert "compiled; load 0.4-1.3 |" in written


def test_the_live_benchmark_gives_the_largest_passing_count_and_its_step() -> None:
    step = {"tables": 1200, "ok": True, "server_cpu_ms_per_action": 0.66, "p99_ms": 33.4}
    run = {
        "bench": "live",
        "machine": machine("0.2.0"),
        "configs": {
            "embedded": {
                "servers": "1 uvicorn",
                "database": "sqlite",
                "listen": "unix",
                "route": None,
                "app": {
                    "max_tables": 1200,
                    "steps": [{**step, "tables": 1400, "ok": False}, {**step, "rss_mib": 312.0}],
                },
            }
        },
    }
    written = figures.table(figures.read(json.dumps(run)))
    assert "| tables carried at p99 under 200 ms | 1,200 tables |" in written
    assert "| server CPU an action there | 0.66 ms |" in written
    assert "| server memory a phone there | 0.065 MiB |" in written


def test_lighthouse_gives_the_table_pages_scores_weight_and_paint() -> None:
    run = {
        "bench": "lighthouse",
        "machine": machine("0.2.0"),
        "performance": 100,
        "accessibility": 98,
        "best-practices": 100,
        "transferred_bytes": 40213,
        "script_bytes": 24630,
        "cls": 0,
        "lcp_ms": 1312.5,
        "failed_audits": [],
        "runs": 3,
        "url": "/t/<CODE>/",
        "chromium": "Chromium 131.0.6778.139",
    }
    written = figures.table(figures.read(json.dumps(run)))
    setup = "Chromium 131.0.6778.139, mobile, slow 4G, 4x CPU slowdown; median of 3 runs"
    assert f"| the table page's accessibility score | 98.0 / 100 | {setup}; load 0.5 |" in written
    assert "| the table page's first load, transferred | 40.2 KB |" in written
    assert "| of which JavaScript | 24.6 KB |" in written
    assert "| cumulative layout shift | 0.00 |" in written
    assert "| largest contentful paint, simulated mid-range phone | 1.31 s |" in written


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("{not json", "line 2: not JSON"),
        ('{"bench": "nonesuch", "machine": {}}', "line 2: not a JSON line of engine"),
        ('{"bench": "engine", "machine": {"release": "0.2.0"}}', "line 2: not a JSON line"),
    ],
)
def test_a_line_it_cannot_read_is_named(line: str, said: str) -> None:
    with pytest.raises(figures.BadLine, match=said):
        figures.read(engine_line("0.2.0", 40000) + "\n" + line)


def test_the_page_outside_the_markers_is_kept() -> None:
    page = f"# Speed\n\nBefore.\n\n{figures.BEGIN}\nold\n{figures.END}\n\nAfter.\n"
    written = figures.page_with(page, "new")
    assert written == f"# Speed\n\nBefore.\n\n{figures.BEGIN}\n\nnew\n\n{figures.END}\n\nAfter.\n"
    with pytest.raises(figures.BadLine, match="each marker once"):
        figures.page_with("no markers", "new")
