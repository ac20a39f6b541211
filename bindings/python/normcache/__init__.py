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
            miss.missing                               # [["hero", "friends", 2], ...]

The C++ binding (bindings/cpp/normcache.hpp) has the same error names and the same
argument order: write(op, response, variables), read(op, variables).
"""

from ._library import lib as _lib
from ._version import __version__
from .cache import Cache, Durability
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
    "ClosedError",
    "DataError",
    "DocumentError",
    "Durability",
    "Error",
    "InvalidArgumentError",
    "JSONError",
    "KeyAnswer",
    "KeyResolver",
    "LibraryLoadError",
    "NotACacheError",
    "Operation",
    "OutOfMemoryError",
    "ReadOnlyError",
    "ResponseObject",
    "SchemaError",
    "StorageError",
    "__version__",
    "version",
    "version_number",
]
