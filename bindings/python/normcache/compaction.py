"""compact: shrink a cache file in place when no process has it open (normcache_compact)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from ._library import call_with_buffer, lib
from .cache import PathLike


@dataclass(frozen=True)
class CompactionReport:
    """The size in bytes of the cache file before and after compact()."""

    bytes_before: int
    bytes_after: int


def compact(path: PathLike, *, max_readers: int | None = None) -> CompactionReport:
    """Rewrite the cache file at `path` without its free pages, so that it shrinks to the
    records it holds (LMDB never gives pages back: a cleared cache keeps its size until
    compacted). The records, saved rules, retain counts and documents stay as they were.

    Only when no Cache of this process and no other process has the file open: an open
    Cache of this process raises InvalidArgumentError ("'PATH' is open in this process (1
    handle): close it before compacting it"), another process StorageError ("cannot
    compact 'PATH': another process has it open (pid N); ..."); the file is left as it
    was. A process that opens the file meanwhile waits until the compaction ends. To
    compact a cache that is in use, Cache.copy it to a new file instead.

    `max_readers` is the open option of that name (the reader slots of the lock table the
    compaction builds anew; default 126). A missing file raises StorageError, a directory
    InvalidArgumentError, a file that is not a cache (or is truncated) NotACacheError;
    an empty path, one holding a NUL byte or not UTF-8 raise InvalidArgumentError.
    """
    encoded = os.fsencode(path)
    options = json.dumps({"max_readers": max_readers}).encode("utf-8") if max_readers is not None else b""
    _, buffer = call_with_buffer(lib.normcache_compact, encoded, len(encoded), options or None, len(options))
    report = json.loads(buffer)
    return CompactionReport(bytes_before=report["bytes_before"], bytes_after=report["bytes_after"])
