"""Cache.execute against a real GraphQL server (http.server and graphql-core on
127.0.0.1, fetched with urllib), with a clock the test sets: every fetch policy, where
each result comes from and what is written, fetch failures and their fallbacks, the
error policies, replies that cannot be written, hostile fetch functions (raising,
answering None or garbage, interrupting, calling back into the cache), on_result's
order and its failures. The cases of the Swift suite ExecuteTests, through Python."""

from __future__ import annotations

import asyncio
import gc
import http.client
import json
import re
import threading
import urllib.error
import urllib.request
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest
from conftest import START, FakeClock
from local_servers import API, DATA, FEED, VARIABLES, post, serving, urllib_fetch

import normcache
from normcache import ExecutionResult, FetchReply, FetchRequest


class Run:
    """Runs the feed with a fetch to the server and collects what on_result got."""

    def __init__(self, cache: normcache.Cache, op: normcache.Operation, graphql_url: str) -> None:
        """Runs of `op` on `cache`, fetching from `url`."""
        self.cache, self.op, self.fetch = cache, op, urllib_fetch(graphql_url)
        self.requests: list[FetchRequest] = []

    def counted_fetch(self, request: FetchRequest) -> Any:
        """The fetch, remembering the request."""
        self.requests.append(request)
        return self.fetch(request)

    def __call__(self, **options: Any) -> tuple[ExecutionResult, list[ExecutionResult]]:
        """execute with `options`: its result, and every result on_result got."""
        delivered: list[ExecutionResult] = []
        options.setdefault("fetch", self.counted_fetch)
        result = self.cache.execute(self.op, VARIABLES, on_result=delivered.append, **options)
        assert delivered and result is delivered[-1]
        return result, delivered


@pytest.fixture
def run(graphql_cache: normcache.Cache, feed_op: normcache.Operation, graphql_url: str) -> Run:
    """Runs of the feed against the server."""
    return Run(graphql_cache, feed_op, graphql_url)


def summary(results: list[ExecutionResult]) -> list[str]:
    """Each result as "source status data"."""
    return [f"{r.source} {r.status} {json.dumps(r.data, separators=(',', ':'))}" for r in results]


NETWORK = f"network complete {json.dumps(DATA, separators=(',', ':'))}"
CACHED = f"cache complete {json.dumps(DATA, separators=(',', ':'))}"
STALE = f"cache stale {json.dumps(DATA, separators=(',', ':'))}"


# --- the policies ---------------------------------------------------------------------


def test_cache_first_fetches_on_a_miss_then_answers_from_the_cache_until_the_data_expires(
    run: Run, api: API, clock: FakeClock, feed_op: normcache.Operation
) -> None:
    result, delivered = run()
    assert summary(delivered) == [NETWORK]
    assert result == ExecutionResult("complete", DATA, [], [], START, START + 1800, "network")
    assert run.requests == [FetchRequest(feed_op.document, "Feed", VARIABLES, None)]
    sent = json.loads(api.requests[0][2])
    assert sent == {"query": feed_op.document, "operationName": "Feed", "variables": VARIABLES}
    clock.now = START + 1799
    assert summary(run()[1]) == [CACHED]
    assert api.served == 1
    clock.now = START + 1800
    assert summary(run()[1]) == [NETWORK]
    assert api.served == 2


def test_cache_only_never_fetches(
    run: Run, api: API, graphql_cache: normcache.Cache, feed_op: normcache.Operation
) -> None:
    missed = graphql_cache.execute(feed_op, VARIABLES, policy="cache_only")  # no fetch needed
    assert (missed.source, missed.status, missed.data) == ("cache", "miss", None)
    assert [(m.path, m.reason, m.field) for m in missed.missing] == [(["feed"], "absent", "feed(first:2)")]
    run()
    assert summary(run(policy="cache_only")[1]) == [CACHED]
    assert api.served == 1


def test_network_only_always_fetches_and_writes(run: Run, api: API, graphql_cache: normcache.Cache) -> None:
    run(policy="network_only")
    api.articles["1"] = ("Uno", 0)
    assert summary(run(policy="network_only")[1]) == ['network complete {"feed":[{"title":"Uno"},{"title":"Two"}]}']
    assert api.served == 2
    assert graphql_cache.get("Article:1") == {"__typename": "Article", "id": "1", "title": "Uno"}


