"""A mutation's root fields, whose keys hold its arguments: by default a write keeps the
entities a mutation returns and not MUTATION_ROOT, normalize shows exactly that, and no
byte of a password argument reaches the cache file; "storeMutationRoot": True brings back
Apollo's records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import normcache

# The login of issue 12: a password argument, a token in the answer, a keyed user.
LOGIN = 'mutation { login(email: "a@b", password: "hunter2") { token user { __typename id name } } }'

LOGIN_RESPONSE: dict[str, Any] = {
    "data": {
        "login": {
            "__typename": "LoginPayload",
            "token": "t0k3n",
            "user": {"__typename": "User", "id": "1", "name": "Ann"},
        }
    }
}

USER_RULE = {"typePolicies": {"User": {"keyFields": ["id"]}}}

USER_RECORD = {"__typename": "User", "id": "1", "name": "Ann"}

PAYLOAD_KEY = "MUTATION_ROOT.login(email:a@b,password:hunter2)"


def test_a_mutation_stores_its_entities_and_not_its_root(cache: normcache.Cache, cache_path: Path) -> None:
    cache.configure(USER_RULE)
    with cache.prepare(LOGIN) as op:
        assert cache.normalize(op, LOGIN_RESPONSE) == {"User:1": USER_RECORD}
        assert cache.write(op, LOGIN_RESPONSE) == ["User:1.__typename", "User:1.id", "User:1.name"]
        assert cache.search("") == ["User:1"]
        assert cache.get("User:1") == USER_RECORD
        assert cache.get("MUTATION_ROOT") is None
        with pytest.raises(normcache.CacheMiss) as miss:
            cache.read(op)
        assert miss.value.paths == [["login"]]
    stored = {key: cache.get(key) for key in cache.search("")}
    assert "hunter2" not in json.dumps(stored)
    cache.close()
    assert b"hunter2" not in cache_path.read_bytes()


def test_store_mutation_root_keeps_apollos_records(cache: normcache.Cache) -> None:
    cache.configure({**USER_RULE, "storeMutationRoot": True})
    with cache.prepare(LOGIN) as op:
        records = {
            "User:1": USER_RECORD,
            PAYLOAD_KEY: {"token": "t0k3n", "user": {"$reference": "User:1"}, "__typename": "LoginPayload"},
            "MUTATION_ROOT": {"login(email:a@b,password:hunter2)": {"$reference": PAYLOAD_KEY}},
        }
        assert cache.normalize(op, LOGIN_RESPONSE) == records
        cache.write(op, LOGIN_RESPONSE, changes=False)
        assert cache.search("") == ["MUTATION_ROOT", PAYLOAD_KEY, "User:1"]
        assert {key: cache.get(key) for key in cache.search("")} == records
        assert cache.read(op) == {"login": {"token": "t0k3n", "user": USER_RECORD}}


def test_the_option_holds_for_operations_prepared_afterwards(cache: normcache.Cache) -> None:
    ping = 'mutation { ping(secret: "s") }'
    response = {"data": {"ping": True}}
    with cache.prepare(ping) as before:
        cache.configure({"storeMutationRoot": True})
        with cache.prepare(ping) as storing:
            cache.configure({"storeMutationRoot": False})
            with cache.prepare(ping) as after:
                assert cache.normalize(before, response) == {}
                assert cache.normalize(storing, response) == {"MUTATION_ROOT": {"ping(secret:s)": True}}
                assert cache.normalize(after, response) == {}


def test_store_mutation_root_must_be_a_boolean(cache: normcache.Cache) -> None:
    with pytest.raises(normcache.InvalidArgumentError, match="storeMutationRoot must be true or false"):
        cache.configure({"storeMutationRoot": "yes"})
