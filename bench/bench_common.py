"""Shared command line and timing loop of the Python baselines that normcache-bench runs.

Each script gets a feed response, the same response with one field changed per post, the
query, a scratch directory and a run count; it times a cold write, a warm identical
rewrite, a warm changed rewrite and a read of the whole query, `runs` times, each run on a
new cache file, and prints one JSON object of the timings on stdout.
"""
import argparse
import json
import os
import sys
import time
from typing import Callable, Dict, List


class Workload:
    """The per-run operations of one baseline, on a cache file at `path`."""

    def open(self, path: str) -> None:
        """Opens a new cache at `path`."""
        raise NotImplementedError

    def write(self, response: bytes) -> None:
        """Writes one response (parsing it is part of the write)."""
        raise NotImplementedError

    def read(self) -> bytes:
        """Reads the query's data back as JSON text."""
        raise NotImplementedError

    def records(self) -> int:
        """The number of records in the cache."""
        raise NotImplementedError

    def close(self) -> None:
        """Closes the cache."""
        raise NotImplementedError


def arguments() -> argparse.Namespace:
    """The command line shared by the baselines."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--response", required=True, help="the feed response (JSON)")
    parser.add_argument("--changed", required=True, help="the response with one field changed per post")
    parser.add_argument("--query", required=True, help="the GraphQL query text")
    parser.add_argument("--dir", required=True, help="a scratch directory")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--library", help="libnormcache.so for the binding")
    return parser.parse_args()


def _without_typename(value: object) -> object:
    """`value` without `__typename` members: the query does not select them, so a cache
    that returns the selection alone leaves them out."""
    if isinstance(value, list):
        return [_without_typename(item) for item in value]
    if isinstance(value, dict):
        return {name: _without_typename(field) for name, field in value.items() if name != "__typename"}
    return value


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def run(workload: Workload, options: argparse.Namespace) -> None:
    """Times the workload `options.runs` times, checks the read once, prints the JSON."""
    with open(options.response, "rb") as handle:
        response = handle.read()
    with open(options.changed, "rb") as handle:
        changed = handle.read()
    expected = _without_typename(json.loads(response)["data"])
    timings: Dict[str, List[float]] = {"write_cold": [], "write_warm": [], "write_changed": [], "read": []}
    records = read_bytes = 0
    os.makedirs(options.dir, exist_ok=True)
    for number in range(options.runs):
        path = os.path.join(options.dir, f"run{number}.cache")
        for leftover in (path, path + "-lock"):
            if os.path.exists(leftover):
                os.remove(leftover)
        workload.open(path)
        timings["write_cold"].append(_timed(lambda: workload.write(response)))
        if number == 0:
            output = workload.read()
            if _without_typename(json.loads(output)) != expected:
                sys.exit(f"{type(workload).__name__}: the data read back differs from the response")
            records, read_bytes = workload.records(), len(output)
        timings["write_warm"].append(_timed(lambda: workload.write(response)))
        timings["write_changed"].append(_timed(lambda: workload.write(changed)))
        timings["read"].append(_timed(workload.read))
        workload.close()
        for leftover in (path, path + "-lock"):
            if os.path.exists(leftover):
                os.remove(leftover)
    print(json.dumps({**timings, "records": records, "read_bytes": read_bytes}))