def test_no_store_returns_the_network_data_and_writes_nothing(
    run: Run, api: API, graphql_cache: normcache.Cache
) -> None:
    assert summary(run(policy="no_store")[1]) == [NETWORK]
    assert graphql_cache.search() == []
    # A reply saying no-store under any policy: the same.
    api.cache_control = "private, no-store"
    assert summary(run()[1]) == [NETWORK]
    assert graphql_cache.search() == []
    assert api.served == 2


def test_network_first_falls_back_to_the_cache_with_the_fetch_error(run: Run, api: API, clock: FakeClock) -> None:
    api.status = 503
    with pytest.raises(normcache.FetchError, match=r"^HTTPError: HTTP Error 503: Service Unavailable$") as failure:
        run(policy="network_first")
    assert isinstance(failure.value.__cause__, urllib.error.HTTPError)
    assert failure.value.code == -11
    api.status = 200
    api.cache_control = "max-age=60"
    assert summary(run(policy="network_first")[1]) == [NETWORK]
    api.status = 503
    clock.now = START + 100  # stale by 40 s: used only within max_stale
    with pytest.raises(normcache.FetchError):
        run(policy="network_first")
    fallback, delivered = run(policy="network_first", max_stale=40)
    assert summary(delivered) == [STALE]
    assert fallback.fetch_error == "HTTPError: HTTP Error 503: Service Unavailable"
    assert isinstance(fallback.fetch_exception, urllib.error.HTTPError)
    assert [(s.path, s.reason, s.expired_at) for s in fallback.stale] == [
        (["feed"], "stale", START + 60),
        (["feed", 0, "title"], "stale", START + 60),
        (["feed", 1, "title"], "stale", START + 60),
    ]
    assert api.served == 4


def test_cache_and_network_gives_the_cached_data_first(run: Run, api: API) -> None:
    assert summary(run(policy="cache_and_network")[1]) == [NETWORK]
    api.articles["1"] = ("Uno", 0)
    result, delivered = run(policy="cache_and_network")
    assert summary(delivered) == [CACHED, 'network complete {"feed":[{"title":"Uno"},{"title":"Two"}]}']
    assert result is delivered[1]


def test_stale_while_revalidate_fetches_only_when_something_was_stale(run: Run, api: API, clock: FakeClock) -> None:
    api.cache_control = "max-age=60"
    assert summary(run(policy="stale_while_revalidate", max_stale=3600)[1]) == [NETWORK]
    clock.now = START + 59
    assert summary(run(policy="stale_while_revalidate", max_stale=3600)[1]) == [CACHED]
    assert api.served == 1
    clock.now = START + 61
    revalidated, delivered = run(policy="stale_while_revalidate", max_stale=3600)
    assert summary(delivered) == [STALE, NETWORK]
    assert [s.field for s in delivered[0].stale] == ["feed(first:2)", "title", "title"]
    assert revalidated.oldest_written_at == START + 61
    assert summary(run(policy="stale_while_revalidate", max_stale=3600)[1]) == [CACHED]
    # A failed revalidation keeps the stale data, with the error.
    clock.now = START + 200
    api.status = 503
    offline, delivered = run(policy="stale_while_revalidate", max_stale=3600)
    assert summary(delivered) == [STALE, STALE]
    assert delivered[0].fetch_error is None
    assert offline.fetch_error == "HTTPError: HTTP Error 503: Service Unavailable"
    assert api.served == 3


def test_a_mutation_always_goes_to_the_network(graphql_cache: normcache.Cache, api: API, graphql_url: str) -> None:
    with graphql_cache.prepare('mutation { like(id: "1") { likes } }') as like:
        result = graphql_cache.execute(like, fetch=urllib_fetch(graphql_url), policy="cache_only")
        assert (result.source, result.data) == ("network", {"like": {"likes": 1}})
        assert graphql_cache.get("Article:1") == {"__typename": "Article", "id": "1", "likes": 1}
        assert graphql_cache.get("MUTATION_ROOT") is None
        unstored = graphql_cache.execute(like, fetch=urllib_fetch(graphql_url), policy="no_store")
        assert unstored.data == {"like": {"likes": 2}}
        assert graphql_cache.get("Article:1") == {"__typename": "Article", "id": "1", "likes": 1}
    with graphql_cache.prepare("subscription { updates { title } }") as updates:
        message = "'the subscription' is a subscription: execute runs queries and mutations"
        with pytest.raises(normcache.InvalidArgumentError, match=f"^{message}$"):
            graphql_cache.execute(updates, fetch=urllib_fetch(graphql_url))
    assert api.served == 2


