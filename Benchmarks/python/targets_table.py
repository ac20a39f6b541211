"""The targets of a perf harness run as a Markdown table: every figure of normcache-bench's
results.json that carries a target, in the run's order, with its result and whether it was
met. The README's performance table is this script's output for docs/perf/latest.json
(tests/examples checks that it still is):

    python3 Benchmarks/python/targets_table.py docs/perf/latest.json
"""

import json
import sys
from typing import Any


def value(figure: dict[str, Any]) -> str:
    """The figure's median in a readable unit (seconds as s, ms or µs; bytes as MB)."""
    median = float(figure["real_time"])
    if figure.get("time_unit") == "bytes":
        return f"{median / 1e6:.3g} MB"
    seconds = median / 1000 if figure.get("time_unit") == "ms" else median
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def result(figure: dict[str, Any]) -> str:
    """The figure's result as its target reads it: a ratio to its baseline (targets of
    the form "≤ 1.5×"), or its value (targets of the form "< 5 ms")."""
    if figure["target"].startswith("<"):
        return value(figure)
    return f"{figure['ratio']:.2f}× {figure['baseline']}"


def table(results: dict[str, Any]) -> str:
    """The Markdown table of the targeted figures of `results` (normcache-bench's JSON)."""
    lines = ["| figure | result | target | met |", "|---|---|---|---|"]
    for figure in results["benchmarks"]:
        if "target" not in figure:
            continue
        name = figure["run_name"].split(" vs ")[0]
        lines.append(
            f"| {name} | {result(figure)} | {figure['target']} | {'yes' if figure['target_met'] else '**no**'} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: targets_table.py RESULTS_JSON")
    with open(sys.argv[1], encoding="utf-8") as file:
        sys.stdout.write(table(json.load(file)))
