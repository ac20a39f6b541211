// test_cpp_freshness.cpp — freshness through the C++17 binding bindings/cpp/normcache.hpp:
// set_clock (a Clock, a C clock, the system clock; what a clock that throws or answers
// below 0 does; how long the binding keeps a Clock), write, put and write_fragment with
// WriteOptions (max_age, the response's caching headers, no-store), read_result (complete, stale, miss, with a
// fragment key, the two times), invalidate and invalidate_prefix, and the exception of
// each failure, with exact outputs.

#include "test_support.hpp"

#include <atomic>
#include <chrono>
#include <limits>
#include <memory>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using NormCache::Cache;
using NormCache::Clock;
using NormCache::FieldReport;
using NormCache::FullReadResult;
using NormCache::MissReason;
using NormCache::Operation;
using NormCache::ReadOptions;
using NormCache::ReadStatus;
using NormCache::WriteOptions;
using NormCache::WriteResult;
using test_support::Strings;
using test_support::Token;

using test_support::fail;
using test_support::fresh_path;
using test_support::show;

/// Shows a status in a failure message.
std::string show(ReadStatus status)
{
    switch (status) {
    case ReadStatus::complete: return "complete";
    case ReadStatus::stale: return "stale";
    case ReadStatus::miss: return "miss";
    }
    return "?";
}

/// Shows an optional time in a failure message.
std::string show(const std::optional<std::uint64_t> &time) { return time ? std::to_string(*time) : "nullopt"; }

/// Shows a whole read result in a failure message.
std::string show(const FullReadResult &result)
{
    return show(result.status) + " " + show(result.json) + " oldest " + show(result.oldest_written_at) +
           " earliest " + show(result.earliest_expiry);
}

/// Shows a read result in a failure message: hit or miss, and its JSON.
std::string show(const NormCache::ReadResult &result)
{
    return std::string(result.hit ? "hit " : "miss ") + show(result.json);
}

/// Shows a write result in a failure message.
std::string show(const WriteResult &result)
{
    return std::string(result.stored ? "stored " : "not stored ") + show(result.changed) + " key fallbacks " +
           std::to_string(result.key_fallbacks);
}

/// Sun, 06 Nov 1994 08:49:37 GMT (RFC 9110's example date): the clock starts here.
constexpr std::int64_t start = 784111777;

const char *const feed_schema = R"(
type Query { feed(first: Int): [Article] }
type Article { id: ID! title: String body: String }
extend type Article @typePolicy(keyFields: "id")
)";

const char *const feed_query = "query Feed { feed(first: 2) { id title body } }";

const char *const feed_response =
    R"({"data": {"feed": [{"__typename": "Article", "id": "1", "title": "One", "body": "B1"},)"
    R"( {"__typename": "Article", "id": "2", "title": "Two", "body": "B2"}]}})";

const std::string feed_data =
    R"({"feed":[{"id":"1","title":"One","body":"B1"},{"id":"2","title":"Two","body":"B2"}]})";

const Strings feed_changed = {"Article:1.id", "Article:1.title", "Article:1.body",
                              "Article:1.__typename", "Article:2.id", "Article:2.title",
                              "Article:2.body", "Article:2.__typename", "QUERY_ROOT.feed(first:2)"};

/// A clock the tests move, shared with the Clock a cache holds.
struct TestClock {
    std::atomic<std::int64_t> now{start}; ///< the time answered
    std::atomic<int> calls{0};            ///< the questions asked
};

/// A Clock over `clock`, which must outlive the cache it is set on.
Clock clock_of(TestClock &clock)
{
    return [&clock] {
        ++clock.calls;
        return clock.now.load();
    };
}

/// A new cache (fast durability) with the feed schema, `configuration` when not empty,
/// and `clock` set.
Cache feed_cache(TestClock &clock, std::string_view configuration = {})
{
    Cache cache(fresh_path(), R"({"durability": "fast"})");
    cache.set_clock(clock_of(clock));
    cache.load_schema(feed_schema);
    if (!configuration.empty()) {
        cache.configure(configuration);
    }
    return cache;
}

