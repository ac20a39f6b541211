"""GraphQL operations: schema and key rules, prepare, the network document, normalize, write,
read with hits, misses and partial data, the errors of each, and the Operation's life."""

from __future__ import annotations

import gc
import json
import pickle
import threading
from collections.abc import Iterator
from ctypes import byref
from pathlib import Path
from typing import Any, Union

import pytest

import normcache
from normcache import _library

STAR_WARS = """
schema { query: Query mutation: Mutation }
type Query { hero(episode: Episode): Character droid(id: ID!): Droid human(id: ID!): Human }
type Mutation { rename(id: ID!, name: String!): Character }
enum Episode { NEWHOPE EMPIRE JEDI }
interface Character { id: ID! name: String! friends: [Character] appearsIn: [Episode] }
type Human implements Character { id: ID! name: String! friends: [Character] appearsIn: [Episode] height: Float }
type Droid implements Character {
  id: ID! name: String! friends: [Character] appearsIn: [Episode] primaryFunction: String
}
"""

DROID_POLICY = {"typePolicies": {"Droid": {"keyFields": ["id"]}}}

HERO = "{ hero { name friends { name } } }"

# Luke has no key rule, so he and his keyless friend Han are stored by response path;
# R2-D2 is a Droid, keyed by id.
HERO_RESPONSE: dict[str, Any] = {
    "data": {
        "hero": {
            "__typename": "Human",
            "name": "Luke Skywalker",
            "friends": [
                {"__typename": "Human", "name": "Han Solo"},
                {"__typename": "Droid", "id": "2001", "name": "R2-D2"},
            ],
        }
    }
}

HERO_RECORDS: dict[str, dict[str, Any]] = {
    "QUERY_ROOT": {"hero": {"$reference": "QUERY_ROOT.hero"}},
    "QUERY_ROOT.hero": {
        "__typename": "Human",
        "name": "Luke Skywalker",
        "friends": [{"$reference": "QUERY_ROOT.hero.friends.0"}, {"$reference": "Droid:2001"}],
    },
    "QUERY_ROOT.hero.friends.0": {"__typename": "Human", "name": "Han Solo"},
    "Droid:2001": {"__typename": "Droid", "id": "2001", "name": "R2-D2"},
}

HERO_DATA = {"hero": {"name": "Luke Skywalker", "friends": [{"name": "Han Solo"}, {"name": "R2-D2"}]}}

Path_ = list[Union[str, int]]


def _unordered(paths: list[Path_]) -> list[str]:
    """Paths in a canonical order, to compare lists of paths whatever order they come in."""
    return sorted(json.dumps(path) for path in paths)


@pytest.fixture
def rules_cache(cache_path: Path) -> Iterator[normcache.Cache]:
    """A cache without a schema, with Droids keyed by id."""
    with normcache.Cache(cache_path, config=DROID_POLICY) as opened:
        yield opened


@pytest.fixture
def star_wars(cache_path: Path) -> Iterator[normcache.Cache]:
    """A cache with the Star Wars schema, Droids and Humans keyed by id."""
    sdl = STAR_WARS + 'extend type Droid @typePolicy(keyFields: "id")\nextend type Human @typePolicy(keyFields: "id")\n'
    with normcache.Cache(cache_path, schema=sdl) as opened:
        yield opened


# --- normalize -------------------------------------------------------------------------


def test_normalize_gives_exactly_the_records(rules_cache: normcache.Cache) -> None:
    with rules_cache.prepare(HERO) as op:
        assert rules_cache.normalize(op, HERO_RESPONSE) == HERO_RECORDS


def test_normalize_keys_entities_by_schema_policies(star_wars: normcache.Cache) -> None:
    response = {
        "data": {
            "hero": {
                "__typename": "Droid",
                "id": "2001",
                "name": "R2-D2",
                "friends": [{"__typename": "Human", "id": "1000", "name": "Luke"}, None],
            }
        }
    }
    with star_wars.prepare(HERO) as op:
        assert star_wars.normalize(op, response) == {
            "QUERY_ROOT": {"hero": {"$reference": "Droid:2001"}},
            "Droid:2001": {
                "__typename": "Droid",
                "id": "2001",
                "name": "R2-D2",
                "friends": [{"$reference": "Human:1000"}, None],
            },
            "Human:1000": {"__typename": "Human", "id": "1000", "name": "Luke"},
        }


def test_normalize_accepts_json_text_as_str_and_bytes(rules_cache: normcache.Cache) -> None:
    text = json.dumps(HERO_RESPONSE, indent=2)
    with rules_cache.prepare(HERO) as op:
        assert rules_cache.normalize(op, text) == HERO_RECORDS
        assert rules_cache.normalize(op, text.encode()) == HERO_RECORDS


def test_normalize_keeps_unicode(rules_cache: normcache.Cache) -> None:
    with rules_cache.prepare("{ hero { name } }") as op:
        records = rules_cache.normalize(op, {"data": {"hero": {"__typename": "Human", "name": "Padmé 🚀"}}})
    assert records["QUERY_ROOT.hero"]["name"] == "Padmé 🚀"


def test_normalize_stores_arguments_and_variables_in_field_keys(cache: normcache.Cache) -> None:
    document = (
        "query Hero($episode: Episode, $first: Int = 2) { hero(episode: $episode) { friends(first: $first) { name } } }"
    )
    response = {"data": {"hero": {"friends": [{"name": "Han"}]}}}
    with cache.prepare(document) as op:
        assert cache.normalize(op, response, {"episode": "JEDI"}) == {
            "QUERY_ROOT": {"hero(episode:JEDI)": {"$reference": "QUERY_ROOT.hero(episode:JEDI)"}},
            "QUERY_ROOT.hero(episode:JEDI)": {
                "friends(first:2)": [{"$reference": "QUERY_ROOT.hero(episode:JEDI).friends(first:2).0"}]
            },
            "QUERY_ROOT.hero(episode:JEDI).friends(first:2).0": {"name": "Han"},
        }
        # A variable that is absent and has no default drops its argument.
        assert set(cache.normalize(op, response)) == {
            "QUERY_ROOT",
            "QUERY_ROOT.hero",
            "QUERY_ROOT.hero.friends(first:2).0",
        }


