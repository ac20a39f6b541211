"""The program as a whole: help, version, exit statuses, files that are not caches."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import CLI, REPO

COMMANDS = "stats keys get rm dump load copy invalidate prepare normalize write read bench demo".split()


def test_help_is_on_stdout_with_exit_0_and_lists_every_command(cli: CLI) -> None:
    result = cli("--help")
    assert result.code == 0 and result.err == ""
    assert "USAGE: normcache <subcommand>" in result.out
    assert "EXIT STATUS" in result.out and "64  usage" in result.out
    for command in COMMANDS:
        assert re.search(rf"^  {command} ", result.out, re.MULTILINE), command


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(cli: CLI, command: str) -> None:
    result = cli(command, "--help") if command != "bench" else cli("help", "bench")
    assert result.code == 0, result.err
    assert "EXAMPLE" in result.out and f"normcache {command}" in result.out


def test_version_is_the_headers(cli: CLI) -> None:
    header = (REPO / "include/normcache.h").read_text()
    version = re.search(r'#define NORMCACHE_VERSION "([^"]+)"', header)
    assert version is not None
    assert cli("--version").out == version.group(1) + "\n"


def test_usage_errors_exit_64(cli: CLI) -> None:
    assert cli("frobnicate").code == 64
    assert cli("get", "x.cache").code == 64
    result = cli("keys", "x.cache", "--limit", "0")
    assert result.code == 64 and "--limit must be at least 1" in result.err
    assert cli("rm", "x.cache", "Pet:1", "--prefix", "Pet:").code == 64
    assert cli("prepare", "--query", "{ a }", "--query-file", "q.graphql").code == 64


@pytest.mark.parametrize(
    "arguments",
    [["stats"], ["keys"], ["get", "Pet:1"], ["dump"], ["copy", "copy.cache"], ["rm", "Pet:1"], ["invalidate", "Pet:1"]],
)
def test_a_missing_cache_is_a_storage_error(cli: CLI, arguments: list[str]) -> None:
    result = cli(arguments[0], "missing.cache", *arguments[1:])
    assert result.code == 4
    assert result.err.startswith("normcache: ") and "missing.cache" in result.err
    assert not (cli.folder / "missing.cache").exists()


def test_a_file_that_is_no_cache_is_a_storage_error(cli: CLI) -> None:
    (cli.folder / "notes.txt").write_text("hello\n" * 1000)
    result = cli("stats", "notes.txt")
    assert result.code == 4
    assert result.err == "normcache: 'notes.txt' is not a normcache cache: not an LMDB file\n"


def test_demo_runs_as_scripts_demo_runs_it(cli: CLI) -> None:
    out = cli.ok("demo", "demo.cache")
    assert re.fullmatch(r"normcache \d+\.\d+\.\d+ demo on demo\.cache", out.splitlines()[0])
    assert 'merged an update: changed ["Post:7.score", "Post:7.tags", "User:3.name"]' in out
    assert "REST feed, 10 minutes later: from the cache (API calls so far: 1)" in out
    assert (
        'REST entities: Article:1 = {"id":1,"title":"Caching for an hour"}, '
        'so GET /v2/articles reads {"articles":[{"id":1,"title":"Caching for an hour"}]}'
    ) in out
    assert Path(cli.folder / "demo.cache").is_file()
