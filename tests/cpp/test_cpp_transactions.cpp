// test_cpp_transactions.cpp — NormCache::Transaction and Cache::begin/commit/rollback:
// a committed scope, a scope left by an exception (the destructor rolls back), a call
// that fails alone, and misuse, with exact exceptions and messages.
#include "test_support.hpp"

#include <stdexcept>
#include <thread>

using namespace test_support;

namespace {

std::vector<std::string> keys_on_thread(NormCache::Cache &cache)
{
    std::vector<std::string> keys;
    std::thread reader([&] { keys = cache.search(""); });
    reader.join();
    return keys;
}

void committed_scope()
{
    NormCache::Cache cache(fresh_path());
    cache.put(R"({"Gone:1": {"v": 1}, "Keep:1": {"a": 1}})");
    {
        NormCache::Transaction tx(cache);
        CHECK_EQ(cache.put(R"({"New:1": {"x": true}})"), (Strings{"New:1.x"}));
        CHECK(cache.remove("Gone:1"));
        CHECK_EQ(cache.search(""), (Strings{"Keep:1", "New:1"}));
        CHECK_EQ(keys_on_thread(cache), (Strings{"Gone:1", "Keep:1"}));
        tx.commit();
    }
    CHECK_EQ(keys_on_thread(cache), (Strings{"Keep:1", "New:1"}));
}

void destructor_rolls_back()
{
    NormCache::Cache cache(fresh_path());
    cache.put(R"({"A:1": {"v": 1}})");
    try {
        NormCache::Transaction tx(cache);
        cache.put(R"({"B:1": {"v": 1}})");
        cache.clear();
        CHECK_EQ(cache.search(""), Strings{});
        throw std::runtime_error("stop");
    } catch (const std::runtime_error &error) {
        CHECK_EQ(std::string(error.what()), std::string("stop"));
    }
    CHECK_EQ(cache.search(""), (Strings{"A:1"}));
    {
        NormCache::Transaction tx(cache);
        cache.put(R"({"C:1": {"v": 1}})");
    } // neither committed nor rolled back: the destructor rolls back
    CHECK_EQ(cache.search(""), (Strings{"A:1"}));
}

void failing_call_fails_alone()
{
    NormCache::Cache cache(fresh_path());
    NormCache::Transaction tx(cache);
    cache.put(R"({"B:1": {"v": 1}})");
    CHECK_THROWS(cache.put(R"({"C:1": {"v": 1}, "D:1": {"v": }})"), NormCache::JSONError, NORMCACHE_EJSON);
    cache.put(R"({"E:1": {"v": 1}})");
    tx.commit();
    CHECK_EQ(cache.search(""), (Strings{"B:1", "E:1"}));
}

void misuse()
{
    const std::string path = fresh_path();
    NormCache::Cache cache(path);
    CHECK_THROWS_EXACT(cache.commit(), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "no transaction to commit: none is open on the cache '" + path +
                           "' in this thread (a transaction belongs to the thread that began it)");
    NormCache::Transaction tx(cache);
    CHECK_THROWS_EXACT(NormCache::Transaction nested(cache), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "a transaction is already open on the cache '" + path +
                           "' in this thread; transactions do not nest");
    tx.rollback();
    CHECK_THROWS_WITH(tx.commit(), NormCache::InvalidArgumentError, NORMCACHE_EINVAL, "no transaction to commit: ");
}

} // namespace

int main()
{
    committed_scope();
    destructor_rolls_back();
    failing_call_fails_alone();
    misuse();
    return 0;
}
