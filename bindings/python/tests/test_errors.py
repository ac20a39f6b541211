"""Errors: the exception classes, and bad input that must fail cleanly and change nothing."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from conftest import stored

import normcache
from normcache.errors import error_for

CLASSES = {
    -1: normcache.InvalidArgumentError,
    -2: normcache.JSONError,
    -3: normcache.DocumentError,
    -4: normcache.SchemaError,
    -5: normcache.DataError,
    -6: normcache.StorageError,
    -7: normcache.CallbackError,
    -8: normcache.OutOfMemoryError,
    -9: normcache.NotACacheError,
    -10: normcache.ReadOnlyError,
    -11: normcache.FetchError,
    -12: normcache.GraphQLError,
    -13: normcache.Interrupted,
}


# --- the classes -----------------------------------------------------------------------


@pytest.mark.parametrize("code", sorted(CLASSES))
def test_each_code_has_its_class(code: int) -> None:
    error = error_for(code, "what went wrong")
    assert type(error) is CLASSES[code]
    assert isinstance(error, normcache.Error)
    assert error.code == code
    assert error.message == "what went wrong"
    assert "what went wrong" in str(error)


def test_an_unknown_code_is_the_base_error() -> None:
    error = error_for(-99, "future")
    assert type(error) is normcache.Error
    assert error.code == -99


def test_out_of_memory_is_a_memory_error() -> None:
    assert isinstance(error_for(-8, "out"), MemoryError)


def test_closed_is_an_invalid_argument() -> None:
    assert issubclass(normcache.ClosedError, normcache.InvalidArgumentError)


def test_errors_pickle() -> None:
    error = pickle.loads(pickle.dumps(error_for(-2, "bad byte 3")))
    assert type(error) is normcache.JSONError
    assert (error.code, error.message) == (-2, "bad byte 3")
    errors = [{"message": "title is private", "path": ["feed", 0, "title"]}]
    graphql = pickle.loads(pickle.dumps(normcache.GraphQLError(-12, "the response carries GraphQL errors", errors)))
    assert (type(graphql), graphql.code, graphql.errors) == (normcache.GraphQLError, -12, errors)
    assert error_for(-12, "x").errors is None  # type: ignore[attr-defined]


# --- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "records, named",
    [
        ('{"": {"a": 1}}', None),
        ('{"A:1": {"": 1}}', "A:1"),
        ('{"A:1": {"x": 1}, "": {"a": 1}}', None),
    ],
    ids=["empty-key", "empty-field", "empty-key-after-a-good-record"],
)
def test_empty_keys_and_fields_are_invalid(cache: normcache.Cache, records: str, named: str | None) -> None:
    with pytest.raises(normcache.InvalidArgumentError) as failure:
        cache.put(records)
    assert failure.value.code == -1
    assert failure.value.message != ""
    if named:
        assert named in failure.value.message
    assert cache.search("") == []


def test_empty_key_in_get_is_invalid(cache: normcache.Cache) -> None:
    with pytest.raises(normcache.InvalidArgumentError) as failure:
        cache.get("")
    assert failure.value.code == -1


@pytest.mark.parametrize(
    "records",
    [
        '{"A:1": {"x": }}',
        '{"A:1": {"x": 1,}}',
        '{"A:1": {"x": 1}} trailing',
        '{"A:1": {"x": 1}}}',
        "{'A:1': {'x': 1}}",
        '{"A:1": {"x": NaN}}',
        '{"A:1": {"x": Infinity}}',
        '{"A:1": {"x": 01}}',
        '{"A:1": {"x": 1.}}',
        '{"A:1": {"x": .5}}',
        '{"A:1": {"x": +1}}',
        '{"A:1": {"x": tru}}',
        '{"A:1": {"x": "a\nb"}}',
        '{"A:1": {"x": "\\x41"}}',
        '{"A:1": {"x": "\\u12"}}',
        '{"A:1": {"x": 1} /* comment */}',
        '{"A:1" {"x": 1}}',
        '{A:1: {"x": 1}}',
    ],
)
def test_malformed_json_names_a_byte_offset(cache: normcache.Cache, records: str) -> None:
    with pytest.raises(normcache.JSONError) as failure:
        cache.put(records)
    assert failure.value.code == -2
    assert "byte" in failure.value.message


@pytest.mark.parametrize("records", ['{"A:1": {"x": 1', '{"A:1": {"x": "abc', '{"A:1": ', "{", '{"A:1": {"x": [1, 2'])
def test_truncated_json(cache: normcache.Cache, records: str) -> None:
    with pytest.raises(normcache.JSONError) as failure:
        cache.put(records)
    assert failure.value.code == -2
    assert "byte" in failure.value.message


@pytest.mark.parametrize("records", [b"", "", "   ", b"\n"])
def test_empty_input(cache: normcache.Cache, records: str | bytes) -> None:
    with pytest.raises(normcache.JSONError) as failure:
        cache.put(records)
    assert failure.value.code == -2


@pytest.mark.parametrize(
    "records",
    [
        b'{"A:1": {"x": "\xff"}}',
        b'{"A:1": {"x": "\xc0\xaf"}}',  # overlong "/"
        b'{"A:1": {"x": "\xed\xa0\x80"}}',  # an encoded surrogate
        b'{"A:1": {"x": "\xe2\x82"}}',  # a truncated sequence
        b'{"A:1": {"x": "\xf4\x90\x80\x80"}}',  # beyond U+10FFFF
        b'{"A\xff:1": {"x": 1}}',  # in a key
        b'{"A:1": {"\x80": 1}}',  # in a field name
        b'{"A:1": {"x": 1}}\xff',  # after the value
    ],
)
def test_invalid_utf8(cache: normcache.Cache, records: bytes) -> None:
    with pytest.raises(normcache.JSONError) as failure:
        cache.put(records)
    assert failure.value.code == -2
    assert "byte" in failure.value.message
    assert cache.search("") == []


def test_a_lone_surrogate_escape_cannot_become_utf8(cache: normcache.Cache) -> None:
    with pytest.raises(normcache.JSONError):
        cache.put('{"A:1": {"x": "\\ud800"}}')
    with pytest.raises(normcache.JSONError):
        cache.put('{"A:1": {"x": "\\udc00\\ud800"}}')


def test_a_lone_surrogate_in_python_text_fails_before_the_library(cache: normcache.Cache) -> None:
    with pytest.raises(UnicodeEncodeError):
        cache.put({"A:1": {"x": "\ud800"}})
    with pytest.raises(UnicodeEncodeError):
        cache.get("\udc80")


@pytest.mark.parametrize("records", ["[1]", "1", '"A:1"', "null", "true", '[{"A:1": {"x": 1}}]'])
def test_top_level_must_be_an_object(cache: normcache.Cache, records: str) -> None:
    with pytest.raises(normcache.JSONError) as failure:
        cache.put(records)
    assert failure.value.code == -2


@pytest.mark.parametrize("record", ["5", "[1]", "null", '"text"', "true", '[{"x": 1}]'])
def test_a_record_must_be_an_object(cache: normcache.Cache, record: str) -> None:
    with pytest.raises(normcache.JSONError) as failure:
        cache.put(f'{{"Good:1": {{"x": 1}}, "A:1": {record}}}')
    assert failure.value.code == -2
    assert "A:1" in failure.value.message
    assert cache.get("Good:1") is None


@pytest.mark.parametrize(
    "value",
    [
        {"$reference": 5},
        {"$reference": None},
        {"$reference": ["Human:1000"]},
        {"$reference": {"$reference": "Human:1000"}},
        {"$reference": "X", "extra": 1},
        {"extra": 1, "$reference": "X"},
        [{"$reference": 5}],
        {"nested": {"$reference": True}},
    ],
)
def test_malformed_references(cache: normcache.Cache, value: object) -> None:
    with pytest.raises(normcache.JSONError) as failure:
        cache.put({"A:1": {"friend": value}})
    assert failure.value.code == -2
    assert "A:1" in failure.value.message
    assert cache.get("A:1") is None


# --- nesting ---------------------------------------------------------------------------


def _nested(depth: int) -> str:
    """A put whose document nests `depth` levels in all: the top object, the record, and lists."""
    lists = depth - 2
    return '{"Deep:1": {"x": ' + "[" * lists + "]" * lists + "}}"


def test_512_levels_are_accepted(cache: normcache.Cache) -> None:
    assert cache.put(_nested(512)) == ["Deep:1.x"]
    value = stored(cache, "Deep:1")["x"]
    depth = 0
    while value != []:
        value = value[0]
        depth += 1
    assert depth == 509


def test_513_levels_are_rejected(cache: normcache.Cache) -> None:
    with pytest.raises(normcache.JSONError) as failure:
        cache.put(_nested(513))
    assert failure.value.code == -2
    assert cache.get("Deep:1") is None


@pytest.mark.parametrize(
    "records",
    [
        "[" * 100_000,
        "{" * 100_000,
        '{"A:1": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}",
        '{"A:1": {"x": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}}",
        '{"A:1": {"x": ' + "[" * 100_000,
    ],
    ids=["lists", "objects", "balanced-lists", "balanced-objects", "unclosed"],
)
def test_absurd_nesting_is_a_json_error_not_a_crash(cache: normcache.Cache, records: str) -> None:
    with pytest.raises(normcache.JSONError) as failure:
        cache.put(records)
    assert failure.value.code == -2
    assert cache.search("") == []


# --- a failed write changes nothing ----------------------------------------------------


def _snapshot(cache: normcache.Cache) -> dict[str, object]:
    """Every key with its record, and the record count."""
    keys: list[str] = cache.search("")
    return {"keys": keys, "records": {key: cache.get(key) for key in keys}, "count": cache.stats()["records"]}


@pytest.mark.parametrize(
    "records, error",
    [
        ('{"A:1": {"x": 2}, "New:1": {"a": 1}, "B:1": 5}', normcache.JSONError),
        ('{"A:1": {"x": 2}, "New:1": {"a": 1}, "": {"a": 1}}', normcache.InvalidArgumentError),
        ('{"A:1": {"x": 2}, "New:1": {"a": 1}, "B:1": {"": 1}}', normcache.InvalidArgumentError),
        ('{"A:1": {"x": 2}, "New:1": {"a": 1}, "B:1": {"y": 2}', normcache.JSONError),
        ('{"A:1": {"x": 2}, "New:1": {"a": 1}, "B:1": {"r": {"$reference": 5}}}', normcache.JSONError),
        (b'{"A:1": {"x": 2}, "New:1": {"a": 1}, "B:1": {"y": "\xff"}}', normcache.JSONError),
        ('{"A:1": {"x": 2}, "New:1": {"a": 1}, "B:1": {"y": ' + "[" * 1000 + "]" * 1000 + "}}", normcache.JSONError),
        ('{"A:1": null, "New:1": {"a": 1}}', normcache.JSONError),
    ],
    ids=[
        "record-not-object",
        "empty-key",
        "empty-field",
        "truncated",
        "bad-reference",
        "bad-utf8",
        "too-deep",
        "null-record",
    ],
)
def test_a_failed_put_leaves_the_store_unchanged(cache: normcache.Cache, records: str | bytes, error: type) -> None:
    cache.put({"A:1": {"x": 1}, "B:1": {"y": 1, "list": [1, 2]}})
    before = _snapshot(cache)
    with pytest.raises(error):
        cache.put(records)
    assert _snapshot(cache) == before
    assert cache.get("New:1") is None
    assert cache.get("A:1") == {"x": 1}


# --- responses and variables that do not fit the operation -----------------------------

FEED = "query Feed($first: Int) { feed(first: $first) { id } }"


def test_a_response_without_its_envelope_says_what_was_meant(cache: normcache.Cache) -> None:
    op = cache.prepare(FEED)
    response = {"data": {"feed": [{"id": "1"}]}}
    expected = (
        "the response has no 'data' envelope: its member 'feed' is a field of the operation; "
        'pass {"data": <this object>}'
    )
    for call in (lambda: cache.write(op, response["data"]), lambda: cache.normalize(op, response["data"])):
        with pytest.raises(normcache.DataError) as failure:
            call()
        assert (failure.value.code, failure.value.message) == (-5, expected)
    assert cache.search("") == []
    assert cache.write(op, response) == ["QUERY_ROOT.feed.0.id", "QUERY_ROOT.feed"]


@pytest.mark.parametrize(
    "response, message",
    [
        (
            {"data": {"feed": []}, "result": 1},
            "unexpected member 'result' at the top of the response: "
            "a GraphQL response holds only 'data', 'errors' and 'extensions'",
        ),
        ({}, "the response has neither 'data' nor 'errors': a GraphQL response holds one or both"),
    ],
    ids=["stray-member", "empty"],
)
def test_a_stray_top_level_member_is_a_data_error(
    cache: normcache.Cache, response: dict[str, Any], message: str
) -> None:
    op = cache.prepare(FEED)
    with pytest.raises(normcache.DataError) as failure:
        cache.write(op, response)
    assert failure.value.message == message
    assert cache.search("") == []


def test_a_response_with_errors_and_no_data_writes_nothing(cache: normcache.Cache) -> None:
    op = cache.prepare(FEED)
    assert cache.write(op, {"data": None, "errors": [{"message": "boom"}]}) == []
    assert cache.write(op, {"errors": [{"message": "boom"}]}) == []
    assert cache.search("") == []


def test_a_variable_the_operation_does_not_declare_is_refused(cache: normcache.Cache) -> None:
    op = cache.prepare(FEED)
    expected = "variable '$frist' is not declared by operation 'Feed' (it declares: $first)"
    for call in (
        lambda: cache.read(op, {"frist": 3}),
        lambda: cache.write(op, {"data": {"feed": []}}, {"frist": 3}),
        lambda: cache.normalize(op, {"data": {"feed": []}}, {"frist": 3}),
    ):
        with pytest.raises(normcache.InvalidArgumentError) as failure:
            call()
        assert (failure.value.code, failure.value.message) == (-1, expected)
    assert cache.search("") == []


def test_a_variable_used_where_its_type_is_not_allowed_fails_prepare(cache: normcache.Cache) -> None:
    cache.load_schema("type Query { feed(first: Int): [Item] } type Item { id: ID! }")
    with pytest.raises(normcache.DocumentError) as failure:
        cache.prepare("query ($n: String) { feed(first: $n) { id } }")
    assert failure.value.message == (
        "GraphQL error at line 1, column 27: variable '$n' of type 'String' is used in a position expecting type 'Int'"
    )
