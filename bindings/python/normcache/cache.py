"""The Cache class: an open normcache cache file."""

from __future__ import annotations

import json
import operator
import os
import threading
from ctypes import byref, c_uint64, c_void_p
from types import TracebackType
from typing import Any, Dict, List, Optional, Type, Union

from ._library import NOTFOUND, call_with_buffer, lib
from .errors import ClosedError

#: A record key or prefix: str (sent as UTF-8) or bytes (sent as they are).
Key = Union[str, bytes]
#: Records to put: a dict, or JSON text as str or bytes.
Records = Union[Dict[str, Any], str, bytes]
#: A cache path.
PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


def _encode_key(value: Key, name: str) -> bytes:
    """`value` as the bytes the library takes; TypeError for anything but str or bytes."""
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, bytes):
        return value
    raise TypeError(f"{name} must be str or bytes, not {type(value).__name__}")


def _encode_records(records: Records) -> bytes:
    """Records as UTF-8 JSON: a dict is serialized, JSON text is passed through untouched."""
    if isinstance(records, dict):
        return json.dumps(records, ensure_ascii=False).encode("utf-8")
    if isinstance(records, str):
        return records.encode("utf-8")
    if isinstance(records, bytes):
        return records
    raise TypeError(f"records must be a dict, str or bytes, not {type(records).__name__}")


class Cache:
    """An open cache file. Threads may share it; close it with close() or a `with` block."""

    def __init__(self, path: PathLike, **options: Any) -> None:
        """Open, and unless read-only create, the cache file at `path`.

        Options become normcache_open's JSON options: durability ("full" or "fast"),
        read_only (bool), map_size (bytes), max_readers (int). Any other keyword is passed
        on too, and the library rejects it with InvalidArgumentError.
        """
        self._handle: Optional[int] = None
        self._lock = threading.Lock()
        encoded_path = os.fsencode(path)
        encoded_options = json.dumps(options).encode("utf-8") if options else b""
        handle = c_void_p()
        lib.normcache_open(
            encoded_path,
            len(encoded_path),
            encoded_options or None,
            len(encoded_options),
            byref(handle),
        )
        self._handle = handle.value

    @property
    def closed(self) -> bool:
        """Whether close() has been called."""
        return self._handle is None

    def _live_handle(self) -> int:
        """The handle; ClosedError after close()."""
        handle = self._handle
        if handle is None:
            raise ClosedError(-1, "the cache is closed")
        return handle

    def put(self, records: Records) -> List[str]:
        """Merge records field by field in one atomic write; return the changed
        "recordKey.fieldKey" strings in input order ([] when nothing changed)."""
        data = _encode_records(records)
        _, buffer = call_with_buffer(lib.normcache_put, self._live_handle(), data, len(data))
        changed: List[str] = json.loads(buffer)
        return changed

    def get(self, key: Key) -> Optional[Dict[str, Any]]:
        """The fields of one record, or None when there is no record with this key."""
        encoded = _encode_key(key, "key")
        status, buffer = call_with_buffer(lib.normcache_get, self._live_handle(), encoded, len(encoded))
        if status == NOTFOUND:
            return None
        record: Dict[str, Any] = json.loads(buffer)
        return record

    def remove(self, key: Key) -> bool:
        """Delete one record; return whether there was one."""
        encoded = _encode_key(key, "key")
        status: int = lib.normcache_remove(self._live_handle(), encoded, len(encoded))
        return status != NOTFOUND

    def remove_prefix(self, prefix: Key) -> int:
        """Delete every record whose key starts with a non-empty `prefix`; return how many."""
        encoded = _encode_key(prefix, "prefix")
        count = c_uint64()
        lib.normcache_remove_prefix(self._live_handle(), encoded, len(encoded), byref(count))
        return count.value

    def search(self, prefix: Key = "", *, after: Optional[Key] = None, limit: Optional[int] = None) -> List[str]:
        """The keys starting with `prefix`, in byte order, strictly after `after` when given,
        at most `limit` of them (None: all; otherwise a positive integer)."""
        count = 0 if limit is None else operator.index(limit)
        if limit is not None and count < 1:
            raise ValueError(f"limit must be a positive integer or None, not {limit!r}")
        encoded_prefix = _encode_key(prefix, "prefix")
        encoded_after = None if after is None else _encode_key(after, "after")
        _, buffer = call_with_buffer(
            lib.normcache_search,
            self._live_handle(),
            encoded_prefix,
            len(encoded_prefix),
            encoded_after,
            0 if encoded_after is None else len(encoded_after),
            count,
        )
        keys: List[str] = json.loads(buffer)
        return keys

    def clear(self) -> None:
        """Delete every record, keeping the file and its format."""
        lib.normcache_clear(self._live_handle())

    def stats(self) -> Dict[str, Any]:
        """Facts about the cache: records, bytes_used, map_size, page_size, format_version,
        library_version, read_only, durability."""
        _, buffer = call_with_buffer(lib.normcache_stats, self._live_handle())
        stats: Dict[str, Any] = json.loads(buffer)
        return stats

    def close(self) -> None:
        """Close the cache, after calls in progress on other threads finish; again does nothing."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            lib.normcache_close(handle)

    def __enter__(self) -> Cache:
        """The cache itself, closed when the block ends."""
        return self

    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        error: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        """Close the cache."""
        self.close()

    def __del__(self) -> None:
        """Close quietly a cache that was not closed."""
        if getattr(self, "_handle", None) is None:
            return
        try:
            self.close()
        except Exception:  # noqa: BLE001 - a finalizer must not raise
            pass
