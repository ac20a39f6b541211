"""search: key groups by prefix, in byte order, one page at a time."""

from __future__ import annotations

import functools
import operator

import pytest

import normcache

PETS = [f"Pet:{i:03d}" for i in range(250)]
OTHERS = ["Animal:1", "Person:1", "Person:2", "Pes:9", "Pets:1", "Pets:2", "Pf:1", "Zoo:1"]


@pytest.fixture
def pets(cache: normcache.Cache) -> normcache.Cache:
    """A cache holding Pet:000..Pet:249 and neighbours on both sides of the group."""
    records = {key: {"n": i} for i, key in enumerate(PETS)}
    records.update({key: {"other": True} for key in OTHERS})
    cache.put(records)
    return cache


def _pages(cache: normcache.Cache, prefix: str, limit: int) -> list[list[str]]:
    """Every page of a group, following `after` from the last key of each page."""
    pages: list[list[str]] = []
    after = None
    while True:
        page = cache.search(prefix, after=after, limit=limit)
        if not page:
            return pages
        pages.append(page)
        after = page[-1]


def test_a_group_lists_exactly_its_keys_in_order(pets: normcache.Cache) -> None:
    assert pets.search("Pet:") == PETS


def test_pages_of_a_hundred(pets: normcache.Cache) -> None:
    pages = _pages(pets, "Pet:", 100)
    assert [len(page) for page in pages] == [100, 100, 50]
    assert pages[0][0] == "Pet:000"
    assert pages[0][-1] == "Pet:099"
    assert pages[1][0] == "Pet:100"
    assert pages[2][-1] == "Pet:249"
    assert functools.reduce(operator.iadd, pages, []) == PETS


def test_pages_of_one(pets: normcache.Cache) -> None:
    pages = _pages(pets, "Pet:", 1)
    assert len(pages) == 250
    assert functools.reduce(operator.iadd, pages, []) == PETS


def test_pages_of_seven_end_on_a_short_page(pets: normcache.Cache) -> None:
    pages = _pages(pets, "Pet:", 7)
    assert [len(page) for page in pages] == [7] * 35 + [5]
    assert functools.reduce(operator.iadd, pages, []) == PETS


def test_a_limit_larger_than_the_group(pets: normcache.Cache) -> None:
    assert pets.search("Pet:", limit=1000) == PETS
    assert pets.search("Pets:", limit=1) == ["Pets:1"]


def test_after_a_key_that_is_not_stored(pets: normcache.Cache) -> None:
    assert pets.search("Pet:", after="Pet:0995", limit=2) == ["Pet:100", "Pet:101"]
    assert pets.search("Pet:", after="Pet:099\uffff", limit=1) == ["Pet:100"]


def test_after_before_the_group_starts_at_its_first_key(pets: normcache.Cache) -> None:
    assert pets.search("Pet:", after="A", limit=2) == ["Pet:000", "Pet:001"]
    assert pets.search("Pet:", after="Pet:", limit=2) == ["Pet:000", "Pet:001"]
    assert pets.search("Pet:", after="", limit=2) == ["Pet:000", "Pet:001"]


def test_after_the_group_gives_nothing(pets: normcache.Cache) -> None:
    assert pets.search("Pet:", after="Pet:249") == []
    assert pets.search("Pet:", after="Pets:0") == []
    assert pets.search("Pet:", after="\U0010ffff") == []


def test_after_may_be_bytes(pets: normcache.Cache) -> None:
    assert pets.search(b"Pet:", after=b"Pet:247") == ["Pet:248", "Pet:249"]


def test_neighbouring_groups_do_not_leak(pets: normcache.Cache) -> None:
    assert pets.search("Pets:") == ["Pets:1", "Pets:2"]
    assert pets.search("Person:") == ["Person:1", "Person:2"]
    assert pets.search("Pet") == [*PETS, "Pets:1", "Pets:2"]
    assert pets.search("P") == ["Person:1", "Person:2", "Pes:9", *PETS, "Pets:1", "Pets:2", "Pf:1"]


def test_the_empty_prefix_lists_every_key(pets: normcache.Cache) -> None:
    everything = sorted(PETS + OTHERS, key=lambda k: k.encode())
    assert pets.search("") == everything
    assert pets.search() == everything
    assert functools.reduce(operator.iadd, _pages(pets, "", 64), []) == everything


def test_groups_with_no_keys(pets: normcache.Cache) -> None:
    assert pets.search("Q") == []
    assert pets.search("Zzz") == []
    assert pets.search("Pet:2499") == []
    assert pets.search("Pet:000:") == []
    assert pets.search("\u0000") == []


def test_a_whole_key_is_its_own_group(pets: normcache.Cache) -> None:
    assert pets.search("Pet:007") == ["Pet:007"]
    assert pets.search("Pet:24") == [
        "Pet:240",
        "Pet:241",
        "Pet:242",
        "Pet:243",
        "Pet:244",
        "Pet:245",
        "Pet:246",
        "Pet:247",
        "Pet:248",
        "Pet:249",
    ]


def test_an_empty_cache_has_no_keys(cache: normcache.Cache) -> None:
    assert cache.search("") == []
    assert cache.search("Pet:", after="Pet:1", limit=5) == []


def test_byte_order_not_code_point_equivalence(cache: normcache.Cache) -> None:
    keys = ["K:é", "K:e\u0301", "K:B", "K:a", "K:\uffff", "K:😀", "K:\u0000", "K:z"]
    cache.put({key: {"k": key} for key in keys})
    expected = sorted(keys, key=lambda k: k.encode("utf-8"))
    assert expected == ["K:\u0000", "K:B", "K:a", "K:e\u0301", "K:z", "K:é", "K:\uffff", "K:😀"]
    assert cache.search("K:") == expected
    assert cache.search("K:", after="K:e", limit=2) == ["K:e\u0301", "K:z"]
    assert cache.search("K:e") == ["K:e\u0301"]


@pytest.mark.parametrize("limit", [0, -1, -100])
def test_a_limit_below_one_is_a_value_error(pets: normcache.Cache, limit: int) -> None:
    with pytest.raises(ValueError):
        pets.search("Pet:", limit=limit)


@pytest.mark.parametrize("limit", ["10", 1.5])
def test_a_limit_that_is_not_an_integer_is_a_type_error(pets: normcache.Cache, limit: object) -> None:
    with pytest.raises(TypeError):
        pets.search("Pet:", limit=limit)  # type: ignore[arg-type]
