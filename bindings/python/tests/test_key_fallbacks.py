"""Key fallbacks through the Python API: an object of a keyed type that lacks its key fields
is keyed by its path and counted (WriteResult.key_fallbacks of write and write_fragment,
NormalizedRecords.key_fallbacks of normalize); strict_keys=True raises DataError naming the
path, the type and the key fields, and writes nothing; FetchReply(strict_keys=True) does
the same for execute. The cases of the Swift suite KeyFallbackTests, exact records and
messages."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from typing import Any

import pytest

import normcache

RULES = {"typePolicies": {"Article": {"keyFields": ["id"]}, "Comment": {"keyFields": ["id"]}}}
FEED = "query Feed { feed(first: 3) { title } }"
#: The third article lacks its id.
FEED_RESPONSE: dict[str, Any] = {
    "data": {
        "feed": [
            {"__typename": "Article", "id": "1", "title": "One"},
            {"__typename": "Article", "id": "2", "title": "Two"},
            {"__typename": "Article", "title": "Three"},
        ]
    }
}
FEED_RECORDS: dict[str, Any] = {
    "Article:1": {"title": "One", "__typename": "Article", "id": "1"},
    "Article:2": {"title": "Two", "__typename": "Article", "id": "2"},
    "QUERY_ROOT.feed(first:3).2": {"title": "Three", "__typename": "Article"},
    "QUERY_ROOT": {
        "feed(first:3)": [
            {"$reference": "Article:1"},
            {"$reference": "Article:2"},
            {"$reference": "QUERY_ROOT.feed(first:3).2"},
        ]
    },
}
FEED_ERROR = (
    "invalid response data at feed.2: Article lacks its key field 'id'; "
    "strict keys refuse the fallback to its path key 'QUERY_ROOT.feed(first:3).2'"
)
THREAD = "query Feed { feed(first: 3) { title comments { text } } }"
THREAD_RESPONSE: dict[str, Any] = {
    "data": {
        "feed": [
            {"__typename": "Article", "id": "1", "title": "One", "comments": []},
            {
                "__typename": "Article",
                "id": "2",
                "title": "Two",
                "comments": [
                    {"__typename": "Comment", "id": "c1", "text": "a"},
                    {"__typename": "Comment", "id": "c2", "text": "b"},
                    {"__typename": "Comment", "text": "c"},
                    {"__typename": "Comment", "id": None, "text": "d"},
                ],
            },
        ]
    }
}


@pytest.fixture
def keyed(cache: normcache.Cache) -> normcache.Cache:
    """The test's cache with the rules."""
    cache.configure(RULES)
    return cache


@pytest.fixture
def feed(keyed: normcache.Cache) -> Iterator[normcache.Operation]:
    """The feed, prepared on keyed."""
    with keyed.prepare(FEED) as op:
        yield op


def everything(cache: normcache.Cache) -> dict[str, Any]:
    """Every record of `cache`, by key."""
    return {key: cache.get(key) for key in cache.search()}


def test_a_keyed_object_without_its_key_is_keyed_by_its_path_and_counted(
    keyed: normcache.Cache, feed: normcache.Operation
) -> None:
    records = keyed.normalize(feed, FEED_RESPONSE)
    assert records == FEED_RECORDS and records.key_fallbacks == 1
    assert isinstance(records, dict) and repr(records).endswith(", key_fallbacks=1)")
    copy = pickle.loads(pickle.dumps(records))
    assert (copy, copy.key_fallbacks) == (FEED_RECORDS, 1)
    written = keyed.write(feed, FEED_RESPONSE)
    assert (len(written), written.stored, written.key_fallbacks) == (9, True, 1)
    assert keyed.write(feed, FEED_RESPONSE, changes=False).key_fallbacks == 1
    assert repr(keyed.write(feed, FEED_RESPONSE)) == "WriteResult([], stored=True, key_fallbacks=1)"
    assert keyed.search() == ["Article:1", "Article:2", "QUERY_ROOT", "QUERY_ROOT.feed(first:3).2"]
    assert keyed.get("QUERY_ROOT.feed(first:3).2") == {"__typename": "Article", "title": "Three"}


def test_strict_keys_raise_and_write_nothing(keyed: normcache.Cache, feed: normcache.Operation) -> None:
    keyed.write(feed, {"data": {"feed": [{"__typename": "Article", "id": "1", "title": "Old"}]}})
    before = everything(keyed)
    with pytest.raises(normcache.DataError) as raised:
        keyed.write(feed, FEED_RESPONSE, strict_keys=True)
    assert str(raised.value) == FEED_ERROR and raised.value.code == -5
    with pytest.raises(normcache.DataError, match=r"^invalid response data at feed\.2: Article lacks"):
        keyed.normalize(feed, FEED_RESPONSE, strict_keys=True)
    assert everything(keyed) == before
    with pytest.raises(TypeError, match="strict_keys must be a bool, not int"):
        keyed.write(feed, FEED_RESPONSE, strict_keys=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="strict_keys must be a bool, not str"):
        keyed.normalize(feed, FEED_RESPONSE, strict_keys="yes")  # type: ignore[arg-type]


def test_a_fallback_deep_in_a_list(keyed: normcache.Cache) -> None:
    with keyed.prepare(THREAD) as thread:
        assert keyed.normalize(thread, THREAD_RESPONSE).key_fallbacks == 2
        with pytest.raises(normcache.DataError) as raised:
            keyed.write(thread, THREAD_RESPONSE, strict_keys=True, max_age=60)
        assert str(raised.value) == (
            "invalid response data at feed.1.comments.2: Comment lacks its key field 'id'; "
            "strict keys refuse the fallback to its path key 'Article:2.comments.2'"
        )
        assert keyed.search() == []
        assert keyed.write(thread, THREAD_RESPONSE).key_fallbacks == 2
        assert keyed.get("Article:2.comments.3") == {"__typename": "Comment", "text": "d"}


def test_write_fragment_counts_and_refuses(keyed: normcache.Cache) -> None:
    data = {
        "title": "One",
        "comments": [{"__typename": "Comment", "id": "c1", "text": "a"}, {"__typename": "Comment", "text": "b"}],
    }
    with keyed.prepare("fragment Thread on Article { title comments { text } }") as fragment:
        with pytest.raises(normcache.DataError) as raised:
            keyed.write_fragment(fragment, "Article:1", data, strict_keys=True)
        assert str(raised.value) == (
            "invalid response data at comments.1: Comment lacks its key field 'id'; "
            "strict keys refuse the fallback to its path key 'Article:1.comments.1'"
        )
        assert keyed.search() == []
        written = keyed.write_fragment(fragment, "Article:1", data)
        assert written == [
            "Comment:c1.text",
            "Comment:c1.__typename",
            "Comment:c1.id",
            "Article:1.comments.1.text",
            "Article:1.comments.1.__typename",
            "Article:1.title",
            "Article:1.comments",
        ]
        assert written.key_fallbacks == 1


def test_a_strict_reply_fails_execute(keyed: normcache.Cache, feed: normcache.Operation) -> None:
    def strict(request: normcache.FetchRequest) -> normcache.FetchReply:
        return normcache.FetchReply(b'{"data": {"feed": [{"__typename": "Article", "title": "T"}]}}', strict_keys=True)

    with pytest.raises(
        normcache.DataError, match=r"^invalid response data at feed\.0: Article lacks its key field 'id'"
    ):
        keyed.execute(feed, fetch=strict, policy="network_only")
    assert keyed.search() == []
