"""Plain JSON documents (REST): put_document, get_document, get_document_json and
execute_document, with a clock the test sets and a real REST server on 127.0.0.1. Values
and JSON text kept as written, lifetimes from max_age and the server's headers and how
they combine, stale and partial reads, no-store, documents listed, invalidated and
removed like records, and hostile inputs. The cases of the Swift suite DocumentTests."""

from __future__ import annotations

import urllib.error
from typing import Any

import pytest
from conftest import START, FakeClock
from local_servers import API, urllib_get

import normcache
from normcache import ExecutionResult, FetchReply, FetchRequest, Missing, ReadResult, Stale

PAGE = '{"articles": [{"id": 7, "title": "Caching", "score": 1.50}], "next": null}'
PAGE_VALUE = {"articles": [{"id": 7, "title": "Caching", "score": 1.5}], "next": None}


@pytest.fixture
def docs(cache: normcache.Cache, clock: FakeClock) -> normcache.Cache:
    """The test's cache on the fake clock."""
    cache.set_clock(clock)
    return cache


# --- put and get -------------------------------------------------------------------------


def test_a_document_comes_back_as_written(docs: normcache.Cache) -> None:
    assert docs.put_document("GET /articles?page=1", PAGE) is True
    assert docs.get_document("GET /articles?page=1") == ReadResult("complete", PAGE_VALUE, [], [], START, None)
    assert docs.get_document_json("GET /articles?page=1") == PAGE  # 1.50 keeps its digits
    assert docs.put_document("GET /count", b" 42 ")
    assert (docs.get_document("GET /count").data, docs.get_document_json("GET /count")) == (42, " 42 ")
    assert docs.search("GET /") == ["GET /articles?page=1", "GET /count"]


@pytest.mark.parametrize(
    "value, text",
    [
        ({"name": "Ada", "tags": ["x"]}, '{"name": "Ada", "tags": ["x"]}'),
        ([1, 2.5, None, True], "[1, 2.5, null, true]"),
        (7, "7"),
        (None, "null"),
        ('"hi"', '"hi"'),  # a str is JSON text
        ({"é": "ü"}, '{"é": "ü"}'),
    ],
    ids=["dict", "list", "int", "null", "json-string", "unicode"],
)
def test_any_json_value_is_a_document(docs: normcache.Cache, value: Any, text: str) -> None:
    assert docs.put_document("doc", value)
    assert docs.get_document_json("doc") == text
    result = docs.get_document("doc")
    assert result.status == "complete"
    assert result.data == (value if not isinstance(value, str) else "hi")


def test_a_document_expires_after_its_lifetime(docs: normcache.Cache, clock: FakeClock) -> None:
    assert docs.put_document("GET /articles", PAGE, headers={"Cache-Control": "max-age=1800", "Age": "60"})
    clock.now = START + 1739
    assert docs.get_document("GET /articles") == ReadResult("complete", PAGE_VALUE, [], [], START, START + 1740)
    clock.now = START + 1740
    stale = Missing([], "stale", "GET /articles", None, START, START + 1740)
    assert docs.get_document("GET /articles") == ReadResult("miss", None, [stale], [], START, START + 1740)
    allowed = docs.get_document("GET /articles", max_stale=60)
    assert allowed == ReadResult(
        "stale", PAGE_VALUE, [], [Stale([], "stale", "GET /articles", None, START, START + 1740)], START, START + 1740
    )
    assert docs.get_document("GET /articles", partial=True).data == PAGE_VALUE
    assert docs.get_document("GET /articles", ignore_freshness=True).status == "complete"
    with pytest.raises(normcache.CacheMiss) as miss:
        docs.get_document_json("GET /articles")
    assert (miss.value.missing, miss.value.data) == ([stale], None)
    assert docs.get_document_json("GET /articles", max_stale=60) == PAGE
    with pytest.raises(normcache.CacheMiss) as partial:
        docs.get_document_json("GET /articles", partial=True)
    assert partial.value.data == PAGE_VALUE


def test_max_age_and_headers_the_earliest_expiry_wins(docs: normcache.Cache) -> None:
    docs.put_document("a", "1", max_age=60, headers={"Cache-Control": "max-age=1800"})
    docs.put_document("b", "1", max_age=1800, headers={"cache-control": "max-age=60"})
    docs.put_document("c", "1", max_age=0)
    assert [docs.get_document(k).earliest_expiry for k in "abc"] == [START + 60, START + 60, START]
    assert docs.get_document("c").status == "miss"


