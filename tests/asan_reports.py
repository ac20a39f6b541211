#!/usr/bin/env python3
"""Checks the AddressSanitizer reports in the log of a Swift test run (recover mode).

The Swift runtime's cache of type names (reached through swift_getTypeName, which
string interpolation and Swift Testing call to print a value, and through
swift_getMangledTypeName, which Swift Testing calls for `#expect(throws: T.self)`)
frees memory that the C library allocated past ASan's interceptors, and ASan reports
that free as a "bad-free" inside the runtime. That one report is a property of the
toolchain, not of normcache; it is counted and tolerated. Any other report fails the
run.

Usage: asan_reports.py LOG
"""
import re
import sys


# The runtime functions through which the type-name cache's bad-free is reached.
TYPE_NAME_CACHE_ENTRIES = ("swift_getTypeName", "swift_getMangledTypeName")


def main(path: str) -> int:
    text = open(path, encoding="utf-8", errors="replace").read()
    reports = re.split(r"^==\d+==ERROR: ", text, flags=re.MULTILINE)[1:]
    tolerated = 0
    for report in reports:
        body = report.split("\nSUMMARY:", 1)[0]
        if body.startswith("AddressSanitizer: attempting free on address which was not malloc()-ed") \
                and any(entry in body for entry in TYPE_NAME_CACHE_ENTRIES):
            tolerated += 1
            continue
        print(f"asan_reports: a sanitizer report in {path}:\n{report[:4000]}", file=sys.stderr)
        return 1
    print(f"asan_reports: {len(reports)} reports, all the Swift runtime's type-name bad-free ({tolerated})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
