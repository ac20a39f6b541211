"""remove, remove_prefix and clear."""

from __future__ import annotations

from pathlib import Path

import pytest

import normcache

PETS = [f"Pet:{i:03d}" for i in range(250)]


@pytest.fixture
def pets(cache: normcache.Cache) -> normcache.Cache:
    """A cache holding Pet:000..Pet:249, Pets:1, Person:1 and Pe:1."""
    records = {key: {"n": i} for i, key in enumerate(PETS)}
    records.update({"Pets:1": {"n": -1}, "Person:1": {"n": -2}, "Pe:1": {"n": -3}})
    cache.put(records)
    return cache


def test_remove_deletes_one_record(pets: normcache.Cache) -> None:
    assert pets.remove("Pet:010") is True
    assert pets.get("Pet:010") is None
    assert pets.get("Pet:001") == {"n": 1}
    assert pets.get("Pet:100") == {"n": 100}
    assert "Pet:010" not in pets.search("Pet:")
    assert len(pets.search("Pet:")) == 249


def test_remove_of_a_missing_record_is_false(pets: normcache.Cache) -> None:
    assert pets.remove("Pet:999") is False
    assert pets.remove("Pet:") is False
    assert pets.remove("Pet:00") is False
    assert pets.remove("Pet:0000") is False
    assert len(pets.search("")) == 253


def test_remove_twice(pets: normcache.Cache) -> None:
    assert pets.remove("Pets:1") is True
    assert pets.remove("Pets:1") is False


def test_a_removed_record_is_new_again(cache: normcache.Cache) -> None:
    cache.put({"Droid:2001": {"name": "R2-D2", "height": 1.09}})
    cache.remove("Droid:2001")
    assert cache.put({"Droid:2001": {"name": "R2-D2"}}) == ["Droid:2001.name"]
    assert cache.get("Droid:2001") == {"name": "R2-D2"}


def test_remove_of_an_empty_key_is_invalid(pets: normcache.Cache) -> None:
    with pytest.raises(normcache.InvalidArgumentError) as failure:
        pets.remove("")
    assert failure.value.code == -1
    with pytest.raises(normcache.InvalidArgumentError):
        pets.remove(b"")


def test_remove_prefix_counts_what_it_deleted(pets: normcache.Cache) -> None:
    assert pets.remove_prefix("Pet:1") == 100
    assert pets.search("Pet:1") == []
    assert len(pets.search("Pet:")) == 150
    assert pets.remove_prefix("Pet:") == 150
    assert pets.search("") == ["Pe:1", "Person:1", "Pets:1"]
    assert pets.remove_prefix("Pet:") == 0


def test_remove_prefix_of_one_whole_key(pets: normcache.Cache) -> None:
    assert pets.remove_prefix("Pet:249") == 1
    assert pets.get("Pet:249") is None
    assert pets.get("Pet:248") == {"n": 248}


def test_remove_prefix_spans_groups_sharing_the_prefix(pets: normcache.Cache) -> None:
    assert pets.remove_prefix("Pe") == 253
    assert pets.search("") == []


def test_remove_prefix_with_no_match(pets: normcache.Cache) -> None:
    assert pets.remove_prefix("Zoo:") == 0
    assert pets.remove_prefix("A") == 0
    assert pets.remove_prefix(b"Pet:9") == 0
    assert len(pets.search("")) == 253


def test_remove_prefix_of_nothing_is_invalid(pets: normcache.Cache) -> None:
    with pytest.raises(normcache.InvalidArgumentError) as failure:
        pets.remove_prefix("")
    assert failure.value.code == -1
    assert len(pets.search("")) == 253


def test_clear_deletes_every_record(pets: normcache.Cache) -> None:
    pets.clear()
    assert pets.search("") == []
    assert pets.get("Pet:000") is None
    assert pets.stats()["records"] == 0
    assert pets.put({"Pet:000": {"n": 0}}) == ["Pet:000.n"]
    assert pets.search("") == ["Pet:000"]


def test_clear_of_an_empty_cache(cache: normcache.Cache) -> None:
    cache.clear()
    cache.clear()
    assert cache.search("") == []


def test_clear_keeps_the_file_a_cache(cache_path: Path, pets: normcache.Cache) -> None:
    format_version = pets.stats()["format_version"]
    pets.clear()
    pets.close()
    with normcache.Cache(cache_path) as again:
        assert again.search("") == []
        assert again.stats()["format_version"] == format_version
