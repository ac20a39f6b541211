/*
 * test_execute.c — fetching through the C interface: normcache_execute under every fetch
 * policy, and plain JSON documents (normcache_put_document, normcache_get_document,
 * normcache_execute_document).
 *
 * A fake network (struct nc_network, fetching.h) answers the fetch callback with a body and headers,
 * or fails, or misbehaves, and records every request it is asked (document, operation
 * name, variables, key); a clock the test sets (normcache_set_clock) moves time. Each
 * call is checked for its exact status, its exact result JSON, the exact sequence of
 * results on_result got (a cached result, then the network's), the exact message of a
 * failure, and, after every failure, that nothing was written. The cases port
 * Tests/NormCacheTests/Fetching/ExecuteTests.swift and DocumentTests.swift, and add the
 * hostile callbacks only C can write: a fetch that answers nothing or twice, keeps its
 * reply past its call or hands it to another thread, calls back into the cache, or
 * answers garbage.
 */
#include "check.h"
#include "fetching.h"

#include <pthread.h>

/* ---------------------------------------------------------------------------
 * Fixtures
 * ------------------------------------------------------------------------- */

static const char schema[] =
    "type Query { feed(first: Int): [Article] }\n"
    "type Mutation { like(id: ID!): Article }\n"
    "type Subscription { updates: Article }\n"
    "type Article { id: ID! title: String likes: Int }\n"
    "extend type Article @typePolicy(keyFields: \"id\")\n";

static const char feed_query[] = "query Feed($n: Int) { feed(first: $n) { title } }";
static const char variables[] = "{\"n\": 2}";

/** The server's answer to the feed: the network document's __typename and id included. */
static const char feed_reply[] =
    "{\"data\": {\"feed\": [{\"__typename\": \"Article\", \"id\": \"1\", \"title\": \"One\"}, "
    "{\"__typename\": \"Article\", \"id\": \"2\", \"title\": \"Two\"}]}}";
static const char uno_reply[] =
    "{\"data\": {\"feed\": [{\"__typename\": \"Article\", \"id\": \"1\", \"title\": \"Uno\"}]}}";
static const char private_reply[] =
    "{\"data\": {\"feed\": [{\"__typename\": \"Article\", \"id\": \"1\", \"title\": null}]}, "
    "\"errors\": [{\"message\": \"title is private\", \"path\": [\"feed\", 0, \"title\"]}]}";

/** The user's selection of the feed replies: never the fields the network document added. */
#define FEED_DATA "{\"feed\":[{\"title\":\"One\"},{\"title\":\"Two\"}]}"
#define UNO_DATA "{\"feed\":[{\"title\":\"Uno\"}]}"

/** The "missing" list of a read of the feed that finds nothing. */
#define FEED_ABSENT "[{\"path\":[\"feed\"],\"reason\":\"absent\",\"record\":\"QUERY_ROOT\",\"field\":\"feed(first:2)\"}]"

/** The "stale" list of the feed's three fields, written at `written`, expired at `expired`. */
#define FEED_STALE(written, expired) \
    "[" STALE_ROOT(written, expired) "," STALE_TITLE(0, "1", written, expired) "," STALE_TITLE(1, "2", written, expired) "]"
/** The stale entry of the feed's root field. */
#define STALE_ROOT(written, expired) NC_STALE_ENTRY("[\"feed\"]", "QUERY_ROOT", "feed(first:2)", written, expired)
/** The stale entry of the title of the feed's article at `index`, whose id is `id`. */
#define STALE_TITLE(index, id, written, expired) \
    NC_STALE_ENTRY("[\"feed\"," #index ",\"title\"]", "Article:" id, "title", written, expired)

/** The keys of a cache that holds nothing: what every failed call must leave. */
#define NOTHING "[]"

/** A network result of `data`, all fresh, written at `written` and expiring at `expiry`. */
#define NETWORK(data, written, expiry) NC_RESULT("network", data, "[]", "[]", written, expiry, "null", "null")
/** A cached result of `data`, all fresh. */
#define CACHED(data, written, expiry) NC_RESULT("cache", data, "[]", "[]", written, expiry, "null", "null")

/** One line of a result log: the status, a space, the result. */
#define LINE(status, result) #status " " result "\n"

/** A new cache with the schema, the clock at NC_START, and `configuration` (NULL: none). */
static normcache *feed_cache(struct nc_clock *clock, const char *configuration)
{
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    clock->now = NC_START;
    CHECK_OK(normcache_set_clock(cache, nc_clock_now, clock));
    CHECK_OK(normcache_load_schema(cache, schema, strlen(schema)));
    if (configuration != NULL) {
        CHECK_OK(normcache_configure(cache, configuration, strlen(configuration)));
    }
    return cache;
}

/** What most tests use: a cache with the schema and its clock, the feed prepared, a fake network. */
struct feed_test {
    struct nc_clock clock;
    normcache *cache;
    normcache_op *feed;
    struct nc_network net;
};

/** Starts `t`: a new cache with `configuration` (NULL: none), the clock at NC_START, a network answering `body`. */
static void feed_test_start(struct feed_test *t, const char *configuration, const char *body)
{
    t->cache = feed_cache(&t->clock, configuration);
    t->feed = nc_prepare(t->cache, feed_query);
    t->net = nc_network(body);
}

/** Ends `t`: frees what the network recorded and the operation, and closes the cache. */
static void feed_test_end(struct feed_test *t)
{
    nc_network_free(&t->net);
    CHECK_OK(normcache_op_free(t->feed));
    CHECK_OK(normcache_close(t->cache));
}

/** The feed with `n` = 2, through normcache_execute: see NC_CHECK_EXECUTE. */
#define CHECK_FEED(cache, feed, options, net, code, log) \
    NC_CHECK_EXECUTE(cache, feed, NULL, variables, options, net, code, log)

/** As CHECK_FEED, for a call that fails with `code` and exactly `message`. */
#define CHECK_FEED_FAILS(cache, feed, options, net, code, message, log) \
    NC_CHECK_EXECUTE_FAILS(cache, feed, NULL, variables, options, net, code, message, log)

/* ---------------------------------------------------------------------------
 * The policies
 * ------------------------------------------------------------------------- */

/** Cache-first fetches on a miss, then answers from the cache until the data expires. */
static void test_cache_first(void)
{
    struct feed_test t;
    normcache_write_options headers = nc_write_options();
    char *document = NULL;
    size_t document_len = 0;
    const normcache_execute_options options = nc_execute_options(NORMCACHE_CACHE_FIRST, -1, NORMCACHE_ERRORS_NONE);

    feed_test_start(&t, NULL, feed_reply);
    headers.cache_control = "max-age=1800";
    headers.cache_control_len = strlen(headers.cache_control);
    t.net.headers = &headers;
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_OK,
               LINE(0, NETWORK(FEED_DATA, "1700000000", "1700001800")));
    CHECK(t.net.calls == 1);
    CHECK_OK(normcache_op_document(t.feed, &document, &document_len));
    CHECK_STR(document, document_len,
              "query Feed($n: Int) {\n  feed(first: $n) {\n    title\n    id\n    __typename\n  }\n}");
    CHECK_STR(t.net.requests[0].document, strlen(t.net.requests[0].document), document);
    normcache_free(document);
    CHECK(strcmp(t.net.requests[0].operation_name, "Feed") == 0);
    CHECK(strcmp(t.net.requests[0].variables, variables) == 0);
    CHECK(t.net.requests[0].key == NULL);

    t.clock.now = NC_START + 1799;
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_OK,
               LINE(0, CACHED(FEED_DATA, "1700000000", "1700001800")));
    CHECK(t.net.calls == 1);
    t.clock.now = NC_START + 1800;
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_OK,
               LINE(0, NETWORK(FEED_DATA, "1700001800", "1700003600")));
    CHECK(t.net.calls == 2);
    /* NULL options are cache-first too. */
    CHECK_FEED(t.cache, t.feed, NULL, &t.net, NORMCACHE_OK, LINE(0, CACHED(FEED_DATA, "1700001800", "1700003600")));
    CHECK(t.net.calls == 2);

    feed_test_end(&t);
}

/** Cache-only never fetches: a miss is the answer, and a NULL fetch is fine. */
static void test_cache_only(void)
{
    struct feed_test t;
    const normcache_execute_options options = nc_execute_options(NORMCACHE_CACHE_ONLY, -1, NORMCACHE_ERRORS_NONE);
    char *out = NULL;
    size_t out_len = 0;

    feed_test_start(&t, NULL, feed_reply);
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_MISS,
               LINE(1, NC_RESULT("cache", "null", FEED_ABSENT, "[]", "null", "null", "null", "null")));
    CHECK(t.net.calls == 0);
    CHECK_OK(normcache_write(t.cache, t.feed, variables, strlen(variables), feed_reply, strlen(feed_reply), NULL, NULL));
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_OK, LINE(0, CACHED(FEED_DATA, "1700000000", "null")));
    CHECK(t.net.calls == 0);
    /* No fetch and no result callback at all: the result comes back through out_json. */
    CHECK_OK(normcache_execute(t.cache, t.feed, variables, strlen(variables), &options, NULL, NULL, NULL, NULL, &out, &out_len));
    nc_check_output(__FILE__, __LINE__, "result", out, out_len, CACHED(FEED_DATA, "1700000000", "null"));
    /* Nor an out_json: the status alone. */
    CHECK_OK(normcache_execute(t.cache, t.feed, variables, strlen(variables), &options, NULL, NULL, NULL, NULL, NULL, NULL));

    feed_test_end(&t);
}

