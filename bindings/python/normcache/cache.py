"""The Cache class: an open normcache cache file.

Arguments go in the same order in this binding and the C++ one (bindings/cpp/normcache.hpp):
the operation, then the response (or key and data), then the variables, which are optional
and so come last — write(op, response, variables), normalize(op, response, variables),
read(op, variables), write_fragment(fragment, key, data, variables),
read_fragment(fragment, key, variables). The C functions take the variables before the
response; the bindings put what every call needs first.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import operator
import os
import threading
from collections.abc import AsyncIterator, Iterator, Mapping
from ctypes import byref, c_size_t, c_uint32, c_uint64
from typing import Any, Literal, Optional, Union

from ._library import (
    EINVAL,
    GC_DANGLING,
    GC_DRY_RUN,
    INVALIDATE_PREFIX,
    MAX_AGE_LIMIT,
    MISS,
    NOTFOUND,
    NOTSTORED,
    READ_IGNORE_FRESHNESS,
    READ_PARTIAL,
    WRITE_STRICT_KEYS,
    CacheHandle,
    GCOptions,
    OperationHandle,
    ReadOptions,
    call_with_buffer,
    lib,
)
from ._options import (
    ErrorPolicy,
    Headers,
    Policy,
    counted_write_options,
    execute_options,
    max_stale_seconds,
    seconds,
    write_options,
)
from .clock import Clock, ClockSlot, set_clock
from .collection import GCReport
from .errors import CacheMiss, InvalidArgumentError
from .fetching import READ_STATUSES, AsyncExecution, AsyncFetch, Execution, ExecutionResult, Fetch, OnResult
from .freshness import ReadResult, WriteResult, missing_from_json
from .key_groups import KeyGroup
from .managed import ManagedHandle, raises_closed_error
from .normalized import NormalizedRecords
from .operation import Operation
from .resolver import KeyResolver, set_key_resolver
from .watching import (
    CommitChanges,
    Dispatcher,
    HandleMetrics,
    Watch,
    WatchCallback,
    afollow,
    changes_since,
    dispatch_changes,
    follow,
    last_commit,
    wait_commit,
)

#: A record key or prefix: str (sent as UTF-8) or bytes (sent as they are).
Key = Union[str, bytes]
#: Records to put: a dict, or JSON text as str or bytes.
Records = Union[dict[str, Any], str, bytes]
#: A GraphQL response ({"data": ..., "errors": ...}) or a configuration: a dict, or JSON text
#: as str or bytes.
JSONInput = Union[dict[str, Any], str, bytes]
#: The variables of an operation: a dict (or any mapping) of JSON values, or None.
Variables = Optional[Mapping[str, Any]]
#: A cache path.
PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
#: The durability of commits: "full" (the default: every committed write survives a power
#: cut) or "fast" (a system crash may lose the last commits, never corrupt the cache).
Durability = Literal["full", "fast"]
#: What a cache does with the rules saved in its file (see Cache.save_rules): "saved" (the
#: default: they become the cache's rules), "own" (it starts with none, as if none were
#: saved; this opens a file whose saved rules are damaged, to clear or replace them) or
#: "strict" (as "saved", and prepare and every write raise InvalidArgumentError while the
#: cache's rules differ from the file's).
RulesMode = Literal["saved", "own", "strict"]

#: The formats of import_records and export_records: Apollo Client's cache.extract() JSON,
#: Apollo iOS's SQLite rows as JSON.
InterchangeFormat = Literal["apollo-client", "apollo-ios"]
_INTERCHANGE_FORMATS: dict[str, int] = {"apollo-client": 1, "apollo-ios": 2}

#: How the envelope of normcache_get_document's object goes on after the document.
_AFTER_DOCUMENT = b',"missing":'


def _encode_key(value: Key, name: str) -> bytes:
    """`value` as the bytes the library takes; TypeError for anything but str or bytes."""
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, bytes):
        return value
    raise TypeError(f"{name} must be str or bytes, not {type(value).__name__}")


def _encode_json(value: JSONInput, name: str) -> bytes:
    """`value` as UTF-8 JSON: a dict is serialized, JSON text is passed through untouched."""
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False).encode("utf-8")
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, bytes):
        return value
    raise TypeError(f"{name} must be a dict, str or bytes, not {type(value).__name__}")


def _changed_fields(buffer: bytes) -> list[str]:
    """The changed "recordKey.fieldKey" names from the compact JSON array a write hands
    over. A large write changes a hundred thousand fields: when no name holds an escape
    (no backslash in the array, so no quote inside a name either), the array is split at
    its `","` separators, several times faster than parsing it."""
    if buffer == b"[]":
        return []
    if b"\\" not in buffer:
        return buffer[2:-2].decode().split('","')
    names: list[str] = json.loads(buffer)
    return names


def _encode_records(records: Records) -> bytes:
    """Records as UTF-8 JSON: a dict is serialized, JSON text is passed through untouched."""
    return _encode_json(records, "records")


def _encode_variables(variables: Variables) -> tuple[bytes | None, int]:
    """Variables as the (pointer, length) pair the library takes: (None, 0) for None."""
    if variables is None:
        return None, 0
    if not isinstance(variables, Mapping):
        raise TypeError(f"variables must be a dict or None, not {type(variables).__name__}")
    encoded = json.dumps(dict(variables), ensure_ascii=False).encode("utf-8")
    return encoded, len(encoded)


def _encode_document(value: object) -> bytes:
    """A document as UTF-8 JSON: str and bytes are JSON text, kept as written; any other
    value is serialized (TypeError for a value json.dumps cannot serialize)."""
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


#: What Cache.refresh_document did: "refreshed", "absent" (no such document) or
#: "not_stored" (Cache-Control: no-store).
DocumentRefresh = Literal["refreshed", "absent", "not_stored"]


def _document_text(answer: bytes) -> str:
    """The document's text in normcache_get_document's object, exactly as it was written:
    the object is {"data":<the text>,"missing":[...],...}, and the last ',"missing":' in
    it is the envelope's, as the quotes of the strings after it are escaped."""
    end = answer.rindex(_AFTER_DOCUMENT)
    return answer[len(b'{"data":') : end].decode("utf-8")


def _operation_handle(op: Operation) -> OperationHandle:
    """The handle of a live operation; TypeError for anything else, ClosedError after close()."""
    if not isinstance(op, Operation):
        raise TypeError(f"op must be an Operation from Cache.prepare, not {type(op).__name__}")
    return op._live_handle()


