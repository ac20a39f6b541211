"""Watchers and the change feed: hearing, in this process and others, that the cache changed.

Cache.watch() returns a Watch: a context manager whose callback gets the watched read's
result at once and again after each commit that changes what the read used (by any handle
of this process; other processes' commits once dispatched, see Cache.dispatching()), or an
iterator (and async iterator) of those results when no callback is given. Cache.changes()
and Cache.achanges() iterate the commits themselves, of every process, from the commit log
in the file.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import queue
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from ctypes import byref, c_uint64, c_void_p
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._library import RESULT_CALLBACK, TIMEOUT, WatcherHandle, call_with_buffer, lib
from .errors import error_for
from .fetching import READ_STATUSES
from .freshness import ReadResult
from .managed import Closing, ManagedHandle

if TYPE_CHECKING:
    from .cache import Cache

#: A watch's callback: gets each new result.
WatchCallback = Callable[[ReadResult], object]


@dataclass(frozen=True)
class LoggedCommit:
    """One commit of the log and what it changed: `fields` changed in records stored before
    ("Post:1.title"), `records` created, replaced or removed as a whole, key `prefixes`
    removed, or `all` (a clear, or a commit too large to list)."""

    commit: int
    fields: list[str] = field(default_factory=list)
    records: list[str] = field(default_factory=list)
    prefixes: list[str] = field(default_factory=list)
    all: bool = False


@dataclass(frozen=True)
class CommitChanges:
    """What the commits after a given one changed (Cache.changes_since): the logged commits
    `through` the newest, oldest first; `complete` is False when the log no longer reaches
    back that far (anything may have changed)."""

    through: int
    complete: bool
    commits: list[LoggedCommit]

    @classmethod
    def _from_json(cls, answer: dict[str, Any]) -> CommitChanges:
        """The changes of normcache_changes_since's object."""
        return cls(
            through=answer["through"],
            complete=answer["complete"],
            commits=[
                LoggedCommit(entry["commit"], entry["fields"], entry["records"], entry["prefixes"], entry["all"])
                for entry in answer["commits"]
            ],
        )


@dataclass(frozen=True)
class HandleMetrics:
    """What one handle has done since it opened (Cache.metrics): `reads` of every outcome
    (read, read_result, read_fragment, get, get_document, the cache reads of execute),
    of which `hits` returned all the data fresh, `stale_reads` some of it stale within
    max_stale, and `misses` lacked something; `writes` committed (each call inside a
    transaction) and the fields they changed. Watchers' reads are not counted."""

    reads: int
    hits: int
    misses: int
    stale_reads: int
    writes: int
    changed_fields: int


_END = object()