/// The whole result normcache_read_ex gives for `data`, `missing`, `stale` and the times.
/// `missing_reports` and `stale_reports` are the same entries as the typed members give them.
FullReadResult result(ReadStatus status, const std::string &data, const std::string &missing,
                      const std::string &stale, std::optional<std::uint64_t> oldest,
                      std::optional<std::uint64_t> earliest, std::vector<FieldReport> missing_reports = {},
                      std::vector<FieldReport> stale_reports = {})
{
    const auto number = [](std::optional<std::uint64_t> time) { return time ? std::to_string(*time) : "null"; };
    return FullReadResult{status,
                          R"({"data":)" + data + R"(,"missing":)" + missing + R"(,"stale":)" + stale +
                              R"(,"oldestWrittenAt":)" + number(oldest) + R"(,"earliestExpiry":)" +
                              number(earliest) + "}",
                          oldest,
                          earliest,
                          std::move(missing_reports),
                          std::move(stale_reports)};
}

/// The stale entry of the body of article `index` (0 or 1), written at start, expired at `expired`.
std::string body_entry(int index, std::uint64_t expired)
{
    return R"({"path":["feed",)" + std::to_string(index) + R"(,"body"],"reason":"stale","record":"Article:)" +
           std::to_string(index + 1) + R"(","field":"body","writtenAt":784111777,"expiredAt":)" +
           std::to_string(expired) + "}";
}

/// body_entry as a typed report.
FieldReport body_report(std::size_t index, std::uint64_t expired)
{
    return FieldReport{{std::string("feed"), index, std::string("body")},
                       MissReason::stale,
                       "Article:" + std::to_string(index + 1),
                       std::string("body"),
                       start,
                       expired};
}

// ---------------------------------------------------------------------------
// Tests

/// The new types are plain values; Cache stays move-only and nothrow-movable.
void test_types()
{
    static_assert(std::is_nothrow_move_constructible_v<Cache>);
    static_assert(std::is_nothrow_move_assignable_v<Cache>);
    static_assert(std::is_nothrow_destructible_v<Cache>);
    static_assert(!std::is_copy_constructible_v<Cache>);
    static_assert(std::is_same_v<Clock, std::function<std::int64_t()>>);
    static_assert(std::is_same_v<decltype(WriteOptions::max_age), std::optional<std::uint32_t>>);
    static_assert(std::is_same_v<decltype(WriteOptions::cache_control), std::optional<std::string_view>>);
    static_assert(std::is_same_v<decltype(ReadOptions::max_stale), std::optional<std::uint64_t>>);
    static_assert(std::is_same_v<decltype(FullReadResult::json), std::string>);
    static_assert(std::is_same_v<decltype(WriteResult::changed), std::vector<std::string>>);
    static_assert(std::is_same_v<decltype(std::declval<Cache &>().invalidate("")), std::uint64_t>);
    static_assert(std::is_same_v<decltype(std::declval<Cache &>().invalidate_prefix("")), std::uint64_t>);
    static_assert(std::is_same_v<decltype(std::declval<Cache &>().read_result(std::declval<const Operation &>())),
                                 FullReadResult>);
    static_assert(std::is_same_v<decltype(std::declval<Cache &>().write(std::declval<const Operation &>(), "", "",
                                                                        WriteOptions{})),
                                 WriteResult>);
    // The write without options is unchanged.
    static_assert(std::is_same_v<decltype(std::declval<Cache &>().write(std::declval<const Operation &>(), "", {})),
                                 std::vector<std::string>>);
}

/// A max-age rule expires a field: complete, then stale within max_stale, then a miss;
/// partial data; the times; the plain read never returns stale data.
void test_read_result_with_a_rule()
{
    TestClock clock;
    Cache cache = feed_cache(clock, R"({"maxAges": {"Article.body": 30}})");
    const Operation feed = cache.prepare(feed_query);
    CHECK_EQ(cache.write(feed, feed_response), feed_changed);

    clock.now = start + 29;
    CHECK_EQ(cache.read_result(feed), result(ReadStatus::complete, feed_data, "[]", "[]", start, start + 30));
    clock.now = start + 40;
    const std::string bodies = "[" + body_entry(0, start + 30) + "," + body_entry(1, start + 30) + "]";
    const std::vector<FieldReport> body_reports{body_report(0, start + 30), body_report(1, start + 30)};
    CHECK_EQ(cache.read_result(feed, "", ReadOptions{false, 10}),
             result(ReadStatus::stale, feed_data, "[]", bodies, start, start + 30, {}, body_reports));
    CHECK_EQ(cache.read_result(feed, "", ReadOptions{false, 9}),
             result(ReadStatus::miss, "null", bodies, "[]", start, start + 30, body_reports));
    CHECK_EQ(cache.read_result(feed, "", ReadOptions{true, std::nullopt}),
             result(ReadStatus::miss,
                    R"({"feed":[{"id":"1","title":"One","body":null},{"id":"2","title":"Two","body":null}]})", bodies,
                    "[]", start, start + 30, body_reports));
    // Any staleness: a max_stale beyond int64_t is read as its largest value.
    CHECK_EQ(cache.read_result(feed, {}, ReadOptions{false, std::numeric_limits<std::uint64_t>::max()}).status,
             ReadStatus::stale);
    CHECK_EQ(cache.read(feed), (NormCache::ReadResult{false, R"({"data":null,"missing":)" + bodies + "}"}));
}

