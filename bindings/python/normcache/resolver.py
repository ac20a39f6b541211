"""Key resolvers written in Python: the programmatic key rule, asked first for every
object a write or normalize meets (Apollo's cacheKeyInfo).

A resolver is handed to the library with normcache_set_key_resolver_v2: one C callback
for all resolvers, with a number as its context that names the Python callable in a
table, and a destroy callback that takes the callable out of the table when the library
holds it no more (the cache closed or given another resolver, and every operation
prepared with it freed). So a resolver lives exactly as long as something may call it.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from ctypes import byref, c_size_t, c_void_p, sizeof, string_at
from typing import Any, Callable, Optional, Union

from ._library import (
    DESTROY,
    ECALLBACK,
    KEY_RESOLVER,
    NOTFOUND,
    OK,
    KeyHandle,
    ObjectHandle,
    describe_failure,
    hold_callback_failure,
    lib,
)

#: What a resolver returns: None (no key from it), an id, or (id, group).
KeyAnswer = Optional[Union[str, int, tuple[Union[str, int], Optional[str]]]]
#: A resolver: fn(typename or None, obj) -> KeyAnswer.
KeyResolver = Callable[[Optional[str], "ResponseObject"], KeyAnswer]

#: SIZE_MAX: ctypes would pass a larger index to a size_t cut to its low bits.
_SIZE_MAX = (1 << (8 * sizeof(c_size_t))) - 1
#: The resolvers the library holds, by the context number it was given with each.
_resolvers: dict[int, KeyResolver] = {}
#: Context numbers, never 0 (which the library would pass back as NULL).
_numbers = itertools.count(1)
#: Guards the table; reentrant, as a garbage collection on a thread that holds it may
#: free an operation, and with it a resolver (_release).
_table_lock = threading.RLock()


class ResponseObject:
    """One object of a response as a resolver sees it; valid only during the call, on its
    thread (kept and used later, it raises InvalidArgumentError).

    Members by name (`obj["id"]`, `get`, `in`, `json`) or listed in response order
    (`keys()`, `items()`, `iter(obj)`, `len(obj)`, `member_json`). A response may repeat a
    name in one object: a lookup by name finds the first, the listing gives each.
    """

    def __init__(self, handle: ObjectHandle) -> None:
        """A view of the library's object `handle`."""
        self._handle = handle

    def json(self, name: str) -> bytes | None:
        """The member `name` as the JSON text it has in the response, or None."""
        encoded = name.encode("utf-8")
        text = c_void_p()
        length = c_size_t()
        status = lib.normcache_object_member(self._handle, encoded, len(encoded), byref(text), byref(length))
        if status == NOTFOUND or text.value is None:
            return None
        return string_at(text.value, length.value)

    def __getitem__(self, name: str) -> Any:
        """The member `name` as a Python value; KeyError when the object has none."""
        text = self.json(name)
        if text is None:
            raise KeyError(name)
        return json.loads(text)

    def get(self, name: str, default: Any = None) -> Any:
        """The member `name` as a Python value, or `default`."""
        text = self.json(name)
        return default if text is None else json.loads(text)

    def __contains__(self, name: object) -> bool:
        """Whether the object has the member `name`."""
        return isinstance(name, str) and self.json(name) is not None

    def __len__(self) -> int:
        """The number of members, a repeated name counted each time."""
        count = c_size_t()
        lib.normcache_object_member_count(self._handle, byref(count))
        return count.value

    def member_json(self, index: int) -> tuple[bytes, bytes]:
        """The member at `index` (0 is the first) in response order: its name and its value
        as the JSON text they have in the response (the name a string with its quotes and
        escapes: b'"e\\u00e9"'). IndexError when `index` is negative or not below len()."""
        name, name_length = c_void_p(), c_size_t()
        text, length = c_void_p(), c_size_t()
        if 0 <= index <= _SIZE_MAX:
            status = lib.normcache_object_member_at(
                self._handle, index, byref(name), byref(name_length), byref(text), byref(length)
            )
            if status != NOTFOUND and name.value is not None and text.value is not None:
                return string_at(name.value, name_length.value), string_at(text.value, length.value)
        raise IndexError(f"member index {index} is out of range")

    def _members(self) -> list[tuple[bytes, bytes]]:
        """Every member's name and value as JSON text, in response order."""
        return [self.member_json(index) for index in range(len(self))]

    def keys(self) -> list[str]:
        """The member names, decoded, in response order (a repeated name as often as it is repeated)."""
        return [json.loads(name) for name, _ in self._members()]

    def items(self) -> list[tuple[str, Any]]:
        """The members as (name, Python value) pairs, in response order."""
        return [(json.loads(name), json.loads(text)) for name, text in self._members()]

    def __iter__(self) -> Iterator[str]:
        """The member names, as keys() gives them."""
        return iter(self.keys())


def _text(value: str | int) -> bytes:
    """An id or group as UTF-8: integers in decimal; booleans are refused."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError(f"a key id must be a str or an int, not {type(value).__name__}")
    return str(value).encode("utf-8")


def _resolve(context: int | None, typename: int | None, typename_len: int, obj: ObjectHandle, key: KeyHandle) -> int:
    """The C key resolver of every Python resolver: runs the one `context` names and hands
    its answer to the library. Nothing unwinds into the library: an exception (or an
    answer of the wrong type) is kept for the failing call, which raises CallbackError
    from it (or the exception itself, for KeyboardInterrupt and SystemExit), and its
    text becomes the end of the library's message."""
    try:
        resolver = _resolvers[context or 0]
        name = string_at(typename, typename_len).decode("utf-8") if typename else None
        answer = resolver(name, ResponseObject(obj))
        if answer is None:
            return OK
        identifier, group = answer if isinstance(answer, tuple) else (answer, None)
        encoded_id = _text(identifier)
        encoded_group = _text(group) if group is not None else None
        lib.normcache_key_set(key, encoded_id, len(encoded_id), encoded_group, len(encoded_group or b""))
        return OK
    except BaseException as error:  # noqa: BLE001 - nothing may unwind into the library
        hold_callback_failure(error)
        try:
            reason = describe_failure(error).encode("utf-8", "replace")
            lib.normcache_callback_error(reason, len(reason))
        except BaseException:  # noqa: BLE001 - the failure is reported all the same
            pass
        return ECALLBACK


def _release(context: int | None) -> None:
    """The destroy callback: the library holds the resolver `context` no more."""
    with _table_lock:
        _resolvers.pop(context or 0, None)


#: The C callbacks, alive as long as this module.
_RESOLVE = KEY_RESOLVER(_resolve)
_RELEASE = DESTROY(_release)


def set_key_resolver(handle: Any, resolver: KeyResolver | None) -> None:
    """Set `resolver` (None: remove it) as the key resolver of the cache `handle`."""
    if resolver is None:
        lib.normcache_set_key_resolver_v2(handle, KEY_RESOLVER(), None, DESTROY())
        return
    with _table_lock:
        context = next(_numbers)
        _resolvers[context] = resolver
    # On failure the library has called _release already.
    lib.normcache_set_key_resolver_v2(handle, _RESOLVE, context, _RELEASE)
