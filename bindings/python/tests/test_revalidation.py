"""Revalidation of plain JSON documents: the ETag a document is stored with comes back
from get_document and execute_document, and refresh_document renews its freshness after
a 304 without rewriting it, with a clock the test sets and a real REST server on
127.0.0.1 answering If-None-Match. The cases of the Swift suite DocumentRevalidationTests."""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any

import pytest
from conftest import START, FakeClock
from local_servers import API

import normcache

PAGE = '{"articles": [7], "score": 1.50}'
PAGE_VALUE = {"articles": [7], "score": 1.5}
QUOTE = '(an entity-tag is "v1" or W/"v1")'


@pytest.fixture
def docs(cache: normcache.Cache, clock: FakeClock) -> normcache.Cache:
    """The test's cache on the fake clock."""
    cache.set_clock(clock)
    return cache


def test_the_etag_is_kept_and_read_back(docs: normcache.Cache) -> None:
    assert docs.put_document("GET /a", PAGE, headers={"Cache-Control": "max-age=60", "etag": 'W/"v1"'})
    result = docs.get_document("GET /a")
    assert (result.status, result.data, result.etag, result.earliest_expiry) == (
        "complete",
        PAGE_VALUE,
        'W/"v1"',
        START + 60,
    )
    assert docs.get("GET /a") == {"$document": PAGE, "$etag": 'W/"v1"'}
    # Not compared: a validator, not data.
    assert result == normcache.ReadResult("complete", PAGE_VALUE, [], [], START, START + 60)
    docs.put_document("GET /a", PAGE)
    assert docs.get_document("GET /a").etag is None
    assert docs.get_document("GET /absent").etag is None


@pytest.mark.parametrize(
    "etag, detail",
    [
        ("v1", f"expected '\"' at byte 0 {QUOTE}"),
        ('"v1', "no closing '\"'"),
        ('"a", "b"', "unexpected bytes after the closing '\"', at byte 3"),
        ('"v\x001"', "byte 2 (0x0) may not be in an entity-tag"),
        ('"v\r\nSet-Cookie: a=b"', "byte 2 (0xd) may not be in an entity-tag"),
        ('"a b"', "byte 2 (0x20) may not be in an entity-tag"),
    ],
    ids=["unquoted", "unclosed", "two", "nul", "crlf", "space"],
)
def test_a_malformed_etag_writes_nothing(docs: normcache.Cache, etag: str, detail: str) -> None:
    shown = "".join(f"\\x{ord(c):02x}" if ord(c) < 0x20 else c for c in etag)
    with pytest.raises(normcache.InvalidArgumentError) as raised:
        docs.put_document("GET /a", PAGE, headers={"ETag": etag})
    assert str(raised.value) == f"malformed ETag '{shown}': {detail}"
    assert docs.search("") == []


def test_a_refresh_renews_freshness_without_rewriting(docs: normcache.Cache, clock: FakeClock) -> None:
    assert docs.refresh_document("GET /a", max_age=60) == "absent"
    assert docs.search("") == []
    docs.put_document("GET /a", PAGE, headers={"Cache-Control": "max-age=60", "ETag": '"v1"'})
    clock.now = START + 100
    assert docs.get_document("GET /a").status == "miss"
    assert docs.refresh_document("GET /a", headers={"Cache-Control": "max-age=60", "Age": "10"}) == "refreshed"
    result = docs.get_document("GET /a")
    assert (result.status, result.oldest_written_at, result.earliest_expiry, result.etag) == (
        "complete",
        START + 100,
        START + 150,
        '"v1"',
    )
    assert docs.get_document_json("GET /a") == PAGE  # as written: 1.50 keeps its digits
    assert docs.refresh_document("GET /a", headers={"ETag": '"v2"'}) == "refreshed"
    assert docs.get_document("GET /a").etag == '"v2"'
    assert docs.refresh_document("GET /a", headers={"Cache-Control": "no-store"}) == "not_stored"
    with pytest.raises(normcache.InvalidArgumentError, match=r"^malformed ETag 'v3'"):
        docs.refresh_document("GET /a", headers={"ETag": "v3"})
    docs.put({"Article:7": {"title": "x"}})
    with pytest.raises(normcache.InvalidArgumentError, match=r"^'Article:7' is a record of fields, not a document$"):
        docs.refresh_document("Article:7")
    assert docs.get_document("GET /a").etag == '"v2"'


@pytest.fixture
def rest() -> API:
    """A REST server's articles, fresh for 60 seconds, with an ETag."""
    return API(body=PAGE.encode(), cache_control="max-age=60", etag='"p1"')


def test_a_revalidation_against_a_real_server(
    docs: normcache.Cache, clock: FakeClock, rest: API, articles_url: str
) -> None:
    def fetch(request: normcache.FetchRequest) -> Any:
        return urllib.request.urlopen(articles_url, timeout=30)

    first = docs.execute_document("GET /articles", fetch=fetch)
    assert (first.source, first.data, first.etag) == ("network", PAGE_VALUE, '"p1"')
    clock.now = START + 61
    stale = docs.get_document("GET /articles")
    assert (stale.status, stale.etag) == ("miss", '"p1"')
    conditional = urllib.request.Request(articles_url, headers={"If-None-Match": str(stale.etag)})
    with pytest.raises(urllib.error.HTTPError) as answer:  # urllib raises for a 304
        urllib.request.urlopen(conditional, timeout=30)
    assert answer.value.code == 304
    assert docs.refresh_document("GET /articles", headers=answer.value.headers) == "refreshed"
    cached = docs.execute_document("GET /articles", fetch=fetch)
    assert (cached.source, cached.data, cached.earliest_expiry, cached.etag) == (
        "cache",
        PAGE_VALUE,
        START + 121,
        '"p1"',
    )
    assert rest.if_none_match == [None, '"p1"']
