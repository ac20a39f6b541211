"""The command line reading a cache that another process is writing."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from conftest import CLI, REPO

# A writer process: the Python binding on libnormcache.so, writing batches of records
# (growing the map as it goes) until it is killed; it prints "ready" after its first write.
WRITER = """
import sys
sys.path.insert(0, sys.argv[2])
import normcache
with normcache.Cache(sys.argv[1], durability="fast") as cache:
    n = 0
    while True:
        cache.put({f"Item:{n + i:07}": {"n": n + i, "pad": "x" * 200} for i in range(500)})
        if n == 0:
            print("ready", flush=True)
        n += 500
"""


def test_keys_stats_dump_and_copy_while_another_process_writes(cli: CLI, tmp_path: Path) -> None:
    cache = tmp_path / "busy.cache"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(cache), str(REPO / "bindings/python")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "ready\n"
        counts: list[int] = []
        deadline = time.monotonic() + 3
        rounds = 0
        while time.monotonic() < deadline or rounds < 3:
            stats = json.loads(cli.ok("stats", "busy.cache", "--json"))
            counts.append(stats["records"])
            keys = cli.ok("keys", "busy.cache", "Item:", "--limit", "1000").split()
            assert keys == sorted(keys) and 0 < len(keys) <= 1000
            dump = cli.ok("dump", "busy.cache").splitlines()
            assert len(dump) % 500 == 0  # whole writes only: one snapshot
            rounds += 1
        assert cli.ok("copy", "busy.cache", "snapshot.cache").startswith("copied")
        assert writer.poll() is None, "the writer stopped"
    finally:
        writer.kill()
        writer.wait()
    assert counts == sorted(counts) and counts[-1] > counts[0], counts
    snapshot = json.loads(cli.ok("stats", "snapshot.cache", "--json"))
    assert snapshot["records"] % 500 == 0 and snapshot["records"] > 0
