// test_cpp_execute.cpp — fetching through the C++17 binding bindings/cpp/normcache.hpp:
// Cache::execute under each Policy with a Fetch that records its requests, the results
// on_result gets, ErrorPolicy, and what happens to exceptions: a FetchError is a failed
// network (cached data may stand in), any other exception thrown by the fetch or by
// on_result is rethrown as it was once the C call has returned, with nothing written by
// the fetch's call; replies that cannot be written; plain JSON documents (put_document,
// get_document, execute_document). Results are compared byte for byte.

#include "test_support.hpp"

#include <stdexcept>
#include <type_traits>
#include <utility>

namespace {

using NormCache::Cache;
using NormCache::ExecuteOptions;
using NormCache::ExecuteResult;
using NormCache::FetchReply;
using NormCache::FetchRequest;
using NormCache::Operation;
using NormCache::Policy;
using NormCache::ReadStatus;
using NormCache::Source;
using test_support::Strings;

using test_support::fail;
using test_support::fresh_path;
using test_support::show;

// ---------------------------------------------------------------------------
// Fixtures

constexpr std::int64_t start = 1700000000;

const char *const schema = "type Query { feed(first: Int): [Article] }\n"
                           "type Mutation { like(id: ID!): Article }\n"
                           "type Subscription { updates: Article }\n"
                           "type Article { id: ID! title: String likes: Int }\n"
                           "extend type Article @typePolicy(keyFields: \"id\")\n";

const char *const feed_query = "query Feed($n: Int) { feed(first: $n) { title } }";
const char *const variables = R"({"n": 2})";

const char *const feed_reply = R"({"data": {"feed": [{"__typename": "Article", "id": "1", "title": "One"}, )"
                               R"({"__typename": "Article", "id": "2", "title": "Two"}]}})";
const char *const uno_reply = R"({"data": {"feed": [{"__typename": "Article", "id": "1", "title": "Uno"}]}})";
const std::string feed_data = R"({"feed":[{"title":"One"},{"title":"Two"}]})";
const std::string uno_data = R"({"feed":[{"title":"Uno"}]})";

/// The whole result object of the library, its members given as JSON text.
std::string result_json(const std::string &source, const std::string &data, const std::string &written,
                        const std::string &expiry, const std::string &stale = "[]",
                        const std::string &fetch_error = "null", const std::string &errors = "null")
{
    return R"({"source":")" + source + R"(","data":)" + data + R"(,"missing":[],"stale":)" + stale +
           R"(,"oldestWrittenAt":)" + written + R"(,"earliestExpiry":)" + expiry + R"(,"errors":)" + errors +
           R"(,"fetchError":)" + fetch_error + "}";
}

/// Shows a result in a failure message: its JSON and the members taken from it.
std::string show(const ExecuteResult &result)
{
    return "{status " + std::to_string(static_cast<int>(result.status)) + ", source " +
           std::to_string(static_cast<int>(result.source)) + ", " + show(result.json) + ", written " +
           (result.oldest_written_at ? std::to_string(*result.oldest_written_at) : "nullopt") + ", expiry " +
           (result.earliest_expiry ? std::to_string(*result.earliest_expiry) : "nullopt") + ", errors " +
           show(result.errors) + ", fetch_error " + show(result.fetch_error) + "}";
}

/// Shows an optional time.
std::string show(const std::optional<std::uint64_t> &value) { return value ? std::to_string(*value) : "nullopt"; }

/// Shows a list of results.
std::string show(const std::vector<ExecuteResult> &results)
{
    std::string out = "[";
    for (const auto &result : results) {
        out += (out.size() > 1 ? ", " : "") + show(result);
    }
    return out + "]";
}

/// An ExecuteResult with every member given but its reports (none; a caller sets them).
ExecuteResult result(ReadStatus status, Source source, std::string json, std::optional<std::uint64_t> written,
                     std::optional<std::uint64_t> expiry, std::optional<std::string> errors = std::nullopt,
                     std::optional<std::string> fetch_error = std::nullopt)
{
    return ExecuteResult{status, source, std::move(json), written, expiry, std::move(errors), std::move(fetch_error), {}, {}};
}

/// A fresh network result of `data`, written at `written` and expiring at `expiry` (0: never).
ExecuteResult network(const std::string &data, std::uint64_t written, std::uint64_t expiry = 0)
{
    const std::optional<std::uint64_t> expires = expiry == 0 ? std::nullopt : std::optional<std::uint64_t>(expiry);
    return result(ReadStatus::complete, Source::network,
                  result_json("network", data, std::to_string(written), expires ? std::to_string(expiry) : "null"),
                  written, expires);
}

/// A fresh cached result of `data`.
ExecuteResult cached(const std::string &data, std::uint64_t written, std::uint64_t expiry = 0)
{
    ExecuteResult out = network(data, written, expiry);
    out.source = Source::cache;
    out.json = result_json("cache", data, std::to_string(written), expiry == 0 ? "null" : std::to_string(expiry));
    return out;
}

/// A network that answers `body` with `reply`'s headers, or throws `failure`, and records what it was asked.
struct Network {
    FetchReply reply;
    std::function<void()> failure; ///< when set, called (to throw) instead of answering
    std::vector<std::string> documents, names, variables, keys;

