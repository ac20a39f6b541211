"""What freshness adds to reads and writes: the result of Cache.read_result, the entries of
what a read missed or returned stale, and the result of Cache.write.

Every field the cache stores carries the time it was written and may carry the time it
expires (from max-age rules, a write's max_age or the response's caching headers, or
Cache.invalidate). A read judges each field it uses: a stale field is a miss, unless the
read allows max_stale seconds of staleness. Times are seconds since 1970 by the cache's
clock (the system's, or one a test sets with Cache.set_clock).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar, Union

#: A response path: response keys (str) and list indexes (int), from the data root.
ResponsePath = list[Union[str, int]]
#: What a read answered: "complete" (all the data, all fresh), "stale" (all the data, some
#: of it stale within the read's max_stale) or "miss" (something absent or too stale).
ReadStatus = Literal["complete", "stale", "miss"]
#: Why a part of the data was missed or returned stale: "absent" (not in the cache),
#: "stale" (past its expiry) or "invalidated" (marked by Cache.invalidate).
Reason = Literal["absent", "stale", "invalidated"]


_Report = TypeVar("_Report", bound="FieldReport")
_Result = TypeVar("_Result", bound="ReadResult")


@dataclass(frozen=True)
class FieldReport:
    """One part of the data a read reports (the base of Missing and Stale).

    `path` is the response path (["feed", 0, "title"]; a missing record at the path of the
    reference to it), `record` the record the read looked in (for an absent record, its
    key) and `field` the storage key of the field it looked for ("feed(first:3)"; None for
    an absent record). A stale or invalidated field also gives when it was written and
    when it expired (`written_at`, `expired_at`, seconds since 1970); otherwise None.
    """

    path: ResponsePath
    reason: Reason
    record: str
    field: str | None = None
    written_at: int | None = None
    expired_at: int | None = None

    @classmethod
    def _from_json(cls: type[_Report], entry: dict[str, Any]) -> _Report:
        """An entry of the library's "missing" or "stale" list."""
        return cls(
            path=entry["path"],
            reason=entry["reason"],
            record=entry["record"],
            field=entry.get("field"),
            written_at=entry.get("writtenAt"),
            expired_at=entry.get("expiredAt"),
        )

    def __str__(self) -> str:
        """The dotted path ("data" for the root) and the reason: "feed.0.title (stale)"."""
        dotted = ".".join(str(segment) for segment in self.path) or "data"
        return f"{dotted} ({self.reason})"


@dataclass(frozen=True)
class Missing(FieldReport):
    """A part of the data a read did not return: absent from the cache, or too stale
    (reason "stale" or "invalidated", with `written_at` and `expired_at`)."""


@dataclass(frozen=True)
class Stale(FieldReport):
    """A stale field a read returned because its max_stale allowed it: reason "stale" or
    "invalidated", always with `written_at` and `expired_at`."""


def missing_from_json(entries: Iterable[dict[str, Any]]) -> list[Missing]:
    """The library's "missing" entries as Missing objects, in the library's order."""
    return [Missing._from_json(entry) for entry in entries]


@dataclass(frozen=True)
class ReadResult:
    """Everything a read found, from Cache.read_result (or get_document); a miss is an
    answer here, never an exception.

    `data` is the data (None on a miss, unless the read was partial: then the data with
    the missing parts null): a dict for an operation or a fragment, the document's value
    (any JSON value: a dict, a list, a str, a number, True, False or None) for
    get_document; `missing` what the cache lacks or holds too stale; `stale`
    the stale fields returned within max_stale; `oldest_written_at` when the oldest field
    the read used was written ("updated 12 minutes ago") and `earliest_expiry` the
    earliest time one of them expires or expired (when to refresh), None when the read
    used no field or no field it used ever expires. Times are seconds since 1970.
    """

    status: ReadStatus
    data: Any
    missing: list[Missing]
    stale: list[Stale]
    oldest_written_at: int | None
    earliest_expiry: int | None
    #: The entity-tag behind `etag` (not a field: not compared, not in the repr).
    _etag: ClassVar[str | None] = None

    @classmethod
    def _from_json(cls: type[_Result], status: ReadStatus, answer: dict[str, Any], **more: Any) -> _Result:
        """The result of normcache_read_ex's object (or the read members of another's, with
        the members a subclass adds in `more`), with the status it returned."""
        result = cls(
            status=status,
            data=answer["data"],
            missing=missing_from_json(answer["missing"]),
            stale=[Stale._from_json(entry) for entry in answer["stale"]],
            oldest_written_at=answer["oldestWrittenAt"],
            earliest_expiry=answer["earliestExpiry"],
            **more,
        )
        etag = answer.get("etag")
        if etag is not None:
            object.__setattr__(result, "_etag", etag)
        return result

    @property
    def etag(self) -> str | None:
        """The entity-tag a document was stored with (its response's ETag header), to
        revalidate it with If-None-Match (see Cache.refresh_document), from get_document
        and execute_document; None for a document without one and for every other read.
        Not compared and not in the repr, as it is a validator rather than data."""
        return self._etag

    @property
    def is_complete(self) -> bool:
        """Whether the read returned all the data, all of it fresh."""
        return self.status == "complete"

    @property
    def is_stale(self) -> bool:
        """Whether the read returned all the data, some of it stale (listed in `stale`)."""
        return self.status == "stale"

    @property
    def is_miss(self) -> bool:
        """Whether something was absent or too stale (listed in `missing`)."""
        return self.status == "miss"

    def age(self, now: int) -> int | None:
        """Seconds from when the oldest field the read used was written to `now` (a time
        of the cache's clock), or None when the read used no field."""
        return None if self.oldest_written_at is None else now - self.oldest_written_at


class WriteResult(list[str]):
    """What Cache.write, put and write_fragment return: the list of the changed
    "recordKey.fieldKey" strings, as before, with `stored` False when the response said
    Cache-Control: no-store and the cache stored nothing (the list is then empty), and
    `key_fallbacks`, the number of objects of a keyed type keyed by their path for want of
    their key fields. It compares equal to a plain list."""

    __slots__ = ("_key_fallbacks", "_stored")

    def __init__(self, changed: Iterable[str] = (), stored: bool = True, key_fallbacks: int = 0) -> None:
        """The changed keys `changed`, whether the response was stored, and the key fallbacks."""
        super().__init__(changed)
        self._stored = stored
        self._key_fallbacks = key_fallbacks

    @property
    def stored(self) -> bool:
        """Whether the write stored the response (False: Cache-Control: no-store)."""
        return self._stored

    @property
    def key_fallbacks(self) -> int:
        """How many objects of a type a key rule covers were keyed by their path because
        their key fields were absent (or null); 0 for put and when nothing was stored.
        strict_keys=True makes such an object raise DataError instead."""
        return self._key_fallbacks

    def __repr__(self) -> str:
        """WriteResult(['A:1.x'], stored=True, key_fallbacks=0)."""
        return f"WriteResult({list(self)!r}, stored={self._stored}, key_fallbacks={self._key_fallbacks})"

    def __reduce__(self) -> tuple[type[WriteResult], tuple[list[str], bool, int]]:
        """Pickle the keys, `stored` and `key_fallbacks` together."""
        return type(self), (list(self), self._stored, self._key_fallbacks)
