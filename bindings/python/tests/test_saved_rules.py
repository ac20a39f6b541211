"""Rules saved in the cache file: a second process that brings no rules keys its writes by
them; other rules show in stats; a strict cache refuses them with the exact message;
damaged saved rules (written here with py-lmdb) raise NotACacheError naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import lmdb
import pytest
from conftest import RunPython

import normcache

SCHEMA = "type Query { dog(id: ID!): Dog }\ntype Dog { id: ID! name: String }"
KEY_RULES = {"typePolicies": {"Dog": {"keyFields": ["id"]}}}
QUERY = "query Q { dog(id: 1) { id name } }"
RESPONSE = {"data": {"dog": {"__typename": "Dog", "id": "1", "name": "Rex"}}}
REMEDY = '; open it with the option "rules": "own" to clear or replace them'

#: A child that opens the cache with no rules of its own, writes RESPONSE through QUERY
#: and prints the record Dog:1 and its stats as JSON.
CHILD_WRITES_WITH_SAVED_RULES = f"""
import json, sys
import normcache
with normcache.Cache(sys.argv[1]) as cache:
    with cache.prepare({QUERY!r}) as op:
        cache.write(op, {RESPONSE!r})
        data = cache.read(op)
    print(json.dumps({{"record": cache.get("Dog:1"), "data": data, "stats": cache.stats()}}))
"""


def saved_cache(path: Path) -> str:
    """Opens a cache at `path` with SCHEMA and KEY_RULES, saves them and returns their
    fingerprint."""
    with normcache.Cache(path, schema=SCHEMA, config=KEY_RULES) as cache:
        assert cache.stats()["saved_rules_fingerprint"] is None
        cache.save_rules()
        stats = cache.stats()
    fingerprint: str = stats["saved_rules_fingerprint"]
    assert stats["rules_fingerprint"] == fingerprint
    assert len(fingerprint) == 16 and int(fingerprint, 16) >= 0
    return fingerprint


def test_a_second_process_keys_by_the_saved_rules(cache_path: Path, run_python: RunPython) -> None:
    fingerprint = saved_cache(cache_path)
    child = run_python(CHILD_WRITES_WITH_SAVED_RULES, str(cache_path))
    assert child.returncode == 0, child.stderr
    answer = json.loads(child.stdout)
    assert answer["record"] == {"__typename": "Dog", "id": "1", "name": "Rex"}
    assert answer["data"] == {"dog": {"id": "1", "name": "Rex"}}
    assert answer["stats"]["rules_fingerprint"] == fingerprint
    assert answer["stats"]["saved_rules_fingerprint"] == fingerprint
    with normcache.Cache(cache_path, rules="own") as cache:
        assert cache.get("QUERY_ROOT") == {"dog(id:1)": {"$reference": "Dog:1"}}


def test_the_same_rules_brought_again_have_the_same_fingerprint(cache_path: Path) -> None:
    fingerprint = saved_cache(cache_path)
    with normcache.Cache(cache_path, schema=SCHEMA, config=KEY_RULES, rules="strict") as cache:
        assert cache.stats()["rules_fingerprint"] == fingerprint
        with cache.prepare(QUERY) as op:
            cache.write(op, RESPONSE)
        assert cache.get("Dog:1") is not None


def test_other_rules_show_in_stats_and_strict_refuses_them(cache_path: Path) -> None:
    fingerprint = saved_cache(cache_path)
    with normcache.Cache(cache_path, config={"defaultKeyFields": ["id"]}) as other:
        stats = other.stats()
        assert stats["saved_rules_fingerprint"] == fingerprint
        assert stats["rules_fingerprint"] not in (None, fingerprint)
        other.prepare(QUERY).close()
    with normcache.Cache(cache_path, config={"defaultKeyFields": ["id"]}, rules="strict") as strict:
        own = strict.stats()["rules_fingerprint"]
        message = (
            f"the rules of this handle (fingerprint {own}) differ from the rules saved in '{cache_path}' "
            f'(fingerprint {fingerprint}), and it was opened with "rules": "strict": give it no rules of '
            "its own to use the saved ones, or save its rules in the file"
        )
        with pytest.raises(normcache.InvalidArgumentError) as refused:
            strict.prepare(QUERY)
        assert (refused.value.code, refused.value.message) == (-1, message)
        with pytest.raises(normcache.InvalidArgumentError) as refused:
            strict.put({"Dog:9": {"name": "Odd"}})
        assert refused.value.message == message
        assert strict.get("Dog:9") is None
        strict.save_rules()
        strict.prepare(QUERY).close()


def test_damaged_saved_rules_are_not_a_cache(cache_path: Path) -> None:
    saved_cache(cache_path)
    with lmdb.open(str(cache_path), subdir=False, max_dbs=4, lock=True) as environment:
        meta = environment.open_db(b"meta", create=False)
        with environment.begin(write=True, db=meta) as txn:
            found = txn.get(b"rules")
            assert found is not None
            stored = bytearray(found)
            stored[20] ^= 1
            txn.put(b"rules", bytes(stored))
    for rules in (None, "saved", "strict"):
        with pytest.raises(normcache.NotACacheError) as refused:
            normcache.Cache(cache_path, rules=rules)
        assert refused.value.code == -9
        assert (
            refused.value.message
            == f"'{cache_path}' is damaged: its saved rules do not match their fingerprint{REMEDY}"
        )
    with normcache.Cache(cache_path, rules="own") as repair:
        assert repair.stats()["rules_fingerprint"] is None
        assert repair.clear_saved_rules() is True
        assert repair.clear_saved_rules() is False
    with normcache.Cache(cache_path) as cache:
        assert cache.stats()["saved_rules_fingerprint"] is None


def test_a_file_without_saved_rules_behaves_as_before(cache: normcache.Cache) -> None:
    stats = cache.stats()
    assert (stats["rules_fingerprint"], stats["saved_rules_fingerprint"]) == (None, None)
    assert cache.clear_saved_rules() is False
    with pytest.raises(normcache.InvalidArgumentError) as refused:
        cache.save_rules()
    assert refused.value.message == "this handle has no rules to save: load a schema or configure rules first"
    with cache.prepare(QUERY) as op:
        cache.write(op, RESPONSE)
    assert cache.get("QUERY_ROOT") == {"dog(id:1)": {"$reference": "QUERY_ROOT.dog(id:1)"}}


def test_a_bad_rules_option_is_refused(cache_path: Path) -> None:
    with pytest.raises(normcache.InvalidArgumentError) as refused:
        normcache.Cache(cache_path, rules="mine")  # type: ignore[arg-type]
    assert refused.value.message == 'option \'rules\' must be "saved", "own" or "strict"'