/// A fragment at a key: complete, stale, and an absent record (no times).
void test_read_result_of_a_fragment()
{
    TestClock clock;
    Cache cache = feed_cache(clock, R"({"maxAges": {"Article.body": 30}})");
    const Operation feed = cache.prepare(feed_query);
    const Operation parts = cache.prepare("fragment Parts on Article { title body }");
    cache.write(feed, feed_response);

    CHECK_EQ(cache.read_result(parts, {}, {}, std::string_view("Article:1")),
             result(ReadStatus::complete, R"({"title":"One","body":"B1"})", "[]", "[]", start, start + 30));
    clock.now = start + 30;
    CHECK_EQ(cache.read_result(parts, {}, ReadOptions{false, 0}, std::string_view("Article:2")),
             result(ReadStatus::stale, R"({"title":"Two","body":"B2"})", "[]",
                    R"([{"path":["body"],"reason":"stale","record":"Article:2","field":"body",)"
                    R"("writtenAt":784111777,"expiredAt":784111807}])",
                    start, start + 30, {},
                    {FieldReport{{std::string("body")}, MissReason::stale, "Article:2", std::string("body"), start, start + 30}}));
    CHECK_EQ(cache.read_result(parts, {}, {}, std::string_view("Article:9")),
             result(ReadStatus::miss, "null", R"([{"path":[],"reason":"absent","record":"Article:9"}])", "[]",
                    std::nullopt, std::nullopt,
                    {FieldReport{{}, MissReason::absent, "Article:9", std::nullopt, std::nullopt, std::nullopt}}));

    CHECK_THROWS_EXACT(cache.read_result(parts), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "'Parts' is a fragment, not an operation: read or write it at a record key (a fragment read or write)");
    CHECK_THROWS_EXACT(cache.read_result(feed, {}, {}, std::string_view("Article:1")),
                       NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "'Feed' is an operation, not a fragment: read it without a record key (an operation read)");
    // A key given as an empty view is a key, not an operation read: refused.
    CHECK_THROWS_EXACT(cache.read_result(parts, {}, {}, std::string_view()), NormCache::InvalidArgumentError,
                       NORMCACHE_EINVAL, "empty record key");
    CHECK_THROWS_EXACT(cache.read_result(parts, {}, {}, std::string_view("A:\xff")),
                       NormCache::InvalidArgumentError, NORMCACHE_EINVAL, "key is not valid UTF-8");
    CHECK_THROWS_WITH(cache.read_result(feed, "[]"), NormCache::JSONError, NORMCACHE_EJSON,
                      "variables must be a JSON object");
}