def test_field_keys_of_variables_follow_the_contract(cache: normcache.Cache) -> None:
    document = (
        "query ($r: ReviewInput, $ints: [Int], $f: Float, $gone: Int) "
        '{ review(s: "é x", r: $r, ints: $ints, f: $f, e: JEDI, g: $gone) { stars } }'
    )
    variables = {"r": {"stars": 4, "commentary": "x", "nested": {"b": 1, "a": None}}, "ints": [1, None, 2], "f": 2.0}
    key = "review(e:JEDI,f:2.0,ints:[1, <null>, 2],[r:commentary:x,[nested:a:null,b:1],stars:4],s:é x)"
    with cache.prepare(document) as op:
        assert cache.normalize(op, {"data": {"review": {"stars": 4}}}, variables) == {
            "QUERY_ROOT": {key: {"$reference": f"QUERY_ROOT.{key}"}},
            f"QUERY_ROOT.{key}": {"stars": 4},
        }


def test_separators_in_strings_keep_their_own_field(cache: normcache.Cache) -> None:
    """`q: "cats,topic:dogs"` and `q: "cats", topic: "dogs"` once shared a storage key."""
    cache.load_schema("type Query { search(q: String, topic: String, r: [In]): [String] } input In { b: Int a: ID }")
    joined_key = r"search(q:cats\,topic\:dogs)"
    with (
        cache.prepare('{ search(q: "cats,topic:dogs") }') as joined,
        cache.prepare('{ search(q: "cats", topic: "dogs") }') as apart,
        cache.prepare("query ($q: String, $topic: String) { search(q: $q, topic: $topic) }") as variable,
        cache.prepare("query ($r: [In]) { search(r: $r) }") as objects,
    ):
        assert cache.write(joined, {"data": {"search": ["cats and dogs"]}}) == [f"QUERY_ROOT.{joined_key}"]
        assert cache.write(apart, {"data": {"search": ["dogs about cats"]}}) == ["QUERY_ROOT.search(q:cats,topic:dogs)"]
        assert cache.get("QUERY_ROOT") == {
            "search(q:cats,topic:dogs)": ["dogs about cats"],
            joined_key: ["cats and dogs"],
        }
        assert cache.read(joined) == {"search": ["cats and dogs"]}
        assert cache.read(apart) == {"search": ["dogs about cats"]}
        assert cache.read(variable, {"q": "cats,topic:dogs"}) == {"search": ["cats and dogs"]}
        assert cache.read(variable, {"q": "cats", "topic": "dogs"}) == {"search": ["dogs about cats"]}
        # Each input object of a list sorts its own pairs; its strings are escaped too.
        assert cache.normalize(objects, {"data": {"search": []}}, {"r": [{"b": 1, "a": "x(y)"}, {"b": 2}]}) == {
            "QUERY_ROOT": {r"search(r:[a:x\(y\),b:1,b:2])": []}
        }


def test_normalize_of_a_response_without_data_is_empty(rules_cache: normcache.Cache) -> None:
    with rules_cache.prepare(HERO) as op:
        assert rules_cache.normalize(op, {"data": None}) == {}
        assert rules_cache.normalize(op, {"errors": [{"message": "boom"}]}) == {}


def test_normalize_touches_no_cache(rules_cache: normcache.Cache) -> None:
    with rules_cache.prepare(HERO) as op:
        rules_cache.normalize(op, HERO_RESPONSE)
    assert rules_cache.search("") == []


# --- write and read --------------------------------------------------------------------


def test_write_stores_the_records_and_read_returns_the_selection(rules_cache: normcache.Cache) -> None:
    with rules_cache.prepare(HERO) as op:
        changed = rules_cache.write(op, HERO_RESPONSE)
        assert sorted(changed) == sorted(f"{key}.{field}" for key, fields in HERO_RECORDS.items() for field in fields)
        for key, fields in HERO_RECORDS.items():
            assert rules_cache.get(key) == fields, key
        assert rules_cache.read(op) == HERO_DATA
        assert rules_cache.write(op, HERO_RESPONSE) == []


def test_write_without_changes_stores_the_same_records(rules_cache: normcache.Cache) -> None:
    with rules_cache.prepare(HERO) as op:
        assert rules_cache.write(op, HERO_RESPONSE, changes=False) == []
        for key, fields in HERO_RECORDS.items():
            assert rules_cache.get(key) == fields, key
        assert rules_cache.read(op) == HERO_DATA
        with pytest.raises(normcache.DataError, match="hero"):
            rules_cache.write(op, {"data": {"hero": 7}}, changes=False)


def test_read_json_is_the_compact_data_in_selection_order(rules_cache: normcache.Cache) -> None:
    with rules_cache.prepare(HERO) as op:
        rules_cache.write(op, HERO_RESPONSE)
        assert rules_cache.read_json(op) == (
            '{"hero":{"name":"Luke Skywalker","friends":[{"name":"Han Solo"},{"name":"R2-D2"}]}}'
        )
    with rules_cache.prepare("{ hero { friends { name } name } }") as op:
        assert rules_cache.read_json(op) == (
            '{"hero":{"friends":[{"name":"Han Solo"},{"name":"R2-D2"}],"name":"Luke Skywalker"}}'
        )


def test_leaf_values_come_back_as_written(cache: normcache.Cache) -> None:
    response = (
        '{"data": {"n": 1.0, "big": 12345678901234567890, "s": "caf\\u00e9 \\ud83d\\ude80",'
        ' "scalar": {"b": [1, {"c": null}], "a": true}}}'
    )
    with cache.prepare("{ n big s scalar }") as op:
        cache.write(op, response)
        assert (
            cache.read_json(op)
            == '{"n":1.0,"big":12345678901234567890,"s":"café 🚀","scalar":{"b":[1,{"c":null}],"a":true}}'
        )
        assert cache.read(op) == {
            "n": 1.0,
            "big": 12345678901234567890,
            "s": "café 🚀",
            "scalar": {"b": [1, {"c": None}], "a": True},
        }


