"""The documentation's code, run: every program a page shows, and what it prints.

A page (README.md, docs/**/*.md) marks a fenced block with an HTML comment on the line
before it:

    <!-- excerpt: examples/quickstart.c -->
        the block's lines are lines of that file, in the same order (blank lines aside):
        a page may leave lines out, never change one;
    <!-- output: examples/quickstart.c examples/quickstart.cpp -->
        the block is exactly what each of those programs prints;
    <!-- console -->
        a session: each line `$ COMMAND` runs in bash (a command may go on over lines
        ending in a backslash, and over the lines of a here-document to its end marker), and the
        lines up to the next `$ ` are exactly what it prints, standard output and error
        together. A page's sessions run in order in one folder of their own, with the
        build's `normcache` and this Python (with this checkout's package) on PATH;
    <!-- pycon -->
        a Python session (`>>> ` and `... ` lines, then what it prints), run by doctest;
        a page's sessions share their names and run in order in one folder of their own.

The programs run as a user runs them: examples/*.py with this checkout's Python package
(PYTHONPATH) on the library of $NORMCACHE_LIBRARY (default build/libnormcache.so);
examples/NAME.c and NAME.cpp as NAME_c and NAME_cpp of the CMake build that made that
library (its examples/ folder); examples/swift/Sources/TARGET/main.swift as the program
TARGET that `swift build --package-path examples/swift` makes in the folder
$NORMCACHE_SWIFT_EXAMPLES (scripts/test's full tier builds them and sets it; without it
the Swift runs are skipped, saying so). Each program runs twice in a
folder of its own: the second run, on the cache file the first left, prints the same.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
MARKER = re.compile(r"^<!-- (excerpt|output): ([^>]+?) -->\n```[a-z+]*\n(.*?)^```$", re.MULTILINE | re.DOTALL)
CONSOLE = re.compile(r"^<!-- console -->\n```console\n(.*?)^```$", re.MULTILINE | re.DOTALL)
PYCON = re.compile(r"^<!-- pycon -->\n```pycon\n(.*?)^```$", re.MULTILINE | re.DOTALL)
HEREDOC = re.compile(r"<<-?'?(\w+)'?")
SWIFT_EXAMPLES = "examples/swift/"


def marked_blocks(kind: str) -> list[tuple[str, str, str]]:
    """(page, path, block) for every block the pages mark with `kind`, a path at a time."""
    found = []
    for page in PAGES:
        for marker, paths, block in MARKER.findall(page.read_text(encoding="utf-8")):
            if marker == kind:
                found += [(page.relative_to(REPO).as_posix(), path, block) for path in paths.split()]
    return found


def library() -> Path:
    """The library the programs run on."""
    return Path(os.environ.get("NORMCACHE_LIBRARY", REPO / "build" / "libnormcache.so")).resolve()


def command(path: str) -> list[str]:
    """How to run the example at `path` (relative to the checkout)."""
    if path.startswith(SWIFT_EXAMPLES):
        programs = os.environ.get("NORMCACHE_SWIFT_EXAMPLES")
        if not programs:
            pytest.skip("the Swift examples are not built: scripts/test's full tier builds them")
        return [str(Path(programs) / Path(path).parent.name)]
    source = REPO / path
    if source.suffix == ".py":
        return [sys.executable, str(source)]
    suffix = {".c": "_c", ".cpp": "_cpp"}[source.suffix]
    return [str(library().parent / "examples" / (source.stem + suffix))]


def test_the_pages_mark_the_quick_starts() -> None:
    shown = {path for _, path, _ in marked_blocks("output")}
    assert {"examples/quickstart.py", "examples/quickstart.c", "examples/quickstart.cpp"} <= shown


@pytest.mark.parametrize(("page", "path", "block"), marked_blocks("excerpt"))
def test_an_excerpt_is_lines_of_its_file_in_order(page: str, path: str, block: str) -> None:
    lines = iter((REPO / path).read_text(encoding="utf-8").splitlines())
    for wanted in block.splitlines():
        if wanted.strip() and wanted.rstrip() not in (line.rstrip() for line in lines):
            pytest.fail(f"{page}: this line of its excerpt of {path} is not in the file (in order):\n{wanted}")


@pytest.mark.parametrize(("page", "path", "block"), marked_blocks("output"))
def test_a_program_prints_what_its_page_says(page: str, path: str, block: str, tmp_path: Path) -> None:
    environment = {**os.environ, "NORMCACHE_LIBRARY": str(library())}
    environment["PYTHONPATH"] = str(REPO / "bindings" / "python")
    for run in ("first", "second"):
        done = subprocess.run(
            command(path), cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=120, check=False
        )
        assert (done.returncode, done.stderr) == (0, ""), f"{path}, {run} run"
        assert done.stdout == block, f"{path}, {run} run, prints otherwise than {page} says"


def console_steps(page: Path) -> list[tuple[str, str]]:
    """(command, what it prints) for every step of the page's console sessions, in order."""
    steps: list[tuple[str, str]] = []
    for session in CONSOLE.findall(page.read_text(encoding="utf-8")):
        lines = session.splitlines()
        at = 0
        while at < len(lines):
            if not lines[at].startswith("$ "):
                pytest.fail(f"{page.name}: a console line outside a command's output: {lines[at]}")
            command = [lines[at][2:]]
            at += 1
            while command[-1].endswith("\\") and at < len(lines):
                command.append(lines[at])
                at += 1
            end = HEREDOC.search(command[-1])
            while end and at < len(lines):
                command.append(lines[at])
                at += 1
                if command[-1] == end.group(1):
                    break
            printed = []
            while at < len(lines) and not lines[at].startswith("$ "):
                printed.append(lines[at] + "\n")
                at += 1
            steps.append(("\n".join(command), "".join(printed)))
    return steps


@pytest.mark.parametrize("page", [page for page in PAGES if CONSOLE.search(page.read_text(encoding="utf-8"))])
def test_a_console_session_prints_what_its_page_says(page: Path, tmp_path: Path) -> None:
    environment = {**os.environ, "NORMCACHE_LIBRARY": str(library())}
    environment["PYTHONPATH"] = str(REPO / "bindings" / "python")
    environment["PATH"] = os.pathsep.join([str(library().parent), str(Path(sys.executable).parent), os.environ["PATH"]])
    for command, printed in console_steps(page):
        done = subprocess.run(
            ["bash", "-c", "exec 2>&1\n" + command],
            cwd=tmp_path,
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.stdout == printed, f"{page.name}: `{command}` prints otherwise than the page says"


@pytest.mark.parametrize("page", [page for page in PAGES if PYCON.search(page.read_text(encoding="utf-8"))])
def test_a_python_session_prints_what_its_page_says(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NORMCACHE_LIBRARY", str(library()))
    monkeypatch.syspath_prepend(str(REPO / "bindings" / "python"))
    monkeypatch.setenv("PYTHONPATH", str(REPO / "bindings" / "python"))
    names: dict[str, object] = {}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for number, session in enumerate(PYCON.findall(page.read_text(encoding="utf-8")), 1):
        test = doctest.DocTestParser().get_doctest(session, names, f"{page.name}, session {number}", page.name, 0)
        runner.run(test, clear_globs=False)
        names = test.globs  # a DocTest works on a copy of the names it is given
    assert runner.failures == 0, f"{page.name}: {runner.failures} example(s) print otherwise than the page says"
