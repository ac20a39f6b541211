"""normcache.adapters.httpx: httpx transports (sync and async) in front of a real JSON API
on 127.0.0.1 that sends Cache-Control, Age and an ETag and answers If-None-Match with 304,
counting its requests; time moves by the cache's clock. Answers from the cache send
nothing, max-age (with Age) is honoured, a stale document is revalidated, and bad answers
(not JSON, a 500, a 304 the cache did not ask for, hostile headers) store nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest
from conftest import START, FakeClock, RunPython
from local_servers import API, serving

import normcache
from normcache.adapters.httpx import AsyncCachingTransport, CachingTransport, NotModifiedError

PAGE = b'{"articles": [{"id": 7, "title": "Caching", "score": 1.50}], "next": null}'


@pytest.fixture
def api() -> API:
    """The JSON API's answer: the page, fresh for 60 s, 10 s old when sent, with an ETag."""
    return API(body=PAGE, cache_control="max-age=60", age="10", etag='"p1"')


@pytest.fixture
def url(api: API) -> Iterator[str]:
    """The page's URL on a real server on 127.0.0.1."""
    with serving(api) as base:
        yield base + "/articles?page=1"


@pytest.fixture
def docs(cache: normcache.Cache, clock: FakeClock) -> normcache.Cache:
    """The test's cache on the fake clock."""
    cache.set_clock(clock)
    return cache


@pytest.fixture
def client(docs: normcache.Cache) -> Iterator[httpx.Client]:
    """An httpx client whose transport caches in `docs`."""
    with httpx.Client(transport=CachingTransport(docs)) as opened:
        yield opened


def outcome(response: httpx.Response) -> object:
    """What the transport did."""
    return response.extensions["normcache"]


def test_a_fresh_answer_is_served_from_the_cache_until_max_age(
    client: httpx.Client, docs: normcache.Cache, clock: FakeClock, api: API, url: str
) -> None:
    first = client.get(url)
    assert (first.status_code, first.content, outcome(first)) == (200, PAGE, "stored")
    document = docs.get_document(f"GET {url}")
    # max-age=60 less Age: 10 s.
    assert (document.data["articles"][0]["score"], document.earliest_expiry, document.etag) == (1.5, START + 50, '"p1"')
    clock.now = START + 49
    cached = client.get(url)
    assert (cached.status_code, cached.content, outcome(cached)) == (200, PAGE, "hit")  # 1.50 as sent
    assert (cached.headers["content-type"], cached.headers["etag"], cached.json()) == (
        "application/json",
        '"p1"',
        first.json(),
    )
    assert api.served == 1


def test_a_stale_document_is_revalidated_with_its_etag(
    client: httpx.Client, docs: normcache.Cache, clock: FakeClock, api: API, url: str
) -> None:
    client.get(url)
    clock.now = START + 50
    revalidated = client.get(url)
    assert (revalidated.status_code, revalidated.content, outcome(revalidated)) == (200, PAGE, "revalidated")
    assert api.if_none_match == [None, '"p1"']
    # The 304's headers gave it a new lifetime: max-age=60 less Age: 10, from now.
    document = docs.get_document(f"GET {url}")
    assert (document.status, document.oldest_written_at, document.earliest_expiry) == (
        "complete",
        START + 50,
        START + 100,
    )
    assert outcome(client.get(url)) == "hit"
    assert api.served == 2


def test_a_changed_document_replaces_the_stored_one(
    client: httpx.Client, docs: normcache.Cache, clock: FakeClock, api: API, url: str
) -> None:
    client.get(url)
    api.body, api.etag = b'{"articles": []}', '"p2"'
    clock.now = START + 50
    changed = client.get(url)
    assert (changed.content, outcome(changed)) == (b'{"articles": []}', "stored")
    assert api.if_none_match == [None, '"p1"']
    assert (docs.get_document(f"GET {url}").data, docs.get_document(f"GET {url}").etag) == ({"articles": []}, '"p2"')


def test_an_answer_without_a_lifetime_is_stale_at_once(
    client: httpx.Client, docs: normcache.Cache, api: API, url: str
) -> None:
    api.cache_control, api.age, api.etag = None, None, None
    assert outcome(client.get(url)) == "stored"
    assert outcome(client.get(url)) == "stored"
    assert api.if_none_match == [None, None]
    assert docs.get_document(f"GET {url}").earliest_expiry == START
    # A transport's own lifetime for such answers.
    with httpx.Client(transport=CachingTransport(docs, max_age=300)) as lasting:
        assert outcome(lasting.get(url)) == "stored"
        assert outcome(lasting.get(url)) == "hit"
    assert api.served == 3


