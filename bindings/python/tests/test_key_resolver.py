"""Key resolvers written in Python: what they see and answer, how their failures come back
(the exception as the __cause__ of the CallbackError, with its words in the message;
KeyboardInterrupt and SystemExit as themselves; nothing written), and how long the library
keeps them (until nothing can call them any more, then released once)."""

from __future__ import annotations

import gc
import traceback
import weakref
from ctypes import byref
from pathlib import Path
from typing import Any, Callable

import pytest

import normcache
from normcache import _library
from normcache import resolver as resolvers

DOCUMENT = "{ a { b } }"
RESPONSE = {"data": {"a": {"__typename": "A", "b": 1}}}
FEED = "{ feed { b } }"
FEED_RESPONSE = {"data": {"feed": [{"__typename": "Article", "b": 1}]}}


class _Resolver:
    """A resolver that leaves every object to the other rules and counts its calls."""

    def __init__(self) -> None:
        """No calls yet."""
        self.calls = 0

    def __call__(self, typename: str | None, obj: normcache.ResponseObject) -> None:
        """Count the call; no key."""
        self.calls += 1


def _released(resolver: object, log: list[str], name: str) -> None:
    """Append `name` to `log` when `resolver` is freed."""
    weakref.finalize(resolver, log.append, name)


# --- what a resolver sees and answers ---------------------------------------------------


def test_a_key_resolver_comes_first_and_may_decline(cache: normcache.Cache) -> None:
    seen: list[Any] = []

    def resolver(typename: Any, obj: normcache.ResponseObject) -> Any:
        seen.append(typename)
        if typename == "Dog":
            return (obj["license"]["no"], "Licensed")
        if typename == "Cat":
            return obj.get("name")
        return None

    cache.configure({"defaultKeyFields": ["id"]})
    cache.set_key_resolver(resolver)
    with cache.prepare("{ dog { license } cat { name } bird { id } }") as op:
        records = cache.normalize(
            op,
            {
                "data": {
                    "dog": {"__typename": "Dog", "license": {"no": 5}},
                    "cat": {"__typename": "Cat", "name": "Tom"},
                    "bird": {"__typename": "Bird", "id": 3},
                }
            },
        )
    assert list(records) == ["Licensed:5", "Cat:Tom", "Bird:3", "QUERY_ROOT"]
    assert seen == ["Dog", "Cat", "Bird"]


def test_a_resolver_lists_the_members_in_response_order(cache: normcache.Cache) -> None:
    seen: list[dict[str, Any]] = []

    def resolver(typename: str | None, obj: normcache.ResponseObject) -> None:
        seen.append(
            {
                "keys": obj.keys(),
                "iter": list(obj),
                "len": len(obj),
                "items": obj.items(),
                "json": [obj.member_json(index) for index in range(len(obj))],
            }
        )
        for outside in (-1, len(obj), 2**64 - 1, 2**64):
            with pytest.raises(IndexError) as past:
                obj.member_json(outside)
            assert str(past.value) == f"member index {outside} is out of range"

    cache.set_key_resolver(resolver)
    with cache.prepare("{ a { id b { c } } }") as op:
        # JSON text, so that the name keeps its escape as the response wrote it.
        cache.write(op, r'{"data": {"a": {"__typename":"A","id":7,"b":{"c":1},"e\u00e9":"x"}}}')
    assert seen == [
        {
            "keys": ["__typename", "id", "b", "e\u00e9"],
            "iter": ["__typename", "id", "b", "e\u00e9"],
            "len": 4,
            "items": [("__typename", "A"), ("id", 7), ("b", {"c": 1}), ("e\u00e9", "x")],
            "json": [(b'"__typename"', b'"A"'), (b'"id"', b"7"), (b'"b"', b'{"c":1}'), (b'"e\\u00e9"', b'"x"')],
        },
        {"keys": ["c"], "iter": ["c"], "len": 1, "items": [("c", 1)], "json": [(b'"c"', b"1")]},
    ]


def test_a_repeated_name_is_listed_at_each_place_and_found_first_by_name(cache: normcache.Cache) -> None:
    seen: list[tuple[list[str], list[tuple[str, Any]], Any]] = []
    cache.set_key_resolver(lambda typename, obj: seen.append((obj.keys(), obj.items(), obj["id"])))
    with cache.prepare("{ a { id } }") as op:
        cache.normalize(op, '{"data": {"a": {"id": 1, "id": 2}}}')
    assert seen == [(["id", "id"], [("id", 1), ("id", 2)], 1)]


