"""Clocks written in Python (Cache.set_clock): the time, in seconds since 1970, that a cache
handle stamps on the fields it writes and judges freshness by. A testing aid: with a clock
it sets, a test reads data "31 minutes later" without waiting.

One C clock, alive as long as this module, serves every Python clock: the library is
given it with a number as its context, and the number names a ClockSlot in a table of
weak references. The slot belongs to its Cache, so the Python clock lives exactly as long
as the cache uses it (until set_clock replaces it or the cache is closed) and then goes
with its table entry, also when the clock and the cache refer to each other. The library
calls a clock outside its locks, so a call that began just before set_clock replaced the
clock may still ask by the old number: it gets the system time, as the library itself
would have with the clock removed. No call can reach freed code either way.
"""

from __future__ import annotations

import itertools
import operator
import time
import weakref
from typing import Any, Callable, SupportsIndex, cast

from ._library import CLOCK, describe_failure, hold_callback_failure, lib

#: A clock: returns the time now in seconds since 1970, an int.
Clock = Callable[[], int]

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


class ClockSlot:
    """A Python clock as its cache holds it, and the number the library knows it by."""

    __slots__ = ("__weakref__", "clock", "number")

    def __init__(self, clock: Clock, number: int) -> None:
        """The slot of `clock`, known to the library as `number`."""
        self.clock = clock
        self.number = number


#: The clocks the library may call, by their context number; an entry goes when its
#: cache drops the slot.
_slots: weakref.WeakValueDictionary[int, ClockSlot] = weakref.WeakValueDictionary()
#: Context numbers, never 0 (which the library would pass back as NULL).
_numbers = itertools.count(1)


def _seconds(answer: object) -> int:
    """A clock's answer as the int64 the library takes; TypeError or OverflowError for
    anything else (a bool is refused, although it is an int)."""
    if isinstance(answer, bool) or not hasattr(type(answer), "__index__"):
        raise TypeError(f"a clock returns an int, seconds since 1970, not {type(answer).__name__}")
    seconds = operator.index(cast(SupportsIndex, answer))
    if not _INT64_MIN <= seconds <= _INT64_MAX:
        raise OverflowError(f"a clock returns seconds since 1970 within 64 bits, not {seconds}")
    return seconds


def _now(context: int | None) -> int:
    """The C clock of every Python clock: asks the one `context` names. Nothing unwinds into
    the library: a clock that raises, or answers something other than an int, makes this
    answer -1, which fails the call that asked with CallbackError "the cache's clock
    failed: <type>: <text>" raised from the exception (KeyboardInterrupt and SystemExit
    fail the call and then propagate as themselves)."""
    slot = _slots.get(context or 0)
    if slot is None:
        return int(time.time())  # replaced during this call: the library's own fallback
    try:
        return _seconds(slot.clock())
    except BaseException as error:  # noqa: BLE001 - nothing may unwind into the library
        hold_callback_failure(error, f"the cache's clock failed: {describe_failure(error)}")
        return -1


#: The C clock, alive as long as this module.
_NOW = CLOCK(_now)


def set_clock(handle: Any, clock: Clock | None) -> ClockSlot | None:
    """Set `clock` (None: the system clock) as the clock of the cache `handle`; return the
    slot the cache must hold for as long as the library may call the clock (None for the
    system clock). On failure nothing changes and the new slot is dropped."""
    if clock is None:
        lib.normcache_set_clock(handle, CLOCK(), None)
        return None
    if not callable(clock):
        raise TypeError(f"clock must be a callable returning seconds since 1970, or None, not {type(clock).__name__}")
    slot = ClockSlot(clock, next(_numbers))
    _slots[slot.number] = slot
    lib.normcache_set_clock(handle, _NOW, slot.number)
    return slot
