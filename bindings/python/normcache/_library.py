"""Finding and loading libnormcache.so, and the one table that declares every C function of normcache.h."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from collections.abc import Iterator, Mapping
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char_p,
    c_int,
    c_int64,
    c_size_t,
    c_uint,
    c_uint32,
    c_uint64,
    c_void_p,
)
from pathlib import Path
from typing import Any, Callable

from ._version import __version__
from .errors import LibraryLoadError, error_for

#: NORMCACHE_VERSION of the include/normcache.h that this table mirrors: the package's
#: version, one literal in _version.py.
HEADER_VERSION = __version__
#: The environment variable naming the library to load; when set, nothing else is tried.
LIBRARY_ENV = "NORMCACHE_LIBRARY"
#: NORMCACHE_OK.
OK = 0
#: NORMCACHE_MISS.
MISS = 1
#: NORMCACHE_NOTFOUND.
NOTFOUND = 2
#: NORMCACHE_STALE: a read returned all the data, some of it stale within its max_stale.
STALE = 3
#: NORMCACHE_NOTSTORED: a write stored nothing, as the response said Cache-Control: no-store.
NOTSTORED = 4
#: NORMCACHE_TIMEOUT: a wait ended with its timeout (normcache_wait_commit).
TIMEOUT = 5
#: NORMCACHE_EINVAL, an invalid argument.
EINVAL = -1
#: NORMCACHE_ECALLBACK, what a failing callback returns.
ECALLBACK = -7
#: NORMCACHE_EFETCH: a fetch failed and no cached data stood in (normcache_execute).
EFETCH = -11
#: NORMCACHE_EGRAPHQL: a fetched response carried GraphQL errors under the error policy "none".
EGRAPHQL = -12
#: NORMCACHE_INTERRUPTED: normcache_interrupt stopped the call, which changed nothing.
INTERRUPTED = -13
#: NORMCACHE_READ_PARTIAL, the normcache_read flag.
READ_PARTIAL = 1
#: NORMCACHE_READ_IGNORE_FRESHNESS, the normcache_read_ex flag: every field counts as fresh.
READ_IGNORE_FRESHNESS = 2
#: NORMCACHE_INVALIDATE_PREFIX, the normcache_invalidate flag: the key is a prefix.
INVALIDATE_PREFIX = 1
#: NORMCACHE_WRITE_STRICT_KEYS: a key fallback fails the write instead of being counted.
WRITE_STRICT_KEYS = 1
#: NORMCACHE_GC_DRY_RUN: normcache_gc reports what it would remove and writes nothing.
GC_DRY_RUN = 1
#: NORMCACHE_GC_DANGLING: normcache_gc removes the fields holding a dangling reference.
GC_DANGLING = 2
#: NORMCACHE_MAX_AGE_LIMIT: the largest max_age a write accepts, in seconds.
MAX_AGE_LIMIT = 2147483647

#: Where a built package carries its library, below the package folder: the wheel's copy,
#: installed there by CMake's install component "python".
BUNDLED_LIBRARY = Path("_lib") / "libnormcache.so"
_SONAME = "libnormcache.so.0"

_BUFFER_OUT = POINTER(c_void_p)  # char **: c_void_p, so the buffer can go back to normcache_free
_LENGTH_OUT = POINTER(c_size_t)


class Handle(c_void_p):
    """A pointer to one kind of opaque object of the library. Each kind is its own class,
    and a parameter of one kind takes only its own kind or None (NULL): ctypes refuses an
    int or another kind's handle with ArgumentError, so handles cannot be mixed up."""

    @classmethod
    def from_param(cls, value: object) -> Any:
        """`value` as an argument: a handle of this kind, or None for NULL."""
        if value is None or isinstance(value, cls):
            return value
        raise TypeError(f"{cls.__name__} or None expected, not {type(value).__name__}")


class CacheHandle(Handle):
    """normcache *: an open cache, from normcache_open."""


class OperationHandle(Handle):
    """normcache_op *: a prepared operation, from normcache_prepare."""