/// WriteOptions: max_age, the server's headers (the lower wins), no-cache, and no-store,
/// which stores nothing and says so.
/// put and write_fragment with WriteOptions stamp the fields they carry, follow the
/// server's headers, store nothing with no-store, and throw on bad headers, changing nothing.
void test_put_and_write_fragment_with_options()
{
    TestClock clock;
    Cache cache = feed_cache(clock);
    const Operation parts = cache.prepare("fragment Parts on Article { title body }");
    const Operation title = cache.prepare("fragment Title on Article { title }");
    CHECK_EQ(cache.put(R"({"Article:1": {"title": "One", "body": "B"}})"), (Strings{"Article:1.title", "Article:1.body"}));
    clock.now = start + 10;
    CHECK_EQ(cache.put(R"({"Article:1": {"title": "Uno"}})", WriteOptions{60, {}, {}, {}, {}}),
             (WriteResult{true, {"Article:1.title"}, 0}));
    CHECK_EQ(cache.read_result(parts, "", ReadOptions{}, "Article:1"),
             result(ReadStatus::complete, R"({"title":"Uno","body":"B"})", "[]", "[]", start, start + 70));
    CHECK_EQ(cache.put(R"({"Article:1": {"title": "Un"}})", WriteOptions{{}, "max-age=600", "100", {}, {}}),
             (WriteResult{true, {"Article:1.title"}, 0}));
    CHECK_EQ(cache.read_result(parts, "", ReadOptions{}, "Article:1").earliest_expiry, start + 510);
    CHECK_EQ(cache.put("not json", WriteOptions{{}, "no-store", {}, {}, {}}), (WriteResult{false, {}, 0}));
    CHECK_THROWS_EXACT(cache.put(R"({"Article:1": {"title": "Dos"}})", WriteOptions{{}, "max-age=abc", {}, {}, {}}),
                       NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "Cache-Control: malformed max-age at byte 8 ('max-age=abc'): it needs a whole number of seconds");

    clock.now = start + 20;
    CHECK_EQ(cache.write_fragment(title, "Article:1", R"({"title": "Tres"})", "", WriteOptions{30, {}, {}, {}, {}}),
             (WriteResult{true, {"Article:1.title"}, 0}));
    CHECK_EQ(cache.read_result(parts, "", ReadOptions{}, "Article:1"),
             result(ReadStatus::complete, R"({"title":"Tres","body":"B"})", "[]", "[]", start, start + 50));
    CHECK_EQ(cache.write_fragment(title, "Article:1", R"({"title": 5)", "", WriteOptions{{}, "no-store", {}, {}, {}}),
             (WriteResult{false, {}, 0}));
    CHECK_THROWS_EXACT(cache.write_fragment(title, "Article:1", R"({"title": "Cuatro"})", "",
                                            WriteOptions{{}, {}, "soon", {}, {}}),
                       NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "Age: malformed value at byte 0 ('soon'): it needs a whole number of seconds");
    CHECK_EQ(cache.get("Article:1"), std::optional<std::string>(R"({"body":"B","title":"Tres"})"));
}

void test_write_with_options()
{
    struct Case {
        WriteOptions options;
        std::optional<std::uint64_t> expiry; ///< seconds after start, or nullopt for never
    };
    const Case cases[] = {
        {WriteOptions{300, std::nullopt, std::nullopt, std::nullopt, std::nullopt}, 300},
        {WriteOptions{std::nullopt, "public, max-age=600", "100", std::nullopt, std::nullopt}, 500},
        {WriteOptions{std::nullopt, "max-age=600", "100", "Sun, 06 Nov 1994 08:46:17 GMT", std::nullopt}, 400},
        {WriteOptions{std::nullopt, std::nullopt, std::nullopt, "Sun, 06 Nov 1994 08:49:37 GMT",
                      "Sun, 06 Nov 1994 09:49:37 GMT"},
         3600},
        {WriteOptions{60, "max-age=600", std::nullopt, std::nullopt, std::nullopt}, 60},
        {WriteOptions{std::nullopt, "private", std::nullopt, std::nullopt, std::nullopt}, std::nullopt},
        // A header given as an empty view (even one without data) counts as absent.
        {WriteOptions{std::nullopt, std::string_view(), std::string_view(""), std::nullopt, std::nullopt},
         std::nullopt},
        {WriteOptions{}, std::nullopt},
    };
    for (const Case &each : cases) {
        TestClock clock;
        Cache cache = feed_cache(clock);
        const Operation feed = cache.prepare(feed_query);
        CHECK_EQ(cache.write(feed, feed_response, "", each.options), (WriteResult{true, feed_changed}));
        const std::optional<std::uint64_t> expiry =
            each.expiry ? std::optional<std::uint64_t>(start + *each.expiry) : std::nullopt;
        CHECK_EQ(cache.read_result(feed), result(ReadStatus::complete, feed_data, "[]", "[]", start, expiry));
    }

    TestClock clock;
    Cache cache = feed_cache(clock);
    const Operation feed = cache.prepare(feed_query);
    // no-cache: stored, stale at once.
    CHECK_EQ(cache.write(feed, feed_response, "{}", WriteOptions{std::nullopt, "no-cache", {}, {}, {}}),
             (WriteResult{true, feed_changed}));
    CHECK_EQ(cache.read_result(feed, "", ReadOptions{false, 0}).status, ReadStatus::stale);
    CHECK_EQ(cache.read_result(feed).status, ReadStatus::miss);
    cache.clear();
    // no-store: nothing written, nothing normalized.
    const WriteOptions no_store{60, "no-store, max-age=60", {}, {}, {}};
    CHECK_EQ(cache.write(feed, feed_response, "", no_store), (WriteResult{false, {}}));
    CHECK_EQ(cache.write(feed, R"({"data": 5})", "", no_store), (WriteResult{false, {}}));
    CHECK_EQ(cache.search(""), Strings{});
}

