"""Loading the library: lookup order, version checks, and the table against the header."""

from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import RunPython

import normcache
from normcache import _library

PACKAGE_DIR = Path(normcache.__file__).resolve().parent


def _header() -> str | None:
    """include/normcache.h of the source checkout holding this package, if there is one."""
    for folder in PACKAGE_DIR.parents:
        header = folder / "include" / "normcache.h"
        if (folder / "Package.swift").is_file() and header.is_file():
            return header.read_text()
    return None


def _declarations(header: str) -> dict[str, tuple[str, list[str]]]:
    """The functions the header declares: name -> (return type, parameter declarations)."""
    code = re.sub(r"/\*.*?\*/", "", header, flags=re.S)
    found = {}
    for match in re.finditer(r"([A-Za-z_][\w \*]*?)\s*\b(normcache_\w+)\s*\(([^)]*)\)\s*;", code):
        returns, name, parameters = match.groups()
        listed = [p.strip() for p in parameters.split(",")]
        found[name] = (" ".join(returns.split()), [] if listed == ["void"] else listed)
    return found


#: The callback types of the header and their ctypes prototypes: one prototype serves the
#: two callback types that have one signature (each is checked against its own typedef).
_CALLBACKS: dict[str, Any] = {
    "normcache_key_resolver": _library.KEY_RESOLVER,
    "normcache_destroy": _library.DESTROY,
    "normcache_clock": _library.CLOCK,
    "normcache_fetch": _library.FETCH,
    "normcache_result_callback": _library.RESULT_CALLBACK,
    "normcache_watch_callback": _library.RESULT_CALLBACK,
}
#: The C types of the header and the ctypes types the table must use for them.
_CTYPES = {
    "int": ctypes.c_int,
    "char*": ctypes.c_char_p,
    "char**": ctypes.POINTER(ctypes.c_void_p),  # returned buffers: c_void_p, to be freed
    "size_t": ctypes.c_size_t,
    "int64_t": ctypes.c_int64,
    "unsigned": ctypes.c_uint,
    "size_t*": ctypes.POINTER(ctypes.c_size_t),
    "uint64_t*": ctypes.POINTER(ctypes.c_uint64),
    "uint64_t": ctypes.c_uint64,
    "uint32_t*": ctypes.POINTER(ctypes.c_uint32),
    "void": None,
    "void*": ctypes.c_void_p,
    "normcache*": _library.CacheHandle,
    "normcache**": ctypes.POINTER(_library.CacheHandle),
    "normcache_op*": _library.OperationHandle,
    "normcache_op**": ctypes.POINTER(_library.OperationHandle),
    "normcache_object*": _library.ObjectHandle,
    "normcache_key*": _library.KeyHandle,
    "normcache_fetch_reply*": _library.ReplyHandle,
    "normcache_fetch_request*": ctypes.POINTER(_library.CFetchRequest),
    "normcache_execute_options*": ctypes.POINTER(_library.ExecuteOptions),
    "normcache_write_options*": ctypes.POINTER(_library.WriteOptions),
    "normcache_read_options*": ctypes.POINTER(_library.ReadOptions),
    "normcache_gc_options*": ctypes.POINTER(_library.GCOptions),
    "normcache_watcher*": _library.WatcherHandle,
    "normcache_watcher**": ctypes.POINTER(_library.WatcherHandle),
    **_CALLBACKS,
}
#: The option structs of the header and the ctypes Structures that mirror them.
_STRUCTS: dict[str, Any] = {
    "normcache_write_options": _library.WriteOptions,
    "normcache_read_options": _library.ReadOptions,
    "normcache_execute_options": _library.ExecuteOptions,
    "normcache_gc_options": _library.GCOptions,
}
#: The structs the library hands to a callback, and their mirrors: text members are
#: pointers read with their lengths, as a callback's text parameters are.
_CALLBACK_STRUCTS: dict[str, Any] = {
    "normcache_fetch_request": _library.CFetchRequest,
}


def _callback_typedefs(header: str) -> dict[str, tuple[str, list[str]]]:
    """The callback types the header declares: name -> (return type, parameter declarations)."""
    code = re.sub(r"/\*.*?\*/", "", header, flags=re.S)
    found = {}
    for match in re.finditer(r"typedef\s+([\w \*]+?)\s*\(\s*\*\s*(normcache_\w+)\s*\)\s*\(([^)]*)\)\s*;", code):
        returns, name, parameters = match.groups()
        found[name] = (" ".join(returns.split()), [p.strip() for p in parameters.split(",")])
    return found


def _struct_members(header: str, name: str) -> list[tuple[str, str]]:
    """The members of the header's `typedef struct name { ... } name;`: (name, type) pairs."""
    code = re.sub(r"/\*.*?\*/", "", header, flags=re.S)
    body = re.search(rf"typedef\s+struct\s+{name}\s*\{{(.*?)\}}\s*{name}\s*;", code, flags=re.S)
    assert body is not None, name
    members = []
    for declaration in body.group(1).split(";"):
        if declaration.strip():
            member = re.findall(r"\w+\s*$", declaration)[0].strip()
            members.append((member, declaration))
    return members


