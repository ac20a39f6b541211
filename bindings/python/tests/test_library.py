"""Loading the library: lookup order, version checks, and the table against the header."""

from __future__ import annotations

import ctypes
import re
import threading
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

import normcache
from normcache import _library

PACKAGE_DIR = Path(normcache.__file__).resolve().parent


def _header() -> Optional[str]:
    """include/normcache.h of the source checkout holding this package, if there is one."""
    for folder in PACKAGE_DIR.parents:
        header = folder / "include" / "normcache.h"
        if (folder / "Package.swift").is_file() and header.is_file():
            return header.read_text()
    return None


def _declarations(header: str) -> Dict[str, Tuple[str, List[str]]]:
    """The functions the header declares: name -> (return type, parameter declarations)."""
    code = re.sub(r"/\*.*?\*/", "", header, flags=re.S)
    found = {}
    for match in re.finditer(r"([A-Za-z_][\w \*]*?)\s*\b(normcache_\w+)\s*\(([^)]*)\)\s*;", code):
        returns, name, parameters = match.groups()
        listed = [p.strip() for p in parameters.split(",")]
        found[name] = (" ".join(returns.split()), [] if listed == ["void"] else listed)
    return found


_CTYPES = {
    "int": ctypes.c_int,
    "char*": ctypes.c_char_p,
    "char**": ctypes.POINTER(ctypes.c_void_p),  # returned buffers: c_void_p, to be freed
    "size_t": ctypes.c_size_t,
    "unsigned": ctypes.c_uint,
    "size_t*": ctypes.POINTER(ctypes.c_size_t),
    "uint64_t*": ctypes.POINTER(ctypes.c_uint64),
    "void": None,
    "void*": ctypes.c_void_p,
    "normcache*": ctypes.c_void_p,
    "normcache**": ctypes.POINTER(ctypes.c_void_p),
    "normcache_op*": ctypes.c_void_p,
    "normcache_op**": ctypes.POINTER(ctypes.c_void_p),
    "normcache_object*": ctypes.c_void_p,
    "normcache_key*": ctypes.c_void_p,
    "normcache_key_resolver": _library.KEY_RESOLVER,
}


def _ctype_for(declaration: str, named: bool) -> object:
    """The ctypes type the table must use for a C return type, or a parameter (`named`)."""
    text = re.sub(r"\bconst\b", "", declaration)
    if named:
        text = re.sub(r"\w+\s*$", "", text)
    return _CTYPES["".join(text.split())]


def test_version_is_the_header_version() -> None:
    assert normcache.version() == "0.1.0"
    assert normcache.__version__ == "0.1.0"
    assert _library.HEADER_VERSION == "0.1.0"


def test_header_version_macro_matches_the_binding() -> None:
    header = _header()
    if header is None:
        pytest.skip("not running from a source checkout")
    assert f'#define NORMCACHE_VERSION "{_library.HEADER_VERSION}"' in header


def test_table_declares_every_header_function_with_its_types() -> None:
    header = _header()
    if header is None:
        pytest.skip("not running from a source checkout")
    declared = _declarations(header)
    assert sorted(declared) == sorted(_library._PROTOTYPES)
    for name, (returns, parameters) in declared.items():
        restype, argtypes = _library._PROTOTYPES[name]
        assert restype is _ctype_for(returns, named=False), name
        assert [_ctype_for(p, named=True) for p in parameters] == list(argtypes), name


def test_every_function_of_the_table_is_exported() -> None:
    for name in _library._PROTOTYPES:
        assert hasattr(_library.lib, name), name


def test_errstr_for_known_and_unknown_codes() -> None:
    for code in range(-10, 0):
        assert _library.lib.normcache_errstr(code) not in (b"", b"unknown status code"), code
    assert _library.lib.normcache_errstr(12345) == b"unknown status code"
    assert _library.lib.normcache_errstr(-11) == b"unknown status code"


def test_errmsg_is_empty_on_a_thread_that_never_failed() -> None:
    seen: List[bytes] = []
    thread = threading.Thread(target=lambda: seen.append(_library.lib.normcache_errmsg()))
    thread.start()
    thread.join()
    assert seen == [b""]


