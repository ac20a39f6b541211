#!/bin/sh
# check_install.sh BUILD_DIR — installs the build into a temporary prefix (checking that
# the Python package's copy of the library stays out of it), then builds
# tests/install/app.c outside the tree twice, with pkg-config and with CMake's
# find_package(normcache), runs both, and checks what they print; when the build has the
# command line (NORMCACHE_BUILD_CLI), checks that the installed normcache runs on its
# own and that its man page is installed.
set -eu
build=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
# The Python package's copy (install component "python") is not part of a full install.
[ ! -e "$prefix/normcache" ] || { echo "a full install put the Python package's library in $prefix/normcache" >&2; exit 1; }
libdir=$(dirname "$(find "$prefix" -name 'libnormcache.so' | head -n 1)")
expected='0.1.0 {"name":"Rex"}'

export PKG_CONFIG_PATH="$libdir/pkgconfig"
"${CC:-cc}" -o "$work/app-pkgconfig" "$here/app.c" $(pkg-config --cflags --libs normcache)
got=$(LD_LIBRARY_PATH="$libdir" "$work/app-pkgconfig" "$work/one.cache")
[ "$got" = "$expected" ] || { echo "pkg-config build printed: $got" >&2; exit 1; }

mkdir "$work/app"
cp "$here/app.c" "$work/app/app.c"
cp "$here/CMakeLists.txt.in" "$work/app/CMakeLists.txt"
cmake -S "$work/app" -B "$work/app/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/app/build" >/dev/null
got=$("$work/app/build/app" "$work/two.cache")
[ "$got" = "$expected" ] || { echo "find_package build printed: $got" >&2; exit 1; }
echo "installed library works with pkg-config and find_package: $got"

if [ -x "$build/normcache" ]; then
    got=$(env -u LD_LIBRARY_PATH "$prefix/bin/normcache" --version)
    [ "$got" = "${expected%% *}" ] || { echo "installed normcache --version printed: $got" >&2; exit 1; }
    [ -f "$(find "$prefix" -path '*/man1/normcache.1' | head -n 1)" ] || { echo "no installed man page normcache.1" >&2; exit 1; }
    echo "installed normcache $got runs, with its man page"
fi
