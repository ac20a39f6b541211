"""Cache.aexecute and aexecute_document: the library in a worker thread, an async fetch and
on_result on the caller's event loop, against a real GraphQL server and a real REST
server on 127.0.0.1 (urllib in the loop's executor); the loop left free while a call
runs; cancellation of the awaiting task while a fetch is pending; failures."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

import pytest
from conftest import START, FakeClock
from local_servers import API, DATA, VARIABLES, serving, urllib_fetch, urllib_get

import normcache
from normcache import ExecutionResult, FetchRequest


class AsyncFetch:
    """An async fetch: yields to the loop, then sends the request with urllib in the loop's
    executor; remembers the threads it ran on."""

    def __init__(self, graphql_url: str) -> None:
        """A fetch to the GraphQL endpoint `url`."""
        self.send = urllib_fetch(graphql_url)
        self.threads: list[int] = []

    async def __call__(self, request: FetchRequest) -> Any:
        """The reply to `request`: (body, headers)."""
        self.threads.append(threading.get_ident())
        await asyncio.sleep(0)
        return await asyncio.get_running_loop().run_in_executor(None, self.send, request)


def test_an_async_fetch_through_a_real_server(
    graphql_cache: normcache.Cache, feed_op: normcache.Operation, graphql_url: str, api: API, clock: FakeClock
) -> None:
    fetch = AsyncFetch(graphql_url)
    delivered: list[tuple[str, int]] = []

    async def on_result(result: ExecutionResult) -> None:  # an async on_result is awaited
        await asyncio.sleep(0)
        delivered.append((result.source, threading.get_ident()))

    async def main() -> tuple[ExecutionResult, ExecutionResult]:
        first = await graphql_cache.aexecute(feed_op, VARIABLES, fetch=fetch, on_result=on_result)
        clock.now = START + 60
        second = await graphql_cache.aexecute(feed_op, VARIABLES, fetch=fetch, on_result=on_result)
        return first, second

    first, second = asyncio.run(main())
    loop_thread = threading.get_ident()  # asyncio.run runs the loop on this thread
    assert first == ExecutionResult("complete", DATA, [], [], START, START + 1800, "network")
    assert (second.source, second.data, second.oldest_written_at) == ("cache", DATA, START)
    assert delivered == [("network", loop_thread), ("cache", loop_thread)]
    assert fetch.threads == [loop_thread]
    assert api.served == 1


def test_the_loop_runs_while_a_call_is_under_way(
    graphql_cache: normcache.Cache, feed_op: normcache.Operation, graphql_url: str
) -> None:
    send = urllib_fetch(graphql_url)

    async def main() -> tuple[list[str], ExecutionResult]:
        ready = asyncio.Event()
        events: list[str] = []

        async def fetch(request: FetchRequest) -> Any:
            events.append("fetch waits")
            await ready.wait()  # set by another task: the loop must be free
            events.append("fetch goes on")
            return await asyncio.get_running_loop().run_in_executor(None, send, request)

        async def other() -> None:
            for _ in range(3):
                await asyncio.sleep(0.01)
            events.append("other task")
            ready.set()

        result, _ = await asyncio.wait_for(
            asyncio.gather(graphql_cache.aexecute(feed_op, VARIABLES, fetch=fetch), other()), 30
        )
        return events, result

    events, result = asyncio.run(main())
    assert events == ["fetch waits", "other task", "fetch goes on"]
    assert result.data == DATA


def test_cache_and_network_results_come_in_order(
    graphql_cache: normcache.Cache, feed_op: normcache.Operation, graphql_url: str, api: API
) -> None:
    fetch = AsyncFetch(graphql_url)

    async def main() -> list[str]:
        await graphql_cache.aexecute(feed_op, VARIABLES, fetch=fetch)
        api.articles["1"] = ("Uno", 0)
        delivered: list[str] = []
        result = await graphql_cache.aexecute(
            feed_op,
            VARIABLES,
            fetch=fetch,
            policy="cache_and_network",
            on_result=lambda r: delivered.append(f"{r.source} {r.data['feed'][0]['title']}"),
        )
        assert result.data == {"feed": [{"title": "Uno"}, {"title": "Two"}]}
        return delivered

    assert asyncio.run(main()) == ["cache One", "network Uno"]


def test_cancelling_the_awaiting_task_cancels_the_pending_fetch(
    graphql_cache: normcache.Cache, feed_op: normcache.Operation, graphql_url: str, api: API
) -> None:
    fetch = AsyncFetch(graphql_url)
    seen: list[str] = []

    async def main() -> None:
        await graphql_cache.aexecute(feed_op, {"n": 1}, fetch=fetch)  # something cached for cache_and_network
        started = asyncio.Event()

        async def pending(request: FetchRequest) -> bytes:
            started.set()
            try:
                await asyncio.Event().wait()  # a server that never answers
            except asyncio.CancelledError:
                seen.append("fetch cancelled")
                raise
            raise AssertionError("not reached")

        task = asyncio.create_task(
            graphql_cache.aexecute(
                feed_op,
                {"n": 1},
                fetch=pending,
                policy="cache_and_network",
                on_result=lambda r: seen.append(f"result from the {r.source}"),
            )
        )
        await asyncio.wait_for(started.wait(), 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        seen.append("task cancelled")
        assert normcache.fetching._executions == {}  # the call ended before the task did
        # The cache goes on as before.
        again = await graphql_cache.aexecute(feed_op, VARIABLES, fetch=fetch)
        assert again.source == "network"

    asyncio.run(main())
    assert seen == ["result from the cache", "fetch cancelled", "task cancelled"]
    assert api.served == 2


def test_cancelling_before_the_fetch_starts(graphql_cache: normcache.Cache, feed_op: normcache.Operation) -> None:
    fetched: list[FetchRequest] = []

    async def fetch(request: FetchRequest) -> bytes:
        fetched.append(request)
        return b"{}"

    async def main() -> None:
        task = asyncio.create_task(graphql_cache.aexecute(feed_op, VARIABLES, fetch=fetch))
        await asyncio.sleep(0)  # the task has started the worker, which may not have fetched yet
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert len(fetched) <= 1  # whether the fetch began is the worker's race; the call ended either way
    assert normcache.fetching._executions == {}
    assert graphql_cache.search() == []


def test_failures_of_an_async_fetch(graphql_cache: normcache.Cache, feed_op: normcache.Operation) -> None:
    async def down(request: FetchRequest) -> bytes:
        await asyncio.sleep(0)
        raise ConnectionResetError("reset by peer")

    async def nothing(request: FetchRequest) -> Any:
        return None

    async def main() -> None:
        with pytest.raises(normcache.FetchError, match=r"^ConnectionResetError: reset by peer$") as failure:
            await graphql_cache.aexecute(feed_op, VARIABLES, fetch=down)
        assert isinstance(failure.value.__cause__, ConnectionResetError)
        with pytest.raises(normcache.CallbackError, match=r"^the fetch's answer cannot be used: TypeError: ") as bad:
            await graphql_cache.aexecute(feed_op, VARIABLES, fetch=nothing)
        assert isinstance(bad.value.__cause__, TypeError)

    asyncio.run(main())
    assert graphql_cache.search() == []


def test_a_sync_fetch_and_a_raising_on_result(
    graphql_cache: normcache.Cache, feed_op: normcache.Operation, graphql_url: str, api: API
) -> None:
    def on_result(result: ExecutionResult) -> None:
        raise LookupError("no view")

    async def main() -> None:
        # A plain function works too (it runs on the loop: it should not block long).
        result = await graphql_cache.aexecute(feed_op, VARIABLES, fetch=urllib_fetch(graphql_url))
        assert result.source == "network"
        with pytest.raises(LookupError, match=r"^no view$"):
            await graphql_cache.aexecute(feed_op, VARIABLES, fetch=urllib_fetch(graphql_url), on_result=on_result)

    asyncio.run(main())
    assert api.served == 1


def test_an_async_fetch_may_await_aexecute(
    graphql_cache: normcache.Cache, feed_op: normcache.Operation, graphql_url: str
) -> None:
    fetch = AsyncFetch(graphql_url)
    variable: contextvars.ContextVar[str] = contextvars.ContextVar("variable", default="unset")
    seen: list[Any] = []

    async def main() -> ExecutionResult:
        variable.set("the caller's")
        with graphql_cache.prepare("query One($id: ID!) { article(id: $id) { title } }") as one:

            async def nested(request: FetchRequest) -> Any:
                seen.append(variable.get())  # the caller's context reaches the fetch
                inner = await graphql_cache.aexecute(one, {"id": "2"}, fetch=fetch)
                seen.append((inner.source, inner.data))
                return await fetch(request)

            return await graphql_cache.aexecute(feed_op, VARIABLES, fetch=nested)

    assert asyncio.run(main()).data == DATA
    assert seen == ["the caller's", ("network", {"article": {"title": "Two"}})]


def test_the_rest_flow_with_an_async_fetch(cache: normcache.Cache, clock: FakeClock) -> None:
    api = API(body=b'{"articles": [{"id": 7, "title": "Caching"}]}', cache_control="max-age=1800")
    cache.set_clock(clock)
    with serving(api) as base:
        send = urllib_get(base + "/articles")

        async def fetch(request: FetchRequest) -> Any:
            assert request.key == "GET /articles"
            return await asyncio.get_running_loop().run_in_executor(None, send, request)

        async def main() -> list[str]:
            sources: list[str] = []
            for now in (START, START + 1799, START + 1800):
                clock.now = now
                result = await cache.aexecute_document("GET /articles", fetch=fetch, max_age=3600)
                assert result.data == {"articles": [{"id": 7, "title": "Caching"}]}
                sources.append(result.source)
            return sources

        assert asyncio.run(main()) == ["network", "cache", "network"]
    assert api.served == 2