def test_errmsg_is_kept_by_successful_calls(cache: normcache.Cache) -> None:
    with pytest.raises(normcache.JSONError) as failure:
        cache.put('{"Kept:1": 5}')
    cache.put({"A:1": {"x": 1}})
    assert cache.get("A:1") == {"x": 1}
    assert cache.get("Missing:1") is None  # NORMCACHE_NOTFOUND leaves the message too
    assert _library.lib.normcache_errmsg().decode() == failure.value.message


def test_errmsg_is_per_thread(cache: normcache.Cache) -> None:
    with pytest.raises(normcache.JSONError):
        cache.put('{"Mine:1": 5}')
    seen: List[bytes] = []
    thread = threading.Thread(target=lambda: seen.append(_library.lib.normcache_errmsg()))
    thread.start()
    thread.join()
    assert seen == [b""]


def test_lookup_uses_only_the_environment_variable_when_set(tmp_path: Path) -> None:
    package = tmp_path / "normcache"
    found = list(_library.candidates({"NORMCACHE_LIBRARY": "/opt/x/libnormcache.so"}, package))
    assert found == ["/opt/x/libnormcache.so"]


def test_lookup_order_in_a_source_checkout(tmp_path: Path) -> None:
    (tmp_path / "Package.swift").write_text("// swift-tools-version:6.0\n")
    package = tmp_path / "bindings" / "python" / "normcache"
    found = list(_library.candidates({"NORMCACHE_LIBRARY": ""}, package))
    assert found[:5] == [
        str(package / "libnormcache.so"),
        str(tmp_path / ".build" / "release" / "libnormcache.so"),
        str(tmp_path / ".build" / "debug" / "libnormcache.so"),
        str(tmp_path / "build" / "libnormcache.so"),
        str(tmp_path / "build" / "lib" / "libnormcache.so"),
    ]
    assert found[-1] == "libnormcache.so.0"
    assert len(found) in (6, 7)  # ctypes.util.find_library may add one before the soname


def test_lookup_order_outside_a_checkout(tmp_path: Path) -> None:
    package = tmp_path / "site-packages" / "normcache"
    found = list(_library.candidates({}, package))
    if any((folder / "Package.swift").is_file() for folder in package.parents):
        pytest.skip("the temporary folder is inside a Swift package")
    assert found[0] == str(package / "libnormcache.so")
    assert found[-1] == "libnormcache.so.0"
    assert not any(".build" in candidate for candidate in found)


def test_library_is_found_in_a_source_checkout_without_the_variable(run_python) -> None:
    root = next((f for f in PACKAGE_DIR.parents if (f / "Package.swift").is_file()), None)
    if root is None:
        pytest.skip("not running from a source checkout")
    places = [PACKAGE_DIR] + [root / b for b in (".build/release", ".build/debug", "build", "build/lib")]
    present = [p / "libnormcache.so" for p in places if (p / "libnormcache.so").is_file()]
    if not present:
        pytest.skip("no built library in the checkout")
    # run_python names the library in NORMCACHE_LIBRARY; the child drops it before importing.
    child = run_python("import os; del os.environ['NORMCACHE_LIBRARY']; import normcache; print(normcache._library.path)")
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == str(present[0])


def test_missing_library_raises_an_import_error_naming_what_was_tried(run_python) -> None:
    child = run_python(
        "import os; os.environ['NORMCACHE_LIBRARY'] = '/nonexistent/libnormcache.so'\n"
        "try:\n"
        "    import normcache\n"
        "except ImportError as error:\n"
        "    print(type(error).__name__); print(error)\n"
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines()[0] == "LibraryLoadError"
    assert "/nonexistent/libnormcache.so" in child.stdout
    assert "NORMCACHE_LIBRARY" in child.stdout


def test_a_library_of_another_major_version_is_refused() -> None:
    _library.check_version("0.1.0")
    _library.check_version("0.9.7")
    with pytest.raises(normcache.LibraryLoadError, match="1.0.0"):
        _library.check_version("1.0.0")
    with pytest.raises(ImportError):
        _library.check_version("2.3.4", expected="0.1.0")