def test_no_store_and_bad_json_write_nothing(docs: normcache.Cache) -> None:
    assert docs.put_document("GET /me", PAGE, headers={"Cache-Control": "private, no-store"}) is False
    with pytest.raises(normcache.JSONError):
        docs.put_document("GET /me", '{"a": ')
    with pytest.raises(normcache.JSONError):
        docs.put_document("GET /me", float("nan"))  # json.dumps writes NaN, which is not JSON
    with pytest.raises(TypeError, match=r"^Object of type set is not JSON serializable$"):
        docs.put_document("GET /me", {1, 2})
    with pytest.raises(normcache.InvalidArgumentError, match=r"^empty document key$"):
        docs.put_document("", "1")
    with pytest.raises(normcache.InvalidArgumentError, match=r"^max_age is -1: seconds from 0 to 2147483647"):
        docs.put_document("GET /me", "1", max_age=-1)
    with pytest.raises(normcache.InvalidArgumentError, match="Cache-Control"):
        docs.put_document("GET /me", "1", headers={"Cache-Control": 'max-age="60'})
    with pytest.raises(TypeError, match=r"^key must be str or bytes, not int$"):
        docs.put_document(7, "1")  # type: ignore[arg-type]
    assert docs.search() == []
    absent = docs.get_document("GET /me")
    assert absent == ReadResult("miss", None, [Missing([], "absent", "GET /me")], [], None, None)
    with pytest.raises(normcache.CacheMiss) as miss:
        docs.get_document_json("GET /me")
    assert miss.value.paths == [[]]


def test_a_record_of_fields_is_not_a_document(docs: normcache.Cache) -> None:
    docs.put({"Article:7": {"title": "Caching"}})
    message = r"^'Article:7' is a record of fields, not a document$"
    with pytest.raises(normcache.InvalidArgumentError, match=message):
        docs.get_document("Article:7")
    with pytest.raises(normcache.InvalidArgumentError, match=message):
        docs.put_document("Article:7", "1")
    assert docs.get("Article:7") == {"title": "Caching"}


def test_the_text_is_found_whatever_the_document_and_key_hold(docs: normcache.Cache, clock: FakeClock) -> None:
    # The document's text ends where the envelope's ,"missing": begins: not at one inside
    # the document, nor at one inside the key (escaped there) of a stale entry.
    text = '{"a": "x", "missing": [1], "b": ",\\"missing\\":"}'
    key = 'GET /q?x=","missing":['
    docs.put_document(key, text, max_age=10)
    assert docs.get_document_json(key) == text
    clock.now = START + 20
    assert docs.get_document_json(key, max_stale=60) == text
    assert docs.get_document(key, max_stale=60).stale[0].record == key


def test_documents_are_invalidated_and_removed_by_prefix(docs: normcache.Cache) -> None:
    docs.put_document("GET /articles?page=1", PAGE)
    docs.put_document("GET /articles?page=2", "[]")
    assert docs.invalidate_prefix("GET /articles") == 2
    assert [m.reason for m in docs.get_document("GET /articles?page=2").missing] == ["invalidated"]
    assert docs.get_document("GET /articles?page=2", max_stale=0).data == []
    docs.put_document("GET /articles?page=2", "[]")
    assert docs.get_document("GET /articles?page=2").status == "complete"
    assert docs.invalidate("GET /articles?page=2") == 1
    assert docs.remove_prefix("GET /articles") == 2
    assert docs.search() == []


def test_a_closed_cache(docs: normcache.Cache) -> None:
    docs.close()
    with pytest.raises(normcache.ClosedError):
        docs.put_document("a", "1")
    with pytest.raises(normcache.ClosedError):
        docs.get_document("a")
    with pytest.raises(normcache.ClosedError):
        docs.get_document_json("a")
    with pytest.raises(normcache.ClosedError):
        docs.execute_document("a", fetch=lambda r: b"1")


# --- execute_document: the REST flow ------------------------------------------------------


@pytest.fixture
def rest() -> API:
    """What the REST server answers at /articles: PAGE, with no caching headers."""
    return API(body=PAGE.encode("utf-8"), cache_control=None)