class Watch(ManagedHandle[WatcherHandle]):
    """A watched read (Cache.watch). With a callback, the callback gets each new result;
    without one, the results queue up for iteration: `for result in watch` (blocking; ends
    when the watch is closed) or `async for result in watch`.

    The first result comes at once; each later one after a commit that changes what the
    last read used, when it differs from the one before. Reads never miss for age: stale
    data comes with status "stale", and `earliest_expiry` says when to refresh. A callback
    runs on the thread whose commit (or dispatch) delivered it and may use the cache. A
    callback that raises ends the watch: close() (or the end of the `with` block) raises
    that exception again.
    """

    kind = "watch"
    #: At the end of a `with` block, a callback's exception gives way to the block's own.
    close_error_yields_to_block = True

    def __init__(self, cache: Cache, callback: WatchCallback | None) -> None:
        """A watch of `cache`, not yet started (see _start)."""
        super().__init__(None, lambda handle: lib.normcache_unwatch(handle))
        self._cache = cache
        self._callback = callback
        self._results: queue.Queue[object] = queue.Queue()
        self._latest: ReadResult | None = None
        self._failure: BaseException | None = None
        self._bridge = RESULT_CALLBACK(self._deliver)

    def _start(self, start: Callable[[Any, Any], int]) -> None:
        """Start the watch with `start(callback, out_handle)`, normcache_watch bound to its
        other arguments."""
        handle = WatcherHandle()
        start(self._bridge, byref(handle))
        self._handle = handle

    @property
    def latest(self) -> ReadResult | None:
        """The last result delivered (None before the first)."""
        return self._latest

    def _deliver(self, _context: c_void_p, status: int, json_bytes: int | None, length: int) -> None:
        """The C callback: turns the result into a ReadResult and hands it on; never lets an
        exception into the library."""
        try:
            if json_bytes is None or status < 0:
                raise error_for(status, lib.normcache_errmsg().decode("utf-8", "replace"))
            answer = json.loads(ctypes.string_at(json_bytes, length))
            result = ReadResult._from_json(READ_STATUSES[status], answer)
            self._latest = result
            if self._callback is None:
                self._results.put(result)
            else:
                self._callback(result)
        except BaseException as error:  # noqa: BLE001 - nothing may cross into C
            if self._failure is None:
                self._failure = error
            self._results.put(_END)
            self._end_watch()

    def _end_watch(self) -> None:
        """Stop the watcher in the library (from inside its callback too)."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            lib.normcache_unwatch(handle)

    def close(self) -> None:
        """End the watch (safe from inside its callback); raise what a callback raised."""
        super().close()
        self._results.put(_END)
        failure, self._failure = self._failure, None
        if failure is not None:
            raise failure

    def __iter__(self) -> Iterator[ReadResult]:
        """The results as they come, until the watch is closed (blocking between them)."""
        while True:
            item = self._results.get()
            if item is _END:
                return
            assert isinstance(item, ReadResult)
            yield item

    async def __aiter__(self) -> AsyncIterator[ReadResult]:
        """The results as they come, until the watch is closed, without blocking the event
        loop."""
        while True:
            item = await asyncio.to_thread(self._results.get)
            if item is _END:
                return
            assert isinstance(item, ReadResult)
            yield item


class Dispatcher(Closing):
    """A thread that hands other processes' commits to this process's watchers
    (Cache.dispatching()): it waits for a commit (normcache_wait_commit, which polls every
    5 ms at most) and dispatches it, from the start of its `with` block until stopped (at
    the block's end, or by stop())."""

    def __init__(self, cache: Cache, poll_timeout: float = 0.1) -> None:
        """A dispatcher of `cache`'s file, not yet started."""
        self._cache = cache
        self._timeout_ms = max(1, int(poll_timeout * 1000))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="normcache-dispatch", daemon=True)
        self.failure: BaseException | None = None

    def _run(self) -> None:
        """Wait and dispatch until stopped or the cache closes."""
        try:
            seen = self._cache.dispatch_changes()
            while not self._stop.is_set():
                newest = self._cache.wait_commit(seen, self._timeout_ms / 1000)
                if newest is not None:
                    seen = self._cache.dispatch_changes()
        except BaseException as error:  # noqa: BLE001 - kept for stop() to raise
            if not self._stop.is_set():
                self.failure = error

    def __enter__(self) -> Dispatcher:
        """Start the thread."""
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop the thread, as stop() does (what the end of a `with` block calls)."""
        self.stop()

    def stop(self) -> None:
        """Stop the thread and wait for it; raise what stopped it early, if anything did."""
        self._stop.set()
        self._thread.join()
        failure, self.failure = self.failure, None
        if failure is not None:
            raise failure


def last_commit(cache: Cache) -> int:
    """normcache_last_commit."""
    commit = c_uint64()
    lib.normcache_last_commit(cache._live_handle(), byref(commit))
    return commit.value


def changes_since(cache: Cache, commit: int) -> CommitChanges:
    """normcache_changes_since."""
    _, buffer = call_with_buffer(lib.normcache_changes_since, cache._live_handle(), _commit_id(commit))
    return CommitChanges._from_json(json.loads(buffer))


def wait_commit(cache: Cache, after: int, timeout: float) -> int | None:
    """normcache_wait_commit: the newest commit, or None on a timeout."""
    if timeout < 0:
        raise ValueError(f"timeout {timeout} is negative")
    newest = c_uint64()
    status = lib.normcache_wait_commit(
        cache._live_handle(), _commit_id(after), min(int(timeout * 1000), 2**31 - 1), byref(newest)
    )
    return None if status == TIMEOUT else newest.value


def dispatch_changes(cache: Cache) -> int:
    """normcache_dispatch_changes."""
    newest = c_uint64()
    lib.normcache_dispatch_changes(cache._live_handle(), byref(newest))
    return newest.value


def follow(cache: Cache, since: int | None, timeout: float | None) -> Iterator[CommitChanges]:
    """What the commits after `since` (None: from now) change, a CommitChanges for each
    wait that found new commits; ends after `timeout` seconds without one (None: never)."""
    seen = last_commit(cache) if since is None else since
    while (batch := _next_batch(cache, seen, timeout)) is not None or timeout is None:
        if batch is not None:
            yield batch
            seen = batch.through


async def afollow(cache: Cache, since: int | None, timeout: float | None) -> AsyncIterator[CommitChanges]:
    """follow() for asyncio: each wait runs in a worker thread."""
    seen = last_commit(cache) if since is None else since
    while (batch := await asyncio.to_thread(_next_batch, cache, seen, timeout)) is not None or timeout is None:
        if batch is not None:
            yield batch
            seen = batch.through


def _next_batch(cache: Cache, seen: int, timeout: float | None) -> CommitChanges | None:
    """The next batch of follow(): what the commits after `seen` change, when one wait of
    `timeout` seconds (None: an hour, after which the caller waits again) finds new
    commits; None when it finds none."""
    newest = wait_commit(cache, seen, 3600.0 if timeout is None else timeout)
    return None if newest is None else changes_since(cache, seen)


def _commit_id(commit: int) -> int:
    """A commit id checked to fit uint64_t."""
    if not 0 <= commit < 2**64:
        raise ValueError(f"commit id {commit} is outside 0..2**64-1")
    return commit
