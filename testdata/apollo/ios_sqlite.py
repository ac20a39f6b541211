"""Apollo iOS cache files for the tests, made and read with Python's sqlite3 in the layout of
Apollo iOS's SQLiteNormalizedCache (SQLite.swift's create statements for its `records` table)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

#: The table as Apollo iOS creates it.
IOS_TABLE = (
    'CREATE TABLE "records" ("_id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "key" TEXT NOT NULL UNIQUE, '
    '"record" TEXT NOT NULL)'
)
#: Its index.
IOS_INDEX = 'CREATE UNIQUE INDEX "index_records_on_key" ON "records" ("key")'
#: The rows of the sample file: key, record text.
IOS_ROWS: list[list[str]] = json.loads(
    (Path(__file__).parent / "ios-records.json").read_text()
)


def ios_file(path: Path, rows: list[list[str]], table: str = IOS_TABLE) -> Path:
    """An Apollo iOS cache file at `path` holding `rows` (key, record text) under `table`."""
    with sqlite3.connect(path) as connection:
        connection.execute(table)
        connection.execute(IOS_INDEX)
        if rows:
            connection.executemany(
                'INSERT INTO "records" ("key", "record") VALUES (?, ?)', rows
            )
    connection.close()
    return path


def ios_rows(path: Path) -> dict[str, Any]:
    """The rows of an Apollo iOS file, key to parsed record."""
    with sqlite3.connect(path) as connection:
        rows = {
            key: json.loads(record)
            for key, record in connection.execute(
                'SELECT "key", "record" FROM "records"'
            )
        }
    connection.close()
    return rows


def ios_schema(path: Path) -> list[str]:
    """The create statements of the file's table and index, as SQLite keeps them."""
    with sqlite3.connect(path) as connection:
        found = [
            row[0]
            for row in connection.execute(
                "SELECT sql FROM sqlite_master WHERE name IN ('records', 'index_records_on_key') ORDER BY type DESC"
            )
        ]
    connection.close()
    return found
