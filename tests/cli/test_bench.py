"""bench: finding and running the perf harness."""

from __future__ import annotations

import os

from conftest import CLI


def test_bench_without_a_harness_says_how_to_build_it(cli: CLI) -> None:
    result = cli("bench", "--smoke", env={"NORMCACHE_BENCH": str(cli.folder / "none")})
    assert result.code == 5
    assert result.err.startswith("normcache: the perf harness normcache-bench is not built.")
    assert "cmake --build build --target normcache-bench" in result.err


def test_bench_runs_the_harness_with_its_arguments_and_status(cli: CLI) -> None:
    harness = cli.folder / "fake-bench"
    harness.write_text('#!/bin/sh\necho "harness: $*"\nexit 7\n')
    os.chmod(harness, 0o755)
    result = cli("bench", "--smoke", "--runs", "3", env={"NORMCACHE_BENCH": str(harness)})
    assert (result.code, result.out) == (7, "harness: --smoke --runs 3\n")
