"""Cache.key_groups: each key group's records, bytes and oldest and newest write."""

from __future__ import annotations

import pytest
from conftest import FakeClock

import normcache
from normcache import KeyGroup


def test_groups_are_counted_exactly_and_ordered_by_name(cache: normcache.Cache, clock: FakeClock) -> None:
    assert cache.key_groups() == []
    cache.set_clock(clock)
    cache.put({"Pet:1": {"name": "Rex"}, "QUERY_ROOT": {"pet": {"$reference": "Pet:1"}}})
    first = clock.now
    clock.now += 60
    cache.put({"Pet:2": {"name": "Tom", "age": 3}, "QUERY_ROOT.pets.0": {"x": 1}, 'pl"ain': {"y": '"q"'}})
    assert cache.key_groups() == [
        KeyGroup(group="Pet:", records=2, bytes=74, oldest_write=first, newest_write=first + 60),
        KeyGroup(group="QUERY_ROOT", records=2, bytes=69, oldest_write=first, newest_write=first + 60),
        KeyGroup(group='pl"ain', records=1, bytes=26, oldest_write=first + 60, newest_write=first + 60),
    ]
    cache.remove_prefix("Pet:")
    assert [group.group for group in cache.key_groups()] == ["QUERY_ROOT", 'pl"ain']


def test_a_closed_cache_raises(cache: normcache.Cache) -> None:
    cache.close()
    with pytest.raises(normcache.ClosedError):
        cache.key_groups()