def test_aliases_and_typename_read_back(star_wars: normcache.Cache) -> None:
    with star_wars.prepare(HERO) as op:
        star_wars.write(op, {"data": {"hero": {"__typename": "Droid", "id": "2001", "name": "R2-D2", "friends": []}}})
    with star_wars.prepare("{ r2: hero { n: name __typename } }") as op:
        assert star_wars.read(op) == {"r2": {"n": "R2-D2", "__typename": "Droid"}}


def test_another_operation_reads_the_same_records(rules_cache: normcache.Cache) -> None:
    with rules_cache.prepare(HERO) as op:
        rules_cache.write(op, HERO_RESPONSE)
    with rules_cache.prepare("query Friends { hero { friends { name } } }") as op:
        assert rules_cache.read(op) == {"hero": {"friends": [{"name": "Han Solo"}, {"name": "R2-D2"}]}}


def test_a_keyed_entity_is_shared_by_every_operation(rules_cache: normcache.Cache) -> None:
    with rules_cache.prepare(HERO) as op:
        rules_cache.write(op, HERO_RESPONSE)
    with rules_cache.prepare("{ droid { name primaryFunction } }") as op:
        changed = rules_cache.write(
            op,
            {"data": {"droid": {"__typename": "Droid", "id": "2001", "name": "Artoo", "primaryFunction": "Astromech"}}},
        )
        assert sorted(changed) == ["Droid:2001.name", "Droid:2001.primaryFunction", "QUERY_ROOT.droid"]
    with rules_cache.prepare(HERO) as op:
        assert rules_cache.read(op) == {
            "hero": {"name": "Luke Skywalker", "friends": [{"name": "Han Solo"}, {"name": "Artoo"}]}
        }


def test_variables_pick_the_stored_field(cache: normcache.Cache) -> None:
    with cache.prepare("query Hero($episode: Episode) { hero(episode: $episode) { name } }") as op:
        assert sorted(cache.write(op, {"data": {"hero": {"name": "Luke"}}}, {"episode": "JEDI"})) == [
            "QUERY_ROOT.hero(episode:JEDI)",
            "QUERY_ROOT.hero(episode:JEDI).name",
        ]
        assert cache.read(op, {"episode": "JEDI"}) == {"hero": {"name": "Luke"}}
        with pytest.raises(normcache.CacheMiss) as miss:
            cache.read(op, {"episode": "EMPIRE"})
        assert miss.value.paths == [["hero"]]
        with pytest.raises(normcache.CacheMiss):
            cache.read(op)  # no variable: the argument is dropped, and `hero` was never written
    with cache.prepare("{ hero { name } }") as plain:
        cache.write(plain, {"data": {"hero": {"name": "R2"}}})
    with cache.prepare("query Hero($episode: Episode) { hero(episode: $episode) { name } }") as op:
        assert cache.read(op) == {"hero": {"name": "R2"}}
        assert cache.read(op, {}) == {"hero": {"name": "R2"}}


def test_a_stored_null_is_data(cache: normcache.Cache) -> None:
    with cache.prepare(HERO) as op:
        cache.write(op, {"data": {"hero": None}})
        assert cache.read(op) == {"hero": None}
    with cache.prepare("{ hero { name friends { name } } }") as op:
        cache.write(op, {"data": {"hero": {"name": None, "friends": [None, {"name": "Han"}]}}})
        assert cache.read(op) == {"hero": {"name": None, "friends": [None, {"name": "Han"}]}}


def test_mutations_have_their_own_root(cache: normcache.Cache) -> None:
    cache.configure({"defaultKeyFields": ["id"], "storeMutationRoot": True})
    with cache.prepare('mutation { rename(id: "1", name: "X") { id name } }') as op:
        changed = cache.write(op, {"data": {"rename": {"__typename": "Human", "id": "1", "name": "X"}}})
        assert sorted(changed) == [
            "Human:1.__typename",
            "Human:1.id",
            "Human:1.name",
            "MUTATION_ROOT.rename(id:1,name:X)",
        ]
        assert cache.read(op) == {"rename": {"id": "1", "name": "X"}}


# --- misses and partial reads ----------------------------------------------------------


def test_reading_an_empty_cache_misses_every_root_field(cache: normcache.Cache) -> None:
    with cache.prepare("{ hero { name } droid { id } }") as op:
        with pytest.raises(normcache.CacheMiss) as miss:
            cache.read(op)
    assert _unordered(miss.value.paths) == _unordered([["hero"], ["droid"]])
    assert miss.value.data is None


def test_a_miss_lists_exactly_the_missing_paths(rules_cache: normcache.Cache) -> None:
    with rules_cache.prepare(HERO) as op:
        rules_cache.write(op, HERO_RESPONSE)
    with rules_cache.prepare("{ hero { name appearsIn friends { name primaryFunction } } villain { name } }") as op:
        with pytest.raises(normcache.CacheMiss) as miss:
            rules_cache.read(op)
        expected: list[Path_] = [
            ["hero", "appearsIn"],
            ["hero", "friends", 0, "primaryFunction"],
            ["hero", "friends", 1, "primaryFunction"],
            ["villain"],
        ]
        assert _unordered(miss.value.paths) == _unordered(expected)
        assert miss.value.data is None
        with pytest.raises(normcache.CacheMiss) as raw:
            rules_cache.read_json(op)
        assert _unordered(raw.value.paths) == _unordered(expected)
        assert raw.value.data is None


