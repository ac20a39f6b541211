"""Freshness through the Python API, with a clock the test sets: max-age rules (field, type,
inherit, default, the parent's bound, the concrete typename, SDL @cacheControl), lifetimes
from a write (max_age, the response's Cache-Control, Age, Date and Expires, no-store,
no-cache) given as any kind of headers, stale data allowed by max_stale, the reasons and
times a read reports, invalidation, the clock itself, and hostile inputs. Exact results
and messages; the cases of the Swift suites FreshReadTests and InvalidationTests."""

from __future__ import annotations

import email.message
import gc
import http.server
import json
import pickle
import threading
import time
import urllib.request
import weakref
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import START, FakeClock

import normcache
from normcache import Missing, ReadResult, Stale

#: START as an HTTP date.
HTTP_START = "Sun, 06 Nov 1994 08:49:37 GMT"

SDL = """
type Query { feed(first: Int): [Article] node(id: ID!): Node }
interface Node { id: ID! }
type Article implements Node { id: ID! title: String body: String author: User }
type User implements Node { id: ID! name: String }
extend type Article @typePolicy(keyFields: "id")
extend type User @typePolicy(keyFields: "id")
"""
FEED = "query Feed { feed(first: 2) { id title body author { id name } } }"
FEED_RESPONSE: dict[str, Any] = {
    "data": {
        "feed": [
            {
                "__typename": "Article",
                "id": "1",
                "title": "One",
                "body": "B1",
                "author": {"__typename": "User", "id": "7", "name": "Ada"},
            },
            {
                "__typename": "Article",
                "id": "2",
                "title": "Two",
                "body": "B2",
                "author": {"__typename": "User", "id": "7", "name": "Ada"},
            },
        ]
    }
}
FEED_DATA: dict[str, Any] = {
    "feed": [
        {"id": "1", "title": "One", "body": "B1", "author": {"id": "7", "name": "Ada"}},
        {"id": "2", "title": "Two", "body": "B2", "author": {"id": "7", "name": "Ada"}},
    ]
}
#: The fields the feed's response writes: QUERY_ROOT.feed(first:2), five per article
#: (__typename, id, title, body, author) and three of User:7.
FEED_FIELDS = 14


@pytest.fixture
def feed_cache(cache: normcache.Cache, clock: FakeClock) -> normcache.Cache:
    """The test's cache with the feed's schema and the fake clock."""
    cache.load_schema(SDL)
    cache.set_clock(clock)
    return cache


@pytest.fixture
def feed(feed_cache: normcache.Cache) -> Iterator[normcache.Operation]:
    """The feed operation, prepared on feed_cache."""
    with feed_cache.prepare(FEED) as op:
        yield op


def dotted(entries: list[Missing] | list[Stale]) -> list[str]:
    """The paths of the entries, dotted: "feed.0.body"."""
    return [".".join(str(segment) for segment in entry.path) for entry in entries]


def with_nulls(data: dict[str, Any], field: str) -> dict[str, Any]:
    """FEED_DATA with `field` of every article null."""
    return {"feed": [{**article, field: None} for article in data["feed"]]}


# --- max-age rules ----------------------------------------------------------------------


def test_without_rules_data_never_expires(
    feed_cache: normcache.Cache, feed: normcache.Operation, clock: FakeClock
) -> None:
    feed_cache.write(feed, FEED_RESPONSE)
    clock.now = START + 100 * 365 * 86_400
    assert feed_cache.read(feed) == FEED_DATA
    assert feed_cache.read_result(feed) == ReadResult("complete", FEED_DATA, [], [], START, None)


def test_a_type_rule_expires_the_root_field_of_that_type_and_what_it_reaches(
    feed_cache: normcache.Cache, feed: normcache.Operation, clock: FakeClock
) -> None:
    feed_cache.configure({"maxAges": {"Article": 1800}})
    feed_cache.write(feed, FEED_RESPONSE)
    clock.now = START + 1799
    assert feed_cache.read_result(feed).status == "complete"
    clock.now = START + 1800
    # The root field is stale: the read does not go below it.
    expected = [Missing(["feed"], "stale", "QUERY_ROOT", "feed(first:2)", START, START + 1800)]
    assert feed_cache.read_result(feed) == ReadResult("miss", None, expected, [], START, START + 1800)
    with pytest.raises(normcache.CacheMiss) as miss:
        feed_cache.read(feed)
    assert miss.value.missing == expected
    assert miss.value.paths == [["feed"]]
    assert str(miss.value) == "the cache lacks 1 part(s) of the data: feed (stale)"


def test_a_field_rule_beats_the_type_rule(
    feed_cache: normcache.Cache, feed: normcache.Operation, clock: FakeClock
) -> None:
    feed_cache.configure({"maxAges": {"Article": 1800, "Article.body": 30}})
    feed_cache.write(feed, FEED_RESPONSE)
    clock.now = START + 30
    result = feed_cache.read_result(feed, partial=True)
    assert result.status == "miss" and result.is_miss and not result.is_complete and not result.is_stale
    assert result.missing == [
        Missing(["feed", 0, "body"], "stale", "Article:1", "body", START, START + 30),
        Missing(["feed", 1, "body"], "stale", "Article:2", "body", START, START + 30),
    ]
    assert result.data == with_nulls(FEED_DATA, "body")
    with pytest.raises(normcache.CacheMiss) as miss:
        feed_cache.read(feed, partial=True)
    assert (miss.value.missing, miss.value.data) == (result.missing, result.data)


def test_a_child_is_never_fresher_than_the_path_to_it(
    feed_cache: normcache.Cache, feed: normcache.Operation, clock: FakeClock
) -> None:
    # title's own 5000 is bounded by feed's 60; author's User rule of 10 is lower still.
    feed_cache.configure({"maxAges": {"Query.feed": 60, "Article.title": 5000, "User": 10}})
    feed_cache.write(feed, FEED_RESPONSE)
    clock.now = START + 10
    assert dotted(feed_cache.read_result(feed).missing) == ["feed.0.author", "feed.1.author"]
    clock.now = START + 59
    assert dotted(feed_cache.read_result(feed).missing) == ["feed.0.author", "feed.1.author"]
    clock.now = START + 60
    assert dotted(feed_cache.read_result(feed).missing) == ["feed"]


