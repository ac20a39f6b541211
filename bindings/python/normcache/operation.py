"""The Operation class: a GraphQL operation prepared by Cache.prepare."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Optional, Type

from ._library import call_with_buffer, lib
from .errors import ClosedError


class Operation:
    """A parsed, validated and compiled GraphQL operation, from Cache.prepare.

    It keeps the schema and key rules its cache had when it was prepared, stays valid after
    that cache is closed, and may be used with any cache (Cache.normalize, write, read) from
    many threads. Release it with close() or a `with` block; a forgotten one is freed when
    it is garbage collected.
    """

    def __init__(self, handle: int) -> None:
        """Wrap a normcache_op handle; Cache.prepare makes them, this class frees them."""
        self._handle: Optional[int] = handle
        self._lock = threading.Lock()

    @property
    def closed(self) -> bool:
        """Whether close() has been called."""
        return self._handle is None

    def _live_handle(self) -> int:
        """The handle; ClosedError after close()."""
        handle = self._handle
        if handle is None:
            raise ClosedError(-1, "the operation is closed")
        return handle

    @property
    def document(self) -> str:
        """The document to send to the server: the operation and the fragments it uses, with
        `__typename` added to every selection set but the root and the key fields the type
        policies need."""
        _, buffer = call_with_buffer(lib.normcache_op_document, self._live_handle())
        return buffer.decode("utf-8")

    def close(self) -> None:
        """Free the operation; again does nothing."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            lib.normcache_op_free(handle)

    def __enter__(self) -> Operation:
        """The operation itself, freed when the block ends."""
        return self

    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        error: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        """Free the operation."""
        self.close()

    def __del__(self) -> None:
        """Free quietly an operation that was not closed."""
        if getattr(self, "_handle", None) is None:
            return
        try:
            self.close()
        except Exception:  # noqa: BLE001 - a finalizer must not raise
            pass

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else f"handle=0x{self._handle:x}"
        return f"<normcache.Operation {state}>"