def test_a_partial_read_nulls_the_missing_parts(rules_cache: normcache.Cache) -> None:
    with rules_cache.prepare(HERO) as op:
        rules_cache.write(op, HERO_RESPONSE)
    partial = {
        "hero": {
            "name": "Luke Skywalker",
            "appearsIn": None,
            "friends": [{"name": "Han Solo", "primaryFunction": None}, {"name": "R2-D2", "primaryFunction": None}],
        }
    }
    with rules_cache.prepare("{ hero { name appearsIn friends { name primaryFunction } } }") as op:
        with pytest.raises(normcache.CacheMiss) as miss:
            rules_cache.read(op, partial=True)
        assert miss.value.data == partial
        assert _unordered(miss.value.paths) == _unordered(
            [
                ["hero", "appearsIn"],
                ["hero", "friends", 0, "primaryFunction"],
                ["hero", "friends", 1, "primaryFunction"],
            ]
        )
        with pytest.raises(normcache.CacheMiss) as raw:
            rules_cache.read_json(op, partial=True)
        assert raw.value.data == partial
    with rules_cache.prepare(HERO) as op:
        assert rules_cache.read(op, partial=True) == HERO_DATA  # nothing missing: plain data


def test_a_missing_record_is_missed_at_its_reference(rules_cache: normcache.Cache) -> None:
    with rules_cache.prepare(HERO) as op:
        rules_cache.write(op, HERO_RESPONSE)
        assert rules_cache.remove("Droid:2001")
        with pytest.raises(normcache.CacheMiss) as miss:
            rules_cache.read(op, partial=True)
    assert miss.value.paths == [["hero", "friends", 1]]
    assert miss.value.missing == [normcache.Missing(["hero", "friends", 1], "absent", "Droid:2001")]
    assert miss.value.data == {"hero": {"name": "Luke Skywalker", "friends": [{"name": "Han Solo"}, None]}}


def test_field_policies_resolve_straight_to_records(cache_path: Path) -> None:
    sdl = STAR_WARS + (
        'extend type Droid @typePolicy(keyFields: "id")\n'
        'extend type Query @fieldPolicy(forField: "droid", keyArgs: "id")\n'
    )
    with normcache.Cache(cache_path, schema=sdl) as cache:
        cache.put({"Droid:3000": {"__typename": "Droid", "id": "3000", "name": "BB-8"}})
        with cache.prepare("query ($id: ID!) { droid(id: $id) { name } }") as op:
            assert cache.read(op, {"id": "3000"}) == {"droid": {"name": "BB-8"}}
            with pytest.raises(normcache.CacheMiss) as miss:
                cache.read(op, {"id": "9"})
            assert miss.value.paths == [["droid"]]
            assert miss.value.missing == [normcache.Missing(["droid"], "absent", "Droid:9")]


def test_cache_miss_is_an_answer_not_an_error() -> None:
    assert issubclass(normcache.CacheMiss, Exception)
    assert not issubclass(normcache.CacheMiss, normcache.Error)
    entries = [
        normcache.Missing(["hero", "friends", 2], "absent", "Droid:2001"),
        normcache.Missing(["hero", "name"], "stale", "Human:1000", "name", written_at=10, expired_at=70),
    ]
    miss = normcache.CacheMiss(entries, {"hero": None})
    assert str(miss) == "the cache lacks 2 part(s) of the data: hero.friends.2 (absent), hero.name (stale)"
    assert miss.paths == [["hero", "friends", 2], ["hero", "name"]]
    copy = pickle.loads(pickle.dumps(miss))
    assert (copy.missing, copy.paths, copy.data) == (entries, miss.paths, {"hero": None})


def test_a_stored_null_in_a_non_null_position_is_a_data_error(cache_path: Path) -> None:
    with normcache.Cache(cache_path, schema="type Query { a: String b: String! }") as cache:
        cache.put({"QUERY_ROOT": {"a": None, "b": None}})
        with cache.prepare("{ a }") as op:
            assert cache.read(op) == {"a": None}
        with cache.prepare("{ b }") as op:
            with pytest.raises(normcache.DataError, match="at b"):
                cache.read(op)


# --- the network document --------------------------------------------------------------


def test_the_document_adds_typename_below_the_root_and_key_fields(star_wars: normcache.Cache) -> None:
    graphql = pytest.importorskip("graphql")
    with star_wars.prepare("query Hero { hero { name friends { name } } }") as op:
        document = op.document
    assert isinstance(document, str)
    parsed = graphql.parse(document)
    (operation,) = parsed.definitions
    assert operation.name.value == "Hero"

    def names(selection_set: Any) -> list[str]:
        return [s.name.value for s in selection_set.selections if isinstance(s, graphql.FieldNode)]

    def key_fields(selection_set: Any) -> dict[str, list[str]]:
        return {
            s.type_condition.name.value: names(s.selection_set)
            for s in selection_set.selections
            if isinstance(s, graphql.InlineFragmentNode)
        }

    def has_key_fields(selection_set: Any) -> bool:
        # On the interface itself, or in a fragment on each possible type with a policy.
        return "id" in names(selection_set) or key_fields(selection_set) == {"Droid": ["id"], "Human": ["id"]}

    root = operation.selection_set
    assert names(root) == ["hero"]
    hero = root.selections[0].selection_set
    assert names(hero)[:2] == ["name", "friends"] and "__typename" in names(hero)
    assert has_key_fields(hero)
    friends = hero.selections[1].selection_set
    assert names(friends)[0] == "name" and "__typename" in names(friends)
    assert has_key_fields(friends)


def test_the_document_keeps_only_the_chosen_operation(cache: normcache.Cache) -> None:
    document = "query First { alpha } query Second { beta ...Parts } fragment Parts on Query { gamma }"
    with cache.prepare(document, "Second") as op:
        assert "beta" in op.document and "gamma" in op.document
        assert "alpha" not in op.document
        cache.write(op, {"data": {"beta": 1, "gamma": 2}})
        assert cache.read(op) == {"beta": 1, "gamma": 2}
    with cache.prepare(document, "First") as op:
        with pytest.raises(normcache.CacheMiss):
            cache.read(op)