def test_an_object_kept_past_its_call_is_refused(cache: normcache.Cache) -> None:
    kept: list[normcache.ResponseObject] = []
    cache.set_key_resolver(lambda typename, obj: kept.append(obj))
    with cache.prepare(DOCUMENT) as op:
        cache.write(op, RESPONSE)
    assert len(kept) == 1
    calls: list[Callable[[], object]] = [
        kept[0].keys,
        lambda: len(kept[0]),
        lambda: kept[0].member_json(0),
        lambda: kept[0].json("b"),
    ]
    for call in calls:
        with pytest.raises(normcache.InvalidArgumentError) as refused:
            call()
        assert refused.value.message == "object is not the object of a key resolver running on this thread"


# --- failures ---------------------------------------------------------------------------


def test_an_exception_in_a_resolver_is_the_cause_of_the_callback_error(cache: normcache.Cache) -> None:
    raised: list[BaseException] = []

    def resolver(typename: str | None, obj: normcache.ResponseObject) -> Any:
        error = RuntimeError("boom")
        raised.append(error)
        raise error

    cache.put({"Kept:1": {"x": 1}})
    cache.set_key_resolver(resolver)
    with cache.prepare(DOCUMENT) as op:
        calls: list[Callable[[], object]] = [
            lambda: cache.write(op, RESPONSE),
            lambda: cache.normalize(op, RESPONSE),
            lambda: cache.write(op, RESPONSE, changes=False),
        ]
        for call in calls:
            with pytest.raises(normcache.CallbackError) as failure:
                call()
            assert type(failure.value) is normcache.CallbackError
            assert failure.value.code == -7
            assert failure.value.message == "the key resolver failed at a: RuntimeError: boom"
            assert failure.value.__cause__ is raised[-1]
            assert failure.value.__suppress_context__ is True
            frames = traceback.extract_tb(raised[-1].__traceback__)
            assert [frame.name for frame in frames] == ["_resolve", "resolver"]
            assert frames[-1].line == "raise error"
    assert len(raised) == 3
    assert cache.search("") == ["Kept:1"]


@pytest.mark.parametrize(
    "resolver, reason, cause",
    [
        (lambda typename, obj: obj["uuid"], "KeyError: 'uuid'", KeyError),
        (lambda typename, obj: True, "TypeError: a key id must be a str or an int, not bool", TypeError),
        (lambda typename, obj: {"id": 1}, "TypeError: a key id must be a str or an int, not dict", TypeError),
        (lambda typename, obj: ("1", 2.5), "TypeError: a key id must be a str or an int, not float", TypeError),
        (lambda typename, obj: "", "InvalidArgumentError: empty id", normcache.InvalidArgumentError),
        (lambda typename, obj: 1 / 0, "ZeroDivisionError: division by zero", ZeroDivisionError),
        (lambda typename, obj: (_ for _ in ()).throw(ValueError()), "ValueError", ValueError),
    ],
    ids=["key-error", "bool", "dict", "float-group", "empty-id", "zero-division", "no-text"],
)
def test_the_message_says_why_the_resolver_failed_and_where(
    cache: normcache.Cache, resolver: normcache.KeyResolver, reason: str, cause: type[BaseException]
) -> None:
    cache.set_key_resolver(resolver)
    with cache.prepare(FEED) as op, pytest.raises(normcache.CallbackError) as failure:
        cache.write(op, FEED_RESPONSE)
    assert failure.value.message == f"the key resolver failed at feed.0: {reason}"
    assert type(failure.value.__cause__) is cause
    assert cache.search("") == []


@pytest.mark.parametrize("interruption", [KeyboardInterrupt(), SystemExit(3)], ids=["KeyboardInterrupt", "SystemExit"])
def test_keyboard_interrupt_and_system_exit_in_a_resolver_propagate_as_themselves(
    cache: normcache.Cache, interruption: BaseException
) -> None:
    def resolver(typename: str | None, obj: normcache.ResponseObject) -> Any:
        raise interruption

    cache.put({"Kept:1": {"x": 1}})
    cache.set_key_resolver(resolver)
    with cache.prepare(DOCUMENT) as op:
        for call in (lambda: cache.write(op, RESPONSE), lambda: cache.normalize(op, RESPONSE)):
            with pytest.raises(type(interruption)) as failure:
                call()
            assert failure.value is interruption
            # The library failed the call with the interruption's words; nothing was written.
            reason = "KeyboardInterrupt" if isinstance(interruption, KeyboardInterrupt) else "SystemExit: 3"
            assert _library.lib.normcache_errmsg().decode() == f"the key resolver failed at a: {reason}"
    assert cache.search("") == ["Kept:1"]
    assert cache.get("QUERY_ROOT") is None


