"""The baseline of what a Python user writes today: a plain GraphQL normalizer in pure
Python on py-lmdb.

Objects with `__typename` and `id` become records `Type:id`, other objects records of
their path; references are `{"__ref": key}` as in Apollo Client; a write merges field by
field in one durable transaction and puts only records that changed; a read follows the
references from `ROOT_QUERY` and serialises the data.
"""
import json
from typing import Any, Dict

import lmdb

import bench_common

Record = Dict[str, Any]


class PlainNormalizer(bench_common.Workload):
    """Normalize, merge and denormalize with `json` and py-lmdb."""

    def open(self, path: str) -> None:
        self.env = lmdb.open(path, subdir=False, map_size=4 << 30, sync=True, metasync=True, lock=True)

    def _normalize(self, value: Any, key: str, records: Dict[str, Record]) -> Any:
        if isinstance(value, list):
            return [self._normalize(item, f"{key}.{index}", records) for index, item in enumerate(value)]
        if not isinstance(value, dict):
            return value
        if "__typename" in value and "id" in value:
            key = f"{value['__typename']}:{value['id']}"
        fields = records.setdefault(key, {})
        for name, field in value.items():
            fields[name] = self._normalize(field, f"{key}.{name}", records)
        return {"__ref": key}

    def write(self, response: bytes) -> None:
        records: Dict[str, Record] = {}
        root = records.setdefault("ROOT_QUERY", {})
        for name, value in json.loads(response)["data"].items():
            root[name] = self._normalize(value, f"ROOT_QUERY.{name}", records)
        with self.env.begin(write=True) as txn:
            for key, fields in records.items():
                encoded_key = key.encode()
                stored = txn.get(encoded_key)
                merged = json.loads(stored) if stored is not None else {}
                before = dict(merged)
                merged.update(fields)
                if stored is None or merged != before:
                    txn.put(encoded_key, json.dumps(merged).encode())

    def read(self) -> bytes:
        with self.env.begin() as txn:
            def resolve(value: Any) -> Any:
                if isinstance(value, list):
                    return [resolve(item) for item in value]
                if isinstance(value, dict) and "__ref" in value:
                    return {name: resolve(field) for name, field in json.loads(txn.get(value["__ref"].encode())).items()}
                return value
            root = json.loads(txn.get(b"ROOT_QUERY"))
            return json.dumps({name: resolve(value) for name, value in root.items()}).encode()

    def records(self) -> int:
        return self.env.stat()["entries"]

    def close(self) -> None:
        self.env.close()


if __name__ == "__main__":
    bench_common.run(PlainNormalizer(), bench_common.arguments())
