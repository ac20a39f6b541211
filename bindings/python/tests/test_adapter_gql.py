"""normcache.adapters.gql: gql's Client over the caching transports, in front of gql's
own HTTPX transports, against a real GraphQL server on 127.0.0.1 (graphql-core over
http.server) that counts its requests; time moves by the cache's clock. Cache hits send
nothing; the policies behave as Cache.execute's; mutations pass through with their
results written; errors come out as gql raises them, with nothing written."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
from conftest import START, FakeClock, RunPython
from gql import Client, GraphQLRequest
from gql.client import SyncClientSession
from gql.transport.exceptions import TransportQueryError, TransportServerError
from gql.transport.httpx import HTTPXAsyncTransport, HTTPXTransport
from local_servers import API, DATA, FEED, VARIABLES

import normcache
from normcache.adapters.gql import AsyncCachingTransport, CachingTransport

FEED_REQUEST = GraphQLRequest(FEED, variable_values=VARIABLES)


@pytest.fixture
def transport(graphql_cache: normcache.Cache, graphql_url: str) -> CachingTransport:
    """A caching transport on the test's cache, in front of gql's HTTPX transport."""
    return CachingTransport(HTTPXTransport(graphql_url), graphql_cache)


@pytest.fixture
def client(transport: CachingTransport) -> Iterator[SyncClientSession]:
    """A session of gql's Client over `transport`, for the test."""
    with Client(transport=transport) as session:
        yield session


def queries(api: API) -> list[str]:
    """The query text of each request the server got."""
    return [json.loads(body)["query"] for _, _, body in api.requests]


def test_cache_first_sends_once_then_answers_from_the_cache(
    client: SyncClientSession, graphql_cache: normcache.Cache, api: API
) -> None:
    assert client.execute(FEED_REQUEST) == DATA
    assert client.execute(FEED_REQUEST) == DATA
    assert client.execute(FEED_REQUEST) == DATA
    assert api.served == 1
    # The network document went out (key fields and __typename added); the answer is the selection.
    assert queries(api) == ["query Feed($n: Int) {\n  feed(first: $n) {\n    title\n    id\n    __typename\n  }\n}"]
    assert graphql_cache.get("Article:1") == {"__typename": "Article", "id": "1", "title": "One"}


def test_the_servers_max_age_decides_when_to_fetch_again(client: SyncClientSession, clock: FakeClock, api: API) -> None:
    api.cache_control = "max-age=60"
    client.execute(FEED_REQUEST)
    clock.now = START + 59
    client.execute(FEED_REQUEST)
    assert api.served == 1
    clock.now = START + 60
    client.execute(FEED_REQUEST)
    assert api.served == 2


def test_the_policy_of_the_transport_and_of_each_request(
    client: SyncClientSession, graphql_cache: normcache.Cache, graphql_url: str, api: API
) -> None:
    client.execute(FEED_REQUEST)
    api.articles["1"] = ("One, revised", 0)
    # cache_and_network: the cached result, then the network's, which is returned and written.
    assert client.execute(FEED_REQUEST, policy="cache_and_network") == {
        "feed": [{"title": "One, revised"}, {"title": "Two"}]
    }
    assert api.served == 2
    assert client.execute(FEED_REQUEST)["feed"][0] == {"title": "One, revised"}
    assert api.served == 2
    assert client.execute(FEED_REQUEST, policy="network_only") == {
        "feed": [{"title": "One, revised"}, {"title": "Two"}]
    }
    assert api.served == 3
    # A transport whose policy is network_only, on the same cache.
    with Client(transport=CachingTransport(HTTPXTransport(graphql_url), graphql_cache, policy="network_only")) as other:
        other.execute(FEED_REQUEST)
        other.execute(FEED_REQUEST)
    assert api.served == 5


def test_cache_only_on_a_miss_raises_what_is_missing(client: SyncClientSession, api: API) -> None:
    with pytest.raises(TransportQueryError) as raised:
        client.execute(FEED_REQUEST, policy="cache_only")
    assert raised.value.errors == [
        {"message": "normcache: the cache cannot answer: feed (absent)", "extensions": {"normcache": "miss"}}
    ]
    assert api.served == 0


def test_a_mutation_passes_through_and_its_result_is_written(
    client: SyncClientSession, graphql_cache: normcache.Cache, api: API
) -> None:
    like = GraphQLRequest("mutation Like($id: ID!) { like(id: $id) { likes } }", variable_values={"id": "1"})
    assert client.execute(like) == {"like": {"likes": 1}}
    assert client.execute(like) == {"like": {"likes": 2}}
    assert api.served == 2
    assert graphql_cache.get("Article:1") == {"__typename": "Article", "id": "1", "likes": 2}