def test_the_rest_flow_serves_the_cache_for_30_minutes_then_the_api(
    docs: normcache.Cache, clock: FakeClock, rest: API, articles_url: str
) -> None:
    requests: list[FetchRequest] = []
    send = urllib_get(articles_url)

    def fetch(request: FetchRequest) -> Any:
        requests.append(request)
        return send(request)

    first = docs.execute_document("GET /articles", fetch=fetch, max_age=1800)
    assert first == ExecutionResult("complete", PAGE_VALUE, [], [], START, START + 1800, "network")
    clock.now = START + 1799
    cached = docs.execute_document("GET /articles", fetch=fetch, max_age=1800)
    assert (cached.source, cached.data, cached.earliest_expiry) == ("cache", PAGE_VALUE, START + 1800)
    clock.now = START + 1800
    assert docs.execute_document("GET /articles", fetch=fetch, max_age=1800).source == "network"
    assert requests == [FetchRequest(None, None, None, "GET /articles")] * 2
    assert [(method, path) for method, path, _ in rest.requests] == [("GET", "/articles")] * 2
    assert docs.get_document_json("GET /articles") == PAGE
    with pytest.raises(ValueError, match=r"^the request of the document 'GET /articles' has no GraphQL operation$"):
        requests[0].payload()


@pytest.mark.parametrize(
    "server, max_age, reply_max_age, expiry",
    [
        ("max-age=1800", None, None, 1800),  # the server's alone
        (None, 1800, None, 1800),  # the call's alone
        ("max-age=60", 1800, None, 60),  # the earlier: the server's
        ("max-age=3600", 1800, None, 1800),  # the earlier: the call's
        ("max-age=3600", 1800, 120, 120),  # the reply's own max_age replaces the call's
        (None, None, None, None),  # no lifetime: never expires
    ],
)
def test_how_max_age_and_the_servers_headers_combine(
    docs: normcache.Cache,
    rest: API,
    articles_url: str,
    server: str | None,
    max_age: int | None,
    reply_max_age: int | None,
    expiry: int | None,
) -> None:
    rest.cache_control = server
    send = urllib_get(articles_url)

    def fetch(request: FetchRequest) -> FetchReply:
        return FetchReply(*send(request), max_age=reply_max_age)

    result = docs.execute_document("GET /articles", fetch=fetch, max_age=max_age)
    assert result.earliest_expiry == (None if expiry is None else START + expiry)


def test_a_no_store_reply_is_returned_and_not_stored(docs: normcache.Cache, rest: API, articles_url: str) -> None:
    rest.cache_control = "no-store"
    result = docs.execute_document("GET /articles", fetch=urllib_get(articles_url), max_age=1800)
    assert (result.source, result.data) == ("network", PAGE_VALUE)
    assert docs.search() == []


def test_a_reply_that_is_not_json_keeps_the_stored_document(
    docs: normcache.Cache, rest: API, articles_url: str
) -> None:
    docs.execute_document("GET /articles", fetch=urllib_get(articles_url))
    rest.body = b"<html>502 Bad Gateway</html>"
    with pytest.raises(normcache.JSONError):
        docs.execute_document("GET /articles", fetch=urllib_get(articles_url), policy="network_only")
    assert docs.get_document_json("GET /articles") == PAGE


def test_a_server_error_falls_back_to_the_stored_document(
    docs: normcache.Cache, clock: FakeClock, rest: API, articles_url: str
) -> None:
    docs.execute_document("GET /articles", fetch=urllib_get(articles_url), max_age=60)
    rest.status = 503
    clock.now = START + 90
    delivered: list[ExecutionResult] = []
    result = docs.execute_document(
        "GET /articles",
        fetch=urllib_get(articles_url),
        policy="stale_while_revalidate",
        max_stale=3600,
        on_result=delivered.append,
    )
    assert [(r.source, r.status) for r in delivered] == [("cache", "stale"), ("cache", "stale")]
    assert result.fetch_error == "HTTPError: HTTP Error 503: Service Unavailable"
    assert isinstance(result.fetch_exception, urllib.error.HTTPError)
    with pytest.raises(normcache.FetchError) as failure:
        docs.execute_document("GET /articles", fetch=urllib_get(articles_url))
    assert isinstance(failure.value.__cause__, urllib.error.HTTPError)
    assert rest.served == 3


