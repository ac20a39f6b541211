"""Garbage collection from Python: the typed report, retain counts (with the retained()
block), bad input, a collector process running beside a writer process that never
meets a missing record it just wrote, and a collector killed mid-way (nothing
half-done after a reopen)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FakeClock, RunPython

import normcache
from normcache import GCReport, GroupRemovals


def ref(key: str) -> dict[str, str]:
    """A reference to the record `key`."""
    return {"$reference": key}


def timeless(report: GCReport) -> GCReport:
    """The report with its timing and table size zeroed, to compare exactly."""
    return GCReport(**{**report.__dict__, "elapsed_us": 0, "mark_set_bytes": 0})


def test_unreachable_records_go_and_the_report_is_typed(cache: normcache.Cache) -> None:
    cache.put(
        {
            "QUERY_ROOT": {"book": ref("Book:1")},
            "Book:1": {"title": "Dune"},
            "Book:2": {"title": "Emma"},
            "Pen:1": {"n": 1},
        }
    )
    report = cache.gc()
    assert report.elapsed_us > 0
    assert report.mark_set_bytes == 32768
    assert timeless(report) == GCReport(
        dry_run=False,
        removed_records=2,
        unreachable_records=2,
        emptied_records=0,
        removed_fields=0,
        stale_fields=0,
        dangling_fields=0,
        kept_records=2,
        groups={"Book:": GroupRemovals(records=1, fields=0), "Pen:": GroupRemovals(records=1, fields=0)},
        mark_set_bytes=0,
        elapsed_us=0,
    )
    assert cache.search() == ["Book:1", "QUERY_ROOT"]


def test_stale_fields_dangling_references_and_a_dry_run(cache: normcache.Cache, clock: FakeClock) -> None:
    cache.set_clock(clock)
    cache.put({"QUERY_ROOT": {"list": [ref("Book:1"), ref("Book:9")], "n": 1}, "Book:1": {"title": "Dune"}})
    cache.put({"Book:1": {"price": 3}}, max_age=60)
    clock.now += 90
    dry = cache.gc(dry_run=True, stale_grace=30, dangling=True)
    assert (dry.dry_run, dry.stale_fields, dry.dangling_fields, dry.removed_records) == (True, 1, 1, 0)
    assert cache.get("Book:1") == {"price": 3, "title": "Dune"}
    assert cache.gc(stale_grace=31).removed_fields == 0
    report = cache.gc(stale_grace=30, dangling=True)
    assert report.groups == {
        "Book:": GroupRemovals(records=0, fields=1),
        "QUERY_ROOT": GroupRemovals(records=0, fields=1),
    }
    assert cache.get("Book:1") == {"title": "Dune"}
    assert cache.get("QUERY_ROOT") == {"n": 1}


def test_retain_counts_are_shared_and_retained_releases(
    cache: normcache.Cache, cache_path: Path, run_python: RunPython
) -> None:
    cache.put({"Draft:1": {"body": "x"}})
    assert cache.retain("Draft:1") == 1
    child = run_python(
        "import sys, normcache\n"
        "with normcache.Cache(sys.argv[1]) as c:\n"
        "    print(c.retain('Draft:1'), c.gc().removed_records)\n",
        str(cache_path),
    )
    assert (child.returncode, child.stdout, child.stderr) == (0, "2 0\n", "")
    with cache.retained("Draft:1") as count:
        assert count == 3
        assert cache.release("Draft:1") == 2
        assert cache.release("Draft:1") == 1
        assert cache.gc().removed_records == 0
    assert cache.search() == ["Draft:1"]
    with pytest.raises(normcache.InvalidArgumentError, match=r"^'Draft:1' is not retained$"):
        cache.release("Draft:1")
    assert cache.gc().removed_records == 1


def test_bad_input_is_refused(cache: normcache.Cache) -> None:
    with pytest.raises(normcache.InvalidArgumentError, match=r"^retained key is not valid UTF-8$"):
        cache.retain(b"\xff\xfe")
    with pytest.raises(normcache.InvalidArgumentError, match=r"^empty retained key$"):
        cache.release("")
    with pytest.raises(
        normcache.InvalidArgumentError,
        match=r"^stale_grace is -1: seconds \(0 or more\), or None to keep stale fields$",
    ):
        cache.gc(stale_grace=-1)
    with pytest.raises(normcache.InvalidArgumentError, match=r"^retained key of 600 bytes is longer than 504 bytes$"):
        cache.retain("k" * 600)


COLLECTOR = """
import os, sys, normcache
stop = sys.argv[2]
runs = removed = 0
with normcache.Cache(sys.argv[1]) as cache:
    print("ready", flush=True)
    while not os.path.exists(stop):
        removed += cache.gc().removed_records
        runs += 1
print(runs, removed)
"""


def test_a_collector_process_never_takes_what_a_writer_just_wrote(
    cache: normcache.Cache, cache_path: Path, tmp_path: Path
) -> None:
    cache.put({"QUERY_ROOT": {"start": 0}})
    stop = tmp_path / "stop"
    environment = {**os.environ, "NORMCACHE_LIBRARY": normcache._library.path}
    environment["PYTHONPATH"] = str(Path(normcache.__file__).resolve().parent.parent)
    collector = subprocess.Popen(
        [sys.executable, "-c", COLLECTOR, str(cache_path), str(stop)],
        env=environment,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert collector.stdout is not None
    assert collector.stdout.readline() == "ready\n"
    try:
        for index in range(400):
            cache.put({f"Junk:{index}": {"n": index}})
            cache.put({"QUERY_ROOT": {f"item{index}": ref(f"Item:{index}")}, f"Item:{index}": {"n": index}})
            assert cache.get(f"Item:{index}") == {"n": index}, f"Item:{index} was collected right after its write"
    finally:
        stop.touch()
        output, _ = collector.communicate(timeout=60)
    runs, removed = map(int, output.split())
    assert collector.returncode == 0
    assert runs >= 2 and removed >= 1, output
    assert len(cache.search("Item:")) == 400
    cache.gc()
    assert cache.search("Junk:") == []


def test_a_collector_killed_mid_way_leaves_nothing_half_done(cache_path: Path, tmp_path: Path) -> None:
    with normcache.Cache(cache_path) as cache:
        cache.put(
            {
                "QUERY_ROOT": {"keep": [ref(f"Keep:{i}") for i in range(10)]},
                **{f"Keep:{i}": {"n": i} for i in range(10)},
            }
        )
        for start in range(0, 60_000, 10_000):
            cache.put({f"Junk:{i:06}": {"n": i} for i in range(start, start + 10_000)})
    environment = {**os.environ, "NORMCACHE_LIBRARY": normcache._library.path}
    environment["PYTHONPATH"] = str(Path(normcache.__file__).resolve().parent.parent)
    code = (
        "import sys, normcache\n"
        "c = normcache.Cache(sys.argv[1])\n"
        "print('go', flush=True)\n"
        "c.gc()\n"
        "print('done', flush=True)\n"
    )
    outcomes: set[int] = set()
    for delay in (0.0, 0.02, 0.05, 0.1):
        child = subprocess.Popen(
            [sys.executable, "-c", code, str(cache_path)], env=environment, stdout=subprocess.PIPE, text=True
        )
        assert child.stdout is not None
        assert child.stdout.readline() == "go\n"
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        with normcache.Cache(cache_path) as reopened:
            records = reopened.stats()["records"]
            assert records in (60_011, 11), records
            assert len(reopened.search("Keep:")) == 10
            outcomes.add(records)
            if records == 11:
                break
    assert 60_011 in outcomes
