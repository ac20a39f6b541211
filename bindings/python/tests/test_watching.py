"""Watchers and the change feed from Python: Cache.watch with a callback, as an iterator and
an async iterator; callbacks that raise, re-enter and cancel; another process's commits
delivered by dispatching(); changes(), achanges(), changes_since(), wait_commit()."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from conftest import RunPython

import normcache
from normcache import Cache, CommitChanges, LoggedCommit, ReadResult

HERO = "{ hero { name friends { name } } }"
RECORDS = {
    "QUERY_ROOT": {"hero": {"$reference": "Droid:2001"}},
    "Droid:2001": {"name": "R2-D2", "friends": [{"$reference": "Human:1000"}, {"$reference": "Human:1002"}]},
    "Human:1000": {"name": "Luke Skywalker"},
    "Human:1002": {"name": "Han Solo"},
}


def hero_data(luke: str) -> dict[str, object]:
    """The watched data with Luke's name `luke`."""
    return {"hero": {"name": "R2-D2", "friends": [{"name": luke}, {"name": "Han Solo"}]}}


@pytest.fixture
def hero_cache(cache: Cache) -> Cache:
    """The test's cache holding R2-D2 and friends."""
    cache.put(RECORDS)
    return cache


def test_a_callback_gets_the_first_result_then_each_different_one(hero_cache: Cache) -> None:
    got: list[ReadResult] = []
    with hero_cache.prepare(HERO) as op, hero_cache.watch(op, callback=got.append) as watch:
        assert [result.data for result in got] == [hero_data("Luke Skywalker")]
        assert got[0].status == "complete"
        hero_cache.put({"Human:1000": {"name": "Luke"}})
        hero_cache.put({"Starship:3000": {"name": "Falcon"}, "Human:1000": {"height": 1.72}})
        hero_cache.put({"Human:1000": {"name": "Luke"}})
        assert [result.data for result in got] == [hero_data("Luke Skywalker"), hero_data("Luke")]
        hero_cache.remove("Human:1002")
        assert got[-1].status == "miss"
        assert [(m.path, m.reason, m.record) for m in got[-1].missing] == [
            (["hero", "friends", 1], "absent", "Human:1002")
        ]
        assert watch.latest == got[-1]
    hero_cache.put({"Human:1000": {"name": "Luke S."}})
    assert len(got) == 3
    assert watch.closed


def test_results_are_iterated_until_the_watch_closes(hero_cache: Cache) -> None:
    op = hero_cache.prepare(HERO)
    watch = hero_cache.watch(op)

    def writer() -> None:
        hero_cache.put({"Human:1000": {"name": "Luke"}})
        watch.close()

    threading.Thread(target=writer).start()
    assert [result.data for result in watch] == [hero_data("Luke Skywalker"), hero_data("Luke")]


def test_results_are_iterated_asynchronously(hero_cache: Cache) -> None:
    op = hero_cache.prepare(HERO)

    async def main() -> list[object]:
        seen: list[object] = []
        with hero_cache.watch(op) as watch:
            async for result in watch:
                seen.append(result.data)
                if len(seen) == 1:
                    await asyncio.to_thread(hero_cache.put, {"Human:1000": {"name": "Luke"}})
                else:
                    break
        return seen

    assert asyncio.run(main()) == [hero_data("Luke Skywalker"), hero_data("Luke")]


def test_a_callback_that_raises_ends_the_watch_and_closing_raises_it(hero_cache: Cache) -> None:
    calls: list[int] = []

    def callback(result: ReadResult) -> None:
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("the view is gone")

    with hero_cache.prepare(HERO) as op:
        watch = hero_cache.watch(op, callback=callback)
        hero_cache.put({"Human:1000": {"name": "Luke"}})
        hero_cache.put({"Human:1000": {"name": "Luke S."}})
        assert len(calls) == 2
        assert watch.closed
        with pytest.raises(RuntimeError, match="the view is gone"):
            watch.close()
        watch.close()
        # The cache is unharmed.
        assert hero_cache.read(op) == hero_data("Luke S.")

    with hero_cache.prepare(HERO) as op:
        with pytest.raises(RuntimeError, match="once"):
            with hero_cache.watch(op, callback=lambda result: (_ for _ in ()).throw(RuntimeError("once"))):
                pass