class ObjectHandle(Handle):
    """const normcache_object *: the response object a key resolver is given."""


class KeyHandle(Handle):
    """normcache_key *: where a key resolver puts its answer."""


class ReplyHandle(Handle):
    """normcache_fetch_reply *: where a fetch callback puts its answer."""


class WatcherHandle(Handle):
    """normcache_watcher *: a watcher, from normcache_watch."""


#: normcache_key_resolver: (context, typename, typename_len, object, key) -> status.
KEY_RESOLVER = CFUNCTYPE(c_int, c_void_p, c_void_p, c_size_t, ObjectHandle, KeyHandle)
#: normcache_destroy: (context) -> None.
DESTROY = CFUNCTYPE(None, c_void_p)
#: normcache_clock: (context) -> seconds since 1970.
CLOCK = CFUNCTYPE(c_int64, c_void_p)
#: The fetch policies of normcache_execute, by the name the binding gives them
#: (enum normcache_policy).
POLICIES = {
    "cache_first": 0,
    "cache_only": 1,
    "network_only": 2,
    "no_store": 3,
    "network_first": 4,
    "cache_and_network": 5,
    "stale_while_revalidate": 6,
}
#: The error policies of normcache_execute, by name (enum normcache_error_policy).
ERROR_POLICIES = {"none": 0, "ignore": 1, "all": 2}


class WriteOptions(Structure):
    """normcache_write_options: the lifetime a write gives what it stores and whether key
    fallbacks are refused (normcache_write_ex, put_ex, write_fragment_ex), and the ETag a
    document keeps (normcache_put_document, refresh_document). `size` is set to
    the struct's size; a header absent is a NULL pointer with length 0; `key_fallbacks`,
    when set, points at the c_size_t that receives the count."""

    _fields_ = [
        ("size", c_size_t),
        ("max_age", c_int64),
        ("cache_control", c_char_p),
        ("cache_control_len", c_size_t),
        ("age", c_char_p),
        ("age_len", c_size_t),
        ("date", c_char_p),
        ("date_len", c_size_t),
        ("expires", c_char_p),
        ("expires_len", c_size_t),
        ("flags", c_uint),
        ("key_fallbacks", POINTER(c_size_t)),
        ("etag", c_char_p),
        ("etag_len", c_size_t),
    ]

    def __init__(self) -> None:
        """Options that change nothing: no max_age (-1) and no headers."""
        super().__init__(size=ctypes.sizeof(WriteOptions), max_age=-1)


class ReadOptions(Structure):
    """normcache_read_options: how a read judges stale data (normcache_read_ex)."""

    _fields_ = [
        ("size", c_size_t),
        ("flags", c_uint),
        ("max_stale", c_int64),
    ]

    def __init__(self, flags: int = 0, max_stale: int = -1) -> None:
        """Options with `flags` (READ_PARTIAL, READ_IGNORE_FRESHNESS) and `max_stale` (-1:
        stale data is a miss)."""
        super().__init__(size=ctypes.sizeof(ReadOptions), flags=flags, max_stale=max_stale)


class GCOptions(Structure):
    """normcache_gc_options: what normcache_gc removes besides unreachable records."""

    _fields_ = [
        ("size", c_size_t),
        ("flags", c_uint),
        ("stale_grace", c_int64),
    ]

    def __init__(self, flags: int = 0, stale_grace: int = -1) -> None:
        """Options with `flags` (GC_DRY_RUN, GC_DANGLING) and `stale_grace` (-1: keep stale fields)."""
        super().__init__(size=ctypes.sizeof(GCOptions), flags=flags, stale_grace=stale_grace)


class ExecuteOptions(Structure):
    """normcache_execute_options: the policy, error policy and max_stale of normcache_execute."""

    _fields_ = [
        ("size", c_size_t),
        ("policy", c_int),
        ("error_policy", c_int),
        ("max_stale", c_int64),
    ]

    def __init__(self, policy: int = 0, error_policy: int = 0, max_stale: int = -1) -> None:
        """Options with a normcache_policy, a normcache_error_policy and `max_stale` (-1:
        stale data is a miss)."""
        super().__init__(
            size=ctypes.sizeof(ExecuteOptions), policy=policy, error_policy=error_policy, max_stale=max_stale
        )