def test_graphql_errors_follow_the_error_policy(run: Run, api: API, graphql_cache: normcache.Cache) -> None:
    api.articles["1"] = (None, 0)
    message = (
        "the response carries GraphQL errors (1 error, the first: 'title is private'); "
        "nothing was written (error policy none)"
    )
    with pytest.raises(normcache.GraphQLError, match=rf"^{re.escape(message)}$") as failure:
        run()
    assert failure.value.code == -12
    assert failure.value.errors is not None
    assert [(e["message"], e["path"]) for e in failure.value.errors] == [("title is private", ["feed", 0, "title"])]
    assert graphql_cache.search() == []
    ignored, _ = run(error_policy="ignore")
    assert (ignored.data, ignored.errors) == ({"feed": [{"title": None}, {"title": "Two"}]}, None)
    everything, _ = run(policy="network_only", error_policy="all")
    assert everything.errors is not None
    assert [e["message"] for e in everything.errors] == ["title is private"]
    assert everything.data == {"feed": [{"title": None}, {"title": "Two"}]}


def test_an_unanswerable_reply_fails_and_writes_nothing(run: Run, api: API, graphql_cache: normcache.Cache) -> None:
    api.body = b"<html>502 Bad Gateway</html>"
    with pytest.raises(normcache.JSONError):
        run()
    api.body = b'{"feed": []}'
    message = "the response has no 'data' envelope: its member 'feed' is a field of the operation; pass {\"data\": "
    with pytest.raises(normcache.DataError, match=re.escape(message)):
        run()
    api.body = None
    api.cache_control = 'max-age="60'  # malformed
    with pytest.raises(normcache.InvalidArgumentError, match="Cache-Control"):
        run()
    assert graphql_cache.search() == []
    assert api.served == 3


def test_the_reply_lifetime_is_the_earliest_of_max_age_and_the_headers(
    graphql_cache: normcache.Cache, feed_op: normcache.Operation, graphql_url: str
) -> None:
    fetch = urllib_fetch(graphql_url)

    def reply(max_age: int | None) -> Any:
        return lambda request: FetchReply(*fetch(request), max_age=max_age)

    shorter = graphql_cache.execute(feed_op, VARIABLES, fetch=reply(600), policy="network_only")
    assert shorter.earliest_expiry == START + 600
    longer = graphql_cache.execute(feed_op, VARIABLES, fetch=reply(3600), policy="network_only")
    assert longer.earliest_expiry == START + 1800
    no_headers = graphql_cache.execute(
        feed_op, VARIABLES, fetch=lambda r: FetchReply(fetch(r)[0], max_age=5), policy="network_only"
    )
    assert no_headers.earliest_expiry == START + 5


# --- what a fetch may answer ------------------------------------------------------------


def test_a_fetch_may_answer_a_body_a_reply_or_a_response_object(
    graphql_cache: normcache.Cache, feed_op: normcache.Operation, graphql_url: str, api: API
) -> None:
    fetch = urllib_fetch(graphql_url)
    answers: list[Any] = [
        lambda r: fetch(r)[0],  # bytes: no headers, never expires
        lambda r: fetch(r)[0].decode("utf-8"),  # str
        lambda r: bytearray(fetch(r)[0]),
        lambda r: FetchReply(fetch(r)[0].decode("utf-8"), {"cache-control": "max-age=7"}),
        lambda r: (fetch(r)[0], None),
        lambda r: urllib.request.urlopen(post(graphql_url, r), timeout=30),  # read and closed by execute
        lambda r: ContentResponse(*fetch(r)),  # as httpx and requests give them
    ]
    expiries = []
    for answer in answers:
        result = graphql_cache.execute(feed_op, VARIABLES, fetch=answer, policy="network_only")
        assert (result.source, result.data) == ("network", DATA)
        expiries.append(result.earliest_expiry)
    assert expiries == [None, None, None, START + 7, None, START + 1800, START + 1800]
    assert api.served == len(answers)
    failed = ContentResponse(b"{}", {}, 502, "Bad Gateway")
    with pytest.raises(normcache.FetchError, match=r"^HTTP 502 Bad Gateway$"):
        graphql_cache.execute(feed_op, VARIABLES, fetch=lambda r: failed, policy="network_only")


@dataclass
class ContentResponse:
    """A response as httpx.Response and requests.Response are (neither is a dependency of
    the tests): its body in `content`, its headers, its status and reason."""

    content: bytes
    headers: Any
    status_code: int = 200
    reason_phrase: str = "OK"


