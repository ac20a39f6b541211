"""normcache trim: evicting the least recently written records down to a size."""

from __future__ import annotations

import json
import re

from conftest import CLI


def test_trim_to_nothing_keeps_the_roots(cli: CLI, pets: str) -> None:
    out = cli.ok("trim", pets, "--max-bytes", "0")
    lines = out.splitlines()
    assert re.fullmatch(r"evicted 3 records, data bytes \d+ -> \d+", lines[0])
    assert lines[1:] == ["  Pet:  2", "  User:  1"]
    assert cli.ok("keys", pets) == "QUERY_ROOT\n"
    assert cli.ok("trim", pets, "--max-bytes", "0").startswith("evicted 0 records, ")


def test_trim_json_reports_by_group(cli: CLI, pets: str) -> None:
    before = json.loads(cli.ok("stats", pets, "--json"))["data_bytes"]
    report = json.loads(cli.ok("trim", pets, "--max-bytes", str(before), "--json"))
    assert report == {"records": 0, "bytes": 0, "data_bytes_before": before, "data_bytes_after": before, "groups": {}}
    report = json.loads(cli.ok("trim", pets, "--max-bytes", "0", "--json"))
    assert report["records"] == 3 and report["groups"] == {"Pet:": 2, "User:": 1}
    assert report["data_bytes_before"] == before


def test_trim_refuses_a_negative_size_and_a_missing_file(cli: CLI, pets: str) -> None:
    result = cli("trim", pets, "--max-bytes=-1")
    assert result.code == 64
    assert "--max-bytes must be 0 or more, not -1" in result.err
    result = cli("trim", "absent.cache", "--max-bytes", "0")
    assert (result.code, result.err) == (4, "normcache: cannot open 'absent.cache': no such file\n")
    assert cli.ok("keys", pets) == "Pet:1\nPet:2\nQUERY_ROOT\nUser:1\n"
