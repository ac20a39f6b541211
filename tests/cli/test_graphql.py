"""GraphQL operations: prepare, normalize, write, read."""

from __future__ import annotations

import json

import pytest

from conftest import CLI

SCHEMA = """
type Query { hero(episode: String): Character }
type Character { id: ID! name: String friends: [Character] }
extend type Character @typePolicy(keyFields: "id")
"""
QUERY = "query Hero($episode: String) { hero(episode: $episode) { name friends { name } } }"
RESPONSE = {
    "data": {
        "hero": {
            "__typename": "Character", "id": "1", "name": "Luke",
            "friends": [{"__typename": "Character", "id": "2", "name": "Leia"}],
        }
    }
}  # fmt: skip
VARIABLES = '{"episode": "JEDI"}'


@pytest.fixture
def schema(cli: CLI) -> str:
    (cli.folder / "schema.graphql").write_text(SCHEMA)
    (cli.folder / "hero.graphql").write_text(QUERY)
    (cli.folder / "response.json").write_text(json.dumps(RESPONSE))
    return "schema.graphql"


def test_prepare_prints_the_document_to_send(cli: CLI, schema: str) -> None:
    assert cli.ok("prepare", "--schema", schema, "--query-file", "hero.graphql") == (
        "query Hero($episode: String) {\n"
        "  hero(episode: $episode) {\n"
        "    name\n"
        "    friends {\n"
        "      name\n"
        "      id\n"
        "      __typename\n"
        "    }\n"
        "    id\n"
        "    __typename\n"
        "  }\n"
        "}\n"
    )


def test_prepare_and_write_refuse_a_document_past_the_limits_given(cli: CLI) -> None:
    document = "{ hero { name, id } }"  # 21 bytes, 7 tokens
    assert cli.ok("prepare", "--query", document, "--max-document-bytes", "21", "--max-document-tokens", "7") == (
        "{\n  hero {\n    name\n    id\n    __typename\n  }\n}\n"
    )
    result = cli("prepare", "--query", document, "--max-document-bytes", "20")
    assert (result.code, result.out) == (3, "")
    assert result.err == (
        "normcache: the document is 21 bytes long, more than the limit of 20 (option max_document_bytes)\n"
    )
    result = cli("write", "w.cache", "--query", document, "--max-document-tokens", "6", stdin="{}")
    assert (result.code, result.out) == (3, "")
    assert result.err == (
        "normcache: GraphQL error at line 1, column 21: the document has more than 6 tokens, "
        "the limit (option max_document_tokens)\n"
    )
    result = cli("prepare", "--query", document, "--max-document-tokens", "0")
    assert result.code == 64 and "--max-document-tokens must be at least 1" in result.err


def test_normalize_prints_the_records(cli: CLI, schema: str) -> None:
    arguments = ("normalize", "--schema", schema, "--query", QUERY, "--variables", VARIABLES)
    compact = cli.ok(*arguments, "--json", stdin=json.dumps(RESPONSE))
    assert json.loads(compact) == {
        "Character:2": {"name": "Leia", "id": "2", "__typename": "Character"},
        "Character:1": {
            "name": "Luke",
            "friends": [{"$reference": "Character:2"}],
            "id": "1",
            "__typename": "Character",
        },
        "QUERY_ROOT": {"hero(episode:JEDI)": {"$reference": "Character:1"}},
    }
    pretty = cli.ok(*arguments, "response.json")
    assert json.loads(pretty) == json.loads(compact)
    assert '    "friends": [\n      {"$reference": "Character:2"}\n    ],\n' in pretty


def test_write_then_read(cli: CLI, schema: str) -> None:
    operation = ("--schema", schema, "--query", QUERY, "--variables", VARIABLES)
    assert cli.ok("write", "app.cache", *operation, "response.json").splitlines() == [
        "Character:2.name", "Character:2.id", "Character:2.__typename", "Character:1.name", "Character:1.friends",
        "Character:1.id", "Character:1.__typename", "QUERY_ROOT.hero(episode:JEDI)",
    ]  # fmt: skip
    assert cli.ok("write", "app.cache", *operation, "--json", stdin=json.dumps(RESPONSE)) == "[]\n"
    assert cli.ok("read", "app.cache", *operation) == (
        '{\n  "hero": {\n    "name": "Luke",\n    "friends": [\n'
        '      {\n        "name": "Leia"\n      }\n    ]\n  }\n}\n'
    )
    assert json.loads(cli.ok("read", "app.cache", *operation, "--json")) == {
        "status": "complete",
        "data": {"hero": {"name": "Luke", "friends": [{"name": "Leia"}]}},
        "missing": [],
        "stale": [],
    }


def test_a_read_that_misses_exits_2(cli: CLI, schema: str) -> None:
    cli.ok("write", "app.cache", "--schema", schema, "--query", QUERY, "--variables", VARIABLES, "response.json")
    deeper = "{ hero(episode: JEDI) { name friends { name friends { name } } } }"
    result = cli("read", "app.cache", "--schema", schema, "--query", deeper, "--json")
    assert result.code == 2
    assert json.loads(result.out) == {
        "status": "miss",
        "data": None,
        "missing": [
            {"path": ["hero", "friends", 0, "friends"], "reason": "absent", "record": "Character:2", "field": "friends"}
        ],
        "stale": [],
    }
    result = cli("read", "app.cache", "--schema", schema, "--query", deeper, "--partial")
    assert result.code == 2
    assert json.loads(result.out) == {"hero": {"name": "Luke", "friends": [{"name": "Leia", "friends": None}]}}
    assert result.err == "normcache: a miss: missing hero.friends.0.friends (absent: Character:2 friends)\n"
    other = cli("read", "app.cache", "--schema", schema, "--query", QUERY, "--variables", '{"episode": "EMPIRE"}')
    assert (other.code, other.out) == (2, "")


def test_bad_input_exits_3(cli: CLI, schema: str) -> None:
    bad_query = cli("prepare", "--schema", schema, "--query", "{ hero { nme } }")
    assert bad_query.code == 3
    assert (
        bad_query.err
        == "normcache: GraphQL error at line 1, column 10: field 'nme' is not defined on type 'Character'\n"
    )
    truncated = cli("write", "app.cache", "--schema", schema, "--query", QUERY, stdin='{"data": {"hero": ')
    assert truncated.code == 3 and truncated.err.startswith("normcache: JSON error at byte 18"), truncated.err
    no_envelope = cli("normalize", "--schema", schema, "--query", QUERY, stdin=json.dumps(RESPONSE["data"]))
    assert no_envelope.code == 3 and "envelope" in no_envelope.err
    missing = cli("prepare", "--schema", "nope.graphql", "--query", QUERY)
    assert (missing.code, missing.err) == (
        3,
        "normcache: cannot read the schema 'nope.graphql': No such file or directory\n",
    )
    bad_variables = cli("normalize", "--query", QUERY, "--variables", "{", "response.json")
    assert bad_variables.code == 3
    bad_config = cli("prepare", "--config", "response.json", "--query", QUERY)
    assert bad_config.code == 3
    assert json.loads(cli.ok("stats", "app.cache", "--json"))["records"] == 0  # the failed write wrote nothing