/** Network-only always fetches, and writes what it got. */
static void test_network_only(void)
{
    struct feed_test t;
    const normcache_execute_options options = nc_execute_options(NORMCACHE_NETWORK_ONLY, -1, NORMCACHE_ERRORS_NONE);

    feed_test_start(&t, NULL, feed_reply);
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_OK, LINE(0, NETWORK(FEED_DATA, "1700000000", "null")));
    t.net.body = uno_reply;
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_OK, LINE(0, NETWORK(UNO_DATA, "1700000000", "null")));
    CHECK(t.net.calls == 2);
    CHECK_GET(t.cache, "Article:1", "{\"__typename\":\"Article\",\"id\":\"1\",\"title\":\"Uno\"}");
    CHECK_GET(t.cache, "QUERY_ROOT", "{\"feed(first:2)\":[{\"$reference\":\"Article:1\"}]}");

    feed_test_end(&t);
}

/** No-store returns the network's data and writes nothing; so does a no-store reply. */
static void test_no_store(void)
{
    struct feed_test t;
    normcache_write_options headers = nc_write_options();
    const normcache_execute_options options = nc_execute_options(NORMCACHE_NO_STORE, -1, NORMCACHE_ERRORS_NONE);

    feed_test_start(&t, NULL, feed_reply);
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_OK, LINE(0, NETWORK(FEED_DATA, "1700000000", "null")));
    CHECK_SEARCH(t.cache, "", NULL, 0, NOTHING);
    headers.cache_control = "no-store";
    headers.cache_control_len = strlen(headers.cache_control);
    t.net.headers = &headers;
    CHECK_FEED(t.cache, t.feed, NULL, &t.net, NORMCACHE_OK, LINE(0, NETWORK(FEED_DATA, "1700000000", "null")));
    CHECK_SEARCH(t.cache, "", NULL, 0, NOTHING);
    CHECK(t.net.calls == 2);

    feed_test_end(&t);
}

/** Network-first falls back to usable cached data with "fetchError"; EFETCH when none stands in. */
static void test_network_first(void)
{
    struct feed_test t;
    const normcache_execute_options fresh_only = nc_execute_options(NORMCACHE_NETWORK_FIRST, -1, NORMCACHE_ERRORS_NONE);
    const normcache_execute_options stale_40 = nc_execute_options(NORMCACHE_NETWORK_FIRST, 40, NORMCACHE_ERRORS_NONE);

    feed_test_start(&t, "{\"maxAges\": {\"Query.feed\": 60}}", feed_reply);
    t.net.failure = "connection refused";
    CHECK_FEED_FAILS(t.cache, t.feed, &fresh_only, &t.net, NORMCACHE_EFETCH, "connection refused", "");
    CHECK_SEARCH(t.cache, "", NULL, 0, NOTHING);
    t.net.failure = NULL;
    CHECK_FEED(t.cache, t.feed, &fresh_only, &t.net, NORMCACHE_OK, LINE(0, NETWORK(FEED_DATA, "1700000000", "1700000060")));

    t.net.failure = "connection refused";
    t.clock.now = NC_START + 100;
    /* Stale by 40 s: used only within max_stale. */
    CHECK_FEED_FAILS(t.cache, t.feed, &fresh_only, &t.net, NORMCACHE_EFETCH, "connection refused", "");
    CHECK_FEED(t.cache, t.feed, &stale_40, &t.net, NORMCACHE_STALE,
               LINE(3, NC_RESULT("cache", FEED_DATA, "[]",
                                 FEED_STALE("1700000000", "1700000060"),
                                 "1700000000", "1700000060", "null", "\"connection refused\"")));
    /* Not a fetch failure: a callback that answers nothing gets no fallback. */
    t.net.failure = NULL;
    t.net.mode = NC_SILENT;
    CHECK_FEED_FAILS(t.cache, t.feed, &stale_40, &t.net, NORMCACHE_ECALLBACK, NC_NO_ANSWER, "");
    CHECK(t.net.calls == 5);

    feed_test_end(&t);
}

/** Cache-and-network gives usable cached data first, then the network's. */
static void test_cache_and_network(void)
{
    struct feed_test t;
    const normcache_execute_options options = nc_execute_options(NORMCACHE_CACHE_AND_NETWORK, -1, NORMCACHE_ERRORS_NONE);

    feed_test_start(&t, NULL, feed_reply);
    /* A miss is not handed on: the network's result alone. */
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_OK, LINE(0, NETWORK(FEED_DATA, "1700000000", "null")));
    t.net.body = uno_reply;
    t.clock.now = NC_START + 5;
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_OK,
               LINE(0, CACHED(FEED_DATA, "1700000000", "null")) LINE(0, NETWORK(UNO_DATA, "1700000005", "null")));
    /* The network fails after the cached result: that result again, with the error. */
    t.net.failure = "offline";
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_OK,
               LINE(0, CACHED(UNO_DATA, "1700000005", "null"))
                   LINE(0, NC_RESULT("cache", UNO_DATA, "[]", "[]", "1700000005", "null", "null", "\"offline\"")));
    CHECK(t.net.calls == 3);

    feed_test_end(&t);
}

/** Stale-while-revalidate fetches only when something was stale, after handing the stale data on. */
static void test_stale_while_revalidate(void)
{
    struct feed_test t;
    const normcache_execute_options options =
        nc_execute_options(NORMCACHE_STALE_WHILE_REVALIDATE, 3600, NORMCACHE_ERRORS_NONE);

    feed_test_start(&t, "{\"maxAges\": {\"Query.feed\": 60}}", feed_reply);
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_OK, LINE(0, NETWORK(FEED_DATA, "1700000000", "1700000060")));
    t.clock.now = NC_START + 59;
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_OK, LINE(0, CACHED(FEED_DATA, "1700000000", "1700000060")));
    CHECK(t.net.calls == 1);
    t.clock.now = NC_START + 61;
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_OK,
               LINE(3, NC_RESULT("cache", FEED_DATA, "[]", FEED_STALE("1700000000", "1700000060"), "1700000000",
                                 "1700000060", "null", "null"))
                   LINE(0, NETWORK(FEED_DATA, "1700000061", "1700000121")));
    /* The fetch refreshed the times: fresh again. */
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_OK, LINE(0, CACHED(FEED_DATA, "1700000061", "1700000121")));
    CHECK(t.net.calls == 2);
    /* A failed revalidation keeps the stale data, with the error. */
    t.clock.now = NC_START + 200;
    t.net.failure = "offline";
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_STALE,
               LINE(3, NC_RESULT("cache", FEED_DATA, "[]", FEED_STALE("1700000061", "1700000121"), "1700000061",
                                 "1700000121", "null", "null"))
                   LINE(3, NC_RESULT("cache", FEED_DATA, "[]", FEED_STALE("1700000061", "1700000121"), "1700000061",
                                     "1700000121", "null", "\"offline\"")));
    /* Beyond max_stale the cache has nothing to stand in: EFETCH. */
    t.clock.now = NC_START + 121 + 3601;
    CHECK_FEED_FAILS(t.cache, t.feed, &options, &t.net, NORMCACHE_EFETCH, "offline", "");
    CHECK(t.net.calls == 4);

    feed_test_end(&t);
}

/** A mutation goes to the network under every policy; a subscription is refused. */
static void test_mutations_and_subscriptions(void)
{
    static const char like_reply[] = "{\"data\": {\"like\": {\"__typename\": \"Article\", \"id\": \"1\", \"likes\": 5}}}";
    static const char like_again[] = "{\"data\": {\"like\": {\"__typename\": \"Article\", \"id\": \"1\", \"likes\": 6}}}";
    struct nc_clock clock;
    normcache *cache = feed_cache(&clock, NULL);
    normcache_op *like = nc_prepare(cache, "mutation { like(id: \"1\") { likes } }");
    normcache_op *updates = nc_prepare(cache, "subscription { updates { title } }");
    struct nc_network net = nc_network(like_reply);
    const normcache_execute_options cache_only = nc_execute_options(NORMCACHE_CACHE_ONLY, -1, NORMCACHE_ERRORS_NONE);
    const normcache_execute_options no_store = nc_execute_options(NORMCACHE_NO_STORE, -1, NORMCACHE_ERRORS_NONE);

    NC_CHECK_EXECUTE(cache, like, NULL, NULL, &cache_only, &net, NORMCACHE_OK,
                     LINE(0, NETWORK("{\"like\":{\"likes\":5}}", "1700000000", "null")));
    CHECK(net.calls == 1 && net.requests[0].operation_name == NULL);
    CHECK(strcmp(net.requests[0].variables, "{}") == 0);
    CHECK_GET(cache, "Article:1", "{\"__typename\":\"Article\",\"id\":\"1\",\"likes\":5}");
    CHECK_NOTFOUND(cache, "MUTATION_ROOT");
    net.body = like_again;
    NC_CHECK_EXECUTE(cache, like, NULL, NULL, &no_store, &net, NORMCACHE_OK,
                     LINE(0, NETWORK("{\"like\":{\"likes\":6}}", "1700000000", "null")));
    CHECK_GET(cache, "Article:1", "{\"__typename\":\"Article\",\"id\":\"1\",\"likes\":5}");
    /* Under cache-only a mutation still needs a fetch. */
    CHECK_CODE(normcache_execute(cache, like, NULL, 0, &cache_only, NULL, NULL, NULL, NULL, NULL, NULL), NORMCACHE_EINVAL);
    CHECK(strcmp(normcache_errmsg(), "fetch is NULL, but the call goes to the network") == 0);

    NC_CHECK_EXECUTE_FAILS(cache, updates, NULL, NULL, NULL, &net, NORMCACHE_EINVAL,
                           "'the subscription' is a subscription: execute runs queries and mutations", "");
    CHECK(net.calls == 2);
    CHECK_SEARCH(cache, "", NULL, 0, "[\"Article:1\"]");

    nc_network_free(&net);
    CHECK_OK(normcache_op_free(like));
    CHECK_OK(normcache_op_free(updates));
    CHECK_OK(normcache_close(cache));
}