class Cache(ManagedHandle[CacheHandle]):
    """An open cache file. Threads may share it; close it with close() or a `with` block.
    After close() every method raises ClosedError, also on threads whose call was under
    way when the cache was closed."""

    kind = "cache"

    def __init__(
        self,
        path: PathLike,
        *,
        schema: str | bytes | None = None,
        config: JSONInput | None = None,
        durability: Durability | None = None,
        read_only: bool = False,
        map_size: int | None = None,
        max_readers: int | None = None,
        rules: RulesMode | None = None,
        mode: int | None = None,
        max_document_bytes: int | None = None,
        max_document_tokens: int | None = None,
        max_bytes: int | None = None,
        low_water: float | None = None,
    ) -> None:
        """Open, and unless read-only create, the cache file at `path` (its directory must
        exist; the lock file `<path>-lock` is made beside it).

        `schema` (SDL) is loaded with load_schema and `config` (key rules) applied with
        configure right after opening (replacing rules saved in the file, see save_rules);
        if either fails, the cache is closed again. The
        options are normcache_open's; None (or False) leaves the library's default:

        - durability: "full" (default; every committed write survives a power cut) or
          "fast" (a system crash may lose the last committed writes, never corrupts).
        - read_only: open for reading only; the file must exist, writes raise ReadOnlyError.
        - map_size: the initial size of the memory map in bytes (default 64 MiB, at least
          1 MiB); the map grows by itself when it fills.
        - max_readers: the reader slots of the lock file (default 126, 1..65535); only the
          first process to open the file sets it.
        - rules: what to do with the rules saved in the file (see RulesMode and
          save_rules); "saved" by default. Saved rules that are damaged or no longer load
          raise NotACacheError unless it is "own".
        - mode: the permission bits of the cache and lock files when this open creates
          them, less the umask (as os.open's): default 0o600, owner only; 0o660 shares the
          cache with a group (every reader must be able to write the lock file). Bits
          outside 0o777 raise InvalidArgumentError.
        - max_document_bytes, max_document_tokens: the largest GraphQL document prepare
          takes (defaults 4 MiB and 500,000 tokens, at least 1); a larger one raises
          DocumentError naming the limit, the figure and the option, before it is parsed
          (bytes) or as the first token past the limit is read (tokens).
        - max_bytes: a limit on the data (stats()["data_bytes"]: the pages the records
          hold, not the file's size; at least 65536). A write of this handle that leaves
          more evicts the least recently written records, whole, down to low_water
          times max_bytes in its own transaction; the roots (QUERY_ROOT, MUTATION_ROOT,
          SUBSCRIPTION_ROOT) and the records the write changed stay, and a write still
          over the limit raises StorageError and writes nothing. Each handle enforces its
          own limit. See trim.
        - low_water: the fraction of max_bytes an eviction brings the data down to
          (default 0.8; greater than 0, at most 1).

        A value of the wrong type or out of range raises InvalidArgumentError, and nothing
        is created.
        """
        super().__init__(None, lib.normcache_close)
        self._clock: ClockSlot | None = None
        self._clock_lock = threading.Lock()
        #: Per thread, the handle its open transaction was begun on: commit() and
        #: rollback() reach the library through it even while close() on another thread
        #: (which waits for the transaction) has taken the handle away.
        self._transaction = threading.local()
        encoded_path = os.fsencode(path)
        self._path = os.fsdecode(encoded_path)
        self._read_only = read_only is True
        given: dict[str, object] = {
            "durability": durability,
            "map_size": map_size,
            "max_readers": max_readers,
            "rules": rules,
            "mode": mode,
            "max_document_bytes": max_document_bytes,
            "max_document_tokens": max_document_tokens,
            "max_bytes": max_bytes,
            "low_water": low_water,
        }
        options = {name: value for name, value in given.items() if value is not None}
        if read_only is not False:
            options["read_only"] = read_only
        encoded_options = json.dumps(options).encode("utf-8") if options else b""
        handle = CacheHandle()
        lib.normcache_open(
            encoded_path,
            len(encoded_path),
            encoded_options or None,
            len(encoded_options),
            byref(handle),
        )
        self._handle = handle
        try:
            if schema is not None:
                self.load_schema(schema)
            if config is not None:
                self.configure(config)
        except BaseException:
            self.close()
            raise

    @property
    def path(self) -> str:
        """The path the cache was opened with, as text (undecodable bytes as surrogates)."""
        return self._path

    @property
    def read_only(self) -> bool:
        """Whether the cache was opened read-only."""
        return self._read_only

    def close(self) -> None:
        """Close the cache (the library waits for calls in progress) and release the clock
        set with set_clock; again does nothing."""
        super().close()
        with self._clock_lock:
            self._clock = None

    @raises_closed_error
    def interrupt(self) -> None:
        """Stop the calls running on this cache, from any thread, as sqlite3's
        Connection.interrupt(): each raises Interrupted at its next check (every few hundred
        tokens of a document, objects of a response or a read, records of a put, and before
        a write commits) and changes nothing. Interruptible: prepare, put, write,
        write_fragment, read, read_fragment, read_result, execute, put_document,
        execute_document. Calls that start while stopped calls still run are stopped too;
        once none runs the interrupt is over, so calling this while nothing runs does
        nothing. A Python signal handler runs only between calls, so Ctrl-C reaches a
        long call through a thread that calls this (see the README, "Interrupting")."""
        lib.normcache_interrupt(self._live_handle())

    @raises_closed_error
    def begin(self) -> None:
        """Begin a write transaction for the calling thread (normcache_begin): until
        commit() or rollback() on this thread, every call of this thread on this cache runs
        inside it — writes, puts, removes, document writes, and reads, which see its own
        writes — and nothing of it is visible to other threads or processes. It holds the
        file's single writer lock: every other writer, in every process, waits until it
        ends; readers never wait. A call that fails inside fails alone; the earlier ones
        stay. Raises InvalidArgumentError when this thread already has a transaction open
        (they do not nest), ReadOnlyError on a read-only cache. Prefer transaction()."""
        handle = self._live_handle()
        lib.normcache_begin(handle)
        self._transaction.handle = handle

    @raises_closed_error
    def commit(self) -> None:
        """Commit the calling thread's transaction, as durably as a single write; it has
        ended whether this returns or raises. InvalidArgumentError when this thread has
        none open on this cache."""
        lib.normcache_commit(self._transaction_handle())

    @raises_closed_error
    def rollback(self) -> None:
        """Drop everything the calling thread's transaction wrote, and end it.
        InvalidArgumentError when this thread has none open on this cache."""
        lib.normcache_rollback(self._transaction_handle())

    def _transaction_handle(self) -> CacheHandle:
        """The handle this thread's transaction was begun on (taken: it ends now), else the
        live handle."""
        handle: CacheHandle | None = getattr(self._transaction, "handle", None)
        self._transaction.handle = None
        return handle if handle is not None else self._live_handle()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Cache]:
        """A write transaction as a with block: `with cache.transaction(): ...` begins
        one (see begin()), commits it when the block ends normally, and rolls it back
        when the block raises, re-raising the exception. Closing the cache inside the block
        rolls the transaction back; the block's normal end then raises ClosedError, as
        nothing was committed."""
        self.begin()
        try:
            yield self
        except BaseException:
            if not self.closed:
                self.rollback()
            raise
        self.commit()

    def __repr__(self) -> str:
        """<normcache.Cache '/data/app.cache' open>, with ", read-only" when it is."""
        state = "closed" if self.closed else "open"
        mode = ", read-only" if self._read_only else ""
        return f"<normcache.Cache {self._path!r} {state}{mode}>"

    @raises_closed_error
    def put(self, records: Records, *, max_age: int | None = None, headers: Headers | None = None) -> WriteResult:
        """Merge records field by field in one atomic write; return the changed
        "recordKey.fieldKey" strings in input order ([] when nothing changed) as a
        WriteResult, a list whose `stored` is False when `headers` said Cache-Control:
        no-store (nothing is then parsed or written).

        The fields given get the time of the write and, with `max_age` or the response's
        caching `headers`, the expiry write() would give them; the records' other fields
        keep their times. A max_age out of range or a malformed Cache-Control, Age or Date
        value raises InvalidArgumentError, and nothing is written.
        """
        data = _encode_records(records)
        return self._write_counted(
            lib.normcache_put_ex, (self._live_handle(), data, len(data)), True, max_age, headers, False
        )

    @raises_closed_error
    def import_records(self, format: InterchangeFormat, data: bytes) -> list[str]:
        """Merge the records of an Apollo cache, `data` in `format` ("apollo-client": the
        JSON of cache.extract(); "apollo-ios": a JSON object of record key to record text,
        the rows of Apollo iOS's SQLite `records` table), in one atomic write; return the
        changed "recordKey.fieldKey" strings. Malformed data, or a reference to a record
        that `data` does not hold, raises (JSONError, DataError) and writes nothing. The
        functions of normcache.apollo read the files."""
        code = _INTERCHANGE_FORMATS.get(format)
        if code is None:
            raise InvalidArgumentError(-1, f"unknown format {format!r} (apollo-client or apollo-ios)")
        _, buffer = call_with_buffer(lib.normcache_import, self._live_handle(), code, data, len(data))
        return _changed_fields(buffer)

    @raises_closed_error
    def export_records(self, format: InterchangeFormat) -> bytes:
        """Every record of the cache, as of one moment, as the JSON of `format` (see
        import_records). Apollo Client's argument JSON types each value as the cache's schema
        does (an ID "1000" stays a string); without a schema, values that read as numbers,
        booleans or null are written as those literals."""
        code = _INTERCHANGE_FORMATS.get(format)
        if code is None:
            raise InvalidArgumentError(-1, f"unknown format {format!r} (apollo-client or apollo-ios)")
        _, buffer = call_with_buffer(lib.normcache_export, self._live_handle(), code)
        return buffer

    @raises_closed_error
    def get(self, key: Key) -> dict[str, Any] | None:
        """The fields of one record, or None when there is no record with this key."""
        encoded = _encode_key(key, "key")
        status, buffer = call_with_buffer(lib.normcache_get, self._live_handle(), encoded, len(encoded))
        if status == NOTFOUND:
            return None
        record: dict[str, Any] = json.loads(buffer)
        return record

    @raises_closed_error
    def remove(self, key: Key) -> bool:
        """Delete one record; return whether there was one."""
        encoded = _encode_key(key, "key")
        status: int = lib.normcache_remove(self._live_handle(), encoded, len(encoded))
        return status != NOTFOUND

    @raises_closed_error
    def remove_field(self, key: Key, field: Key) -> bool:
        """Delete one field of one record, so that the next read of it misses; return whether
        it was there (False when the record or the field is absent). `field` is the storage
        key as stored, byte for byte: "feed(first:10)" of "QUERY_ROOT". A record left without
        fields is deleted."""
        encoded_key = _encode_key(key, "key")
        encoded_field = _encode_key(field, "field")
        status: int = lib.normcache_remove_field(
            self._live_handle(), encoded_key, len(encoded_key), encoded_field, len(encoded_field)
        )
        return status != NOTFOUND

    @raises_closed_error
    def remove_prefix(self, prefix: Key) -> int:
        """Delete every record whose key starts with a non-empty `prefix`; return how many."""
        encoded = _encode_key(prefix, "prefix")
        count = c_uint64()
        lib.normcache_remove_prefix(self._live_handle(), encoded, len(encoded), byref(count))
        return count.value

    @raises_closed_error
    def gc(self, *, dry_run: bool = False, stale_grace: int | None = None, dangling: bool = False) -> GCReport:
        """Remove the records no root reaches (QUERY_ROOT, MUTATION_ROOT, SUBSCRIPTION_ROOT,
        every document, every retained key) in one write transaction: readers never wait,
        writers wait until it commits. `stale_grace` (seconds; None: keep stale fields)
        also removes the fields whose stored expiry is at least that long past, `dangling`
        the fields holding a reference to an absent record (a list holding one goes
        whole); records left without fields go too. `dry_run` writes nothing. Returns what
        was removed, per key group."""
        if stale_grace is not None and (isinstance(stale_grace, bool) or stale_grace < 0):
            raise InvalidArgumentError(
                EINVAL, f"stale_grace is {stale_grace!r}: seconds (0 or more), or None to keep stale fields"
            )
        flags = (GC_DRY_RUN if dry_run else 0) | (GC_DANGLING if dangling else 0)
        options = GCOptions(flags, -1 if stale_grace is None else stale_grace)
        _, buffer = call_with_buffer(lib.normcache_gc, self._live_handle(), byref(options))
        return GCReport.from_json(buffer)

    @raises_closed_error
    def retain(self, key: Key) -> int:
        """Retain the record key `key`: until released as often, gc keeps it and what it
        refers to. The count is kept in the file, shared by every process; returns it."""
        return self._count(lib.normcache_retain, key)

    @raises_closed_error
    def release(self, key: Key) -> int:
        """Release a retained key once; return the count left. A key not retained raises
        InvalidArgumentError ("'KEY' is not retained"): a count never goes below zero."""
        return self._count(lib.normcache_release, key)

    @contextlib.contextmanager
    def retained(self, key: Key) -> Iterator[int]:
        """Retain `key` for the block (yielding the count), and release it at its end."""
        count = self.retain(key)
        try:
            yield count
        finally:
            self.release(key)

    def _count(self, function: Any, key: Key) -> int:
        """normcache_retain or normcache_release of `key`; the count it answers."""
        encoded = _encode_key(key, "key")
        count = c_uint32()
        function(self._live_handle(), encoded, len(encoded), byref(count))
        return count.value

    @raises_closed_error
    def search(self, prefix: Key = "", *, after: Key | None = None, limit: int | None = None) -> list[str]:
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
        keys: list[str] = json.loads(buffer)
        return keys

    def records(self, prefix: Key = "", *, page_size: int = 1000) -> Iterator[tuple[str, dict[str, Any]]]:
        """The records of a key group, as (key, fields) pairs in the byte order of their keys:
        every record whose key starts with `prefix` ("Article:"; "" for all). The keys are
        listed `page_size` at a time (search with `after`), so a large group is never held
        whole; a stored document comes as its record ({"$document": ...}).

        The iteration is not a snapshot: each page of keys is listed when the iteration
        reaches it and each record is read when it is yielded. A record written meanwhile
        is yielded if its key sorts after the last key yielded, not otherwise; a listed
        record removed before its turn is skipped; a record changed before its turn comes
        as changed. No key comes twice. A prefix that is neither str nor bytes, a bad
        page_size or a closed cache raises here, not at the first step."""
        size = operator.index(page_size)
        if size < 1:
            raise ValueError(f"page_size must be a positive integer, not {page_size!r}")
        encoded = _encode_key(prefix, "prefix")
        self._live_handle()
        return self._record_pages(encoded, size)

    def _record_pages(self, prefix: bytes, page_size: int) -> Iterator[tuple[str, dict[str, Any]]]:
        """The iteration of records(): a page of keys after the last one, then each record."""
        after: str | None = None
        while True:
            keys = self.search(prefix, after=after, limit=page_size)
            for key in keys:
                record = self.get(key)
                if record is not None:
                    yield key, record
            if len(keys) < page_size:
                return
            after = keys[-1]

    @raises_closed_error
    def clear(self) -> None:
        """Delete every record, keeping the file and its format."""
        lib.normcache_clear(self._live_handle())

    @raises_closed_error
    def stats(self) -> dict[str, Any]:
        """Facts about the cache: records, bytes_used, data_bytes (what max_bytes bounds),
        log_bytes (the commit log's pages), max_bytes (this handle's limit, 0 for none),
        map_size, page_size, format_version,
        library_version, read_only, durability, rules_fingerprint and
        saved_rules_fingerprint: 16 hexadecimal digits for the rules of this cache handle
        and of its file (None: no rules), which differ when this handle keys records
        otherwise than the file's rules say, and readers (reads in progress in every
        process), reader_slots (the reader slots taken: those reads, and up to two a
        process keeps between its reads), max_readers and oldest_reader_lag (commits the
        oldest snapshot still read is behind the newest; see normcache_stats)."""
        _, buffer = call_with_buffer(lib.normcache_stats, self._live_handle())
        stats: dict[str, Any] = json.loads(buffer)
        return stats

    @raises_closed_error
    def key_groups(self) -> list[KeyGroup]:
        """What each key group of the file holds (records, bytes, oldest and newest write),
        ordered by group name; counted in one read that visits every record, so call it on
        request (see normcache_key_groups)."""
        _, buffer = call_with_buffer(lib.normcache_key_groups, self._live_handle())
        return [KeyGroup.from_json(member) for member in json.loads(buffer)]

    @raises_closed_error
    def copy(self, path: PathLike) -> None:
        """Write a compacted, consistent copy of the cache to the new file `path` (a
        backup, as SQLite's VACUUM INTO): the records as of one moment, while other threads
        and processes go on writing. The file gets this cache file's permission bits (less
        the umask) and is synced to disk; open it as any cache. A path that exists raises
        InvalidArgumentError and is left untouched; an empty path, one holding a NUL byte or
        not UTF-8 raise InvalidArgumentError; a directory that is missing or cannot be
        written raises StorageError with the system's reason. Works read-only."""
        encoded = os.fsencode(path)
        lib.normcache_copy(self._live_handle(), encoded, len(encoded))

    @raises_closed_error
    def trim(self, max_bytes: int) -> dict[str, Any]:
        """Evict the least recently written records, whole, until the data
        (stats()["data_bytes"]) is at most `max_bytes` or only the roots are left, in one
        atomic write; 0 evicts every record but QUERY_ROOT, MUTATION_ROOT and
        SUBSCRIPTION_ROOT. Returns normcache_trim's report: {"records": evicted,
        "bytes": their bytes, "data_bytes_before": ..., "data_bytes_after": ...,
        "groups": {"User:": 2}}. A negative max_bytes raises InvalidArgumentError."""
        _, buffer = call_with_buffer(lib.normcache_trim, self._live_handle(), max_bytes)
        report: dict[str, Any] = json.loads(buffer)
        return report

    # --- GraphQL operations ----------------------------------------------------------

    @raises_closed_error
    def load_schema(self, sdl: str | bytes) -> None:
        """Load a schema (SDL, with Apollo's @typePolicy and @fieldPolicy directives).
        Operations prepared afterwards are validated against it and use its key rules. Rules
        configured before are checked against it: one that names a type, field or argument
        the schema lacks raises SchemaError, and the schema is not loaded. On a cache whose
        rules are its file's saved rules, the first load_schema or configure replaces them
        all (see save_rules)."""
        encoded = _encode_key(sdl, "sdl")
        lib.normcache_load_schema(self._live_handle(), encoded, len(encoded))

    @raises_closed_error
    def configure(self, config: JSONInput) -> None:
        """Add key rules for operations prepared afterwards: a dict (or JSON text) with any of
        typePolicies, fieldPolicies, possibleTypes, defaultKeyFields, and storeMutationRoot
        (True: store a mutation's MUTATION_ROOT, whose keys hold its arguments, as Apollo
        does; by default only the entities a mutation returns are written). With a schema
        loaded, a type, key field, field or key argument the schema lacks raises SchemaError
        (with the byte offset, and a close name if one exists) and nothing is added; without
        a schema nothing can be checked until load_schema. On a cache whose rules are its
        file's saved rules, the first call replaces them all, as load_schema does."""
        encoded = _encode_json(config, "config")
        lib.normcache_configure(self._live_handle(), encoded, len(encoded))

    @raises_closed_error
    def save_rules(self) -> None:
        """Save this cache's rules (the SDL of its schema and its configurations, in the
        order given) in the file, replacing any saved before. Caches opened on the file
        afterwards, in any process or language, take them as their own until they are
        given rules (their first load_schema or configure replaces them all). A key
        resolver is code and is not saved. A cache without rules raises
        InvalidArgumentError; a read-only one, ReadOnlyError."""
        lib.normcache_save_rules(self._live_handle())

    @raises_closed_error
    def clear_saved_rules(self) -> bool:
        """Remove the rules saved in the file; return whether there were any. Open caches
        keep their rules; caches opened afterwards start with none."""
        status: int = lib.normcache_clear_saved_rules(self._live_handle())
        return status != NOTFOUND

    @raises_closed_error
    def prepare(self, document: str | bytes, operation_name: str | None = None) -> Operation:
        """Parse, validate and compile the operation `operation_name` (None: the only one) of
        a GraphQL document, with the schema and key rules this cache has now. A document
        past max_document_bytes or max_document_tokens (see __init__) raises DocumentError."""
        encoded = _encode_key(document, "document")
        name = None if operation_name is None else _encode_key(operation_name, "operation_name")
        op = OperationHandle()
        lib.normcache_prepare(
            self._live_handle(), encoded, len(encoded), name, 0 if name is None else len(name), byref(op)
        )
        if op.value is None:  # never on success; refuse rather than wrap NULL
            raise InvalidArgumentError(-1, "normcache_prepare succeeded without an operation")
        return Operation(op)

    @raises_closed_error
    def normalize(
        self, op: Operation, response: JSONInput, variables: Variables = None, *, strict_keys: bool = False
    ) -> NormalizedRecords:
        """The records a GraphQL response of `op` splits into, without touching any cache
        (this one may even be closed): {"Droid:2001": {"name": "R2-D2", ...}, ...}, a dict
        whose `key_fallbacks` counts the objects of a keyed type keyed by their path for
        want of their key fields (see write()); with strict_keys=True the first one raises
        DataError instead.

        `response` is the whole response, {"data": ..., "errors": ...}: its data alone, or
        another top-level member than data, errors and extensions, raises DataError ({}
        for data null or absent beside errors). A variable `op` does not declare raises
        InvalidArgumentError.
        """
        if not isinstance(strict_keys, bool):
            raise TypeError(f"strict_keys must be a bool, not {type(strict_keys).__name__}")
        data = _encode_json(response, "response")
        encoded_variables, variables_len = _encode_variables(variables)
        fallbacks = c_size_t()
        _, buffer = call_with_buffer(
            lib.normcache_normalize_ex,
            _operation_handle(op),
            encoded_variables,
            variables_len,
            data,
            len(data),
            WRITE_STRICT_KEYS if strict_keys else 0,
            byref(fallbacks),
        )
        return NormalizedRecords(json.loads(buffer), fallbacks.value)

    @raises_closed_error
    def write(
        self,
        op: Operation,
        response: JSONInput,
        variables: Variables = None,
        *,
        changes: bool = True,
        max_age: int | None = None,
        headers: Headers | None = None,
        strict_keys: bool = False,
    ) -> WriteResult:
        """Normalize a response of `op` and merge its records in one atomic write; return the
        changed "recordKey.fieldKey" strings ([] with changes=False, which spares building
        them) as a WriteResult, a list whose `stored` is False when the response said
        Cache-Control: no-store (nothing is then normalized or written). The response and
        variables are checked as normalize() checks them; on any error nothing is written.

        The fields the response carries get the time of the write (by the cache's clock)
        and, when the write gives a lifetime, an expiry: the earliest of now + `max_age`
        seconds (0 to 2147483647; 0: stale at once) and what the response's caching
        `headers` say (Cache-Control max-age, no-cache and no-store, Age, Date, Expires,
        per RFC 9111 for a private cache; urllib's `response.headers`, a dict, or any
        mapping, names in any case). Max-age rules (configure's "maxAges" and
        "defaultMaxAge", SDL @cacheControl) apply besides, when the data is read. A
        max_age out of range or a malformed Cache-Control, Age or Date value raises
        InvalidArgumentError, and nothing is written.

        An object of a type a key rule covers (@typePolicy, configure's "typePolicies" or
        "defaultKeyFields") whose key fields the response lacks (or holds as null) is
        keyed by its path, as Apollo iOS does ("QUERY_ROOT.feed.2" rather than
        "Article:7"), and counted in the result's `key_fallbacks`; with strict_keys=True
        it raises DataError naming its path, its type and the key fields, and nothing is
        written.
        """
        data = _encode_json(response, "response")
        encoded_variables, variables_len = _encode_variables(variables)
        arguments = (self._live_handle(), _operation_handle(op), encoded_variables, variables_len, data, len(data))
        return self._write_counted(lib.normcache_write_ex, arguments, changes, max_age, headers, strict_keys)

    def _write_counted(
        self,
        function: Any,
        arguments: tuple[Any, ...],
        changes: bool,
        max_age: int | None,
        headers: Headers | None,
        strict_keys: bool,
    ) -> WriteResult:
        """Call a write that takes normcache_write_options after `arguments` (write_ex,
        put_ex, write_fragment_ex) with the options of max_age, headers and strict_keys;
        return its WriteResult, with the changed keys only when `changes`."""
        options, fallbacks = counted_write_options(max_age, headers, strict_keys)
        if not changes:
            status: int = function(*arguments, byref(options), None, None)
            return WriteResult(stored=status != NOTSTORED, key_fallbacks=fallbacks.value)
        status, buffer = call_with_buffer(function, *arguments, byref(options))
        return WriteResult(_changed_fields(buffer), stored=status != NOTSTORED, key_fallbacks=fallbacks.value)

    def _read(self, op: Operation, variables: Variables, partial: bool) -> bytes:
        """The data JSON of `op` from the cache; CacheMiss when some of it is missing."""
        return self._data_or_miss(lib.normcache_read, [_operation_handle(op)], variables, partial)

    def _data_or_miss(self, function: Any, leading: list[Any], variables: Variables, partial: bool) -> bytes:
        """Calls a read function (cache, *leading, variables, flags, out, out_len); returns the
        data JSON, or raises CacheMiss with the missing paths (and partial data)."""
        encoded_variables, variables_len = _encode_variables(variables)
        status, buffer = call_with_buffer(
            function, self._live_handle(), *leading, encoded_variables, variables_len, READ_PARTIAL if partial else 0
        )
        if status == MISS:
            answer = json.loads(buffer)
            raise CacheMiss(missing_from_json(answer["missing"]), answer["data"])
        return buffer

    def _read_ex(
        self, op: Operation, key: Key | None, variables: Variables, flags: int, max_stale: int | None
    ) -> tuple[int, dict[str, Any]]:
        """normcache_read_ex of `op` (a fragment at `key` when given): its status and object."""
        handle = _operation_handle(op)
        encoded_key = None if key is None else _encode_key(key, "key")
        encoded_variables, variables_len = _encode_variables(variables)
        options = ReadOptions(flags, max_stale_seconds(max_stale))
        status, buffer = call_with_buffer(
            lib.normcache_read_ex,
            self._live_handle(),
            handle,
            encoded_key,
            0 if encoded_key is None else len(encoded_key),
            encoded_variables,
            variables_len,
            byref(options),
        )
        answer: dict[str, Any] = json.loads(buffer)
        return status, answer

    def _data_or_stale_miss(
        self, op: Operation, key: Key | None, variables: Variables, partial: bool, max_stale: int
    ) -> dict[str, Any]:
        """The data of a read allowing `max_stale` seconds of staleness; CacheMiss as read()."""
        status, answer = self._read_ex(op, key, variables, READ_PARTIAL if partial else 0, max_stale)
        if status == MISS:
            raise CacheMiss(missing_from_json(answer["missing"]), answer["data"])
        data: dict[str, Any] = answer["data"]
        return data

    @raises_closed_error
    def read(
        self, op: Operation, variables: Variables = None, *, partial: bool = False, max_stale: int | None = None
    ) -> dict[str, Any]:
        """The data of `op` rebuilt from the cache: exactly the user's selection, all of it
        or nothing.

        Raises CacheMiss when anything is absent or stale: its `missing` lists each part
        with its response path and reason (`paths`: the paths alone); with `partial`, its
        `data` holds the data with the missing parts null (else None). With `max_stale`
        (seconds, from 0), a field that expired no more than that long ago is returned as
        if fresh; read_result() tells which ones were stale.
        """
        if max_stale is not None:
            return self._data_or_stale_miss(op, None, variables, partial, max_stale)
        data: dict[str, Any] = json.loads(self._read(op, variables, partial))
        return data

    @raises_closed_error
    def read_result(
        self,
        op: Operation,
        variables: Variables = None,
        *,
        key: Key | None = None,
        max_stale: int | None = None,
        partial: bool = False,
        ignore_freshness: bool = False,
    ) -> ReadResult:
        """Read `op` (with `key`, a fragment read at that record, as read_fragment reads it)
        and return everything the read found as one ReadResult, a miss included: its
        `status` ("complete", "stale" or "miss"), `data`, what is `missing` and why, the
        `stale` fields returned within `max_stale` seconds past their expiry (None: a
        stale field is a miss), `oldest_written_at` and `earliest_expiry`. With `partial`,
        the data of a miss holds what was found, the missing parts null. With
        `ignore_freshness`, every field the cache holds counts as fresh, whatever its age
        or expiry (absent data still misses): data to show when the network cannot be
        asked.
        """
        flags = (READ_PARTIAL if partial else 0) | (READ_IGNORE_FRESHNESS if ignore_freshness else 0)
        status, answer = self._read_ex(op, key, variables, flags, max_stale)
        return ReadResult._from_json(READ_STATUSES[status], answer)

    @raises_closed_error
    def read_json(self, op: Operation, variables: Variables = None, *, partial: bool = False) -> str:
        """As read() (without max_stale: stale data is a miss), but the data as the library's
        compact JSON text, leaf values exactly as they were written (1.0 stays 1.0). Raises
        CacheMiss the same way."""
        return self._read(op, variables, partial).decode("utf-8")

    @raises_closed_error
    def set_key_resolver(self, resolver: KeyResolver | None) -> None:
        """Set the programmatic key rule for operations prepared afterwards (None removes
        it): resolver(typename, obj) returns None (no key from it: the declarative rules
        decide), an id, or (id, group); obj[name] gives a member of the response object as
        a Python value.

        An exception it raises fails that write (or normalize) with CallbackError, whose
        message ends with the exception's type and text and whose __cause__ is the exception
        itself, traceback and all; KeyboardInterrupt and SystemExit fail the call and then
        propagate as themselves. Nothing is written either way.

        Operations keep the resolver of their prepare time; the resolver is released when
        the cache no longer uses it (another resolver set, or the cache closed) and every
        operation prepared with it is closed. It may run on several threads at once, and
        re-entrantly when it calls the cache itself."""
        set_key_resolver(self._live_handle(), resolver)

    @raises_closed_error
    def read_fragment(
        self,
        fragment: Operation,
        key: Key,
        variables: Variables = None,
        *,
        partial: bool = False,
        max_stale: int | None = None,
    ) -> dict[str, Any]:
        """The object at record `key` through a prepared fragment (direct cache access).

        Raises CacheMiss, as read() does, when anything the fragment selects is missing or
        stale; `max_stale` allows stale data as read() does.
        """
        if max_stale is not None:
            return self._data_or_stale_miss(fragment, key, variables, partial, max_stale)
        encoded_key = _encode_key(key, "key")
        leading = [_operation_handle(fragment), encoded_key, len(encoded_key)]
        data: dict[str, Any] = json.loads(self._data_or_miss(lib.normcache_read_fragment, leading, variables, partial))
        return data

    @raises_closed_error
    def write_fragment(
        self,
        fragment: Operation,
        key: Key,
        data: JSONInput,
        variables: Variables = None,
        *,
        max_age: int | None = None,
        headers: Headers | None = None,
        strict_keys: bool = False,
    ) -> WriteResult:
        """Write `data`, the object a prepared fragment selects, as the record `key` in one
        atomic write; return the changed "recordKey.fieldKey" strings as a WriteResult.
        `max_age`, `headers` and `strict_keys` work as for write(): the fields `data`
        carries get that lifetime (Cache-Control: no-store writes nothing), and an object
        below `key` that lacks its key fields is counted in `key_fallbacks`, or with
        strict_keys=True raises DataError."""
        encoded_key = _encode_key(key, "key")
        encoded = _encode_json(data, "data")
        encoded_variables, variables_len = _encode_variables(variables)
        arguments = (
            self._live_handle(),
            _operation_handle(fragment),
            encoded_key,
            len(encoded_key),
            encoded,
            len(encoded),
            encoded_variables,
            variables_len,
        )
        return self._write_counted(lib.normcache_write_fragment_ex, arguments, True, max_age, headers, strict_keys)

    # --- freshness ---------------------------------------------------------------------

    @raises_closed_error
    def invalidate(self, key: Key, field: Key | None = None) -> int:
        """Mark the field `field` (its storage key, exact bytes, as remove_field takes it) of
        the record `key`, or with `field` None every field of the record, stale now without
        deleting it (Relay's invalidateRecord, Apollo Client's INVALIDATE); return how many
        fields were marked (0 when nothing matched). Reads then miss it with the reason
        "invalidated", or return it stale to a read whose max_stale allows it; writing a
        field again makes it fresh. A field that expired before keeps its earlier expiry."""
        encoded_key = _encode_key(key, "key")
        encoded_field = None if field is None else _encode_key(field, "field")
        return self._invalidate(encoded_key, encoded_field, 0)

    @raises_closed_error
    def invalidate_prefix(self, prefix: Key) -> int:
        """Mark every field of every record whose key starts with a non-empty `prefix` stale
        now, as invalidate() does, in one atomic write; return how many fields were marked
        (0 when no record matched)."""
        return self._invalidate(_encode_key(prefix, "prefix"), None, INVALIDATE_PREFIX)

    def _invalidate(self, key: bytes, field: bytes | None, flags: int) -> int:
        """normcache_invalidate; the number of fields it marked."""
        count = c_uint64()
        lib.normcache_invalidate(
            self._live_handle(), key, len(key), field, 0 if field is None else len(field), flags, byref(count)
        )
        return count.value

    @raises_closed_error
    def set_clock(self, clock: Clock | None) -> None:
        """Replace the cache's clock (a testing aid): `clock()` returns the time now in
        seconds since 1970, an int; None brings back the system clock. Writes stamp fields
        with its time and reads judge freshness by it, so a test can read data "31 minutes
        later" without waiting. It belongs to this Cache object (other handles on the file
        keep theirs), which holds it until it is replaced or the cache is closed.

        It is called at most once per call of the cache, on the calling thread. A clock
        that raises, or answers anything but an int in 64 bits, fails that call with
        CallbackError "the cache's clock failed: <type>: <text>", whose __cause__ is the
        exception (KeyboardInterrupt and SystemExit fail the call, then propagate as
        themselves); one that answers a time below 0 fails it with CallbackError too.
        Nothing is written either way."""
        with self._clock_lock:
            self._clock = set_clock(self._live_handle(), clock)

    # --- fetching ------------------------------------------------------------------------

    def execute(
        self,
        op: Operation,
        variables: Variables = None,
        *,
        fetch: Fetch | None = None,
        policy: Policy = "cache_first",
        max_stale: int | None = None,
        error_policy: ErrorPolicy = "none",
        on_result: OnResult | None = None,
    ) -> ExecutionResult:
        """Run `op` with `variables` the way a client does: read the cache and call
        `fetch(request)` as the fetch `policy` says, write what the network answers, and
        return the result — exactly the operation's selection, never the `__typename` and
        key fields the network document adds.

        The policies (each is when to read the cache, and when to go to the network):

        ========================= ================= ========================= ======
        policy                    reads the cache   goes to the network       writes
        ========================= ================= ========================= ======
        "cache_first" (default)   first             on a miss                 yes
        "cache_only"              first             never                     -
        "network_only"            never             always                    yes
        "no_store"                never             always                    no
        "network_first"           when fetch fails  always                    yes
        "cache_and_network"       first             always                    yes
        "stale_while_revalidate"  first             on a miss or stale data   yes
        ========================= ================= ========================= ======

        A cache read allows data stale by up to `max_stale` seconds (None: stale data is
        a miss); a usable cached result that the network follows (cache_and_network,
        stale_while_revalidate) is handed to `on_result` first, then the network's.
        Mutations always go to the network (and are written unless the policy is
        "no_store"); subscriptions raise InvalidArgumentError. A reply that says
        Cache-Control: no-store is returned and not written.

        `fetch` gets a FetchRequest (the network document to send, the operation name and
        the variables; FetchRequest.payload() is the body of a GraphQL POST) and answers
        with a FetchReply, (body, headers), a body alone, or a urllib, httpx or requests
        response (see normcache.fetching). None is allowed when the call cannot go to the
        network (cache_only for a query); otherwise the call raises InvalidArgumentError
        when it must fetch.

        When the fetch fails (it raises, or a response's status is not 2xx), usable cached
        data stands in (the one read first; for network_first, one read then), with the
        result's `fetch_error` the failure's message ("<type>: <text>") and
        `fetch_exception` the exception; with none, FetchError is raised, from the
        fetch's exception. An answer of the wrong kind (None, an int) raises CallbackError
        from a TypeError, without a fallback. A reply that cannot be written (not JSON,
        not a GraphQL response of `op`, malformed caching headers) raises the error
        write() would, and nothing is written. GraphQL "errors" follow `error_policy`:
        "none" (default: nothing written, GraphQLError raised, its `errors` the list),
        "ignore" (written, returned as if there were none) or "all" (written, returned
        with `errors`).

        `on_result(result)` gets every result in order (the last is the one returned).
        If it raises, later results are not handed to it, the call goes on, and its
        exception is raised when the call returns (an error of the call itself is raised
        instead). KeyboardInterrupt and SystemExit in `fetch` or `on_result` end the call
        (a fetch not yet made is not made; nothing is written by the fetch that raised)
        and then propagate.

        Both functions run on the calling thread, outside the library's locks: they may
        use the cache, even call execute again.
        """
        return self._execute(Execution(fetch, on_result, None), op, variables, policy, max_stale, error_policy)

    async def aexecute(
        self,
        op: Operation,
        variables: Variables = None,
        *,
        fetch: AsyncFetch | Fetch | None = None,
        policy: Policy = "cache_first",
        max_stale: int | None = None,
        error_policy: ErrorPolicy = "none",
        on_result: OnResult | None = None,
    ) -> ExecutionResult:
        """execute() for asyncio, with an async `fetch` (`async def fetch(request)`, for
        httpx.AsyncClient and the like), without blocking the event loop.

        The library runs in a worker thread (asyncio.to_thread); `fetch` and `on_result`
        (each an async function, or a plain one, which then runs on the loop and should
        not block it) run on the event loop of the caller, as tasks in the caller's
        context (contextvars), the worker waiting for each, so results arrive in order. The same arguments,
        results and errors as execute(). Cancelling the task awaiting aexecute cancels
        the fetch under way (the library's call then ends as a failed fetch and its
        result is dropped), hands no more results to on_result, waits for the worker to
        finish, and raises CancelledError.
        """
        execution = AsyncExecution(fetch, on_result, None, asyncio.get_running_loop())
        call = functools.partial(self._execute, execution, op, variables, policy, max_stale, error_policy)
        return await execution.run_in_worker(call)

    @raises_closed_error
    def _execute(
        self,
        execution: Execution,
        op: Operation,
        variables: Variables,
        policy: Policy,
        max_stale: int | None,
        error_policy: ErrorPolicy,
    ) -> ExecutionResult:
        """normcache_execute of `op`, its callbacks those of `execution`."""
        handle = _operation_handle(op)
        encoded_variables, variables_len = _encode_variables(variables)
        options = execute_options(policy, error_policy, max_stale)
        cache = self._live_handle()
        return execution.run(
            lambda *callbacks: call_with_buffer(
                lib.normcache_execute, cache, handle, encoded_variables, variables_len, byref(options), *callbacks
            )
        )

    # --- plain JSON documents (REST) -------------------------------------------------------

    @raises_closed_error
    def put_document(
        self, key: Key, value: object, *, max_age: int | None = None, headers: Headers | None = None
    ) -> bool:
        """Store `value` as the document `key` (any key of yours: "GET /articles?page=1"),
        replacing the one there, in one atomic write; return False when `headers` said
        Cache-Control: no-store (nothing is written), else True.

        `value` is any value json.dumps takes (dict, list, str, number, bool, None), or
        JSON text as bytes, or as str: a str is JSON text, not a string value (store the
        string "hi" as json.dumps("hi")). JSON text is checked and kept exactly as
        written (numbers keep their digits, members their order). The document never
        expires, unless `max_age` (seconds) or the response's caching `headers` give it
        a lifetime, as write() takes them: the earliest expiry wins. Max-age rules do
        not apply to documents. An ETag among the headers is kept with the document
        (get_document(key).etag) to revalidate it with (see refresh_document); a
        malformed one raises InvalidArgumentError and nothing is written.

        A document is a record with the field "$document": search() lists it, remove()
        and remove_prefix() delete it, invalidate() and invalidate_prefix() mark it
        stale. With entity rules (configure()'s "documents": which member names an
        object's type, the type of a document's top-level objects by key prefix, the
        types of members and key fields), the entities found in it are merged into their
        records (Article:7) in the same write, so that an entity updated elsewhere reads
        updated in this document. A key that holds a record of fields, or an entity keyed
        as a document, raises InvalidArgumentError; malformed JSON text, JSONError.
        """
        encoded_key = _encode_key(key, "key")
        text = _encode_document(value)
        options = write_options(max_age, headers)
        status: int = lib.normcache_put_document(
            self._live_handle(),
            encoded_key,
            len(encoded_key),
            text,
            len(text),
            None if options is None else byref(options),
        )
        return status != NOTSTORED

    def _get_document(
        self, key: Key, max_stale: int | None, partial: bool, ignore_freshness: bool
    ) -> tuple[int, bytes]:
        """normcache_get_document: its status and object."""
        encoded_key = _encode_key(key, "key")
        flags = (READ_PARTIAL if partial else 0) | (READ_IGNORE_FRESHNESS if ignore_freshness else 0)
        options = ReadOptions(flags, max_stale_seconds(max_stale))
        return call_with_buffer(
            lib.normcache_get_document, self._live_handle(), encoded_key, len(encoded_key), byref(options)
        )

    @raises_closed_error
    def get_document(
        self, key: Key, *, max_stale: int | None = None, partial: bool = False, ignore_freshness: bool = False
    ) -> ReadResult:
        """The document `key` with its freshness, as a ReadResult with the document's
        `etag` (a miss is an answer, never an exception): `data` the
        document's value, parsed (None on a miss); `missing` one
        entry with the path [] when it is absent (reason "absent") or too stale ("stale",
        "invalidated"); `stale` one entry when it is returned stale within `max_stale`
        seconds; `oldest_written_at` when it was written and `earliest_expiry` when it
        expires (None: never). With `partial`, a too-stale document's value is in `data`
        all the same; with `ignore_freshness`, the document counts as fresh whatever its
        age. get_document_json gives the text as it was written.
        """
        status, answer = self._get_document(key, max_stale, partial, ignore_freshness)
        return ReadResult._from_json(READ_STATUSES[status], json.loads(answer))

    @raises_closed_error
    def get_document_json(
        self, key: Key, *, max_stale: int | None = None, partial: bool = False, ignore_freshness: bool = False
    ) -> str:
        """The text of the document `key` exactly as it was written (or as the fetch of
        execute_document received it), as read_json gives an operation's data as text; a
        document stored with entities comes as compact JSON, its entities as their records
        hold them now.
        Raises CacheMiss, with the missing entry, when it is absent or stale beyond
        `max_stale` seconds (None: any staleness); with `partial` the miss's `data` holds
        a too-stale document's value; with `ignore_freshness` a stored document is
        returned whatever its age."""
        status, answer = self._get_document(key, max_stale, partial, ignore_freshness)
        if status == MISS:
            found = json.loads(answer)
            raise CacheMiss(missing_from_json(found["missing"]), found["data"])
        return _document_text(answer)

    @raises_closed_error
    def refresh_document(
        self, key: Key, *, max_age: int | None = None, headers: Headers | None = None
    ) -> DocumentRefresh:
        """Renew the freshness of the document `key` after a 304 Not Modified, without
        rewriting it: it gets the lifetime `max_age` and the 304's caching `headers` give
        (as put_document reads them), stamped now, and an invalidation is lifted; an ETag
        among the headers replaces the stored one. Fields of entities that the document's
        own write stamped are re-stamped too (the 304 says the whole representation is
        unchanged); a field written since by anything else keeps its times.

        Revalidation: send the request again with If-None-Match: get_document(key).etag;
        on a 304, call this; on a 200, put_document. Returns "refreshed"; "absent" when
        there is no document under `key` (nothing written: fetch it whole); "not_stored"
        when the headers say Cache-Control: no-store (nothing changed). A key that holds a
        record of fields, or malformed headers (an ETag that is not "..." or W/"..."),
        raise InvalidArgumentError.
        """
        encoded_key = _encode_key(key, "key")
        options = write_options(max_age, headers)
        status: int = lib.normcache_refresh_document(
            self._live_handle(), encoded_key, len(encoded_key), None if options is None else byref(options)
        )
        return "absent" if status == MISS else "not_stored" if status == NOTSTORED else "refreshed"

    def execute_document(
        self,
        key: Key,
        *,
        fetch: Fetch | None = None,
        policy: Policy = "cache_first",
        max_stale: int | None = None,
        max_age: int | None = None,
        on_result: OnResult | None = None,
    ) -> ExecutionResult:
        """Run a fetch `policy` for the document `key`, as execute() runs one for an
        operation: read the document from the cache and call `fetch(request)`
        (request.key is `key`; the fetch knows what URL it stands for) as the policy
        says, store the body as put_document stores it, and return the result, whose
        `data` is the document's value (parsed).

        `max_age` (seconds) is the lifetime of a reply whose answer gives no max_age of
        its own (a FetchReply's max_age wins); it goes with the reply's caching headers,
        and the earliest expiry wins: with max_age=1800 and the server's Cache-Control:
        max-age=60 the document expires after 60 s; with max-age=3600 after 1800 s; with
        no-store it is not stored. The classic REST flow, "the articles from the cache
        while they are younger than 30 minutes, else from the API":

            def fetch_articles(request):
                with urllib.request.urlopen(base + "/articles") as response:
                    return response.read(), response.headers
            result = cache.execute_document("GET /articles", fetch=fetch_articles, max_age=1800)
            result.source                        # "network", then "cache" for 30 minutes

        A body that is not JSON raises JSONError and nothing is written; fetch failures,
        wrong answers and `on_result` behave as in execute() (there is no error policy:
        a document has no GraphQL errors).
        """
        return self._execute_document(Execution(fetch, on_result, _lifetime(max_age)), key, policy, max_stale)

    async def aexecute_document(
        self,
        key: Key,
        *,
        fetch: AsyncFetch | Fetch | None = None,
        policy: Policy = "cache_first",
        max_stale: int | None = None,
        max_age: int | None = None,
        on_result: OnResult | None = None,
    ) -> ExecutionResult:
        """execute_document() for asyncio, with an async `fetch`, as aexecute() runs
        execute(): the library in a worker thread, `fetch` and `on_result` on the caller's
        event loop, and cancellation ending the call."""
        execution = AsyncExecution(fetch, on_result, _lifetime(max_age), asyncio.get_running_loop())
        return await execution.run_in_worker(
            functools.partial(self._execute_document, execution, key, policy, max_stale)
        )

    @raises_closed_error
    def _execute_document(
        self, execution: Execution, key: Key, policy: Policy, max_stale: int | None
    ) -> ExecutionResult:
        """normcache_execute_document of `key`, its callbacks those of `execution`."""
        encoded_key = _encode_key(key, "key")
        options = execute_options(policy, "none", max_stale)
        cache = self._live_handle()
        return execution.run(
            lambda *callbacks: call_with_buffer(
                lib.normcache_execute_document, cache, encoded_key, len(encoded_key), byref(options), *callbacks
            )
        )

    @raises_closed_error
    def watch(
        self,
        op: Operation,
        variables: Variables = None,
        *,
        key: Key | None = None,
        callback: WatchCallback | None = None,
    ) -> Watch:
        """Watch `op` (with `key`, a fragment at that record) with `variables`: the result
        now, then again after each commit that changes what the last read used, when it
        differs. With `callback`, each result goes to it; without, iterate the Watch
        (`for result in watch`, or `async for`). Use it as a context manager, or close() it.

        Commits of this process (any handle on the same file) reach it by themselves;
        other processes' commits while a dispatching() block runs (or after
        dispatch_changes()). Its reads never miss for age: stale data comes with status
        "stale" and `earliest_expiry` says when to refresh; it never fetches. A callback
        may use the cache; one that raises ends the watch, and closing it raises that
        exception.
        """
        handle = _operation_handle(op)
        encoded_key = None if key is None else _encode_key(key, "key")
        encoded_variables, variables_len = _encode_variables(variables)
        cache = self._live_handle()
        watch = Watch(self, callback)
        watch._start(
            lambda bridge, out: lib.normcache_watch(
                cache,
                handle,
                encoded_variables,
                variables_len,
                encoded_key,
                0 if encoded_key is None else len(encoded_key),
                bridge,
                None,
                out,
            )
        )
        return watch

    @raises_closed_error
    def metrics(self) -> HandleMetrics:
        """What this handle has read and written since it opened (see HandleMetrics)."""
        _, buffer = call_with_buffer(lib.normcache_metrics, self._live_handle())
        return HandleMetrics(**json.loads(buffer))

    @raises_closed_error
    def last_commit(self) -> int:
        """The id of the newest commit to the file, by any process (ids only grow)."""
        return last_commit(self)

    @raises_closed_error
    def changes_since(self, commit: int) -> CommitChanges:
        """What the commits after `commit` changed, from the commit log in the file."""
        return changes_since(self, commit)

    @raises_closed_error
    def wait_commit(self, after: int, timeout: float) -> int | None:
        """Wait up to `timeout` seconds for a commit newer than `after`, by any process;
        the newest commit's id, or None when the time ran out. It polls (every 5 ms at
        most) and holds no lock, so other threads go on; interrupt() stops it."""
        return wait_commit(self, after, timeout)

    @raises_closed_error
    def dispatch_changes(self) -> int:
        """Hand other processes' commits since the last dispatch to this process's
        watchers; the newest commit handed over."""
        return dispatch_changes(self)

    def dispatching(self, poll_timeout: float = 0.1) -> Dispatcher:
        """A context manager running a thread that hands other processes' commits to this
        process's watchers as they come (within about 5 ms), until the block ends."""
        return Dispatcher(self, poll_timeout)

    def changes(self, since: int | None = None, *, timeout: float | None = None) -> Iterator[CommitChanges]:
        """What the commits of every process after `since` (None: from now) change, as
        they come: one CommitChanges per batch; ends after `timeout` seconds without a
        commit (None: never)."""
        return follow(self, since, timeout)

    def achanges(self, since: int | None = None, *, timeout: float | None = None) -> AsyncIterator[CommitChanges]:
        """changes() for asyncio (`async for`): the waits run in worker threads."""
        return afollow(self, since, timeout)


def _lifetime(max_age: int | None) -> int | None:
    """A max_age argument, checked now rather than when a reply comes."""
    seconds(max_age, "max_age", MAX_AGE_LIMIT)
    return max_age
