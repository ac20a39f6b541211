"""KeyGroup: what one key group of a cache file holds (Cache.key_groups)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class KeyGroup:
    """One key group: `group` is a key up to and including its first ":" ("Pet:"), or up
    to a "." that comes first ("QUERY_ROOT"), else the whole key; `records` and `bytes`
    (keys and encoded records, without LMDB's overhead) count it; `oldest_write` and
    `newest_write` are the written-at times, in seconds since 1970, of its oldest and
    newest field."""

    group: str
    records: int
    bytes: int
    oldest_write: int
    newest_write: int

    @classmethod
    def from_json(cls, member: dict[str, Any]) -> KeyGroup:
        """The group of one object of normcache_key_groups' JSON."""
        return cls(
            group=member["group"],
            records=member["records"],
            bytes=member["bytes"],
            oldest_write=member["oldest_write"],
            newest_write=member["newest_write"],
        )