/** GraphQL errors follow the error policy: none fails and writes nothing, ignore and all write. */
static void test_graphql_errors(void)
{
    struct feed_test t;
    const normcache_execute_options ignore = nc_execute_options(NORMCACHE_CACHE_FIRST, -1, NORMCACHE_ERRORS_IGNORE);
    const normcache_execute_options all = nc_execute_options(NORMCACHE_NETWORK_ONLY, -1, NORMCACHE_ERRORS_ALL);
    const normcache_execute_options network_none = nc_execute_options(NORMCACHE_NETWORK_ONLY, -1, NORMCACHE_ERRORS_NONE);
    const normcache_execute_options network_ignore =
        nc_execute_options(NORMCACHE_NETWORK_ONLY, -1, NORMCACHE_ERRORS_IGNORE);

    feed_test_start(&t, NULL, private_reply);
    CHECK_FEED_FAILS(t.cache, t.feed, NULL, &t.net, NORMCACHE_EGRAPHQL,
                     "the response carries GraphQL errors (1 error, the first: 'title is private'); "
                     "nothing was written (error policy none)",
                     "");
    CHECK_SEARCH(t.cache, "", NULL, 0, NOTHING);
    CHECK_FEED(t.cache, t.feed, &ignore, &t.net, NORMCACHE_OK,
               LINE(0, NETWORK("{\"feed\":[{\"title\":null}]}", "1700000000", "null")));
    CHECK_GET(t.cache, "Article:1", "{\"__typename\":\"Article\",\"id\":\"1\",\"title\":null}");
    CHECK_FEED(t.cache, t.feed, &all, &t.net, NORMCACHE_OK,
               LINE(0, NC_RESULT("network", "{\"feed\":[{\"title\":null}]}", "[]", "[]", "1700000000", "null",
                                 "[{\"message\": \"title is private\", \"path\": [\"feed\", 0, \"title\"]}]", "null")));
    /* Two errors: the message counts them and names the first. */
    t.net.body = "{\"data\": null, \"errors\": [{\"message\": \"rate limited\"}, {\"message\": \"try later\"}]}";
    CHECK_FEED_FAILS(t.cache, t.feed, &network_none, &t.net, NORMCACHE_EGRAPHQL,
                     "the response carries GraphQL errors (2 errors, the first: 'rate limited'); "
                     "nothing was written (error policy none)",
                     "");
    /* "data": null writes nothing and gives no data: a network result missing the whole
     * data, whatever the cache held. */
    CHECK_FEED(t.cache, t.feed, &network_ignore, &t.net, NORMCACHE_MISS,
               LINE(1, NC_RESULT("network", "null", "[{\"path\":[],\"reason\":\"absent\",\"record\":\"QUERY_ROOT\"}]", "[]",
                                 "null", "null", "null", "null")));
    CHECK_OK(normcache_clear(t.cache));
    CHECK_FEED(t.cache, t.feed, &network_ignore, &t.net, NORMCACHE_MISS,
               LINE(1, NC_RESULT("network", "null", "[{\"path\":[],\"reason\":\"absent\",\"record\":\"QUERY_ROOT\"}]", "[]",
                                 "null", "null", "null", "null")));
    CHECK_SEARCH(t.cache, "", NULL, 0, NOTHING);

    feed_test_end(&t);
}

/* ---------------------------------------------------------------------------
 * Replies that cannot be written
 * ------------------------------------------------------------------------- */

