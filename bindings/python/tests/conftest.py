"""Shared fixtures: every test gets its own cache file in its own temporary folder, and a
way to run a second Python process on it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest
from local_servers import API, CACHE_SDL, FEED, serving

import normcache


def stored(cache: normcache.Cache, key: str) -> dict[str, Any]:
    """The record at `key`; fails the test when there is none."""
    record = cache.get(key)
    assert record is not None, f"no record {key}"
    return record


#: Sun, 06 Nov 1994 08:49:37 GMT (the RFC's example date, so headers can name it): where
#: a FakeClock starts.
START = 784_111_777


class FakeClock:
    """A clock the test moves (Cache.set_clock): `now` seconds since 1970, START at first."""

    def __init__(self, now: int = START) -> None:
        """A clock standing at `now`."""
        self.now = now
        self.calls = 0

    def __call__(self) -> int:
        """The time it stands at."""
        self.calls += 1
        return self.now


class RunPython(Protocol):
    """The run_python fixture: run(code, *arguments, timeout=120) -> the finished child."""

    def __call__(self, code: str, *arguments: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """Run `code` with `arguments` in sys.argv[1:]; its output as text."""
        ...


@pytest.fixture
def cache_path(tmp_path: Path) -> Path:
    """A fresh, not yet created cache path: tmp_path / "test.cache"."""
    return tmp_path / "test.cache"


@pytest.fixture
def cache(cache_path: Path) -> Iterator[normcache.Cache]:
    """A cache opened with the default options on cache_path, closed after the test."""
    with normcache.Cache(cache_path) as opened:
        yield opened


@pytest.fixture
def clock() -> FakeClock:
    """A fake clock at START."""
    return FakeClock()


def child_environment() -> dict[str, str]:
    """The environment of a child Python process that imports this same normcache and library."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = str(Path(normcache.__file__).resolve().parent.parent)
    environment["NORMCACHE_LIBRARY"] = normcache._library.path
    return environment


@pytest.fixture
def run_python() -> RunPython:
    """Run Python code in a child process that imports this same normcache and library.

    The code gets its arguments in sys.argv[1:]; the child's output is returned as text.
    """

    def run(code: str, *arguments: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", code, *arguments],
            env=child_environment(),
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    return run


@pytest.fixture
def api() -> API:
    """What the test's GraphQL server answers: the articles, fresh for 1800 seconds."""
    return API()


@pytest.fixture
def graphql_url(api: API) -> Iterator[str]:
    """The endpoint of a real GraphQL server on 127.0.0.1 answering `api`."""
    with serving(api) as base:
        yield base + "/graphql"


@pytest.fixture
def articles_url(rest: API) -> Iterator[str]:
    """The URL of the articles on a real server answering `rest` (a fixture of the module
    that uses this one)."""
    with serving(rest) as base:
        yield base + "/articles"


@pytest.fixture
def graphql_cache(cache: normcache.Cache, clock: FakeClock) -> normcache.Cache:
    """The test's cache with the schema of the server's articles and the fake clock."""
    cache.load_schema(CACHE_SDL)
    cache.set_clock(clock)
    return cache


@pytest.fixture
def feed_op(graphql_cache: normcache.Cache) -> Iterator[normcache.Operation]:
    """The operation FEED, prepared on graphql_cache."""
    with graphql_cache.prepare(FEED) as op:
        yield op
