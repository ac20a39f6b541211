"""normcache: an embeddable normalized cache on LMDB, through its C ABI (ctypes).

    import normcache
    with normcache.Cache("app.cache") as cache:
        cache.put({"Droid:2001": {"name": "R2-D2"}})   # ["Droid:2001.name"]
        cache.get("Droid:2001")                        # {"name": "R2-D2"}
"""

from ._library import lib as _lib
from .cache import Cache
from .errors import (
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

#: The version of this package.
__version__ = "0.1.0"


def version() -> str:
    """The version of the loaded libnormcache, "MAJOR.MINOR.PATCH"."""
    found: bytes = _lib.normcache_version()
    return found.decode("ascii")


__all__ = [
    "Cache",
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
    "ReadOnlyError",
    "SchemaError",
    "StorageError",
    "__version__",
    "version",
]