/** Fails unless the fetch of a network-only feed through `net` fails with `code` and `message`, writing nothing. */
static void check_fails_writing_nothing_at(int line, struct nc_network *net, int code, const char *message)
{
    struct nc_clock clock;
    normcache *cache = feed_cache(&clock, NULL);
    normcache_op *feed = nc_prepare(cache, feed_query);
    const normcache_execute_options options = nc_execute_options(NORMCACHE_NETWORK_ONLY, -1, NORMCACHE_ERRORS_ALL);

    nc_check_execute_fails_at(__FILE__, line, cache, feed, NULL, variables, &options, net, code, message, "");
    CHECK(net->calls == 1);
    nc_check_search(__FILE__, line, cache, "", NULL, 0, NOTHING);
    nc_network_free(net);
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/** Fails unless a network-only feed through `net` fails with `code` and exactly `message`, writing nothing. */
#define CHECK_HOSTILE(net, code, message) check_fails_writing_nothing_at(__LINE__, (net), (code), (message))

/** Implements CHECK_BAD_REPLY. */
static void check_bad_reply_at(int line, const char *body, const normcache_write_options *headers, int code,
                               const char *message)
{
    struct nc_network net = nc_network(body);
    net.headers = headers;
    check_fails_writing_nothing_at(line, &net, code, message);
}

/** Fails unless a network-only feed answered `body` fails with `code` and exactly `message`, writing nothing. */
#define CHECK_BAD_REPLY(body, headers, code, message) check_bad_reply_at(__LINE__, (body), (headers), (code), (message))

/** Garbage from the network fails the call with the code normcache_write gives, and writes nothing. */
static void test_replies_that_cannot_be_written(void)
{
    normcache_write_options headers = nc_write_options();

    CHECK_BAD_REPLY("not json", NULL, NORMCACHE_EJSON, "JSON error at byte 1: invalid literal (expected 'null')");
    CHECK_BAD_REPLY("<html>502 Bad Gateway</html>", NULL, NORMCACHE_EJSON, "JSON error at byte 0: expected a JSON value");
    CHECK_BAD_REPLY("", NULL, NORMCACHE_EJSON, "JSON error at byte 0: unexpected end of input (truncated?)");
    CHECK_BAD_REPLY("[1, 2]", NULL, NORMCACHE_EDATA, "a GraphQL response must be a JSON object with 'data', not array");
    CHECK_BAD_REPLY("{\"feed\": []}", NULL, NORMCACHE_EDATA,
                    "the response has no 'data' envelope: its member 'feed' is a field of the operation; "
                    "pass {\"data\": <this object>}");
    CHECK_BAD_REPLY("{\"data\": {\"feed\": {\"__typename\": \"Article\", \"id\": \"1\", \"title\": \"One\"}}}",
                    NULL, NORMCACHE_EDATA, "invalid response data at feed: expected a list ([Article]), found object");
    headers.cache_control = "max-age=\"60";
    headers.cache_control_len = strlen(headers.cache_control);
    CHECK_BAD_REPLY(feed_reply, &headers, NORMCACHE_EINVAL,
                    "Cache-Control: unterminated quoted string at byte 8 ('max-age=\"60'): it needs a closing '\"'");
    headers = nc_write_options();
    headers.age = "-3";
    headers.age_len = 2;
    CHECK_BAD_REPLY(feed_reply, &headers, NORMCACHE_EINVAL,
                    "Age: malformed value at byte 0 ('-3'): it needs a whole number of seconds");
}

/* ---------------------------------------------------------------------------
 * Hostile fetch callbacks
 * ------------------------------------------------------------------------- */

/** A callback that fails, with or without saying why, or answers nothing: exact codes and messages. */
static void test_failing_and_silent_callbacks(void)
{
    struct nc_network net = nc_network(feed_reply);

    /* OK without an answer. */
    net.mode = NC_SILENT;
    CHECK_HOSTILE(&net, NORMCACHE_ECALLBACK, NC_NO_ANSWER);
    /* Non-zero without an answer or a reason. */
    net.status = 5;
    CHECK_HOSTILE(&net, NORMCACHE_EFETCH, "the fetch callback returned 5 without a message");
    net.status = NORMCACHE_EFETCH;
    CHECK_HOSTILE(&net, NORMCACHE_EFETCH, "the fetch callback returned -11 without a message");
    /* Non-zero with normcache_callback_error's reason. */
    net.mode = NC_REASON;
    net.failure = "getaddrinfo: Name or service not known";
    CHECK_HOSTILE(&net, NORMCACHE_EFETCH, "getaddrinfo: Name or service not known");
    /* Non-zero with normcache_fetch_reply_error's message. */
    net.mode = NC_ANSWER;
    net.failure = "HTTP 503 Service Unavailable";
    net.status = -1;
    CHECK_HOSTILE(&net, NORMCACHE_EFETCH, "HTTP 503 Service Unavailable");
    /* OK after normcache_fetch_reply_error: a failed fetch all the same. */
    net.status = NORMCACHE_OK;
    CHECK_HOSTILE(&net, NORMCACHE_EFETCH, "HTTP 503 Service Unavailable");
    /* An empty message. */
    net.failure = "";
    CHECK_HOSTILE(&net, NORMCACHE_EFETCH, "the fetch failed without a message");
    /* An answer, then a non-zero status: the status wins, and nothing is written. */
    net.failure = NULL;
    net.status = 1;
    CHECK_HOSTILE(&net, NORMCACHE_EFETCH, "the fetch callback returned 1 without a message");
}

/** A callback that answers twice: the second answer is refused, the first stands. */
static void test_a_callback_that_answers_twice(void)
{
    struct feed_test t;

    feed_test_start(&t, NULL, feed_reply);
    t.net.mode = NC_TWICE;
    CHECK_FEED(t.cache, t.feed, NULL, &t.net, NORMCACHE_OK, LINE(0, NETWORK(FEED_DATA, "1700000000", "null")));
    CHECK(t.net.second_code == NORMCACHE_EINVAL);
    CHECK(strcmp(t.net.second_message, "the reply was already answered") == 0);

    feed_test_end(&t);
}

/** The hook that keeps the reply pointer in the network's context, past the call. */
static void keep_reply(struct nc_network *net, const normcache_fetch_request *request, normcache_fetch_reply *reply)
{
    (void)request;
    *(normcache_fetch_reply **)net->context = reply;
}

/** What another thread got from answering a reply it was handed. */
struct foreign_answer {
    normcache_fetch_reply *reply;
    int set_code;
    int error_code;
    char message[512];
};

/** The body of the other thread: answers the reply it was handed, both ways. */
static void *answer_from_another_thread(void *context)
{
    struct foreign_answer *answer = context;
    answer->set_code = normcache_fetch_reply_set(answer->reply, feed_reply, strlen(feed_reply), NULL);
    snprintf(answer->message, sizeof answer->message, "%s", normcache_errmsg());
    answer->error_code = normcache_fetch_reply_error(answer->reply, "from elsewhere", 14);
    return NULL;
}

/** The hook that hands the reply to another thread, which tries to answer it. */
static void answer_elsewhere(struct nc_network *net, const normcache_fetch_request *request,
                             normcache_fetch_reply *reply)
{
    struct foreign_answer *answer = net->context;
    pthread_t thread;
    (void)request;
    answer->reply = reply;
    CHECK(pthread_create(&thread, NULL, answer_from_another_thread, answer) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
}

/** A reply kept past its call, or handed to another thread, is refused without being read. */
static void test_a_reply_kept_or_handed_on(void)
{
    static const char not_lent[] = "reply is not the reply of a fetch callback running on this thread";
    struct feed_test t;
    normcache_fetch_reply *kept = NULL;
    struct foreign_answer answer;
    const normcache_execute_options options = nc_execute_options(NORMCACHE_NETWORK_ONLY, -1, NORMCACHE_ERRORS_NONE);
    normcache_write_options small = nc_write_options();

    feed_test_start(&t, NULL, feed_reply);
    t.net.hook = keep_reply;
    t.net.context = &kept;
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_OK, LINE(0, NETWORK(FEED_DATA, "1700000000", "null")));
    CHECK(kept != NULL);
    CHECK_CODE(normcache_fetch_reply_set(kept, uno_reply, strlen(uno_reply), NULL), NORMCACHE_EINVAL);
    CHECK(strcmp(normcache_errmsg(), not_lent) == 0);
    CHECK_CODE(normcache_fetch_reply_error(kept, "late", 4), NORMCACHE_EINVAL);
    CHECK(strcmp(normcache_errmsg(), not_lent) == 0);
    /* A pointer that never was a reply, and NULL. */
    CHECK_CODE(normcache_fetch_reply_set((normcache_fetch_reply *)(void *)&small, "1", 1, NULL), NORMCACHE_EINVAL);
    CHECK(strcmp(normcache_errmsg(), not_lent) == 0);
    CHECK_CODE(normcache_fetch_reply_set(NULL, "1", 1, NULL), NORMCACHE_EINVAL);
    CHECK(strcmp(normcache_errmsg(), "reply is NULL") == 0);
    CHECK_CODE(normcache_fetch_reply_error(NULL, "x", 1), NORMCACHE_EINVAL);
    CHECK(strcmp(normcache_errmsg(), "reply is NULL") == 0);
    CHECK_GET(t.cache, "Article:1", "{\"__typename\":\"Article\",\"id\":\"1\",\"title\":\"One\"}");

    memset(&answer, 0, sizeof answer);
    t.net.hook = answer_elsewhere;
    t.net.context = &answer;
    t.net.body = uno_reply;
    CHECK_FEED(t.cache, t.feed, &options, &t.net, NORMCACHE_OK, LINE(0, NETWORK(UNO_DATA, "1700000000", "null")));
    CHECK(answer.set_code == NORMCACHE_EINVAL && answer.error_code == NORMCACHE_EINVAL);
    CHECK(strcmp(answer.message, not_lent) == 0);

    feed_test_end(&t);
}

/** The hook that answers with bad arguments first: each refused, the callback then answers well. */
static void answer_badly(struct nc_network *net, const normcache_fetch_request *request, normcache_fetch_reply *reply)
{
    normcache_write_options headers = nc_write_options();
    const char **messages = net->context;
    (void)request;
    CHECK_CODE(normcache_fetch_reply_set(reply, NULL, 3, NULL), NORMCACHE_EINVAL);
    nc_check_whole(__FILE__, __LINE__, "errmsg", normcache_errmsg(), messages[0]);
    headers.size = offsetof(normcache_write_options, flags) - 1;
    CHECK_CODE(normcache_fetch_reply_set(reply, "{}", 2, &headers), NORMCACHE_EINVAL);
    nc_check_whole(__FILE__, __LINE__, "errmsg", normcache_errmsg(), messages[1]);
    headers = nc_write_options();
    headers.max_age = -2;
    CHECK_CODE(normcache_fetch_reply_set(reply, "{}", 2, &headers), NORMCACHE_EINVAL);
    nc_check_whole(__FILE__, __LINE__, "errmsg", normcache_errmsg(), messages[2]);
    headers = nc_write_options();
    headers.cache_control = "max-age=\xff";
    headers.cache_control_len = 9;
    CHECK_CODE(normcache_fetch_reply_set(reply, "{}", 2, &headers), NORMCACHE_EINVAL);
    nc_check_whole(__FILE__, __LINE__, "errmsg", normcache_errmsg(), messages[3]);
    CHECK_CODE(normcache_fetch_reply_error(reply, NULL, 1), NORMCACHE_EINVAL);
    nc_check_whole(__FILE__, __LINE__, "errmsg", normcache_errmsg(), messages[4]);
}

/** Bad arguments to normcache_fetch_reply_set and _error are refused, and leave the reply unanswered. */
static void test_bad_answers_are_refused(void)
{
    /* The headers are checked as normcache_write_options, under their own name. */
    static const char *messages[] = {
        "body is NULL but its length is 3",
        "headers->size is 79, below sizeof the struct's first version (80): set it to sizeof",
        "headers->max_age is -2: seconds from 0 to 2147483647, or -1 for none",
        "headers->cache_control is not valid UTF-8",
        "message is NULL but its length is 1",
    };
    struct feed_test t;

    feed_test_start(&t, NULL, feed_reply);
    t.net.hook = answer_badly;
    t.net.context = (void *)messages;
    CHECK_FEED(t.cache, t.feed, NULL, &t.net, NORMCACHE_OK, LINE(0, NETWORK(FEED_DATA, "1700000000", "null")));

    feed_test_end(&t);
}

/* ---------------------------------------------------------------------------
 * A fetch that uses the cache
 * ------------------------------------------------------------------------- */

/** What the re-entrant hook uses: the cache and the operation, and what it saw. */
struct reentry {
    normcache *cache;
    normcache_op *feed;
    char *seen;     /**< normcache_get of Article:9 inside the fetch */
    nc_text nested; /**< the results of the nested execute */
    int nested_code;
};

/** The hook that reads, writes and runs a nested execute from inside the fetch. */
static void use_the_cache(struct nc_network *net, const normcache_fetch_request *request, normcache_fetch_reply *reply)
{
    struct reentry *reentry = net->context;
    struct nc_network inner = nc_network(uno_reply);
    const normcache_execute_options options = nc_execute_options(NORMCACHE_NETWORK_ONLY, -1, NORMCACHE_ERRORS_NONE);
    size_t seen_len = 0;
    (void)request;
    (void)reply;
    CHECK_OK(normcache_get(reentry->cache, "Article:9", 9, &reentry->seen, &seen_len));
    CHECK_PUT(reentry->cache, "{\"Note:1\": {\"text\": \"written by the fetch\"}}", "[\"Note:1.text\"]");
    reentry->nested_code = normcache_execute(reentry->cache, reentry->feed, variables, strlen(variables), &options,
                                             nc_fetch, &inner, nc_log_result, &reentry->nested, NULL, NULL);
    CHECK(inner.calls == 1);
    nc_network_free(&inner);
}

/** The fetch runs outside every lock: it may read, write and execute; its own writes stay when the call fails. */
static void test_the_fetch_may_use_the_cache(void)
{
    struct feed_test t;
    struct reentry reentry;

    feed_test_start(&t, NULL, feed_reply);
    memset(&reentry, 0, sizeof reentry);
    reentry.cache = t.cache;
    reentry.feed = t.feed;
    CHECK_PUT(t.cache, "{\"Article:9\": {\"title\": \"Nine\"}}", "[\"Article:9.title\"]");
    t.net.hook = use_the_cache;
    t.net.context = &reentry;
    CHECK_FEED(t.cache, t.feed, NULL, &t.net, NORMCACHE_OK, LINE(0, NETWORK(FEED_DATA, "1700000000", "null")));
    CHECK(strcmp(reentry.seen, "{\"title\":\"Nine\"}") == 0);
    CHECK(reentry.nested_code == NORMCACHE_OK);
    nc_check_whole(__FILE__, __LINE__, "the nested results", reentry.nested.data,
                   LINE(0, NETWORK(UNO_DATA, "1700000000", "null")));
    /* The outer reply was written after the nested one. */
    CHECK_GET(t.cache, "Article:1", "{\"__typename\":\"Article\",\"id\":\"1\",\"title\":\"One\"}");
    CHECK_GET(t.cache, "Note:1", "{\"text\":\"written by the fetch\"}");
    normcache_free(reentry.seen);
    free(reentry.nested.data);
    nc_network_free(&t.net);

    /* The outer call fails: the writes the fetch made itself stay, its reply is not written. */
    CHECK_OK(normcache_clear(t.cache));
    CHECK_PUT(t.cache, "{\"Article:9\": {\"title\": \"Nine\"}}", "[\"Article:9.title\"]");
    memset(&reentry.nested, 0, sizeof reentry.nested);
    t.net = nc_network("<html>");
    t.net.hook = use_the_cache;
    t.net.context = &reentry;
    CHECK_FEED_FAILS(t.cache, t.feed, NULL, &t.net, NORMCACHE_EJSON, "JSON error at byte 0: expected a JSON value", "");
    CHECK_SEARCH(t.cache, "", NULL, 0, "[\"Article:1\",\"Article:9\",\"Note:1\",\"QUERY_ROOT\"]");
    CHECK_GET(t.cache, "Article:1", "{\"__typename\":\"Article\",\"id\":\"1\",\"title\":\"Uno\"}");
    normcache_free(reentry.seen);
    free(reentry.nested.data);
    feed_test_end(&t);
}

/* ---------------------------------------------------------------------------
 * Bad arguments
 * ------------------------------------------------------------------------- */

/** Fails unless normcache_execute of the feed with `options` and `fetch` fails with EINVAL and `message`. */
#define CHECK_REFUSED(cache, feed, options, net, message) \
    CHECK_FEED_FAILS(cache, feed, options, net, NORMCACHE_EINVAL, message, "")

/** Bad options, handles and operations are refused before anything is fetched or written. */
static void test_bad_arguments(void)
{
    struct nc_clock clock;
    normcache *cache = feed_cache(&clock, NULL);
    normcache_op *feed = nc_prepare(cache, feed_query);
    normcache_op *fragment = nc_prepare(cache, "fragment F on Article { title }");
    normcache_op *freed = nc_prepare(cache, feed_query);
    struct nc_network net = nc_network(feed_reply);
    normcache_execute_options options = nc_execute_options(NORMCACHE_CACHE_FIRST, -1, NORMCACHE_ERRORS_NONE);
    char *out = NULL;
    size_t out_len = 0;

    /* A NULL fetch with a policy that goes to the network. */
    CHECK_REFUSED(cache, feed, &options, NULL, "fetch is NULL, but the call goes to the network");
    options.policy = NORMCACHE_NETWORK_ONLY;
    CHECK_REFUSED(cache, feed, &options, NULL, "fetch is NULL, but the call goes to the network");
    options = nc_execute_options(NORMCACHE_CACHE_FIRST, -1, NORMCACHE_ERRORS_NONE);
    options.size = sizeof options - 1;
    CHECK_REFUSED(cache, feed, &options, &net, "options->size is 23, below sizeof the struct (24): set it to sizeof");
    options.size = 0;
    CHECK_REFUSED(cache, feed, &options, &net, "options->size is 0, below sizeof the struct (24): set it to sizeof");
    options = nc_execute_options(7, -1, NORMCACHE_ERRORS_NONE);
    CHECK_REFUSED(cache, feed, &options, &net, "options->policy 7 is not a normcache_policy (0 to 6)");
    options = nc_execute_options(-1, -1, NORMCACHE_ERRORS_NONE);
    CHECK_REFUSED(cache, feed, &options, &net, "options->policy -1 is not a normcache_policy (0 to 6)");
    options = nc_execute_options(NORMCACHE_CACHE_FIRST, -1, -1);
    CHECK_REFUSED(cache, feed, &options, &net, "options->error_policy -1 is not a normcache_error_policy (0 to 2)");
    options = nc_execute_options(NORMCACHE_CACHE_FIRST, -1, 3);
    CHECK_REFUSED(cache, feed, &options, &net, "options->error_policy 3 is not a normcache_error_policy (0 to 2)");
    options = nc_execute_options(NORMCACHE_CACHE_FIRST, -2, NORMCACHE_ERRORS_NONE);
    CHECK_REFUSED(cache, feed, &options, &net, "options->max_stale is -2: seconds, or -1 for none");
    /* Variables that do not fit, a fragment, a subscription's cousin: refused. */
    NC_CHECK_EXECUTE_FAILS(cache, feed, NULL, "{\"frist\": 2}", NULL, &net, NORMCACHE_EINVAL,
                           "variable '$frist' is not declared by operation 'Feed' (it declares: $n)", "");
    NC_CHECK_EXECUTE_FAILS(cache, feed, NULL, "{\"n\": ", NULL, &net, NORMCACHE_EJSON,
                           "JSON error at byte 6: unexpected end of input (truncated?)", "");
    NC_CHECK_EXECUTE_FAILS(cache, fragment, NULL, NULL, NULL, &net, NORMCACHE_EINVAL,
                           "'F' is a fragment, not an operation: read or write it at a record key (a fragment read or write)", "");
    CHECK_OK(normcache_op_free(freed));
    NC_CHECK_EXECUTE_FAILS(cache, freed, NULL, NULL, NULL, &net, NORMCACHE_EINVAL,
                           "the operation handle is closed or was never opened", "");
    /* NULL handle, NULL operation, out_json without out_len. */
    CHECK_CODE(normcache_execute(NULL, feed, NULL, 0, NULL, nc_fetch, &net, NULL, NULL, &out, &out_len), NORMCACHE_EINVAL);
    nc_check_whole(__FILE__, __LINE__, "errmsg", normcache_errmsg(), "the cache handle is NULL");
    CHECK_CODE(normcache_execute(cache, NULL, NULL, 0, NULL, nc_fetch, &net, NULL, NULL, &out, &out_len), NORMCACHE_EINVAL);
    nc_check_whole(__FILE__, __LINE__, "errmsg", normcache_errmsg(), "the operation handle is NULL");
    CHECK_CODE(normcache_execute(cache, feed, NULL, 0, NULL, nc_fetch, &net, NULL, NULL, &out, NULL), NORMCACHE_EINVAL);
    nc_check_whole(__FILE__, __LINE__, "errmsg", normcache_errmsg(), "out_json or its length pointer is NULL");
    CHECK_CODE(normcache_execute(cache, feed, NULL, 3, NULL, nc_fetch, &net, NULL, NULL, &out, &out_len), NORMCACHE_EINVAL);
    nc_check_whole(__FILE__, __LINE__, "errmsg", normcache_errmsg(), "variables_json is NULL but its length is 3");
    CHECK(out == NULL && out_len == 0);
    CHECK(net.calls == 0);
    CHECK_SEARCH(cache, "", NULL, 0, NOTHING);

    /* With the data in the cache, cache-first needs no network: a NULL fetch is not consulted. */
    CHECK_OK(normcache_write(cache, feed, variables, strlen(variables), feed_reply, strlen(feed_reply), NULL, NULL));
    options = nc_execute_options(NORMCACHE_CACHE_FIRST, -1, NORMCACHE_ERRORS_NONE);
    CHECK_FEED(cache, feed, &options, NULL, NORMCACHE_OK, LINE(0, CACHED(FEED_DATA, "1700000000", "null")));

    /* A closed handle. */
    CHECK_OK(normcache_close(cache));
    CHECK_CODE(normcache_execute(cache, feed, NULL, 0, NULL, nc_fetch, &net, NULL, NULL, &out, &out_len), NORMCACHE_EINVAL);
    nc_check_whole(__FILE__, __LINE__, "errmsg", normcache_errmsg(), "the cache handle is closed or was never opened");
    CHECK(net.calls == 0);
    nc_network_free(&net);
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_op_free(fragment));
}