/// Bad write options: InvalidArgumentError with the library's exact message; nothing written.
void test_bad_write_options()
{
    TestClock clock;
    Cache cache = feed_cache(clock);
    const Operation feed = cache.prepare(feed_query);
    const std::pair<WriteOptions, const char *> cases[] = {
        {WriteOptions{2147483648u, {}, {}, {}, {}},
         "options->max_age is 2147483648: seconds from 0 to 2147483647, or -1 for none"},
        {WriteOptions{std::numeric_limits<std::uint32_t>::max(), {}, {}, {}, {}},
         "options->max_age is 4294967295: seconds from 0 to 2147483647, or -1 for none"},
        {WriteOptions{{}, "max-age=abc", {}, {}, {}},
         "Cache-Control: malformed max-age at byte 8 ('max-age=abc'): it needs a whole number of seconds"},
        {WriteOptions{{}, "no-store, max-age=", {}, {}, {}},
         "Cache-Control: malformed max-age at byte 18 ('max-age='): it needs a whole number of seconds"},
        {WriteOptions{{}, {}, "abc", {}, {}},
         "Age: malformed value at byte 0 ('abc'): it needs a whole number of seconds"},
        {WriteOptions{{}, {}, {}, "yesterday", {}},
         "Date: malformed HTTP date at byte 0 ('yesterday'): a date is written as 'Sun, 06 Nov 1994 08:49:37 GMT'"},
        {WriteOptions{{}, "max-age=\xff", {}, {}, {}}, "options->cache_control is not valid UTF-8"},
    };
    for (const auto &[options, message] : cases) {
        CHECK_THROWS_EXACT(cache.write(feed, feed_response, "", options), NormCache::InvalidArgumentError,
                           NORMCACHE_EINVAL, message);
        CHECK_EQ(cache.search(""), Strings{});
    }
    // The max_age limit itself is accepted.
    CHECK_EQ(cache.write(feed, feed_response, "", WriteOptions{2147483647u, {}, {}, {}, {}}).stored, true);
    CHECK_EQ(cache.read_result(feed).earliest_expiry, std::optional<std::uint64_t>(start + 2147483647));
}

