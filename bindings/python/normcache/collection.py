"""Garbage collection's report (Cache.gc), typed."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class GroupRemovals:
    """What a garbage collection removed from one key group ("Book:", "QUERY_ROOT")."""

    #: Records removed whole.
    records: int
    #: Fields removed from records that were reachable (stale or dangling).
    fields: int


@dataclass(frozen=True)
class GCReport:
    """What Cache.gc removed (or, in a dry run, would remove); see normcache_gc."""

    #: Whether nothing was written.
    dry_run: bool
    #: Records removed whole: unreachable_records + emptied_records.
    removed_records: int
    #: Records no root reaches.
    unreachable_records: int
    #: Reachable records every field of which was removed.
    emptied_records: int
    #: Fields removed from reachable records: stale_fields + dangling_fields.
    removed_fields: int
    #: Fields stale beyond the grace period.
    stale_fields: int
    #: Fields that held a reference to an absent record.
    dangling_fields: int
    #: Records left.
    kept_records: int
    #: The removals per key group, groups without removals left out.
    groups: dict[str, GroupRemovals]
    #: The bytes of the mark table.
    mark_set_bytes: int
    #: The time the collection took, in microseconds.
    elapsed_us: int

    @classmethod
    def from_json(cls, text: bytes) -> GCReport:
        """The report normcache_gc handed over as JSON."""
        fields = json.loads(text)
        groups = {name: GroupRemovals(**counts) for name, counts in fields.pop("groups").items()}
        return cls(groups=groups, **fields)
