"""The garbage collection figure of issue 14: normcache's gc of a store of N records, half
of them unreachable, timed with its peak memory, next to a raw LMDB cursor walk (py-lmdb)
over the records of the same file, and the time a writer in another process waits for a
one-record put while the collection runs.

    python Benchmarks/python/gc_collect.py [--records 1000000] [--dir /tmp]

Each step runs in a fresh process so that its peak memory (ru_maxrss) is its own:
`build` writes the store (pages of 500 references from QUERY_ROOT to the reachable
half, the other half referred to by nothing), `walk` reads every record with a cursor,
`gc` collects, and `writer` puts one record while a `gc` runs, timing that put.
Prints one line per figure."""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time

PAGE = 500


def build(path: str, records: int) -> None:
    """The store: records/2 reachable Item records in pages, records/2 unreachable Junk ones."""
    import normcache

    half = records // 2
    with normcache.Cache(path) as cache:
        pages = (half + PAGE - 1) // PAGE
        cache.put(
            {
                "QUERY_ROOT": {
                    "pages": [{"$reference": f"Page:{p}"} for p in range(pages)]
                }
            }
        )
        for page in range(pages):
            keys = range(page * PAGE, min(half, (page + 1) * PAGE))
            batch: dict[str, object] = {
                f"Page:{page}": {
                    "items": [{"$reference": f"Item:{i:07}"} for i in keys]
                }
            }
            batch.update({f"Item:{i:07}": {"n": i, "name": f"item {i}"} for i in keys})
            batch.update({f"Junk:{i:07}": {"n": i, "name": f"junk {i}"} for i in keys})
            cache.put(batch)
        print(f"records {cache.stats()['records']}")


def walk(path: str) -> None:
    """A raw LMDB cursor walk over every record: keys and values touched."""
    import lmdb

    env = lmdb.open(path, subdir=False, readonly=True, lock=False, max_dbs=4)
    records = env.open_db(b"records")
    started = time.perf_counter()
    count = size = 0
    with env.begin(db=records, buffers=True) as txn:
        for key, value in txn.cursor():
            count += 1
            size += len(key) + len(value)
    elapsed = time.perf_counter() - started
    print(
        f"walk {count} records {size} bytes {elapsed:.3f} s peak_rss {peak_mib():.1f} MiB"
    )


def collect(path: str, dry_run: bool) -> None:
    """normcache's gc, in a process that has just opened the cache."""
    import normcache

    with normcache.Cache(path) as cache:
        before = peak_mib()
        print("collecting", flush=True)
        started = time.perf_counter()
        report = cache.gc(dry_run=dry_run)
        elapsed = time.perf_counter() - started
        print(
            f"gc{' (dry run)' if dry_run else ''} removed {report.removed_records} kept {report.kept_records}"
            f" {elapsed:.3f} s (elapsed_us {report.elapsed_us}) mark_set {report.mark_set_bytes / 2**20:.1f} MiB"
            f" peak_rss {peak_mib():.1f} MiB (before gc {before:.1f} MiB)"
        )


def writer(path: str) -> None:
    """Puts one record as soon as told to, timing how long the put waited."""
    import normcache

    with normcache.Cache(path) as cache:
        print("ready", flush=True)
        sys.stdin.readline()
        started = time.perf_counter()
        cache.put({"Writer:1": {"n": 1}})
        print(
            f"writer waited {time.perf_counter() - started:.3f} s for a one-record put during gc",
            flush=True,
        )


def peak_mib() -> float:
    """This process's peak resident memory."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(*arguments: str, **keywords: object) -> subprocess.Popen[str]:
    """This script in a fresh process."""
    return subprocess.Popen(
        [sys.executable, __file__, *arguments], text=True, **keywords
    )  # type: ignore[call-overload, no-any-return]


def main() -> None:
    """Every step, each in its own process."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--dir", default="/tmp")
    parser.add_argument("--step", choices=["build", "walk", "gc", "dry", "writer"])
    parser.add_argument("--path")
    options = parser.parse_args()
    if options.step == "build":
        return build(options.path, options.records)
    if options.step == "walk":
        return walk(options.path)
    if options.step in ("gc", "dry"):
        return collect(options.path, options.step == "dry")
    if options.step == "writer":
        return writer(options.path)
    path = os.path.join(options.dir, f"gc-bench-{os.getpid()}.cache")
    try:
        for step in ("build", "walk", "dry", "walk"):
            run(
                "--step", step, "--path", path, "--records", str(options.records)
            ).wait()
        # The dry run prints "collecting" first, as the timed run below does.
        waiting = run(
            "--step",
            "writer",
            "--path",
            path,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert waiting.stdin is not None and waiting.stdout is not None
        assert waiting.stdout.readline() == "ready\n"
        collecting = run("--step", "gc", "--path", path, stdout=subprocess.PIPE)
        assert collecting.stdout is not None
        assert collecting.stdout.readline() == "collecting\n"
        time.sleep(0.2)
        waiting.stdin.write("go\n")
        waiting.stdin.flush()
        print(waiting.stdout.readline(), end="")
        waiting.wait()
        print(collecting.stdout.read(), end="")
        collecting.wait()
        run("--step", "walk", "--path", path).wait()
    finally:
        for suffix in ("", "-lock"):
            if os.path.exists(path + suffix):
                os.unlink(path + suffix)


if __name__ == "__main__":
    main()