class CFetchRequest(Structure):
    """normcache_fetch_request: what a fetch callback is asked, valid during its call only.
    The text members are pointers (c_void_p) read with the length after each, so that a key
    holding NUL bytes comes through whole."""

    _fields_ = [
        ("document", c_void_p),
        ("document_len", c_size_t),
        ("operation_name", c_void_p),
        ("operation_name_len", c_size_t),
        ("variables_json", c_void_p),
        ("variables_len", c_size_t),
        ("key", c_void_p),
        ("key_len", c_size_t),
    ]

    def text(self, member: str) -> bytes | None:
        """The bytes of the text member `member` ("document", "operation_name",
        "variables_json" or "key"), or None when it is absent: NULL, or empty (the request
        of a document has variables_json non-NULL with length 0; no member is ever
        empty text otherwise)."""
        pointer = getattr(self, member)
        length = getattr(self, "variables_len" if member == "variables_json" else f"{member}_len")
        return None if pointer is None or length == 0 else ctypes.string_at(pointer, length)


#: normcache_fetch: (context, request, reply) -> status.
FETCH = CFUNCTYPE(c_int, c_void_p, POINTER(CFetchRequest), ReplyHandle)
#: normcache_result_callback and normcache_watch_callback, which have one signature:
#: (context, status, result_json, result_len) -> None.
RESULT_CALLBACK = CFUNCTYPE(None, c_void_p, c_int, c_void_p, c_size_t)

#: The parameters normcache_execute and normcache_execute_document share after what they
#: run: options, the fetch and result callbacks with their contexts, and the output.
_EXECUTE_RUN = [POINTER(ExecuteOptions), FETCH, c_void_p, RESULT_CALLBACK, c_void_p, _BUFFER_OUT, _LENGTH_OUT]

#: The parameters normcache_write_fragment and normcache_write_fragment_ex share: cache,
#: fragment, key, data, variables.
_FRAGMENT_WRITE = [CacheHandle, OperationHandle, c_char_p, c_size_t, c_char_p, c_size_t, c_char_p, c_size_t]