def test_inherit_takes_the_parent_fields_max_age(
    feed_cache: normcache.Cache, feed: normcache.Operation, clock: FakeClock
) -> None:
    feed_cache.configure({"maxAges": {"Query.feed": 60, "User": 10, "Article.author": "inherit"}})
    feed_cache.write(feed, FEED_RESPONSE)
    clock.now = START + 59
    assert feed_cache.read_result(feed).status == "complete"
    clock.now = START + 60
    assert dotted(feed_cache.read_result(feed).missing) == ["feed"]


def test_the_default_applies_to_root_and_composite_fields_and_leaves_inherit(
    feed_cache: normcache.Cache, feed: normcache.Operation, clock: FakeClock
) -> None:
    feed_cache.configure({"defaultMaxAge": 100, "maxAges": {"Query.feed": 500}})
    feed_cache.write(feed, FEED_RESPONSE)
    # feed: 500; author (composite, no rule): the default, 100; title (a leaf): feed's 500.
    clock.now = START + 100
    assert dotted(feed_cache.read_result(feed, partial=True).missing) == ["feed.0.author", "feed.1.author"]
    clock.now = START + 500
    assert dotted(feed_cache.read_result(feed).missing) == ["feed"]


def test_a_field_rule_is_found_on_the_objects_concrete_type(feed_cache: normcache.Cache, clock: FakeClock) -> None:
    feed_cache.configure({"maxAges": {"Article.title": 10}})
    with feed_cache.prepare('query { node(id: "1") { id ... on Article { title } } }') as node:
        feed_cache.write(node, {"data": {"node": {"__typename": "Article", "id": "1", "title": "One"}}})
        clock.now = START + 10
        assert feed_cache.read_result(node).missing == [
            Missing(["node", "title"], "stale", "Article:1", "title", START, START + 10)
        ]


def test_a_rule_configured_after_the_write_applies_without_rewriting(
    feed_cache: normcache.Cache, feed: normcache.Operation, clock: FakeClock
) -> None:
    feed_cache.write(feed, FEED_RESPONSE)
    clock.now = START + 61
    assert feed_cache.read_result(feed).is_complete
    feed_cache.configure({"maxAges": {"Query.feed": 60}})
    assert dotted(feed_cache.read_result(feed).missing) == ["feed"]
    feed_cache.configure({"maxAges": {"Query.feed": 3600}})
    assert feed_cache.read_result(feed).is_complete


# --- stale reads ------------------------------------------------------------------------


def test_max_stale_returns_stale_data_and_lists_it(
    feed_cache: normcache.Cache, feed: normcache.Operation, clock: FakeClock
) -> None:
    feed_cache.configure({"maxAges": {"Article.body": 30}})
    feed_cache.write(feed, FEED_RESPONSE)
    clock.now = START + 40
    stale = [
        Stale(["feed", 0, "body"], "stale", "Article:1", "body", START, START + 30),
        Stale(["feed", 1, "body"], "stale", "Article:2", "body", START, START + 30),
    ]
    allowed = feed_cache.read_result(feed, max_stale=10)
    assert allowed == ReadResult("stale", FEED_DATA, [], stale, START, START + 30)
    assert allowed.is_stale and not allowed.is_complete and not allowed.is_miss
    assert allowed.age(clock.now) == 40
    assert feed_cache.read(feed, max_stale=10) == FEED_DATA
    # One second more than allowed: a miss.
    too_old = feed_cache.read_result(feed, max_stale=9)
    assert too_old.status == "miss" and too_old.stale == [] and too_old.data is None
    assert dotted(too_old.missing) == ["feed.0.body", "feed.1.body"]
    with pytest.raises(normcache.CacheMiss) as miss:
        feed_cache.read(feed, max_stale=9)
    assert miss.value.missing == too_old.missing and miss.value.data is None
    with pytest.raises(normcache.CacheMiss) as partial:
        feed_cache.read(feed, max_stale=9, partial=True)
    assert partial.value.data == with_nulls(FEED_DATA, "body")
    # Without max_stale a stale field is a miss; ignoring freshness, it is data.
    assert feed_cache.read_result(feed).missing == too_old.missing
    assert feed_cache.read_result(feed, ignore_freshness=True) == ReadResult(
        "complete", FEED_DATA, [], [], START, START + 30
    )


def test_ignoring_freshness_still_misses_absent_data(feed_cache: normcache.Cache, feed: normcache.Operation) -> None:
    result = feed_cache.read_result(feed, ignore_freshness=True)
    assert result == ReadResult(
        "miss", None, [Missing(["feed"], "absent", "QUERY_ROOT", "feed(first:2)")], [], None, None
    )


def test_stale_absent_and_invalidated_in_one_read(
    feed_cache: normcache.Cache, feed: normcache.Operation, clock: FakeClock
) -> None:
    feed_cache.configure({"maxAges": {"Article.body": 30}})
    feed_cache.write(feed, FEED_RESPONSE)
    clock.now = START + 20
    assert feed_cache.invalidate("Article:2", "title") == 1
    assert feed_cache.remove_field("User:7", "name")
    clock.now = START + 35
    result = feed_cache.read_result(feed, partial=True)
    assert result.missing == [
        Missing(["feed", 0, "body"], "stale", "Article:1", "body", START, START + 30),
        Missing(["feed", 0, "author", "name"], "absent", "User:7", "name"),
        Missing(["feed", 1, "title"], "invalidated", "Article:2", "title", START, START + 20),
        Missing(["feed", 1, "body"], "stale", "Article:2", "body", START, START + 30),
        Missing(["feed", 1, "author", "name"], "absent", "User:7", "name"),
    ]
    assert [str(entry) for entry in result.missing[:3]] == [
        "feed.0.body (stale)",
        "feed.0.author.name (absent)",
        "feed.1.title (invalidated)",
    ]
    # Within max_stale the stale and invalidated fields come back; the absent ones do not.
    allowed = feed_cache.read_result(feed, max_stale=15)
    assert allowed.status == "miss"
    assert dotted(allowed.missing) == ["feed.0.author.name", "feed.1.author.name"]
    assert [(entry.reason, entry.expired_at) for entry in allowed.stale] == [
        ("stale", START + 30),
        ("invalidated", START + 20),
        ("stale", START + 30),
    ]