/* ---------------------------------------------------------------------------
 * Plain JSON documents
 * ------------------------------------------------------------------------- */

/** A page of articles, with the spaces, digits and member order a server wrote. */
static const char page[] = "{\"articles\": [{\"id\": 7, \"title\": \"Caching\", \"score\": 1.50}], \"next\": null}";

/** A document read's result, its members as JSON text. */
#define DOCUMENT(data, missing, stale, written, expiry)                                           \
    "{\"data\":" data ",\"missing\":" missing ",\"stale\":" stale ",\"oldestWrittenAt\":" written \
    ",\"earliestExpiry\":" expiry "}"

/** The page, as the data member of a result. */
#define PAGE "{\"articles\": [{\"id\": 7, \"title\": \"Caching\", \"score\": 1.50}], \"next\": null}"

/** A stale or invalidated entry of the document `key`. */
#define DOCUMENT_ENTRY(reason, key, written, expired) \
    "{\"path\":[],\"reason\":\"" reason "\",\"record\":\"" key "\",\"writtenAt\":" written ",\"expiredAt\":" expired "}"

/** Implements CHECK_DOCUMENT. */
static void check_document_at(int line, normcache *cache, const char *key, const normcache_read_options *options,
                              int code, const char *expected)
{
    char *out = (char *)"unset";
    size_t out_len = 5;
    nc_check_code(__FILE__, line, "normcache_get_document",
                  normcache_get_document(cache, key, strlen(key), options, &out, &out_len), code);
    CHECK(out != NULL && out[out_len] == '\0');
    nc_check_whole(__FILE__, line, "the document", out, expected);
    normcache_free(out);
}

