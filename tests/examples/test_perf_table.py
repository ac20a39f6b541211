"""The README's performance table is the table of the saved harness run: the lines after
`<!-- perf-table: docs/perf/latest.json -->` are what Benchmarks/python/targets_table.py
prints for that file, so that a new saved run cannot leave an old table behind."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load_targets_table() -> ModuleType:
    """Benchmarks/python/targets_table.py, which is no package of its own."""
    spec = importlib.util.spec_from_file_location("targets_table", ROOT / "Benchmarks" / "python" / "targets_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


targets_table = load_targets_table()

MARKER = "<!-- perf-table: docs/perf/latest.json -->"


def readme_table() -> str:
    """The lines of the README's table after its marker, up to the first line that is no table row."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index(MARKER) + 1
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return "\n".join(lines[start:end]) + "\n"


def test_the_readme_shows_the_targets_of_the_saved_run() -> None:
    saved = json.loads((ROOT / "docs" / "perf" / "latest.json").read_text(encoding="utf-8"))
    assert readme_table() == targets_table.table(saved)


def test_a_figure_reads_as_its_target_does() -> None:
    figures = {
        "benchmarks": [
            {
                "run_name": "feed/read N=10 vs raw",
                "ratio": 1.234,
                "baseline": "raw",
                "target": "≤ 1.5×",
                "target_met": True,
                "real_time": 3.0,
                "time_unit": "ms",
            },
            {
                "run_name": "app/a small read vs raw",
                "ratio": 6.0,
                "baseline": "raw",
                "target": "< 5 µs",
                "target_met": True,
                "real_time": 0.00123,
                "time_unit": "ms",
            },
            {
                "run_name": "large/peak memory",
                "ratio": 4.54,
                "baseline": "response size",
                "target": "≤ 2.5×",
                "target_met": False,
                "real_time": 2.27e8,
                "time_unit": "bytes",
            },
            {
                "run_name": "eviction/most data bytes",
                "target": "< 1.24 MB",
                "target_met": True,
                "real_time": 1241088.0,
                "time_unit": "bytes",
            },
            {"run_name": "feed/untargeted", "ratio": 2.0, "baseline": "raw", "real_time": 1.0, "time_unit": "ms"},
        ]
    }
    assert targets_table.table(figures) == (
        "| figure | result | target | met |\n"
        "|---|---|---|---|\n"
        "| feed/read N=10 | 1.23× raw | ≤ 1.5× | yes |\n"
        "| app/a small read | 1.23 µs | < 5 µs | yes |\n"
        "| large/peak memory | 4.54× response size | ≤ 2.5× | **no** |\n"
        "| eviction/most data bytes | 1.24 MB | < 1.24 MB | yes |\n"
    )
