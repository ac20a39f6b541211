"""normcache.compact: a cache file rewritten in place without its free pages, every record
kept, its report; and the paths and files it refuses, the file open in this process or in
another process among them, each with its exact error and the file left as it was."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import child_environment

import normcache


def fill(path: Path) -> None:
    """30 small records and 1500 records of 1 kB under "Big:"."""
    with normcache.Cache(path) as cache:
        cache.put(
            {
                f"Pet:{i}": {"name": f"pet {i}", "tags": [i, "x"], "friend": {"$reference": f"Pet:{i + 1}"}}
                for i in range(30)
            }
        )
        cache.put({f"Big:{i}": {"v": "x" * 1000} for i in range(1500)})


def records_of(path: Path) -> dict[str, Any]:
    """Every record of the cache file, key to record."""
    with normcache.Cache(path) as cache:
        return {key: cache.get(key) for key in cache.search("")}


def test_compaction_keeps_every_record_and_reports_both_sizes(cache_path: Path) -> None:
    fill(cache_path)
    with normcache.Cache(cache_path) as cache:
        assert cache.remove_prefix("Big:") == 1500
        cache.put({"Big:3": {"v": "kept"}})
    before = records_of(cache_path)
    assert len(before) == 31
    assert before["Pet:4"] == {"name": "pet 4", "tags": [4, "x"], "friend": {"$reference": "Pet:5"}}
    size_before = os.path.getsize(cache_path)
    assert size_before > 1_500_000

    report = normcache.compact(cache_path)

    size_after = os.path.getsize(cache_path)
    assert report == normcache.CompactionReport(bytes_before=size_before, bytes_after=size_after)
    assert size_after <= 16 * 4096
    assert records_of(cache_path) == before


def test_a_filled_and_cleared_cache_shrinks_to_a_few_pages(cache_path: Path) -> None:
    fill(cache_path)
    with normcache.Cache(cache_path) as cache:
        cache.clear()
        assert cache.stats()["bytes_used"] > 1_500_000
    report = normcache.compact(os.fsencode(cache_path), max_readers=9)
    assert report.bytes_before > 1_500_000
    assert report.bytes_after == os.path.getsize(cache_path) <= 16 * 4096
    with normcache.Cache(cache_path) as cache:
        assert cache.stats()["records"] == 0
        cache.put({"Pet:1": {"name": "again"}})
        assert cache.get("Pet:1") == {"name": "again"}


def test_bad_paths_and_options_raise_exact_errors(tmp_path: Path) -> None:
    cases: list[tuple[normcache.cache.PathLike, type[normcache.Error], str]] = [
        ("", normcache.InvalidArgumentError, "empty cache path"),
        (b"a\0b.cache", normcache.InvalidArgumentError, "cache path contains a NUL byte"),
        (bytes(tmp_path / "caf") + b"\xe9.cache", normcache.InvalidArgumentError, "path is not valid UTF-8"),
        (
            tmp_path / "missing.cache",
            normcache.StorageError,
            f"cannot compact '{tmp_path / 'missing.cache'}': cannot stat it: No such file or directory",
        ),
        (tmp_path, normcache.InvalidArgumentError, f"cannot compact '{tmp_path}': not a regular file"),
    ]
    for path, error, message in cases:
        with pytest.raises(error) as refused:
            normcache.compact(path)
        assert type(refused.value) is error
        assert refused.value.message == message
    with pytest.raises(normcache.InvalidArgumentError) as readers:
        normcache.compact(tmp_path / "missing.cache", max_readers=0)
    assert readers.value.message == "option 'max_readers' must be an integer from 1 to 65535"
    assert os.listdir(tmp_path) == []


def test_files_that_are_no_cache_are_refused_and_left_as_they_were(tmp_path: Path) -> None:
    noise = tmp_path / "noise.cache"
    noise.write_bytes(random.Random(7).randbytes(3 * 4096))
    kept = noise.read_bytes()
    with pytest.raises(normcache.NotACacheError) as not_lmdb:
        normcache.compact(noise)
    assert not_lmdb.value.message == f"'{noise}' is not a normcache cache: not an LMDB file"
    assert noise.read_bytes() == kept

    truncated = tmp_path / "truncated.cache"
    fill(truncated)
    length = os.path.getsize(truncated)
    os.truncate(truncated, length // 2)
    cut = truncated.read_bytes()
    with pytest.raises(normcache.NotACacheError) as cut_short:
        normcache.compact(truncated)
    assert cut_short.value.message.startswith(
        f"'{truncated}' is truncated: {length // 2} bytes, but its pages end at byte "
    )
    assert truncated.read_bytes() == cut
    assert sorted(os.listdir(tmp_path)) == ["noise.cache", "truncated.cache", "truncated.cache-lock"]


def test_a_cache_open_in_this_process_is_refused(cache_path: Path) -> None:
    fill(cache_path)
    with normcache.Cache(cache_path) as cache:
        kept = cache_path.read_bytes()
        with pytest.raises(normcache.InvalidArgumentError) as refused:
            normcache.compact(cache_path)
        assert refused.value.message == (
            f"'{cache_path}' is open in this process (1 handle): close it before compacting it"
        )
        assert cache_path.read_bytes() == kept
        assert cache.get("Pet:2") == {"name": "pet 2", "tags": [2, "x"], "friend": {"$reference": "Pet:3"}}


HOLDER = """
import sys
import normcache
with normcache.Cache(sys.argv[1]) as cache:
    print("open", flush=True)
    sys.stdin.readline()
    print(cache.get("Pet:7"), flush=True)
"""


def test_a_cache_open_in_another_process_is_refused_naming_it_and_the_pid(cache_path: Path) -> None:
    fill(cache_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(cache_path)],
        env=child_environment(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline() == "open\n"
        kept = cache_path.read_bytes()
        with pytest.raises(normcache.StorageError) as refused:
            normcache.compact(cache_path)
        assert refused.value.message == (
            f"cannot compact '{cache_path}': another process has it open (pid {holder.pid});"
            " compact it when no process uses it"
        )
        assert cache_path.read_bytes() == kept
        holder.stdin.write("go\n")
        holder.stdin.flush()
        assert holder.stdout.readline() == "{'friend': {'$reference': 'Pet:8'}, 'name': 'pet 7', 'tags': [7, 'x']}\n"
        assert holder.wait(timeout=60) == 0
    finally:
        holder.kill()
        holder.wait()
    before = records_of(cache_path)
    assert normcache.compact(cache_path).bytes_after <= os.path.getsize(cache_path)
    assert records_of(cache_path) == before
