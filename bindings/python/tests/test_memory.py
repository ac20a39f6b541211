"""normcache.release_memory(): the memory libnormcache keeps between calls for later ones."""

from __future__ import annotations

import threading
from pathlib import Path

from conftest import RunPython

import normcache

# In a child process of its own: the library's pool of blocks is the process's.
RELEASE_AFTER_A_LARGE_WRITE = """
import sys, normcache
cache = normcache.Cache(sys.argv[1], durability="fast")
op = cache.prepare("query Big { big { id blob } }")
blob = "ab" * 150_000
normcache.release_memory()
cache.write(op, {"data": {"big": {"__typename": "Big", "id": "1", "blob": blob}}})
print(normcache.release_memory())
print(normcache.release_memory())
assert cache.read(op) == {"big": {"id": "1", "blob": blob}}
cache.close()
"""


def test_release_memory_frees_the_blocks_a_large_write_let_go_then_nothing(
    run_python: RunPython, tmp_path: Path
) -> None:
    child = run_python(RELEASE_AFTER_A_LARGE_WRITE, str(tmp_path / "big.cache"))
    assert child.returncode == 0, child.stderr
    first, second = (int(line) for line in child.stdout.split())
    # At least the scan of the write's 300,000-byte response: a block of 256 KiB or more.
    assert first >= 256 * 1024
    assert second == 0


def test_release_memory_while_other_threads_read_loses_nothing(cache: normcache.Cache) -> None:
    op = cache.prepare("query Big { big { id blob } }")
    blob = "xy" * 200_000
    cache.write(op, {"data": {"big": {"__typename": "Big", "id": "1", "blob": blob}}})
    failures: list[str] = []

    def read_again_and_again() -> None:
        for _ in range(50):
            if cache.read(op) != {"big": {"id": "1", "blob": blob}}:
                failures.append("a read came back different")

    readers = [threading.Thread(target=read_again_and_again) for _ in range(2)]
    for reader in readers:
        reader.start()
    for _ in range(200):
        assert normcache.release_memory() >= 0
    for reader in readers:
        reader.join()
    assert failures == []