# Every function of normcache.h: name -> (restype, argtypes). Those returning c_int return
# a status and get the error check that raises on negative codes.
_PROTOTYPES = {
    "normcache_version": (c_char_p, []),
    "normcache_version_number": (c_int, []),
    "normcache_errstr": (c_char_p, [c_int]),
    "normcache_errmsg": (c_char_p, []),
    "normcache_free": (None, [c_void_p]),
    "normcache_release_memory": (c_int, [POINTER(c_size_t)]),
    "normcache_open": (c_int, [c_char_p, c_size_t, c_char_p, c_size_t, POINTER(CacheHandle)]),
    "normcache_close": (c_int, [CacheHandle]),
    "normcache_interrupt": (c_int, [CacheHandle]),
    "normcache_begin": (c_int, [CacheHandle]),
    "normcache_commit": (c_int, [CacheHandle]),
    "normcache_rollback": (c_int, [CacheHandle]),
    "normcache_put": (c_int, [CacheHandle, c_char_p, c_size_t, _BUFFER_OUT, _LENGTH_OUT]),
    "normcache_put_ex": (c_int, [CacheHandle, c_char_p, c_size_t, POINTER(WriteOptions), _BUFFER_OUT, _LENGTH_OUT]),
    "normcache_get": (c_int, [CacheHandle, c_char_p, c_size_t, _BUFFER_OUT, _LENGTH_OUT]),
    "normcache_import": (c_int, [CacheHandle, c_int, c_char_p, c_size_t, _BUFFER_OUT, _LENGTH_OUT]),
    "normcache_export": (c_int, [CacheHandle, c_int, _BUFFER_OUT, _LENGTH_OUT]),
    "normcache_remove": (c_int, [CacheHandle, c_char_p, c_size_t]),
    "normcache_remove_field": (c_int, [CacheHandle, c_char_p, c_size_t, c_char_p, c_size_t]),
    "normcache_remove_prefix": (c_int, [CacheHandle, c_char_p, c_size_t, POINTER(c_uint64)]),
    "normcache_clear": (c_int, [CacheHandle]),
    "normcache_search": (
        c_int,
        [CacheHandle, c_char_p, c_size_t, c_char_p, c_size_t, c_size_t, _BUFFER_OUT, _LENGTH_OUT],
    ),
    "normcache_stats": (c_int, [CacheHandle, _BUFFER_OUT, _LENGTH_OUT]),
    "normcache_copy": (c_int, [CacheHandle, c_char_p, c_size_t]),
    "normcache_compact": (c_int, [c_char_p, c_size_t, c_char_p, c_size_t, _BUFFER_OUT, _LENGTH_OUT]),
    "normcache_key_groups": (c_int, [CacheHandle, _BUFFER_OUT, _LENGTH_OUT]),
    "normcache_trim": (c_int, [CacheHandle, c_int64, _BUFFER_OUT, _LENGTH_OUT]),
    "normcache_load_schema": (c_int, [CacheHandle, c_char_p, c_size_t]),
    "normcache_configure": (c_int, [CacheHandle, c_char_p, c_size_t]),
    "normcache_save_rules": (c_int, [CacheHandle]),
    "normcache_clear_saved_rules": (c_int, [CacheHandle]),
    "normcache_set_key_resolver": (c_int, [CacheHandle, KEY_RESOLVER, c_void_p]),
    "normcache_set_key_resolver_v2": (c_int, [CacheHandle, KEY_RESOLVER, c_void_p, DESTROY]),
    "normcache_callback_error": (c_int, [c_char_p, c_size_t]),
    "normcache_object_member": (
        c_int,
        [ObjectHandle, c_char_p, c_size_t, POINTER(c_void_p), POINTER(c_size_t)],
    ),
    "normcache_object_member_count": (c_int, [ObjectHandle, POINTER(c_size_t)]),
    "normcache_object_member_at": (
        c_int,
        [ObjectHandle, c_size_t, POINTER(c_void_p), POINTER(c_size_t), POINTER(c_void_p), POINTER(c_size_t)],
    ),
    "normcache_key_set": (c_int, [KeyHandle, c_char_p, c_size_t, c_char_p, c_size_t]),
    "normcache_prepare": (
        c_int,
        [CacheHandle, c_char_p, c_size_t, c_char_p, c_size_t, POINTER(OperationHandle)],
    ),
    "normcache_op_document": (c_int, [OperationHandle, _BUFFER_OUT, _LENGTH_OUT]),
    "normcache_op_free": (c_int, [OperationHandle]),
    "normcache_normalize": (
        c_int,
        [OperationHandle, c_char_p, c_size_t, c_char_p, c_size_t, _BUFFER_OUT, _LENGTH_OUT],
    ),
    "normcache_normalize_ex": (
        c_int,
        [OperationHandle, c_char_p, c_size_t, c_char_p, c_size_t, c_uint, POINTER(c_size_t), _BUFFER_OUT, _LENGTH_OUT],
    ),
    "normcache_write": (
        c_int,
        [CacheHandle, OperationHandle, c_char_p, c_size_t, c_char_p, c_size_t, _BUFFER_OUT, _LENGTH_OUT],
    ),
    "normcache_read": (
        c_int,
        [CacheHandle, OperationHandle, c_char_p, c_size_t, c_uint, _BUFFER_OUT, _LENGTH_OUT],
    ),
    "normcache_read_fragment": (
        c_int,
        [CacheHandle, OperationHandle, c_char_p, c_size_t, c_char_p, c_size_t, c_uint, _BUFFER_OUT, _LENGTH_OUT],
    ),
    "normcache_write_fragment": (c_int, [*_FRAGMENT_WRITE, _BUFFER_OUT, _LENGTH_OUT]),
    "normcache_write_fragment_ex": (c_int, [*_FRAGMENT_WRITE, POINTER(WriteOptions), _BUFFER_OUT, _LENGTH_OUT]),
    "normcache_set_clock": (c_int, [CacheHandle, CLOCK, c_void_p]),
    "normcache_write_ex": (
        c_int,
        [
            CacheHandle,
            OperationHandle,
            c_char_p,
            c_size_t,
            c_char_p,
            c_size_t,
            POINTER(WriteOptions),
            _BUFFER_OUT,
            _LENGTH_OUT,
        ],
    ),
    "normcache_read_ex": (
        c_int,
        [
            CacheHandle,
            OperationHandle,
            c_char_p,
            c_size_t,
            c_char_p,
            c_size_t,
            POINTER(ReadOptions),
            _BUFFER_OUT,
            _LENGTH_OUT,
        ],
    ),
    "normcache_invalidate": (
        c_int,
        [CacheHandle, c_char_p, c_size_t, c_char_p, c_size_t, c_uint, POINTER(c_uint64)],
    ),
    "normcache_gc": (c_int, [CacheHandle, POINTER(GCOptions), _BUFFER_OUT, _LENGTH_OUT]),
    "normcache_retain": (c_int, [CacheHandle, c_char_p, c_size_t, POINTER(c_uint32)]),
    "normcache_release": (c_int, [CacheHandle, c_char_p, c_size_t, POINTER(c_uint32)]),
    "normcache_fetch_reply_set": (c_int, [ReplyHandle, c_char_p, c_size_t, POINTER(WriteOptions)]),
    "normcache_fetch_reply_error": (c_int, [ReplyHandle, c_char_p, c_size_t]),
    "normcache_execute": (
        c_int,
        [CacheHandle, OperationHandle, c_char_p, c_size_t, *_EXECUTE_RUN],
    ),
    "normcache_put_document": (
        c_int,
        [CacheHandle, c_char_p, c_size_t, c_char_p, c_size_t, POINTER(WriteOptions)],
    ),
    "normcache_get_document": (
        c_int,
        [CacheHandle, c_char_p, c_size_t, POINTER(ReadOptions), _BUFFER_OUT, _LENGTH_OUT],
    ),
    "normcache_execute_document": (c_int, [CacheHandle, c_char_p, c_size_t, *_EXECUTE_RUN]),
    "normcache_refresh_document": (c_int, [CacheHandle, c_char_p, c_size_t, POINTER(WriteOptions)]),
    "normcache_watch": (
        c_int,
        [
            CacheHandle,
            OperationHandle,
            c_char_p,
            c_size_t,
            c_char_p,
            c_size_t,
            RESULT_CALLBACK,
            c_void_p,
            POINTER(WatcherHandle),
        ],
    ),
    "normcache_unwatch": (c_int, [WatcherHandle]),
    "normcache_metrics": (c_int, [CacheHandle, _BUFFER_OUT, _LENGTH_OUT]),
    "normcache_last_commit": (c_int, [CacheHandle, POINTER(c_uint64)]),
    "normcache_changes_since": (c_int, [CacheHandle, c_uint64, _BUFFER_OUT, _LENGTH_OUT]),
    "normcache_wait_commit": (c_int, [CacheHandle, c_uint64, c_int, POINTER(c_uint64)]),
    "normcache_dispatch_changes": (c_int, [CacheHandle, POINTER(c_uint64)]),
}