def test_a_callback_error_gives_way_to_the_error_of_the_block(hero_cache: Cache) -> None:
    def callback(result: ReadResult) -> None:
        raise RuntimeError("the view is gone")

    with hero_cache.prepare(HERO) as op:
        with pytest.raises(KeyError, match="the block's own"):
            with hero_cache.watch(op, callback=callback) as watch:
                raise KeyError("the block's own")
        assert watch.closed


def test_a_blocked_callback_holds_up_no_other_thread_whose_commits_it_then_gets_in_order(cache: Cache) -> None:
    writers, rounds = 4, 10
    counts = {"gate": 0} | {f"w{writer}": 0 for writer in range(writers)}
    cache.put({"QUERY_ROOT": {"counter": {"$reference": "Counter:1"}}, "Counter:1": counts})
    entered, release = threading.Event(), threading.Event()
    got: list[dict[str, int]] = []

    def callback(result: ReadResult) -> None:
        got.append(result.data["counter"])
        if got[-1] == counts | {"gate": 1}:
            entered.set()
            release.wait(60)

    with cache.prepare("{ counter { gate " + " ".join(counts) + " } }") as op, cache.watch(op, callback=callback):
        # The gate's commit delivers on its own thread, whose callback then blocks.
        gate = threading.Thread(target=cache.put, args=({"Counter:1": {"gate": 1}},))
        gate.start()
        assert entered.wait(60)
        blocked_at = cache.last_commit()
        # Other threads write and commit, all while it blocks.
        threads = [
            threading.Thread(
                target=lambda w=writer: [cache.put({"Counter:1": {f"w{w}": n}}) for n in range(1, rounds + 1)]
            )
            for writer in range(writers)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert [thread.is_alive() for thread in threads] == [False] * writers
        assert cache.last_commit() == blocked_at + writers * rounds
        assert len(got) == 2
        release.set()
        gate.join(60)
        assert not gate.is_alive()
    # Then the queued commits reach it: each delivery newer than the one before, the last
    # one with every write.
    assert got[-1] == {"gate": 1} | {f"w{writer}": rounds for writer in range(writers)}
    for before, after in zip(got[1:], got[2:]):
        assert before != after and all(after[name] >= before[name] for name in counts)


def test_a_callback_may_write_read_watch_and_cancel(hero_cache: Cache) -> None:
    op = hero_cache.prepare(HERO)
    inner: list[ReadResult] = []
    watches: list[normcache.Watch] = []

    def callback(result: ReadResult) -> None:
        if result.data == hero_data("Luke"):
            hero_cache.put({"Human:1002": {"name": "Han"}})
            assert hero_cache.read(op)["hero"]["friends"][1] == {"name": "Han"}
            watches.append(hero_cache.watch(op, callback=inner.append))
            watches[0].close()

    watches.append(hero_cache.watch(op, callback=callback))
    hero_cache.put({"Human:1000": {"name": "Luke"}})
    assert watches[0].closed
    assert [result.data["hero"]["friends"][1] for result in inner] == [{"name": "Han"}]
    watches[1].close()


def test_a_fragment_at_a_key_is_watched(hero_cache: Cache) -> None:
    got: list[ReadResult] = []
    with hero_cache.prepare("fragment H on Human { name }") as fragment:
        with hero_cache.watch(fragment, key="Human:1000", callback=got.append):
            hero_cache.put({"Human:1000": {"name": "Luke"}})
    assert [result.data for result in got] == [{"name": "Luke Skywalker"}, {"name": "Luke"}]


def test_bad_arguments_are_refused(hero_cache: Cache) -> None:
    with hero_cache.prepare("fragment H on Human { name }") as fragment, hero_cache.prepare(HERO) as op:
        with pytest.raises(normcache.InvalidArgumentError, match="'H' is a fragment, not an operation"):
            hero_cache.watch(fragment)
        with pytest.raises(normcache.InvalidArgumentError, match="empty record key"):
            hero_cache.watch(fragment, key="")
        with pytest.raises(TypeError, match="variables must be a dict or None, not str"):
            hero_cache.watch(op, "{")  # type: ignore[arg-type]
        with pytest.raises(normcache.InvalidArgumentError, match="variable"):
            hero_cache.watch(op, {"nope": 1})
        with pytest.raises(ValueError, match="timeout -1 is negative"):
            hero_cache.wait_commit(0, -1)
        with pytest.raises(ValueError, match=r"commit id -1 is outside 0\.\.2\*\*64-1"):
            hero_cache.changes_since(-1)
    hero_cache.close()
    with pytest.raises(normcache.ClosedError):
        hero_cache.last_commit()


def test_the_commit_log_lists_exactly_what_changed(cache: Cache) -> None:
    before = cache.last_commit()
    cache.put({"Pet:1": {"name": "Rex", "age": 3}})
    cache.put({"Pet:1": {"age": 4}})
    cache.remove_prefix("Pet:")
    cache.clear()
    assert cache.changes_since(before) == CommitChanges(
        through=before + 3,
        complete=True,
        commits=[
            LoggedCommit(before + 1, records=["Pet:1"]),
            LoggedCommit(before + 2, fields=["Pet:1.age"]),
            LoggedCommit(before + 3, prefixes=["Pet:"]),
        ],
    )
    assert cache.last_commit() == before + 3
    assert cache.wait_commit(before + 3, 0.01) is None
    assert cache.wait_commit(before, 0) == before + 3


def test_changes_come_as_they_are_committed(cache: Cache) -> None:
    since = cache.last_commit()
    timer = threading.Timer(0.05, lambda: cache.put({"Pet:1": {"name": "Rex"}}))
    timer.start()
    batches = list(cache.changes(since, timeout=0.5))
    timer.join()
    assert [commit.records for batch in batches for commit in batch.commits] == [["Pet:1"]]

    async def main() -> list[CommitChanges]:
        loop = asyncio.get_running_loop()
        loop.call_later(0.05, cache.put, {"Pet:2": {"name": "Tom"}})
        return [batch async for batch in cache.achanges(timeout=0.5)]

    assert [commit.records for batch in asyncio.run(main()) for commit in batch.commits] == [["Pet:2"]]


CHILD = """
import sys, normcache
with normcache.Cache(sys.argv[1]) as cache:
    cache.put({"Human:1000": {"name": "Luke from another process"}})
"""


def test_another_process_commit_reaches_the_watcher_while_dispatching(
    hero_cache: Cache, cache_path: Path, run_python: RunPython
) -> None:
    arrived = threading.Event()
    got: list[ReadResult] = []

    def callback(result: ReadResult) -> None:
        got.append(result)
        if len(got) == 2:
            arrived.set()

    with hero_cache.prepare(HERO) as op, hero_cache.watch(op, callback=callback), hero_cache.dispatching():
        child = run_python(CHILD, str(cache_path))
        assert child.returncode == 0, child.stderr
        assert arrived.wait(10)
    assert got[-1].data == hero_data("Luke from another process")


def test_a_handle_counts_its_reads_and_writes(cache: Cache, cache_path: Path) -> None:
    assert cache.metrics() == normcache.HandleMetrics(0, 0, 0, 0, 0, 0)
    with cache.prepare(HERO) as op:
        with pytest.raises(normcache.CacheMiss):
            cache.read(op)
        cache.put(RECORDS)
        assert cache.read(op) == hero_data("Luke Skywalker")
        assert cache.get("Human:1000") == {"name": "Luke Skywalker"}
        assert cache.get("Human:9") is None
        with cache.watch(op, callback=lambda result: None):
            cache.put({"Human:1000": {"name": "Luke"}})
    assert cache.metrics() == normcache.HandleMetrics(
        reads=4, hits=2, misses=2, stale_reads=0, writes=2, changed_fields=6
    )
    with Cache(cache_path) as other:
        assert other.metrics().reads == 0
