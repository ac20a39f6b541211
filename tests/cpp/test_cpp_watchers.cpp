// test_cpp_watchers.cpp — watchers and the commit log through the C++17 binding: the
// first result at once and each different one after, nothing for unrelated writes, RAII
// (the destructor ends the watch), a callback that throws ends it and close() rethrows,
// last_commit / changes_since / wait_commit / dispatch_changes.

#include "test_support.hpp"

#include <chrono>
#include <stdexcept>
#include <utility>
#include <vector>

namespace {

using NormCache::Cache;
using NormCache::FullReadResult;
using NormCache::Operation;
using NormCache::ReadStatus;
using NormCache::Watcher;

using test_support::fail;
using test_support::fresh_path;
using test_support::show;

const char *const records =
    R"({"QUERY_ROOT": {"hero": {"$reference": "Droid:2001"}}, "Droid:2001": {"name": "R2-D2", "friends": [{"$reference": "Human:1000"}]},)"
    R"( "Human:1000": {"name": "Luke Skywalker"}})";

/** The data of the hero query with Luke's name `luke`. */
std::string hero(const std::string &luke)
{
    return R"({"data":{"hero":{"name":"R2-D2","friends":[{"name":")" + luke + R"("}]}},"missing":[],"stale":[],"oldestWrittenAt":)";
}

void test_results()
{
    Cache cache(fresh_path(), R"({"durability": "fast"})");
    cache.put(records);
    const Operation op = cache.prepare("{ hero { name friends { name } } }");
    std::vector<FullReadResult> got;
    {
        Watcher watcher = cache.watch(op, {}, [&](const FullReadResult &result) { got.push_back(result); });
        CHECK(watcher.is_active());
        CHECK_EQ(got.size(), std::size_t{1});
        CHECK(got[0].status == ReadStatus::complete);
        CHECK_EQ(got[0].json.substr(0, hero("Luke Skywalker").size()), hero("Luke Skywalker"));
        cache.put(R"({"Human:1000": {"name": "Luke"}})");
        cache.put(R"({"Human:1000": {"height": 1.72}, "Starship:3000": {"name": "Falcon"}})");
        CHECK_EQ(got.size(), std::size_t{2});
        CHECK_EQ(got[1].json.substr(0, hero("Luke").size()), hero("Luke"));
        Watcher moved = std::move(watcher);
        CHECK(!watcher.is_active());
        CHECK(moved.is_active());
        cache.remove("Human:1000");
        CHECK_EQ(got.size(), std::size_t{3});
        CHECK(got[2].status == ReadStatus::miss);
        CHECK_EQ(got[2].missing.size(), std::size_t{1});
        CHECK_EQ(got[2].missing[0].record, std::string("Human:1000"));
    }
    // The destructor ended the watch.
    cache.put(R"({"Human:1000": {"name": "Luke"}})");
    CHECK_EQ(got.size(), std::size_t{3});

    // A fragment at a key.
    const Operation fragment = cache.prepare("fragment H on Human { name }");
    std::vector<std::string> names;
    Watcher at = cache.watch(
        fragment, {}, [&](const FullReadResult &result) { names.push_back(result.json.substr(0, 26)); },
        std::string_view("Human:1000"));
    cache.put(R"({"Human:1000": {"name": "Luke S."}})");
    CHECK_EQ(names.size(), std::size_t{2});
    CHECK_EQ(names[1], std::string(R"({"data":{"name":"Luke S."})"));
    at.close();
    at.close();
}

void test_a_throwing_callback()
{
    Cache cache(fresh_path(), R"({"durability": "fast"})");
    cache.put(records);
    const Operation op = cache.prepare("{ hero { name } }");
    int calls = 0;
    Watcher watcher = cache.watch(op, {}, [&](const FullReadResult &) {
        if (++calls == 2) {
            throw std::runtime_error("the view is gone");
        }
    });
    cache.put(R"({"Droid:2001": {"name": "Artoo"}})");
    cache.put(R"({"Droid:2001": {"name": "R2"}})");
    CHECK_EQ(calls, 2);
    CHECK(!watcher.is_active());
    try {
        watcher.close();
        fail(__FILE__, __LINE__, "close() did not rethrow");
    } catch (const std::runtime_error &error) {
        CHECK_EQ(std::string(error.what()), std::string("the view is gone"));
    }
    watcher.close();
    CHECK_THROWS_WITH(cache.watch(op, {}, nullptr), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                      "the watch callback is empty");
    CHECK_THROWS_WITH(cache.watch(op, "{", [](const FullReadResult &) {}), NormCache::JSONError, NORMCACHE_EJSON, "");
}

void test_commit_log()
{
    Cache cache(fresh_path(), R"({"durability": "fast"})");
    const std::uint64_t before = cache.last_commit();
    cache.put(R"({"Pet:1": {"name": "Rex"}})");
    cache.put(R"({"Pet:1": {"name": "Tom"}})");
    CHECK_EQ(cache.last_commit(), before + 2);
    const std::string b1 = std::to_string(before + 1), b2 = std::to_string(before + 2);
    CHECK_EQ(cache.changes_since(before),
             R"({"through":)" + b2 + R"(,"complete":true,"commits":[{"commit":)" + b1 +
                 R"(,"fields":[],"records":["Pet:1"],"prefixes":[],"all":false},{"commit":)" + b2 +
                 R"(,"fields":["Pet:1.name"],"records":[],"prefixes":[],"all":false}]})");
    CHECK(!cache.wait_commit(before + 2, std::chrono::milliseconds(10)));
    CHECK_EQ(cache.wait_commit(before, std::chrono::milliseconds(0)).value_or(0), before + 2);
    CHECK_EQ(cache.dispatch_changes(), before + 2);
    CHECK_EQ(cache.metrics(), std::string(R"({"reads":0,"hits":0,"misses":0,"stale_reads":0,"writes":2,"changed_fields":2})"));
    CHECK_THROWS_WITH(cache.wait_commit(0, std::chrono::milliseconds(-1)), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                      "timeout out of range");
}

} // namespace

int main()
{
    test_results();
    test_a_throwing_callback();
    test_commit_log();
    return 0;
}