#: The exception a callback failed with, per thread, until the call it failed raises.
_callback_failure = threading.local()


def describe_failure(error: BaseException) -> str:
    """How a message names the exception a callback failed with: "KeyError: 'uuid'"."""
    text = str(error)
    name = type(error).__qualname__
    return f"{name}: {text}" if text else name


def hold_callback_failure(error: BaseException, message: str | None = None) -> None:
    """Keep `error`, the exception a callback of the library failed with on this thread,
    for the error check of the call that the callback fails (see _declare); `message`,
    when given, replaces the library's message of that call (for callbacks that cannot
    give their reason with normcache_callback_error)."""
    _callback_failure.error = (error, message)


def _take_callback_failure() -> tuple[BaseException | None, str | None]:
    """The exception and message held by hold_callback_failure on this thread, if any;
    forgets them."""
    held: tuple[BaseException | None, str | None] = getattr(_callback_failure, "error", None) or (None, None)
    _callback_failure.error = None
    return held


def candidates(environ: Mapping[str, str], package_dir: Path) -> Iterator[str]:
    """The libraries to try, in order: $NORMCACHE_LIBRARY alone when set; else the copy the
    package carries (package_dir/_lib/libnormcache.so), then the system's, as the loader
    finds it (ctypes.util.find_library, then the soname)."""
    override = environ.get(LIBRARY_ENV)
    if override:
        yield override
        return
    yield str(package_dir / BUNDLED_LIBRARY)
    system = ctypes.util.find_library("normcache")
    if system:
        yield system
    yield _SONAME


