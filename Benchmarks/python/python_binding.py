"""The feed workload through normcache's Python binding (bindings/python), as a Python user
calls it, as a baseline of normcache-bench (see bench_common for the command line and the
output; --library names the libnormcache.so to load).

The cache is opened as the plain normalizer's LMDB file is: durable commits and a 4 GiB
map (the default 64 MiB map would have to grow in the middle of a large write), and with
the default key rule {"defaultKeyFields": ["id"]}, so that it too keys objects
"<__typename>:<id>" (without a rule normcache keys every object by its response path).
The query is prepared once per cache; writes pass the response bytes untouched and do not
ask for the changed fields (changes=False: the plain normalizer does not compute them
either); reads return the library's JSON text.

With --defaults the script times what a user's plain calls cost instead: the cache opened
with the key rule alone (every option the library's default, as normcache-bench's C
calls open it), `write(op, response)` (changes=True: the changed fields built as a list)
and `read(op)` (the data as Python objects). Each run then times marshal.loads building the
same objects (bench_common's "read_floor"): the floor of any read that returns them, and
the same for the list of changed fields each write returns ("write_cold_floor", ...). And
each run times the C calls under them in the same process, straight through ctypes on a
cache of their own (bench_common's "c_*" phases: `normcache_write` asking for the changed
keys, `normcache_read`, each buffer freed with `normcache_free`), so that the binding is
set against the C calls in the same process state and the same minutes.

A read returns exactly the query's selection: `__typename`, which normcache adds to the
document it sends but the query does not select, is not part of it.
"""
import ctypes
import os
import sys
from types import ModuleType
from typing import Any, Dict

import bench_common

#: The binding's package directory in this checkout.
BINDING = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "bindings", "python")
#: Key objects "<__typename>:<id>", as the plain normalizer does.
CONFIG = {"defaultKeyFields": ["id"]}
#: The options of the plain normalizer's LMDB environment: synced commits, a 4 GiB map.
OPTIONS = {"durability": "full", "map_size": 4 << 30}


def import_binding(library: str | None) -> ModuleType:
    """Imports normcache from this checkout, loading `library` when given."""
    if library:
        os.environ["NORMCACHE_LIBRARY"] = library
    sys.path.insert(0, BINDING)
    import normcache

    return normcache


def without_typename(value: Any) -> Any:
    """`value` without its `__typename` members."""
    if isinstance(value, dict):
        return {name: without_typename(field) for name, field in value.items() if name != "__typename"}
    if isinstance(value, list):
        return [without_typename(item) for item in value]
    return value


class Binding(bench_common.Workload):
    """normcache.Cache: prepare once, write(op, bytes), read_json(op)."""

    name = "python_binding"

    def __init__(self, normcache: ModuleType, query: str) -> None:
        self.normcache = normcache
        self.query = query

    def open(self, path: str) -> None:
        self.cache = self.normcache.Cache(path, config=CONFIG, **OPTIONS)
        self.operation = self.cache.prepare(self.query)

    def write(self, response: bytes) -> None:
        self.cache.write(self.operation, response, changes=False)

    def read(self) -> Any:
        return self.cache.read_json(self.operation)

    def records(self) -> int:
        return self.cache.stats()["records"]

    def close(self) -> None:
        self.operation.close()
        self.cache.close()

    def expected(self, data: Any) -> Any:
        """The response data as the query selects it: without `__typename`."""
        return without_typename(data)


class DefaultBinding(Binding):
    """normcache.Cache with default arguments: open with the key rule alone, write(op, bytes)
    reporting changes, read(op) returning Python objects."""

    name = "python_binding_defaults"
    returns_objects = True

    def open(self, path: str) -> None:
        self.cache = self.normcache.Cache(path, config=CONFIG)
        self.operation = self.cache.prepare(self.query)

    def write(self, response: bytes) -> Any:
        return self.cache.write(self.operation, response)

    def read(self) -> Any:
        return self.cache.read(self.operation)

    times_c_calls = True

    def time_c_calls(self, path: str, response: bytes, changed: bytes) -> Dict[str, float]:
        lib = self.normcache._library.lib
        cache = self.normcache.Cache(path, config=CONFIG)
        operation = cache.prepare(self.query)
        handle, operation_handle = cache._live_handle(), operation._live_handle()

        def call(function: Any, *arguments: Any) -> float:
            """Seconds of one call and the normcache_free of its output, as the C harness times it."""
            buffer, length = ctypes.c_void_p(), ctypes.c_size_t()

            def once() -> None:
                status = function(*arguments, ctypes.byref(buffer), ctypes.byref(length))
                lib.normcache_free(buffer)
                if status != 0:
                    bench_common.fail(f"{self.name}: a C call returned {status}: {lib.normcache_errmsg().decode()}")

            return bench_common.timed(once)

        try:
            return {
                "c_write_cold": call(lib.normcache_write, handle, operation_handle, None, 0, response, len(response)),
                "c_write_warm": call(lib.normcache_write, handle, operation_handle, None, 0, response, len(response)),
                "c_write_changed": call(lib.normcache_write, handle, operation_handle, None, 0, changed, len(changed)),
                "c_read": call(lib.normcache_read, handle, operation_handle, None, 0, 0),
            }
        finally:
            operation.close()
            cache.close()


if __name__ == "__main__":
    options = bench_common.arguments(__doc__)
    kind = DefaultBinding if options.defaults else Binding
    workload = kind(import_binding(options.library), bench_common.read_text(options.query))
    bench_common.run(workload, options)