def test_execute_document_arguments(docs: normcache.Cache) -> None:
    with pytest.raises(normcache.InvalidArgumentError, match=r"^max_age is -1: seconds from 0 to 2147483647"):
        docs.execute_document("GET /a", fetch=lambda r: b"1", max_age=-1)
    with pytest.raises(normcache.InvalidArgumentError, match=r"^empty document key$"):
        docs.execute_document("", fetch=lambda r: b"1")
    cached_only = docs.execute_document("GET /a", policy="cache_only")
    assert (cached_only.status, [m.reason for m in cached_only.missing]) == ("miss", ["absent"])


# --- entity rules --------------------------------------------------------------------------

ENTITY_RULES = {
    "documents": {
        "typeMember": "__typename",
        "prefixes": {"GET /articles": "ArticlePage", "GET /articles/": "Article"},
        "types": {
            "ArticlePage": {"members": {"articles": "Article"}},
            "Article": {"keyFields": ["id"], "members": {"author": "User"}},
            "User": {"keyFields": "id"},
        },
    }
}
AUTHORED_PAGE = '{"articles": [{"id": 7, "title": "Caching", "author": {"id": 1, "name": "Ann"}}], "next": null}'


@pytest.fixture
def entity_docs(docs: normcache.Cache) -> normcache.Cache:
    """The documents cache with the entity rules of a page of articles by their authors."""
    docs.configure(ENTITY_RULES)
    return docs


def test_entities_become_records_and_read_back_updated(entity_docs: normcache.Cache) -> None:
    assert entity_docs.put_document("GET /articles?page=1", AUTHORED_PAGE)
    assert entity_docs.get("Article:7") == {"author": {"$reference": "User:1"}, "id": 7, "title": "Caching"}
    assert entity_docs.get("User:1") == {"id": 1, "name": "Ann"}
    assert entity_docs.get_document_json("GET /articles?page=1") == (
        '{"articles":[{"id":7,"title":"Caching","author":{"id":1,"name":"Ann"}}],"next":null}'
    )
    # Updated through the article's own endpoint and through records: every document shows it.
    entity_docs.put_document("GET /articles/7", {"id": 7, "title": "Revised"})
    entity_docs.put({"User:1": {"name": "Ann Lee"}})
    assert entity_docs.get_document("GET /articles?page=1").data == {
        "articles": [{"id": 7, "title": "Revised", "author": {"id": 1, "name": "Ann Lee"}}],
        "next": None,
    }


def test_an_invalidated_or_removed_entity_is_a_miss_at_its_path(entity_docs: normcache.Cache) -> None:
    entity_docs.put_document("GET /articles?page=1", AUTHORED_PAGE)
    assert entity_docs.invalidate("User:1", "name") == 1
    missed = entity_docs.get_document("GET /articles?page=1")
    assert (missed.status, missed.data) == ("miss", None)
    assert missed.missing == [Missing(["articles", 0, "author", "name"], "invalidated", "User:1", "name", START, START)]
    stale = entity_docs.get_document("GET /articles?page=1", max_stale=60)
    assert stale.status == "stale" and stale.stale == [
        Stale(["articles", 0, "author", "name"], "invalidated", "User:1", "name", START, START)
    ]
    assert entity_docs.remove("User:1")
    with pytest.raises(normcache.CacheMiss) as miss:
        entity_docs.get_document_json("GET /articles?page=1", partial=True)
    assert miss.value.missing == [Missing(["articles", 0, "author"], "absent", "User:1", None)]
    assert miss.value.data == {"articles": [{"id": 7, "title": "Caching", "author": None}], "next": None}


def test_entity_rules_refuse_bad_input(entity_docs: normcache.Cache) -> None:
    with pytest.raises(
        normcache.InvalidArgumentError, match=r"^configuration error at byte 25: unknown member 'documents\.prefix'"
    ):
        entity_docs.configure('{"documents": {"prefix": {}}}')
    entity_docs.put_document("Article:8", {"id": 8})
    with pytest.raises(
        normcache.InvalidArgumentError,
        match=r"^the entity 'Article:8' of the document 'GET /articles/' has the key of a document$",
    ):
        entity_docs.put_document("GET /articles/", [{"id": 9}, {"id": 8}])
    assert entity_docs.search("") == ["Article:8"]
