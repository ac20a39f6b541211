"""The feed workload through normcache's Python binding (bindings/python), as a Python
user calls it: prepare the query once, write responses, read the data back as JSON."""
import os
import sys

import bench_common


class Binding(bench_common.Workload):
    """normcache.Cache: write without asking for the changed fields, read_json."""

    def __init__(self, query: str) -> None:
        self.query = query

    def open(self, path: str) -> None:
        self.cache = normcache.Cache(path)
        self.operation = self.cache.prepare(self.query)

    def write(self, response: bytes) -> None:
        self.cache.write(self.operation, response, changes=False)

    def read(self) -> bytes:
        return self.cache.read_json(self.operation).encode()

    def records(self) -> int:
        return self.cache.stats()["records"]

    def close(self) -> None:
        self.cache.close()


if __name__ == "__main__":
    options = bench_common.arguments()
    if options.library:
        os.environ["NORMCACHE_LIBRARY"] = options.library
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings", "python"))
    import normcache

    with open(options.query, encoding="utf-8") as query:
        bench_common.run(Binding(query.read()), options)
