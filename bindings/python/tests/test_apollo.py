"""normcache.apollo: Apollo Client's cache.extract() JSON and Apollo iOS's SQLite cache, into
normcache and back, on the sample files of testdata/apollo (the Apollo iOS file is made here
with sqlite3 in Apollo iOS's table layout)."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import stored

import normcache
import normcache.apollo

SAMPLES = Path(__file__).resolve().parents[3] / "testdata" / "apollo"
sys.path.insert(0, str(SAMPLES))
from ios_sqlite import IOS_INDEX, IOS_ROWS, IOS_TABLE, ios_file, ios_rows, ios_schema  # noqa: E402

EXTRACT: dict[str, Any] = json.loads((SAMPLES / "client-extract.json").read_text())


def test_apollo_client_import_writes_the_records_normcache_would_have_written(cache: normcache.Cache) -> None:
    changed = normcache.apollo.import_apollo_client(cache, SAMPLES / "client-extract.json")
    assert len(changed) == 61
    assert cache.search() == [
        "Droid:2001",
        "Film:1",
        "Human:1000",
        "Human:1000.friendsConnection(first:2)",
        "Human:1000.friendsConnection(first:2).edges.0",
        "Human:1000.friendsConnection(first:2).edges.1",
        "Human:1000.friendsConnection(first:2).pageInfo",
        "Human:1002",
        "MUTATION_ROOT",
        "MUTATION_ROOT.createReview(episode:JEDI,[review:commentary:This is a great movie!,stars:5])",
        "QUERY_ROOT",
        'QUERY_ROOT.allFilms:{"orderBy":"TITLE"}',
        'QUERY_ROOT.allFilms:{"orderBy":"TITLE"}.edges.0',
        "QUERY_ROOT.reviews(episode:JEDI,since:null).0",
        "QUERY_ROOT.reviews(episode:JEDI,since:null).1",
        "QUERY_ROOT.stats",
        "QUERY_ROOT.stats.top",
    ]
    assert stored(cache, "QUERY_ROOT") == {
        "__typename": "Query",
        "hero(episode:JEDI)": {"$reference": "Droid:2001"},
        "hero(episode:EMPIRE)": {"$reference": "Human:1000"},
        "search([filter:kinds:[DROID, HUMAN],text:R2\\, or\\: 3PO],first:2)": [
            {"$reference": "Droid:2001"},
            {"$reference": "Human:1000"},
        ],
        "reviews(episode:JEDI,since:null)": [
            {"$reference": "QUERY_ROOT.reviews(episode:JEDI,since:null).0"},
            {"$reference": "QUERY_ROOT.reviews(episode:JEDI,since:null).1"},
        ],
        "stats": {"$reference": "QUERY_ROOT.stats"},
        'allFilms:{"orderBy":"TITLE"}': {"$reference": 'QUERY_ROOT.allFilms:{"orderBy":"TITLE"}'},
    }
    assert stored(cache, "Droid:2001") == {
        **EXTRACT["Droid:2001"],
        "friends": [{"$reference": "Human:1000"}, {"$reference": "Human:1002"}, None],
    }
    assert stored(cache, "Human:1000.friendsConnection(first:2).pageInfo") == {
        "__typename": "PageInfo",
        "hasNextPage": True,
        "endCursor": "Y3Vyc29yMg==",
    }
    assert stored(cache, "Human:1000")["height(unit:FOOT)"] == 5.6430448


def test_what_was_imported_reads_through_operations(cache: normcache.Cache) -> None:
    normcache.apollo.import_apollo_client(cache, EXTRACT)
    query = """
        { hero(episode: JEDI) { name friends { name } }
          stats { count top { name score } }
          reviews(since: null, episode: JEDI) { stars commentary } }
    """
    with cache.prepare(query) as operation:
        assert cache.read(operation) == {
            "hero": {"name": "R2-D2", "friends": [{"name": "Luke Skywalker"}, {"name": "Han Solo"}, None]},
            "stats": {"count": 3, "top": {"name": "Luke Skywalker", "score": 1.5}},
            "reviews": [{"stars": 5, "commentary": "Great!"}, {"stars": 3, "commentary": None}],
        }


def test_apollo_client_round_trip_gives_the_sample_back_without_meta(cache: normcache.Cache) -> None:
    normcache.apollo.import_apollo_client(cache, SAMPLES / "client-extract.json")
    exported = normcache.apollo.export_apollo_client(cache)
    assert exported == {key: value for key, value in EXTRACT.items() if key != "__META"}


def test_apollo_client_export_of_what_normcache_wrote(cache: normcache.Cache) -> None:
    """Objects without a key rule, which normcache keys by their path, go back inline."""
    query = '{ hero(episode: JEDI) { id name stats(range: {from: 1, to: "x, y"}) { wins } friends { id name } } }'
    stats = {"__typename": "Stats", "wins": 3}
    friends = [{"__typename": "Human", "id": "1000", "name": "Luke"}]
    with cache.prepare(query) as operation:
        hero = {"__typename": "Droid", "id": "2001", "name": "R2-D2", "stats": stats, "friends": friends}
        cache.write(operation, {"data": {"hero": hero}})
    assert cache.search() == [
        "QUERY_ROOT",
        "QUERY_ROOT.hero(episode:JEDI)",
        "QUERY_ROOT.hero(episode:JEDI).friends.0",
        "QUERY_ROOT.hero(episode:JEDI).stats([range:from:1,to:x\\, y])",
    ]
    del hero["stats"]
    exported = {'hero({"episode":"JEDI"})': {**hero, 'stats({"range":{"from":1,"to":"x, y"}})': stats}}
    assert normcache.apollo.export_apollo_client(cache) == {"ROOT_QUERY": exported}


def test_a_string_argument_that_reads_as_a_number_needs_the_schema(cache: normcache.Cache, tmp_path: Path) -> None:
    human = {"ROOT_QUERY": {'human({"id":"1000"})': {"__ref": "Human:1000"}}, "Human:1000": {"id": "1000"}}
    normcache.apollo.import_apollo_client(cache, human)
    assert list(stored(cache, "QUERY_ROOT")) == ["human(id:1000)"]
    assert list(normcache.apollo.export_apollo_client(cache)["ROOT_QUERY"]) == ['human({"id":1000})']
    sdl = "type Query { human(id: ID!): Human } type Human { id: ID! }"
    with normcache.Cache(tmp_path / "typed.cache", schema=sdl) as typed:
        normcache.apollo.import_apollo_client(typed, human)
        assert normcache.apollo.export_apollo_client(typed) == human


@pytest.mark.parametrize(
    ("content", "error", "message"),
    [
        (
            b'{"ROOT_QUERY": {"a": 1}',
            normcache.JSONError,
            "JSON error at byte 23: unexpected end of input (truncated?)",
        ),
        (
            b'{"ROOT_QUERY": [1]}',
            normcache.JSONError,
            "apollo-client import: record 'ROOT_QUERY' must be an object of fields, not array",
        ),
        (
            b'{"ROOT_QUERY": {"hero": {"__ref": "Droid:1"}, '
            b'"stats": {"__typename": "S", "best": {"__ref": "Human:9"}}}, "Droid:1": {}}',
            normcache.DataError,
            "apollo-client import: field 'best' of record 'ROOT_QUERY.stats' refers to 'Human:9', "
            "which the file does not hold; nothing was imported",
        ),
    ],
)
def test_a_malformed_apollo_client_file_writes_nothing(
    cache: normcache.Cache, tmp_path: Path, content: bytes, error: type[normcache.Error], message: str
) -> None:
    (tmp_path / "extract.json").write_bytes(content)
    with pytest.raises(error) as raised:
        normcache.apollo.import_apollo_client(cache, tmp_path / "extract.json")
    assert str(raised.value) == message
    assert cache.search() == []


def test_apollo_ios_file_imports_row_for_row(cache: normcache.Cache, tmp_path: Path) -> None:
    path = ios_file(tmp_path / "apollo.sqlite", IOS_ROWS)
    changed = normcache.apollo.import_apollo_ios(cache, path)
    assert len(changed) == 25
    assert sorted(cache.search()) == sorted(key for key, _ in IOS_ROWS)
    for key, record in IOS_ROWS:
        assert stored(cache, key) == json.loads(record)
    with cache.prepare("{ hero { name friends { name } } }") as operation:
        assert cache.read(operation) == {
            "hero": {"name": "R2-D2", "friends": [{"name": "Luke Skywalker"}, {"name": "Han Solo"}]}
        }


def test_apollo_ios_round_trip_writes_apollo_ios_table(cache: normcache.Cache, tmp_path: Path) -> None:
    normcache.apollo.import_apollo_ios(cache, ios_file(tmp_path / "apollo.sqlite", IOS_ROWS))
    out = tmp_path / "out.sqlite"
    assert normcache.apollo.export_apollo_ios(cache, out) == len(IOS_ROWS)
    assert ios_rows(out) == {key: json.loads(record) for key, record in IOS_ROWS}
    assert ios_schema(out) == [IOS_TABLE, IOS_INDEX]


def test_apollo_client_to_apollo_ios_and_back(cache: normcache.Cache, tmp_path: Path) -> None:
    normcache.apollo.import_apollo_client(cache, EXTRACT)
    normcache.apollo.export_apollo_ios(cache, tmp_path / "ios.sqlite")
    with normcache.Cache(tmp_path / "second.cache") as second:
        normcache.apollo.import_apollo_ios(second, tmp_path / "ios.sqlite")
        assert normcache.apollo.export_apollo_client(second) == {
            key: value for key, value in EXTRACT.items() if key != "__META"
        }


def test_apollo_ios_record_that_is_not_json_names_its_key(cache: normcache.Cache, tmp_path: Path) -> None:
    path = ios_file(tmp_path / "apollo.sqlite", [*IOS_ROWS, ["Human:1002", '{"name": "Han"']])
    with pytest.raises(normcache.JSONError) as raised:
        normcache.apollo.import_apollo_ios(cache, path)
    assert str(raised.value) == (
        "apollo-ios import: the record of key 'Human:1002' is not JSON: "
        "JSON error at byte 14: unexpected end of input (truncated?)"
    )
    assert cache.search() == []


def test_apollo_ios_dangling_reference_writes_nothing(cache: normcache.Cache, tmp_path: Path) -> None:
    rows = [row for row in IOS_ROWS if row[0] != "QUERY_ROOT.hero.friends.1"]
    with pytest.raises(normcache.DataError) as raised:
        normcache.apollo.import_apollo_ios(cache, ios_file(tmp_path / "apollo.sqlite", rows))
    assert str(raised.value) == (
        "apollo-ios import: field 'friends' of record 'QUERY_ROOT.hero' refers to 'QUERY_ROOT.hero.friends.1', "
        "which the file does not hold; nothing was imported"
    )
    assert cache.search() == []


def refused(cache: normcache.Cache, path: Path) -> str:
    """The message of the InvalidArgumentError that importing the Apollo iOS file at `path`
    raises; fails the test unless the cache stays empty."""
    with pytest.raises(normcache.InvalidArgumentError) as raised:
        normcache.apollo.import_apollo_ios(cache, path)
    assert cache.search() == []
    return str(raised.value)


def test_apollo_ios_wrong_table_layout(cache: normcache.Cache, tmp_path: Path) -> None:
    table = 'CREATE TABLE "records" ("_id" INTEGER PRIMARY KEY, "key" TEXT, "data" TEXT)'
    path = ios_file(tmp_path / "apollo.sqlite", [], table=table)
    assert (
        refused(cache, path)
        == f"apollo-ios import: {str(path)!r} has a 'records' table without record; not an Apollo iOS cache"
    )
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE things (a)")
    connection.close()
    assert refused(cache, other) == f"apollo-ios import: {str(other)!r} has no table 'records'; not an Apollo iOS cache"
    assert (
        refused(cache, tmp_path / "absent.sqlite") == f"apollo-ios import: no file {str(tmp_path / 'absent.sqlite')!r}"
    )


def test_apollo_ios_row_whose_record_is_not_text(cache: normcache.Cache, tmp_path: Path) -> None:
    path = ios_file(tmp_path / "apollo.sqlite", IOS_ROWS)
    with sqlite3.connect(path) as connection:
        connection.execute("""INSERT INTO "records" ("key", "record") VALUES ('Human:1003', x'7b7d')""")
    connection.close()
    assert (
        refused(cache, path)
        == f"apollo-ios import: row 9 (key 'Human:1003') of {str(path)!r}: key and record must be text"
    )


def test_truncated_apollo_ios_file(cache: normcache.Cache, tmp_path: Path) -> None:
    whole = ios_file(tmp_path / "apollo.sqlite", IOS_ROWS + [[f"Filler:{i}", "{}"] for i in range(400)])
    for name, size in (("half.sqlite", whole.stat().st_size // 2), ("header.sqlite", 50)):
        (tmp_path / name).write_bytes(whole.read_bytes()[:size])
        malformed = (
            f"apollo-ios import: {str(tmp_path / name)!r} cannot be read as SQLite: database disk image is malformed"
        )
        assert refused(cache, tmp_path / name) == malformed


def test_apollo_ios_export_into_another_table_layout(cache: normcache.Cache, tmp_path: Path) -> None:
    normcache.apollo.import_apollo_client(cache, EXTRACT)
    path = ios_file(
        tmp_path / "other.sqlite", [], table='CREATE TABLE "records" ("_id" INTEGER PRIMARY KEY, "data" TEXT)'
    )
    with pytest.raises(normcache.InvalidArgumentError) as raised:
        normcache.apollo.export_apollo_ios(cache, path)
    assert str(raised.value) == (
        f"apollo-ios export: {str(path)!r} cannot be written as SQLite: table records has no column named key"
    )
    assert ios_schema(path)[0] == 'CREATE TABLE "records" ("_id" INTEGER PRIMARY KEY, "data" TEXT)'


def test_unknown_format(cache: normcache.Cache) -> None:
    with pytest.raises(normcache.InvalidArgumentError, match="unknown format 'apollo-kotlin'"):
        cache.export_records("apollo-kotlin")  # type: ignore[arg-type]
