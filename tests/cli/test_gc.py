"""normcache gc, retain and release: the report in text and JSON, dry runs, dangling
references, retained keys kept, and a release below zero refused."""

from __future__ import annotations

import json

from conftest import CLI


def test_gc_removes_unreachable_records_and_reports_them(cli: CLI, pets: str) -> None:
    cli.ok("load", pets, stdin='{"Toy:1": {"n": 1}, "Toy:2": {"n": 2}}\n')
    dry = json.loads(cli.ok("gc", pets, "--dry-run", "--dangling", "--json"))
    assert (dry["dry_run"], dry["removed_records"], dry["dangling_fields"]) == (True, 2, 1)
    assert dry["groups"] == {"Pet:": {"records": 0, "fields": 1}, "Toy:": {"records": 2, "fields": 0}}
    text = cli.ok("gc", pets).splitlines()
    assert text[:3] == [
        "removed 2 records (2 unreachable, 0 left empty)",
        "removed 0 fields (0 stale, 0 dangling)",
        "  Toy:  2 records  0 fields",
    ]
    assert text[3].startswith("kept 4 records in ")
    assert json.loads(cli.ok("gc", pets, "--dangling", "--json"))["dangling_fields"] == 1
    assert json.loads(cli.ok("get", pets, "Pet:2", "--json")) == {"name": "Tom", "tags": ["cat", None]}


def test_retained_keys_are_kept_until_released(cli: CLI, pets: str) -> None:
    cli.ok("load", pets, stdin='{"Draft:1": {"n": 1}}\n')
    assert cli.ok("retain", pets, "Draft:1") == "1\n"
    assert json.loads(cli.ok("gc", pets, "--json"))["removed_records"] == 0
    assert cli.ok("release", pets, "Draft:1") == "0\n"
    result = cli("release", pets, "Draft:1")
    assert (result.code, result.err) == (3, "normcache: 'Draft:1' is not retained\n")
    assert json.loads(cli.ok("gc", pets, "--json"))["removed_records"] == 1


def test_gc_options_are_checked(cli: CLI, pets: str) -> None:
    assert cli("gc", pets, "--grace", "-1").code == 64
    result = cli("gc", "absent.cache")
    assert (result.code, result.err) == (4, "normcache: cannot open 'absent.cache': no such file\n")
