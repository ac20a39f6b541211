"""put and get: merge rules, changed keys, references, exact numbers and strings, unicode keys."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import stored

import normcache
from normcache import _library

R2 = {"Droid:2001": {"name": "R2-D2", "primaryFunction": "Astromech"}}


def _raw_get(cache: normcache.Cache, key: str) -> bytes:
    """The record as the library returns it, before Python parses the numbers."""
    encoded = key.encode()
    status, record = _library.call_with_buffer(_library.lib.normcache_get, cache._live_handle(), encoded, len(encoded))
    assert status == _library.OK
    return record


# --- put and get -----------------------------------------------------------------------


def test_put_returns_the_new_fields_in_input_order(cache: normcache.Cache) -> None:
    assert cache.put(R2) == ["Droid:2001.name", "Droid:2001.primaryFunction"]
    assert cache.get("Droid:2001") == {"name": "R2-D2", "primaryFunction": "Astromech"}


def test_changed_keys_follow_the_input_order_across_records(cache: normcache.Cache) -> None:
    changed = cache.put({"B:1": {"z": 1, "a": 2}, "A:1": {"m": 3}, "C:1": {"b": 4, "a": 5}})
    assert changed == ["B:1.z", "B:1.a", "A:1.m", "C:1.b", "C:1.a"]


def test_changed_names_that_need_escapes_come_back_exactly(cache: normcache.Cache) -> None:
    # Names with a quote, a backslash, a control character, the separator '","' and
    # non-ASCII text take the parsing path; the others are split (see _changed_fields).
    records = {'Q:"1"': {"a": 1}, "B:\\2": {'say("hi")': 2}, "T:\t": {'x","y': 3}, "U:é": {"ü": 4}}
    assert cache.put(records) == ['Q:"1".a', 'B:\\2.say("hi")', 'T:\t.x","y', "U:é.ü"]
    assert cache.put({"U:é": {"ü": 5, "zß": 6}}) == ["U:é.ü", "U:é.zß"]


def test_a_hundred_thousand_changed_fields_come_back_in_input_order(cache: normcache.Cache) -> None:
    records = {f"Post:{n}": {"title": f"t{n}", "score": n} for n in range(50_000, 0, -1)}
    changed = cache.put(records)
    assert len(changed) == 100_000
    assert changed[:4] == ["Post:50000.title", "Post:50000.score", "Post:49999.title", "Post:49999.score"]
    assert changed[-1] == "Post:1.score"
    assert changed == [f"Post:{n}.{field}" for n in range(50_000, 0, -1) for field in ("title", "score")]


def test_get_of_a_missing_record_is_none(cache: normcache.Cache) -> None:
    assert cache.get("Droid:2001") is None
    cache.put(R2)
    assert cache.get("Droid:2000") is None
    assert cache.get("Droid:20011") is None
    assert cache.get("Droid:200") is None


def test_get_orders_fields_by_their_bytes(cache: normcache.Cache) -> None:
    cache.put({"A:1": {"b": 1, "é": 2, "a": 3, "Z": 4, "z": 5, "aa": 6}})
    assert list(stored(cache, "A:1")) == ["Z", "a", "aa", "b", "z", "é"]


def test_put_accepts_str_and_bytes_json_text(cache: normcache.Cache) -> None:
    assert cache.put('{"Droid:2001": {"name": "R2-D2"}}') == ["Droid:2001.name"]
    assert cache.put(b'{"Droid:2001": {"name": "Artoo"}}') == ["Droid:2001.name"]
    assert cache.put(' \n\t{ "Droid:2001" : { "name" : "Artoo" } } \r\n') == []
    assert cache.get("Droid:2001") == {"name": "Artoo"}


def test_put_of_nothing_changes_nothing(cache: normcache.Cache) -> None:
    assert cache.put({}) == []
    assert cache.put("{}") == []
    assert cache.put(b"{}") == []
    assert cache.search("") == []


def test_put_of_another_type_is_a_type_error(cache: normcache.Cache) -> None:
    with pytest.raises(TypeError):
        cache.put([{"A:1": {"x": 1}}])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cache.put(None)  # type: ignore[arg-type]


def test_keys_of_another_type_are_a_type_error(cache: normcache.Cache) -> None:
    with pytest.raises(TypeError):
        cache.get(2001)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cache.remove(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cache.search("A", after=5)  # type: ignore[arg-type]


def test_every_kind_of_value_round_trips(cache: normcache.Cache) -> None:
    fields: dict[str, Any] = {
        "string": "R2-D2",
        "empty": "",
        "int": 42,
        "negative": -7,
        "float": 3.25,
        "true": True,
        "false": False,
        "null": None,
        "list": [1, "two", 3.0, None, True, [4, [5]], {"six": 6}],
        "emptyList": [],
        "object": {"lat": 52.5, "lng": 13.4, "tags": ["a", "b"], "nested": {"deep": None}},
        "emptyObject": {},
    }
    assert cache.put({"Scalar:1": fields}) == [f"Scalar:1.{name}" for name in fields]
    assert cache.get("Scalar:1") == fields
    assert cache.put({"Scalar:1": fields}) == []


# --- merge -----------------------------------------------------------------------------


def test_last_write_wins_per_field_and_absent_fields_stay(cache: normcache.Cache) -> None:
    cache.put(R2)
    assert cache.put({"Droid:2001": {"name": "Artoo"}}) == ["Droid:2001.name"]
    assert cache.get("Droid:2001") == {"name": "Artoo", "primaryFunction": "Astromech"}


def test_rewriting_identical_data_reports_no_change(cache: normcache.Cache) -> None:
    cache.put(R2)
    assert cache.put(R2) == []
    assert cache.put({"Droid:2001": {"name": "R2-D2"}}) == []
    assert cache.get("Droid:2001") == R2["Droid:2001"]


def test_only_the_fields_that_changed_are_reported(cache: normcache.Cache) -> None:
    cache.put(R2)
    changed = cache.put(
        {"Droid:2001": {"name": "R2-D2", "primaryFunction": "Repair", "height": 1.09}, "Human:1000": {"name": "Luke"}}
    )
    assert changed == ["Droid:2001.primaryFunction", "Droid:2001.height", "Human:1000.name"]


def test_lists_are_replaced_whole(cache: normcache.Cache) -> None:
    luke, han, leia = ({"$reference": f"Human:{n}"} for n in (1000, 1002, 1003))
    assert cache.put({"Droid:2001": {"friends": [luke, han, leia]}}) == ["Droid:2001.friends"]
    assert cache.put({"Droid:2001": {"friends": [leia]}}) == ["Droid:2001.friends"]
    assert cache.get("Droid:2001") == {"friends": [leia]}
    assert cache.put({"Droid:2001": {"friends": [leia]}}) == []
    assert cache.put({"Droid:2001": {"friends": []}}) == ["Droid:2001.friends"]
    assert cache.get("Droid:2001") == {"friends": []}


def test_objects_that_are_values_are_replaced_whole(cache: normcache.Cache) -> None:
    cache.put({"Place:1": {"position": {"lat": 1, "lng": 2}}})
    assert cache.put({"Place:1": {"position": {"lat": 1}}}) == ["Place:1.position"]
    assert cache.get("Place:1") == {"position": {"lat": 1}}


def test_null_is_data_and_changes_are_reported(cache: normcache.Cache) -> None:
    cache.put({"A:1": {"x": 1}})
    assert cache.put({"A:1": {"x": None}}) == ["A:1.x"]
    assert cache.get("A:1") == {"x": None}
    assert cache.put({"A:1": {"x": None}}) == []
    assert cache.put({"A:1": {"x": False}}) == ["A:1.x"]
    assert cache.put({"A:1": {"x": 0}}) == ["A:1.x"]
    assert cache.put({"A:1": {"x": ""}}) == ["A:1.x"]
    assert cache.get("A:1") == {"x": ""}


def test_a_record_key_twice_in_one_input_merges_in_input_order(cache: normcache.Cache) -> None:
    changed = cache.put('{"A:1": {"x": 1, "y": 1}, "B:1": {"z": 1}, "A:1": {"y": 2, "w": 3}}')
    assert cache.get("A:1") == {"w": 3, "x": 1, "y": 2}
    assert cache.get("B:1") == {"z": 1}
    assert changed == ["A:1.x", "A:1.y", "B:1.z", "A:1.w"]


def test_the_same_field_twice_in_one_input_keeps_the_last(cache: normcache.Cache) -> None:
    assert cache.put('{"A:1": {"x": 1}, "A:1": {"x": 2}}') == ["A:1.x"]
    assert cache.get("A:1") == {"x": 2}
    cache.put('{"B:1": {"x": 1, "x": 2}}')
    assert cache.get("B:1") == {"x": 2}


# --- references ------------------------------------------------------------------------


def test_references_round_trip(cache: normcache.Cache) -> None:
    record = {
        "name": "R2-D2",
        "friends": [{"$reference": "Human:1000"}, None, {"$reference": "Human:1002"}],
        "bestFriend": {"$reference": "Human:1000"},
        "meta": {"owner": {"$reference": "Human:1003"}, "list": [[{"$reference": "Droid:2000"}]]},
    }
    assert cache.put({"Droid:2001": record}) == [
        "Droid:2001.name",
        "Droid:2001.friends",
        "Droid:2001.bestFriend",
        "Droid:2001.meta",
    ]
    assert cache.get("Droid:2001") == record
    assert cache.get("Human:1000") is None  # a reference does not create its record


def test_a_reference_differs_from_a_string(cache: normcache.Cache) -> None:
    cache.put({"A:1": {"r": "Human:1000"}})
    assert cache.put({"A:1": {"r": {"$reference": "Human:1000"}}}) == ["A:1.r"]
    assert cache.get("A:1") == {"r": {"$reference": "Human:1000"}}
    assert cache.put({"A:1": {"r": {"$reference": "Human:1001"}}}) == ["A:1.r"]


def test_reference_to_a_unicode_key(cache: normcache.Cache) -> None:
    record = {"owner": {"$reference": "Persön:😀"}}
    cache.put({"Pet:1": record})
    assert cache.get("Pet:1") == record


# --- exact numbers and strings ---------------------------------------------------------


def test_numbers_keep_their_text(cache: normcache.Cache) -> None:
    cache.put('{"A:1": {"x": 1.0, "big": 12345678901234567890}}')
    record = cache.get("A:1")
    assert record == {"big": 12345678901234567890, "x": 1.0}
    assert type(record["x"]) is float
    assert type(record["big"]) is int


@pytest.mark.parametrize(
    "text",
    [
        "1.0",
        "12345678901234567890",
        "-98765432109876543210987654321",
        "1.50",
        "0.1000000000000000055511151231257827",
        "1E+2",
        "1e-7",
        "-0",
        "-0.0",
        "0",
        "3.141592653589793238462643383279",
        "1.7976931348623157e309",
    ],
)
def test_number_text_survives_byte_for_byte(cache: normcache.Cache, text: str) -> None:
    cache.put(f'{{"N:1": {{"n": {text}, "in": [{text}]}}}}')
    raw = json.loads(_raw_get(cache, "N:1"), parse_float=str, parse_int=str, parse_constant=str)
    assert raw == {"in": [text], "n": text}


def test_python_floats_and_big_ints_round_trip(cache: normcache.Cache) -> None:
    fields = {"f": 1.0, "g": 0.1, "h": 1e300, "i": 2**70, "j": -(2**64)}
    cache.put({"A:1": fields})
    record = cache.get("A:1")
    assert record == fields
    assert type(record["f"]) is float


@pytest.mark.parametrize(
    "value",
    [
        "café",
        "cafe\u0301",
        "😀 emoji",
        "日本語のテキスト",
        "nul\u0000inside",
        "controls \u0001\u001f\u007f",
        'quote " backslash \\ slash /',
        "line\nbreak\ttab\rreturn",
        "\u2028\u2029",
        "\ufeffbom",
        "\uffff\ufffe noncharacters",
        "\U0010ffff last",
    ],
)
def test_strings_keep_every_code_point(cache: normcache.Cache, value: str) -> None:
    cache.put({"S:1": {"s": value, "list": [value]}})
    assert cache.get("S:1") == {"list": [value], "s": value}


def test_escaped_and_raw_strings_are_the_same_value(cache: normcache.Cache) -> None:
    cache.put(b'{"S:1": {"s": "\\u00e9\\ud83d\\ude00\\n"}}')
    assert cache.put('{"S:1": {"s": "é😀\\n"}}') == []
    assert cache.get("S:1") == {"s": "é😀\n"}


# --- keys ------------------------------------------------------------------------------


def test_unicode_keys_are_distinct_byte_strings(cache: normcache.Cache) -> None:
    keys = ["Café:1", "Cafe\u0301:1", "😀:1", "日本:1", "Ωmega:1", "a\u0000b:1"]
    cache.put({key: {"key": key} for key in keys})
    for key in keys:
        assert cache.get(key) == {"key": key}
        assert cache.get(key.encode("utf-8")) == {"key": key}
    assert cache.search("") == sorted(keys, key=lambda k: k.encode("utf-8"))


def test_escaped_key_is_the_same_key(cache: normcache.Cache) -> None:
    cache.put(b'{"Caf\\u00e9:1": {"x": 1}}')
    assert cache.get("Café:1") == {"x": 1}
    assert cache.search("Caf") == ["Café:1"]


def test_bytes_and_str_keys_are_the_same(cache: normcache.Cache) -> None:
    cache.put(R2)
    assert cache.get(b"Droid:2001") == cache.get("Droid:2001")
    assert cache.search(b"Droid:") == ["Droid:2001"]
    assert cache.remove(b"Droid:2001") is True
    assert cache.get("Droid:2001") is None


def test_path_keys_of_objects_without_an_id(cache: normcache.Cache) -> None:
    records = {
        "QUERY_ROOT": {"hero": {"$reference": "Droid:2001"}},
        "QUERY_ROOT.hero.friends.0": {"name": "Luke"},
        "Droid:2001.friendsConnection(first:2).edges.0": {"cursor": "Y3Vyc29y"},
    }
    assert cache.put(records) == [
        "QUERY_ROOT.hero",
        "QUERY_ROOT.hero.friends.0.name",
        "Droid:2001.friendsConnection(first:2).edges.0.cursor",
    ]
    for key, fields in records.items():
        assert cache.get(key) == fields


def test_field_keys_with_arguments(cache: normcache.Cache) -> None:
    fields = {"friends(first:2)": [{"$reference": "Human:1000"}], "hero(episode:JEDI)": None}
    assert cache.put({"QUERY_ROOT": fields}) == ["QUERY_ROOT.friends(first:2)", "QUERY_ROOT.hero(episode:JEDI)"]
    assert cache.get("QUERY_ROOT") == fields
