"""The exceptions of normcache: one class per negative status code of normcache.h.

The C++ binding (bindings/cpp/normcache.hpp) uses the same names: Error,
InvalidArgumentError, ClosedError, JSONError, DocumentError, SchemaError, DataError,
StorageError, CallbackError, OutOfMemoryError, NotACacheError, ReadOnlyError,
Interrupted; this binding adds FetchError and GraphQLError for the codes of
normcache_execute.
"""

from __future__ import annotations

from typing import Any

from .freshness import Missing, ResponsePath


class LibraryLoadError(ImportError):
    """libnormcache.so could not be found or loaded, or it does not match this binding."""


class Error(Exception):
    """A failed normcache call: `code` is the status code, `message` the library's message."""

    def __init__(self, code: int, message: str) -> None:
        """An error with the status `code` and the text `message`."""
        super().__init__(code, message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        """The library's message."""
        return self.message


class InvalidArgumentError(Error):
    """NORMCACHE_EINVAL (-1): an empty key, an unknown option, a closed cache."""


class ClosedError(InvalidArgumentError):
    """A cache or operation used after close(), the same error whichever thread meets it:
    raised by the binding before it calls the library, and in place of the library's
    InvalidArgumentError when close() on another thread wins the race with a call."""


class JSONError(Error):
    """NORMCACHE_EJSON (-2): malformed JSON, invalid UTF-8, too deep, or the wrong shape."""


class DocumentError(Error):
    """NORMCACHE_EDOCUMENT (-3): a GraphQL document is malformed or invalid."""


class SchemaError(Error):
    """NORMCACHE_ESCHEMA (-4): a schema is malformed or invalid."""


class DataError(Error):
    """NORMCACHE_EDATA (-5): response data does not match its operation."""


class StorageError(Error):
    """NORMCACHE_ESTORAGE (-6): I/O error, disk full, permission denied, lock or map failure."""


class CallbackError(Error):
    """NORMCACHE_ECALLBACK (-7): a user callback failed."""


class OutOfMemoryError(Error, MemoryError):
    """NORMCACHE_ENOMEM (-8): memory could not be allocated."""


class NotACacheError(Error):
    """NORMCACHE_ENOTCACHE (-9): the file is not a normcache cache, is damaged, or is too new."""


class ReadOnlyError(Error):
    """NORMCACHE_EREADONLY (-10): a write on a cache opened read-only."""


class FetchError(Error):
    """NORMCACHE_EFETCH (-11): the fetch of Cache.execute (or execute_document) failed and
    no cached data could stand in. The message is the fetch's: for a fetch that raised,
    "<type>: <text>" of its exception, which is also the __cause__; for a response object
    whose status was not 2xx, "HTTP 503 Service Unavailable"."""


class GraphQLError(Error):
    """NORMCACHE_EGRAPHQL (-12): a fetched response carried GraphQL "errors" under the error
    policy "none"; nothing was written. The message names the first error; `errors` is the
    response's whole "errors" list, when the binding could read it (else None)."""

    def __init__(self, code: int, message: str, errors: list[dict[str, Any]] | None = None) -> None:
        """An error with the status `code`, the text `message` and the response's `errors`."""
        super().__init__(code, message)
        self.errors = errors


class Interrupted(Error):
    """NORMCACHE_INTERRUPTED (-13): Cache.interrupt() stopped the call, which changed
    nothing. Named so as not to shadow the builtin InterruptedError (an OSError)."""


class CacheMiss(Exception):
    """A read found the cache lacking some of the data, or holding it too stale
    (NORMCACHE_MISS). Not an Error: a miss is an answer, not a failure.

    `missing` lists what the read did not return, as Missing entries in document order:
    the response path (["hero", "friends", 2]: a missing record is reported at the path
    of the reference to it), the reason ("absent", "stale" or "invalidated"), the record
    and field looked for, and for stale data when it was written and expired; `paths`
    gives the paths alone. `data` is the data with those parts null when a partial read
    was asked for, else None.
    """

    def __init__(self, missing: list[Missing], data: dict[str, Any] | None = None) -> None:
        """A miss of the entries `missing`, with the partial `data` when it was asked for."""
        super().__init__(missing, data)
        self.missing = missing
        self.data = data

    @property
    def paths(self) -> list[ResponsePath]:
        """The response paths of the `missing` entries, in their order."""
        return [entry.path for entry in self.missing]

    def __str__(self) -> str:
        """How many parts are missing, their paths and why: "... hero.friends.2 (absent)"."""
        parts = ", ".join(str(entry) for entry in self.missing)
        return f"the cache lacks {len(self.missing)} part(s) of the data: {parts}"


_CLASSES: dict[int, type[Error]] = {
    -1: InvalidArgumentError,
    -2: JSONError,
    -3: DocumentError,
    -4: SchemaError,
    -5: DataError,
    -6: StorageError,
    -7: CallbackError,
    -8: OutOfMemoryError,
    -9: NotACacheError,
    -10: ReadOnlyError,
    -11: FetchError,
    -12: GraphQLError,
    -13: Interrupted,
}


def error_for(code: int, message: str) -> Error:
    """The exception for a negative status code (the base Error for a code this binding does not know)."""
    return _CLASSES.get(code, Error)(code, message)
