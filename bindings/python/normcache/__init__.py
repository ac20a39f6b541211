"""normcache: an embeddable normalized cache on LMDB, through its C ABI (ctypes).

    import normcache
    with normcache.Cache("app.cache") as cache:
        cache.put({"Droid:2001": {"name": "R2-D2"}})   # ["Droid:2001.name"]
        cache.get("Droid:2001")                        # {"name": "R2-D2"}

GraphQL responses are normalized by the operation that asked for them:

    with normcache.Cache("app.cache", schema=sdl) as cache, cache.prepare(query) as op:
        response = send(op.document)                   # the document with __typename added
        cache.write(op, response)                      # the changed "recordKey.fieldKey"s
        try:
            data = cache.read(op)                      # exactly the user's selection
        except normcache.CacheMiss as miss:
            miss.paths                                 # [["hero", "friends", 2], ...]
            miss.missing                               # [Missing(path=[...], reason="absent", ...)]

Data has a lifetime: max-age rules per schema coordinate (configure's "maxAges" and
"defaultMaxAge", or SDL @cacheControl), a write's max_age, and the response's caching
headers. A stale field is a miss, unless the read allows max_stale seconds of staleness:

    cache.configure({"maxAges": {"Query.feed": 60, "Article": 1800}, "defaultMaxAge": 3600})
    with urllib.request.urlopen(request) as reply:
        written = cache.write(op, reply.read(), headers=reply.headers)  # Cache-Control, Age, ...
    written.stored                                     # False for Cache-Control: no-store
    result = cache.read_result(op, max_stale=300)      # never raises on a miss
    result.status                                      # "complete", "stale" or "miss"
    result.data, result.stale, result.earliest_expiry  # stale fields returned; when to refresh
    cache.invalidate("Article:7")                      # 5: its fields are stale now, not deleted
    cache.set_clock(lambda: fake_now)                  # a test's clock, seconds since 1970

The C++ binding (bindings/cpp/normcache.hpp) has the same error names and the same
argument order: write(op, response, variables), read(op, variables).
"""

from ._library import lib as _lib
from ._version import __version__
from .cache import Cache, Durability, Headers
from .clock import Clock
from .errors import (
    CacheMiss,
    CallbackError,
    ClosedError,
    DataError,
    DocumentError,
    Error,
    InvalidArgumentError,
    JSONError,
    LibraryLoadError,
    NotACacheError,
    OutOfMemoryError,
    ReadOnlyError,
    SchemaError,
    StorageError,
)
from .freshness import FieldReport, Missing, ReadResult, ReadStatus, Reason, Stale, WriteResult
from .operation import Operation
from .resolver import KeyAnswer, KeyResolver, ResponseObject


def version() -> str:
    """The version of the loaded libnormcache, "MAJOR.MINOR.PATCH"."""
    found: bytes = _lib.normcache_version()
    return found.decode("ascii")


def version_number() -> int:
    """The version of the loaded libnormcache as one integer, MAJOR * 1000000 + MINOR * 1000
    + PATCH (NORMCACHE_VERSION_NUMBER of its header)."""
    found: int = _lib.normcache_version_number()
    return found


__all__ = [
    "Cache",
    "CacheMiss",
    "CallbackError",
    "Clock",
    "ClosedError",
    "DataError",
    "DocumentError",
    "Durability",
    "Error",
    "FieldReport",
    "Headers",
    "InvalidArgumentError",
    "JSONError",
    "KeyAnswer",
    "KeyResolver",
    "LibraryLoadError",
    "Missing",
    "NotACacheError",
    "Operation",
    "OutOfMemoryError",
    "ReadOnlyError",
    "ReadResult",
    "ReadStatus",
    "Reason",
    "ResponseObject",
    "SchemaError",
    "Stale",
    "StorageError",
    "WriteResult",
    "__version__",
    "version",
    "version_number",
]
