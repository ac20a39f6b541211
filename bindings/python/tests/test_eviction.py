"""Size limits: Cache(max_bytes=...) and Cache.trim evict whole records, least recently
written first, sparing the roots; an eviction killed half-way leaves nothing half-done."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import START, FakeClock

import normcache

#: Each record with this body takes its own five overflow pages of 4096 bytes.
BODY = "x" * 20_000


def put_large(cache: normcache.Cache, clock: FakeClock, key: str, at: int) -> None:
    """Put `key` with a large body, written at START + `at`."""
    clock.now = START + at
    cache.put({key: {"body": BODY}})


def test_trim_evicts_the_oldest_records_and_reports_them_by_group(cache: normcache.Cache) -> None:
    clock = FakeClock()
    cache.set_clock(clock)
    clock.now = START
    cache.put({"QUERY_ROOT": {"me": {"$reference": "User:1"}}})
    put_large(cache, clock, "User:2", 100)
    put_large(cache, clock, "User:1", 200)
    put_large(cache, clock, "Post:1", 300)
    before = cache.stats()["data_bytes"]
    report = cache.trim(before - 1)
    assert report == {
        "records": 1,
        "bytes": report["bytes"],
        "data_bytes_before": before,
        "data_bytes_after": before - 5 * 4096,
        "groups": {"User:": 1},
    }
    assert 20_000 < report["bytes"] < 20_100
    assert cache.search() == ["Post:1", "QUERY_ROOT", "User:1"]
    report = cache.trim(0)
    assert report["records"] == 2 and report["groups"] == {"Post:": 1, "User:": 1}
    assert cache.search() == ["QUERY_ROOT"]


def test_max_bytes_keeps_the_data_under_the_limit(cache_path: Path) -> None:
    clock = FakeClock()
    with normcache.Cache(cache_path, max_bytes=200_000, low_water=0.5) as cache:
        cache.set_clock(clock)
        seen = []
        for index in range(20):
            put_large(cache, clock, f"Item:{index}", index)
            seen.append(cache.stats()["data_bytes"])
        assert max(seen) <= 200_000
        assert cache.stats()["max_bytes"] == 200_000
        assert cache.search() == [f"Item:{index}" for index in range(12, 20)]


def test_a_write_larger_than_max_bytes_is_refused(cache_path: Path) -> None:
    with normcache.Cache(cache_path, max_bytes=65_536) as cache:
        cache.put({"Small:1": {"n": 1}})
        with pytest.raises(normcache.StorageError, match=r"over its max_bytes of 65536, .*; nothing was written$"):
            cache.put({"Huge:1": {"body": "y" * 100_000}})
        assert cache.search() == ["Small:1"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_bytes": 0}, "option 'max_bytes' must be an integer number of bytes, at least 65536"),
        ({"max_bytes": -5}, "option 'max_bytes' must be an integer number of bytes, at least 65536"),
        ({"max_bytes": 10**30}, "option 'max_bytes' must be an integer number of bytes, at least 65536"),
        ({"low_water": 0.0}, "option 'low_water' must be a number greater than 0 and at most 1"),
        ({"low_water": 2}, "option 'low_water' must be a number greater than 0 and at most 1"),
    ],
)
def test_bad_limits_are_refused(cache_path: Path, options: dict[str, float], message: str) -> None:
    with pytest.raises(normcache.InvalidArgumentError, match=f"^{message}$"):
        normcache.Cache(cache_path, **options)  # type: ignore[arg-type]
    assert not cache_path.exists()


def test_trim_of_a_negative_size_is_refused(cache: normcache.Cache) -> None:
    with pytest.raises(normcache.InvalidArgumentError, match=r"^max_bytes -1 is negative$"):
        cache.trim(-1)


CHILD = """
import sys
import normcache
cache = normcache.Cache(sys.argv[1])
print("ready", flush=True)
cache.trim(0)
print("done", flush=True)
"""

RECORDS = {f"Item:{index:05}": {"n": index} for index in range(60_000)}


def fill(path: Path) -> None:
    """Give the cache at `path` QUERY_ROOT and the 60,000 RECORDS, unless it has them."""
    with normcache.Cache(path) as cache:
        if cache.stats()["records"] != 60_001:
            cache.put({"QUERY_ROOT": {"first": {"$reference": "Item:00000"}}, **RECORDS})


def test_an_eviction_killed_half_way_leaves_all_or_nothing(tmp_path: Path) -> None:
    """A child trims 60,000 records to nothing and is killed with SIGKILL at moments
    spread over the time a trim takes here: after each kill the file holds every record
    or only the root, never a part."""
    timed = tmp_path / "timed.cache"
    fill(timed)
    with normcache.Cache(timed) as cache:
        start = time.perf_counter()
        cache.trim(0)
        seconds = time.perf_counter() - start
    path = tmp_path / "killed.cache"
    environment = dict(os.environ)
    environment["PYTHONPATH"] = str(Path(normcache.__file__).resolve().parent.parent)
    environment["NORMCACHE_LIBRARY"] = normcache._library.path
    outcomes = []
    for step in range(8):
        fill(path)
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, text=True, env=environment
        )
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
        time.sleep(seconds * step / 6)
        child.send_signal(signal.SIGKILL)
        child.wait()
        with normcache.Cache(path) as cache:
            count = cache.stats()["records"]
            assert count in (60_001, 1), f"a kill after {seconds * step / 6:.3f} s left {count} records"
            if count == 1:
                assert cache.search() == ["QUERY_ROOT"]
        outcomes.append(count)
    assert 60_001 in outcomes
