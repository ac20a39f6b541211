"""The base of the classes that own a library handle: close() once, `with` blocks, a
quiet finalizer, and ClosedError (never a crash) for any use after close."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Any, Callable, Optional, Type, TypeVar

from .errors import ClosedError

_Self = TypeVar("_Self", bound="ManagedHandle")


class ManagedHandle:
    """Owns one handle of the library, released by `release(handle)` exactly once."""

    #: What the handle is called in ClosedError messages ("cache", "operation").
    kind = "handle"

    def __init__(self, handle: Optional[int], release: Callable[[int], Any]) -> None:
        """Take ownership of `handle`, to be released with `release`."""
        self._handle = handle
        self._release = release
        self._lock = threading.Lock()

    @property
    def closed(self) -> bool:
        """Whether close() has been called."""
        return self._handle is None

    def _live_handle(self) -> int:
        """The handle; ClosedError after close()."""
        handle = self._handle
        if handle is None:
            raise ClosedError(-1, f"the {self.kind} is closed")
        return handle

    def close(self) -> None:
        """Release the handle (the library waits for calls in progress); again does nothing."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            self._release(handle)

    def __enter__(self: _Self) -> _Self:
        """The object itself, closed when the block ends."""
        return self

    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        error: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        """Close the object."""
        self.close()

    def __del__(self) -> None:
        """Close quietly an object that was not closed."""
        if getattr(self, "_handle", None) is None:
            return
        try:
            self.close()
        except Exception:  # noqa: BLE001 - a finalizer must not raise
            pass