def test_oldest_written_and_earliest_expiry_span_the_fields_read(
    feed_cache: normcache.Cache, feed: normcache.Operation, clock: FakeClock
) -> None:
    feed_cache.write(feed, FEED_RESPONSE, max_age=600)
    clock.now = START + 100
    with feed_cache.prepare("fragment T on Article { title }") as title:
        feed_cache.write_fragment(title, "Article:2", {"title": "Two, again"})
        # Written later and without a lifetime: the newest field, never expiring.
        assert feed_cache.read_result(title, key="Article:2") == ReadResult(
            "complete", {"title": "Two, again"}, [], [], START + 100, None
        )
        assert feed_cache.read_fragment(title, "Article:1", max_stale=0) == {"title": "One"}
    clock.now = START + 200
    result = feed_cache.read_result(feed)
    assert (result.status, result.oldest_written_at, result.earliest_expiry) == ("complete", START, START + 600)
    assert result.age(clock.now) == 200
    assert ReadResult("miss", None, [], [], None, None).age(clock.now) is None


def test_a_writes_max_age_stamps_only_the_fields_it_carries(
    feed_cache: normcache.Cache, feed: normcache.Operation, clock: FakeClock
) -> None:
    assert feed_cache.write(feed, FEED_RESPONSE, max_age=300).stored
    titles_response = {
        "data": {
            "feed": [
                {"__typename": "Article", "id": "1", "title": "One"},
                {"__typename": "Article", "id": "2", "title": "Two"},
            ]
        }
    }
    with feed_cache.prepare("query Titles { feed(first: 2) { id title } }") as titles:
        clock.now = START + 100
        feed_cache.write(titles, titles_response)
        clock.now = START + 300
        # feed(first:2), id and title were written again without a lifetime: fresh for ever.
        assert feed_cache.read_result(titles).is_complete
    result = feed_cache.read_result(feed)
    assert dotted(result.missing) == ["feed.0.body", "feed.0.author", "feed.1.body", "feed.1.author"]
    assert {entry.expired_at for entry in result.missing} == {START + 300}


def test_an_identical_rewrite_refreshes_the_times_without_a_change(
    feed_cache: normcache.Cache, feed: normcache.Operation, clock: FakeClock
) -> None:
    feed_cache.configure({"maxAges": {"Query.feed": 60}})
    assert len(feed_cache.write(feed, FEED_RESPONSE)) == FEED_FIELDS
    clock.now = START + 50
    again = feed_cache.write(feed, FEED_RESPONSE)
    assert again == [] and again.stored
    clock.now = START + 100
    assert feed_cache.read_result(feed) == ReadResult("complete", FEED_DATA, [], [], START + 50, START + 110)


# --- lifetimes from the response's headers -------------------------------------------------


@pytest.mark.parametrize(
    ("max_age", "headers", "expiry"),
    [
        (None, {"Cache-Control": "max-age=600"}, 600),
        (None, {"cache-control": "public, max-age=600", "AGE": "100"}, 500),
        (None, {"Cache-Control": "max-age=600", "Age": "100", "Date": "Sun, 06 Nov 1994 08:46:17 GMT"}, 400),
        (None, {"date": HTTP_START, "EXPIRES": "Sun, 06 Nov 1994 09:49:37 GMT"}, 3600),
        (60, {"Cache-Control": "max-age=600"}, 60),
        (900, {"Cache-Control": "max-age=600"}, 600),
        (None, {"Cache-Control": "no-cache"}, 0),
        (None, {"Cache-Control": "max-age=0"}, 0),
        (None, {"Expires": "0"}, 0),
        (None, {"Cache-Control": "private"}, None),
        (None, {"Content-Type": "application/json", "X-Count": 5}, None),  # other headers are not read
        (None, {}, None),
        (45, None, 45),
    ],
)
def test_the_servers_headers_set_the_expiry(
    feed_cache: normcache.Cache,
    feed: normcache.Operation,
    max_age: int | None,
    headers: dict[str, Any] | None,
    expiry: int | None,
) -> None:
    written = feed_cache.write(feed, FEED_RESPONSE, max_age=max_age, headers=headers)
    assert written.stored and len(written) == FEED_FIELDS
    result = feed_cache.read_result(feed, max_stale=0)
    assert result.earliest_expiry == (None if expiry is None else START + expiry)
    assert result.status == ("stale" if expiry == 0 else "complete")


