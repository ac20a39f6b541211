"""Sharing: threads on one Cache, several Cache objects on one file, and other processes."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable

import pytest
from conftest import RunPython, stored

import normcache

THREADS = 8
ROUNDS = 200


def _run_threads(count: int, work: Callable[[int], None]) -> list[BaseException]:
    """Run work(0..count-1) on that many threads started together; return what they raised."""
    failures: list[BaseException] = []
    barrier = threading.Barrier(count)

    def body(index: int) -> None:
        try:
            barrier.wait()
            work(index)
        except BaseException as error:  # noqa: BLE001 - reported by the test
            failures.append(error)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
        assert not thread.is_alive(), "a thread did not finish"
    return failures


def test_threads_put_and_get_on_one_cache(cache: normcache.Cache) -> None:
    def work(t: int) -> None:
        for i in range(ROUNDS):
            key = f"T{t}:{i:03d}"
            assert cache.put({key: {"v": i, "t": t}}) == [f"{key}.v", f"{key}.t"]
            assert cache.get(key) == {"t": t, "v": i}
            assert cache.put({"Shared:1": {f"t{t}": i}}) == [f"Shared:1.t{t}"]
            assert cache.put(f'{{"{key}": {{"v": {i}}}}}') == []
        assert cache.search(f"T{t}:") == [f"T{t}:{i:03d}" for i in range(ROUNDS)]

    assert _run_threads(THREADS, work) == []
    assert cache.get("Shared:1") == {f"t{t}": ROUNDS - 1 for t in range(THREADS)}
    assert cache.stats()["records"] == THREADS * ROUNDS + 1


def test_threads_read_while_others_write(cache: normcache.Cache) -> None:
    cache.put({f"Pet:{i:03d}": {"n": 0} for i in range(100)})

    def work(t: int) -> None:
        for round_ in range(1, 51):
            if t % 2 == 0:
                cache.put({f"Pet:{i:03d}": {"n": round_} for i in range(100)})
            else:
                keys = cache.search("Pet:")
                assert keys == [f"Pet:{i:03d}" for i in range(100)]
                values = {stored(cache, key)["n"] for key in keys[:10]}
                assert values <= set(range(51))

    assert _run_threads(THREADS, work) == []
    assert {stored(cache, f"Pet:{i:03d}")["n"] for i in range(100)} == {50}


def test_each_thread_reads_its_own_error_message(cache: normcache.Cache) -> None:
    def work(t: int) -> None:
        for i in range(100):
            key = f"Bad{t}x{i}:1"
            with pytest.raises(normcache.JSONError) as failure:
                cache.put(f'{{"{key}": 5}}')
            assert key in failure.value.message
            with pytest.raises(normcache.InvalidArgumentError) as invalid:
                cache.get("")
            assert invalid.value.code == -1

    assert _run_threads(THREADS, work) == []
    assert cache.search("") == []


def _until_closed(count: int, work: Callable[[int, int], None], close: Callable[[], None]) -> list[BaseException]:
    """Run work(thread, i) for i = 0, 1, ... on `count` threads until each raises, call
    close() while they run, and return what each thread raised."""
    started = threading.Barrier(count + 1)
    ended: list[BaseException] = []

    def body(t: int) -> None:
        started.wait()
        i = 0
        try:
            while True:
                work(t, i)
                i += 1
        except BaseException as error:  # noqa: BLE001 - checked by the caller
            ended.append(error)

    threads = [threading.Thread(target=body, args=(t,)) for t in range(count)]
    for thread in threads:
        thread.start()
    started.wait()
    time.sleep(0.05)
    close()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive()
    return ended


def test_closing_while_threads_use_the_cache_gives_each_of_them_closed_error(cache_path: Path) -> None:
    # Each round closes the cache under four busy threads; whether a thread is before its
    # call, inside the library, or between reading the handle and calling, it gets the one
    # error of a closed cache.
    seen: set[tuple[type, str]] = set()
    for round_ in range(20):
        cache = normcache.Cache(cache_path, durability="fast")

        def work(t: int, i: int, cache: normcache.Cache = cache, round_: int = round_) -> None:
            key = f"T{t}:{round_:02d}{i // 16:06d}"
            if i % 16 == 0:
                cache.put({key: {"a": i, "b": -i}})
            assert cache.get(key) == {"a": i - i % 16, "b": -(i - i % 16)}
            assert cache.search(f"T{t}:{round_:02d}", limit=1) == [f"T{t}:{round_:02d}000000"]
            assert cache.stats()["durability"] == "fast"

        ended = _until_closed(4, work, cache.close)
        assert len(ended) == 4
        seen.update((type(error), str(error)) for error in ended)
    assert seen == {(normcache.ClosedError, "the cache is closed")}
    with normcache.Cache(cache_path) as again:
        for key in again.search(""):
            record = again.get(key)
            assert record is not None and record["b"] == -record["a"]


def test_closing_an_operation_while_threads_use_it_gives_each_of_them_closed_error(cache: normcache.Cache) -> None:
    seen: set[tuple[type, str]] = set()
    for _ in range(10):
        op = cache.prepare("{ a { b } }")

        def work(t: int, i: int, op: normcache.Operation = op) -> None:
            cache.write(op, {"data": {"a": {"b": i}}})
            assert cache.read(op) is not None
            assert cache.normalize(op, {"data": {"a": None}}) == {"QUERY_ROOT": {"a": None}}
            assert op.document == "{\n  a {\n    b\n    __typename\n  }\n}"

        ended = _until_closed(4, work, op.close)
        assert len(ended) == 4
        seen.update((type(error), str(error)) for error in ended)
    assert seen == {(normcache.ClosedError, "the operation is closed")}


def test_two_caches_on_one_file(cache_path: Path) -> None:
    first = normcache.Cache(cache_path)
    second = normcache.Cache(cache_path)
    try:
        assert first.put({"A:1": {"x": 1}}) == ["A:1.x"]
        assert second.get("A:1") == {"x": 1}
        assert second.put({"A:1": {"y": 2}}) == ["A:1.y"]
        assert first.get("A:1") == {"x": 1, "y": 2}
        assert first.put({"A:1": {"y": 2}}) == []

        def work(t: int) -> None:
            handle = first if t % 2 else second
            for i in range(100):
                handle.put({f"W{t}:{i:03d}": {"i": i}})

        assert _run_threads(4, work) == []
        assert first.search("W") == second.search("W")
        assert len(first.search("W")) == 400
        first.close()
        assert second.get("A:1") == {"x": 1, "y": 2}
        assert second.put({"B:1": {"z": 3}}) == ["B:1.z"]
    finally:
        first.close()
        second.close()
    with normcache.Cache(cache_path) as again:
        assert again.get("B:1") == {"z": 3}


def test_a_read_only_cache_sees_what_a_writer_commits(cache_path: Path) -> None:
    with normcache.Cache(cache_path) as writer:
        writer.put({"A:1": {"x": 1}})
        with normcache.Cache(cache_path, read_only=True) as reader:
            assert reader.get("A:1") == {"x": 1}
            writer.put({"A:1": {"x": 2}, "B:1": {"y": 1}})
            assert reader.get("A:1") == {"x": 2}
            assert reader.search("") == ["A:1", "B:1"]
            with pytest.raises(normcache.ReadOnlyError):
                reader.put({"C:1": {"z": 1}})
        assert writer.get("C:1") is None


CHILD_WRITES = """
import json, sys, normcache
with normcache.Cache(sys.argv[1]) as cache:
    print(json.dumps(cache.get("Parent:1")))
    print(json.dumps(cache.put({"Child:1": {"from": "child"}})))