def test_a_response_object_whose_status_is_not_2xx_is_a_failed_fetch(
    run: Run, api: API, feed_op: normcache.Operation, graphql_url: str
) -> None:
    address = urlsplit(graphql_url)

    def fetch(request: FetchRequest) -> http.client.HTTPResponse:  # http.client does not raise on 503
        connection = http.client.HTTPConnection(address.netloc, timeout=30)
        connection.request("POST", address.path, json.dumps(request.payload()), {"Content-Type": "application/json"})
        return connection.getresponse()

    assert run(fetch=fetch)[0].source == "network"
    api.status = 503
    with pytest.raises(normcache.FetchError, match=r"^HTTP 503 Service Unavailable$") as failure:
        run(fetch=fetch, policy="network_only")
    assert failure.value.__cause__ is None
    fallback, _ = run(fetch=fetch, policy="network_first")
    assert (fallback.source, fallback.fetch_error, fallback.fetch_exception) == (
        "cache",
        "HTTP 503 Service Unavailable",
        None,
    )


def test_a_fetch_that_raises_is_a_failed_fetch(graphql_cache: normcache.Cache, feed_op: normcache.Operation) -> None:
    error = ConnectionRefusedError(111, "Connection refused")

    def fetch(request: FetchRequest) -> bytes:
        raise error

    with pytest.raises(normcache.FetchError, match=r"^ConnectionRefusedError: \[Errno 111\] Connection refused$") as f:
        graphql_cache.execute(feed_op, VARIABLES, fetch=fetch)
    assert f.value.__cause__ is error
    assert graphql_cache.search() == []


def test_a_server_that_is_gone_is_a_failed_fetch(graphql_cache: normcache.Cache, feed_op: normcache.Operation) -> None:
    with serving(API()) as base:
        fetch = urllib_fetch(base + "/graphql")
    with pytest.raises(normcache.FetchError, match=r"^URLError: .*Connection refused") as failure:
        graphql_cache.execute(feed_op, VARIABLES, fetch=fetch)
    assert isinstance(failure.value.__cause__, urllib.error.URLError)


def unused(request: FetchRequest) -> bytes:
    """A fetch for calls that fail before they fetch."""
    raise AssertionError("fetched")


async def _never_awaited(request: FetchRequest) -> bytes:
    return b"{}"


#: A body of the wrong type (a parsed response), as a fetch might give it.
DICT_BODY: Any = {"data": {}}
#: Answers of the wrong kind, and how the TypeError (or InvalidArgumentError) says why.
WRONG_ANSWERS: dict[str, tuple[Any, str]] = {
    "none": (lambda r: None, r"TypeError: the fetch returned NoneType: it must return a FetchReply, \(body, headers\)"),
    "int": (lambda r: 200, "TypeError: the fetch returned int: "),
    "three-items": (lambda r: (b"{}", None, 60), r"TypeError: the fetch returned a tuple of 3 items, not \(body, "),
    "none-body": (lambda r: (None, None), r"TypeError: the reply's body must be bytes or str \(JSON text\), not NoneT"),
    "dict-body": (lambda r: FetchReply(DICT_BODY), r"TypeError: the reply's body must be bytes or str \(JSON t"),
    "int-header": (lambda r: (b"{}", {"Age": 60}), "TypeError: the value of the header 'Age' must be a str, not int"),
    "list-headers": (lambda r: (b"{}", ["max-age=60"]), "TypeError: headers must be a mapping of header names to val"),
    "max-age": (lambda r: FetchReply(b"{}", max_age=-5), "InvalidArgumentError: max_age is -5: seconds from 0 to 21"),
    "async": (_never_awaited, "TypeError: the fetch returned a coroutine: an async fetch function goes with aexecute"),
}


@pytest.mark.parametrize("answer, why", list(WRONG_ANSWERS.values()), ids=list(WRONG_ANSWERS))
def test_an_answer_of_the_wrong_kind_is_a_callback_error_without_fallback(
    graphql_cache: normcache.Cache, feed_op: normcache.Operation, answer: Any, why: str
) -> None:
    graphql_cache.write(feed_op, {"data": {"feed": [{"__typename": "Article", "id": "1", "title": "One"}]}}, VARIABLES)
    with no_warnings():
        with pytest.raises(normcache.CallbackError, match=f"^the fetch's answer cannot be used: {why}") as failure:
            graphql_cache.execute(feed_op, VARIABLES, fetch=answer, policy="network_first")
    assert isinstance(failure.value.__cause__, (TypeError, normcache.InvalidArgumentError))
    assert failure.value.code == -7