def test_added_fields_may_be_absent_from_the_response(star_wars: normcache.Cache) -> None:
    with star_wars.prepare("{ hero { name } }") as op:
        records = star_wars.normalize(op, {"data": {"hero": {"name": "R2"}}})
        assert records == {"QUERY_ROOT": {"hero": {"$reference": "QUERY_ROOT.hero"}}, "QUERY_ROOT.hero": {"name": "R2"}}


# --- schema and configuration ----------------------------------------------------------


def test_a_schema_validates_documents(star_wars: normcache.Cache) -> None:
    with pytest.raises(normcache.DocumentError, match="line 1, column 10"):
        star_wars.prepare("{ hero { nickname } }")
    with pytest.raises(normcache.DocumentError):
        star_wars.prepare("{ villain { name } }")


def test_documents_past_the_open_limits_raise_document_error(tmp_path: Path) -> None:
    document = "{ hero { name, id } }"  # 21 bytes, 7 tokens
    with normcache.Cache(tmp_path / "bytes.cache", max_document_bytes=20) as cache:
        with pytest.raises(normcache.DocumentError) as failure:
            cache.prepare(document)
        assert failure.value.message == (
            "the document is 21 bytes long, more than the limit of 20 (option max_document_bytes)"
        )
    with normcache.Cache(tmp_path / "tokens.cache", max_document_tokens=6) as cache:
        with pytest.raises(normcache.DocumentError) as failure:
            cache.prepare(document)
        assert failure.value.message == (
            "GraphQL error at line 1, column 21: the document has more than 6 tokens, "
            "the limit (option max_document_tokens)"
        )
    with normcache.Cache(tmp_path / "both.cache", max_document_bytes=21, max_document_tokens=7) as cache:
        with cache.prepare(document) as op:
            assert op.document == "{\n  hero {\n    name\n    id\n    __typename\n  }\n}"


def test_schema_and_config_by_method_equal_the_constructor(cache_path: Path, tmp_path: Path) -> None:
    with normcache.Cache(tmp_path / "by-method.cache") as cache:
        cache.configure(DROID_POLICY)
        with cache.prepare(HERO) as op:
            assert cache.normalize(op, HERO_RESPONSE) == HERO_RECORDS
    with normcache.Cache(tmp_path / "by-text.cache", config=json.dumps(DROID_POLICY)) as cache:
        with cache.prepare(HERO) as op:
            assert cache.normalize(op, HERO_RESPONSE) == HERO_RECORDS
    with normcache.Cache(cache_path) as cache:
        cache.load_schema(STAR_WARS)
        with pytest.raises(normcache.DocumentError):
            cache.prepare("{ hero { nickname } }")


def test_an_operation_keeps_the_rules_it_was_prepared_with(cache: normcache.Cache) -> None:
    before = cache.prepare(HERO)
    cache.configure(DROID_POLICY)
    after = cache.prepare(HERO)
    with before, after:
        assert "Droid:2001" not in cache.normalize(before, HERO_RESPONSE)
        assert "QUERY_ROOT.hero.friends.1" in cache.normalize(before, HERO_RESPONSE)
        assert cache.normalize(after, HERO_RESPONSE) == HERO_RECORDS


def test_unique_key_groups(cache: normcache.Cache) -> None:
    cache.configure({"typePolicies": {"Droid": {"keyFields": ["id"], "uniqueKeyGroup": "Bot"}}})
    with cache.prepare(HERO) as op:
        records = cache.normalize(op, HERO_RESPONSE)
    assert records["Bot:2001"] == HERO_RECORDS["Droid:2001"]
    assert records["QUERY_ROOT.hero"]["friends"][1] == {"$reference": "Bot:2001"}


def test_a_malformed_schema_is_a_schema_error_with_its_position(cache: normcache.Cache) -> None:
    with pytest.raises(normcache.SchemaError, match="line 1, column 13"):
        cache.load_schema("type Query {")
    with pytest.raises(normcache.SchemaError, match="line 2"):
        cache.load_schema("type Query { a: String }\ntype B { b: Unknown }")


def test_a_failing_schema_or_config_in_the_constructor_closes_the_cache(cache_path: Path) -> None:
    with pytest.raises(normcache.SchemaError):
        normcache.Cache(cache_path, schema="type Query {")
    with pytest.raises(normcache.InvalidArgumentError):
        normcache.Cache(cache_path, config={"typePolicies": 5})
    with normcache.Cache(cache_path) as cache:  # the file is free and intact
        assert cache.search("") == []


def test_bad_configurations(cache: normcache.Cache) -> None:
    with pytest.raises(normcache.InvalidArgumentError, match="typePolicies"):
        cache.configure({"typePolicies": 5})
    with pytest.raises(normcache.InvalidArgumentError):
        cache.configure({"keyPolicies": {}})
    with pytest.raises(normcache.JSONError):
        cache.configure('{"typePolicies": ')
    with pytest.raises(TypeError):
        cache.configure([DROID_POLICY])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cache.load_schema(None)  # type: ignore[arg-type]


