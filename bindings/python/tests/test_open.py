"""Opening and closing: paths, files, options, read-only, durability, the managed lifecycle."""

from __future__ import annotations

import gc
import os
import random
import stat
from ctypes import byref, c_size_t, c_void_p
from pathlib import Path
from typing import Any, Callable

import pytest
from conftest import RunPython

import normcache
from normcache import _library
from normcache.cache import PathLike

MIB = 1024 * 1024


class _Place(os.PathLike[str]):
    """A minimal os.PathLike that is not a pathlib.Path."""

    def __init__(self, path: Path) -> None:
        self._path = path

    def __fspath__(self) -> str:
        return str(self._path)


def test_open_creates_the_data_file_and_the_lock_file_beside_it(cache_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        with normcache.Cache(cache_path):
            pass
    finally:
        os.umask(previous)
    assert cache_path.is_file()
    assert (cache_path.parent / "test.cache-lock").is_file()
    assert stat.S_IMODE(cache_path.stat().st_mode) == 0o600


@pytest.mark.parametrize("kind", ["str", "bytes", "Path", "PathLike"])
def test_path_may_be_str_bytes_or_pathlike(cache_path: Path, kind: str) -> None:
    places: dict[str, PathLike] = {
        "str": str(cache_path),
        "bytes": os.fsencode(cache_path),
        "Path": cache_path,
        "PathLike": _Place(cache_path),
    }
    with normcache.Cache(places[kind]) as cache:
        assert cache.put({"A:1": {"x": 1}}) == ["A:1.x"]
    with normcache.Cache(cache_path) as cache:
        assert cache.get("A:1") == {"x": 1}


def test_path_with_non_ascii_characters(tmp_path: Path) -> None:
    path = tmp_path / "café ☕ 日本.cache"
    with normcache.Cache(path) as cache:
        cache.put({"A:1": {"x": 1}})
    assert path.is_file()
    with normcache.Cache(path) as cache:
        assert cache.get("A:1") == {"x": 1}


def test_path_of_a_wrong_type_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        normcache.Cache(42)  # type: ignore[arg-type]


def test_empty_path_is_invalid() -> None:
    with pytest.raises(normcache.InvalidArgumentError) as failure:
        normcache.Cache("")
    assert failure.value.code == -1


def test_path_with_a_nul_byte_is_invalid_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(normcache.InvalidArgumentError) as failure:
        normcache.Cache(str(tmp_path / "a") + "\0b.cache")
    assert failure.value.code == -1
    assert list(tmp_path.iterdir()) == []


def test_missing_directory_is_a_storage_error(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "test.cache"
    with pytest.raises(normcache.StorageError) as failure:
        normcache.Cache(path)
    assert failure.value.code == -6
    assert "missing" in failure.value.message
    assert not (tmp_path / "missing").exists()


def test_a_directory_is_not_a_cache_file(tmp_path: Path) -> None:
    folder = tmp_path / "folder.cache"
    folder.mkdir()
    with pytest.raises(normcache.StorageError) as failure:
        normcache.Cache(folder)
    assert failure.value.code == -6


def test_random_bytes_are_not_a_cache_and_stay_untouched(cache_path: Path) -> None:
    garbage = random.Random(20240607).randbytes(64 * 1024)
    cache_path.write_bytes(garbage)
    with pytest.raises(normcache.NotACacheError) as failure:
        normcache.Cache(cache_path)
    assert failure.value.code == -9
    assert "test.cache" in failure.value.message
    assert cache_path.read_bytes() == garbage


def test_a_short_text_file_is_not_a_cache_and_stays_untouched(cache_path: Path) -> None:
    cache_path.write_bytes(b"hello, world\n")
    with pytest.raises(normcache.NotACacheError) as failure:
        normcache.Cache(cache_path)
    assert failure.value.code == -9
    assert cache_path.read_bytes() == b"hello, world\n"


def test_random_bytes_are_not_a_cache_when_opened_read_only(cache_path: Path) -> None:
    cache_path.write_bytes(random.Random(7).randbytes(16 * 1024))
    with pytest.raises(normcache.NotACacheError):
        normcache.Cache(cache_path, read_only=True)


def test_a_cache_survives_close_and_reopen(cache_path: Path) -> None:
    with normcache.Cache(cache_path) as cache:
        cache.put({"Droid:2001": {"name": "R2-D2"}})
    with normcache.Cache(cache_path) as cache:
        assert cache.get("Droid:2001") == {"name": "R2-D2"}
        assert cache.search("") == ["Droid:2001"]


def test_opening_and_closing_many_times(cache_path: Path) -> None:
    for round_ in range(50):
        with normcache.Cache(cache_path) as cache:
            cache.put({"Counter:1": {"n": round_}})
    with normcache.Cache(cache_path) as cache:
        assert cache.get("Counter:1") == {"n": 49}


# --- options ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"durability": "full"},
        {"durability": "fast"},
        {"read_only": False},
        {"map_size": MIB},
        {"map_size": 256 * MIB},
        {"max_readers": 1},
        {"max_readers": 65535},
        {"durability": "fast", "read_only": False, "map_size": 8 * MIB, "max_readers": 16},
        {"mode": 0o640},
        {"max_document_bytes": 1024, "max_document_tokens": 100},
    ],
)
def test_valid_options_are_accepted(cache_path: Path, options: dict[str, Any]) -> None:
    with normcache.Cache(cache_path, **options) as cache:
        assert cache.put({"A:1": {"x": 1}}) == ["A:1.x"]
        assert cache.get("A:1") == {"x": 1}


