"""Cache.copy: a compacted, consistent copy to a new file, the paths it refuses, and
copies taken while another process commits in a loop."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import child_environment

import normcache


def test_a_copy_holds_the_same_records_and_is_a_cache_of_its_own(cache: normcache.Cache, tmp_path: Path) -> None:
    cache.put({"Pet:1": {"name": "Rex", "owner": {"$reference": "User:1"}}, "User:1": {"name": "Ada"}})
    destination = tmp_path / "copy.cache"
    cache.copy(destination)
    assert not (tmp_path / "copy.cache-lock").exists()
    with normcache.Cache(destination) as copy:
        assert (tmp_path / "copy.cache-lock").exists()
        assert copy.search("") == ["Pet:1", "User:1"]
        assert copy.get("Pet:1") == {"name": "Rex", "owner": {"$reference": "User:1"}}
        copy.put({"Pet:2": {"name": "Tom"}})
    assert cache.get("Pet:2") is None


def test_a_filled_and_cleared_cache_copies_to_a_few_pages(cache: normcache.Cache, tmp_path: Path) -> None:
    cache.put({f"R:{i}": {"v": "x" * 1000} for i in range(2000)})
    cache.clear()
    assert cache.stats()["bytes_used"] > 2_000_000
    cache.copy(str(tmp_path / "small.cache"))
    assert (
        os.path.getsize(tmp_path / "small.cache") <= 12 * 4096
    )  # meta pages, roots and the commit log of the put and the clear
    with normcache.Cache(tmp_path / "small.cache") as copy:
        assert copy.stats()["records"] == 0


def test_a_read_only_handle_copies_with_the_source_mode(cache_path: Path, tmp_path: Path) -> None:
    with normcache.Cache(cache_path, mode=0o640) as writer:
        writer.put({"P:1": {"x": 1}})
    previous = os.umask(0o022)
    try:
        with normcache.Cache(cache_path, read_only=True) as reader:
            reader.copy(os.fsencode(tmp_path / "copy.cache"))
    finally:
        os.umask(previous)
    assert os.stat(tmp_path / "copy.cache").st_mode & 0o777 == 0o640


def test_refused_paths_raise_exact_errors_and_leave_nothing(cache: normcache.Cache, tmp_path: Path) -> None:
    existing = tmp_path / "exists.cache"
    existing.write_bytes(b"keep")
    with pytest.raises(normcache.InvalidArgumentError) as exists:
        cache.copy(existing)
    assert (exists.value.code, exists.value.message) == (
        -1,
        f"'{existing}' exists: a copy is written only to a new file",
    )
    assert existing.read_bytes() == b"keep"

    missing = tmp_path / "no-such-dir" / "copy.cache"
    with pytest.raises(normcache.StorageError) as no_directory:
        cache.copy(missing)
    assert no_directory.value.message == (
        f"copying the cache to '{missing}' on '{cache.path}' failed: No such file or directory (open)"
    )
    with pytest.raises(normcache.StorageError) as unwritable:
        cache.copy("/sys/copy.cache")
    assert unwritable.value.message == (
        f"copying the cache to '/sys/copy.cache' on '{cache.path}' failed: Permission denied (open)"
    )

    cases: list[tuple[str | bytes, str]] = [
        ("", "empty destination path"),
        (b"a\0b.cache", "destination path contains a NUL byte"),
        (bytes(tmp_path / "caf") + b"\xe9.cache", "path is not valid UTF-8"),
    ]
    for path, message in cases:
        with pytest.raises(normcache.InvalidArgumentError) as refused:
            cache.copy(path)
        assert refused.value.message == message
    assert sorted(os.listdir(tmp_path)) == ["exists.cache", "test.cache", "test.cache-lock"]
    cache.close()
    with pytest.raises(normcache.ClosedError):
        cache.copy(tmp_path / "closed.cache")


WRITER = """
import sys
import normcache
with normcache.Cache(sys.argv[1], durability="fast") as cache:
    print("ready", flush=True)
    i = 0
    while True:
        i += 1
        cache.put({"A:1": {"n": i}, "B:1": {"n": i}, f"C:{i}": {"n": i}})
"""


def test_copies_while_another_process_commits_hold_whole_commits(
    cache: normcache.Cache, cache_path: Path, tmp_path: Path
) -> None:
    """Each commit writes A:1 and B:1 with the same number n and adds C:n: a copy holds
    every record of a commit or none, so A:1.n == B:1.n and there are n + 2 records."""
    cache.put({"A:1": {"n": 0}, "B:1": {"n": 0}})
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(cache_path)], env=child_environment(), stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "ready\n"
        while cache.stats()["records"] < 100:
            time.sleep(0.001)
        previous = 0
        for i in range(20):
            destination = tmp_path / f"snapshot-{i}.cache"
            cache.copy(destination)
            with normcache.Cache(destination, read_only=True) as copy:
                a, b = copy.get("A:1"), copy.get("B:1")
                assert a is not None and b is not None and a == b
                n = a["n"]
                assert copy.stats()["records"] == n + 2
                assert n >= previous
                previous = n
        assert writer.poll() is None
        assert previous >= 98
    finally:
        writer.kill()
        writer.wait()