def test_configure_checks_its_names_against_the_schema_in_either_order(tmp_path: Path) -> None:
    misspelt = {"typePolicies": {"Driod": {"keyFields": ["id"]}}}
    no_type = (
        "configuration error at byte 27: typePolicies names type 'Driod', which the schema lacks "
        "(did you mean 'Droid'?)"
    )
    with normcache.Cache(tmp_path / "schema-first.cache", schema=STAR_WARS) as cache:
        with pytest.raises(normcache.SchemaError) as caught:
            cache.configure(misspelt)
        assert str(caught.value) == no_type
        with pytest.raises(normcache.SchemaError) as caught:
            cache.configure({"typePolicies": {"Droid": {"keyFields": ["uuid"]}}})
        assert str(caught.value) == (
            "configuration error at byte 41: key field 'uuid' of typePolicies.Droid is not a field of 'Droid' "
            "(did you mean 'id'?)"
        )
        with pytest.raises(normcache.SchemaError) as caught:
            cache.configure({"fieldPolicies": {"Query.droids": {"keyArgs": ["id"]}}})
        assert str(caught.value) == (
            "configuration error at byte 35: fieldPolicies.Query.droids names no field of 'Query' "
            "(did you mean 'droid'?)"
        )
        with cache.prepare(HERO) as op:  # nothing of the refused rules was kept
            assert "Droid:2001" not in cache.normalize(op, HERO_RESPONSE)
    with normcache.Cache(tmp_path / "config-first.cache", config=misspelt) as cache:
        with pytest.raises(normcache.SchemaError) as caught:
            cache.load_schema(STAR_WARS)
        assert str(caught.value) == "the key rules configured before the schema do not fit it: " + no_type
        cache.prepare("{ anything }").close()  # the schema was not loaded
    with pytest.raises(normcache.SchemaError, match="typePolicies names type 'Driod'"):
        normcache.Cache(tmp_path / "both.cache", schema=STAR_WARS, config=misspelt)


# --- errors ----------------------------------------------------------------------------


def test_an_operation_name_that_is_not_utf8_is_an_invalid_argument(cache: normcache.Cache) -> None:
    with pytest.raises(normcache.InvalidArgumentError):
        cache.prepare("query A { a }", b"\xff")  # type: ignore[arg-type]
    with cache.prepare("query A { a }", b"A") as op:  # type: ignore[arg-type]
        assert "query A" in op.document


@pytest.mark.parametrize(
    ("document", "position"),
    [
        ("{ hero { name } ) }", "line 1, column 17"),
        ("{ hero { }", "line 1, column 10"),
        ("query {\n  hero {\n    name(\n  }\n}", "line 4, column 3"),
    ],
)
def test_a_malformed_document_is_a_document_error_with_its_position(
    cache: normcache.Cache, document: str, position: str
) -> None:
    with pytest.raises(normcache.DocumentError, match=position) as failure:
        cache.prepare(document)
    assert failure.value.code == -3


def test_invalid_documents_and_operation_names(cache: normcache.Cache) -> None:
    with pytest.raises(normcache.DocumentError):
        cache.prepare("query A { a } query B { b }")  # several operations, no name
    with pytest.raises(normcache.DocumentError):
        cache.prepare("query A { a }", "C")
    with pytest.raises(normcache.DocumentError):
        cache.prepare("{ a ...Missing }")
    with pytest.raises(normcache.DocumentError):
        cache.prepare("query { a(x: $undefined) }")
    with pytest.raises(normcache.DocumentError):
        cache.prepare("")
    with pytest.raises(TypeError):
        cache.prepare(None)  # type: ignore[arg-type]


USAGE_SDL = """
type Query {
  feed(first: Int): [Item]
  item(id: ID!): Item
  items(ids: [ID!]!): [Item]
  tagged(tags: [String]): [Item]
  page(size: Int! = 10): [Item]
  search(filter: Filter): [Item]
  grid(m: [[Int!]]): [Item]
}
input Filter { text: String! limit: Int! = 5 tags: [String!] }
type Item { id: ID! }
"""
USAGE_TYPES = ["Int", "Int!", "String", "ID", "ID!", "[ID]", "[ID!]", "[ID!]!", "[ID]!", "[String]", "[String!]!"]
USAGE_TYPES += ["[[Int!]]", "[[Int]]", "[Int!]", "Boolean"]
USAGE_POSITIONS = [
    "feed(first: $v)",
    "item(id: $v)",
    "items(ids: $v)",
    "items(ids: [$v])",
    "tagged(tags: $v)",
    "tagged(tags: [$v])",
    "page(size: $v)",
    "search(filter: {text: $v})",
    'search(filter: {text: "x", limit: $v})',
    'search(filter: {text: "x", tags: $v})',
    'search(filter: {text: "x", tags: [$v]})',
    "grid(m: $v)",
    "grid(m: [$v])",
    "grid(m: [[$v]])",
]
USAGE_LITERALS = {"Int": "1", "ID": '"1"', "String": '"s"', "Boolean": "true"}


def test_variable_usages_are_allowed_exactly_where_graphql_core_allows_them(cache: normcache.Cache) -> None:
    """Every declared type (without a default, with `= null`, with a value) in every
    position: prepare refuses exactly the documents graphql-core's
    VariablesInAllowedPositionRule refuses (GraphQL specification 5.8.5)."""
    graphql = pytest.importorskip("graphql")
    from graphql.validation import VariablesInAllowedPositionRule

    schema = graphql.build_schema(USAGE_SDL)
    cache.load_schema(USAGE_SDL)
    disagreements = []
    for declared in USAGE_TYPES:
        depth = declared.count("[")
        value = "[" * depth + USAGE_LITERALS[declared.strip("[]!")] + "]" * depth
        for default in ("", " = null", " = " + value):
            for position in USAGE_POSITIONS:
                document = f"query Q($v: {declared}{default}) {{ {position} {{ id }} }}"
                refused = bool(graphql.validate(schema, graphql.parse(document), [VariablesInAllowedPositionRule]))
                try:
                    cache.prepare(document).close()
                    ours = False
                except normcache.DocumentError as error:
                    assert "is used in a position expecting type" in error.message, document
                    ours = True
                if ours != refused:
                    disagreements.append(document)
    assert disagreements == []


def test_a_response_missing_a_selected_field_is_a_data_error_naming_its_path(rules_cache: normcache.Cache) -> None:
    response = {
        "data": {
            "hero": {
                "__typename": "Human",
                "name": "Luke",
                "friends": [{"__typename": "Human", "name": "Han"}, {"__typename": "Human"}],
            }
        }
    }
    with rules_cache.prepare(HERO) as op:
        with pytest.raises(normcache.DataError, match=r"hero\.friends\.1\.name"):
            rules_cache.normalize(op, response)
        with pytest.raises(normcache.DataError, match=r"hero\.friends\.1\.name") as failure:
            rules_cache.write(op, response)
    assert failure.value.code == -5
    assert rules_cache.search("") == []