def test_headers_of_any_kind_and_repeated_lines_are_read(
    feed_cache: normcache.Cache, feed: normcache.Operation
) -> None:
    message = email.message.Message()
    message["Cache-Control"] = "public"
    message["cache-control"] = "max-age=700"  # two field lines: one list, "public, max-age=700"
    message["Age"] = "20"
    assert feed_cache.write(feed, FEED_RESPONSE, headers=message).stored
    assert feed_cache.read_result(feed).earliest_expiry == START + 680

    class CaseInsensitiveHeaders(Mapping[str, str]):
        """As requests' and httpx's headers: a mapping that ignores the case of names."""

        def __init__(self, **values: str) -> None:
            self._values = {name.replace("_", "-").lower(): value for name, value in values.items()}

        def __getitem__(self, name: str) -> str:
            return self._values[name.lower()]

        def __iter__(self) -> Iterator[str]:
            return iter(self._values)

        def __len__(self) -> int:
            return len(self._values)

    assert feed_cache.write(feed, FEED_RESPONSE, headers=CaseInsensitiveHeaders(Cache_Control="max-age=90")) == []
    assert feed_cache.read_result(feed).earliest_expiry == START + 90
    # A dict naming one header twice, in two casings: one list too. An Age list counts by
    # its first member; two different max-ages make the response stale at once (RFC 9111).
    feed_cache.write(feed, FEED_RESPONSE, headers={"Cache-Control": "max-age=600", "AGE": "60", "age": "70"})
    assert feed_cache.read_result(feed).earliest_expiry == START + 540
    feed_cache.write(feed, FEED_RESPONSE, headers={"Cache-Control": "max-age=80", "cache-control": "max-age=70"})
    assert feed_cache.read_result(feed).earliest_expiry == START


def test_no_store_writes_nothing_and_says_so(feed_cache: normcache.Cache, feed: normcache.Operation) -> None:
    written = feed_cache.write(feed, FEED_RESPONSE, headers={"Cache-Control": "no-store, max-age=60"})
    assert written == [] and written.stored is False
    assert repr(written) == "WriteResult([], stored=False, key_fallbacks=0)"
    assert feed_cache.write(feed, FEED_RESPONSE, headers={"cache-control": "NO-STORE"}, changes=False).stored is False
    assert feed_cache.search() == []
    kept = feed_cache.write(feed, FEED_RESPONSE, changes=False)
    assert kept == [] and kept.stored is True
    assert feed_cache.read(feed) == FEED_DATA


def test_a_write_result_is_the_list_of_changes(feed_cache: normcache.Cache, feed: normcache.Operation) -> None:
    written = feed_cache.write(feed, FEED_RESPONSE)
    assert isinstance(written, list) and isinstance(written, normcache.WriteResult)
    assert written[-1] == "QUERY_ROOT.feed(first:2)" and written.stored
    copy = pickle.loads(pickle.dumps(written))
    assert (copy, copy.stored, type(copy)) == (written, True, normcache.WriteResult)
    gone = pickle.loads(pickle.dumps(normcache.WriteResult(["A:1.x"], stored=False)))
    assert (gone, gone.stored) == (["A:1.x"], False)
    with pytest.raises(AttributeError):
        written.stored = False  # type: ignore[misc]


# --- lifetimes of put and write_fragment ------------------------------------------------


@pytest.fixture
def parts(feed_cache: normcache.Cache) -> Iterator[normcache.Operation]:
    """The fragment Parts on Article { title body }, prepared on feed_cache."""
    with feed_cache.prepare("fragment Parts on Article { title body }") as op:
        yield op


def test_a_puts_max_age_stamps_only_the_fields_it_gives(
    feed_cache: normcache.Cache, parts: normcache.Operation, clock: FakeClock
) -> None:
    assert feed_cache.put({"Article:1": {"title": "One", "body": "B"}}) == ["Article:1.title", "Article:1.body"]
    clock.now = START + 10
    written = feed_cache.put({"Article:1": {"title": "Uno"}}, max_age=60)
    assert (written, written.stored, written.key_fallbacks) == (["Article:1.title"], True, 0)
    fresh = feed_cache.read_result(parts, key="Article:1")
    assert (fresh.status, fresh.data) == ("complete", {"title": "Uno", "body": "B"})
    assert (fresh.oldest_written_at, fresh.earliest_expiry) == (START, START + 70)
    clock.now = START + 70
    expired = feed_cache.read_result(parts, key="Article:1")
    assert expired.missing == [
        Missing(["title"], "stale", "Article:1", "title", written_at=START + 10, expired_at=START + 70)
    ]


def test_a_put_takes_the_servers_headers(feed_cache: normcache.Cache, parts: normcache.Operation) -> None:
    written = feed_cache.put(
        {"Article:1": {"title": "One", "body": "B"}}, headers={"Cache-Control": "max-age=600", "Age": "100"}
    )
    assert written == ["Article:1.title", "Article:1.body"]
    assert feed_cache.read_result(parts, key="Article:1").earliest_expiry == START + 500
    not_stored = feed_cache.put(b"not json", headers={"cache-control": "no-store"})
    assert (not_stored, not_stored.stored) == ([], False)
    assert feed_cache.search() == ["Article:1"]


def test_a_bad_put_lifetime_raises_and_writes_nothing(feed_cache: normcache.Cache) -> None:
    feed_cache.put({"Article:1": {"title": "One"}})
    with pytest.raises(normcache.InvalidArgumentError) as raised:
        feed_cache.put({"Article:1": {"title": "Two"}}, headers={"Cache-Control": "max-age=abc"})
    assert str(raised.value) == (
        "Cache-Control: malformed max-age at byte 8 ('max-age=abc'): it needs a whole number of seconds"
    )
    with pytest.raises(normcache.InvalidArgumentError, match="max_age is 2147483648"):
        feed_cache.put({"Article:2": {"title": "Two"}}, max_age=2_147_483_648)
    assert feed_cache.search() == ["Article:1"] and feed_cache.get("Article:1") == {"title": "One"}


