"""A child of a threaded program can always open the cache: children forked (os.fork and
multiprocessing's fork start method) while the parent's threads open, prepare with and
close caches and put into one, each opening, putting, getting and closing within 20 s,
none hung. The forks begin once each parent thread has made its calls a few times (the
promise: see test_fork.c and normcache.h on the Swift runtime's metadata lock)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import normcache

FORKS = 200
AT_ONCE = 8
# Far above the milliseconds a child takes, so that a loaded machine's slow child is not
# counted as hung.
CHILD_SECONDS = 20.0
# No hung child: the rare one of earlier runs (tests/c/test_fork.c says why) is gone.
RESIDUAL_HANGS = 0
# The rounds each parent thread makes before the first fork.
WARM_ROUNDS = 3


@dataclass
class Outcome:
    """How the children ended."""

    passed: int = 0
    hung: int = 0
    aborted: int = 0
    failed: int = 0


def round_trip(path: str, number: int) -> None:
    """What each child does: open the shared cache, put C:<number>, get it, close."""
    with normcache.Cache(path, durability="fast") as cache:
        key = f"C:{number}"
        assert cache.put({key: {"n": number}}) == [f"{key}.n"]
        assert cache.get(key) == {"n": number}


@pytest.fixture
def busy_parent(tmp_path: Path) -> Iterator[str]:
    """Two threads at work for the test's duration: one opens a cache, prepares with it and
    closes it, the other puts into the shared cache, whose path the fixture yields once
    each thread has made WARM_ROUNDS rounds."""
    shared = str(tmp_path / "shared.cache")
    churn = tmp_path / "churn.cache"
    normcache.Cache(shared).close()
    stopping = threading.Event()
    failures: list[BaseException] = []
    warm = [threading.Event(), threading.Event()]

    def open_prepare_close() -> None:
        rounds = 0
        while not stopping.is_set():
            with normcache.Cache(churn) as cache:
                cache.prepare("query Hero { hero { id name } }").close()
            rounds += 1
            if rounds == WARM_ROUNDS:
                warm[0].set()

    def put_loop() -> None:
        with normcache.Cache(shared, durability="fast") as cache:
            n = 0
            while not stopping.is_set():
                cache.put({f"P:{n % 64}": {"n": n}})
                n += 1
                if n == WARM_ROUNDS:
                    warm[1].set()

    def guarded(work: Callable[[], None]) -> None:
        try:
            work()
        except BaseException as error:  # noqa: BLE001 - reported by the test
            failures.append(error)

    threads = [threading.Thread(target=guarded, args=(work,)) for work in (open_prepare_close, put_loop)]
    for thread in threads:
        thread.start()
    for event in warm:
        assert event.wait(timeout=30) or failures
    yield shared
    stopping.set()
    for thread in threads:
        thread.join(timeout=30)
    assert failures == []


def forked_child(path: str, number: int) -> int:
    """Fork a child that runs round_trip and ends with status 0 when it passed; its pid."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            round_trip(path, number)
            code = 0
        finally:
            os._exit(code)
    return pid


def wait_for(pid: int, started: float, outcome: Outcome) -> None:
    """Wait for the child `pid`, killing it once it has run CHILD_SECONDS; count how it ended."""
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            break
        if time.monotonic() - started > CHILD_SECONDS:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            outcome.hung += 1
            return
        time.sleep(0.001)
    if os.WIFSIGNALED(status):
        outcome.aborted += 1
    elif os.WEXITSTATUS(status) != 0:
        outcome.failed += 1
    else:
        outcome.passed += 1


def test_os_fork_while_threads_open_and_put(busy_parent: str) -> None:
    outcome = Outcome()
    waiting: list[tuple[int, float]] = []
    for number in range(FORKS):
        if len(waiting) == AT_ONCE:
            wait_for(*waiting.pop(0), outcome)
        time.sleep(0.002)
        waiting.append((forked_child(busy_parent, number), time.monotonic()))
    for pid, started in waiting:
        wait_for(pid, started, outcome)
    assert outcome.hung <= RESIDUAL_HANGS and outcome == Outcome(passed=FORKS - outcome.hung, hung=outcome.hung), (
        outcome
    )


def test_multiprocessing_fork_while_threads_open_and_put(busy_parent: str) -> None:
    context = multiprocessing.get_context("fork")
    outcome = Outcome()
    waiting: list[tuple[multiprocessing.process.BaseProcess, float]] = []

    def finish(process: multiprocessing.process.BaseProcess, started: float) -> None:
        process.join(max(0.0, CHILD_SECONDS - (time.monotonic() - started)))
        if process.is_alive():
            process.kill()
            process.join()
            outcome.hung += 1
        elif process.exitcode is not None and process.exitcode < 0:
            outcome.aborted += 1
        elif process.exitcode != 0:
            outcome.failed += 1
        else:
            outcome.passed += 1

    for number in range(FORKS):
        if len(waiting) == AT_ONCE:
            finish(*waiting.pop(0))
        time.sleep(0.002)
        child = context.Process(target=round_trip, args=(busy_parent, number))
        child.start()
        waiting.append((child, time.monotonic()))
    for process, started in waiting:
        finish(process, started)
    assert outcome.hung <= RESIDUAL_HANGS and outcome == Outcome(passed=FORKS - outcome.hung, hung=outcome.hung), (
        outcome
    )