@pytest.mark.parametrize(
    ("hero", "path"),
    [
        ({"__typename": "Droid", "id": "1", "name": None, "friends": []}, "hero.name"),
        ({"__typename": "Droid", "id": "1", "name": "R2", "friends": {"name": "x"}}, "hero.friends"),
        ({"__typename": "Droid", "id": "1", "name": "R2", "friends": [5]}, "hero.friends.0"),
        ([{"name": "R2"}], "hero"),
    ],
)
def test_a_response_of_the_wrong_shape_writes_nothing(star_wars: normcache.Cache, hero: Any, path: str) -> None:
    with star_wars.prepare(HERO) as op:
        star_wars.write(op, {"data": {"hero": {"__typename": "Droid", "id": "7", "name": "Seven", "friends": []}}})
        before = {key: star_wars.get(key) for key in star_wars.search("")}
        with pytest.raises(normcache.DataError, match=f"at {path}:"):
            star_wars.write(op, {"data": {"hero": hero}})
        assert {key: star_wars.get(key) for key in star_wars.search("")} == before


def test_malformed_responses(rules_cache: normcache.Cache) -> None:
    with rules_cache.prepare(HERO) as op:
        with pytest.raises(normcache.JSONError):
            rules_cache.write(op, '{"data": ')
        with pytest.raises(normcache.JSONError):
            rules_cache.normalize(op, b'{"data": {"hero": "\xff"}}')
        with pytest.raises(TypeError):
            rules_cache.write(op, [HERO_RESPONSE])  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            rules_cache.read(op, ["not", "a", "dict"])  # type: ignore[arg-type]
    assert rules_cache.search("") == []


def test_graphql_errors_next_to_data_do_not_stop_the_write(rules_cache: normcache.Cache) -> None:
    with rules_cache.prepare(HERO) as op:
        response = dict(HERO_RESPONSE, errors=[{"message": "partial failure", "path": ["hero", "x"]}])
        assert rules_cache.write(op, response) != []
        assert rules_cache.read(op) == HERO_DATA


def test_a_read_only_cache_reads_but_does_not_write(cache_path: Path) -> None:
    with normcache.Cache(cache_path, config=DROID_POLICY) as cache:
        with cache.prepare(HERO) as op:
            cache.write(op, HERO_RESPONSE)
    with normcache.Cache(cache_path, read_only=True, config=DROID_POLICY) as cache:
        with cache.prepare(HERO) as op:
            assert cache.read(op) == HERO_DATA
            with pytest.raises(normcache.ReadOnlyError):
                cache.write(op, HERO_RESPONSE)


# --- the operation's life --------------------------------------------------------------


def test_an_operation_cannot_be_used_after_close(rules_cache: normcache.Cache) -> None:
    op = rules_cache.prepare(HERO)
    assert not op.closed
    op.close()
    assert op.closed
    op.close()  # again: nothing
    with pytest.raises(normcache.ClosedError):
        _ = op.document
    for use in (
        lambda: rules_cache.normalize(op, HERO_RESPONSE),
        lambda: rules_cache.write(op, HERO_RESPONSE),
        lambda: rules_cache.read(op),
        lambda: rules_cache.read_json(op, partial=True),
    ):
        with pytest.raises(normcache.InvalidArgumentError):
            use()
    assert rules_cache.search("") == []
    assert "closed" in repr(op)


def test_a_with_block_closes_the_operation(rules_cache: normcache.Cache) -> None:
    with rules_cache.prepare(HERO) as op:
        assert isinstance(op, normcache.Operation)
    assert op.closed
    with pytest.raises(normcache.ClosedError):
        rules_cache.read(op)


def test_an_operation_outlives_its_cache(cache_path: Path) -> None:
    with normcache.Cache(cache_path, config=DROID_POLICY) as cache:
        op = cache.prepare(HERO)
    with op:
        assert op.document
        with normcache.Cache(cache_path) as other:
            other.write(op, HERO_RESPONSE)
            assert other.read(op) == HERO_DATA
            assert other.get("Droid:2001") == HERO_RECORDS["Droid:2001"]  # the rules came with the operation


def test_a_closed_cache_refuses_operations(cache_path: Path) -> None:
    cache = normcache.Cache(cache_path)
    with cache.prepare("{ a }") as op:
        cache.close()
        with pytest.raises(normcache.ClosedError):
            cache.write(op, {"data": {"a": 1}})
        with pytest.raises(normcache.ClosedError):
            cache.read(op)
        with pytest.raises(normcache.ClosedError):
            cache.prepare("{ a }")
        with pytest.raises(normcache.ClosedError):
            cache.load_schema("type Query { a: Int }")
        with pytest.raises(normcache.ClosedError):
            cache.configure({})
        assert cache.normalize(op, {"data": {"a": 1}}) == {"QUERY_ROOT": {"a": 1}}  # needs no cache


def test_forgotten_operations_are_freed_quietly(cache: normcache.Cache) -> None:
    handles = []
    for _ in range(200):
        handles.append(_library.OperationHandle(cache.prepare(HERO)._live_handle().value))
    op = cache.prepare(HERO)
    op.close()
    del op
    gc.collect()
    # Each was freed by its finalizer: the library knows none of them any more.
    for handle in handles:
        with pytest.raises(normcache.InvalidArgumentError) as failure:
            _library.lib.normcache_op_free(handle)
        assert failure.value.message == "the operation handle is closed or was never opened"