def check_version(found: str, expected: str = HEADER_VERSION) -> None:
    """Raise LibraryLoadError unless the library's major version is the header's."""
    if found.split(".")[0] != expected.split(".")[0]:
        raise LibraryLoadError(f"libnormcache {found} does not match this binding, written for {expected}")


def _declare(library: ctypes.CDLL, name: str) -> None:
    """Apply the table to a loaded library; raise LibraryLoadError if a function is missing."""

    def check(status: int, function: Any, arguments: tuple[Any, ...]) -> int:
        # Runs on the calling thread right after the call, where the message is still ours,
        # and so is the exception of a Python callback that failed the call.
        if status >= 0:
            return status
        failure, replacement = _take_callback_failure()
        message = library.normcache_errmsg() or library.normcache_errstr(status)
        if status != ECALLBACK or failure is None:
            raise error_for(status, message.decode("utf-8", "replace"))
        error = error_for(status, replacement or message.decode("utf-8", "replace"))
        if isinstance(failure, (KeyboardInterrupt, SystemExit)):
            raise failure  # the call failed and wrote nothing; the interruption goes on
        raise error from failure

    for symbol, (restype, argtypes) in _PROTOTYPES.items():
        try:
            function = getattr(library, symbol)
        except AttributeError:
            raise LibraryLoadError(f"{name} lacks {symbol}; it is not a matching libnormcache") from None
        function.restype = restype
        function.argtypes = argtypes
        if restype is c_int:
            function.errcheck = check


def _load() -> tuple[ctypes.CDLL, str]:
    """Load the first library that opens, declare its functions and check its version."""
    tried: list[str] = []
    for candidate in candidates(os.environ, Path(__file__).resolve().parent):
        try:
            library = ctypes.CDLL(candidate)
        except OSError as error:
            tried.append(str(error))
            continue
        _declare(library, candidate)
        check_version(library.normcache_version().decode("ascii", "replace"))
        return library, candidate
    raise LibraryLoadError(
        "cannot load libnormcache: install this package with pip from a checkout of the repository, which"
        f" builds the library into it, or set {LIBRARY_ENV} to the library's path. Tried:\n  " + "\n  ".join(tried)
    )


#: The loaded library, and the name or path it was loaded from.
lib, path = _load()


def call_with_buffer(function: Callable[..., int], *arguments: Any) -> tuple[int, bytes]:
    """Call a function whose last two parameters are `char **out, size_t *out_len`; return its
    status and a copy of the buffer (b"" when it gave none), which is freed in the library."""
    buffer = c_void_p()
    length = c_size_t()
    try:
        status = function(*arguments, ctypes.byref(buffer), ctypes.byref(length))
        data = ctypes.string_at(buffer.value, length.value) if buffer.value else b""
        return status, data
    finally:
        lib.normcache_free(buffer)