/// invalidate (a field, a record) and invalidate_prefix: counts, the reason a read gives,
/// stale data for a read that allows it, 0 for absent keys, the refused arguments.
void test_invalidate()
{
    TestClock clock;
    clock.now = 1700000000;
    Cache cache(fresh_path());
    cache.set_clock(clock_of(clock));
    cache.put(R"({"QUERY_ROOT": {"pets": [{"$reference": "Pet:1"}, {"$reference": "Pet:2"}]},)"
              R"( "Pet:1": {"name": "Rex", "age": 3}, "Pet:2": {"name": "Tom", "age": 5}})");
    const Operation pets = cache.prepare("{ pets { name age } }");
    const std::string data = R"({"pets":[{"name":"Rex","age":3},{"name":"Tom","age":5}]})";

    clock.now = 1700000010;
    CHECK_EQ(cache.invalidate("Pet:1", std::string_view("age")), std::uint64_t{1});
    const std::string age = R"([{"path":["pets",0,"age"],"reason":"invalidated","record":"Pet:1","field":"age",)"
                            R"("writtenAt":1700000000,"expiredAt":1700000010}])";
    const std::vector<FieldReport> age_report{
        {{std::string("pets"), std::size_t{0}, std::string("age")}, MissReason::invalidated, "Pet:1", std::string("age"), 1700000000, 1700000010}};
    CHECK_EQ(cache.read_result(pets), result(ReadStatus::miss, "null", age, "[]", 1700000000, 1700000010, age_report));
    CHECK_EQ(cache.read_result(pets, "", ReadOptions{false, 0}),
             result(ReadStatus::stale, data, "[]", age, 1700000000, 1700000010, {}, age_report));
    CHECK_EQ(cache.get("Pet:1"), std::optional<std::string>(R"({"age":3,"name":"Rex"})"));

    CHECK_EQ(cache.invalidate("Pet:2"), std::uint64_t{2});
    CHECK_EQ(cache.invalidate_prefix("Pet:"), std::uint64_t{4});
    CHECK_EQ(cache.invalidate("Pet:9"), std::uint64_t{0});
    CHECK_EQ(cache.invalidate("Pet:1", std::string_view("colour")), std::uint64_t{0});
    CHECK_EQ(cache.invalidate_prefix("Cat:"), std::uint64_t{0});
    // A write makes the data fresh again, without reporting a change.
    CHECK_EQ(cache.put(R"({"Pet:1": {"name": "Rex", "age": 3}, "Pet:2": {"name": "Tom", "age": 5}})"), Strings{});
    CHECK_EQ(cache.read_result(pets).status, ReadStatus::complete);

    CHECK_THROWS_EXACT(cache.invalidate(""), NormCache::InvalidArgumentError, NORMCACHE_EINVAL, "empty record key");
    CHECK_THROWS_EXACT(cache.invalidate("Pet:1", std::string_view("")), NormCache::InvalidArgumentError,
                       NORMCACHE_EINVAL, "empty field key");
    CHECK_THROWS_EXACT(cache.invalidate("Pet:1", std::string_view()), NormCache::InvalidArgumentError,
                       NORMCACHE_EINVAL, "empty field key");
    CHECK_THROWS_EXACT(cache.invalidate_prefix(""), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "empty prefix");
    CHECK_THROWS_EXACT(cache.invalidate("Pet:\xff"), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "record key is not valid UTF-8");
    CHECK_EQ(cache.read_result(pets).status, ReadStatus::complete);

    // Read-only: refused, whether or not the record exists.
    const std::string path = fresh_path();
    {
        Cache writer(path);
        writer.put(R"({"Pet:1": {"name": "Rex"}})");
    }
    Cache reader(path, R"({"read_only": true})");
    CHECK_THROWS(reader.invalidate("Pet:1"), NormCache::ReadOnlyError, NORMCACHE_EREADONLY);
    CHECK_THROWS(reader.invalidate("Pet:9"), NormCache::ReadOnlyError, NORMCACHE_EREADONLY);
    CHECK_THROWS(reader.invalidate_prefix("Pet:"), NormCache::ReadOnlyError, NORMCACHE_EREADONLY);
}

/// A clock that answers below 0, or throws, fails the call with CallbackError; the
/// reason of a throwing clock is in the message; nothing is written.
void test_failing_clocks()
{
    TestClock clock;
    Cache cache = feed_cache(clock);
    const Operation feed = cache.prepare(feed_query);

    clock.now = -5;
    CHECK_THROWS_EXACT(cache.write(feed, feed_response), NormCache::CallbackError, NORMCACHE_ECALLBACK,
                       "the cache's clock answered -5: a clock answers seconds since 1970, not below 0");
    CHECK_EQ(cache.search(""), Strings{});

    cache.set_clock([]() -> std::int64_t { throw std::runtime_error("the clock is broken"); });
    CHECK_THROWS_EXACT(cache.write(feed, feed_response), NormCache::CallbackError, NORMCACHE_ECALLBACK,
                       "the cache's clock failed: the clock is broken");
    CHECK_THROWS_EXACT(cache.write(feed, feed_response, "", WriteOptions{60, {}, {}, {}, {}}),
                       NormCache::CallbackError, NORMCACHE_ECALLBACK, "the cache's clock failed: the clock is broken");
    CHECK_THROWS_EXACT(cache.read_result(feed), NormCache::CallbackError, NORMCACHE_ECALLBACK,
                       "the cache's clock failed: the clock is broken");
    CHECK_THROWS_EXACT(cache.invalidate_prefix("Article:"), NormCache::CallbackError, NORMCACHE_ECALLBACK,
                       "the cache's clock failed: the clock is broken");
    CHECK_EQ(cache.search(""), Strings{});

    cache.set_clock([]() -> std::int64_t { throw 42; });
    CHECK_THROWS_EXACT(cache.put(R"({"A:1": {"a": 1}})"), NormCache::CallbackError, NORMCACHE_ECALLBACK,
                       "the cache's clock failed: an exception that is not a std::exception");
    CHECK_EQ(cache.search(""), Strings{});

    // A clock that answers -1 without throwing keeps the library's message, also right
    // after one that threw (the reason is not carried over).
    cache.set_clock([]() -> std::int64_t { throw std::runtime_error("once"); });
    CHECK_THROWS(cache.read(feed), NormCache::CallbackError, NORMCACHE_ECALLBACK);
    cache.set_clock([] { return std::int64_t{-1}; });
    CHECK_THROWS_EXACT(cache.read(feed), NormCache::CallbackError, NORMCACHE_ECALLBACK,
                       "the cache's clock answered -1: a clock answers seconds since 1970, not below 0");

    // A key resolver's failure is not taken for the clock's.
    cache.set_clock(clock_of(clock));
    clock.now = start;
    cache.set_key_resolver([](auto, const NormCache::ObjectView &) -> std::optional<NormCache::ResolvedKey> {
        throw std::runtime_error("no key");
    });
    const Operation keyed = cache.prepare(feed_query);
    CHECK_THROWS_EXACT(cache.write(keyed, feed_response), NormCache::CallbackError, NORMCACHE_ECALLBACK,
                       "the key resolver failed at feed.0: no key");
}

