"""Apollo caches into normcache and back (docs/apollo-interchange.md says what maps to what).

    import normcache, normcache.apollo
    with normcache.Cache("app.cache") as cache:
        normcache.apollo.import_apollo_client(cache, "extract.json")   # cache.extract() saved
        normcache.apollo.export_apollo_client(cache)                   # {"ROOT_QUERY": {...}}
        normcache.apollo.import_apollo_ios(cache, "apollo.sqlite")     # SQLiteNormalizedCache's file
        normcache.apollo.export_apollo_ios(cache, "out.sqlite")

The translation is the library's (normcache_import, normcache_export); this module reads
and writes the files, Apollo iOS's through Python's sqlite3. Every import is one atomic
write: a malformed file raises and writes nothing.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Mapping
from typing import Any, Union

from .cache import Cache
from .errors import InvalidArgumentError

#: A file's path.
Path = Union[str, "os.PathLike[str]"]

#: The `records` table as Apollo iOS's SQLiteNormalizedCache creates it (through SQLite.swift).
APOLLO_IOS_SCHEMA = (
    'CREATE TABLE IF NOT EXISTS "records" ('
    '"_id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "key" TEXT NOT NULL UNIQUE, "record" TEXT NOT NULL)',
    'CREATE UNIQUE INDEX IF NOT EXISTS "index_records_on_key" ON "records" ("key")',
)

#: Every row of the table, in the order written.
_SELECT_ROWS = 'SELECT "_id", "key", "record" FROM "records" ORDER BY "_id"'


def import_apollo_client(cache: Cache, source: Path | Mapping[str, Any]) -> list[str]:
    """Merge an Apollo Client cache — the dict cache.extract() returns, or the path of a file
    holding its JSON — into `cache`; return the changed "recordKey.fieldKey" strings."""
    if isinstance(source, Mapping):
        data = json.dumps(source, ensure_ascii=False).encode()
    else:
        with open(source, "rb") as file:
            data = file.read()
    return cache.import_records("apollo-client", data)


def export_apollo_client(cache: Cache) -> dict[str, Any]:
    """Every record of `cache` as Apollo Client's cache.extract() gives them, for
    cache.restore()."""
    extract: dict[str, Any] = json.loads(cache.export_records("apollo-client"))
    return extract


def read_apollo_ios_rows(path: Path) -> dict[str, str]:
    """The rows of the `records` table of Apollo iOS's SQLite cache at `path`, key to record
    text, in `_id` order. A file that is not SQLite, is damaged, lacks the table or a column,
    or has a row whose key or record is not text raises InvalidArgumentError naming the file
    (and the row)."""
    name = repr(os.fspath(path))
    if not os.path.isfile(path):
        raise InvalidArgumentError(-1, f"apollo-ios import: no file {name}")
    uri = "file:" + os.path.abspath(path).replace("?", "%3f").replace("#", "%23") + "?mode=ro"
    try:
        with sqlite3.connect(uri, uri=True) as connection:
            columns = {row[1] for row in connection.execute('PRAGMA table_info("records")')}
            missing = [column for column in ("_id", "key", "record") if column not in columns]
            if missing:
                what = "no table 'records'" if not columns else f"a 'records' table without {', '.join(missing)}"
                raise InvalidArgumentError(-1, f"apollo-ios import: {name} has {what}; not an Apollo iOS cache")
            rows: dict[str, str] = {}
            for row_id, key, record in connection.execute(_SELECT_ROWS):
                if not isinstance(key, str) or not isinstance(record, str):
                    what = f"row {row_id} (key {key!r}) of {name}"
                    raise InvalidArgumentError(-1, f"apollo-ios import: {what}: key and record must be text")
                rows[key] = record
            return rows
    except sqlite3.DatabaseError as error:
        raise InvalidArgumentError(-1, f"apollo-ios import: {name} cannot be read as SQLite: {error}") from None


def import_apollo_ios(cache: Cache, path: Path) -> list[str]:
    """Merge the records of Apollo iOS's SQLite cache at `path` into `cache`, each as it is
    (normcache keys and stores records as Apollo iOS does); return the changed
    "recordKey.fieldKey" strings."""
    rows = read_apollo_ios_rows(path)
    return cache.import_records("apollo-ios", json.dumps(rows, ensure_ascii=False).encode())


def export_apollo_ios(cache: Cache, path: Path) -> int:
    """Write every record of `cache` into the SQLite file at `path` as Apollo iOS's
    SQLiteNormalizedCache keeps them (the file and its `records` table are created when
    absent; a row of the same key is replaced), in one transaction; return how many rows.
    A file SQLite cannot write, or whose `records` table has another layout, raises
    InvalidArgumentError and is left as it was."""
    rows: dict[str, str] = json.loads(cache.export_records("apollo-ios"))
    try:
        connection = sqlite3.connect(os.fspath(path))
        try:
            with connection:
                for statement in APOLLO_IOS_SCHEMA:
                    connection.execute(statement)
                connection.executemany('INSERT OR REPLACE INTO "records" ("key", "record") VALUES (?, ?)', rows.items())
        finally:
            connection.close()
    except sqlite3.DatabaseError as error:
        name = repr(os.fspath(path))
        raise InvalidArgumentError(-1, f"apollo-ios export: {name} cannot be written as SQLite: {error}") from None
    return len(rows)