def test_a_fragment_writes_lifetime(feed_cache: normcache.Cache, parts: normcache.Operation, clock: FakeClock) -> None:
    feed_cache.put({"Article:1": {"title": "One", "body": "B"}})
    clock.now = START + 5
    with feed_cache.prepare("fragment Title on Article { title }") as title:
        written = feed_cache.write_fragment(
            title, "Article:1", {"title": "Uno"}, headers={"Cache-Control": "max-age=30"}
        )
        assert (written, written.stored) == (["Article:1.title"], True)
        assert feed_cache.read_result(parts, key="Article:1").earliest_expiry == START + 35
        skipped = feed_cache.write_fragment(title, "Article:1", {"title": "Dos"}, headers={"Cache-Control": "no-store"})
        assert (skipped, skipped.stored) == ([], False)
        with pytest.raises(normcache.InvalidArgumentError, match=r"^Age: malformed value at byte 0 \('x'\)"):
            feed_cache.write_fragment(title, "Article:1", {"title": "Tres"}, headers={"Age": "x"})
    clock.now = START + 40
    stale = feed_cache.read_result(parts, key="Article:1", max_stale=10)
    assert (stale.status, stale.data) == ("stale", {"title": "Uno", "body": "B"})
    assert stale.stale == [Stale(["title"], "stale", "Article:1", "title", written_at=START + 5, expired_at=START + 35)]


# --- invalidation ---------------------------------------------------------------------


@pytest.fixture
def pets(cache: normcache.Cache, clock: FakeClock) -> Iterator[normcache.Operation]:
    """Two pets and a user in the cache at START, and the operation { pets { name age } }."""
    cache.set_clock(clock)
    cache.put(
        {
            "QUERY_ROOT": {"pets": [{"$reference": "Pet:1"}, {"$reference": "Pet:2"}]},
            "Pet:1": {"name": "Rex", "age": 3},
            "Pet:2": {"name": "Tom", "age": 5},
            "User:1": {"name": "Ada"},
        }
    )
    with cache.prepare("{ pets { name age } }") as op:
        yield op


PETS_DATA = {"pets": [{"name": "Rex", "age": 3}, {"name": "Tom", "age": 5}]}


def test_a_field_invalidated_is_a_miss_with_its_reason(
    cache: normcache.Cache, pets: normcache.Operation, clock: FakeClock
) -> None:
    clock.now = START + 10
    assert cache.invalidate("Pet:1", field="age") == 1
    clock.now = START + 25
    expected = Missing(["pets", 0, "age"], "invalidated", "Pet:1", "age", START, START + 10)
    assert cache.read_result(pets) == ReadResult("miss", None, [expected], [], START, START + 10)
    # The data stays for a read that allows it.
    stale = cache.read_result(pets, max_stale=15)
    assert stale.status == "stale" and stale.data == PETS_DATA
    assert stale.stale == [Stale(["pets", 0, "age"], "invalidated", "Pet:1", "age", START, START + 10)]
    assert cache.read_result(pets, max_stale=14).status == "miss"
    assert cache.get("Pet:1") == {"age": 3, "name": "Rex"}


def test_a_write_makes_an_invalidated_record_fresh_without_reporting_a_change(
    cache: normcache.Cache, pets: normcache.Operation
) -> None:
    assert cache.invalidate("Pet:1") == 2
    assert [entry.field for entry in cache.read_result(pets).missing] == ["name", "age"]
    assert cache.put({"Pet:1": {"name": "Rex", "age": 3}}) == []
    assert cache.read_result(pets).is_complete


def test_a_key_group_is_invalidated_at_once(cache: normcache.Cache, pets: normcache.Operation) -> None:
    assert cache.invalidate_prefix("Pet:") == 4
    assert [entry.record for entry in cache.read_result(pets).missing] == ["Pet:1", "Pet:1", "Pet:2", "Pet:2"]
    assert cache.invalidate_prefix(b"Cat:") == 0
    with cache.prepare("fragment U on User { name }") as user:
        assert cache.read_result(user, key="User:1") == ReadResult("complete", {"name": "Ada"}, [], [], START, None)


def test_a_field_that_expired_before_keeps_its_earlier_expiry(
    cache: normcache.Cache, pets: normcache.Operation, clock: FakeClock
) -> None:
    cache.put({"Pet:1": {"__typename": "Pet"}, "Pet:2": {"__typename": "Pet"}})
    cache.configure({"maxAges": {"Pet.age": 5}})
    clock.now = START + 100
    assert cache.invalidate("Pet:2", "age") == 1
    result = cache.read_result(pets)
    assert [(entry.reason, entry.expired_at) for entry in result.missing] == [
        ("stale", START + 5),
        ("invalidated", START + 5),
    ]