"""


def test_a_second_process_writes_and_the_first_sees_it(
    cache: normcache.Cache, cache_path: Path, run_python: RunPython
) -> None:
    cache.put({"Parent:1": {"from": "parent"}})
    child = run_python(CHILD_WRITES, str(cache_path))
    assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines() == ['{"from": "parent"}', '["Child:1.from"]']
    assert cache.get("Child:1") == {"from": "child"}
    assert cache.search("") == ["Child:1", "Parent:1"]


CHILD_WRITES_MANY = """
import sys, normcache
with normcache.Cache(sys.argv[1]) as cache:
    for i in range(200):
        assert cache.put({"Child:%03d" % i: {"i": i}}) == ["Child:%03d.i" % i]
        assert cache.put({"Shared:1": {"child": i}}) == ["Shared:1.child"]
"""


def test_two_processes_write_at_once(cache: normcache.Cache, cache_path: Path, run_python: RunPython) -> None:
    results: list[subprocess.CompletedProcess[str]] = []
    child = threading.Thread(target=lambda: results.append(run_python(CHILD_WRITES_MANY, str(cache_path))))
    child.start()
    for i in range(200):
        assert cache.put({f"Parent:{i:03d}": {"i": i}}) == [f"Parent:{i:03d}.i"]
        assert cache.put({"Shared:1": {"parent": i}}) == ["Shared:1.parent"]
    child.join(timeout=300)
    assert results and results[0].returncode == 0, results[0].stderr if results else "no result"
    assert cache.search("Child:") == [f"Child:{i:03d}" for i in range(200)]
    assert cache.search("Parent:") == [f"Parent:{i:03d}" for i in range(200)]
    assert cache.get("Shared:1") == {"child": 199, "parent": 199}
    assert cache.stats()["records"] == 401


CHILD_DIES = """
import os, signal, sys, normcache
cache = normcache.Cache(sys.argv[1])
cache.put({"Crash:1": {"written": True}})
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_process_killed_after_a_write_loses_nothing_and_blocks_nobody(
    cache_path: Path, run_python: RunPython
) -> None:
    child = run_python(CHILD_DIES, str(cache_path))
    assert child.returncode == -9
    with normcache.Cache(cache_path) as cache:
        assert cache.get("Crash:1") == {"written": True}
        assert cache.put({"After:1": {"ok": True}}) == ["After:1.ok"]
    again = run_python(CHILD_WRITES, str(cache_path))
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout.splitlines()[1]) == ["Child:1.from"]