/// A Clock answering `time` that holds `token`.
Clock holding(std::int64_t time, std::shared_ptr<Token> token)
{
    return [time, token = std::move(token)] { return time; };
}

/// The binding keeps every Clock set on a cache until the cache is closed: a replaced one
/// too (a call on another thread may still be in it); a moved Cache hands them over; a
/// move-assignment over a Cache closes it and then drops its clocks.
void test_clock_lifetime()
{
    int first = 0;
    int second = 0;
    Cache cache(fresh_path());
    const Operation op = cache.prepare("{ a }");
    cache.set_clock(holding(1000, std::make_shared<Token>(&first)));
    cache.write(op, R"({"data": {"a": 1}})");
    CHECK_EQ(cache.read_result(op).oldest_written_at, std::optional<std::uint64_t>(1000));
    cache.set_clock(holding(2000, std::make_shared<Token>(&second)));
    cache.write(op, R"({"data": {"a": 1}})");
    CHECK_EQ(cache.read_result(op).oldest_written_at, std::optional<std::uint64_t>(2000));
    CHECK_EQ(first, 0);
    cache.set_clock(nullptr); // the system clock; the functions are still kept
    CHECK_EQ(first + second, 0);

    Cache moved(std::move(cache));
    CHECK(!cache.is_open());
    CHECK_EQ(first + second, 0);
    moved.set_clock(holding(3000, nullptr));
    moved.write(op, R"({"data": {"a": 1}})");
    CHECK_EQ(moved.read_result(op).oldest_written_at, std::optional<std::uint64_t>(3000));
    moved.close();
    CHECK_EQ(first, 1);
    CHECK_EQ(second, 1);
    moved.close(); // closed already: nothing happens
    CHECK_EQ(first, 1);

    int assigned = 0;
    int destroyed = 0;
    {
        Cache target(fresh_path());
        target.set_clock(holding(1, std::make_shared<Token>(&assigned)));
        Cache source(fresh_path());
        source.set_clock(holding(2, std::make_shared<Token>(&destroyed)));
        target = std::move(source);
        CHECK_EQ(assigned, 1);
        CHECK_EQ(destroyed, 0);
        target.write(op, R"({"data": {"a": 1}})");
        CHECK_EQ(target.read_result(op).oldest_written_at, std::optional<std::uint64_t>(2));
    }
    CHECK_EQ(destroyed, 1);
}

/// The seconds of the system clock (CLOCK_REALTIME, the clock the cache stamps records with;
/// std::time reads the coarse clock, which can trail it past a second's boundary).
std::uint64_t system_seconds()
{
    const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count());
}

