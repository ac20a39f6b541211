// test_cpp_binding.cpp — the C++17 binding bindings/cpp/normcache.hpp: RAII and moves,
// the exception for every status code, each method over the C interface, and the
// parser of the JSON string arrays the library returns.

#include "test_support.hpp"

#include <sys/stat.h>

#include <fstream>
#include <type_traits>

namespace {

using NormCache::Cache;
using test_support::Strings;

using test_support::fail;
using test_support::fresh_path;
using test_support::show;
using test_support::temp_dir;

// ---------------------------------------------------------------------------
// Tests

/// The library is the version of the header, as text and as one number.
void test_version()
{
    CHECK_EQ(Cache::version(), std::string(NORMCACHE_VERSION));
    CHECK_EQ(Cache::version_number(), NORMCACHE_VERSION_NUMBER);
    CHECK_EQ(Cache::version_number(), NORMCACHE_VERSION_MAJOR * 1000000 + NORMCACHE_VERSION_MINOR * 1000 +
                                          NORMCACHE_VERSION_PATCH);
}

/// release_memory frees the blocks a large put let go (at least one of 256 KiB), and
/// then nothing; a checked library (NORMCACHE_POOL_KEEPS_BLOCKS 0) keeps none.
void test_release_memory()
{
    Cache cache(fresh_path());
    const std::string blob(300 * 1024, 'q');
    Cache::release_memory();
    cache.put(R"({"Big:1": {"blob": ")" + blob + R"("}})");
    const std::size_t released = Cache::release_memory();
    CHECK_EQ(cache.get("Big:1"), std::optional<std::string>(R"({"blob":")" + blob + R"("})"));
#if NORMCACHE_POOL_KEEPS_BLOCKS
    CHECK(released >= std::size_t{256 * 1024});
#else
    CHECK_EQ(released, std::size_t{0});
#endif
    CHECK_EQ(Cache::release_memory(), std::size_t{0});
}

/// Cache is move-only, and moves cannot throw.
void test_type_traits()
{
    static_assert(!std::is_copy_constructible_v<Cache>);
    static_assert(!std::is_copy_assignable_v<Cache>);
    static_assert(std::is_nothrow_move_constructible_v<Cache>);
    static_assert(std::is_nothrow_move_assignable_v<Cache>);
    static_assert(std::is_nothrow_destructible_v<Cache>);
    static_assert(std::is_base_of_v<std::runtime_error, NormCache::Error>);
    static_assert(!std::is_copy_constructible_v<NormCache::Buffer>);
}

/// The destructor closes the handle; the records stay in the file.
void test_destructor_closes()
{
    const std::string path = fresh_path();
    ::normcache *handle = nullptr;
    {
        Cache cache(path);
        CHECK(cache.is_open());
        handle = cache.native_handle();
        CHECK(handle != nullptr);
        cache.put(R"({"Dog:1": {"name": "Rex"}})");
    }
    char *out = nullptr;
    std::size_t out_len = 0;
    CHECK_EQ(normcache_stats(handle, &out, &out_len), NORMCACHE_EINVAL);
    Cache reopened(path);
    CHECK_EQ(reopened.get("Dog:1"), std::optional<std::string>(R"({"name":"Rex"})"));
}

/// Moving hands the handle over; the source is closed; move-assignment closes the target's own.
void test_moves()
{
    Cache first(fresh_path());
    first.put(R"({"A:1": {"x": 1}})");
    ::normcache *first_handle = first.native_handle();

    Cache second(std::move(first));
    CHECK(!first.is_open());
    CHECK(first.native_handle() == nullptr);
    CHECK(second.native_handle() == first_handle);
    CHECK_EQ(second.get("A:1"), std::optional<std::string>(R"({"x":1})"));
    CHECK_THROWS_EXACT(first.get("A:1"), NormCache::ClosedError, NORMCACHE_EINVAL, "the cache is closed");

    Cache third(fresh_path());
    ::normcache *third_handle = third.native_handle();
    third = std::move(second);
    CHECK(!second.is_open());
    CHECK(third.native_handle() == first_handle);
    CHECK_EQ(third.get("A:1"), std::optional<std::string>(R"({"x":1})"));
    CHECK_EQ(normcache_clear(third_handle), NORMCACHE_EINVAL);
}

/// close() closes once; after it every method but close() throws ClosedError, an
/// InvalidArgumentError, with the message the Python binding gives.
void test_close()
{
    static_assert(std::is_base_of_v<NormCache::InvalidArgumentError, NormCache::ClosedError>);
    Cache cache(fresh_path());
    cache.close();
    CHECK(!cache.is_open());
    cache.close();
    const char *const closed = "the cache is closed";
    CHECK_THROWS_EXACT(cache.put(R"({"A:1": {"x": 1}})"), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.put_json(R"({"A:1": {"x": 1}})"), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.get("A:1"), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.remove("A:1"), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.remove_prefix("A:"), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.remove_field("A:1", "a"), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.search(""), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.clear(), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.stats(), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.interrupt(), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
}

/// interrupt() stops a running call (here from its clock): Interrupted, nothing written; the
/// interrupt ends with the call, and while nothing runs it does nothing.
void test_interrupt()
{
    Cache cache(fresh_path());
    cache.interrupt();
    CHECK_EQ(cache.put(R"({"A:1": {"x": 1}})"), Strings{"A:1.x"});
    cache.set_clock([&cache]() -> std::int64_t {
        cache.interrupt();
        return 1700000000;
    });
    CHECK_THROWS_EXACT(
        cache.put(R"({"A:1": {"x": 2}, "B:1": {"y": 1}})"), NormCache::Interrupted, NORMCACHE_INTERRUPTED,
        "interrupted: interrupt() was called on the cache handle while this call ran; nothing was changed");
    CHECK_EQ(cache.search(""), Strings{"A:1"});
    CHECK_EQ(cache.get("A:1"), std::optional<std::string>(R"({"x":1})"));
    cache.set_clock(nullptr, nullptr);
    CHECK_EQ(cache.put(R"({"B:1": {"y": 1}})"), Strings{"B:1.y"});
}

/// put returns the decoded changed keys, put_json the raw array; get returns the record.
void test_put_and_get()
{
    Cache cache(fresh_path(), R"({"durability": "fast"})");
    CHECK_EQ(cache.put(R"({"Droid:2001": {"name": "R2-D2", "friends": [{"$reference": "Human:1000"}, null]}})"),
             (Strings{"Droid:2001.name", "Droid:2001.friends"}));
    CHECK_EQ(cache.get("Droid:2001"),
             std::optional<std::string>(R"({"friends":[{"$reference":"Human:1000"},null],"name":"R2-D2"})"));
    CHECK_EQ(cache.put_json(R"({"Droid:2001": {"name": "Artoo", "friends": []}})"),
             std::string(R"(["Droid:2001.name","Droid:2001.friends"])"));
    CHECK_EQ(cache.put_json(R"({"Droid:2001": {"name": "Artoo"}})"), std::string("[]"));
    CHECK_EQ(cache.put(R"({"Droid:2001": {"name": "Artoo"}})"), Strings{});
    CHECK_EQ(cache.get("Human:1000"), std::optional<std::string>());
}

/// import_records and export_records: an Apollo Client extract in, Apollo iOS rows out,
/// a dangling reference refused with nothing written.
void test_apollo_import_export()
{
    Cache cache(fresh_path(), R"({"durability": "fast"})");
    CHECK_EQ(cache.import_records(Cache::Format::apollo_client,
                                  R"j({"ROOT_QUERY": {"hero({\"episode\":\"JEDI\"})": {"__ref": "Droid:1"}}, "Droid:1": {"name": "R2"}})j"),
             (Strings{"QUERY_ROOT.hero(episode:JEDI)", "Droid:1.name"}));
    CHECK_EQ(cache.export_records(Cache::Format::apollo_ios),
             std::string(R"j({"Droid:1":"{\"name\":\"R2\"}","QUERY_ROOT":"{\"hero(episode:JEDI)\":{\"$reference\":\"Droid:1\"}}"})j"));
    CHECK_EQ(cache.export_records(Cache::Format::apollo_client),
             std::string(R"j({"Droid:1":{"name":"R2"},"ROOT_QUERY":{"hero({\"episode\":\"JEDI\"})":{"__ref":"Droid:1"}}})j"));
    Cache other(fresh_path(), R"({"durability": "fast"})");
    CHECK_THROWS_EXACT(other.import_records(Cache::Format::apollo_ios, R"j({"QUERY_ROOT": "{\"a\": {\"$reference\": \"B:1\"}}"})j"),
                       NormCache::DataError, NORMCACHE_EDATA,
                       "apollo-ios import: field 'a' of record 'QUERY_ROOT' refers to 'B:1', which the file does not hold; "
                       "nothing was imported");
    CHECK_EQ(other.search(""), Strings{});
}

/// Keys with quotes, backslashes, non-ASCII and NUL come back from put and search decoded.
void test_keys_are_decoded()
{
    Cache cache(fresh_path(), R"({"durability": "fast"})");
    const std::string quoted = "Q:\"1\"\\";
    const std::string emoji = "E:\xf0\x9f\x98\x80";
    const std::string nul("N:\0x", 4);
    CHECK_EQ(cache.put(R"({"Q:\"1\"\\": {"v": 1}, "E:\ud83d\ude00": {"v": 1}, "N:\u0000x": {"v": 1}})"),
             (Strings{quoted + ".v", emoji + ".v", nul + ".v"}));
    CHECK_EQ(cache.search(""), (Strings{emoji, nul, quoted}));
    CHECK_EQ(cache.get(nul), std::optional<std::string>(R"({"v":1})"));
    CHECK_EQ(cache.get(std::string_view("Q:\"1\"\\ and more", quoted.size())),
             std::optional<std::string>(R"({"v":1})"));
}

/// remove, remove_field, remove_prefix, search with after and limit, clear and stats.
/// trim evicts the least recently written records down to a size and reports them by
/// key group; a write over "max_bytes" is refused (StorageError) and writes nothing.
void test_trim_and_max_bytes()
{
    Cache cache(fresh_path(), R"({"max_bytes": 65536})");
    std::int64_t now = 1700000000;
    cache.set_clock([&now] { return now; });
    const std::string body(20000, 'x');
    for (const char *key : {"User:2", "User:1", "Post:1"}) {
        now += 100;
        cache.put(std::string(R"({")") + key + R"(": {"body": ")" + body + R"("}})");
    }
    // Three records of five overflow pages pass 65536 bytes: the write of Post:1 evicts
    // the older two to come under the low-water mark of 52428.
    CHECK_EQ(cache.search(""), (Strings{"Post:1"}));
    const std::string report = cache.trim(0);
    CHECK_EQ(report.find(R"("records":1,)"), std::size_t{1});
    CHECK(report.find(R"("groups":{"Post:":1}})") != std::string::npos);
    CHECK_EQ(cache.search(""), Strings{});
    CHECK_THROWS_EXACT(cache.trim(-1), NormCache::InvalidArgumentError, NORMCACHE_EINVAL, "max_bytes -1 is negative");
    CHECK_THROWS_WITH(cache.put(R"({"Huge:1": {"body": ")" + std::string(100000, 'y') + R"("}})"), NormCache::StorageError,
                      NORMCACHE_ESTORAGE, "over its max_bytes of 65536");
    CHECK_EQ(cache.search(""), Strings{});
}

void test_remove_search_clear()
{
    Cache cache(fresh_path(), R"({"durability": "fast"})");
    cache.put(R"({"Pet:1": {"v": 1}, "Pet:2": {"v": 1}, "Pet:3": {"v": 1}, "Pets:1": {"v": 1}, "Person:1": {"v": 1}})");
    CHECK_EQ(cache.search("Pet:"), (Strings{"Pet:1", "Pet:2", "Pet:3"}));
    CHECK_EQ(cache.search("Pet:", std::nullopt, 2), (Strings{"Pet:1", "Pet:2"}));
    CHECK_EQ(cache.search("Pet:", std::string_view("Pet:2"), 2), (Strings{"Pet:3"}));
    CHECK_EQ(cache.search("Pet:", std::string_view("Pet:3")), Strings{});
    CHECK_EQ(cache.search("", std::string_view(""), 1), (Strings{"Person:1"}));

    CHECK(cache.remove("Pet:1"));
    CHECK(!cache.remove("Pet:1"));
    CHECK_EQ(cache.remove_prefix("Pet:"), std::uint64_t{2});
    CHECK_EQ(cache.remove_prefix("Pet:"), std::uint64_t{0});
    CHECK_EQ(cache.search(""), (Strings{"Person:1", "Pets:1"}));
    cache.put(R"({"Pets:1": {"w": 2, "x": [1, {"$reference": "Person:1"}]}})");
    CHECK(cache.remove_field("Pets:1", "w"));
    CHECK(!cache.remove_field("Pets:1", "w"));
    CHECK(!cache.remove_field("Pet:9", "v"));
    CHECK_EQ(cache.get("Pets:1"), std::optional<std::string>(R"({"v":1,"x":[1,{"$reference":"Person:1"}]})"));
    CHECK(cache.remove_field("Pets:1", "x"));
    CHECK(cache.remove_field("Pets:1", "v"));
    CHECK_EQ(cache.get("Pets:1"), std::optional<std::string>{});
    cache.put(R"({"Pets:1": {"v": 1}})");
    CHECK(cache.stats().find("\"records\":2") != std::string::npos);
    cache.clear();
    CHECK_EQ(cache.search(""), Strings{});
    CHECK(cache.stats().find("\"records\":0") != std::string::npos);
}

/// The mode option reaches the library through the options JSON; the stats name the readers.
void test_mode_option_and_reader_stats()
{
    const mode_t previous = umask(022);
    const std::string path = fresh_path();
    {
        Cache cache(path, R"({"mode": "0640"})");
        CHECK(cache.stats().find(R"("readers":0,"reader_slots":1,"max_readers":126,"oldest_reader_lag":0)") != std::string::npos);
    }
    umask(previous);
    struct stat info {};
    CHECK(stat(path.c_str(), &info) == 0);
    CHECK_EQ(info.st_mode & 0777u, 0640u);
    CHECK_THROWS_EXACT(Cache(fresh_path(), R"({"mode": 512})"), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "option 'mode' must be permission bits from 0 to 0777: a string of octal digits "
                       "(\"0640\") or an integer (416)");
}

/// copy_to writes a new cache with the same records; an existing, empty or missing-directory path throws.
void test_copy_to()
{
    const std::string source = fresh_path();
    Cache cache(source);
    cache.put(R"({"Pet:1": {"name": "Rex"}})");
    const std::string path = fresh_path();
    cache.copy_to(path);
    {
        Cache copy(path);
        CHECK_EQ(copy.get("Pet:1"), std::optional<std::string>(R"({"name":"Rex"})"));
    }
    CHECK_THROWS_EXACT(cache.copy_to(path), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "'" + path + "' exists: a copy is written only to a new file");
    CHECK_THROWS_EXACT(cache.copy_to(""), NormCache::InvalidArgumentError, NORMCACHE_EINVAL, "empty destination path");
    CHECK_THROWS_EXACT(cache.copy_to(std::string_view("a\0b", 3)), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "destination path contains a NUL byte");
    const std::string missing = (temp_dir() / "missing" / "copy.cache").string();
    CHECK_THROWS_EXACT(cache.copy_to(missing), NormCache::StorageError, NORMCACHE_ESTORAGE,
                       "copying the cache to '" + missing + "' on '" + source +
                           "' failed: No such file or directory (open)");
}

/// key_groups returns normcache_key_groups' JSON: each group's records, bytes and writes.
void test_key_groups()
{
    Cache cache(fresh_path());
    CHECK_EQ(cache.key_groups(), std::string("[]"));
    cache.set_clock([] { return std::int64_t{1700000000}; });
    cache.put(R"({"Pet:1": {"name": "Rex"}, "QUERY_ROOT": {"pet": {"$reference": "Pet:1"}}})");
    CHECK_EQ(cache.key_groups(),
             std::string(R"([{"group":"Pet:","records":1,"bytes":28,"oldest_write":1700000000,"newest_write":1700000000},)"
                         R"({"group":"QUERY_ROOT","records":1,"bytes":34,"oldest_write":1700000000,"newest_write":1700000000}])"));
    cache.close();
    CHECK_THROWS(cache.key_groups(), NormCache::ClosedError, NORMCACHE_EINVAL);
}

/// Each failure of the library throws its exception type with the exact code and message.
void test_library_errors()
{
    CHECK_THROWS(Cache((temp_dir() / "missing" / "a.cache").string()), NormCache::StorageError,
                 NORMCACHE_ESTORAGE);
    CHECK_THROWS(Cache(fresh_path(), R"({"durabilty": "fast"})"), NormCache::InvalidArgumentError,
                 NORMCACHE_EINVAL);
    CHECK_THROWS(Cache(fresh_path(), R"({"durability": )"), NormCache::JSONError, NORMCACHE_EJSON);
    CHECK_THROWS(Cache(""), NormCache::InvalidArgumentError, NORMCACHE_EINVAL);

    const std::string not_a_cache = fresh_path();
    std::ofstream(not_a_cache) << std::string(20000, 'n');
    CHECK_THROWS(Cache{not_a_cache}, NormCache::NotACacheError, NORMCACHE_ENOTCACHE);

    const std::string path = fresh_path();
    {
        Cache cache(path);
        CHECK_THROWS(cache.put(R"({"A:1": {"a": tru}})"), NormCache::JSONError, NORMCACHE_EJSON);
        try {
            cache.put(R"({"A:1": )");
            fail(__FILE__, __LINE__, "a truncated put threw nothing");
        } catch (const NormCache::JSONError &error) {
            CHECK(std::string(error.what()).find("byte") != std::string::npos);
        }
        CHECK_THROWS(cache.get(""), NormCache::InvalidArgumentError, NORMCACHE_EINVAL);
        CHECK_THROWS(cache.remove_prefix(""), NormCache::InvalidArgumentError, NORMCACHE_EINVAL);
        CHECK_THROWS_EXACT(cache.remove_field("A:1", ""), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                           "empty field key");
        CHECK_THROWS_EXACT(cache.remove_field("A:\xff", "a"), NormCache::InvalidArgumentError,
                           NORMCACHE_EINVAL, "record key is not valid UTF-8");
        cache.put(R"({"A:1": {"a": 1}})");
    }
    Cache reader(path, R"({"read_only": true})");
    CHECK_THROWS(reader.put(R"({"A:1": {"a": 2}})"), NormCache::ReadOnlyError, NORMCACHE_EREADONLY);
    CHECK_THROWS(reader.remove("A:1"), NormCache::ReadOnlyError, NORMCACHE_EREADONLY);
    CHECK_THROWS(reader.remove_field("A:1", "a"), NormCache::ReadOnlyError, NORMCACHE_EREADONLY);
    CHECK_THROWS(reader.clear(), NormCache::ReadOnlyError, NORMCACHE_EREADONLY);
    CHECK_EQ(reader.get("A:1"), std::optional<std::string>(R"({"a":1})"));
}

/// The one mapping from codes to types: every code of the header, and unknown codes.
void test_code_to_exception_mapping()
{
    using NormCache::detail::throw_error;
    CHECK_THROWS(throw_error(NORMCACHE_EINVAL), NormCache::InvalidArgumentError, NORMCACHE_EINVAL);
    // ClosedError is the binding's own, never a code's: the library says "closed" with EINVAL.
    CHECK_THROWS(throw_error(NORMCACHE_EJSON), NormCache::JSONError, NORMCACHE_EJSON);
    CHECK_THROWS(throw_error(NORMCACHE_EDOCUMENT), NormCache::DocumentError, NORMCACHE_EDOCUMENT);
    CHECK_THROWS(throw_error(NORMCACHE_ESCHEMA), NormCache::SchemaError, NORMCACHE_ESCHEMA);
    CHECK_THROWS(throw_error(NORMCACHE_EDATA), NormCache::DataError, NORMCACHE_EDATA);
    CHECK_THROWS(throw_error(NORMCACHE_ESTORAGE), NormCache::StorageError, NORMCACHE_ESTORAGE);
    CHECK_THROWS(throw_error(NORMCACHE_ECALLBACK), NormCache::CallbackError, NORMCACHE_ECALLBACK);
    CHECK_THROWS(throw_error(NORMCACHE_ENOMEM), NormCache::OutOfMemoryError, NORMCACHE_ENOMEM);
    CHECK_THROWS(throw_error(NORMCACHE_ENOTCACHE), NormCache::NotACacheError, NORMCACHE_ENOTCACHE);
    CHECK_THROWS(throw_error(NORMCACHE_EREADONLY), NormCache::ReadOnlyError, NORMCACHE_EREADONLY);
    CHECK_THROWS(throw_error(NORMCACHE_INTERRUPTED), NormCache::Interrupted, NORMCACHE_INTERRUPTED);
    CHECK_THROWS(throw_error(-42), NormCache::Error, -42);
    try {
        throw_error(NORMCACHE_NOTFOUND);
    } catch (const NormCache::Error &error) {
        CHECK_EQ(error.code(), NORMCACHE_NOTFOUND);
        CHECK_EQ(std::string(error.what()), std::string(normcache_errstr(NORMCACHE_NOTFOUND)));
    }
}

/// The string-array parser decodes every escape and surrogate pairs, and keeps raw bytes.
void test_parser_decodes()
{
    using NormCache::detail::parse_string_array;
    CHECK_EQ(parse_string_array("[]"), Strings{});
    CHECK_EQ(parse_string_array(" \t\r\n[ \n] \n"), Strings{});
    CHECK_EQ(parse_string_array(R"(["a","",  "b" ])"), (Strings{"a", "", "b"}));
    CHECK_EQ(parse_string_array(R"(["q\"b\\s\/\b\f\n\r\t"])"), (Strings{"q\"b\\s/\b\f\n\r\t"}));
    CHECK_EQ(parse_string_array(R"(["\u0041\u00e9\u20AC\ud83d\ude00\uDBFF\uDFFF"])"),
             (Strings{"A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf"}));
    CHECK_EQ(parse_string_array(R"(["\u0000","\u007f\u0080\u07ff\u0800\uffff"])"),
             (Strings{std::string("\0", 1), "\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf"}));
    CHECK_EQ(parse_string_array("[\"caf\xc3\xa9\"]"), (Strings{"caf\xc3\xa9"}));
}

/// Anything but a JSON array of strings throws JSONError.
void test_parser_rejects()
{
    const char *const malformed[] = {
        "",
        "[",
        "[\"a\"",
        "[\"a\",]",
        "[,]",
        "[1]",
        "[null]",
        "\"a\"",
        "[\"a\"] x",
        "[\"a\"][]",
        "[\"a\" \"b\"]",
        "[\"\\x\"]",
        "[\"\\u12\"]",
        "[\"\\u12G4\"]",
        "[\"\\ud800\"]",
        "[\"\\udc00\"]",
        "[\"\\ud800\\u0041\"]",
        "[\"\\ud800x\"]",
        "[\"a\x01\"]",
        "[\"a\nb\"]",
        "[\"a\\",
        "{}",
    };
    for (const char *input : malformed) {
        try {
            NormCache::detail::parse_string_array(input);
            fail(__FILE__, __LINE__, std::string("parsed ") + show(std::string(input)));
        } catch (const NormCache::JSONError &error) {
            CHECK_EQ(error.code(), NORMCACHE_EJSON);
            CHECK(std::string(error.what()).find("byte") != std::string::npos);
        }
    }
}

/// Buffer owns what a C call returns and frees it.
void test_buffer()
{
    Cache cache(fresh_path());
    cache.put(R"({"B:1": {"x": 1}})");
    NormCache::Buffer buffer;
    CHECK(buffer.view().empty());
    CHECK_EQ(normcache_get(cache.native_handle(), "B:1", 3, buffer.out(), buffer.out_len()),
             NORMCACHE_OK);
    CHECK_EQ(buffer.str(), std::string(R"({"x":1})"));
    CHECK_EQ(normcache_search(cache.native_handle(), "B", 1, nullptr, 0, 0, buffer.out(),
                              buffer.out_len()),
             NORMCACHE_OK);
    CHECK(buffer.view() == R"(["B:1"])");
}

} // namespace

int main()
{
    test_version();
    test_release_memory();
    test_type_traits();
    test_destructor_closes();
    test_moves();
    test_close();
    test_interrupt();
    test_put_and_get();
    test_keys_are_decoded();
    test_apollo_import_export();
    test_remove_search_clear();
    test_copy_to();
    test_key_groups();
    test_trim_and_max_bytes();
    test_library_errors();
    test_mode_option_and_reader_stats();
    test_code_to_exception_mapping();
    test_parser_decodes();
    test_parser_rejects();
    test_buffer();
    return 0;
}