    explicit Network(std::string body) { reply.body = std::move(body); }

    /// The Fetch over this network.
    NormCache::Fetch fetch()
    {
        return [this](const FetchRequest &request) {
            documents.emplace_back(request.document);
            names.emplace_back(request.operation_name ? std::string(*request.operation_name) : "<none>");
            variables.emplace_back(request.variables_json);
            keys.emplace_back(request.key ? std::string(*request.key) : "<none>");
            if (failure) {
                failure();
            }
            return reply;
        };
    }
};

/// A cache with the schema and a clock at `now` the test moves, and the feed prepared.
struct FeedTest {
    std::int64_t now = start;
    Cache cache{fresh_path(), R"({"durability": "fast"})"};
    Operation feed;

    explicit FeedTest(std::string_view configuration = {})
    {
        cache.set_clock([this] { return now; });
        cache.load_schema(schema);
        if (!configuration.empty()) {
            cache.configure(configuration);
        }
        feed = cache.prepare(feed_query);
    }

    /// Runs the feed with `options` through `net`; returns the last result and checks it is the last delivered.
    std::pair<ExecuteResult, std::vector<ExecuteResult>> run(const ExecuteOptions &options, Network &net)
    {
        std::vector<ExecuteResult> all;
        ExecuteResult last = cache.execute(feed, variables, options, net.fetch(),
                                           [&all](const ExecuteResult &one) { all.push_back(one); });
        if (all.empty() || all.back() != last) {
            fail(__FILE__, __LINE__, "the last result " + show(last) + " is not the last delivered: " + show(all));
        }
        return {last, all};
    }