/** Gets the document at the C string `key` and fails unless the status and the whole result are exact. */
#define CHECK_DOCUMENT(cache, key, options, code, expected) \
    check_document_at(__LINE__, (cache), (key), (options), (code), (expected))

/** Implements CHECK_DOCUMENT_FAILS: a call that fails with `code` and exactly `message`. */
static void check_document_call_fails_at(int line, const char *call, int got, int code, const char *message)
{
    nc_check_code(__FILE__, line, call, got, code);
    nc_check_whole(__FILE__, line, "errmsg", normcache_errmsg(), message);
}

/** Fails unless `call` fails with `code` and exactly `message`. */
#define CHECK_FAILS(call, code, message) check_document_call_fails_at(__LINE__, #call, (call), (code), (message))

/** Puts the C string `json` as the document `key` with `options`; returns the status. */
static int put_document(normcache *cache, const char *key, const char *json, const normcache_write_options *options)
{
    return normcache_put_document(cache, key, strlen(key), json, strlen(json), options);
}

/** A new cache with the clock at NC_START and no schema. */
static normcache *document_cache(struct nc_clock *clock)
{
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    clock->now = NC_START;
    CHECK_OK(normcache_set_clock(cache, nc_clock_now, clock));
    return cache;
}

/** The entity rules of the documents test: pages of articles by their authors. */
static const char *entity_rules =
    "{\"documents\": {\"prefixes\": {\"GET /articles\": \"ArticlePage\", \"GET /articles/\": \"Article\"},"
    " \"types\": {\"ArticlePage\": {\"members\": {\"articles\": \"Article\"}},"
    " \"Article\": {\"keyFields\": [\"id\"], \"members\": {\"author\": \"User\"}}, \"User\": {\"keyFields\": \"id\"}}}}";

/** An invalidated entry of the field `field` of User:1 in the page. */
#define AUTHOR_ENTRY(field)                                                                                 \
    "{\"path\":[\"articles\",0,\"author\",\"" field "\"],\"reason\":\"invalidated\",\"record\":\"User:1\"," \
    "\"field\":\"" field "\",\"writtenAt\":1700000000,\"expiredAt\":1700000000}"

/** Entity rules: a page's articles and authors become records, and read back updated. */
static void test_documents_with_entities(void)
{
    struct nc_clock clock;
    normcache *cache = document_cache(&clock);
    const char *with_author = "{\"articles\": [{\"id\": 7, \"title\": \"Caching\", \"author\": {\"id\": 1, \"name\": \"Ann\"}}]}";
    normcache_read_options within = {sizeof(normcache_read_options), 0, 60};

    CHECK_OK(normcache_configure(cache, entity_rules, strlen(entity_rules)));
    CHECK_OK(put_document(cache, "GET /articles?page=1", with_author, NULL));
    CHECK_GET(cache, "Article:7", "{\"author\":{\"$reference\":\"User:1\"},\"id\":7,\"title\":\"Caching\"}");
    CHECK_GET(cache, "User:1", "{\"id\":1,\"name\":\"Ann\"}");
    CHECK_DOCUMENT(cache, "GET /articles?page=1", NULL, NORMCACHE_OK,
                   DOCUMENT("{\"articles\":[{\"id\":7,\"title\":\"Caching\",\"author\":{\"id\":1,\"name\":\"Ann\"}}]}",
                            "[]", "[]", "1700000000", "null"));
    /* The article, updated through its own endpoint, reads updated in the page. */
    CHECK_OK(put_document(cache, "GET /articles/7", "{\"id\": 7, \"title\": \"Revised\"}", NULL));
    CHECK_DOCUMENT(cache, "GET /articles?page=1", NULL, NORMCACHE_OK,
                   DOCUMENT("{\"articles\":[{\"id\":7,\"title\":\"Revised\",\"author\":{\"id\":1,\"name\":\"Ann\"}}]}",
                            "[]", "[]", "1700000000", "null"));
    /* An invalidated author: a miss at its fields' paths, or stale within max_stale. */
    CHECK_OK(normcache_invalidate(cache, "User:1", 6, NULL, 0, 0, NULL));
    CHECK_DOCUMENT(cache, "GET /articles?page=1", NULL, NORMCACHE_MISS,
                   DOCUMENT("null", "[" AUTHOR_ENTRY("id") "," AUTHOR_ENTRY("name") "]", "[]", "1700000000", "1700000000"));
    CHECK_DOCUMENT(cache, "GET /articles?page=1", &within, NORMCACHE_STALE,
                   DOCUMENT("{\"articles\":[{\"id\":7,\"title\":\"Revised\",\"author\":{\"id\":1,\"name\":\"Ann\"}}]}",
                            "[]", "[" AUTHOR_ENTRY("id") "," AUTHOR_ENTRY("name") "]", "1700000000", "1700000000"));
    /* An entity may not take a document's key; nothing is written. */
    CHECK_OK(put_document(cache, "Article:8", "{\"id\": 8}", NULL));
    CHECK_FAILS(put_document(cache, "GET /articles/", "[{\"id\": 9}, {\"id\": 8}]", NULL), NORMCACHE_EINVAL,
                "the entity 'Article:8' of the document 'GET /articles/' has the key of a document");
    CHECK_NOTFOUND(cache, "Article:9");
    CHECK_NOTFOUND(cache, "GET /articles/");
    /* Bad rules name what and where; none of them is kept. */
    CHECK_FAILS(normcache_configure(cache, "{\"documents\": {\"prefix\": {}}}", 29), NORMCACHE_EINVAL,
                "configuration error at byte 25: unknown member 'documents.prefix' (known: typeMember, prefixes, types)");

    CHECK_OK(normcache_close(cache));
}

/** A document comes back as written, whole, with its freshness; it is listed like a record. */
static void test_documents_come_back_as_written(void)
{
    struct nc_clock clock;
    normcache *cache = document_cache(&clock);

    CHECK_OK(put_document(cache, "GET /articles?page=1", page, NULL));
    CHECK_DOCUMENT(cache, "GET /articles?page=1", NULL, NORMCACHE_OK, DOCUMENT(PAGE, "[]", "[]", "1700000000", "null"));
    CHECK_OK(put_document(cache, "GET /count", " 42 ", NULL));
    CHECK_DOCUMENT(cache, "GET /count", NULL, NORMCACHE_OK, DOCUMENT(" 42 ", "[]", "[]", "1700000000", "null"));
    CHECK_SEARCH(cache, "GET /", NULL, 0, "[\"GET /articles?page=1\",\"GET /count\"]");
    /* It is a record with one field, "$document". */
    CHECK_GET(cache, "GET /count", "{\"$document\":\" 42 \"}");
    /* Replaced whole. */
    clock.now = NC_START + 10;
    CHECK_OK(put_document(cache, "GET /count", "[1, 2]", NULL));
    CHECK_DOCUMENT(cache, "GET /count", NULL, NORMCACHE_OK, DOCUMENT("[1, 2]", "[]", "[]", "1700000010", "null"));

    CHECK_OK(normcache_close(cache));
}