def test_threads_share_operations(rules_cache: normcache.Cache) -> None:
    failures: list[BaseException] = []
    with rules_cache.prepare(HERO) as op:

        def work(number: int) -> None:
            try:
                for round in range(50):
                    response = json.loads(json.dumps(HERO_RESPONSE))
                    response["data"]["hero"]["friends"][0]["name"] = f"Han {number}.{round}"
                    rules_cache.write(op, response)
                    data = rules_cache.read(op)
                    assert data["hero"]["friends"][1] == {"name": "R2-D2"}
                    assert data["hero"]["friends"][0]["name"].startswith("Han ")
                    with rules_cache.prepare("{ hero { name } }") as own:
                        assert rules_cache.read(own) == {"hero": {"name": "Luke Skywalker"}}
            except BaseException as error:  # noqa: BLE001 - reported by the main thread
                failures.append(error)

        threads = [threading.Thread(target=work, args=(number,)) for number in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failures == []


def test_the_library_refuses_a_freed_operation(cache: normcache.Cache) -> None:
    lib = _library.lib
    handle = _library.OperationHandle()
    document = b"{ a }"
    lib.normcache_prepare(cache._live_handle(), document, len(document), None, 0, byref(handle))
    assert handle.value
    status, text = _library.call_with_buffer(lib.normcache_op_document, handle)
    assert status == _library.OK and b"a" in text
    assert lib.normcache_op_free(handle) == _library.OK
    with pytest.raises(normcache.InvalidArgumentError):
        lib.normcache_op_free(handle)
    with pytest.raises(normcache.InvalidArgumentError):
        _library.call_with_buffer(lib.normcache_op_document, handle)
    with pytest.raises(normcache.InvalidArgumentError):
        _library.call_with_buffer(lib.normcache_read, cache._live_handle(), handle, None, 0, 0)
    assert lib.normcache_op_free(None) == _library.OK


def test_the_library_refuses_unknown_read_flags(cache: normcache.Cache) -> None:
    with cache.prepare("{ a }") as op:
        with pytest.raises(normcache.InvalidArgumentError):
            _library.call_with_buffer(_library.lib.normcache_read, cache._live_handle(), op._live_handle(), None, 0, 4)
        status, answer = _library.call_with_buffer(
            _library.lib.normcache_read, cache._live_handle(), op._live_handle(), None, 0, _library.READ_PARTIAL
        )
    assert status == _library.MISS
    assert json.loads(answer) == {
        "data": {"a": None},
        "missing": [{"path": ["a"], "reason": "absent", "record": "QUERY_ROOT", "field": "a"}],
    }


def test_a_failed_prepare_leaves_no_operation(cache: normcache.Cache) -> None:
    handle = _library.OperationHandle(1234)
    with pytest.raises(normcache.DocumentError):
        _library.lib.normcache_prepare(cache._live_handle(), b"{", 1, None, 0, byref(handle))
    assert handle.value is None


def test_fragments_write_and_read_one_object_at_its_key(cache: normcache.Cache) -> None:
    cache.load_schema(
        "type Query { dog(id: ID!): Dog }\n"
        "type Dog { id: ID! name: String owner: User }\n"
        "type User { id: ID! name: String }\n"
        'extend type Dog @typePolicy(keyFields: "id")\n'
        'extend type User @typePolicy(keyFields: "id")\n'
    )
    with cache.prepare("fragment DogParts on Dog { name owner { id name } }") as fragment:
        changed = cache.write_fragment(
            fragment, "Dog:1", {"name": "Rex", "owner": {"__typename": "User", "id": "7", "name": "Ann"}}
        )
        assert changed == ["User:7.id", "User:7.name", "User:7.__typename", "Dog:1.name", "Dog:1.owner"]
        assert cache.get("Dog:1") == {"name": "Rex", "owner": {"$reference": "User:7"}}
        assert cache.read_fragment(fragment, "Dog:1") == {"name": "Rex", "owner": {"id": "7", "name": "Ann"}}
        with pytest.raises(normcache.CacheMiss) as miss:
            cache.read_fragment(fragment, "Dog:2", partial=True)
        assert miss.value.paths == [[]]
        assert miss.value.data is None
        with pytest.raises(normcache.InvalidArgumentError):
            cache.read(fragment)


def test_large_legitimate_input_simply_works(cache: normcache.Cache) -> None:
    """A list of a million objects (a response of about 100 MB) and a 6,000-line schema."""
    cache.configure({"defaultKeyFields": ["id"]})
    count = 1_000_000
    items = [{"__typename": "Item", "id": i, "name": f"item {i}", "tags": ["a", "b"], "score": i} for i in range(count)]
    response = json.dumps({"data": {"items": items}}).encode()
    assert len(response) > 80_000_000
    with cache.prepare("{ items { id name tags score } }") as op:
        changed = cache.write(op, response)
        assert len(changed) == 5 * count + 1
        data = cache.read(op)
    assert len(data["items"]) == count
    assert data["items"][123_456] == {"id": 123_456, "name": "item 123456", "tags": ["a", "b"], "score": 123_456}
    assert cache.get("Item:999999") == {
        "__typename": "Item",
        "id": 999_999,
        "name": "item 999999",
        "tags": ["a", "b"],
        "score": 999_999,
    }

    types = [
        f"type T{i} implements Node {{\n  id: ID!\n  name: String\n  next: T{(i + 1) % 1500}\n}}" for i in range(1500)
    ]
    sdl = (
        "interface Node { id: ID! }\ntype Query { first: T0 }\n"
        + "\n".join(types)
        + '\nextend interface Node @typePolicy(keyFields: "id")'
    )
    assert sdl.count("\n") > 6000
    cache.load_schema(sdl)
    with cache.prepare("{ first { name next { name } } }") as op:
        assert (
            op.document == "{\n  first {\n    name\n    next {\n      name\n      id\n      __typename\n    }\n"
            "    id\n    __typename\n  }\n}"
        )
        cache.write(
            op,
            {
                "data": {
                    "first": {
                        "__typename": "T0",
                        "id": "a",
                        "name": "A",
                        "next": {"__typename": "T1", "id": "b", "name": "B"},
                    }
                }
            },
        )
        assert cache.read(op) == {"first": {"name": "A", "next": {"name": "B"}}}