def _ctype_for(declaration: str, named: bool, callback: bool = False) -> object:
    """The ctypes type the table must use for a C return type, or a parameter (`named`);
    a callback takes text as a pointer (c_void_p) that it reads with the length after it."""
    text = re.sub(r"\bconst\b", "", declaration)
    if named:
        text = re.sub(r"\w+\s*$", "", text)
    text = "".join(text.split())
    if callback and text == "char*":
        return ctypes.c_void_p
    return _CTYPES[text]


def _define(header: str, name: str) -> str:
    """The value of the header's `#define name value`."""
    found = re.findall(rf"^#define {name} (.+)$", header, flags=re.M)
    assert len(found) == 1, name
    return str(found[0]).strip()


def test_one_version_in_the_header_the_package_and_the_library() -> None:
    header = _header()
    if header is None:
        pytest.skip("not running from a source checkout")
    text = json.loads(_define(header, "NORMCACHE_VERSION"))
    major, minor, patch = (int(_define(header, f"NORMCACHE_VERSION_{part}")) for part in ("MAJOR", "MINOR", "PATCH"))
    number = int(_define(header, "NORMCACHE_VERSION_NUMBER"))
    assert text == f"{major}.{minor}.{patch}"
    assert number == major * 1_000_000 + minor * 1_000 + patch
    assert normcache.__version__ == text
    assert _library.HEADER_VERSION == text
    assert normcache.version() == text
    assert _library.lib.normcache_version_number() == number
    assert normcache.version_number() == number


def test_the_library_version_number_is_its_version_text() -> None:
    major, minor, patch = (int(part) for part in normcache.version().split("."))
    assert normcache.version_number() == major * 1_000_000 + minor * 1_000 + patch