/** A lifetime from max_age, or from Cache-Control and Age; stale within max_stale. */
static void test_a_document_expires_after_its_lifetime(void)
{
    struct nc_clock clock;
    normcache *cache = document_cache(&clock);
    normcache_write_options headers = nc_write_options();
    normcache_read_options within = {sizeof(normcache_read_options), 0, 60};
    normcache_read_options partial = {sizeof(normcache_read_options), NORMCACHE_READ_PARTIAL, -1};

    headers.cache_control = "max-age=1800";
    headers.cache_control_len = strlen(headers.cache_control);
    headers.age = "60";
    headers.age_len = 2;
    CHECK_OK(put_document(cache, "GET /articles", page, &headers));
    clock.now = NC_START + 1739;
    CHECK_DOCUMENT(cache, "GET /articles", NULL, NORMCACHE_OK, DOCUMENT(PAGE, "[]", "[]", "1700000000", "1700001740"));
    clock.now = NC_START + 1740;
    CHECK_DOCUMENT(cache, "GET /articles", NULL, NORMCACHE_MISS,
                   DOCUMENT("null", "[" DOCUMENT_ENTRY("stale", "GET /articles", "1700000000", "1700001740") "]", "[]",
                            "1700000000", "1700001740"));
    CHECK_DOCUMENT(cache, "GET /articles", &within, NORMCACHE_STALE,
                   DOCUMENT(PAGE, "[]", "[" DOCUMENT_ENTRY("stale", "GET /articles", "1700000000", "1700001740") "]",
                            "1700000000", "1700001740"));
    CHECK_DOCUMENT(cache, "GET /articles", &partial, NORMCACHE_MISS,
                   DOCUMENT(PAGE, "[" DOCUMENT_ENTRY("stale", "GET /articles", "1700000000", "1700001740") "]", "[]",
                            "1700000000", "1700001740"));

    /* A max_age of the host's; the earliest of it and the headers wins. */
    headers = nc_write_options();
    headers.max_age = 600;
    CHECK_OK(put_document(cache, "GET /articles", page, &headers));
    CHECK_DOCUMENT(cache, "GET /articles", NULL, NORMCACHE_OK, DOCUMENT(PAGE, "[]", "[]", "1700001740", "1700002340"));
    headers.cache_control = "max-age=60";
    headers.cache_control_len = strlen(headers.cache_control);
    CHECK_OK(put_document(cache, "GET /articles", page, &headers));
    CHECK_DOCUMENT(cache, "GET /articles", NULL, NORMCACHE_OK, DOCUMENT(PAGE, "[]", "[]", "1700001740", "1700001800"));

    CHECK_OK(normcache_close(cache));
}

/** No-store writes nothing; bad JSON and bad keys are refused; an absent document is a miss. */
static void test_no_store_and_bad_input_write_nothing(void)
{
    struct nc_clock clock;
    normcache *cache = document_cache(&clock);
    normcache_write_options headers = nc_write_options();

    headers.cache_control = "private, no-store";
    headers.cache_control_len = strlen(headers.cache_control);
    CHECK_CODE(put_document(cache, "GET /me", page, &headers), NORMCACHE_NOTSTORED);
    CHECK_FAILS(put_document(cache, "GET /me", "{\"a\": ", NULL), NORMCACHE_EJSON,
                "JSON error at byte 6: unexpected end of input (truncated?)");
    CHECK_FAILS(put_document(cache, "GET /me", "", NULL), NORMCACHE_EJSON,
                "JSON error at byte 0: unexpected end of input (truncated?)");
    CHECK_FAILS(put_document(cache, "", "1", NULL), NORMCACHE_EINVAL, "empty document key");
    CHECK_FAILS(normcache_put_document(cache, "\xff", 1, "1", 1, NULL), NORMCACHE_EINVAL, "document key is not valid UTF-8");
    CHECK_FAILS(normcache_put_document(NULL, "k", 1, "1", 1, NULL), NORMCACHE_EINVAL, "the cache handle is NULL");
    headers.cache_control = "max-age=abc";
    headers.cache_control_len = strlen(headers.cache_control);
    CHECK_FAILS(put_document(cache, "GET /me", page, &headers), NORMCACHE_EINVAL,
                "Cache-Control: malformed max-age at byte 8 ('max-age=abc'): it needs a whole number of seconds");
    CHECK_SEARCH(cache, "", NULL, 0, NOTHING);
    CHECK_DOCUMENT(cache, "GET /me", NULL, NORMCACHE_MISS,
                   DOCUMENT("null", "[{\"path\":[],\"reason\":\"absent\",\"record\":\"GET /me\"}]", "[]", "null", "null"));

    CHECK_OK(normcache_close(cache));
}

/** A record of fields is not a document, both ways; it stays as it was. */
static void test_a_record_of_fields_is_not_a_document(void)
{
    struct nc_clock clock;
    normcache *cache = document_cache(&clock);
    char *out = (char *)"unset";
    size_t out_len = 5;

    CHECK_PUT(cache, "{\"Article:7\": {\"title\": \"Caching\"}}", "[\"Article:7.title\"]");
    CHECK_FAILS(normcache_get_document(cache, "Article:7", 9, NULL, &out, &out_len), NORMCACHE_EINVAL,
                "'Article:7' is a record of fields, not a document");
    CHECK(out == NULL && out_len == 0);
    CHECK_FAILS(put_document(cache, "Article:7", "1", NULL), NORMCACHE_EINVAL,
                "'Article:7' is a record of fields, not a document");
    CHECK_GET(cache, "Article:7", "{\"title\":\"Caching\"}");

    CHECK_OK(normcache_close(cache));
}

/** The entry of the second page, invalidated 5 s after it was written. */
#define INVALIDATED_PAGE_2 DOCUMENT_ENTRY("invalidated", "GET /articles?page=2", "1700000000", "1700000005")

/** Documents are invalidated and removed by key prefix, like records. */
static void test_documents_are_invalidated_and_removed_by_prefix(void)
{
    struct nc_clock clock;
    normcache *cache = document_cache(&clock);
    uint64_t count = 0;

    CHECK_OK(put_document(cache, "GET /articles?page=1", page, NULL));
    CHECK_OK(put_document(cache, "GET /articles?page=2", "[]", NULL));
    CHECK_OK(put_document(cache, "GET /users", "[]", NULL));
    clock.now = NC_START + 5;
    CHECK_OK(normcache_invalidate(cache, "GET /articles", 13, NULL, 0, NORMCACHE_INVALIDATE_PREFIX, &count));
    CHECK(count == 2);
    CHECK_DOCUMENT(cache, "GET /articles?page=2", NULL, NORMCACHE_MISS,
                   DOCUMENT("null", "[" INVALIDATED_PAGE_2 "]",
                            "[]", "1700000000", "1700000005"));
    CHECK_DOCUMENT(cache, "GET /users", NULL, NORMCACHE_OK, DOCUMENT("[]", "[]", "[]", "1700000000", "null"));
    CHECK_OK(put_document(cache, "GET /articles?page=2", "[]", NULL));
    CHECK_DOCUMENT(cache, "GET /articles?page=2", NULL, NORMCACHE_OK, DOCUMENT("[]", "[]", "[]", "1700000005", "null"));
    CHECK_OK(normcache_remove_prefix(cache, "GET /articles", 13, &count));
    CHECK(count == 2);
    CHECK_SEARCH(cache, "", NULL, 0, "[\"GET /users\"]");

    CHECK_OK(normcache_close(cache));
}

