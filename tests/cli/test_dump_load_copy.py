"""Moving records: dump, load, copy."""

from __future__ import annotations

import json
import random

from conftest import CLI


def test_dump_prints_one_record_a_line_in_key_order(cli: CLI, pets: str) -> None:
    assert cli.ok("dump", pets) == (
        '{"key":"Pet:1","record":{"age":3,"name":"Rex","owner":{"$reference":"User:1"},"weight":1.0}}\n'
        '{"key":"Pet:2","record":{"name":"Tom","owner":{"$reference":"User:9"},"tags":["cat",null]}}\n'
        '{"key":"QUERY_ROOT","record":{"pets":[{"$reference":"Pet:1"},{"$reference":"Pet:2"}]}}\n'
        '{"key":"User:1","record":{"best":{"$reference":"Pet:1"},"name":"Ada"}}\n'
    )
    assert cli.ok("dump", pets, "--prefix", "User:") == (
        '{"key":"User:1","record":{"best":{"$reference":"Pet:1"},"name":"Ada"}}\n'
    )


def test_a_dump_loaded_into_an_empty_cache_gives_identical_records(cli: CLI, pets: str) -> None:
    dump = cli.ok("dump", pets)
    assert cli.ok("load", "copy.cache", stdin=dump) == "loaded 4 records\n"
    assert cli.ok("dump", "copy.cache") == dump
    (cli.folder / "pets.jsonl").write_text(dump)
    assert cli.ok("load", "from-file.cache", "pets.jsonl") == "loaded 4 records\n"
    assert cli.ok("dump", "from-file.cache") == dump


def _record(rng: random.Random, n: int) -> dict[str, object]:
    """A record with every kind of value, numbers kept as text that round-trips exactly."""
    return {
        "id": str(n),
        "n": n,
        "x": float(f"{rng.random() * 1000:.6f}"),
        "big": 12345678901234567890 + n,
        "text": "".join(rng.choice('aé"\\\n\t😀 z') for _ in range(rng.randint(0, 12))),
        "flag": n % 2 == 0,
        "none": None,
        "list": [n, [str(n)], {"k": n}],
        "ref": {"$reference": f"Item:{rng.randrange(20_000)}"},
        "args(first:10,after:x)": n % 7,
    }


def test_a_round_trip_of_20000_records_is_exact(cli: CLI) -> None:
    rng = random.Random(13)
    lines = [json.dumps({f"Item:{n}": _record(rng, n)}) for n in range(20_000)]
    lines.append(json.dumps({"key": "QUERY_ROOT", "record": {"items": [{"$reference": "Item:1"}]}}))
    assert cli.ok("load", "big.cache", stdin="\n".join(lines) + "\n") == "loaded 20001 records\n"
    dump = cli.ok("dump", "big.cache")
    assert len(dump.splitlines()) == 20_001
    assert cli.ok("load", "again.cache", stdin=dump) == "loaded 20001 records\n"
    assert cli.ok("dump", "again.cache") == dump
    first = json.loads(dump.splitlines()[0])
    assert first["key"] == "Item:0" and first["record"]["big"] == 12345678901234567890


def test_load_merges_into_what_the_cache_holds(cli: CLI, pets: str) -> None:
    stdin = '{"key": "Pet:1", "record": {"age": 4}}\n\n{"Pet:3": {"name": "Kit"}, "Pet:4": {"name": "Bo"}}\n'
    assert cli.ok("load", pets, stdin=stdin) == "loaded 3 records\n"
    assert cli.ok("get", pets, "Pet:1", "--json") == (
        '{"age":4,"name":"Rex","owner":{"$reference":"User:1"},"weight":1.0}\n'
    )
    assert cli.ok("keys", pets, "Pet:") == "Pet:1\nPet:2\nPet:3\nPet:4\n"


def test_a_truncated_line_names_its_number_and_nothing_is_written(cli: CLI, pets: str) -> None:
    dump = cli.ok("dump", pets)
    truncated = dump[: dump.index("\n", dump.index("\n") + 1) + 30]  # two lines and a cut third
    result = cli("load", "new.cache", stdin=truncated)
    assert result.code == 3
    assert result.err == "normcache: line 3: expected a JSON value: the text ends at byte 29\n"
    assert not (cli.folder / "new.cache").exists()
    result = cli("load", pets, stdin='{"Pet:9": {"name": "Ok"}}\n{"Pet:10": {"name": }\n')
    assert (result.code, result.err) == (3, "normcache: line 2: expected a JSON value at byte 20\n")
    assert cli("get", pets, "Pet:9").code == 2


def test_malformed_lines_on_stdin_are_bad_input(cli: CLI) -> None:
    cases = {
        "not json\n": "line 1: 'not' is not a JSON value at byte 0",
        "[1, 2]\n": 'line 1: expected a JSON object, {"key": KEY, "record": {...}}',
        '{"Pet:1": 5}\n': 'line 1: the record "Pet:1" is not a JSON object; '
        'expected {"key": KEY, "record": {...}} or {"Key": {...}}',
        '{"a": {}} x\n': "line 1: unexpected text after the JSON value at byte 10",
        '\n\n{"key": "Pet:1", "record": {"n": 1}, "extra": 2}\n': 'line 3: the record "key" is not a JSON object; '
        'expected {"key": KEY, "record": {...}} or {"Key": {...}}',
    }
    for stdin, message in cases.items():
        result = cli("load", "bad.cache", stdin=stdin)
        assert (result.code, result.err) == (3, f"normcache: {message}\n"), stdin


def test_a_record_the_core_refuses_names_its_lines(cli: CLI) -> None:
    result = cli("load", "bad.cache", stdin='{"Pet:1": {"n": 1}}\n{"": {"n": 2}}\n')
    assert result.code == 3 and result.err.startswith("normcache: lines 1-2: "), result.err


def test_load_of_a_missing_file_is_bad_input(cli: CLI) -> None:
    result = cli("load", "x.cache", "missing.jsonl")
    assert (result.code, result.err) == (
        3,
        "normcache: cannot read the records 'missing.jsonl': No such file or directory\n",
    )


def test_copy_writes_a_new_cache_with_the_same_records(cli: CLI, pets: str) -> None:
    assert cli.ok("copy", pets, "backup.cache") == "copied 'pets.cache' to 'backup.cache'\n"
    assert cli.ok("dump", "backup.cache") == cli.ok("dump", pets)
    result = cli("copy", pets, "backup.cache")
    assert (result.code, result.err) == (3, "normcache: 'backup.cache' exists: copy writes a new file\n")
    cli.ok("rm", "backup.cache", "Pet:1")
    assert cli("get", pets, "Pet:1").code == 0
