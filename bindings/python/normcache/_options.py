"""The option structs of the calls that take a lifetime or a policy, built from the
arguments of the Python API: normcache_write_options from max_age, a response's headers
and strict_keys (Cache.write, put, write_fragment, put_document, a fetch's reply), the
max_stale of normcache_read_options, and normcache_execute_options from policy names."""

from __future__ import annotations

import operator
from collections.abc import Iterable
from ctypes import c_size_t, pointer
from typing import Any, Literal, Protocol

from ._library import EINVAL, ERROR_POLICIES, MAX_AGE_LIMIT, POLICIES, WRITE_STRICT_KEYS, ExecuteOptions, WriteOptions
from .errors import InvalidArgumentError

#: A fetch policy of Cache.execute (the C enum normcache_policy): when to read the cache
#: and when to go to the network (see Cache.execute).
Policy = Literal[
    "cache_first",
    "cache_only",
    "network_only",
    "no_store",
    "network_first",
    "cache_and_network",
    "stale_while_revalidate",
]
#: What Cache.execute does with a response carrying GraphQL "errors": "none" (write
#: nothing, raise GraphQLError), "ignore" (write and return the data as if there were
#: none) or "all" (write and return the data with the errors beside it).
ErrorPolicy = Literal["none", "ignore", "all"]


class Headers(Protocol):
    """A response's headers: anything whose items() gives (name, value) pairs — a dict or
    another mapping, http.client.HTTPMessage (urllib's response.headers), an
    email.message.Message, requests' or httpx's headers. Names are matched without regard
    to case; values are str."""

    def items(self) -> Iterable[tuple[str, Any]]:
        """The (name, value) pairs; a name may come more than once."""
        ...


#: The headers a write reads, by lower-case name, and the member of
#: normcache_write_options each goes to (a document keeps its ETag; other writes ignore it).
_FRESHNESS_HEADERS = {
    "cache-control": "cache_control",
    "age": "age",
    "date": "date",
    "expires": "expires",
    "etag": "etag",
}
#: The largest max_stale: the C member is an int64_t.
MAX_STALE_LIMIT = (1 << 63) - 1


def seconds(value: int | None, name: str, limit: int) -> int:
    """A max_age or max_stale as the C int64_t takes it: -1 for None, else 0..`limit`
    seconds. A bool or a non-integer raises TypeError; a value out of range,
    InvalidArgumentError (the C -1, "none", is None here, so no negative passes)."""
    if value is None:
        return -1
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{name} must be an int or None, not {type(value).__name__}")
    count = operator.index(value)
    if not 0 <= count <= limit:
        raise InvalidArgumentError(EINVAL, f"{name} is {count}: seconds from 0 to {limit}, or None for none")
    return count


def max_stale_seconds(value: int | None) -> int:
    """A max_stale as the C members take it: -1 for None, else 0 and up."""
    return seconds(value, "max_stale", MAX_STALE_LIMIT)


def header_values(headers: Headers) -> dict[str, bytes]:
    """The Cache-Control, Age, Date, Expires and ETag values of `headers`, found whatever the case
    of their names, by the member of normcache_write_options they go to. A header given
    more than once (two Cache-Control lines, or "Age" and "age" in a dict) is one value,
    the values joined with ", " as HTTP joins field lines. The other headers are not read."""
    items = getattr(headers, "items", None)
    if not callable(items):
        raise TypeError(f"headers must be a mapping of header names to values, not {type(headers).__name__}")
    found: dict[str, list[str]] = {}
    for name, value in items():
        if not isinstance(name, str):
            raise TypeError(f"a header name must be a str, not {type(name).__name__}")
        member = _FRESHNESS_HEADERS.get(name.lower())
        if member is None:
            continue
        if not isinstance(value, str):
            raise TypeError(f"the value of the header {name!r} must be a str, not {type(value).__name__}")
        found.setdefault(member, []).append(value)
    return {member: ", ".join(values).encode("utf-8") for member, values in found.items()}


def write_options(max_age: int | None, headers: Headers | None, strict_keys: bool = False) -> WriteOptions | None:
    """The normcache_write_options of a write (None when it gives no lifetime and allows key
    fallbacks). A strict_keys that is not a bool raises TypeError."""
    if not isinstance(strict_keys, bool):
        raise TypeError(f"strict_keys must be a bool, not {type(strict_keys).__name__}")
    if max_age is None and headers is None and not strict_keys:
        return None
    options = WriteOptions()
    options.max_age = seconds(max_age, "max_age", MAX_AGE_LIMIT)
    for member, value in ({} if headers is None else header_values(headers)).items():
        setattr(options, member, value)  # the struct keeps the bytes alive
        setattr(options, f"{member}_len", len(value))
    options.flags = WRITE_STRICT_KEYS if strict_keys else 0
    return options


def counted_write_options(
    max_age: int | None, headers: Headers | None, strict_keys: bool
) -> tuple[WriteOptions, c_size_t]:
    """The normcache_write_options of a write that counts its key fallbacks, and the
    c_size_t its key_fallbacks member points at (the count, once the call has returned)."""
    options = write_options(max_age, headers, strict_keys) or WriteOptions()
    count = c_size_t()
    options.key_fallbacks = pointer(count)
    return options, count


def _choice(value: object, name: str, choices: dict[str, int]) -> int:
    """The C value of the policy name `value`: TypeError for a value that is not a str,
    InvalidArgumentError (as the library's for an unknown enum value) for an unknown name."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    found = choices.get(value)
    if found is None:
        known = ", ".join(repr(choice) for choice in choices)
        raise InvalidArgumentError(EINVAL, f"{name} {value!r} is not one of {known}")
    return found


def execute_options(policy: Policy, error_policy: ErrorPolicy, max_stale: int | None) -> ExecuteOptions:
    """The normcache_execute_options of Cache.execute's arguments."""
    return ExecuteOptions(
        _choice(policy, "policy", POLICIES),
        _choice(error_policy, "error_policy", ERROR_POLICIES),
        max_stale_seconds(max_stale),
    )
