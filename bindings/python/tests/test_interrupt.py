"""Cache.interrupt(): a running call raises Interrupted promptly and changes nothing, from a
callback of the call, from another thread, and from Ctrl-C through a thread woken by
signal.set_wakeup_fd; and, without that, a Ctrl-C during a put arrives after its commit."""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from conftest import stored

import normcache

MESSAGE = "interrupted: interrupt() was called on the cache handle while this call ran; nothing was changed"
#: The longest a stopped call may take to return (a loaded machine's margin).
PROMPT_SECONDS = 2.0
#: A query of one field repeated on one line: seconds to prepare today, 3.4 MB.
LONG_DOCUMENT = "query Q { " + "hero { id name } " * 200_000 + "}"


def many_records(count: int) -> str:
    """Records JSON of `count` records "K:<n>" of one field."""
    return json.dumps({f"K:{index}": {"f": index} for index in range(count)})


def test_an_interrupt_while_nothing_runs_does_nothing(cache: normcache.Cache) -> None:
    cache.interrupt()
    cache.interrupt()
    assert cache.put({"A:1": {"x": 1}}) == ["A:1.x"]


def test_interrupting_a_closed_cache_raises_closed_error(cache: normcache.Cache) -> None:
    cache.close()
    with pytest.raises(normcache.ClosedError, match="the cache is closed"):
        cache.interrupt()


def test_interrupted_is_an_error_not_the_builtin() -> None:
    assert issubclass(normcache.Interrupted, normcache.Error)
    assert not issubclass(normcache.Interrupted, OSError)


def test_a_write_interrupted_by_its_key_resolver_writes_nothing(cache: normcache.Cache) -> None:
    cache.put({"QUERY_ROOT.a": {"b": 0}})
    seen: list[str | None] = []

    def resolver(typename: str | None, obj: Any) -> None:
        seen.append(typename)
        if len(seen) == 2:
            cache.interrupt()

    cache.set_key_resolver(resolver)
    with cache.prepare("{ a { b c { d } } }") as op:
        response = {"data": {"a": {"b": 1, "c": {"d": 2}}}}
        with pytest.raises(normcache.Interrupted) as raised:
            cache.write(op, response)
        assert (raised.value.code, str(raised.value)) == (-13, MESSAGE)
        assert cache.search("") == ["QUERY_ROOT.a"]
        assert stored(cache, "QUERY_ROOT.a") == {"b": 0}
        assert cache.write(op, response) == ["QUERY_ROOT.a.c.d", "QUERY_ROOT.a.b", "QUERY_ROOT.a.c", "QUERY_ROOT.a"]


def test_a_put_and_a_read_interrupted_by_the_clock(cache: normcache.Cache) -> None:
    cache.put({"QUERY_ROOT": {"a": 1}})

    def clock() -> int:
        cache.interrupt()
        return 1_700_000_000

    with cache.prepare("{ a }") as op:
        cache.set_clock(clock)
        with pytest.raises(normcache.Interrupted, match=re.escape(MESSAGE)):
            cache.put({"QUERY_ROOT": {"a": 2}, "B:1": {"c": 3}})
        with pytest.raises(normcache.Interrupted, match=re.escape(MESSAGE)):
            cache.read(op)
        cache.set_clock(None)
        assert cache.search("") == ["QUERY_ROOT"]
        assert cache.read(op) == {"a": 1}


def test_a_long_prepare_interrupted_from_another_thread(cache: normcache.Cache) -> None:
    done = threading.Event()
    first: list[float] = []

    def keep_interrupting() -> None:
        while not done.is_set():  # interrupts before the prepare runs do nothing
            cache.interrupt()
            if not first:
                first.append(time.monotonic())
            time.sleep(0.001)

    interrupter = threading.Thread(target=keep_interrupting)
    interrupter.start()
    try:
        with pytest.raises(normcache.Interrupted, match=re.escape(MESSAGE)):
            cache.prepare(LONG_DOCUMENT)
        returned = time.monotonic()
    finally:
        done.set()
        interrupter.join()
    assert returned - first[0] < PROMPT_SECONDS


@contextmanager
def interrupt_on_ctrl_c(cache: normcache.Cache) -> Iterator[None]:
    """The README's recipe: Python runs its SIGINT handler only between calls, but its C
    handler writes the signal to the wakeup fd at once, where a thread waits to interrupt
    the cache; the KeyboardInterrupt then comes as soon as the stopped call returns."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    previous = signal.set_wakeup_fd(write_end)

    def watch() -> None:
        while data := os.read(read_end, 512):
            if signal.SIGINT in data:
                cache.interrupt()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(previous)
        os.close(write_end)
        watcher.join()
        os.close(read_end)


@contextmanager
def ctrl_c_after(seconds: float) -> Iterator[None]:
    """Send this process SIGINT (Python's own handler: KeyboardInterrupt) after `seconds`."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        yield
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)


def test_ctrl_c_during_a_long_put_stops_it_through_the_wakeup_fd(cache: normcache.Cache) -> None:
    records = many_records(300_000)
    with interrupt_on_ctrl_c(cache), ctrl_c_after(0.05):
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            cache.put(records)
        returned = time.monotonic()
    assert returned - started < 0.05 + PROMPT_SECONDS
    assert cache.search("") == []


def test_ctrl_c_during_a_long_put_without_it_arrives_after_the_commit(cache: normcache.Cache) -> None:
    # What the README warns of: Python's handler runs once the put has returned.
    records = many_records(300_000)
    with ctrl_c_after(0.05), pytest.raises(KeyboardInterrupt):
        cache.put(records)
    assert cache.search("K:29999", limit=2) == ["K:29999", "K:299990"]