def test_invalidating_absent_keys_and_bad_arguments(cache: normcache.Cache, pets: normcache.Operation) -> None:
    assert cache.invalidate("Pet:9") == 0
    assert cache.invalidate("Pet:1", field="colour") == 0
    with pytest.raises(normcache.InvalidArgumentError, match=r"^empty record key$"):
        cache.invalidate("")
    with pytest.raises(normcache.InvalidArgumentError, match=r"^empty field key$"):
        cache.invalidate("Pet:1", field="")
    with pytest.raises(normcache.InvalidArgumentError, match=r"^empty prefix$"):
        cache.invalidate_prefix("")
    with pytest.raises(TypeError, match=r"^key must be str or bytes, not int$"):
        cache.invalidate(1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^field must be str or bytes, not int$"):
        cache.invalidate("Pet:1", 2)  # type: ignore[arg-type]
    assert cache.read_result(pets).is_complete  # nothing above marked anything
    cache.close()
    with pytest.raises(normcache.ClosedError, match=r"^the cache is closed$"):
        cache.invalidate("Pet:1")
    with pytest.raises(normcache.ClosedError):
        cache.invalidate_prefix("Pet:")


def test_invalidating_a_read_only_cache_is_refused(cache_path: Path, pets: normcache.Operation) -> None:
    with normcache.Cache(cache_path, read_only=True) as reader:
        with pytest.raises(normcache.ReadOnlyError):
            reader.invalidate("Pet:1")


# --- the clock --------------------------------------------------------------------------


def test_a_clock_that_raises_fails_the_call_naming_its_exception(
    feed_cache: normcache.Cache, feed: normcache.Operation
) -> None:
    def broken() -> int:
        raise ValueError("the test's clock is broken")

    feed_cache.set_clock(broken)
    with pytest.raises(normcache.CallbackError) as failure:
        feed_cache.write(feed, FEED_RESPONSE)
    assert failure.value.code == -7
    assert failure.value.message == "the cache's clock failed: ValueError: the test's clock is broken"
    assert isinstance(failure.value.__cause__, ValueError)
    with pytest.raises(normcache.CallbackError, match=r"^the cache's clock failed: ValueError: the test's clock"):
        feed_cache.read(feed)
    with pytest.raises(normcache.CallbackError):
        feed_cache.invalidate("Article:1")
    assert feed_cache.search() == []  # nothing was written


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (1.5, "the cache's clock failed: TypeError: a clock returns an int, seconds since 1970, not float"),
        (None, "the cache's clock failed: TypeError: a clock returns an int, seconds since 1970, not NoneType"),
        (True, "the cache's clock failed: TypeError: a clock returns an int, seconds since 1970, not bool"),
        ("784111777", "the cache's clock failed: TypeError: a clock returns an int, seconds since 1970, not str"),
        (
            1 << 63,
            "the cache's clock failed: OverflowError: a clock returns seconds since 1970 within 64 bits, "
            "not 9223372036854775808",
        ),
        (-5, "the cache's clock answered -5: a clock answers seconds since 1970, not below 0"),
        (-1, "the cache's clock answered -1: a clock answers seconds since 1970, not below 0"),
    ],
)
def test_a_clock_answering_no_time_fails_the_call(
    feed_cache: normcache.Cache, feed: normcache.Operation, answer: Any, message: str
) -> None:
    feed_cache.set_clock(lambda: answer)
    with pytest.raises(normcache.CallbackError) as failure:
        feed_cache.write(feed, FEED_RESPONSE)
    assert failure.value.message == message
    assert feed_cache.search() == []


def test_an_interrupted_clock_fails_the_call_then_propagates(
    feed_cache: normcache.Cache, feed: normcache.Operation
) -> None:
    def interrupted() -> int:
        raise KeyboardInterrupt

    feed_cache.set_clock(interrupted)
    with pytest.raises(KeyboardInterrupt):
        feed_cache.write(feed, FEED_RESPONSE)
    assert feed_cache.search() == []


def test_a_clock_answers_integers_of_any_integer_type(feed_cache: normcache.Cache, feed: normcache.Operation) -> None:
    class Seconds:
        """An integer of another type, as numpy's int64: it has __index__."""

        def __index__(self) -> int:
            return START + 5

    feed_cache.set_clock(Seconds)  # type: ignore[arg-type]
    feed_cache.write(feed, FEED_RESPONSE)
    assert feed_cache.read_result(feed).oldest_written_at == START + 5


def test_none_brings_back_the_system_clock(feed_cache: normcache.Cache, feed: normcache.Operation) -> None:
    feed_cache.set_clock(None)
    before = int(time.time())
    feed_cache.write(feed, FEED_RESPONSE)
    written = feed_cache.read_result(feed).oldest_written_at
    assert written is not None and before <= written <= int(time.time())


def test_the_clock_is_called_on_the_calling_thread_once_per_call(
    feed_cache: normcache.Cache, feed: normcache.Operation, clock: FakeClock
) -> None:
    threads: list[int] = []

    def recording() -> int:
        threads.append(threading.get_ident())
        return START

    feed_cache.set_clock(recording)
    worker = threading.Thread(target=lambda: feed_cache.write(feed, FEED_RESPONSE))
    worker.start()
    worker.join()
    assert threads == [worker.ident]
    feed_cache.set_clock(clock)
    feed_cache.read(feed)
    assert clock.calls == 1


def test_the_clock_belongs_to_one_cache_object(
    feed_cache: normcache.Cache, feed: normcache.Operation, cache_path: Path
) -> None:
    with normcache.Cache(cache_path) as other:
        other.put({"A:1": {"x": 1}})
        with other.prepare("fragment X on A { x }") as x:
            written = other.read_result(x, key="A:1").oldest_written_at
            assert written is not None and written > START + 30 * 365 * 86_400
            assert feed_cache.read_result(x, key="A:1").oldest_written_at == written


def test_the_cache_holds_its_clock_until_it_is_replaced_or_closed(cache_path: Path) -> None:
    first, second = FakeClock(), FakeClock()
    first_ref, second_ref = weakref.ref(first), weakref.ref(second)
    cache = normcache.Cache(cache_path)
    cache.set_clock(first)
    cache.set_clock(second)
    del first, second
    gc.collect()
    assert first_ref() is None and second_ref() is not None
    cache.set_clock(None)
    gc.collect()
    assert second_ref() is None
    third = FakeClock()
    third_ref = weakref.ref(third)
    cache.set_clock(third)
    del third
    cache.close()
    gc.collect()
    assert third_ref() is None
    with pytest.raises(normcache.ClosedError):
        cache.set_clock(FakeClock())
    assert dict(normcache.clock._slots) == {}


def test_a_clock_that_refers_to_its_cache_does_not_keep_it_alive(cache_path: Path) -> None:
    def forgotten() -> weakref.ref[normcache.Cache]:
        cache = normcache.Cache(cache_path)
        cache.set_clock(lambda: START if not cache.closed else 0)  # cache -> clock -> cache
        return weakref.ref(cache)

    cache_ref = forgotten()
    gc.collect()
    assert cache_ref() is None
    assert dict(normcache.clock._slots) == {}
    with normcache.Cache(cache_path) as reopened:  # the finalizer closed the handle
        assert reopened.search() == []


def test_set_clock_refuses_what_is_not_a_clock(cache: normcache.Cache) -> None:
    with pytest.raises(TypeError, match=r"^clock must be a callable returning seconds since 1970, or None, not int$"):
        cache.set_clock(5)  # type: ignore[arg-type]
    assert dict(normcache.clock._slots) == {}


