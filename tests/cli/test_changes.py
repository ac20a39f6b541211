"""normcache changes: the commit log, once and followed, as lines and as JSON."""

from __future__ import annotations

import json
import threading

from conftest import CLI


def test_changes_lists_each_commit_since_the_one_given(cli: CLI, pets: str) -> None:
    assert cli.ok("changes", pets, "--since", "0") == "2  records Pet:1 Pet:2 QUERY_ROOT User:1\n"
    cli.ok("rm", pets, "Pet:2")
    cli.ok("load", pets, stdin='{"key": "Pet:1", "record": {"age": 4}}\n')
    assert cli.ok("changes", pets, "--since", "2") == "3  records Pet:2\n4  fields Pet:1.age\n"
    assert json.loads(cli.ok("changes", pets, "--since", "3", "--json")) == {
        "through": 4,
        "complete": True,
        "commits": [{"commit": 4, "fields": ["Pet:1.age"], "records": [], "prefixes": [], "all": False}],
    }
    # From the newest commit on, nothing yet.
    assert cli.ok("changes", pets) == ""


def test_follow_prints_commits_as_they_come(cli: CLI, pets: str) -> None:
    timer = threading.Timer(0.3, lambda: cli.ok("rm", pets, "User:1"))
    timer.start()
    output = cli.ok("changes", pets, "--follow", "--timeout", "2")
    timer.join()
    assert output == "3  records User:1\n"


def test_bad_options_are_refused(cli: CLI, pets: str) -> None:
    result = cli("changes", pets, "--timeout", "1")
    assert result.code == 64
    assert result.err.startswith("Error: --timeout needs --follow\n")
    result = cli("changes", pets, "--follow", "--timeout=-1")
    assert result.code == 64
    assert result.err.startswith("Error: --timeout must be between 0 and 86400 seconds, not -1.0\n")
    result = cli("changes", "missing.cache")
    assert (result.code, result.err.startswith("normcache: ")) == (4, True)