/// The system clock: before any set_clock, and after set_clock(nullptr) or an empty Clock.
void test_the_system_clock()
{
    TestClock clock;
    Cache cache(fresh_path());
    const Operation op = cache.prepare("{ a }");
    const auto written_now = [&] {
        const std::uint64_t before = system_seconds();
        cache.write(op, R"({"data": {"a": 1}})");
        const std::uint64_t after = system_seconds();
        const std::optional<std::uint64_t> written = cache.read_result(op).oldest_written_at;
        return written && *written >= before && *written <= after;
    };
    CHECK(written_now());
    cache.set_clock(clock_of(clock));
    cache.write(op, R"({"data": {"a": 2}})");
    CHECK_EQ(cache.read_result(op).oldest_written_at, std::optional<std::uint64_t>(start));
    cache.set_clock(nullptr);
    CHECK(written_now());
    cache.set_clock(clock_of(clock));
    cache.set_clock(Clock());
    const int calls = clock.calls;
    CHECK(written_now());
    CHECK_EQ(clock.calls.load(), calls);
}

/// A C clock and the caller's context, as the C interface takes them; null removes it.
std::int64_t c_clock(void *context) { return *static_cast<const std::int64_t *>(context); }

void test_a_c_clock()
{
    std::int64_t now = 123456;
    Cache cache(fresh_path());
    const Operation op = cache.prepare("{ a }");
    cache.set_clock(c_clock, &now);
    cache.write(op, R"({"data": {"a": 1}})");
    now = 123460;
    CHECK_EQ(cache.read_result(op), result(ReadStatus::complete, R"({"a":1})", "[]", "[]", 123456, std::nullopt));
    now = -2;
    CHECK_THROWS_EXACT(cache.read_result(op), NormCache::CallbackError, NORMCACHE_ECALLBACK,
                       "the cache's clock answered -2: a clock answers seconds since 1970, not below 0");
    cache.set_clock(nullptr, nullptr);
    CHECK_EQ(cache.read_result(op).status, ReadStatus::complete);
}

/// Several threads read and invalidate at once through one Clock.
void test_threads()
{
    TestClock clock;
    Cache cache = feed_cache(clock, R"({"maxAges": {"Article.body": 30}})");
    const Operation feed = cache.prepare(feed_query);
    cache.write(feed, feed_response);
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 50; ++i) {
                const FullReadResult read = cache.read_result(feed, "", ReadOptions{false, 1000000});
                if (read.status == ReadStatus::miss || read.oldest_written_at != std::optional<std::uint64_t>(start)) {
                    ++wrong;
                }
                if (t == 0 && i % 10 == 0) {
                    cache.invalidate("Article:1", std::string_view("title"));
                }
            }
        });
    }
    for (std::thread &thread : threads) {
        thread.join();
    }
    CHECK_EQ(wrong.load(), 0);
    CHECK(clock.calls.load() >= 200);
}

/// A closed cache: ClosedError from every new method, before the library is called.
void test_closed()
{
    TestClock clock;
    Cache cache = feed_cache(clock);
    const Operation feed = cache.prepare(feed_query);
    cache.close();
    const char *const closed = "the cache is closed";
    CHECK_THROWS_EXACT(cache.set_clock(clock_of(clock)), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.set_clock(nullptr), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.set_clock(c_clock, nullptr), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.write(feed, feed_response, "", WriteOptions{}), NormCache::ClosedError,
                       NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.read_result(feed), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.invalidate("A:1"), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.invalidate_prefix("A:"), NormCache::ClosedError, NORMCACHE_EINVAL, closed);

    // An empty Operation.
    Cache open(fresh_path());
    const Operation empty;
    CHECK_THROWS_EXACT(open.read_result(empty), NormCache::ClosedError, NORMCACHE_EINVAL, "the operation is closed");
    CHECK_THROWS_EXACT(open.write(empty, feed_response, "", WriteOptions{}), NormCache::ClosedError,
                       NORMCACHE_EINVAL, "the operation is closed");

    // A handle closed behind the binding's back: the library refuses the Clock, which
    // it never holds (the binding destroys it).
    Cache behind(fresh_path());
    CHECK_EQ(normcache_close(behind.native_handle()), NORMCACHE_OK);
    CHECK_THROWS_EXACT(behind.set_clock(clock_of(clock)), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "the cache handle is closed or was never opened");
}

} // namespace

int main()
{
    test_types();
    test_read_result_with_a_rule();
    test_read_result_of_a_fragment();
    test_write_with_options();
    test_put_and_write_fragment_with_options();
    test_bad_write_options();
    test_invalidate();
    test_failing_clocks();
    test_clock_lifetime();
    test_the_system_clock();
    test_a_c_clock();
    test_threads();
    test_closed();
    return 0;
}
