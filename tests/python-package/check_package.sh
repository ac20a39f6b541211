#!/usr/bin/env bash
# check_package.sh — the Python package as a user gets it, with no NORMCACHE_LIBRARY:
#
#   1. in a fresh venv, `pip install ./bindings/python` from the checkout (scikit-build-core
#      builds libnormcache.so with CMake into the package), then a real put, get and
#      records() from a folder outside the checkout;
#   2. `python -m build --wheel bindings/python`: one wheel, tagged py3-none-<platform>,
#      carrying normcache/_lib/libnormcache.so and py.typed, the library linked to no
#      libswift* and with no RUNPATH;
#   3. that wheel installed into a second fresh venv, with LD_LIBRARY_PATH unset and PATH
#      without the Swift toolchain, imported and used; the process maps no libswift*.
#
# The build deps (scikit-build-core, build) come from PyPI. CMake builds in
# $NORMCACHE_PYTHON_BUILD_DIR (default build-python/ in the checkout), which both builds
# share (scikit-build-core's build-dir), so CMake configures once. Each build still
# compiles the Swift modules whole: under CMake 3.25 the -wmo build writes none of the
# per-file objects Ninja expects, so Ninja never finds them up to date (60-130 s a build
# on the shared 2-core project machine; the whole run took 2.5-4.5 minutes there).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=${NORMCACHE_PYTHON_BUILD_DIR:-$root/build-python}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset NORMCACHE_LIBRARY
pip_quiet=(-q --disable-pip-version-check)

step() {
    echo "-- $1 (at ${SECONDS}s)"
}

# A put, a get and a key group through the package that `command...` (a venv's python,
# perhaps behind env) imports; run from $work, so that the checkout's bindings/python is
# not on sys.path. Prints the path of the library it loaded.
use_package() {
    local name=$1
    shift
    (cd "$work" && "$@" - "$work/$name.cache" <<'EOF'
import sys

import normcache

with normcache.Cache(sys.argv[1]) as cache:
    assert cache.put({"Pet:7": {"name": "Rex"}, "Pet:8": {"name": "Fido"}}) == ["Pet:7.name", "Pet:8.name"]
    assert cache.get("Pet:7") == {"name": "Rex"}
    assert list(cache.records("Pet:", page_size=1)) == [("Pet:7", {"name": "Rex"}), ("Pet:8", {"name": "Fido"})]
with open("/proc/self/maps") as maps:
    assert "libswift" not in maps.read(), "a Swift runtime library is loaded"
print(normcache._library.path)
EOF
    )
}

# Fails unless `found` (the library a venv loaded) is the copy inside that venv's package.
expect_bundled() {
    local venv=$1 found=$2
    case "$found" in
        "$venv"/lib/python3*/site-packages/normcache/_lib/libnormcache.so) ;;
        *) echo "check_package: loaded $found, not the package's own library in $venv" >&2; exit 1 ;;
    esac
}

step "pip install ./bindings/python into a fresh venv"
python3 -m venv "$work/source-venv"
"$work/source-venv/bin/pip" install "${pip_quiet[@]}" --config-settings=build-dir="$build_dir" "$root/bindings/python"
expect_bundled "$work/source-venv" "$(use_package source "$work/source-venv/bin/python")"

step "python -m build --wheel bindings/python"
"$work/source-venv/bin/pip" install "${pip_quiet[@]}" build
"$work/source-venv/bin/python" -m build --wheel --outdir "$work/dist" -C build-dir="$build_dir" \
    "$root/bindings/python" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
wheels=("$work"/dist/*.whl)
[ ${#wheels[@]} = 1 ] || { echo "check_package: expected one wheel, got: ${wheels[*]}" >&2; exit 1; }
wheel=${wheels[0]}
case "$(basename "$wheel")" in
    normcache-*-py3-none-linux_*.whl | normcache-*-py3-none-manylinux*.whl) ;;
    *) echo "check_package: the wheel is not tagged py3-none-<platform>: $(basename "$wheel")" >&2; exit 1 ;;
esac
listing=$("$work/source-venv/bin/python" -m zipfile -l "$wheel")
for member in normcache/_lib/libnormcache.so normcache/py.typed normcache/__init__.py; do
    grep -q "^$member " <<<"$listing" || { echo "check_package: the wheel lacks $member" >&2; exit 1; }
done
"$work/source-venv/bin/python" -m zipfile -e "$wheel" "$work/unpacked"
library="$work/unpacked/normcache/_lib/libnormcache.so"
if ldd "$library" | grep -q libswift; then
    echo "check_package: the bundled library needs a Swift runtime:" >&2
    ldd "$library" >&2
    exit 1
fi
if readelf -d "$library" | grep -qE 'RUNPATH|RPATH'; then
    echo "check_package: the bundled library has a RUNPATH:" >&2
    readelf -d "$library" | grep -E 'RUNPATH|RPATH' >&2
    exit 1
fi

step "the wheel in a second fresh venv, without the Swift toolchain on PATH or a library path"
python3 -m venv "$work/wheel-venv"
"$work/wheel-venv/bin/pip" install "${pip_quiet[@]}" --no-index "$wheel"
no_swift_path=$(tr ':' '\n' <<<"$PATH" | grep -v swift | paste -sd: -)
found=$(use_package wheel env -u LD_LIBRARY_PATH PATH="$no_swift_path" "$work/wheel-venv/bin/python")
expect_bundled "$work/wheel-venv" "$found"
echo "python package: pip install from the checkout and its wheel $(basename "$wheel") both work (${SECONDS}s)"
