"""Command line, timing loop and output shared by the Python baselines of normcache-bench.

normcache-bench runs each baseline script as

    python3 Benchmarks/python/<script>.py --response FILE --changed FILE --query FILE --dir DIR --runs R
                                          [--library PATH] [--defaults]

with a feed response, the same response with one field changed per post, the query text
and an empty scratch directory. Each run opens a new cache file in DIR and times, with
time.perf_counter:

    write_cold     the first write of --response into the empty cache
    write_warm     the same response again (identical data)
    write_changed  the --changed response
    read           the whole query's data back (as JSON text, or as Python objects where
                   that is what the call returns)
    read_floor     only for a workload whose read returns Python objects: the same objects
                   built by marshal.loads, the quickest way stock CPython has to build them
                   (timed after each read, from a marshal.dumps of that read's output)
    write_cold_floor, write_warm_floor, write_changed_floor
                   the same for what such a workload's writes return (the changed fields)
    c_write_cold, c_write_warm, c_write_changed, c_read
                   only for a workload that `times_c_calls`: the C calls its own calls make,
                   made straight through ctypes in the same process on a cache file of
                   their own, the same three writes and the read; alternately after and
                   before the workload's calls, run by run

Parsing the response is part of a write (the file is read before timing). At the end the
script prints one JSON object on stdout:

    {"write_cold": [s, ...], "write_warm": [...], "write_changed": [...], "read": [...],
     ["read_floor": [...], "write_cold_floor": [...], ...,] ["c_write_cold": [...], ..., "c_read": [...],]
     "records": <records after the cold write>,
     "read_bytes": <bytes of the read's output>}

Once, outside the timings, the data read back after the cold write and after the changed
write is compared with the responses' data; a mismatch, like any error, ends the script
with a message on stderr and a non-zero status. Nothing but the result goes to stdout.
"""
import argparse
import json
import marshal
import os
import sys
import time
from typing import Any, Callable, Dict, List, NoReturn, Optional

#: The timed phases of a run, in order.
PHASES = ("write_cold", "write_warm", "write_changed", "read")


class Workload:
    """One baseline's cache operations; `run` calls them on a new cache file per run."""

    #: The name used in messages.
    name = "workload"

    def open(self, path: str) -> None:
        """Opens a new, empty cache at `path` (the file and `path + "-lock"`)."""
        raise NotImplementedError

    def write(self, response: bytes) -> Any:
        """Writes one GraphQL response, given as the bytes of its JSON text; returns what
        the call returns (None, or the Python objects of a `returns_objects` workload)."""
        raise NotImplementedError

    def read(self) -> Any:
        """Reads the query's whole data back and returns it as JSON text (a str) or as
        the Python objects the call returns."""
        raise NotImplementedError

    def records(self) -> int:
        """The number of records in the cache."""
        raise NotImplementedError

    def close(self) -> None:
        """Closes the cache."""
        raise NotImplementedError

    def expected(self, data: Any) -> Any:
        """What a read should return after writing a response whose data is `data`."""
        return data

    #: Whether `read` and `write` return Python objects, whose building has a floor of its own.
    returns_objects = False

    #: Whether `time_c_calls` times the C calls under this workload's calls.
    times_c_calls = False

    def time_c_calls(self, path: str, response: bytes, changed: bytes) -> Dict[str, float]:
        """Opens a new cache at `path`, times the C calls that `write` and `read` make for
        the cold write of `response`, the same again, the write of `changed` and the read
        (phases "c_write_cold", "c_write_warm", "c_write_changed", "c_read"), closes it
        and returns the seconds of each."""
        raise NotImplementedError


