"""Changing a cache: rm, invalidate."""

from __future__ import annotations

import json

from conftest import CLI

QUERY = "{ pets { name } }"


def test_rm_deletes_one_record(cli: CLI, pets: str) -> None:
    assert cli.ok("rm", pets, "Pet:1") == "removed 1 record\n"
    assert cli("get", pets, "Pet:1").code == 2
    result = cli("rm", pets, "Pet:1")
    assert (result.code, result.err) == (2, "normcache: no record 'Pet:1' in 'pets.cache'\n")
    assert cli.ok("keys", pets) == "Pet:2\nQUERY_ROOT\nUser:1\n"


def test_rm_deletes_a_key_group(cli: CLI, pets: str) -> None:
    assert cli.ok("rm", pets, "--prefix", "Pet:") == "removed 2 records\n"
    assert cli.ok("rm", pets, "--prefix", "Pet:") == "removed 0 records\n"
    assert cli.ok("keys", pets) == "QUERY_ROOT\nUser:1\n"


def test_rm_with_an_empty_prefix_is_bad_input(cli: CLI, pets: str) -> None:
    result = cli("rm", pets, "--prefix", "")
    assert (result.code, result.err) == (3, "normcache: empty prefix\n")
    assert cli.ok("stats", pets, "--json").startswith('{"records":4,')


def test_invalidate_a_field_makes_reads_miss(cli: CLI, pets: str) -> None:
    assert json.loads(cli.ok("read", pets, "--query", QUERY, "--json"))["status"] == "complete"
    assert cli.ok("invalidate", pets, "Pet:2", "--field", "name") == "invalidated 1 field\n"
    read = cli("read", pets, "--query", QUERY, "--json")
    assert read.code == 2
    assert json.loads(read.out)["missing"] == [
        {"path": ["pets", 1, "name"], "reason": "invalidated", "record": "Pet:2", "field": "name"}
    ]
    assert cli.ok("get", pets, "Pet:2", "--json").startswith('{"name":"Tom",')  # the data stays


def test_invalidate_a_record_or_a_group(cli: CLI, pets: str) -> None:
    assert cli.ok("invalidate", pets, "Pet:1") == "invalidated 4 fields\n"
    assert cli.ok("invalidate", pets, "--prefix", "User:") == "invalidated 2 fields\n"
    assert cli.ok("invalidate", pets, "--prefix", "Cat:") == "invalidated 0 fields\n"


def test_invalidate_of_absent_things_exits_2(cli: CLI, pets: str) -> None:
    result = cli("invalidate", pets, "Pet:404")
    assert (result.code, result.err) == (2, "normcache: no record 'Pet:404' in 'pets.cache'\n")
    result = cli("invalidate", pets, "Pet:1", "--field", "colour")
    assert (result.code, result.err) == (2, "normcache: no field 'colour' in the record 'Pet:1' in 'pets.cache'\n")
    assert cli("invalidate", pets, "--prefix", "Pet:", "--field", "name").code == 64
