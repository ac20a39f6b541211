#!/bin/sh
# check_exports.sh — the shared library exports exactly the functions that
# include/normcache.h declares, and (for the static-stdlib release build) needs no
# shared library but the C and C++ runtimes and liblmdb.
#
# Usage: check_exports.sh [--static-stdlib] [--header FILE] LIBRARY
#
#   LIBRARY          the libnormcache.so to check
#   --header FILE    the header that declares the interface (default: include/normcache.h
#                    of the source tree this script is in)
#   --static-stdlib  also check the NEEDED entries of `readelf -d`: only libc, libm,
#                    libstdc++, libgcc_s, liblmdb and the dynamic loader may appear. Use
#                    it for the release build linked with -static-stdlib; a debug build
#                    links the Swift runtime dynamically. NORMCACHE_STATIC_STDLIB=1 in
#                    the environment does the same.
#
# The declared functions are the names followed by '(' in the header once the C
# preprocessor has removed its comments and macros. The exported functions are the
# defined text (T) symbols of `nm -D --defined-only`. When the two lists differ the
# script prints their diff and exits with 1.
set -eu

script_dir=$(cd "$(dirname "$0")" && pwd)
header="$script_dir/../../include/normcache.h"
static_stdlib=${NORMCACHE_STATIC_STDLIB:-0}

while [ $# -gt 1 ]; do
    case "$1" in
        --static-stdlib) static_stdlib=1; shift ;;
        --header) header=$2; shift 2 ;;
        *) echo "check_exports.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
if [ $# -ne 1 ]; then
    echo "usage: check_exports.sh [--static-stdlib] [--header FILE] LIBRARY" >&2
    exit 2
fi
library=$1
for file in "$library" "$header"; do
    if [ ! -r "$file" ]; then
        echo "check_exports.sh: cannot read $file" >&2
        exit 2
    fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"${CC:-cc}" -E -P -x c "$header" \
    | grep -oE '\bnormcache_[a-z0-9_]+[[:space:]]*\(' \
    | sed -E 's/[[:space:]]*\($//' | LC_ALL=C sort -u >"$work/declared"
nm -D --defined-only "$library" \
    | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | LC_ALL=C sort -u >"$work/exported"

status=0
if [ ! -s "$work/declared" ]; then
    echo "check_exports.sh: found no declarations in $header" >&2
    exit 2
fi
if ! diff -u --label "declared in $header" --label "exported by $library" \
        "$work/declared" "$work/exported"; then
    echo "check_exports.sh: the exported functions differ from the declared ones" >&2
    status=1
fi

if [ "$static_stdlib" = 1 ]; then
    readelf -d "$library" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >"$work/needed"
    if grep -vE '^(libc|libm|libstdc\+\+|libgcc_s|liblmdb)\.so(\.|$)|^ld-linux' \
            "$work/needed" >"$work/unexpected"; then
        echo "check_exports.sh: $library needs libraries beyond libc, libm, libstdc++," \
             "libgcc_s, liblmdb and ld-linux:" >&2
        cat "$work/unexpected" >&2
        status=1
    fi
fi

exit $status