/** The REST flow: the cache for 30 minutes, then the API; request->key names the document. */
static void test_the_rest_flow(void)
{
    struct nc_clock clock;
    normcache *cache = document_cache(&clock);
    struct nc_network net = nc_network(page);
    normcache_write_options lifetime = nc_write_options();
    const normcache_execute_options network_only = nc_execute_options(NORMCACHE_NETWORK_ONLY, -1, NORMCACHE_ERRORS_NONE);
    const normcache_execute_options cache_only = nc_execute_options(NORMCACHE_CACHE_ONLY, -1, NORMCACHE_ERRORS_NONE);

    lifetime.max_age = 1800;
    net.headers = &lifetime;
    NC_CHECK_EXECUTE(cache, NULL, "GET /articles", NULL, NULL, &net, NORMCACHE_OK,
                     LINE(0, NC_RESULT("network", PAGE, "[]", "[]", "1700000000", "1700001800", "null", "null")));
    CHECK(net.calls == 1);
    CHECK(strcmp(net.requests[0].key, "GET /articles") == 0);
    CHECK(net.requests[0].document == NULL && net.requests[0].operation_name == NULL &&
          net.requests[0].variables == NULL);
    clock.now = NC_START + 1799;
    NC_CHECK_EXECUTE(cache, NULL, "GET /articles", NULL, NULL, &net, NORMCACHE_OK,
                     LINE(0, NC_RESULT("cache", PAGE, "[]", "[]", "1700000000", "1700001800", "null", "null")));
    CHECK(net.calls == 1);
    clock.now = NC_START + 1800;
    NC_CHECK_EXECUTE(cache, NULL, "GET /articles", NULL, NULL, &net, NORMCACHE_OK,
                     LINE(0, NC_RESULT("network", PAGE, "[]", "[]", "1700001800", "1700003600", "null", "null")));
    CHECK(net.calls == 2 && strcmp(net.requests[1].key, "GET /articles") == 0);

    /* A body that is not JSON: an error, and the stored document stays. */
    net.body = "<html>";
    NC_CHECK_EXECUTE_FAILS(cache, NULL, "GET /articles", NULL, &network_only, &net, NORMCACHE_EJSON,
                           "JSON error at byte 0: expected a JSON value", "");
    CHECK_DOCUMENT(cache, "GET /articles", NULL, NORMCACHE_OK, DOCUMENT(PAGE, "[]", "[]", "1700001800", "1700003600"));
    /* A body with "errors" is a document like any other: the error policy does not apply. */
    net.body = "{\"errors\": [\"none of GraphQL's\"]}";
    NC_CHECK_EXECUTE(cache, NULL, "GET /errors", NULL, &network_only, &net, NORMCACHE_OK,
                     LINE(0, NC_RESULT("network", "{\"errors\": [\"none of GraphQL's\"]}", "[]", "[]", "1700001800",
                                       "1700003600", "null", "null")));
    /* A failed fetch with nothing to stand in; cache-only with nothing there. */
    net.failure = "connection refused";
    NC_CHECK_EXECUTE_FAILS(cache, NULL, "GET /absent", NULL, NULL, &net, NORMCACHE_EFETCH, "connection refused", "");
    NC_CHECK_EXECUTE(cache, NULL, "GET /absent", NULL, &cache_only, NULL, NORMCACHE_MISS,
                     LINE(1, NC_RESULT("cache", "null", "[{\"path\":[],\"reason\":\"absent\",\"record\":\"GET /absent\"}]",
                                       "[]", "null", "null", "null", "null")));
    /* A record of fields, and an empty key, are refused before any fetch. */
    net.failure = NULL;
    CHECK_PUT(cache, "{\"Article:7\": {\"title\": \"Caching\"}}", "[\"Article:7.title\"]");
    NC_CHECK_EXECUTE_FAILS(cache, NULL, "Article:7", NULL, &network_only, &net, NORMCACHE_EINVAL,
                           "'Article:7' is a record of fields, not a document", "");
    NC_CHECK_EXECUTE_FAILS(cache, NULL, "", NULL, &network_only, &net, NORMCACHE_EINVAL, "empty document key", "");
    CHECK(net.calls == 5);
    CHECK_SEARCH(cache, "", NULL, 0, "[\"Article:7\",\"GET /articles\",\"GET /errors\"]");

    nc_network_free(&net);
    CHECK_OK(normcache_close(cache));
}

/** Sets the ETag of `options` to the C string `tag`. */
static void set_etag(normcache_write_options *options, const char *tag)
{
    options->etag = tag;
    options->etag_len = strlen(tag);
}

/** A document keeps its ETag and gives it back; a 304 refreshes it without rewriting it. */
static void test_revalidation(void)
{
    struct nc_clock clock;
    normcache *cache = document_cache(&clock);
    normcache_write_options headers = nc_write_options();

    /* Nothing to refresh: a miss, nothing written. */
    CHECK_CODE(normcache_refresh_document(cache, "GET /a", 6, NULL), NORMCACHE_MISS);
    CHECK_SEARCH(cache, "", NULL, 0, NOTHING);
    headers.max_age = 60;
    set_etag(&headers, "W/\"v1\"");
    CHECK_OK(put_document(cache, "GET /a", page, &headers));
    CHECK_GET(cache, "GET /a", "{\"$document\":\"{\\\"articles\\\": [{\\\"id\\\": 7, \\\"title\\\": \\\"Caching\\\", "
                               "\\\"score\\\": 1.50}], \\\"next\\\": null}\",\"$etag\":\"W/\\\"v1\\\"\"}");
    clock.now = NC_START + 100;
    CHECK_DOCUMENT(cache, "GET /a", NULL, NORMCACHE_MISS,
                   "{\"data\":null,\"missing\":[" DOCUMENT_ENTRY("stale", "GET /a", "1700000000", "1700000060") "],\"stale\":[],\"oldestWrittenAt\":1700000000,\"earliestExpiry\":1700000060,\"etag\":\"W/\\\"v1\\\"\"}");
    /* The 304's headers give the new lifetime; the ETag stays. */
    headers = nc_write_options();
    headers.cache_control = "max-age=60";
    headers.cache_control_len = strlen(headers.cache_control);
    headers.age = "10";
    headers.age_len = 2;
    CHECK_OK(normcache_refresh_document(cache, "GET /a", 6, &headers));
    CHECK_DOCUMENT(cache, "GET /a", NULL, NORMCACHE_OK,
                   "{\"data\":" PAGE ",\"missing\":[],\"stale\":[],\"oldestWrittenAt\":1700000100,"
                   "\"earliestExpiry\":1700000150,\"etag\":\"W/\\\"v1\\\"\"}");
    /* One that sends an ETag replaces it; no-store changes nothing. */
    set_etag(&headers, "\"v2\"");
    CHECK_OK(normcache_refresh_document(cache, "GET /a", 6, &headers));
    headers.cache_control = "no-store";
    headers.cache_control_len = strlen(headers.cache_control);
    clock.now = NC_START + 120;
    CHECK_CODE(normcache_refresh_document(cache, "GET /a", 6, &headers), NORMCACHE_NOTSTORED);
    CHECK_DOCUMENT(cache, "GET /a", NULL, NORMCACHE_OK,
                   "{\"data\":" PAGE ",\"missing\":[],\"stale\":[],\"oldestWrittenAt\":1700000100,"
                   "\"earliestExpiry\":1700000150,\"etag\":\"\\\"v2\\\"\"}");
    /* A caller built before `etag` (size up to key_fallbacks): its ETag is never read. */
    headers = nc_write_options();
    headers.size = offsetof(normcache_write_options, etag);
    set_etag(&headers, "not read");
    CHECK_OK(put_document(cache, "GET /b", "1", &headers));
    CHECK_DOCUMENT(cache, "GET /b", NULL, NORMCACHE_OK, DOCUMENT("1", "[]", "[]", "1700000120", "null"));

    /* Hostile ETags and bad calls fail, naming what; nothing is written. */
    headers = nc_write_options();
    set_etag(&headers, "\"v\r\n\"");
    CHECK_FAILS(put_document(cache, "GET /c", "1", &headers), NORMCACHE_EINVAL,
                "malformed ETag '\"v\\x0d\\x0a\"': byte 2 (0xd) may not be in an entity-tag");
    CHECK_FAILS(normcache_refresh_document(cache, "GET /a", 6, &headers), NORMCACHE_EINVAL,
                "malformed ETag '\"v\\x0d\\x0a\"': byte 2 (0xd) may not be in an entity-tag");
    headers.etag = "\"\xff\"";
    headers.etag_len = 3;
    CHECK_FAILS(put_document(cache, "GET /c", "1", &headers), NORMCACHE_EINVAL, "options->etag is not valid UTF-8");
    headers.etag = NULL;
    headers.etag_len = 1;
    CHECK_FAILS(put_document(cache, "GET /c", "1", &headers), NORMCACHE_EINVAL, "options->etag is NULL but its length is 1");
    CHECK_PUT(cache, "{\"Article:7\": {\"title\": \"Caching\"}}", "[\"Article:7.title\"]");
    CHECK_FAILS(normcache_refresh_document(cache, "Article:7", 9, NULL), NORMCACHE_EINVAL,
                "'Article:7' is a record of fields, not a document");
    CHECK_FAILS(normcache_refresh_document(cache, "", 0, NULL), NORMCACHE_EINVAL, "empty document key");
    CHECK_FAILS(normcache_refresh_document(NULL, "k", 1, NULL), NORMCACHE_EINVAL, "the cache handle is NULL");
    CHECK_SEARCH(cache, "GET /c", NULL, 0, NOTHING);
    CHECK_DOCUMENT(cache, "GET /a", NULL, NORMCACHE_OK,
                   "{\"data\":" PAGE ",\"missing\":[],\"stale\":[],\"oldestWrittenAt\":1700000100,"
                   "\"earliestExpiry\":1700000150,\"etag\":\"\\\"v2\\\"\"}");

    CHECK_OK(normcache_close(cache));
}

int main(void)
{
    test_cache_first();
    test_cache_only();
    test_network_only();
    test_no_store();
    test_network_first();
    test_cache_and_network();
    test_stale_while_revalidate();
    test_mutations_and_subscriptions();
    test_graphql_errors();
    test_replies_that_cannot_be_written();
    test_failing_and_silent_callbacks();
    test_a_callback_that_answers_twice();
    test_a_reply_kept_or_handed_on();
    test_bad_answers_are_refused();
    test_the_fetch_may_use_the_cache();
    test_bad_arguments();
    test_documents_come_back_as_written();
    test_a_document_expires_after_its_lifetime();
    test_no_store_and_bad_input_write_nothing();
    test_a_record_of_fields_is_not_a_document();
    test_documents_are_invalidated_and_removed_by_prefix();
    test_the_rest_flow();
    test_documents_with_entities();
    test_revalidation();
    return 0;
}
