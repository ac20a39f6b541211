"""normcache compact: shrinking a cache file in place, refused while another process has
it open, and safe for processes that open the file while it runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from conftest import CLI, REPO

# A process that holds the cache open (read-only when argv[3] says so) until its standard
# input closes; it prints "ready" once open.
HOLDER = """
import sys
sys.path.insert(0, sys.argv[2])
import normcache
with normcache.Cache(sys.argv[1], read_only=sys.argv[3] == "read-only"):
    print("ready", flush=True)
    sys.stdin.read()
"""

# A process that opens the cache, writes its counter, reads it back and closes it, over
# and over until killed, printing each counter it wrote.
OPENER = """
import sys
sys.path.insert(0, sys.argv[2])
import normcache
n = 0
while True:
    n += 1
    with normcache.Cache(sys.argv[1], durability="fast") as cache:
        cache.put({f"Opener:{n}": {"n": n}})
        assert cache.get(f"Opener:{n}") == {"n": n}
    with normcache.Cache(sys.argv[1], read_only=True) as reader:
        assert reader.get(f"Opener:{n}") == {"n": n}
    print(n, flush=True)
"""


def binding(code: str, cache: Path, *arguments: str) -> subprocess.Popen[str]:
    """Starts `code` in a Python process on the Python binding, with the cache's path."""
    return subprocess.Popen(
        [sys.executable, "-c", code, str(cache), str(REPO / "bindings/python"), *arguments],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_a_cleared_cache_shrinks_to_a_few_pages_and_keeps_its_mode(cli: CLI, tmp_path: Path) -> None:
    lines = "".join(json.dumps({f"R:{i}": {"v": "x" * 1000}}) + "\n" for i in range(2000))
    cli.ok("load", "big.cache", stdin=lines)
    assert cli.ok("rm", "big.cache", "--prefix", "R:") == "removed 2000 records\n"
    os.chmod(tmp_path / "big.cache", 0o640)
    before = os.path.getsize(tmp_path / "big.cache")
    assert before > 2_000_000
    out = cli.ok("compact", "big.cache")
    after = os.path.getsize(tmp_path / "big.cache")
    assert out == f"compacted 'big.cache': {before} bytes -> {after} bytes\n"
    assert after <= 12 * 4096  # meta pages, roots and the commit log of the load and the rm
    assert os.stat(tmp_path / "big.cache").st_mode & 0o777 == 0o640
    assert json.loads(cli.ok("stats", "big.cache", "--json"))["records"] == 0
    assert sorted(os.listdir(tmp_path)) == ["big.cache", "big.cache-lock"]
    cli.ok("load", "big.cache", stdin='{"R:1": {"v": 1}}\n')
    assert json.loads(cli.ok("get", "big.cache", "R:1")) == {"v": 1}


def test_compacting_keeps_every_record(cli: CLI, pets: str) -> None:
    dump = cli.ok("dump", pets)
    cli.ok("compact", pets)
    assert cli.ok("dump", pets) == dump
    second = cli.ok("compact", pets)
    size = os.path.getsize(cli.folder / pets)
    assert second == f"compacted 'pets.cache': {size} bytes -> {size} bytes\n"


def test_refused_while_another_process_has_it_open(cli: CLI, pets: str) -> None:
    path = cli.folder / pets
    content = path.read_bytes()
    for mode in ("read-write", "read-only"):
        holder = binding(HOLDER, path, mode)
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "ready\n"
            result = cli("compact", pets)
            assert (result.code, result.out) == (4, "")
            assert result.err == (
                f"normcache: cannot compact 'pets.cache': another process has it open (pid {holder.pid}); "
                "compact it when no process uses it\n"
            )
            assert path.read_bytes() == content
            assert sorted(os.listdir(cli.folder)) == ["pets.cache", "pets.cache-lock"]
        finally:
            assert holder.stdin is not None
            holder.stdin.close()
            assert holder.wait(timeout=60) == 0
    assert cli.ok("compact", pets).startswith("compacted 'pets.cache': ")


def test_missing_and_foreign_files_are_refused(cli: CLI, tmp_path: Path) -> None:
    assert cli("compact", "none.cache").err == "normcache: cannot open 'none.cache': no such file\n"
    (tmp_path / "text.cache").write_text("not a cache")
    result = cli("compact", "text.cache")
    assert (result.code, result.err) == (4, "normcache: 'text.cache' is not a normcache cache: not an LMDB file\n")
    assert (tmp_path / "text.cache").read_text() == "not a cache"
    assert sorted(os.listdir(tmp_path)) == ["text.cache"]  # the lock file it made is gone again


def test_a_truncated_cache_is_refused_and_left_as_it_was(cli: CLI, pets: str, tmp_path: Path) -> None:
    """The pages its meta page claims end past the end of the file: copying it would
    fault (it did: SIGBUS), so it is refused as an open refuses it."""
    path = tmp_path / pets
    length = os.path.getsize(path)
    os.truncate(path, length // 2)
    result = cli("compact", pets)
    assert result.code == 4
    assert result.err.startswith(f"normcache: '{pets}' is truncated: {length // 2} bytes, but its pages end at byte ")
    assert os.path.getsize(path) == length // 2
    assert not any(name.startswith(f"{pets}.compact-") for name in os.listdir(tmp_path))


def test_processes_that_open_the_cache_meanwhile_lose_nothing(cli: CLI, pets: str) -> None:
    """A process opens, writes, reads and closes the cache in a loop while compact runs
    again and again: each compact either runs (openers wait for it) or is refused while
    the file is open; every counter the process wrote is in the cache at the end."""
    path = cli.folder / pets
    opener = binding(OPENER, path)
    compacted = refused = 0
    try:
        assert opener.stdout is not None and opener.stdout.readline() == "1\n"
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline or compacted < 3:
            result = cli("compact", pets)
            if result.code == 0:
                compacted += 1
            else:
                assert result.err.startswith("normcache: cannot compact 'pets.cache': another process has it open")
                refused += 1
        assert opener.poll() is None, "the opener failed"
    finally:
        opener.kill()
        opener.wait()
    assert opener.stdout is not None
    written = [int(line) for line in ["1", *opener.stdout.read().split()]]
    keys = cli.ok("keys", pets, "Opener:").split()
    assert len(written) > 10 and compacted >= 3
    assert {f"Opener:{n}" for n in written} <= set(keys)
    print(f"{compacted} compactions, {refused} refused, {len(written)} opener rounds")