    /// The keys in the cache.
    Strings keys() { return cache.search(""); }
};

// ---------------------------------------------------------------------------
// The policies

/// The enums are the C values; ExecuteOptions' defaults are NULL options'.
void test_types()
{
    static_assert(static_cast<int>(Policy::cache_first) == NORMCACHE_CACHE_FIRST);
    static_assert(static_cast<int>(Policy::stale_while_revalidate) == NORMCACHE_STALE_WHILE_REVALIDATE);
    static_assert(static_cast<int>(NormCache::ErrorPolicy::all) == NORMCACHE_ERRORS_ALL);
    static_assert(std::is_base_of_v<NormCache::Error, NormCache::FetchError>);
    static_assert(std::is_base_of_v<NormCache::Error, NormCache::GraphQLError>);
    const ExecuteOptions options;
    CHECK(options.policy == Policy::cache_first && !options.max_stale &&
          options.error_policy == NormCache::ErrorPolicy::none);
    const NormCache::FetchError error("offline");
    CHECK_EQ(error.code(), NORMCACHE_EFETCH);
    CHECK_EQ(std::string(error.what()), std::string("offline"));
}

/// Cache-first: the network on a miss, then the cache until the data expires; the request is the operation's.
void test_cache_first()
{
    FeedTest test;
    Network net(feed_reply);
    net.reply.cache_control = "max-age=1800";
    CHECK_EQ(test.run({}, net).second, std::vector<ExecuteResult>{network(feed_data, start, start + 1800)});
    CHECK_EQ(net.documents, Strings{test.feed.document()});
    CHECK_EQ(net.names, Strings{"Feed"});
    CHECK_EQ(net.variables, Strings{variables});
    CHECK_EQ(net.keys, Strings{"<none>"});
    test.now = start + 1799;
    CHECK_EQ(test.run({}, net).second, std::vector<ExecuteResult>{cached(feed_data, start, start + 1800)});
    test.now = start + 1800;
    CHECK_EQ(test.run({}, net).first, network(feed_data, start + 1800, start + 3600));
    CHECK_EQ(net.documents.size(), std::size_t{2});
}

/// Cache-only: never the network; a miss is a result, and an empty fetch is fine.
void test_cache_only()
{
    FeedTest test;
    const ExecuteOptions cache_only{Policy::cache_only};
    const ExecuteResult missed = test.cache.execute(test.feed, variables, cache_only, {});
    ExecuteResult expected = result(ReadStatus::miss, Source::cache,
                                    R"({"source":"cache","data":null,"missing":[{"path":["feed"],"reason":"absent",)"
                                    R"x("record":"QUERY_ROOT","field":"feed(first:2)"}],"stale":[],)x"
                                    R"("oldestWrittenAt":null,"earliestExpiry":null,"errors":null,"fetchError":null})",
                                    std::nullopt, std::nullopt);
    expected.missing = {{{std::string("feed")},
                         NormCache::MissReason::absent,
                         "QUERY_ROOT",
                         std::string("feed(first:2)"),
                         std::nullopt,
                         std::nullopt}};
    CHECK_EQ(missed, expected);
    test.cache.write(test.feed, feed_reply, variables);
    CHECK_EQ(test.cache.execute(test.feed, variables, cache_only, {}), cached(feed_data, start));
}

/// Network-only writes; no-store does not, nor does a reply that says no-store.
void test_network_only_and_no_store()
{
    FeedTest test;
    Network net(uno_reply);
    CHECK_EQ(test.run({Policy::no_store}, net).first, network(uno_data, start));
    CHECK_EQ(test.keys(), Strings{});
    net.reply.cache_control = "private, no-store";
    CHECK_EQ(test.run({Policy::network_only}, net).first, network(uno_data, start));
    CHECK_EQ(test.keys(), Strings{});
    net.reply.cache_control.reset();
    CHECK_EQ(test.run({Policy::network_only}, net).first, network(uno_data, start));
    CHECK_EQ(test.cache.get("Article:1"), std::optional<std::string>(R"({"__typename":"Article","id":"1","title":"Uno"})"));
}

/// Network-first: a FetchError falls back to usable cached data with fetch_error; none: FetchError.
void test_network_first_and_fetch_errors()
{
    FeedTest test(R"({"maxAges": {"Query.feed": 60}})");
    Network net(feed_reply);
    net.failure = [] { throw NormCache::FetchError("connection refused"); };
    const ExecuteOptions fresh_only{Policy::network_first};
    CHECK_THROWS_EXACT(test.run(fresh_only, net), NormCache::FetchError, NORMCACHE_EFETCH, "connection refused");
    CHECK_EQ(test.keys(), Strings{});
    net.failure = nullptr;
    test.run(fresh_only, net);
    net.failure = [] { throw NormCache::FetchError("connection refused"); };
    test.now = start + 100;
    CHECK_THROWS_EXACT(test.run(fresh_only, net), NormCache::FetchError, NORMCACHE_EFETCH, "connection refused");
    const auto fallback = test.run({Policy::network_first, 40}, net);
    CHECK_EQ(fallback.second.size(), std::size_t{1});
    CHECK(fallback.first.status == ReadStatus::stale && fallback.first.source == Source::cache);
    CHECK_EQ(fallback.first.fetch_error, std::optional<std::string>("connection refused"));
    CHECK_EQ(fallback.first.oldest_written_at, std::optional<std::uint64_t>(start));
    CHECK_EQ(fallback.first.earliest_expiry, std::optional<std::uint64_t>(start + 60));
    CHECK(fallback.first.missing.empty());
    // The root field and the titles below it, which inherit its max age.
    const auto stale_at = [](std::vector<NormCache::PathSegment> path, const char *record, const char *field) {
        return NormCache::FieldReport{std::move(path), NormCache::MissReason::stale, record, std::string(field), start,
                                      start + 60};
    };
    CHECK((fallback.first.stale ==
           std::vector<NormCache::FieldReport>{
               stale_at({std::string("feed")}, "QUERY_ROOT", "feed(first:2)"),
               stale_at({std::string("feed"), std::size_t{0}, std::string("title")}, "Article:1", "title"),
               stale_at({std::string("feed"), std::size_t{1}, std::string("title")}, "Article:2", "title")}));
}

/// Cache-and-network: the cached result first, then the network's; stale-while-revalidate only when stale.
void test_cache_and_network_and_stale_while_revalidate()
{
    FeedTest test(R"({"maxAges": {"Query.feed": 60}})");
    Network net(feed_reply);
    test.run({Policy::cache_and_network}, net);
    net.reply.body = uno_reply;
    test.now = start + 5;
    CHECK_EQ(test.run({Policy::cache_and_network}, net).second,
             (std::vector<ExecuteResult>{cached(feed_data, start, start + 60), network(uno_data, start + 5, start + 65)}));

    const ExecuteOptions revalidate{Policy::stale_while_revalidate, 3600};
    test.now = start + 64;
    CHECK_EQ(test.run(revalidate, net).second, std::vector<ExecuteResult>{cached(uno_data, start + 5, start + 65)});
    test.now = start + 70;
    const auto revalidated = test.run(revalidate, net).second;
    CHECK_EQ(revalidated.size(), std::size_t{2});
    CHECK(revalidated[0].status == ReadStatus::stale && revalidated[0].source == Source::cache);
    CHECK_EQ(revalidated[1], network(uno_data, start + 70, start + 130));
    CHECK_EQ(net.documents.size(), std::size_t{3});
}

/// A mutation fetches under cache-only; a subscription is refused; an empty fetch that must fetch is refused.
void test_mutations_subscriptions_and_an_empty_fetch()
{
    FeedTest test;
    Network net(R"({"data": {"like": {"__typename": "Article", "id": "1", "likes": 5}}})");
    const Operation like = test.cache.prepare(R"(mutation { like(id: "1") { likes } })");
    CHECK_EQ(test.cache.execute(like, {}, {Policy::cache_only}, net.fetch()), network(R"({"like":{"likes":5}})", start));
    CHECK_EQ(net.names, Strings{"<none>"});
    CHECK_EQ(net.variables, Strings{"{}"});
    CHECK_THROWS_EXACT(test.cache.execute(like, {}, {Policy::cache_only}, {}), NormCache::InvalidArgumentError,
                       NORMCACHE_EINVAL, "fetch is NULL, but the call goes to the network");
    CHECK_THROWS_EXACT(test.cache.execute(test.feed, variables, {}, {}), NormCache::InvalidArgumentError,
                       NORMCACHE_EINVAL, "fetch is NULL, but the call goes to the network");
    const Operation updates = test.cache.prepare("subscription { updates { title } }");
    CHECK_THROWS_EXACT(test.cache.execute(updates, {}, {}, net.fetch()), NormCache::InvalidArgumentError,
                       NORMCACHE_EINVAL, "'the subscription' is a subscription: execute runs queries and mutations");
    CHECK_EQ(net.names.size(), std::size_t{1});
}

/// GraphQL errors: GraphQLError under none; the raw errors beside the data under all.
void test_error_policies()
{
    FeedTest test;
    Network net(R"({"data": {"feed": [{"__typename": "Article", "id": "1", "title": null}]}, )"
                R"("errors": [{"message": "title is private", "path": ["feed", 0, "title"]}]})");
    CHECK_THROWS_EXACT(test.run({}, net), NormCache::GraphQLError, NORMCACHE_EGRAPHQL,
                       "the response carries GraphQL errors (1 error, the first: 'title is private'); "
                       "nothing was written (error policy none)");
    CHECK_EQ(test.keys(), Strings{});
    const std::string errors = R"([{"message": "title is private", "path": ["feed", 0, "title"]}])";
    const ExecuteResult all = test.run({Policy::network_only, std::nullopt, NormCache::ErrorPolicy::all}, net).first;
    CHECK_EQ(all.errors, std::optional<std::string>(errors));
    CHECK_EQ(all.json, result_json("network", R"({"feed":[{"title":null}]})", std::to_string(start), "null", "[]",
                                   "null", errors));
    CHECK_EQ(test.run({Policy::network_only, std::nullopt, NormCache::ErrorPolicy::ignore}, net).first.errors,
             std::optional<std::string>());
}

// ---------------------------------------------------------------------------
// Exceptions and garbage

/// An exception type that is not a std::exception.
struct NotAnException {
    int code;
};

/// A fetch that throws something other than FetchError: rethrown as it was, nothing written, no fallback.
void test_a_throwing_fetch()
{
    FeedTest test;
    Network net(feed_reply);
    test.run({}, net); // the feed is in the cache: network-first could fall back to it
    const Strings before = test.keys();
    net.reply.body = uno_reply;
    net.failure = [] { throw std::runtime_error("the HTTP client crashed"); };
    try {
        test.run({Policy::network_first, 3600}, net);
        fail(__FILE__, __LINE__, "the fetch's exception was not rethrown");
    } catch (const NormCache::Error &error) {
        fail(__FILE__, __LINE__, std::string("became a NormCache::Error: ") + error.what());
    } catch (const std::runtime_error &error) {
        CHECK_EQ(std::string(error.what()), std::string("the HTTP client crashed"));
    }
    net.failure = [] { throw NotAnException{42}; };
    try {
        test.run({Policy::network_only}, net);
        fail(__FILE__, __LINE__, "the fetch's exception was not rethrown");
    } catch (const NotAnException &thrown) {
        CHECK_EQ(thrown.code, 42);
    }
    CHECK_EQ(test.keys(), before);
    CHECK_EQ(test.cache.get("Article:1"), std::optional<std::string>(R"({"__typename":"Article","id":"1","title":"One"})"));
    // A FetchError from a nested execute that the fetch lets through is a failed fetch too.
    net.failure = [&test] {
        Network inner(feed_reply);
        inner.failure = [] { throw NormCache::FetchError("inner offline"); };
        test.cache.execute(test.feed, variables, {Policy::network_only}, inner.fetch());
    };
    const ExecuteResult fallback = test.run({Policy::network_first}, net).first;
    CHECK_EQ(fallback.fetch_error, std::optional<std::string>("inner offline"));
    CHECK(fallback.source == Source::cache);
}

/// A fetch that answers garbage: the exception of the code normcache_write gives, nothing written.
void test_a_fetch_that_returns_garbage()
{
    FeedTest test;
    Network net("<html>502 Bad Gateway</html>");
    CHECK_THROWS_EXACT(test.run({}, net), NormCache::JSONError, NORMCACHE_EJSON,
                       "JSON error at byte 0: expected a JSON value");
    net.reply.body = "[1, 2]";
    CHECK_THROWS_EXACT(test.run({}, net), NormCache::DataError, NORMCACHE_EDATA,
                       "a GraphQL response must be a JSON object with 'data', not array");
    net.reply.body = R"({"feed": []})";
    CHECK_THROWS_EXACT(test.run({}, net), NormCache::DataError, NORMCACHE_EDATA,
                       R"(the response has no 'data' envelope: its member 'feed' is a field of the operation; )"
                       R"(pass {"data": <this object>})");
    net.reply.body = feed_reply;
    net.reply.cache_control = "max-age=\"60";
    CHECK_THROWS_EXACT(test.run({}, net), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "Cache-Control: unterminated quoted string at byte 8 ('max-age=\"60'): it needs a closing '\"'");
    // A reply the library refuses when it is given: rethrown from the trampoline.
    net.reply.cache_control.reset();
    net.reply.max_age = 4000000000u;
    CHECK_THROWS_EXACT(test.run({}, net), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "headers->max_age is 4000000000: seconds from 0 to 2147483647, or -1 for none");
    net.reply.max_age.reset();
    net.reply.age = std::string("1\xff", 2);
    CHECK_THROWS_EXACT(test.run({}, net), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "headers->age is not valid UTF-8");
    CHECK_EQ(test.keys(), Strings{});
    CHECK_EQ(net.documents.size(), std::size_t{6});
}

/// on_result throws: rethrown after the call has run to its end; later results are not delivered.
void test_a_throwing_result_callback()
{
    FeedTest test;
    Network net(feed_reply);
    test.run({}, net);
    net.reply.body = uno_reply;
    int delivered = 0;
    try {
        test.cache.execute(test.feed, variables, {Policy::cache_and_network}, net.fetch(),
                           [&delivered](const ExecuteResult &) {
                               ++delivered;
                               throw std::logic_error("the view is gone");
                           });
        fail(__FILE__, __LINE__, "on_result's exception was not rethrown");
    } catch (const std::logic_error &error) {
        CHECK_EQ(std::string(error.what()), std::string("the view is gone"));
    }
    CHECK_EQ(delivered, 1);
    // The network's answer was written all the same.
    CHECK_EQ(test.cache.get("Article:1"), std::optional<std::string>(R"({"__typename":"Article","id":"1","title":"Uno"})"));
}

/// The fetch may use the cache: read, write, and a nested execute.
void test_the_fetch_may_use_the_cache()
{
    FeedTest test;
    test.cache.put(R"({"Article:9": {"title": "Nine"}})");
    std::optional<std::string> seen;
    ExecuteResult nested;
    const ExecuteResult outer =
        test.cache.execute(test.feed, variables, {}, [&](const FetchRequest &) {
            seen = test.cache.get("Article:9");
            test.cache.put(R"({"Note:1": {"text": "from the fetch"}})");
            Network inner(uno_reply);
            nested = test.cache.execute(test.feed, variables, {Policy::network_only}, inner.fetch());
            return FetchReply{feed_reply, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
        });
    CHECK_EQ(seen, std::optional<std::string>(R"({"title":"Nine"})"));
    CHECK_EQ(nested, network(uno_data, start));
    CHECK_EQ(outer, network(feed_data, start));
    CHECK_EQ(test.keys(), (Strings{"Article:1", "Article:2", "Article:9", "Note:1", "QUERY_ROOT"}));
}

// ---------------------------------------------------------------------------
// Documents

const std::string page = R"({"articles": [{"id": 7, "title": "Caching", "score": 1.50}], "next": null})";

/// put_document and get_document: the document as written, its times, no-store, records refused.
void test_documents()
{
    FeedTest test;
    NormCache::WriteOptions lifetime;
    lifetime.cache_control = "max-age=1800";
    lifetime.age = "60";
    CHECK(test.cache.put_document("GET /articles", page, lifetime));
    NormCache::FullReadResult got = test.cache.get_document("GET /articles");
    CHECK_EQ(got.json, R"({"data":)" + page + R"(,"missing":[],"stale":[],"oldestWrittenAt":1700000000,)"
                                              R"("earliestExpiry":1700001740})");
    CHECK(got.status == ReadStatus::complete);
    CHECK_EQ(got.oldest_written_at, std::optional<std::uint64_t>(start));
    CHECK_EQ(got.earliest_expiry, std::optional<std::uint64_t>(start + 1740));
    test.now = start + 1740;
    CHECK(test.cache.get_document("GET /articles").status == ReadStatus::miss);
    NormCache::ReadOptions within;
    within.max_stale = 60;
    got = test.cache.get_document("GET /articles", within);
    CHECK(got.status == ReadStatus::stale);

    NormCache::WriteOptions no_store;
    no_store.cache_control = "no-store";
    CHECK(!test.cache.put_document("GET /me", page, no_store));
    got = test.cache.get_document("GET /me");
    CHECK(got.status == ReadStatus::miss && !got.oldest_written_at && !got.earliest_expiry);
    CHECK_EQ(got.json, std::string(R"({"data":null,"missing":[{"path":[],"reason":"absent","record":"GET /me"}],)"
                                   R"("stale":[],"oldestWrittenAt":null,"earliestExpiry":null})"));
    CHECK_THROWS_EXACT(test.cache.put_document("GET /me", "{\"a\": "), NormCache::JSONError, NORMCACHE_EJSON,
                       "JSON error at byte 6: unexpected end of input (truncated?)");
    test.cache.put(R"({"Article:7": {"title": "Caching"}})");
    CHECK_THROWS_EXACT(test.cache.get_document("Article:7"), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "'Article:7' is a record of fields, not a document");
    CHECK_THROWS_EXACT(test.cache.put_document("Article:7", "1"), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "'Article:7' is a record of fields, not a document");
    // Members named like the result's own, inside the document, do not confuse it.
    const std::string tricky = R"( {"earliestExpiry": 5, "source": "network", "fetchError": "x"} )";
    CHECK(test.cache.put_document("GET /tricky", tricky));
    got = test.cache.get_document("GET /tricky");
    CHECK_EQ(got.oldest_written_at, std::optional<std::uint64_t>(start + 1740));
    CHECK(!got.earliest_expiry);
}

/// Entity rules for documents (configure's "documents"): entities become records and
/// read back as their records hold them now.
void test_documents_with_entities()
{
    FeedTest test;
    test.cache.configure(R"({"documents": {"typeMember": "__typename", "types": {"Writer": {"keyFields": "id"}}}})");
    CHECK(test.cache.put_document("GET /books/1", R"({"title": "Dune", "by": {"__typename": "Writer", "id": 3, "name": "Frank"}})"));
    CHECK_EQ(test.cache.get("Writer:3"), std::optional<std::string>(R"({"__typename":"Writer","id":3,"name":"Frank"})"));
    test.cache.put(R"({"Writer:3": {"name": "Frank Herbert"}})");
    NormCache::FullReadResult got = test.cache.get_document("GET /books/1");
    CHECK_EQ(got.json, std::string(R"({"data":{"title":"Dune","by":{"__typename":"Writer","id":3,"name":"Frank Herbert"}},)"
                                   R"("missing":[],"stale":[],"oldestWrittenAt":1700000000,"earliestExpiry":null})"));
    test.cache.remove("Writer:3");
    got = test.cache.get_document("GET /books/1");
    CHECK(got.status == ReadStatus::miss);
    CHECK_EQ(got.json, std::string(R"({"data":null,"missing":[{"path":["by"],"reason":"absent","record":"Writer:3"}],)"
                                   R"("stale":[],"oldestWrittenAt":1700000000,"earliestExpiry":null})"));
    CHECK((got.missing == std::vector<NormCache::FieldReport>{{{std::string("by")},
                                                               NormCache::MissReason::absent,
                                                               "Writer:3",
                                                               std::nullopt,
                                                               std::nullopt,
                                                               std::nullopt}}));
    CHECK(got.stale.empty());
    CHECK_THROWS_EXACT(test.cache.configure(R"({"documents": {"typeMember": 1}})"), NormCache::InvalidArgumentError,
                       NORMCACHE_EINVAL, "configuration error at byte 29: documents.typeMember must be a string");
}

/// execute_document: the REST flow, the key in the request, a body that is not JSON.
void test_execute_document()
{
    FeedTest test;
    Network net(page);
    net.reply.max_age = 1800;
    const ExecuteResult first = test.cache.execute_document("GET /articles", {}, net.fetch());
    CHECK_EQ(first, network(page, start, start + 1800));
    CHECK_EQ(net.keys, Strings{"GET /articles"});
    CHECK_EQ(net.documents, Strings{""});
    CHECK_EQ(net.names, Strings{"<none>"});
    test.now = start + 1799;
    CHECK_EQ(test.cache.execute_document("GET /articles", {}, net.fetch()), cached(page, start, start + 1800));
    test.now = start + 1800;
    CHECK(test.cache.execute_document("GET /articles", {}, net.fetch()).source == Source::network);
    CHECK_EQ(net.keys.size(), std::size_t{2});
    net.reply.body = "<html>";
    CHECK_THROWS_EXACT(test.cache.execute_document("GET /articles", {Policy::network_only}, net.fetch()),
                       NormCache::JSONError, NORMCACHE_EJSON, "JSON error at byte 0: expected a JSON value");
    CHECK_EQ(test.cache.get_document("GET /articles").json.substr(0, 9 + page.size()), R"({"data":)" + page + ",");
    // A body whose errors member holds the result's member names: the times are the result's.
    net.reply.body = R"({"errors": [{"message": "x", "earliestExpiry": 9}], "oldestWrittenAt": 1})";
    net.reply.max_age.reset();
    const ExecuteResult tricky = test.cache.execute_document("GET /tricky", {Policy::network_only}, net.fetch());
    CHECK_EQ(tricky.oldest_written_at, std::optional<std::uint64_t>(start + 1800));
    CHECK(!tricky.earliest_expiry && !tricky.errors && !tricky.fetch_error);
    // A fetch that throws: rethrown.
    net.failure = [] { throw std::out_of_range("no such page"); };
    try {
        test.cache.execute_document("GET /absent", {}, net.fetch());
        fail(__FILE__, __LINE__, "the fetch's exception was not rethrown");
    } catch (const std::out_of_range &error) {
        CHECK_EQ(std::string(error.what()), std::string("no such page"));
    }
    CHECK_EQ(test.cache.search("GET /"), (Strings{"GET /articles", "GET /tricky"}));
}

} // namespace

/// Revalidation: the ETag a document keeps (put_document, a FetchReply), read back in
/// get_document, and refresh_document after a 304.
void test_revalidation()
{
    FeedTest test;
    CHECK(test.cache.refresh_document("GET /articles") == NormCache::Refresh::absent);
    NormCache::WriteOptions tagged;
    tagged.max_age = 60;
    tagged.etag = R"(W/"a\b")";
    CHECK(test.cache.put_document("GET /articles", page, tagged));
    NormCache::FullReadResult got = test.cache.get_document("GET /articles");
    CHECK_EQ(got.json, R"({"data":)" + page + R"(,"missing":[],"stale":[],"oldestWrittenAt":1700000000,)"
                                              R"("earliestExpiry":1700000060,"etag":"W/\"a\\b\""})");
    CHECK_EQ(got.etag, std::optional<std::string>(R"(W/"a\b")"));
    CHECK_EQ(got.earliest_expiry, std::optional<std::uint64_t>(start + 60));
    test.now = start + 100;
    NormCache::WriteOptions not_modified;
    not_modified.cache_control = "max-age=30";
    CHECK(test.cache.refresh_document("GET /articles", not_modified) == NormCache::Refresh::refreshed);
    got = test.cache.get_document("GET /articles");
    CHECK(got.status == ReadStatus::complete);
    CHECK_EQ(got.oldest_written_at, std::optional<std::uint64_t>(start + 100));
    CHECK_EQ(got.earliest_expiry, std::optional<std::uint64_t>(start + 130));
    CHECK_EQ(got.etag, std::optional<std::string>(R"(W/"a\b")"));
    not_modified.cache_control = "no-store";
    CHECK(test.cache.refresh_document("GET /articles", not_modified) == NormCache::Refresh::not_stored);
    not_modified.cache_control.reset();
    not_modified.etag = "v2";
    CHECK_THROWS_EXACT(test.cache.refresh_document("GET /articles", not_modified), NormCache::InvalidArgumentError,
                       NORMCACHE_EINVAL, R"(malformed ETag 'v2': expected '"' at byte 0 (an entity-tag is "v1" or W/"v1"))");
    CHECK_THROWS_EXACT(test.cache.put_document("GET /other", page, not_modified), NormCache::InvalidArgumentError,
                       NORMCACHE_EINVAL, R"(malformed ETag 'v2': expected '"' at byte 0 (an entity-tag is "v1" or W/"v1"))");
    CHECK(!test.cache.get_document("GET /other").oldest_written_at);
    // A document without one has none.
    CHECK(test.cache.put_document("GET /plain", "1"));
    CHECK(!test.cache.get_document("GET /plain").etag);
    // A fetch's reply keeps its ETag with the document.
    Network net(page);
    net.reply.etag = R"("n1")";
    CHECK(test.cache.execute_document("GET /fetched", {}, net.fetch()).source == Source::network);
    CHECK_EQ(test.cache.get_document("GET /fetched").etag, std::optional<std::string>(R"("n1")"));
}

int main()
{
    test_types();
    test_cache_first();
    test_cache_only();
    test_network_only_and_no_store();
    test_network_first_and_fetch_errors();
    test_cache_and_network_and_stale_while_revalidate();
    test_mutations_subscriptions_and_an_empty_fetch();
    test_error_policies();
    test_a_throwing_fetch();
    test_a_fetch_that_returns_garbage();
    test_a_throwing_result_callback();
    test_the_fetch_may_use_the_cache();
    test_documents();
    test_documents_with_entities();
    test_execute_document();
    test_revalidation();
    return 0;
}