def test_no_store_and_other_answers_pass_without_being_stored(
    client: httpx.Client, docs: normcache.Cache, api: API, url: str
) -> None:
    api.cache_control = "no-store"
    assert outcome(client.get(url)) == "not_stored"
    api.cache_control = "max-age=60"
    posted = client.post(url, content=b"{}")
    assert (posted.content, outcome(posted)) == (PAGE, "passed")
    own = client.get(url, headers={"If-None-Match": '"p1"'})
    assert (own.status_code, outcome(own)) == (304, "passed")
    api.status = 500
    failed = client.get(url)
    assert (failed.status_code, failed.text, outcome(failed)) == (500, "unavailable", "passed")
    assert docs.search("") == []
    assert api.served == 4


def test_a_server_error_passes_while_the_stored_document_stays(
    client: httpx.Client, docs: normcache.Cache, clock: FakeClock, api: API, url: str
) -> None:
    client.get(url)
    clock.now = START + 50
    api.status = 503
    assert client.get(url).status_code == 503
    assert docs.get_document_json(f"GET {url}", ignore_freshness=True) == PAGE.decode()


def test_a_body_that_is_not_json_raises_and_stores_nothing(
    client: httpx.Client, docs: normcache.Cache, api: API, url: str
) -> None:
    api.body = b"<html>oops</html>"
    with pytest.raises(normcache.JSONError, match=r"^JSON error at byte 0: expected a JSON value$"):
        client.get(url)
    assert docs.search("") == []


def test_a_304_the_cache_did_not_ask_for_raises(
    client: httpx.Client, docs: normcache.Cache, api: API, url: str
) -> None:
    api.status = 304
    with pytest.raises(NotModifiedError) as raised:
        client.get(url)
    assert str(raised.value) == (
        f"the server answered 304 Not Modified to GET {url}, which the cache did not make conditional: "
        "it holds no document with an ETag to answer with"
    )
    assert isinstance(raised.value, httpx.HTTPError)
    assert docs.search("") == []


def test_a_304_for_a_document_removed_meanwhile_raises(
    docs: normcache.Cache, clock: FakeClock, api: API, url: str
) -> None:
    class RemovingTransport(httpx.HTTPTransport):
        """Removes the document while the conditional request is out."""

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            if "if-none-match" in request.headers:
                docs.remove(f"GET {url}")
            return super().handle_request(request)

    with httpx.Client(transport=CachingTransport(docs, RemovingTransport())) as client:
        client.get(url)
        clock.now = START + 50
        with pytest.raises(
            NotModifiedError, match=r"but the document 'GET http://127\.0\.0\.1:\d+/articles\?page=1' was"
        ):
            client.get(url)
    assert docs.search("") == []


@pytest.mark.parametrize(
    "etag, cache_control, message",
    [
        ("v1", "max-age=60", 'malformed ETag \'v1\': expected \'"\' at byte 0 (an entity-tag is "v1" or W/"v1")'),
        ('"a" "b"', "max-age=60", 'malformed ETag \'"a" "b"\': unexpected bytes after the closing \'"\', at byte 3'),
        (
            '"p1"',
            "max-age=abc",
            "Cache-Control: malformed max-age at byte 8 ('max-age=abc'): it needs a whole number of seconds",
        ),
    ],
    ids=["unquoted-etag", "two-etags", "bad-max-age"],
)
def test_hostile_headers_raise_and_store_nothing(
    client: httpx.Client, docs: normcache.Cache, api: API, url: str, etag: str, cache_control: str, message: str
) -> None:
    api.etag, api.cache_control = etag, cache_control
    with pytest.raises(normcache.InvalidArgumentError) as raised:
        client.get(url)
    assert str(raised.value) == message
    assert docs.search("") == []


def test_the_async_transport(docs: normcache.Cache, clock: FakeClock, api: API, url: str) -> None:
    async def run() -> list[object]:
        async with httpx.AsyncClient(transport=AsyncCachingTransport(docs)) as client:
            seen = [outcome(await client.get(url))]
            seen.append(outcome(await client.get(url)))
            clock.now = START + 50
            revalidated = await client.get(url)
            assert revalidated.content == PAGE
            seen.append(outcome(revalidated))
            api.status = 304
            clock.now = START + 100
            docs.remove(f"GET {url}")
            with pytest.raises(NotModifiedError):
                await client.get(url)
            return seen

    assert asyncio.run(run()) == ["stored", "hit", "revalidated"]
    assert api.if_none_match == [None, '"p1"', None]


def test_the_transport_needs_a_cache() -> None:
    with pytest.raises(TypeError, match=r"^cache must be a normcache\.Cache, not str$"):
        CachingTransport("cache.db")  # type: ignore[arg-type]


def test_without_httpx_the_import_says_which_extra(run_python: RunPython) -> None:
    child = run_python("import sys; sys.modules['httpx'] = None; import normcache.adapters.httpx")
    assert child.returncode == 1
    assert child.stderr.splitlines()[-1] == (
        "ImportError: normcache.adapters.httpx needs httpx: pip install normcache[httpx]"
    )
