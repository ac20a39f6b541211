"""stats: the facts a cache reports about itself."""

from __future__ import annotations

from pathlib import Path

import normcache

MIB = 1024 * 1024
FIELDS = {
    "records",
    "bytes_used",
    "data_bytes",
    "log_bytes",
    "max_bytes",
    "map_size",
    "page_size",
    "format_version",
    "library_version",
    "read_only",
    "durability",
    "rules_fingerprint",
    "saved_rules_fingerprint",
    "readers",
    "reader_slots",
    "max_readers",
    "oldest_reader_lag",
}


def _is_int(value: object) -> bool:
    """An integer that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def test_a_fresh_cache(cache: normcache.Cache) -> None:
    stats = cache.stats()
    assert set(stats) == FIELDS
    assert stats["records"] == 0
    assert stats["library_version"] == normcache.version() == "0.1.0"
    assert stats["read_only"] is False
    assert stats["durability"] == "full"
    assert stats["rules_fingerprint"] is None and stats["saved_rules_fingerprint"] is None
    assert stats["map_size"] == 64 * MIB
    assert _is_int(stats["format_version"]) and stats["format_version"] >= 1
    page = stats["page_size"]
    assert _is_int(page) and page >= 512 and page & (page - 1) == 0
    assert _is_int(stats["bytes_used"]) and 0 < stats["bytes_used"] <= stats["map_size"]
    assert stats["bytes_used"] % page == 0
    assert stats["readers"] == 0 and stats["max_readers"] == 126 and stats["oldest_reader_lag"] == 0
    # The slot of the reads before (the open's, the stats' own) is kept for the next read.
    assert stats["reader_slots"] == 1


def test_records_and_bytes_follow_the_data(cache: normcache.Cache) -> None:
    before = cache.stats()["bytes_used"]
    cache.put({f"Pet:{i}": {"name": "x" * 100} for i in range(1000)})
    stats = cache.stats()
    assert stats["records"] == 1000
    assert stats["bytes_used"] >= before + 1000 * 100
    cache.remove_prefix("Pet:1")
    assert cache.stats()["records"] == 1000 - 111
    cache.put({"Pet:0": {"age": 3}})  # a merge into a stored record adds no record
    assert cache.stats()["records"] == 1000 - 111


def test_map_size_option(cache_path: Path) -> None:
    with normcache.Cache(cache_path, map_size=2 * MIB) as cache:
        assert cache.stats()["map_size"] == 2 * MIB


def test_the_map_grows_by_itself(cache_path: Path) -> None:
    with normcache.Cache(cache_path, map_size=MIB) as cache:
        value = "v" * (4 * MIB)
        assert cache.put({"Big:1": {"blob": value}}) == ["Big:1.blob"]
        assert cache.put({f"Small:{i}": {"blob": "s" * 1000} for i in range(3000)})[:1] == ["Small:0.blob"]
        stats = cache.stats()
        assert stats["map_size"] > 4 * MIB
        assert stats["bytes_used"] >= 4 * MIB + 3000 * 1000
        assert stats["bytes_used"] <= stats["map_size"]
        assert cache.get("Big:1") == {"blob": value}
        assert stats["records"] == 3001


def test_read_only_and_durability_are_reported(cache_path: Path) -> None:
    with normcache.Cache(cache_path, durability="fast") as cache:
        assert cache.stats()["durability"] == "fast"
        assert cache.stats()["read_only"] is False
    with normcache.Cache(cache_path, read_only=True) as cache:
        assert cache.stats()["read_only"] is True
        assert cache.stats()["records"] == 0