def test_a_subscription_passes_through_unchanged(transport: CachingTransport, api: API) -> None:
    subscription = GraphQLRequest("subscription { updates { title } }")
    transport.connect()
    try:
        result = transport.execute(subscription)
    finally:
        transport.close()
    assert queries(api) == ["subscription {\n  updates {\n    title\n  }\n}"]
    assert (result.data, result.errors) == ({"updates": None}, None)  # as the server answered it


def test_graphql_errors_raise_as_gql_raises_them_and_write_nothing(
    client: SyncClientSession, graphql_cache: normcache.Cache, api: API
) -> None:
    api.articles["2"] = (None, 0)  # "title is private"
    with pytest.raises(TransportQueryError) as raised:
        client.execute(FEED_REQUEST)
    assert raised.value.errors == [
        {"message": "title is private", "locations": [{"line": 3, "column": 5}], "path": ["feed", 1, "title"]}
    ]
    assert graphql_cache.search("") == []


def test_the_error_policy_all_writes_the_data_beside_the_errors(
    graphql_cache: normcache.Cache, graphql_url: str, api: API
) -> None:
    api.articles["2"] = (None, 0)
    transport = CachingTransport(HTTPXTransport(graphql_url), graphql_cache, error_policy="all")
    transport.connect()
    try:
        result = transport.execute(FEED_REQUEST)
    finally:
        transport.close()
    assert result.data == {"feed": [{"title": "One"}, {"title": None}]}
    errors: object = result.errors  # gql keeps the server's dicts
    assert errors == [
        {"message": "title is private", "locations": [{"line": 3, "column": 5}], "path": ["feed", 1, "title"]}
    ]
    assert graphql_cache.get("Article:2") == {"__typename": "Article", "id": "2", "title": None}


def test_a_failed_transport_raises_its_own_error_unless_the_cache_stands_in(
    client: SyncClientSession, graphql_cache: normcache.Cache, api: API
) -> None:
    api.status = 500
    with pytest.raises(
        TransportServerError,
        match=r"^Server error '500 Internal Server Error' for url 'http://127\.0\.0\.1:\d+/graphql'",
    ):
        client.execute(FEED_REQUEST)
    assert graphql_cache.search("") == []
    api.status = 200
    client.execute(FEED_REQUEST)
    api.status = 503
    assert client.execute(FEED_REQUEST, policy="network_first") == DATA
    assert api.served == 3


def test_a_reply_that_cannot_be_written_raises_and_writes_nothing(
    client: SyncClientSession, graphql_cache: normcache.Cache, api: API
) -> None:
    api.cache_control = "max-age=x"
    with pytest.raises(normcache.InvalidArgumentError, match=r"^Cache-Control: malformed max-age at byte 8"):
        client.execute(FEED_REQUEST)
    api.cache_control = None
    api.body = b'{"data": {"feed": [{"name": "One"}]}}'
    with pytest.raises(normcache.DataError, match=r"title"):
        client.execute(FEED_REQUEST)
    assert graphql_cache.search("") == []


def test_operations_are_prepared_once_and_closed_with_the_transport(
    graphql_cache: normcache.Cache, graphql_url: str
) -> None:
    transport = CachingTransport(HTTPXTransport(graphql_url), graphql_cache)
    with Client(transport=transport) as session:
        session.execute(FEED_REQUEST)
        session.execute(GraphQLRequest(FEED, variable_values={"n": 1}))
        assert len(transport._operations._prepared) == 1
    assert transport._operations._prepared == {}
    with pytest.raises(TypeError, match=r"^cache must be a normcache\.Cache, not str$"):
        CachingTransport(HTTPXTransport(graphql_url), "cache.db")  # type: ignore[arg-type]


def test_the_async_transport(graphql_cache: normcache.Cache, graphql_url: str, api: API) -> None:
    async def run() -> list[object]:
        transport = AsyncCachingTransport(HTTPXAsyncTransport(graphql_url), graphql_cache)
        async with Client(transport=transport) as session:
            seen = [await session.execute(FEED_REQUEST), await session.execute(FEED_REQUEST)]
            seen.append(await session.execute(FEED_REQUEST, policy="network_only"))
            api.articles["2"] = (None, 0)
            with pytest.raises(TransportQueryError):
                await session.execute(FEED_REQUEST, policy="network_only")
            with pytest.raises(NotImplementedError):
                async for _ in transport.subscribe(GraphQLRequest("subscription { updates { title } }")):
                    pass
            return seen

    assert asyncio.run(run()) == [DATA, DATA, DATA]
    assert api.served == 3


def test_without_gql_the_import_says_which_extra(run_python: RunPython) -> None:
    child = run_python("import sys; sys.modules['gql'] = None; import normcache.adapters.gql")
    assert child.returncode == 1
    assert child.stderr.splitlines()[-1] == "ImportError: normcache.adapters.gql needs gql: pip install normcache[gql]"