def test_a_failure_in_a_nested_write_keeps_the_chain_of_causes(cache: normcache.Cache, tmp_path: Path) -> None:
    with normcache.Cache(tmp_path / "inner.cache") as inner:
        inner.set_key_resolver(lambda typename, obj: obj["missing"])
        with inner.prepare(DOCUMENT) as inner_op:

            def outer(typename: str | None, obj: normcache.ResponseObject) -> None:
                inner.write(inner_op, RESPONSE)

            cache.set_key_resolver(outer)
            with cache.prepare(DOCUMENT) as op, pytest.raises(normcache.CallbackError) as failure:
                cache.write(op, RESPONSE)
        assert inner.search("") == []
    inner_error = failure.value.__cause__
    assert isinstance(inner_error, normcache.CallbackError)
    assert inner_error.message == "the key resolver failed at a: KeyError: 'missing'"
    assert failure.value.message == f"the key resolver failed at a: CallbackError: {inner_error.message}"
    assert type(inner_error.__cause__) is KeyError
    assert cache.search("") == []


def test_a_failure_is_not_carried_over_to_the_next_call(cache: normcache.Cache) -> None:
    fail = [True]

    def resolver(typename: str | None, obj: normcache.ResponseObject) -> Any:
        if fail[0]:
            raise LookupError("once")
        return None

    cache.set_key_resolver(resolver)
    with cache.prepare(DOCUMENT) as op:
        with pytest.raises(normcache.CallbackError) as failure:
            cache.write(op, RESPONSE)
        assert type(failure.value.__cause__) is LookupError
        fail[0] = False
        assert cache.write(op, RESPONSE) == ["QUERY_ROOT.a.b", "QUERY_ROOT.a.__typename", "QUERY_ROOT.a"]
        with pytest.raises(normcache.DataError) as data_error:
            cache.write(op, {"data": {"a": 5}})
        assert data_error.value.__cause__ is None


# --- lifetime ---------------------------------------------------------------------------


def test_a_resolver_is_released_once_after_the_cache_and_every_operation_let_go(cache_path: Path) -> None:
    released: list[str] = []
    held = len(resolvers._resolvers)
    resolver = _Resolver()
    _released(resolver, released, "released")
    probe = weakref.ref(resolver)
    cache = normcache.Cache(cache_path)
    cache.set_key_resolver(resolver)
    first = cache.prepare(DOCUMENT)
    second = cache.prepare(DOCUMENT)
    del resolver
    assert len(resolvers._resolvers) == held + 1

    cache.set_key_resolver(None)  # the cache lets go; its operations hold it still
    cache.close()
    gc.collect()
    assert released == []
    records = {"QUERY_ROOT.a": {"b": 1, "__typename": "A"}, "QUERY_ROOT": {"a": {"$reference": "QUERY_ROOT.a"}}}
    assert cache.normalize(first, RESPONSE) == records
    assert cache.normalize(second, RESPONSE) == records
    counted = probe()
    assert counted is not None and counted.calls == 2
    del counted

    first.close()
    gc.collect()
    assert released == []
    second.close()  # the last hold: released now, without waiting for the collector
    assert released == ["released"]
    assert len(resolvers._resolvers) == held
    gc.collect()
    assert released == ["released"]


def test_a_resolver_is_released_when_replaced_or_when_the_cache_closes(cache_path: Path) -> None:
    released: list[str] = []
    held = len(resolvers._resolvers)
    with normcache.Cache(cache_path) as cache:
        for name in ("first", "second"):
            resolver = _Resolver()
            _released(resolver, released, name)
            cache.set_key_resolver(resolver)
            del resolver
        assert released == ["first"]
        assert len(resolvers._resolvers) == held + 1
    assert released == ["first", "second"]
    assert len(resolvers._resolvers) == held


def test_a_resolver_the_library_refuses_is_released_at_once(cache_path: Path) -> None:
    released: list[str] = []
    held = len(resolvers._resolvers)
    encoded = str(cache_path).encode()
    handle = _library.CacheHandle()
    _library.lib.normcache_open(encoded, len(encoded), None, 0, byref(handle))
    _library.lib.normcache_close(handle)
    resolver = _Resolver()
    _released(resolver, released, "released")
    try:
        resolvers.set_key_resolver(handle, resolver)
    except normcache.InvalidArgumentError as error:
        assert type(error) is normcache.InvalidArgumentError
        assert error.message == "the cache handle is closed or was never opened"
    else:
        pytest.fail("a closed handle took a resolver")
    # The library called the destroy callback before it failed: only this test (and the
    # frames of the error's traceback, a cycle) hold the resolver now.
    assert len(resolvers._resolvers) == held
    del resolver
    gc.collect()
    assert released == ["released"]


def test_an_operation_keeps_its_resolver_when_the_cache_changes_it(cache: normcache.Cache) -> None:
    cache.set_key_resolver(lambda typename, obj: ("1", "Old"))
    with cache.prepare(DOCUMENT) as old:
        cache.set_key_resolver(lambda typename, obj: ("1", "New"))
        with cache.prepare(DOCUMENT) as new:
            assert list(cache.normalize(old, RESPONSE)) == ["Old:1", "QUERY_ROOT"]
            assert list(cache.normalize(new, RESPONSE)) == ["New:1", "QUERY_ROOT"]