def test_pyproject_takes_its_version_from_the_package() -> None:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((PACKAGE_DIR.parent / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    version = project["tool"]["scikit-build"]["metadata"]["version"]
    assert version == {"provider": "scikit_build_core.metadata.regex", "input": "normcache/_version.py"}
    # scikit-build-core reads the literal without importing the package (which loads the library).
    source = (PACKAGE_DIR / "_version.py").read_text()
    assert re.findall(r"^__version__ = (.+)$", source, flags=re.M) == [json.dumps(normcache.__version__)]


def test_table_declares_every_header_function() -> None:
    header = _header()
    if header is None:
        pytest.skip("not running from a source checkout")
    assert sorted(_declarations(header)) == sorted(_library._PROTOTYPES)


def test_table_entries_have_the_header_types() -> None:
    header = _header()
    if header is None:
        pytest.skip("not running from a source checkout")
    declared = _declarations(header)
    for name, (restype, argtypes) in _library._PROTOTYPES.items():
        assert name in declared, name
        returns, parameters = declared[name]
        assert isinstance(argtypes, list), name
        assert restype is _ctype_for(returns, named=False), name
        assert [_ctype_for(p, named=True) for p in parameters] == list(argtypes), name


def test_every_callback_type_of_the_header_is_declared() -> None:
    header = _header()
    if header is None:
        pytest.skip("not running from a source checkout")
    assert sorted(_callback_typedefs(header)) == sorted(_CALLBACKS)


def test_callback_types_match_the_header() -> None:
    header = _header()
    if header is None:
        pytest.skip("not running from a source checkout")
    declared = _callback_typedefs(header)
    for name, prototype in _CALLBACKS.items():
        returns, parameters = declared[name]
        assert prototype._restype_ is _ctype_for(returns, named=False), name
        assert list(prototype._argtypes_) == [_ctype_for(p, named=True, callback=True) for p in parameters], name


def test_option_structs_match_the_header() -> None:
    header = _header()
    if header is None:
        pytest.skip("not running from a source checkout")
    structs = [(name, s, False) for name, s in _STRUCTS.items()] + [(n, s, True) for n, s in _CALLBACK_STRUCTS.items()]
    for name, structure, lent in structs:
        members = _struct_members(header, name)
        assert [field for field, _ in structure._fields_] == [member for member, _ in members], name
        expected = [_ctype_for(d, named=True, callback=lent) for _, d in members]
        assert [ctype for _, ctype in structure._fields_] == expected, name
        if not lent:
            assert structure().size == ctypes.sizeof(structure), name


def _enum(header: str, name: str) -> dict[str, int]:
    """The constants of the header's `typedef enum name { ... } name;` and their values."""
    code = re.sub(r"/\*.*?\*/", "", header, flags=re.S)
    body = re.search(rf"typedef\s+enum\s+{name}\s*\{{(.*?)\}}\s*{name}\s*;", code, flags=re.S)
    assert body is not None, name
    return {constant: int(value) for constant, value in re.findall(r"(\w+)\s*=\s*(\d+)", body.group(1))}


def test_the_policy_names_are_the_header_enums() -> None:
    header = _header()
    if header is None:
        pytest.skip("not running from a source checkout")
    policies = {f"NORMCACHE_{name.upper()}": value for name, value in _library.POLICIES.items()}
    assert policies == _enum(header, "normcache_policy")
    errors = {f"NORMCACHE_ERRORS_{name.upper()}": value for name, value in _library.ERROR_POLICIES.items()}
    assert errors == _enum(header, "normcache_error_policy")


def test_the_status_codes_and_flags_are_the_headers() -> None:
    header = _header()
    if header is None:
        pytest.skip("not running from a source checkout")
    for constant, define in [
        (_library.OK, "NORMCACHE_OK"),
        (_library.MISS, "NORMCACHE_MISS"),
        (_library.NOTFOUND, "NORMCACHE_NOTFOUND"),
        (_library.STALE, "NORMCACHE_STALE"),
        (_library.NOTSTORED, "NORMCACHE_NOTSTORED"),
        (_library.EINVAL, "NORMCACHE_EINVAL"),
        (_library.ECALLBACK, "NORMCACHE_ECALLBACK"),
        (_library.EFETCH, "NORMCACHE_EFETCH"),
        (_library.EGRAPHQL, "NORMCACHE_EGRAPHQL"),
        (_library.INTERRUPTED, "NORMCACHE_INTERRUPTED"),
        (_library.READ_PARTIAL, "NORMCACHE_READ_PARTIAL"),
        (_library.READ_IGNORE_FRESHNESS, "NORMCACHE_READ_IGNORE_FRESHNESS"),
        (_library.INVALIDATE_PREFIX, "NORMCACHE_INVALIDATE_PREFIX"),
        (_library.MAX_AGE_LIMIT, "NORMCACHE_MAX_AGE_LIMIT"),
    ]:
        assert constant == int(_define(header, define).strip("()u")), define


def test_each_kind_of_handle_is_its_own_type(cache: normcache.Cache) -> None:
    with cache.prepare("{ a }") as op:
        with pytest.raises(ctypes.ArgumentError, match="CacheHandle or None expected, not OperationHandle"):
            _library.lib.normcache_clear(op._live_handle())
        with pytest.raises(ctypes.ArgumentError, match="OperationHandle or None expected, not CacheHandle"):
            _library.lib.normcache_op_free(cache._live_handle())
        handle = cache._live_handle().value
        with pytest.raises(ctypes.ArgumentError, match="CacheHandle or None expected, not int"):
            _library.lib.normcache_clear(handle)
        assert cache.put({"A:1": {"x": 1}}) == ["A:1.x"]  # nothing above reached the library


def test_every_function_of_the_table_is_exported() -> None:
    for name in _library._PROTOTYPES:
        assert hasattr(_library.lib, name), name


def test_errstr_for_known_and_unknown_codes() -> None:
    for code in range(-13, 0):
        assert _library.lib.normcache_errstr(code) not in (b"", b"unknown status code"), code
    assert _library.lib.normcache_errstr(12345) == b"unknown status code"
    assert _library.lib.normcache_errstr(-14) == b"unknown status code"


def test_errmsg_is_empty_on_a_thread_that_never_failed() -> None:
    seen: list[bytes] = []
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
    seen: list[bytes] = []
    thread = threading.Thread(target=lambda: seen.append(_library.lib.normcache_errmsg()))
    thread.start()
    thread.join()
    assert seen == [b""]


def test_lookup_uses_only_the_environment_variable_when_set(tmp_path: Path) -> None:
    package = tmp_path / "normcache"
    found = list(_library.candidates({"NORMCACHE_LIBRARY": "/opt/x/libnormcache.so"}, package))
    assert found == ["/opt/x/libnormcache.so"]


def test_lookup_order_without_the_variable(tmp_path: Path) -> None:
    package = tmp_path / "site-packages" / "normcache"
    for environ in ({}, {"NORMCACHE_LIBRARY": ""}):
        found = list(_library.candidates(environ, package))
        assert found[0] == str(package / "_lib" / "libnormcache.so")
        assert found[-1] == "libnormcache.so.0"
        assert len(found) in (2, 3)  # ctypes.util.find_library may add one before the soname


def test_the_library_a_package_carries_is_loaded_without_the_variable(tmp_path: Path) -> None:
    # The package as pip installs it: the modules, and the library in _lib/.
    installed = tmp_path / "site-packages"
    shutil.copytree(PACKAGE_DIR, installed / "normcache", ignore=shutil.ignore_patterns("__pycache__", "_lib"))
    (installed / "normcache" / "_lib").mkdir()
    shutil.copyfile(_library.path, installed / "normcache" / "_lib" / "libnormcache.so")
    environment = {name: value for name, value in os.environ.items() if name != "NORMCACHE_LIBRARY"}
    environment["PYTHONPATH"] = str(installed)
    child = subprocess.run(
        [sys.executable, "-c", "import normcache; print(normcache._library.path)"],
        env=environment,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == str(installed / "normcache" / "_lib" / "libnormcache.so")


def test_missing_library_raises_an_import_error_naming_what_was_tried(run_python: RunPython) -> None:
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
    with pytest.raises(normcache.LibraryLoadError, match=r"1\.0\.0"):
        _library.check_version("1.0.0")
    with pytest.raises(ImportError):
        _library.check_version("2.3.4", expected="0.1.0")
