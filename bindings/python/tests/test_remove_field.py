"""remove_field: one field of one record deleted, the rest kept; a root field's entry
removed makes the read of its operation miss at exactly that path."""

from __future__ import annotations

from pathlib import Path

import pytest

import normcache


@pytest.fixture
def pets(cache: normcache.Cache) -> normcache.Cache:
    """A cache holding Pet:1 with three fields and Pet:2 with one."""
    cache.put({"Pet:1": {"name": "Rex", "age": 3, "owner": {"$reference": "User:1"}}, "Pet:2": {"name": "Tom"}})
    return cache


def test_the_other_fields_stay(pets: normcache.Cache) -> None:
    assert pets.remove_field("Pet:1", "age") is True
    assert pets.get("Pet:1") == {"name": "Rex", "owner": {"$reference": "User:1"}}
    assert pets.remove_field("Pet:1", "age") is False
    assert pets.get("Pet:2") == {"name": "Tom"}


def test_the_last_field_takes_the_record(pets: normcache.Cache) -> None:
    assert pets.remove_field("Pet:2", "name") is True
    assert pets.get("Pet:2") is None
    assert pets.search("") == ["Pet:1"]


def test_an_absent_record_or_field_is_false(pets: normcache.Cache) -> None:
    assert pets.remove_field("Pet:3", "name") is False
    assert pets.remove_field("Pet:1", "nam") is False
    assert pets.remove_field("Pet:1", "Name") is False
    assert pets.get("Pet:1") == {"age": 3, "name": "Rex", "owner": {"$reference": "User:1"}}


def test_a_removed_root_entry_misses_at_its_path(cache: normcache.Cache) -> None:
    response = {"data": {"feed": [{"id": "1", "title": "Hi"}], "viewer": {"name": "Ann"}}}
    with cache.prepare("{ feed(first: 10) { id title } viewer { name } }") as op:
        cache.write(op, response)
        assert cache.remove_field("QUERY_ROOT", "feed(first: 10)") is False
        assert cache.remove_field("QUERY_ROOT", "feed(first:10)") is True
        with pytest.raises(normcache.CacheMiss) as miss:
            cache.read(op)
        assert miss.value.paths == [["feed"]]
        assert miss.value.missing == [normcache.Missing(["feed"], "absent", "QUERY_ROOT", "feed(first:10)")]
        with pytest.raises(normcache.CacheMiss) as partial:
            cache.read(op, partial=True)
        assert partial.value.data == {"feed": None, "viewer": {"name": "Ann"}}
        cache.write(op, response)
        assert cache.read(op) == {"feed": [{"id": "1", "title": "Hi"}], "viewer": {"name": "Ann"}}


@pytest.mark.parametrize(
    ("key", "field", "message"),
    [
        ("", "name", "empty record key"),
        ("Pet:1", "", "empty field key"),
        (b"Pet:\xff", "name", "record key is not valid UTF-8"),
        ("Pet:1", b"n\xc3", "field key is not valid UTF-8"),
    ],
)
def test_bad_arguments_are_invalid(pets: normcache.Cache, key: str | bytes, field: str | bytes, message: str) -> None:
    with pytest.raises(normcache.InvalidArgumentError) as failure:
        pets.remove_field(key, field)
    assert failure.value.code == -1
    assert failure.value.message == message
    assert pets.get("Pet:1") == {"age": 3, "name": "Rex", "owner": {"$reference": "User:1"}}


def test_a_field_that_is_not_text_is_a_type_error(pets: normcache.Cache) -> None:
    with pytest.raises(TypeError, match="field must be str or bytes, not int"):
        pets.remove_field("Pet:1", 1)  # type: ignore[arg-type]


def test_read_only_and_closed_handles_refuse(pets: normcache.Cache, cache_path: Path) -> None:
    with normcache.Cache(cache_path, read_only=True) as reader:
        with pytest.raises(normcache.ReadOnlyError):
            reader.remove_field("Pet:1", "name")
        with pytest.raises(normcache.ReadOnlyError):
            reader.remove_field("Pet:9", "name")
    pets.close()
    with pytest.raises(normcache.ClosedError):
        pets.remove_field("Pet:1", "name")
