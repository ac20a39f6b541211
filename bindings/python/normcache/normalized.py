"""NormalizedRecords: what Cache.normalize returns."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class NormalizedRecords(dict[str, Any]):
    """The records a GraphQL response splits into, {"Article:7": {"title": ...}, ...}, as a
    write of it stores them, with `key_fallbacks`: how many objects of a keyed type were
    keyed by their path for want of their key fields. It compares equal to a plain dict."""

    __slots__ = ("_key_fallbacks",)

    def __init__(self, records: Mapping[str, Any], key_fallbacks: int = 0) -> None:
        """The records `records` and their count of key fallbacks."""
        super().__init__(records)
        self._key_fallbacks = key_fallbacks

    @property
    def key_fallbacks(self) -> int:
        """How many objects of a type a key rule covers were keyed by their path because
        their key fields were absent (or null); what a write of the response counts."""
        return self._key_fallbacks

    def __repr__(self) -> str:
        """NormalizedRecords({...}, key_fallbacks=0)."""
        return f"NormalizedRecords({dict(self)!r}, key_fallbacks={self._key_fallbacks})"

    def __reduce__(self) -> tuple[type[NormalizedRecords], tuple[dict[str, Any], int]]:
        """Pickle the records and `key_fallbacks` together."""
        return type(self), (dict(self), self._key_fallbacks)
