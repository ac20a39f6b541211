"""The base of the classes that own a library handle: close() once, `with` blocks, a
finalizer that is quiet (and idle at interpreter shutdown), and ClosedError — never a
crash, never another error — for any use after close, whichever thread meets it first.
Its base, Closing (a `with` block that ends with close()), serves watches and dispatchers too."""

from __future__ import annotations

import atexit
import functools
import threading
from abc import ABC, abstractmethod
from ctypes import c_void_p
from types import TracebackType
from typing import Any, Callable, Generic, TypeVar, cast

from .errors import ClosedError, InvalidArgumentError

_Self = TypeVar("_Self", bound="Closing")
_Handle = TypeVar("_Handle", bound=c_void_p)
_Method = TypeVar("_Method", bound=Callable[..., Any])

#: Set once the interpreter has begun to shut down (llvmlite's pattern): finalizers then
#: leave handles to the process's exit instead of calling a library whose callbacks and
#: Python state may already be gone.
_shutting_down: list[bool] = [False]


@atexit.register
def _at_shutdown() -> None:
    """Mark the interpreter as shutting down; registered at import, so it runs after the
    atexit functions of the program, which may still close what they own."""
    _shutting_down[0] = True


def _is_shutting_down(_flag: list[bool] = _shutting_down) -> bool:
    """Whether the interpreter is shutting down (the flag is bound as a default, so it
    survives the clearing of this module's globals)."""
    return _flag[0]


class Closing(ABC):
    """An object a `with` block closes at its end: the block gets the object itself, and its
    end calls close()."""

    #: Whether an exception close() raises gives way to one the block raised, which then
    #: propagates alone; by default close()'s exception is raised (the block's as its
    #: context).
    close_error_yields_to_block = False

    @abstractmethod
    def close(self) -> None:
        """End what the object holds."""

    def __enter__(self: _Self) -> _Self:
        """The object itself, closed when the block ends."""
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Close the object (see close_error_yields_to_block)."""
        try:
            self.close()
        except BaseException:
            if error is None or not self.close_error_yields_to_block:
                raise


class ManagedHandle(Closing, Generic[_Handle]):
    """Owns one handle of the library, released by `release(handle)` exactly once."""

    #: What the handle is called in ClosedError messages ("cache", "operation").
    kind = "handle"

    def __init__(self, handle: _Handle | None, release: Callable[[_Handle], object]) -> None:
        """Take ownership of `handle`, to be released with `release`."""
        self._handle = handle
        self._release = release
        self._lock = threading.Lock()

    @property
    def closed(self) -> bool:
        """Whether close() has been called."""
        return self._handle is None

    def _closed_error(self) -> ClosedError:
        """The one error of a use after close()."""
        return ClosedError(-1, f"the {self.kind} is closed")

    def _live_handle(self) -> _Handle:
        """The handle; ClosedError after close()."""
        handle = self._handle
        if handle is None:
            raise self._closed_error()
        return handle

    def close(self) -> None:
        """Release the handle (the library waits for calls in progress); again does nothing."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            self._release(handle)

    def __del__(self, _is_shutting_down: Callable[[], bool] = _is_shutting_down) -> None:
        """Close quietly an object that was not closed; at interpreter shutdown, leave it to
        the process's exit."""
        if _is_shutting_down() or getattr(self, "_handle", None) is None:
            return
        try:
            self.close()
        except Exception:  # noqa: BLE001 - a finalizer must not raise
            pass


def raises_closed_error(method: _Method) -> _Method:
    """Make a method that calls the library raise ClosedError when close() on another
    thread won the race with it.

    The method reads the handle, then calls the library; a close() in between makes the
    library refuse the handle with InvalidArgumentError ("the cache handle is closed or was
    never opened", or "the cache '...' is closed" when the close came during the call).
    When that error comes and the object (or a ManagedHandle argument) is closed by then,
    the caller gets the ClosedError the binding raises for any use after close().
    """

    @functools.wraps(method)
    def call(self: ManagedHandle[Any], *arguments: Any, **keywords: Any) -> Any:
        """`method`, with a lost race against close() reported as ClosedError."""
        try:
            return method(self, *arguments, **keywords)
        except ClosedError:
            raise
        except InvalidArgumentError:
            for owner in (self, *arguments, *keywords.values()):
                if isinstance(owner, ManagedHandle) and owner.closed:
                    raise owner._closed_error() from None
            raise

    return cast(_Method, call)