def arguments(description: Optional[str] = None) -> argparse.Namespace:
    """Parses the command line shared by the baselines."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--response", required=True, help="the feed response (JSON file)")
    parser.add_argument("--changed", required=True, help="the response with one field changed per post (JSON file)")
    parser.add_argument("--query", required=True, help="the GraphQL query text (file)")
    parser.add_argument("--dir", required=True, help="a scratch directory for the cache files")
    parser.add_argument("--runs", type=int, default=5, help="how many runs, each on a new cache file (default 5)")
    parser.add_argument("--library", help="python_binding only: the libnormcache.so to load (sets NORMCACHE_LIBRARY)")
    parser.add_argument(
        "--defaults",
        action="store_true",
        help="python_binding only: the calls with their default arguments (options, write with changes, read)",
    )
    options = parser.parse_args()
    if options.runs < 1:
        parser.error("--runs must be at least 1")
    return options


def read_bytes(path: str) -> bytes:
    """The contents of the file at `path`."""
    with open(path, "rb") as handle:
        return handle.read()


def read_text(path: str) -> str:
    """The UTF-8 text of the file at `path`."""
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def response_data(response: bytes, path: str) -> Dict[str, Any]:
    """The `data` object of a GraphQL response; fails when there is none."""
    data = json.loads(response).get("data")
    if not isinstance(data, dict):
        fail(f"{path}: the response has no 'data' object")
    return data


def fail(message: str) -> NoReturn:
    """Ends the script with `message` on stderr and status 1."""
    sys.exit(f"{os.path.basename(sys.argv[0])}: {message}")


def first_difference(actual: Any, expected: Any, path: str = "data") -> Optional[str]:
    """A description of where `actual` first differs from `expected`, or None."""
    if isinstance(actual, dict) and isinstance(expected, dict):
        for name in expected.keys() | actual.keys():
            if name not in actual:
                return f"{path}.{name} is missing"
            if name not in expected:
                return f"{path}.{name} was not expected"
            difference = first_difference(actual[name], expected[name], f"{path}.{name}")
            if difference:
                return difference
        return None
    if isinstance(actual, list) and isinstance(expected, list):
        if len(actual) != len(expected):
            return f"{path} has {len(actual)} items, expected {len(expected)}"
        for index, (item, wanted) in enumerate(zip(actual, expected)):
            difference = first_difference(item, wanted, f"{path}.{index}")
            if difference:
                return difference
        return None
    return None if actual == expected else f"{path} is {actual!r}, expected {expected!r}"


def as_data(output: Any) -> Any:
    """The data of a read's `output`: JSON text parsed, Python objects as they are."""
    return json.loads(output) if isinstance(output, str) else output


def check(workload: Workload, output: Any, response: bytes, path: str, after: str) -> None:
    """Fails unless the output (JSON text or objects) of a read is what `workload` should return
    after writing `response` (read from `path`). The response is parsed here, not kept
    parsed: a large live object graph would slow the garbage collector in the timings."""
    difference = first_difference(as_data(output), workload.expected(response_data(response, path)))
    if difference:
        fail(f"{workload.name}: the data read back after the {after} differs from the response: {difference}")


def timed(action: Callable[[], Any]) -> float:
    """Seconds that `action()` took."""
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def objects_floor(output: Any) -> float:
    """Seconds that marshal.loads takes to build the objects of `output` again: no parse,
    no checks, each object made once from a binary stream. About the least that any call
    returning the same objects adds to its C call, whatever builds them. A list of a
    subclass (the binding's WriteResult) is built as a plain list."""
    dumped = marshal.dumps(list(output) if isinstance(output, list) else output)
    return timed(lambda: marshal.loads(dumped))


def remove_cache(path: str) -> None:
    """Deletes the cache file at `path` and its lock file, if there are any."""
    for leftover in (path, path + "-lock"):
        if os.path.exists(leftover):
            os.remove(leftover)


def run(workload: Workload, options: argparse.Namespace) -> None:
    """Times `workload` `options.runs` times, checks its reads once and prints the result."""
    response = read_bytes(options.response)
    changed = read_bytes(options.changed)
    response_data(response, options.response)  # fail early on a response without data
    response_data(changed, options.changed)
    timings: Dict[str, List[float]] = {phase: [] for phase in PHASES}
    records = output_bytes = 0
    os.makedirs(options.dir, exist_ok=True)
    path = os.path.join(options.dir, f"{workload.name}.cache")
    c_path = os.path.join(options.dir, f"{workload.name}-c.cache")

    def time_c_calls() -> None:
        remove_cache(c_path)
        try:
            for phase, seconds in workload.time_c_calls(c_path, response, changed).items():
                timings.setdefault(phase, []).append(seconds)
        finally:
            remove_cache(c_path)

    def write(phase: str, document: bytes) -> None:
        results: List[Any] = []
        timings[phase].append(timed(lambda: results.append(workload.write(document))))
        if workload.returns_objects:
            timings.setdefault(f"{phase}_floor", []).append(objects_floor(results[0]))

    for number in range(options.runs):
        if workload.times_c_calls and number % 2 == 1:
            time_c_calls()
        remove_cache(path)
        workload.open(path)
        try:
            write("write_cold", response)
            if number == 0:
                output = workload.read()
                check(workload, output, response, options.response, "cold write")
                records = workload.records()
            write("write_warm", response)
            write("write_changed", changed)
            outputs: List[Any] = []
            timings["read"].append(timed(lambda: outputs.append(workload.read())))
            if workload.returns_objects:
                timings.setdefault("read_floor", []).append(objects_floor(outputs[0]))
            if number == 0:
                check(workload, outputs[0], changed, options.changed, "changed write")
                output_bytes = len(json.dumps(as_data(outputs[0]), separators=(",", ":")).encode("utf-8"))
        finally:
            workload.close()
            remove_cache(path)
        if workload.times_c_calls and number % 2 == 0:
            time_c_calls()
    print(json.dumps({**timings, "records": records, "read_bytes": output_bytes}))
