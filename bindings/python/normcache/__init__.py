"""normcache: an embeddable normalized cache on LMDB, through its C ABI (ctypes).

    import normcache
    with normcache.Cache("app.cache") as cache:
        cache.put({"Droid:2001": {"name": "R2-D2"}})   # ["Droid:2001.name"]
        cache.get("Droid:2001")                        # {"name": "R2-D2"}
        for key, record in cache.records("Droid:"):    # a key group, listed a page at a time
            print(key, record)                         # Droid:2001 {'name': 'R2-D2'}

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

execute runs an operation the way a client does: it reads the cache and calls your fetch
as the fetch policy says, writes what the network answers, and returns the result:

    def fetch(request):                                # a FetchRequest: document, variables, ...
        body = json.dumps(request.payload()).encode()  # {"query": ..., "variables": ...}
        post = urllib.request.Request(url, body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(post) as reply:
            return reply.read(), reply.headers          # or FetchReply(body, headers, max_age)
    result = cache.execute(op, {"n": 10}, fetch=fetch, policy="cache_first")
    result.source, result.data                         # "network" then "cache"; the selection
    result = await cache.aexecute(op, fetch=async_fetch)   # asyncio: an async fetch (httpx)

Plain JSON documents (REST responses) are kept under a key of yours with a lifetime;
execute_document runs the same policies for them:

    cache.put_document("GET /me", {"name": "Ada"}, max_age=60)      # True (False: no-store)
    cache.get_document("GET /me").data                 # {"name": "Ada"}: a ReadResult
    result = cache.execute_document("GET /articles", fetch=fetch_articles, max_age=1800)

The C++ binding (bindings/cpp/normcache.hpp) has the same error names and the same
argument order: write(op, response, variables), read(op, variables).
"""

from ctypes import byref, c_size_t

from ._library import lib as _lib
from ._options import ErrorPolicy, Headers, Policy
from ._version import __version__
from .cache import Cache, DocumentRefresh, Durability, RulesMode
from .clock import Clock
from .collection import GCReport, GroupRemovals
from .compaction import CompactionReport, compact
from .errors import (
    CacheMiss,
    CallbackError,
    ClosedError,
    DataError,
    DocumentError,
    Error,
    FetchError,
    GraphQLError,
    Interrupted,
    InvalidArgumentError,
    JSONError,
    LibraryLoadError,
    NotACacheError,
    OutOfMemoryError,
    ReadOnlyError,
    SchemaError,
    StorageError,
)
from .fetching import (
    AsyncFetch,
    ExecutionResult,
    Fetch,
    FetchAnswer,
    FetchReply,
    FetchRequest,
    OnResult,
    Source,
)
from .freshness import FieldReport, Missing, ReadResult, ReadStatus, Reason, Stale, WriteResult
from .key_groups import KeyGroup
from .normalized import NormalizedRecords
from .operation import Operation
from .resolver import KeyAnswer, KeyResolver, ResponseObject
from .watching import CommitChanges, Dispatcher, HandleMetrics, LoggedCommit, Watch, WatchCallback


def version() -> str:
    """The version of the loaded libnormcache, "MAJOR.MINOR.PATCH"."""
    found: bytes = _lib.normcache_version()
    return found.decode("ascii")


def version_number() -> int:
    """The version of the loaded libnormcache as one integer, MAJOR * 1000000 + MINOR * 1000
    + PATCH (NORMCACHE_VERSION_NUMBER of its header)."""
    found: int = _lib.normcache_version_number()
    return found


def release_memory() -> int:
    """Frees the memory libnormcache keeps between calls, and returns the bytes it held.

    Writes and reads of large responses let go of blocks of 256 KiB and more, and the
    library keeps them so that the next call does not fault in fresh pages: up to 32 MiB
    ready, and, while calls keep wanting blocks of the same large sizes, up to 256 MiB
    more that the kernel may take back when memory runs short (freed after 10 seconds
    unused), both counted by the memory the blocks hold, not the address space they
    span. They count in the process's resident set until then; this frees them all now,
    as SQLite's ``sqlite3_release_memory``. Process-wide and thread-safe.
    """
    released = c_size_t()
    _lib.normcache_release_memory(byref(released))
    return released.value


__all__ = [
    "AsyncFetch",
    "Cache",
    "CacheMiss",
    "CallbackError",
    "Clock",
    "ClosedError",
    "CommitChanges",
    "CompactionReport",
    "DataError",
    "Dispatcher",
    "DocumentError",
    "DocumentRefresh",
    "Durability",
    "Error",
    "ErrorPolicy",
    "ExecutionResult",
    "Fetch",
    "FetchAnswer",
    "FetchError",
    "FetchReply",
    "FetchRequest",
    "FieldReport",
    "GCReport",
    "GraphQLError",
    "GroupRemovals",
    "HandleMetrics",
    "Headers",
    "Interrupted",
    "InvalidArgumentError",
    "JSONError",
    "KeyAnswer",
    "KeyGroup",
    "KeyResolver",
    "LibraryLoadError",
    "LoggedCommit",
    "Missing",
    "NormalizedRecords",
    "NotACacheError",
    "OnResult",
    "Operation",
    "OutOfMemoryError",
    "Policy",
    "ReadOnlyError",
    "ReadResult",
    "ReadStatus",
    "Reason",
    "ResponseObject",
    "RulesMode",
    "SchemaError",
    "Source",
    "Stale",
    "StorageError",
    "Watch",
    "WatchCallback",
    "WriteResult",
    "__version__",
    "compact",
    "release_memory",
    "version",
    "version_number",
]
