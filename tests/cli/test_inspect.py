"""Looking inside a cache: stats, keys, get."""

from __future__ import annotations

import json
import re
import time

from conftest import CLI


def test_stats_text(cli: CLI, pets: str) -> None:
    out = cli.ok("stats", pets)
    lines = out.splitlines()
    assert lines[0] == "records       4"
    assert re.fullmatch(r"bytes used    \d+", lines[1])
    assert re.fullmatch(r"data bytes    \d+ \(commit log \d+\)", lines[2])
    assert re.fullmatch(r"map size      \d+", lines[3])
    assert lines[4] == "format        1"
    assert lines[5] == "saved rules   -"
    assert lines[6] == "readers       0 reading, 1 of 126 slots taken, oldest 0 commits behind"
    assert re.fullmatch(r"oldest write  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", lines[7])
    assert re.fullmatch(r"newest write  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", lines[8])
    assert lines[9] == ""
    assert re.split(r"\s{2,}", lines[10]) == ["group", "records", "bytes", "oldest write", "newest write"]
    rows = [re.split(r"\s+", line.strip()) for line in lines[11:]]
    assert [(row[0], row[1]) for row in rows] == [("Pet:", "2"), ("QUERY_ROOT", "1"), ("User:", "1")]


def test_stats_json(cli: CLI, pets: str) -> None:
    before = int(time.time())
    cli.ok("load", pets, stdin='{"Pet:3": {"name": "Kit"}}\n')
    stats = json.loads(cli.ok("stats", pets, "--json"))
    assert set(stats) == {
        "records", "bytes_used", "data_bytes", "log_bytes", "max_bytes", "map_size", "page_size", "format_version",
        "library_version", "read_only",
        "durability", "rules_fingerprint", "saved_rules_fingerprint", "readers", "reader_slots", "max_readers",
        "oldest_reader_lag", "groups", "oldest_write", "newest_write",
    }  # fmt: skip
    assert stats["records"] == 5 and stats["read_only"] is True
    assert [(g["group"], g["records"]) for g in stats["groups"]] == [("Pet:", 3), ("QUERY_ROOT", 1), ("User:", 1)]
    for group in stats["groups"]:
        assert set(group) == {"group", "records", "bytes", "oldest_write", "newest_write"}
        assert group["bytes"] > 0 and group["oldest_write"] <= group["newest_write"]
    assert before - 5 <= stats["oldest_write"] <= stats["newest_write"] <= time.time() + 1


def test_stats_of_an_empty_cache(cli: CLI) -> None:
    cli.ok("load", "empty.cache", stdin="")
    stats = json.loads(cli.ok("stats", "empty.cache", "--json"))
    assert (stats["records"], stats["groups"], stats["oldest_write"], stats["newest_write"]) == (0, [], None, None)
    assert cli.ok("stats", "empty.cache").splitlines()[7:] == ["oldest write  -", "newest write  -"]


def test_keys_lists_a_group_or_everything(cli: CLI, pets: str) -> None:
    assert cli.ok("keys", pets) == "Pet:1\nPet:2\nQUERY_ROOT\nUser:1\n"
    assert cli.ok("keys", pets, "Pet:") == "Pet:1\nPet:2\n"
    assert cli("keys", pets, "Cat:").out == ""
    assert json.loads(cli.ok("keys", pets, "Pet:", "--json")) == {"keys": ["Pet:1", "Pet:2"], "next": None}


def test_keys_pages_with_after_and_limit(cli: CLI) -> None:
    records = ", ".join(f'"Pet:{n:03}": {{"n": {n}}}' for n in range(25))
    cli.ok("load", "many.cache", stdin="{" + records + "}\n")
    first = cli("keys", "many.cache", "Pet:", "--limit", "10")
    assert first.out.split() == [f"Pet:{n:03}" for n in range(10)]
    assert first.err == "more keys follow: --after Pet:009\n"
    seen: list[str] = []
    after: str | None = None
    while True:
        page = json.loads(
            cli.ok("keys", "many.cache", "Pet:", "--limit", "10", "--json", *(["--after", after] if after else []))
        )
        seen += page["keys"]
        if page["next"] is None:
            break
        assert page["next"] == page["keys"][-1]
        after = page["next"]
    assert seen == [f"Pet:{n:03}" for n in range(25)]
    last = cli("keys", "many.cache", "Pet:", "--after", "Pet:019", "--limit", "10")
    assert (last.out.split(), last.err) == ([f"Pet:{n:03}" for n in range(20, 25)], "")


def test_get_prints_indented_json_with_references_as_such(cli: CLI, pets: str) -> None:
    assert cli.ok("get", pets, "Pet:1") == (
        '{\n  "age": 3,\n  "name": "Rex",\n  "owner": {"$reference": "User:1"},\n  "weight": 1.0\n}\n'
    )
    assert cli.ok("get", pets, "Pet:2", "--json") == (
        '{"name":"Tom","owner":{"$reference":"User:9"},"tags":["cat",null]}\n'
    )


def test_get_follows_references(cli: CLI, pets: str) -> None:
    assert cli.ok("get", pets, "Pet:1", "--follow", "1", "--json") == (
        '{"age":3,"name":"Rex","owner":{"$reference":"User:1","$record":'
        '{"best":{"$reference":"Pet:1"},"name":"Ada"}},"weight":1.0}\n'
    )
    two = json.loads(cli.ok("get", pets, "QUERY_ROOT", "--follow", "2", "--json"))
    rex, tom = two["pets"]
    assert rex["$record"]["owner"]["$record"]["name"] == "Ada"
    assert "$record" not in rex["$record"]["owner"]["$record"]["best"]
    assert tom["$record"]["owner"] == {"$reference": "User:9"}  # absent: stays a reference
    pretty = cli.ok("get", pets, "Pet:2", "--follow", "1")
    assert '  "owner": {"$reference": "User:9"},\n' in pretty


def test_get_of_an_absent_key_exits_2(cli: CLI, pets: str) -> None:
    result = cli("get", pets, "Pet:404")
    assert (result.code, result.out, result.err) == (2, "", "normcache: no record 'Pet:404' in 'pets.cache'\n")
    assert cli("get", pets, "Pet:1", "--follow", "-1").code == 64


def test_get_follows_references_whose_keys_have_escapes(cli: CLI) -> None:
    records = r'{"Odd:\"é\"\\": {"n": 1}, "Ref:1": {"to": {"$reference": "Odd:\"\u00e9\"\\"}}}'
    cli.ok("load", "odd.cache", stdin=records + "\n")
    followed = json.loads(cli.ok("get", "odd.cache", "Ref:1", "--follow", "1", "--json"))
    assert followed == {"to": {"$reference": 'Odd:"é"\\', "$record": {"n": 1}}}
    assert cli.ok("get", "odd.cache", 'Odd:"é"\\', "--json") == '{"n":1}\n'
