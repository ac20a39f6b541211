// test_cpp_gc.cpp — garbage collection through the C++17 binding: gc with GCOptions (the
// JSON report, a dry run, stale fields after a grace, dangling references), retain and
// release, and the exception of each failure.

#include "test_support.hpp"

#include <atomic>
#include <string>

namespace {

using NormCache::Cache;
using NormCache::GCOptions;
using test_support::fail;
using test_support::fresh_path;
using test_support::show;

/** The report without "mark_set_bytes" and "elapsed_us", which vary. */
std::string counts(const std::string &report) { return report.substr(0, report.find(",\"mark_set_bytes\"")); }

void test_gc()
{
    std::atomic<std::int64_t> now{1700000000};
    Cache cache(fresh_path());
    cache.set_clock([&now] { return now.load(); });
    cache.put(R"({"QUERY_ROOT": {"book": {"$reference": "Book:1"}, "gone": {"$reference": "Book:9"}, "n": 1},)"
              R"( "Book:1": {"t": 1}, "Book:2": {"t": 2}})");
    NormCache::WriteOptions short_lived;
    short_lived.max_age = 10;
    cache.put(R"({"Book:1": {"price": 3}})", short_lived);
    now = 1700000030;
    GCOptions options;
    options.dry_run = true;
    options.stale_grace = 20;
    options.dangling = true;
    CHECK_EQ(counts(cache.gc(options)),
             std::string(R"({"dry_run":true,"removed_records":1,"unreachable_records":1,"emptied_records":0,)"
                         R"("removed_fields":2,"stale_fields":1,"dangling_fields":1,"kept_records":2,)"
                         R"("groups":{"Book:":{"records":1,"fields":1},"QUERY_ROOT":{"records":0,"fields":1}})"));
    CHECK_EQ(cache.get("Book:2"), std::optional<std::string>(R"({"t":2})"));
    options.dry_run = false;
    CHECK_EQ(counts(cache.gc(options)).substr(0, 29), std::string(R"({"dry_run":false,"removed_rec)"));
    CHECK_EQ(cache.get("Book:2"), std::optional<std::string>());
    CHECK_EQ(cache.get("Book:1"), std::optional<std::string>(R"({"t":1})"));
    CHECK_EQ(cache.get("QUERY_ROOT"), std::optional<std::string>(R"({"book":{"$reference":"Book:1"},"n":1})"));
    options.stale_grace = -1;
    CHECK_THROWS_WITH(cache.gc(options), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                      "options->stale_grace is -2: seconds, or -1 to keep stale fields");
}

void test_retain_and_release()
{
    Cache cache(fresh_path());
    cache.put(R"({"Draft:1": {"n": 1}})");
    CHECK_EQ(cache.retain("Draft:1"), std::uint32_t{1});
    CHECK_EQ(cache.retain("Draft:1"), std::uint32_t{2});
    CHECK_EQ(counts(cache.gc()).substr(0, 38), std::string(R"({"dry_run":false,"removed_records":0,")"));
    CHECK_EQ(cache.release("Draft:1"), std::uint32_t{1});
    CHECK_EQ(cache.release("Draft:1"), std::uint32_t{0});
    CHECK_THROWS_WITH(cache.release("Draft:1"), NormCache::InvalidArgumentError, NORMCACHE_EINVAL, "'Draft:1' is not retained");
    CHECK_EQ(counts(cache.gc()).substr(0, 38), std::string(R"({"dry_run":false,"removed_records":1,")"));
    cache.close();
    CHECK_THROWS_WITH(cache.retain("Draft:1"), NormCache::ClosedError, NORMCACHE_EINVAL, "closed");
}

} // namespace

int main()
{
    test_gc();
    test_retain_and_release();
    return 0;
}
