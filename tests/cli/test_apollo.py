"""import --from and export --to: Apollo Client's cache.extract() JSON and Apollo iOS's SQLite
cache file, on the sample files of testdata/apollo (the Apollo iOS file made with sqlite3 in
Apollo iOS's table layout)."""

from __future__ import annotations

import json
import sys
from typing import Any

from conftest import CLI, REPO

SAMPLES = REPO / "testdata" / "apollo"
sys.path.insert(0, str(SAMPLES))
from ios_sqlite import IOS_INDEX, IOS_ROWS, IOS_TABLE, ios_file, ios_rows, ios_schema  # noqa: E402

EXTRACT: dict[str, Any] = json.loads((SAMPLES / "client-extract.json").read_text())
WITHOUT_META = {key: value for key, value in EXTRACT.items() if key != "__META"}


def test_apollo_client_round_trip(cli: CLI) -> None:
    assert cli.ok("import", "app.cache", "--from", "apollo-client", str(SAMPLES / "client-extract.json")) == (
        "imported 61 fields that changed\n"
    )
    record = json.loads(cli.ok("get", "app.cache", "QUERY_ROOT", "--json"))
    assert record["hero(episode:JEDI)"] == {"$reference": "Droid:2001"}
    assert record["stats"] == {"$reference": "QUERY_ROOT.stats"}
    assert json.loads(cli.ok("export", "app.cache", "--to", "apollo-client")) == WITHOUT_META
    assert cli.ok("export", "app.cache", "--to", "apollo-client", "out.json") == ""
    assert json.loads((cli.folder / "out.json").read_text()) == WITHOUT_META


def test_apollo_client_from_standard_input(cli: CLI) -> None:
    extract = '{"ROOT_QUERY": {"hero({\\"episode\\":\\"JEDI\\"})": {"__ref": "Droid:1"}}, "Droid:1": {"name": "R2"}}'
    assert (
        cli.ok("import", "app.cache", "--from", "apollo-client", "-", stdin=extract)
        == "imported 2 fields that changed\n"
    )
    assert cli.ok("keys", "app.cache") == "Droid:1\nQUERY_ROOT\n"


def test_apollo_ios_round_trip(cli: CLI) -> None:
    ios_file(cli.folder / "apollo.sqlite", IOS_ROWS)
    assert cli.ok("import", "app.cache", "--from", "apollo-ios", "apollo.sqlite") == "imported 25 fields that changed\n"
    for key, text in IOS_ROWS:
        assert json.loads(cli.ok("get", "app.cache", key, "--json")) == json.loads(text)
    assert cli.ok("export", "app.cache", "--to", "apollo-ios", "out.sqlite") == f"exported {len(IOS_ROWS)} records\n"
    assert ios_rows(cli.folder / "out.sqlite") == {key: json.loads(text) for key, text in IOS_ROWS}
    assert ios_schema(cli.folder / "out.sqlite") == [IOS_TABLE, IOS_INDEX]


def test_apollo_client_through_apollo_ios_and_back(cli: CLI) -> None:
    cli.ok("import", "app.cache", "--from", "apollo-client", str(SAMPLES / "client-extract.json"))
    cli.ok("export", "app.cache", "--to", "apollo-ios", "ios.sqlite")
    cli.ok("import", "second.cache", "--from", "apollo-ios", "ios.sqlite")
    assert json.loads(cli.ok("export", "second.cache", "--to", "apollo-client")) == WITHOUT_META


def test_bad_files_fail_with_status_3_and_write_nothing(cli: CLI) -> None:
    (cli.folder / "bad.json").write_text('{"ROOT_QUERY": {"hero": {"__ref": "Droid:9"}}}')
    result = cli("import", "app.cache", "--from", "apollo-client", "bad.json")
    assert (result.code, result.err) == (
        3,
        "normcache: apollo-client import: field 'hero' of record 'ROOT_QUERY' refers to 'Droid:9', "
        "which the file does not hold; nothing was imported\n",
    )
    ios_file(cli.folder / "notjson.sqlite", [*IOS_ROWS, ["Human:1002", "{name: Han}"]])
    result = cli("import", "app.cache", "--from", "apollo-ios", "notjson.sqlite")
    assert (result.code, result.err) == (
        3,
        "normcache: apollo-ios import: the record of key 'Human:1002' is not JSON: "
        "JSON error at byte 1: expected a string as object key\n",
    )
    ios_file(
        cli.folder / "layout.sqlite",
        [],
        table='CREATE TABLE "records" ("_id" INTEGER PRIMARY KEY, "key" TEXT, "value" TEXT)',
    )
    result = cli("import", "app.cache", "--from", "apollo-ios", "layout.sqlite")
    assert (result.code, result.err) == (
        3,
        "normcache: apollo-ios import: 'layout.sqlite' has a 'records' table without record; not an Apollo iOS cache\n",
    )
    whole = ios_file(cli.folder / "whole.sqlite", IOS_ROWS + [[f"Filler:{i}", "{}"] for i in range(400)])
    (cli.folder / "truncated.sqlite").write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    result = cli("import", "app.cache", "--from", "apollo-ios", "truncated.sqlite")
    assert (result.code, result.err) == (
        3,
        "normcache: apollo-ios import: 'truncated.sqlite' cannot be read as SQLite: database disk image is malformed\n",
    )
    assert cli.ok("keys", "app.cache") == ""


def test_apollo_ios_export_needs_a_file(cli: CLI) -> None:
    cli.ok("import", "app.cache", "--from", "apollo-client", str(SAMPLES / "client-extract.json"))
    result = cli("export", "app.cache", "--to", "apollo-ios")
    assert (result.code, result.err) == (64, "normcache: --to apollo-ios needs the SQLite file to write\n")
