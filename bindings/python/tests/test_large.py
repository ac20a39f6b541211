"""Large legitimate input: long keys, long field names, a 50 MB value, a million records."""

from __future__ import annotations

import pytest
from conftest import stored

import normcache

LONG = "Long:" + "k" * 9995  # 10,000 bytes


def test_a_10000_byte_key(cache: normcache.Cache) -> None:
    assert len(LONG.encode()) == 10_000
    assert cache.put({LONG: {"f": 1}, "Long:z": {"f": 2}, "Lonh:1": {"f": 3}}) == [f"{LONG}.f", "Long:z.f", "Lonh:1.f"]
    assert cache.get(LONG) == {"f": 1}
    assert cache.get(LONG[:-1]) is None
    assert cache.get(LONG + "k") is None
    assert cache.search("Long:") == [LONG, "Long:z"]
    assert cache.search(LONG[:600]) == [LONG]
    assert cache.search(LONG[:5000]) == [LONG]
    assert cache.search(LONG) == [LONG]
    assert cache.search("Long:", after=LONG) == ["Long:z"]
    assert cache.search("Long:", limit=1) == [LONG]
    assert cache.put({LONG: {"f": 1}}) == []
    assert cache.put({LONG: {"g": [{"$reference": LONG}]}}) == [f"{LONG}.g"]
    assert cache.get(LONG) == {"f": 1, "g": [{"$reference": LONG}]}
    assert cache.remove(LONG) is True
    assert cache.get(LONG) is None
    assert cache.remove(LONG) is False
    assert cache.search("Long:") == ["Long:z"]


def test_long_keys_that_differ_only_at_the_end(cache: normcache.Cache) -> None:
    stem = "Long:" + "x" * 9994
    first, second, third = stem + "a", stem + "b", stem + "ab"
    cache.put({second: {"n": 2}, third: {"n": 3}, first: {"n": 1}})
    assert cache.get(first) == {"n": 1}
    assert cache.get(second) == {"n": 2}
    assert cache.get(third) == {"n": 3}
    assert cache.search(stem) == [first, third, second]
    assert cache.search(stem, after=first, limit=1) == [third]
    assert cache.search(stem + "a") == [first, third]
    assert cache.remove(first) is True
    assert cache.get(third) == {"n": 3}
    assert cache.remove_prefix(stem) == 2
    assert cache.search("") == []


@pytest.mark.parametrize("length", [509, 510, 511, 512, 513, 1024])
def test_keys_around_the_lmdb_key_limit(cache: normcache.Cache, length: int) -> None:
    stem = "K:" + "y" * (length - 3)
    keys = [stem + c for c in "bac"]
    assert all(len(key.encode()) == length for key in keys)
    cache.put({key: {"k": key[-1]} for key in keys})
    assert cache.search("K:") == sorted(keys)
    for key in keys:
        assert cache.get(key) == {"k": key[-1]}
    assert cache.remove_prefix(stem) == 3


def test_a_long_multibyte_key(cache: normcache.Cache) -> None:
    key = "Ключ:" + "日本" * 2000  # 12,009 bytes
    cache.put({key: {"x": 1}})
    assert cache.get(key) == {"x": 1}
    assert cache.search("Ключ:" + "日本" * 300) == [key]
    assert cache.remove_prefix("Ключ:") == 1


def test_a_10000_byte_field_name(cache: normcache.Cache) -> None:
    field = "f" * 10_000
    assert cache.put({"A:1": {field: 1, "short": 2}}) == [f"A:1.{field}", "A:1.short"]
    assert cache.get("A:1") == {field: 1, "short": 2}
    assert cache.put({"A:1": {field: 3}}) == [f"A:1.{field}"]
    assert cache.get("A:1") == {field: 3, "short": 2}


def test_a_50_mb_value(cache: normcache.Cache) -> None:
    value = "".join(chr(0x20 + i % 90) for i in range(1000)).replace('"', "'").replace("\\", "/") * 50_000
    assert len(value) == 50_000_000
    assert cache.put({"Big:1": {"blob": value, "small": 1}}) == ["Big:1.blob", "Big:1.small"]
    assert cache.get("Big:1") == {"blob": value, "small": 1}
    assert cache.put({"Big:1": {"blob": value}}) == []
    assert cache.put({"Big:1": {"small": 2}}) == ["Big:1.small"]
    assert stored(cache, "Big:1")["blob"] == value
    assert cache.stats()["bytes_used"] >= 50_000_000


def test_a_list_of_a_million_numbers(cache: normcache.Cache) -> None:
    value = list(range(1_000_000))
    assert cache.put({"Big:2": {"list": value}}) == ["Big:2.list"]
    assert cache.get("Big:2") == {"list": value}


def test_a_million_small_records_in_one_put(cache: normcache.Cache) -> None:
    count = 1_000_000
    records = {f"R:{i:07d}": {"v": i} for i in range(count)}
    changed = cache.put(records)
    assert len(changed) == count
    assert changed == [f"R:{i:07d}.v" for i in range(count)]
    del records, changed
    assert cache.stats()["records"] == count
    assert cache.get("R:0000000") == {"v": 0}
    assert cache.get("R:0500000") == {"v": 500_000}
    assert cache.get("R:0999999") == {"v": 999_999}
    assert cache.search("R:", limit=3) == ["R:0000000", "R:0000001", "R:0000002"]
    assert cache.search("R:099999") == [f"R:099999{d}" for d in range(10)]
    assert cache.search("R:", after="R:0999997") == ["R:0999998", "R:0999999"]
    assert cache.remove_prefix("R:05") == 100_000
    assert cache.stats()["records"] == count - 100_000