# --- hostile input --------------------------------------------------------------------


def test_the_largest_max_age_is_accepted(feed_cache: normcache.Cache, feed: normcache.Operation) -> None:
    feed_cache.write(feed, FEED_RESPONSE, max_age=2_147_483_647)
    assert feed_cache.read_result(feed).earliest_expiry == START + 2_147_483_647


@pytest.mark.parametrize(("value", "kind"), [(True, "bool"), (60.0, "float"), ("60", "str")])
def test_a_max_age_of_another_type_is_a_type_error(
    feed_cache: normcache.Cache, feed: normcache.Operation, value: Any, kind: str
) -> None:
    with pytest.raises(TypeError, match=rf"^max_age must be an int or None, not {kind}$"):
        feed_cache.write(feed, FEED_RESPONSE, max_age=value)
    with pytest.raises(TypeError, match=rf"^max_stale must be an int or None, not {kind}$"):
        feed_cache.read(feed, max_stale=value)
    assert feed_cache.search() == []


@pytest.mark.parametrize(
    ("lifetime", "message"),
    [
        ({"max_age": -1}, "max_age is -1: seconds from 0 to 2147483647, or None for none"),
        ({"max_age": -5}, "max_age is -5: seconds from 0 to 2147483647, or None for none"),
        ({"max_age": 2_147_483_648}, "max_age is 2147483648: seconds from 0 to 2147483647, or None for none"),
        ({"max_age": 1 << 70}, "max_age is 1180591620717411303424: seconds from 0 to 2147483647, or None for none"),
        (
            {"headers": {"Cache-Control": "max-age=soon"}},
            "Cache-Control: malformed max-age at byte 8 ('max-age=soon'): it needs a whole number of seconds",
        ),
        (
            {"headers": {"age": "x", "Cache-Control": "max-age=60"}},
            "Age: malformed value at byte 0 ('x'): it needs a whole number of seconds",
        ),
        (
            {"headers": {"Date": "yesterday", "Cache-Control": "max-age=60"}},
            "Date: malformed HTTP date at byte 0 ('yesterday'): a date is written as 'Sun, 06 Nov 1994 08:49:37 GMT'",
        ),
        (
            {"headers": {"Date": HTTP_START, "date": HTTP_START, "Cache-Control": "max-age=60"}},
            f"Date: malformed HTTP date at byte 0 ('{HTTP_START}, {HTTP_START}'): a date is written as '{HTTP_START}'",
        ),
    ],
)
def test_a_bad_lifetime_is_an_invalid_argument_and_writes_nothing(
    feed_cache: normcache.Cache, feed: normcache.Operation, lifetime: dict[str, Any], message: str
) -> None:
    """A max_age out of range (the binding's message: the C -1, "none", is None in Python),
    or a malformed header value (the library's message)."""
    with pytest.raises(normcache.InvalidArgumentError) as failure:
        feed_cache.write(feed, FEED_RESPONSE, **lifetime)
    assert (failure.value.code, failure.value.message) == (-1, message)
    assert feed_cache.search() == []


