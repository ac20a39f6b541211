"""Fixtures of the command line's tests: the built `normcache` program and a cache of records.

The program is $NORMCACHE_CLI when set (scripts/test sets it to CMake's build/normcache),
else the first built one in the checkout: build/normcache, then SwiftPM's
.build/release/normcache-cli and .build/debug/normcache-cli.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_CANDIDATES = ("build/normcache", ".build/release/normcache-cli", ".build/debug/normcache-cli")


def cli_path() -> Path:
    """The program under test."""
    given = os.environ.get("NORMCACHE_CLI")
    if given:
        return Path(given).resolve()
    for candidate in _CANDIDATES:
        path = REPO / candidate
        if path.is_file():
            return path
    pytest.fail(f"no built normcache: set NORMCACHE_CLI or build one of {', '.join(_CANDIDATES)}")


@dataclass
class Result:
    """What a run of the program gave."""

    code: int
    out: str
    err: str


class CLI:
    """Runs the built program with arguments, in a folder of the test's own."""

    def __init__(self, program: Path, folder: Path) -> None:
        self.program = program
        self.folder = folder

    def __call__(self, *arguments: str, stdin: str | None = None, env: dict[str, str] | None = None) -> Result:
        """Runs `normcache ARGUMENTS...` to its end and returns its status and output."""
        done = subprocess.run(
            [str(self.program), *arguments],
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            cwd=self.folder,
            env={**os.environ, **(env or {})},
            timeout=300,
            check=False,
        )
        return Result(done.returncode, done.stdout, done.stderr)

    def ok(self, *arguments: str, stdin: str | None = None) -> str:
        """Runs the program, checks that it succeeded, and returns its standard output."""
        result = self(*arguments, stdin=stdin)
        assert result.code == 0, f"normcache {' '.join(arguments)} exited {result.code}: {result.err}"
        return result.out


@pytest.fixture
def cli(tmp_path: Path) -> CLI:
    """The built program, run in the test's temporary folder."""
    return CLI(cli_path(), tmp_path)


PETS = (
    '{"Pet:1": {"name": "Rex", "age": 3, "weight": 1.0, "owner": {"$reference": "User:1"}}, '
    '"Pet:2": {"name": "Tom", "tags": ["cat", null], "owner": {"$reference": "User:9"}}, '
    '"User:1": {"name": "Ada", "best": {"$reference": "Pet:1"}}, '
    '"QUERY_ROOT": {"pets": [{"$reference": "Pet:1"}, {"$reference": "Pet:2"}]}}'
)


@pytest.fixture
def pets(cli: CLI) -> Iterator[str]:
    """A cache file, pets.cache, holding PETS (a reference to User:9, which is absent)."""
    cli.ok("load", "pets.cache", stdin=PETS + "\n")
    yield "pets.cache"
