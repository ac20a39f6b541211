"""records: iterating over a key group's records, a page of keys at a time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import normcache
from normcache.cache import Key

ARTICLES = {f"Article:{i:03d}": {"title": f"T{i}", "author": {"$reference": f"User:{i % 3}"}} for i in range(250)}
NEIGHBOURS = {"Articles:1": {"other": True}, "Artiste:1": {"other": True}, "Arc:1": {"other": True}}


@pytest.fixture
def articles(cache: normcache.Cache) -> normcache.Cache:
    """A cache holding Article:000..Article:249 and neighbours on both sides of the group."""
    cache.put({**ARTICLES, **NEIGHBOURS})
    return cache


class SearchSpy:
    """Records each search a cache makes: (prefix, after, limit)."""

    def __init__(self, cache: normcache.Cache) -> None:
        """Spy on `cache.search`, which stays what it was."""
        self.search = cache.search
        self.calls: list[tuple[Key, Key | None, int | None]] = []

    def __call__(self, prefix: Key = "", *, after: Key | None = None, limit: int | None = None) -> list[str]:
        """The search, noted."""
        self.calls.append((prefix, after, limit))
        return self.search(prefix, after=after, limit=limit)


@pytest.fixture
def spy(articles: normcache.Cache, monkeypatch: pytest.MonkeyPatch) -> SearchSpy:
    """The searches `articles` makes from now on."""
    watcher = SearchSpy(articles)
    monkeypatch.setattr(articles, "search", watcher)
    return watcher


def test_the_group_comes_whole_in_key_order_with_its_records(articles: normcache.Cache) -> None:
    assert list(articles.records("Article:")) == list(ARTICLES.items())
    assert next(iter(articles.records("Article:"))) == (
        "Article:000",
        {"title": "T0", "author": {"$reference": "User:0"}},
    )


def test_the_keys_are_listed_a_page_at_a_time(articles: normcache.Cache, spy: SearchSpy) -> None:
    records = articles.records("Article:", page_size=100)
    assert spy.calls == []  # nothing is listed before the first step
    assert next(records)[0] == "Article:000"
    assert spy.calls == [(b"Article:", None, 100)]
    assert [key for key, _ in records] == list(ARTICLES)[1:]
    assert spy.calls == [
        (b"Article:", None, 100),
        (b"Article:", "Article:099", 100),
        (b"Article:", "Article:199", 100),
    ]


def test_a_group_that_fills_its_last_page_ends_on_an_empty_one(articles: normcache.Cache, spy: SearchSpy) -> None:
    assert len(list(articles.records("Article:", page_size=125))) == 250
    assert [after for _, after, _ in spy.calls] == [None, "Article:124", "Article:249"]


def test_pages_of_one(articles: normcache.Cache) -> None:
    assert list(articles.records("Article:", page_size=1)) == list(ARTICLES.items())


def test_the_default_page_is_a_thousand_keys(articles: normcache.Cache, spy: SearchSpy) -> None:
    assert len(list(articles.records("Article:"))) == 250
    assert spy.calls == [(b"Article:", None, 1000)]


def test_an_empty_group_gives_nothing(articles: normcache.Cache) -> None:
    assert list(articles.records("Articl:")) == []
    assert list(articles.records("Article:250")) == []
    assert list(articles.records("Zebra:")) == []


def test_an_empty_cache_gives_nothing(cache: normcache.Cache) -> None:
    assert list(cache.records()) == []
    assert list(cache.records("Article:", page_size=1)) == []


def test_the_empty_prefix_gives_every_record(articles: normcache.Cache) -> None:
    assert dict(articles.records(page_size=64)) == {**ARTICLES, **NEIGHBOURS}
    assert [key for key, _ in articles.records("")] == sorted([*ARTICLES, *NEIGHBOURS])


def test_a_prefix_may_be_bytes(articles: normcache.Cache) -> None:
    assert list(articles.records(b"Artiste:")) == [("Artiste:1", {"other": True})]


def test_a_document_comes_as_its_record(cache: normcache.Cache) -> None:
    cache.put_document("GET /me", {"name": "Ada"})
    [(key, record)] = cache.records("GET ")
    assert key == "GET /me"
    assert record == cache.get("GET /me")
    assert "$document" in record


def test_what_an_iteration_sees_of_writes_made_during_it(cache: normcache.Cache) -> None:
    cache.put({f"A:{i}": {"v": i} for i in range(1, 7)})
    records = cache.records("A:", page_size=3)
    seen: list[tuple[str, dict[str, Any]]] = [next(records)]  # the page A:1, A:2, A:3 is listed
    cache.remove("A:2")  # listed, removed before its turn: skipped
    cache.put({"A:3": {"v": "changed"}})  # listed, changed before its turn: comes as changed
    cache.put({"A:0": {"v": 0}})  # before the last key yielded: not seen
    cache.put({"A:5+": {"v": "new"}})  # after it: seen, in its place
    cache.remove("A:6")  # not listed yet: never seen
    seen.extend(records)
    assert seen == [
        ("A:1", {"v": 1}),
        ("A:3", {"v": "changed"}),
        ("A:4", {"v": 4}),
        ("A:5", {"v": 5}),
        ("A:5+", {"v": "new"}),
    ]


def test_a_write_between_pages_is_seen_once(cache: normcache.Cache) -> None:
    cache.put({f"A:{i}": {"v": i} for i in range(1, 5)})
    keys = []
    for key, _ in cache.records("A:", page_size=2):
        keys.append(key)
        if key == "A:2":  # the end of the first page: the next is listed after this write
            cache.put({"A:2": {"v": "again"}, "A:3": {"v": "again"}, "A:21": {"v": 21}})
    assert keys == ["A:1", "A:2", "A:21", "A:3", "A:4"]


@pytest.mark.parametrize("page_size", [0, -1])
def test_a_page_size_below_one_is_a_value_error(cache: normcache.Cache, page_size: int) -> None:
    with pytest.raises(ValueError, match="page_size must be a positive integer"):
        cache.records("A:", page_size=page_size)


@pytest.mark.parametrize("page_size", [1.5, "10", None])
def test_a_page_size_that_is_not_an_integer_is_a_type_error(cache: normcache.Cache, page_size: object) -> None:
    with pytest.raises(TypeError):
        cache.records("A:", page_size=page_size)  # type: ignore[arg-type]


def test_a_prefix_that_is_not_text_is_a_type_error(cache: normcache.Cache) -> None:
    with pytest.raises(TypeError, match="prefix must be str or bytes, not int"):
        cache.records(5)  # type: ignore[arg-type]


def test_a_closed_cache_raises_at_the_call(cache_path: Path) -> None:
    cache = normcache.Cache(cache_path)
    cache.close()
    with pytest.raises(normcache.ClosedError):
        cache.records("A:")


def test_closing_during_an_iteration_ends_it_with_a_closed_error(cache: normcache.Cache) -> None:
    cache.put({f"A:{i}": {"v": i} for i in range(1, 5)})
    records = cache.records("A:", page_size=2)
    assert next(records) == ("A:1", {"v": 1})
    cache.close()
    with pytest.raises(normcache.ClosedError):
        next(records)