def test_a_huge_header(feed_cache: normcache.Cache, feed: normcache.Operation) -> None:
    megabyte = 1 << 20
    # A megabyte of directives that mean nothing to a client, then the one that does.
    assert feed_cache.write(feed, FEED_RESPONSE, headers={"Cache-Control": "x, " * (megabyte // 3) + "max-age=60"})
    assert feed_cache.read_result(feed).earliest_expiry == START + 60
    with pytest.raises(normcache.InvalidArgumentError) as failure:
        feed_cache.write(feed, FEED_RESPONSE, headers={"Cache-Control": "x" * megabyte + ";"})
    shown = "x" * 80
    assert failure.value.message == (
        f"Cache-Control: unexpected ';' at byte {megabyte} ('{shown}… ({megabyte + 1} bytes)'): "
        "directives are separated by commas"
    )


def test_header_values_with_control_characters(feed_cache: normcache.Cache, feed: normcache.Operation) -> None:
    with pytest.raises(normcache.InvalidArgumentError) as failure:
        feed_cache.write(feed, FEED_RESPONSE, headers={"Cache-Control": "max-age=60\x00"})
    assert failure.value.message.startswith("Cache-Control: unexpected 0x00 at byte 10 ('max-age=60\\x00'): ")
    with pytest.raises(UnicodeEncodeError):
        feed_cache.write(feed, FEED_RESPONSE, headers={"Cache-Control": "max-age=\ud800"})
    assert feed_cache.search() == []


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({"Cache-Control": 600}, "the value of the header 'Cache-Control' must be a str, not int"),
        ({"AGE": b"60"}, "the value of the header 'AGE' must be a str, not bytes"),
        ({"Expires": None}, "the value of the header 'Expires' must be a str, not NoneType"),
        ({b"Age": "60"}, "a header name must be a str, not bytes"),
        (["Cache-Control", "max-age=60"], "headers must be a mapping of header names to values, not list"),
        ("Cache-Control: max-age=60", "headers must be a mapping of header names to values, not str"),
    ],
)
def test_headers_that_are_not_text_are_a_type_error(
    feed_cache: normcache.Cache, feed: normcache.Operation, headers: Any, message: str
) -> None:
    with pytest.raises(TypeError) as failure:
        feed_cache.write(feed, FEED_RESPONSE, headers=headers)
    assert str(failure.value) == message
    assert feed_cache.search() == []


@pytest.mark.parametrize("max_stale", [-1, -60, 1 << 63])
def test_a_max_stale_out_of_range_is_an_invalid_argument(
    feed_cache: normcache.Cache, feed: normcache.Operation, max_stale: int
) -> None:
    message = f"^max_stale is {max_stale}: seconds from 0 to 9223372036854775807, or None for none$"
    with pytest.raises(normcache.InvalidArgumentError, match=message):
        feed_cache.read(feed, max_stale=max_stale)
    with pytest.raises(normcache.InvalidArgumentError, match=message):
        feed_cache.read_result(feed, max_stale=max_stale)
    with feed_cache.prepare("fragment T on Article { title }") as title:
        with pytest.raises(normcache.InvalidArgumentError, match=message):
            feed_cache.read_fragment(title, "Article:1", max_stale=max_stale)


def test_read_result_checks_its_arguments(feed_cache: normcache.Cache, feed: normcache.Operation) -> None:
    with pytest.raises(TypeError, match=r"^op must be an Operation from Cache.prepare, not str$"):
        feed_cache.read_result(FEED)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^key must be str or bytes, not int$"):
        feed_cache.read_result(feed, key=5)  # type: ignore[arg-type]
    with pytest.raises(normcache.InvalidArgumentError, match=r"^'Feed' is an operation, not a fragment"):
        feed_cache.read_result(feed, key="Article:1")
    with feed_cache.prepare("fragment T on Article { title }") as title:
        assert feed_cache.read_result(title, key="Article:9") == ReadResult(
            "miss", None, [Missing([], "absent", "Article:9")], [], None, None
        )
        with pytest.raises(normcache.InvalidArgumentError, match=r"^empty record key$"):
            feed_cache.read_result(title, key="")
    feed_cache.close()
    with pytest.raises(normcache.ClosedError, match=r"^the cache is closed$"):
        feed_cache.read_result(feed)
    feed.close()
    with pytest.raises(normcache.ClosedError, match=r"^the operation is closed$"):
        feed_cache.read_result(feed)


# --- a real HTTP response --------------------------------------------------------------


def test_the_headers_of_a_real_http_response(feed_cache: normcache.Cache, feed: normcache.Operation) -> None:
    body = json.dumps(FEED_RESPONSE).encode("utf-8")

    class GraphQLHandler(http.server.BaseHTTPRequestHandler):
        """Answers every POST with the feed, fresh for 1800 seconds, 60 of them spent."""

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)  # also sends Date: the real time, after the fake clock's
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "max-age=1800")
            self.send_header("Age", "60")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *arguments: Any) -> None:
            """Quiet."""

    server = http.server.HTTPServer(("127.0.0.1", 0), GraphQLHandler)
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    serving.start()
    try:
        request = urllib.request.Request(
            f"http://127.0.0.1:{server.server_address[1]}/graphql",
            data=json.dumps({"query": feed.document}).encode("utf-8"),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            written = feed_cache.write(feed, response.read(), headers=response.headers)
    finally:
        server.shutdown()
        server.server_close()
        serving.join()
    assert written.stored and len(written) == FEED_FIELDS
    result = feed_cache.read_result(feed)
    assert result.earliest_expiry == START + 1740
    assert result == ReadResult("complete", FEED_DATA, [], [], START, START + 1740)


# --- rules in the schema (@cacheControl) ------------------------------------------------

CACHE_CONTROL_SDL = """
type Query { feed(first: Int): [Article] @cacheControl(maxAge: 60) node(id: ID!): Node }
interface Node { id: ID! }
type Article implements Node @cacheControl(maxAge: 1800) {
  id: ID! title: String body: String @cacheControl(maxAge: 30) author: User @cacheControl(inheritMaxAge: true)
}
type User implements Node @cacheControl(maxAge: 10) { id: ID! name: String }
extend type Article @typePolicy(keyFields: "id")
extend type User @typePolicy(keyFields: "id")
"""


@pytest.fixture
def directive_cache(cache: normcache.Cache, clock: FakeClock) -> normcache.Cache:
    """The test's cache with the feed's schema carrying @cacheControl rules, and the fake clock."""
    cache.load_schema(CACHE_CONTROL_SDL)
    cache.set_clock(clock)
    return cache


def test_cache_control_in_the_schema_sets_the_rules(directive_cache: normcache.Cache, clock: FakeClock) -> None:
    with directive_cache.prepare(FEED) as op:
        directive_cache.write(op, FEED_RESPONSE)
        # body: its own 30; author: inherits feed's 60 over User's 10; title: feed's 60.
        clock.now = START + 30
        result = directive_cache.read_result(op, partial=True)
        assert result.missing == [
            Missing(["feed", 0, "body"], "stale", "Article:1", "body", START, START + 30),
            Missing(["feed", 1, "body"], "stale", "Article:2", "body", START, START + 30),
        ]
        assert result.earliest_expiry == START + 30
        clock.now = START + 60
        assert dotted(directive_cache.read_result(op).missing) == ["feed"]


def test_a_configured_coordinate_replaces_the_schemas(directive_cache: normcache.Cache, clock: FakeClock) -> None:
    directive_cache.configure({"maxAges": {"Query.feed": 120, "Article.body": "inherit"}})
    with directive_cache.prepare(FEED) as op:
        directive_cache.write(op, FEED_RESPONSE)
        clock.now = START + 119
        assert directive_cache.read_result(op) == ReadResult("complete", FEED_DATA, [], [], START, START + 120)
        clock.now = START + 120
        assert dotted(directive_cache.read_result(op).missing) == ["feed"]


def test_cache_control_field_on_an_extended_type(cache: normcache.Cache, clock: FakeClock) -> None:
    cache.load_schema(SDL + 'extend type Article @cacheControlField(name: "title", maxAge: 15)\n')
    cache.set_clock(clock)
    with cache.prepare(FEED) as op:
        cache.write(op, FEED_RESPONSE)
        clock.now = START + 15
        assert dotted(cache.read_result(op, partial=True).missing) == ["feed.0.title", "feed.1.title"]


def test_a_misplaced_cache_control_is_a_schema_error(cache: normcache.Cache) -> None:
    with pytest.raises(normcache.SchemaError, match="@cacheControlField on 'Article' names 'headline'"):
        cache.load_schema(SDL + 'extend type Article @cacheControlField(name: "headline", maxAge: 15)\n')
