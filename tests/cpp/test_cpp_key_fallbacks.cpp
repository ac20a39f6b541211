// test_cpp_key_fallbacks.cpp — key fallbacks through the C++17 binding: an object of a
// keyed type that lacks its key fields is keyed by its path and counted (WriteResult's
// key_fallbacks from write, write_fragment and put, NormalizeResult's from
// normalize_result); WriteOptions::strict_keys and FetchReply::strict_keys make it a
// DataError with the exact message, and nothing is written.

#include "test_support.hpp"

namespace {

using NormCache::Cache;
using NormCache::FetchReply;
using NormCache::FetchRequest;
using NormCache::NormalizeResult;
using NormCache::Operation;
using NormCache::WriteOptions;
using NormCache::WriteResult;
using test_support::Strings;

using test_support::fail;
using test_support::fresh_path;
using test_support::show;

/// Shows a write result in a failure message.
std::string show(const WriteResult &result)
{
    return std::string(result.stored ? "stored " : "not stored ") + show(result.changed) + " key fallbacks " +
           std::to_string(result.key_fallbacks);
}

const char *const rules = R"({"typePolicies": {"Article": {"keyFields": ["id"]}, "Comment": {"keyFields": ["id"]}}})";

const char *const feed_query = "query Feed { feed(first: 3) { title } }";

/// The third article lacks its id.
const char *const feed_response =
    R"({"data": {"feed": [{"__typename": "Article", "id": "1", "title": "One"},)"
    R"( {"__typename": "Article", "id": "2", "title": "Two"}, {"__typename": "Article", "title": "Three"}]}})";

const std::string feed_records =
    R"x({"Article:1":{"title":"One","__typename":"Article","id":"1"},"Article:2":{"title":"Two","__typename":)x"
    R"x("Article","id":"2"},"QUERY_ROOT.feed(first:3).2":{"title":"Three","__typename":"Article"},"QUERY_ROOT":)x"
    R"x({"feed(first:3)":[{"$reference":"Article:1"},{"$reference":"Article:2"},)x"
    R"x({"$reference":"QUERY_ROOT.feed(first:3).2"}]}})x";

const char *const feed_error = "invalid response data at feed.2: Article lacks its key field 'id'; strict keys "
                               "refuse the fallback to its path key 'QUERY_ROOT.feed(first:3).2'";

/// A new cache with the rules.
Cache rules_cache()
{
    Cache cache(fresh_path(), R"({"durability": "fast"})");
    cache.configure(rules);
    return cache;
}

/// normalize_result and write count; strict keys throw DataError and write nothing.
void test_counted_and_refused()
{
    Cache cache = rules_cache();
    const Operation feed = cache.prepare(feed_query);
    const NormalizeResult normalized = Cache::normalize_result(feed, feed_response);
    CHECK_EQ(normalized.records, feed_records);
    CHECK_EQ(normalized.key_fallbacks, std::size_t{1});
    CHECK_THROWS_EXACT(Cache::normalize_result(feed, feed_response, "", true), NormCache::DataError, NORMCACHE_EDATA,
                       feed_error);

    WriteOptions strict;
    strict.strict_keys = true;
    CHECK_THROWS_EXACT(cache.write(feed, feed_response, "", strict), NormCache::DataError, NORMCACHE_EDATA, feed_error);
    CHECK_EQ(cache.search(""), Strings{});
    const WriteResult written = cache.write(feed, feed_response, "", WriteOptions{});
    CHECK_EQ(written.key_fallbacks, std::size_t{1});
    CHECK_EQ(written.changed.size(), std::size_t{9});
    CHECK_EQ(cache.search(""), (Strings{"Article:1", "Article:2", "QUERY_ROOT", "QUERY_ROOT.feed(first:3).2"}));
    CHECK_EQ(cache.put(R"({"QUERY_ROOT.feed(first:3).2": {"title": "3"}})", strict),
             (WriteResult{true, {"QUERY_ROOT.feed(first:3).2.title"}, 0}));
}

/// write_fragment counts the fallbacks below its key, and refuses them with strict keys.
void test_write_fragment()
{
    Cache cache = rules_cache();
    const Operation fragment = cache.prepare("fragment Thread on Article { title comments { text } }");
    const char *const data = R"({"title": "One", "comments": [{"__typename": "Comment", "id": "c1", "text": "a"},)"
                             R"( {"__typename": "Comment", "text": "b"}]})";
    WriteOptions strict;
    strict.strict_keys = true;
    CHECK_THROWS_EXACT(cache.write_fragment(fragment, "Article:1", data, "", strict), NormCache::DataError,
                       NORMCACHE_EDATA,
                       "invalid response data at comments.1: Comment lacks its key field 'id'; strict keys refuse the "
                       "fallback to its path key 'Article:1.comments.1'");
    CHECK_EQ(cache.search(""), Strings{});
    CHECK_EQ(cache.write_fragment(fragment, "Article:1", data, "", WriteOptions{}),
             (WriteResult{true,
                          {"Comment:c1.text", "Comment:c1.__typename", "Comment:c1.id", "Article:1.comments.1.text",
                           "Article:1.comments.1.__typename", "Article:1.title", "Article:1.comments"},
                          1}));
}

/// FetchReply::strict_keys fails execute with the write's DataError; nothing is written.
void test_a_strict_reply()
{
    Cache cache = rules_cache();
    const Operation feed = cache.prepare(feed_query);
    const NormCache::ExecuteOptions options(NormCache::Policy::network_only);
    const NormCache::Fetch fetch = [](const FetchRequest &) {
        FetchReply reply;
        reply.body = feed_response;
        reply.strict_keys = true;
        return reply;
    };
    CHECK_THROWS_EXACT(cache.execute(feed, "", options, fetch), NormCache::DataError, NORMCACHE_EDATA, feed_error);
    CHECK_EQ(cache.search(""), Strings{});
}

} // namespace

int main()
{
    test_counted_and_refused();
    test_write_fragment();
    test_a_strict_reply();
    return 0;
}
