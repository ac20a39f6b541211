"""Key resolvers written in Python: the programmatic key rule, asked first for every
object a write or normalize meets (Apollo's cacheKeyInfo)."""

from __future__ import annotations

import json
from ctypes import byref, c_size_t, c_void_p, string_at
from typing import Any, Callable, Optional, Tuple, Union

from ._library import KEY_RESOLVER, OK, lib

#: What a resolver returns: None (no key from it), an id, or (id, group).
KeyAnswer = Optional[Union[str, int, Tuple[Union[str, int], Optional[str]]]]
#: A resolver: fn(typename or None, obj) -> KeyAnswer.
KeyResolver = Callable[[Optional[str], "ResponseObject"], KeyAnswer]

#: The status a failing Python resolver returns to the library (NORMCACHE_ECALLBACK).
_FAILED = -7

#: Every callback handed to the library. Operations keep the resolver of the moment
#: they were prepared, even after the cache or its resolver changes, so a callback is
#: never freed while the library might still call it.
_alive: list = []


class ResponseObject:
    """One object of a response as a resolver sees it; valid only during the call."""

    def __init__(self, handle: int) -> None:
        """A view of the library's object `handle`."""
        self._handle = handle

    def json(self, name: str) -> Optional[bytes]:
        """The member `name` as the JSON text it has in the response, or None."""
        encoded = name.encode("utf-8")
        text = c_void_p()
        length = c_size_t()
        status = lib.normcache_object_member(self._handle, encoded, len(encoded), byref(text), byref(length))
        if status != OK or text.value is None:
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


def _text(value: Union[str, int]) -> bytes:
    """An id or group as UTF-8: integers in decimal; booleans are refused."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError(f"a key id must be a str or an int, not {type(value).__name__}")
    return str(value).encode("utf-8")


def trampoline(resolver: KeyResolver) -> Any:
    """The C callback that runs `resolver` and hands its answer to the library. An
    exception in the resolver (or an answer of the wrong type) fails the call with
    CallbackError instead of crossing into C."""

    def call(_context: Optional[int], typename: Optional[int], typename_len: int, obj: int, key: int) -> int:
        try:
            name = string_at(typename, typename_len).decode("utf-8") if typename else None
            answer = resolver(name, ResponseObject(obj))
            if answer is None:
                return OK
            identifier, group = answer if isinstance(answer, tuple) else (answer, None)
            encoded_id = _text(identifier)
            encoded_group = _text(group) if group is not None else None
            lib.normcache_key_set(key, encoded_id, len(encoded_id), encoded_group, len(encoded_group or b""))
            return OK
        except BaseException:  # noqa: BLE001 - nothing may unwind into the library
            return _FAILED

    callback = KEY_RESOLVER(call)
    _alive.append(callback)
    return callback
