"""Rules saved in the cache file: rules save, rules clear, and the GraphQL commands that
use the saved rules without --schema or --config."""

from __future__ import annotations

import json
import re

from conftest import CLI

SCHEMA = "type Query { dog(id: ID!): Dog }\ntype Dog { id: ID! name: String }\n"
RULES = '{"typePolicies": {"Dog": {"keyFields": ["id"]}}}'
QUERY = "{ dog(id: 1) { id name } }"
RESPONSE = '{"data": {"dog": {"__typename": "Dog", "id": "1", "name": "Rex"}}}'


def test_saved_rules_key_later_commands(cli: CLI) -> None:
    (cli.folder / "schema.graphql").write_text(SCHEMA)
    (cli.folder / "rules.json").write_text(RULES)
    fingerprint = cli.ok("rules", "save", "app.cache", "--schema", "schema.graphql", "--config", "rules.json").strip()
    assert re.fullmatch(r"[0-9a-f]{16}", fingerprint)
    assert "QUERY_ROOT.dog(id:1)" in cli.ok("write", "app.cache", "--query", QUERY, stdin=RESPONSE).splitlines()
    assert json.loads(cli.ok("get", "app.cache", "QUERY_ROOT", "--json")) == {"dog(id:1)": {"$reference": "Dog:1"}}
    read = json.loads(cli.ok("read", "app.cache", "--query", QUERY, "--json"))
    assert (read["status"], read["data"]) == ("complete", {"dog": {"id": "1", "name": "Rex"}})
    stats = json.loads(cli.ok("stats", "app.cache", "--json"))
    assert stats["saved_rules_fingerprint"] == stats["rules_fingerprint"] == fingerprint
    assert cli.ok("stats", "app.cache").splitlines()[5] == f"saved rules   {fingerprint}"


def test_rules_clear(cli: CLI) -> None:
    (cli.folder / "rules.json").write_text(RULES)
    cli.ok("rules", "save", "app.cache", "--config", "rules.json")
    assert cli.ok("rules", "clear", "app.cache") == "cleared the saved rules\n"
    again = cli("rules", "clear", "app.cache")
    assert (again.code, again.err) == (2, "normcache: 'app.cache' has no saved rules\n")
    assert json.loads(cli.ok("stats", "app.cache", "--json"))["saved_rules_fingerprint"] is None


def test_rules_save_needs_rules(cli: CLI) -> None:
    result = cli("rules", "save", "app.cache")
    assert result.code == 64
    assert "give --schema, --config or both" in result.err
