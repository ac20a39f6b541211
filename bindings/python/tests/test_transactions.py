"""Cache.transaction(), begin(), commit() and rollback(): several writes in one commit that
another thread and another process see all at once, reads inside that see them, rollback on
an exception, a failing call that fails alone, misuse, and a process killed inside."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import RunPython

import normcache

HERO = "{ hero { name } }"

#: A child that prints the keys of the cache at argv[1], one line, as JSON.
PRINT_KEYS = "import json, sys, normcache\nwith normcache.Cache(sys.argv[1]) as c: print(json.dumps(c.search('')))"


def keys_in_child(run_python: RunPython, path: Path) -> str:
    """The keys another process sees in the cache at `path`, as its printed JSON line."""
    finished = run_python(PRINT_KEYS, str(path))
    assert finished.returncode == 0, finished.stderr
    return finished.stdout.strip()


def keys_on_thread(cache: normcache.Cache) -> list[str]:
    """The keys another thread sees through the same cache object."""
    seen: list[str] = []
    thread = threading.Thread(target=lambda: seen.extend(cache.search("")))
    thread.start()
    thread.join()
    return seen


def test_writes_commit_together(cache: normcache.Cache, cache_path: Path, run_python: RunPython) -> None:
    cache.put({"Gone:1": {"v": 1}, "Keep:1": {"a": 1, "b": 2}})
    hero = cache.prepare(HERO)
    droid = cache.prepare("fragment D on Droid { name }")
    with cache.transaction() as inside:
        assert inside is cache
        assert cache.write(hero, {"data": {"hero": {"name": "R2-D2"}}}) == ["QUERY_ROOT.hero.name", "QUERY_ROOT.hero"]
        assert cache.put({"Keep:1.new": {"x": True}}) == ["Keep:1.new.x"]
        assert cache.write_fragment(droid, "Droid:3", {"name": "C-3PO"}) == ["Droid:3.name"]
        assert cache.remove("Gone:1") is True
        assert cache.remove_field("Keep:1", "b") is True
        # Inside: the transaction's own writes.
        assert cache.read(hero) == {"hero": {"name": "R2-D2"}}
        assert cache.get("Keep:1") == {"a": 1}
        assert cache.search("") == ["Droid:3", "Keep:1", "Keep:1.new", "QUERY_ROOT", "QUERY_ROOT.hero"]
        # Outside: nothing yet.
        assert keys_on_thread(cache) == ["Gone:1", "Keep:1"]
        assert keys_in_child(run_python, cache_path) == '["Gone:1", "Keep:1"]'
    assert keys_on_thread(cache) == ["Droid:3", "Keep:1", "Keep:1.new", "QUERY_ROOT", "QUERY_ROOT.hero"]
    assert (
        keys_in_child(run_python, cache_path) == '["Droid:3", "Keep:1", "Keep:1.new", "QUERY_ROOT", "QUERY_ROOT.hero"]'
    )


def test_exception_rolls_back_and_is_reraised(cache: normcache.Cache) -> None:
    cache.put({"A:1": {"v": 1}})
    with pytest.raises(KeyError, match="mine"):
        with cache.transaction():
            cache.put({"A:1": {"v": 2}, "B:1": {"v": 1}})
            cache.clear()
            assert cache.search("") == []
            raise KeyError("mine")
    assert cache.search("") == ["A:1"]
    assert cache.get("A:1") == {"v": 1}
    # The thread has no transaction left: a new one begins.
    with cache.transaction():
        cache.put({"C:1": {"v": 1}})
    assert cache.search("") == ["A:1", "C:1"]


def test_failing_call_fails_alone(cache: normcache.Cache) -> None:
    with cache.transaction():
        cache.put({"B:1": {"v": 1}})
        with pytest.raises(normcache.JSONError) as failure:
            cache.put(b'{"C:1": {"v": 1}, "D:1": {"v": }}')
        assert str(failure.value).startswith("JSON error at byte 31")
        cache.put({"A:1": {"w": 3}})
    assert cache.search("") == ["A:1", "B:1"]


def test_explicit_begin_commit_rollback(cache: normcache.Cache, cache_path: Path) -> None:
    cache.begin()
    cache.put({"A:1": {"v": 1}})
    cache.rollback()
    assert cache.get("A:1") is None
    cache.begin()
    cache.put({"A:1": {"v": 2}})
    cache.commit()
    assert cache.get("A:1") == {"v": 2}
    path = str(cache_path)
    with pytest.raises(normcache.InvalidArgumentError) as failure:
        cache.commit()
    assert str(failure.value) == (
        f"no transaction to commit: none is open on the cache '{path}' in this thread "
        "(a transaction belongs to the thread that began it)"
    )
    with pytest.raises(normcache.InvalidArgumentError, match=r"^no transaction to roll back: "):
        cache.rollback()
    with cache.transaction():
        with pytest.raises(normcache.InvalidArgumentError) as nested:
            cache.begin()
        assert str(nested.value) == (
            f"a transaction is already open on the cache '{path}' in this thread; transactions do not nest"
        )
        failures: list[BaseException] = []

        def commit_elsewhere() -> None:
            try:
                cache.commit()
            except normcache.InvalidArgumentError as error:
                failures.append(error)

        thread = threading.Thread(target=commit_elsewhere)
        thread.start()
        thread.join()
        assert [str(error) for error in failures] == [
            f"no transaction to commit: none is open on the cache '{path}' in this thread "
            "(a transaction belongs to the thread that began it)"
        ]
        cache.put({"B:1": {"v": 1}})
    assert cache.search("") == ["A:1", "B:1"]


def test_read_only_cannot_begin(cache_path: Path) -> None:
    normcache.Cache(cache_path).close()
    with normcache.Cache(cache_path, read_only=True) as reader:
        with pytest.raises(normcache.ReadOnlyError, match=r"is open read-only$"):
            reader.begin()


def test_close_inside_rolls_back(cache_path: Path) -> None:
    cache = normcache.Cache(cache_path)
    with pytest.raises(normcache.ClosedError):
        with cache.transaction():
            cache.put({"A:1": {"v": 1}})
            cache.close()
    with normcache.Cache(cache_path) as reopened:
        assert reopened.search("") == []
        reopened.put({"B:1": {"v": 1}})


def check_waits_for_the_transaction(cache: normcache.Cache, action: Callable[[], object]) -> None:
    """Run `action` on another thread while a transaction of `cache` that put First:1 is
    open; fail unless it returns only after the commit."""
    done = threading.Event()

    def run() -> None:
        action()
        done.set()

    thread = threading.Thread(target=run)
    with cache.transaction():
        cache.put({"First:1": {"v": 1}})
        thread.start()
        assert not done.wait(0.3)
    thread.join(10)
    assert done.is_set()


def test_other_threads_writer_waits(cache: normcache.Cache, cache_path: Path) -> None:
    with normcache.Cache(cache_path) as other:
        check_waits_for_the_transaction(cache, lambda: other.put({"Later:1": {"v": 1}}))
    assert cache.search("") == ["First:1", "Later:1"]


KILLED_CHILD = """
import sys, normcache
cache = normcache.Cache(sys.argv[1])
cache.begin()
cache.put({"Killed:1": {"v": 1}})
cache.remove("Kept:1")
print("ready", flush=True)
sys.stdin.read()
"""


def test_process_killed_inside_leaves_nothing(cache: normcache.Cache, cache_path: Path) -> None:
    cache.put({"Kept:1": {"v": 1}})
    environment = dict(os.environ, NORMCACHE_LIBRARY=normcache._library.path)
    environment["PYTHONPATH"] = str(Path(normcache.__file__).resolve().parent.parent)
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_CHILD, str(cache_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=environment,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline() == "ready\n"
    child.send_signal(signal.SIGKILL)
    assert child.wait(30) == -signal.SIGKILL
    cache.put({"After:1": {"v": 1}})
    assert cache.search("") == ["After:1", "Kept:1"]
    cache.close()
    with normcache.Cache(cache_path) as reopened:
        assert reopened.search("") == ["After:1", "Kept:1"]


def test_close_on_another_thread_waits_for_the_commit(cache_path: Path) -> None:
    cache = normcache.Cache(cache_path)
    check_waits_for_the_transaction(cache, cache.close)
    assert cache.closed
    with normcache.Cache(cache_path) as reopened:
        assert reopened.search("") == ["First:1"]


def wait_until_asleep(thread: threading.Thread) -> None:
    """Wait until `thread` has slept for 50 ms on end, as a thread does that waits on a
    lock inside a call of the library (the call has released the GIL); 10 s at most."""
    stat = Path(f"/proc/self/task/{thread.native_id}/stat")
    deadline = time.monotonic() + 10
    asleep_since: float | None = None
    while time.monotonic() < deadline:
        state = stat.read_text().rsplit(")", 1)[1].split()[0]
        now = time.monotonic()
        if state != "S":
            asleep_since = None
        elif asleep_since is None:
            asleep_since = now
        elif now - asleep_since >= 0.05:
            return
        time.sleep(0.001)
    raise AssertionError(f"thread {thread.native_id} does not wait after 10 s")


def test_close_waits_for_a_call_inside_its_transaction(cache_path: Path) -> None:
    # The holder's transaction keeps the file's writer lock: the put waits inside its
    # own transaction, and a close of its cache on a third thread waits for the put.
    holder = normcache.Cache(cache_path)
    cache = normcache.Cache(cache_path)
    seen: dict[str, object] = {}

    def put() -> None:
        seen["put"] = cache.put({"Inside:1": {"v": 1}})
        seen["committed when the put returned"] = holder.get("Inside:1")

    def close() -> None:
        cache.close()
        seen["committed when the close returned"] = holder.get("Inside:1")

    holder.begin()
    holder.put({"Holder:1": {"v": 1}})
    putter = threading.Thread(target=put)
    putter.start()
    wait_until_asleep(putter)
    closer = threading.Thread(target=close)
    closer.start()
    wait_until_asleep(closer)
    putter.join(0.2)
    assert putter.is_alive() and closer.is_alive() and seen == {}
    holder.commit()
    putter.join(10)
    closer.join(10)
    assert seen == {
        "put": ["Inside:1.v"],
        "committed when the put returned": {"v": 1},
        "committed when the close returned": {"v": 1},
    }
    assert cache.closed
    with pytest.raises(normcache.ClosedError, match=r"^the cache is closed$"):
        cache.put({"After:1": {"v": 1}})
    assert holder.search("") == ["Holder:1", "Inside:1"]
    holder.close()
