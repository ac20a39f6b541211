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
"""

from ._library import lib as _lib
from .cache import Cache
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
    NoMemoryError,
    NotACacheError,
    ReadOnlyError,
    SchemaError,
    StorageError,
)
from .operation import Operation
from .resolver import ResponseObject

#: The version of this package.
__version__ = "0.1.0"


def version() -> str:
    """The version of the loaded libnormcache, "MAJOR.MINOR.PATCH"."""
    found: bytes = _lib.normcache_version()
    return found.decode("ascii")


__all__ = [
    "ResponseObject",
    "Cache",
    "CacheMiss",
    "CallbackError",
    "ClosedError",
    "DataError",
    "DocumentError",
    "Error",
    "InvalidArgumentError",
    "JSONError",
    "LibraryLoadError",
    "NoMemoryError",
    "NotACacheError",
    "Operation",
    "ReadOnlyError",
    "SchemaError",
    "StorageError",
    "__version__",
    "version",
]