@contextmanager
def no_warnings() -> Iterator[None]:
    """Fails the test when the block warns (a coroutine never awaited, ...)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        yield
        gc.collect()
    assert [str(w.message) for w in seen] == []


@pytest.mark.parametrize("interruption", [KeyboardInterrupt, SystemExit])
def test_an_interruption_in_the_fetch_ends_the_call_and_propagates(
    graphql_cache: normcache.Cache, feed_op: normcache.Operation, graphql_url: str, interruption: type[BaseException]
) -> None:
    fetch = urllib_fetch(graphql_url)

    def interrupted(request: FetchRequest) -> Any:
        fetch(request)  # the server answered; the user pressed ^C before it was handed on
        raise interruption()

    delivered: list[ExecutionResult] = []
    with pytest.raises(interruption):
        graphql_cache.execute(feed_op, VARIABLES, fetch=interrupted, on_result=delivered.append)
    assert graphql_cache.search() == [] and delivered == []
    # With cached data and a policy that falls back: no fallback, the interruption goes on.
    graphql_cache.execute(feed_op, VARIABLES, fetch=fetch)
    with pytest.raises(interruption):
        graphql_cache.execute(feed_op, VARIABLES, fetch=interrupted, policy="network_first")
    with pytest.raises(interruption):
        graphql_cache.execute(
            feed_op, VARIABLES, fetch=interrupted, policy="cache_and_network", on_result=delivered.append
        )
    assert summary(delivered) == [CACHED]


def test_the_fetch_may_use_the_cache_even_execute(
    graphql_cache: normcache.Cache, feed_op: normcache.Operation, graphql_url: str, api: API
) -> None:
    fetch = urllib_fetch(graphql_url)
    seen: list[Any] = []
    with graphql_cache.prepare("query One($id: ID!) { article(id: $id) { title likes } }") as one:

        def nested(request: FetchRequest) -> Any:
            with pytest.raises(normcache.CacheMiss):
                graphql_cache.read(feed_op, VARIABLES)  # not written yet: this fetch is its answer
            seen.append(graphql_cache.get("Article:9"))
            inner = graphql_cache.execute(one, {"id": "3"}, fetch=fetch)  # a whole execute, fetch and all
            seen.append((inner.source, inner.data))
            return fetch(request)

        graphql_cache.put({"Article:9": {"title": "Nine"}})
        result = graphql_cache.execute(feed_op, VARIABLES, fetch=nested)
        assert (result.source, result.data) == ("network", DATA)
        assert seen == [{"title": "Nine"}, ("network", {"article": {"title": "Three", "likes": 0}})]
        assert graphql_cache.execute(one, {"id": "3"}, fetch=nested).source == "cache"
        assert api.served == 2


def test_a_failing_nested_execute_is_the_outer_fetchs_failure(
    graphql_cache: normcache.Cache, feed_op: normcache.Operation
) -> None:
    def down(request: FetchRequest) -> bytes:
        raise OSError("network down")

    def nested(request: FetchRequest) -> bytes:
        graphql_cache.execute(feed_op, {"n": 1}, fetch=down)  # raises FetchError
        return b"never"

    with pytest.raises(normcache.FetchError, match=r"^FetchError: OSError: network down$") as failure:
        graphql_cache.execute(feed_op, VARIABLES, fetch=nested)
    inner = failure.value.__cause__
    assert isinstance(inner, normcache.FetchError) and isinstance(inner.__cause__, OSError)


# --- on_result -------------------------------------------------------------------------


def test_an_on_result_that_raises_is_raised_after_the_call(run: Run, api: API, graphql_cache: normcache.Cache) -> None:
    run()
    api.articles["1"] = ("Uno", 0)
    calls: list[str] = []

    def on_result(result: ExecutionResult) -> None:
        calls.append(result.source)
        raise ValueError("the view is gone")

    with pytest.raises(ValueError, match=r"^the view is gone$"):
        graphql_cache.execute(run.op, VARIABLES, fetch=run.fetch, policy="cache_and_network", on_result=on_result)
    assert calls == ["cache"]  # no more results after it raised, but the call went on
    assert api.served == 2
    assert graphql_cache.get("Article:1") == {"__typename": "Article", "id": "1", "title": "Uno"}


def test_an_interruption_in_on_result_skips_the_fetch(run: Run, api: API, graphql_cache: normcache.Cache) -> None:
    run()

    def on_result(result: ExecutionResult) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        graphql_cache.execute(run.op, VARIABLES, fetch=run.fetch, policy="cache_and_network", on_result=on_result)
    assert api.served == 1


def test_an_error_of_the_call_wins_over_on_results(run: Run, api: API, graphql_cache: normcache.Cache) -> None:
    run()
    api.body = b"not json"

    def on_result(result: ExecutionResult) -> None:
        raise ValueError("the view is gone")

    with pytest.raises(normcache.JSONError):
        graphql_cache.execute(run.op, VARIABLES, fetch=run.fetch, policy="cache_and_network", on_result=on_result)


# --- arguments, threads, closed handles ---------------------------------------------------


def test_bad_arguments(graphql_cache: normcache.Cache, feed_op: normcache.Operation) -> None:
    with pytest.raises(normcache.InvalidArgumentError, match=r"^policy 'cache_frist' is not one of 'cache_first', "):
        graphql_cache.execute(feed_op, fetch=unused, policy="cache_frist")  # type: ignore[arg-type]
    with pytest.raises(normcache.InvalidArgumentError, match=r"^error_policy 'some' is not one of 'none', 'ignore'"):
        graphql_cache.execute(feed_op, fetch=unused, error_policy="some")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^policy must be a str, not int$"):
        graphql_cache.execute(feed_op, fetch=unused, policy=0)  # type: ignore[arg-type]
    with pytest.raises(normcache.InvalidArgumentError, match=r"^max_stale is -1: seconds from 0"):
        graphql_cache.execute(feed_op, fetch=unused, max_stale=-1)
    with pytest.raises(TypeError, match=r"^fetch must be a function of a FetchRequest, not str$"):
        graphql_cache.execute(feed_op, fetch="http://x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^on_result must be a function of an ExecutionResult, not list$"):
        graphql_cache.execute(feed_op, fetch=unused, on_result=[])  # type: ignore[arg-type]
    with pytest.raises(normcache.InvalidArgumentError, match=r"^fetch is NULL, but the call goes to the network$"):
        graphql_cache.execute(feed_op, VARIABLES)
    with pytest.raises(normcache.InvalidArgumentError):
        graphql_cache.execute(feed_op, {"unknown": 1}, fetch=unused)


def test_a_closed_cache_or_operation(graphql_cache: normcache.Cache, feed_op: normcache.Operation) -> None:
    closed = graphql_cache.prepare(FEED)
    closed.close()
    with pytest.raises(normcache.ClosedError, match=r"^the operation is closed$"):
        graphql_cache.execute(closed, fetch=unused)
    graphql_cache.close()
    with pytest.raises(normcache.ClosedError, match=r"^the cache is closed$"):
        graphql_cache.execute(feed_op, fetch=unused)
    with pytest.raises(normcache.ClosedError, match=r"^the cache is closed$"):
        asyncio.run(graphql_cache.aexecute(feed_op))


def test_many_threads_execute_at_once(
    graphql_cache: normcache.Cache, feed_op: normcache.Operation, graphql_url: str
) -> None:
    fetch = urllib_fetch(graphql_url)
    results: dict[int, ExecutionResult] = {}
    failures: list[BaseException] = []

    def body(n: int) -> None:
        try:
            results[n] = graphql_cache.execute(feed_op, {"n": n}, fetch=fetch, on_result=lambda r: None)
        except BaseException as error:  # noqa: BLE001 - reported by the test
            failures.append(error)

    threads = [threading.Thread(target=body, args=(n,)) for n in range(1, 4) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    titles = ["One", "Two", "Three"]
    expected = {n: {"feed": [{"title": title} for title in titles[:n]]} for n in (1, 2, 3)}
    assert {n: result.data for n, result in results.items()} == expected
    assert normcache.fetching._executions == {}


def test_the_request_of_an_anonymous_operation(graphql_cache: normcache.Cache, graphql_url: str) -> None:
    requests: list[FetchRequest] = []
    fetch = urllib_fetch(graphql_url)
    with graphql_cache.prepare("{ feed(first: 1) { title } }") as anonymous:

        def remembered(request: FetchRequest) -> Any:
            requests.append(request)
            return fetch(request)

        result = graphql_cache.execute(anonymous, fetch=remembered)
    assert result.data == {"feed": [{"title": "One"}]}
    assert (requests[0].operation_name, requests[0].variables, requests[0].key) == (None, {}, None)
    assert requests[0].payload() == {"query": requests[0].document, "variables": {}}