_DURABILITY = 'option \'durability\' must be "full" or "fast"'
_READ_ONLY = "option 'read_only' must be true or false"
_MAP_SIZE = "option 'map_size' must be an integer number of bytes, at least 1048576"
_MAX_READERS = "option 'max_readers' must be an integer from 1 to 65535"
_LIMIT = "option '{}' must be an integer of at least 1"
_MODE = "option 'mode' must be permission bits from 0 to 0777: a string of octal digits (\"0640\") or an integer (416)"


@pytest.mark.parametrize(
    "options, message",
    [
        ({"durability": "slow"}, _DURABILITY),
        ({"durability": 1}, _DURABILITY),
        ({"read_only": "yes"}, _READ_ONLY),
        ({"read_only": 1}, _READ_ONLY),
        ({"read_only": None}, _READ_ONLY),
        ({"map_size": "big"}, _MAP_SIZE),
        ({"map_size": -1}, _MAP_SIZE),
        ({"map_size": 1.5}, _MAP_SIZE),
        ({"map_size": 1024}, _MAP_SIZE),
        ({"max_readers": 0}, _MAX_READERS),
        ({"max_readers": 65536}, _MAX_READERS),
        ({"max_readers": "8"}, _MAX_READERS),
        ({"mode": 0o1000}, _MODE),
        ({"mode": 0o4755}, _MODE),
        ({"mode": -1}, _MODE),
        ({"mode": 1.5}, _MODE),
        ({"max_document_bytes": 0}, _LIMIT.format("max_document_bytes")),
        ({"max_document_tokens": "9"}, _LIMIT.format("max_document_tokens")),
    ],
)
def test_invalid_options_are_rejected_before_touching_the_disk(
    cache_path: Path, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(normcache.InvalidArgumentError) as failure:
        normcache.Cache(cache_path, **options)
    assert type(failure.value) is normcache.InvalidArgumentError
    assert failure.value.code == -1
    assert failure.value.message == message
    assert not cache_path.exists()


@pytest.mark.parametrize("mode, expected", [(None, 0o600), (0o640, 0o640), (0o666, 0o644), (0o660, 0o640)])
def test_new_files_get_the_mode_less_the_umask(cache_path: Path, mode: int | None, expected: int) -> None:
    previous = os.umask(0o022)
    try:
        with normcache.Cache(cache_path, mode=mode) as cache:
            cache.put({"A:1": {"x": 1}})
    finally:
        os.umask(previous)
    assert stat.S_IMODE(os.stat(cache_path).st_mode) == expected
    assert stat.S_IMODE(os.stat(f"{cache_path}-lock").st_mode) == expected


def test_options_left_as_none_are_the_library_defaults(cache_path: Path) -> None:
    with normcache.Cache(cache_path, durability=None, map_size=None, max_readers=None) as cache:
        stats = cache.stats()
    assert (stats["durability"], stats["read_only"], stats["map_size"]) == ("full", False, 64 * MIB)


def test_an_unknown_option_is_refused_by_python(cache_path: Path) -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        normcache.Cache(cache_path, colour="red")  # type: ignore[call-arg]
    assert not cache_path.exists()


def test_an_option_python_cannot_serialize_is_a_type_error(cache_path: Path) -> None:
    with pytest.raises(TypeError, match="Object of type object is not JSON serializable"):
        normcache.Cache(cache_path, map_size=object())  # type: ignore[arg-type]
    assert not cache_path.exists()


def test_the_path_and_the_state_of_a_cache(cache_path: Path) -> None:
    cache = normcache.Cache(cache_path)
    assert cache.path == str(cache_path)
    assert cache.read_only is False
    assert repr(cache) == f"<normcache.Cache {str(cache_path)!r} open>"
    cache.close()
    assert repr(cache) == f"<normcache.Cache {str(cache_path)!r} closed>"
    assert cache.path == str(cache_path)
    with normcache.Cache(os.fsencode(cache_path), read_only=True) as reader:
        assert reader.path == str(cache_path)
        assert reader.read_only is True
        assert repr(reader) == f"<normcache.Cache {str(cache_path)!r} open, read-only>"
    assert repr(reader) == f"<normcache.Cache {str(cache_path)!r} closed, read-only>"


def test_durability_fast_is_reported_and_keeps_data(cache_path: Path) -> None:
    with normcache.Cache(cache_path, durability="fast") as cache:
        assert cache.stats()["durability"] == "fast"
        assert cache.put({"A:1": {"x": "fast"}}) == ["A:1.x"]
    with normcache.Cache(cache_path) as cache:
        assert cache.stats()["durability"] == "full"
        assert cache.get("A:1") == {"x": "fast"}


# --- read-only -------------------------------------------------------------------------


def test_read_only_of_a_missing_file_raises_and_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "absent.cache"
    with pytest.raises(normcache.StorageError) as failure:
        normcache.Cache(path, read_only=True)
    assert failure.value.code == -6
    assert list(tmp_path.iterdir()) == []


def test_read_only_reads_and_refuses_every_write(cache_path: Path) -> None:
    with normcache.Cache(cache_path) as cache:
        cache.put({"Pet:1": {"name": "Rex"}, "Pet:2": {"name": "Tom"}})
    with normcache.Cache(cache_path, read_only=True) as cache:
        assert cache.get("Pet:1") == {"name": "Rex"}
        assert cache.search("Pet:") == ["Pet:1", "Pet:2"]
        stats = cache.stats()
        assert stats["read_only"] is True
        assert stats["records"] == 2
        writes: list[Callable[[], object]] = [
            lambda: cache.put({"Pet:3": {"name": "Kit"}}),
            lambda: cache.put({"Pet:1": {"name": "Max"}}),
            lambda: cache.put("{}"),
            lambda: cache.remove("Pet:1"),
            lambda: cache.remove_prefix("Pet:"),
            lambda: cache.clear(),
        ]
        for write in writes:
            with pytest.raises(normcache.ReadOnlyError) as failure:
                write()
            assert failure.value.code == -10
            assert failure.value.message != ""
        assert cache.search("") == ["Pet:1", "Pet:2"]
        assert cache.get("Pet:1") == {"name": "Rex"}


# --- lifecycle -------------------------------------------------------------------------


def test_context_manager_returns_the_cache_and_closes_it(cache_path: Path) -> None:
    with normcache.Cache(cache_path) as cache:
        assert isinstance(cache, normcache.Cache)
        assert cache.closed is False
    assert cache.closed is True


def test_context_manager_closes_on_an_exception_and_lets_it_through(cache_path: Path) -> None:
    with pytest.raises(KeyError):
        with normcache.Cache(cache_path) as cache:
            cache.put({"A:1": {"x": 1}})
            raise KeyError("boom")
    assert cache.closed is True
    with normcache.Cache(cache_path) as cache:
        assert cache.get("A:1") == {"x": 1}


def test_close_is_idempotent(cache_path: Path) -> None:
    cache = normcache.Cache(cache_path)
    cache.close()
    cache.close()
    assert cache.closed is True


@pytest.mark.parametrize(
    "use",
    [
        lambda c: c.put({"A:1": {"x": 1}}),
        lambda c: c.put('{"A:1": {"x": 1}}'),
        lambda c: c.get("A:1"),
        lambda c: c.remove("A:1"),
        lambda c: c.remove_prefix("A:"),
        lambda c: c.search(""),
        lambda c: c.search("A:", after="A:0", limit=3),
        lambda c: c.clear(),
        lambda c: c.stats(),
    ],
    ids=["put-dict", "put-text", "get", "remove", "remove_prefix", "search", "search-paged", "clear", "stats"],
)
def test_use_after_close_raises_closed_error(cache_path: Path, use: Callable[[normcache.Cache], object]) -> None:
    cache = normcache.Cache(cache_path)
    cache.put({"A:1": {"x": 1}})
    cache.close()
    with pytest.raises(normcache.ClosedError) as failure:
        use(cache)
    assert isinstance(failure.value, normcache.InvalidArgumentError)
    assert failure.value.code == -1
    assert str(failure.value) == "the cache is closed"


def test_an_unclosed_cache_is_closed_by_the_garbage_collector(cache_path: Path) -> None:
    cache = normcache.Cache(cache_path)
    cache.put({"A:1": {"x": 1}})
    del cache
    gc.collect()
    with normcache.Cache(cache_path) as again:
        assert again.get("A:1") == {"x": 1}


def test_a_failed_open_leaves_nothing_for_the_garbage_collector_to_trip_on(tmp_path: Path) -> None:
    # pyproject turns unraisable exceptions (a __del__ that raises) into errors.
    for _ in range(3):
        with pytest.raises(normcache.StorageError):
            normcache.Cache(tmp_path / "missing" / "x.cache")
    with pytest.raises(normcache.InvalidArgumentError):
        normcache.Cache(tmp_path / "y.cache", durability="slow")  # type: ignore[arg-type]
    gc.collect()


def test_the_library_detects_a_closed_handle(cache_path: Path) -> None:
    # The binding never passes a closed handle on purpose, but a race between close() and
    # a call on another thread can; the library must answer EINVAL, not crash.
    encoded = os.fsencode(cache_path)
    handle = _library.CacheHandle()
    _library.lib.normcache_open(encoded, len(encoded), None, 0, byref(handle))
    assert handle.value
    assert _library.lib.normcache_close(handle) == 0
    calls: list[Callable[[], object]] = [
        lambda: _library.lib.normcache_close(handle),
        lambda: _library.call_with_buffer(_library.lib.normcache_get, handle, b"A:1", 3),
        lambda: _library.lib.normcache_clear(handle),
    ]
    for call in calls:
        with pytest.raises(normcache.InvalidArgumentError) as failure:
            call()
        assert failure.value.message == "the cache handle is closed or was never opened"
    buffer, length = c_void_p(), c_size_t()
    with pytest.raises(normcache.InvalidArgumentError):
        _library.lib.normcache_stats(handle, byref(buffer), byref(length))
    assert buffer.value is None and length.value == 0
    assert _library.lib.normcache_close(None) == 0


LEFT_OPEN_AT_EXIT = """
import os, sys, normcache
from normcache._library import lib

def releasing(release, write=os.write):
    # Bound as defaults: the hook must work while the interpreter tears modules down.
    def hook(handle, release=release, write=write):
        write(1, b"released\\n")
        release(handle)
    return hook

cache = normcache.Cache(sys.argv[1])
cache.set_key_resolver(lambda typename, obj: obj.get("id"))
ops = [cache.prepare("{ a { id } }") for _ in range(2)]
cache.write(ops[0], {"data": {"a": {"__typename": "A", "id": 1}}})
for managed in (cache, *ops):
    managed._release = releasing(managed._release)
dropped = cache.prepare("{ a }")
dropped._release = releasing(dropped._release)
del dropped  # before shutdown, the finalizer frees a forgotten operation
print("exiting", flush=True)
"""


def test_objects_left_open_at_exit_are_left_to_the_process_exit(cache_path: Path, run_python: RunPython) -> None:
    # At interpreter shutdown the finalizers call nothing: the process's exit releases
    # the handles, and no callback runs into a half torn-down interpreter.
    child = run_python(LEFT_OPEN_AT_EXIT, str(cache_path))
    assert (child.returncode, child.stdout, child.stderr) == (0, "released\nexiting\n", "")
    with normcache.Cache(cache_path) as cache:
        assert cache.get("A:1") == {"__typename": "A", "id": 1}
