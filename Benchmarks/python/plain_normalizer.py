"""What a Python user writes today: a plain, generic GraphQL normalizer in pure Python,
with `json` and py-lmdb, as a baseline of normcache-bench (see bench_common for the
command line and the output).

Normalizing walks the response's `data`: an object with `__typename` and `id` becomes the
record "<__typename>:<id>", any other object the record of its path ("<parent key>.<field>",
list items "<parent key>.<field>.<index>"); the root is the record ROOT_QUERY. Objects
inside a record are replaced by {"__ref": key}, as in Apollo Client.

A write stores the records in one durable LMDB write transaction, merging field by field
into what is stored and putting a record only when it changed, so an identical rewrite
puts nothing. A read follows the references from ROOT_QUERY, returning every stored field,
and serializes the data with json.dumps.
"""
import json
from typing import Any, Dict

import lmdb

import bench_common

#: A record: field name -> JSON value, with {"__ref": key} for objects.
Record = Dict[str, Any]

#: The key of the root record.
ROOT = "ROOT_QUERY"
#: Stands for a field the stored record does not have.
_ABSENT = object()


def normalize(data: Dict[str, Any]) -> Dict[str, Record]:
    """The records of a response's `data`, by key (ROOT_QUERY first)."""
    records: Dict[str, Record] = {}

    def reference(value: Any, path: str) -> Any:
        """`value` as it is stored in its parent record: objects become references."""
        if isinstance(value, dict):
            return {"__ref": store(value, path)}
        if isinstance(value, list):
            return [reference(item, f"{path}.{index}") for index, item in enumerate(value)]
        return value

    def store(obj: Dict[str, Any], path: str) -> str:
        """Adds the fields of `obj` to its record and returns the record's key."""
        typename, identifier = obj.get("__typename"), obj.get("id")
        key = f"{typename}:{identifier}" if typename is not None and identifier is not None else path
        record = records.setdefault(key, {})
        for name, value in obj.items():
            record[name] = reference(value, f"{key}.{name}") if isinstance(value, (dict, list)) else value
        return key

    store(data, ROOT)
    return records


class PlainNormalizer(bench_common.Workload):
    """The normalizer on a py-lmdb environment of one file."""

    name = "plain_normalizer"

    def open(self, path: str) -> None:
        self.env = lmdb.open(path, subdir=False, map_size=4 << 30, sync=True, metasync=True)

    def write(self, response: bytes) -> None:
        records = normalize(json.loads(response)["data"])
        with self.env.begin(write=True) as txn:
            for key, fields in records.items():
                encoded_key = key.encode()
                stored = txn.get(encoded_key)
                if stored is None:
                    record = fields
                else:
                    record = json.loads(stored)
                    if all(record.get(name, _ABSENT) == value for name, value in fields.items()):
                        continue
                    record.update(fields)
                txn.put(encoded_key, json.dumps(record).encode())

    def read(self) -> str:
        with self.env.begin() as txn:

            def load(key: str) -> Record:
                """The stored record `key`."""
                stored = txn.get(key.encode())
                if stored is None:
                    raise KeyError(f"the cache has no record {key!r}")
                return json.loads(stored)

            def resolve(value: Any) -> Any:
                """`value` with its references replaced by the records they name."""
                if isinstance(value, dict):
                    return {name: resolve(field) for name, field in load(value["__ref"]).items()}
                if isinstance(value, list):
                    return [resolve(item) for item in value]
                return value

            data = resolve({"__ref": ROOT})
        return json.dumps(data)

    def records(self) -> int:
        return self.env.stat()["entries"]

    def close(self) -> None:
        self.env.close()


if __name__ == "__main__":
    bench_common.run(PlainNormalizer(), bench_common.arguments(__doc__))
