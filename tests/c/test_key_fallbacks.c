/*
 * test_key_fallbacks.c — key fallbacks through the C interface: an object of a keyed
 * type that lacks its key fields is keyed by its path and counted
 * (normcache_normalize_ex's out_key_fallbacks, normcache_write_options' key_fallbacks
 * for normcache_write_ex and normcache_write_fragment_ex), and NORMCACHE_WRITE_STRICT_KEYS
 * makes it NORMCACHE_EDATA with a message naming the path, the type and the key fields,
 * with nothing written (every record compared before and after); the flag in a fetch's
 * reply headers fails normcache_execute; normcache_normalize_ex refuses unknown flags.
 */
#include "check.h"
#include "fetching.h"

/** Articles and comments keyed by id, without a schema: a response may lack `id`. */
static const char *rules =
    "{\"typePolicies\": {\"Article\": {\"keyFields\": [\"id\"]}, \"Comment\": {\"keyFields\": [\"id\"]}}}";

static const char *feed_query = "query Feed { feed(first: 3) { title } }";

/** The third article lacks its id. */
static const char *feed_response =
    "{\"data\": {\"feed\": [{\"__typename\": \"Article\", \"id\": \"1\", \"title\": \"One\"}, "
    "{\"__typename\": \"Article\", \"id\": \"2\", \"title\": \"Two\"}, {\"__typename\": \"Article\", \"title\": \"Three\"}]}}";

/** The records of feed_response: the third article under its path. */
#define FEED_RECORDS                                                                                                 \
    "{\"Article:1\":{\"title\":\"One\",\"__typename\":\"Article\",\"id\":\"1\"},\"Article:2\":{\"title\":\"Two\","   \
    "\"__typename\":\"Article\",\"id\":\"2\"},\"QUERY_ROOT.feed(first:3).2\":{\"title\":\"Three\",\"__typename\":"   \
    "\"Article\"},\"QUERY_ROOT\":{\"feed(first:3)\":[{\"$reference\":\"Article:1\"},{\"$reference\":\"Article:2\"}," \
    "{\"$reference\":\"QUERY_ROOT.feed(first:3).2\"}]}}"

#define FEED_ERROR                                                                           \
    "invalid response data at feed.2: Article lacks its key field 'id'; strict keys refuse " \
    "the fallback to its path key 'QUERY_ROOT.feed(first:3).2'"

/** A comment deep in a list lacks its id: feed.1.comments.2. */
static const char *thread_query = "query Feed { feed(first: 3) { title comments { text } } }";
static const char *thread_response =
    "{\"data\": {\"feed\": [{\"__typename\": \"Article\", \"id\": \"1\", \"title\": \"One\", \"comments\": []}, "
    "{\"__typename\": \"Article\", \"id\": \"2\", \"title\": \"Two\", \"comments\": ["
    "{\"__typename\": \"Comment\", \"id\": \"c1\", \"text\": \"a\"}, {\"__typename\": \"Comment\", \"id\": \"c2\", "
    "\"text\": \"b\"}, {\"__typename\": \"Comment\", \"text\": \"c\"}, {\"__typename\": \"Comment\", \"text\": \"d\"}]}]}}";

/** A new cache with the rules. */
static normcache *rules_cache(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    CHECK_OK(normcache_configure(cache, rules, strlen(rules)));
    return cache;
}

/** Implements CHECK_WRITE_EX_FAILS. */
static void check_write_ex_fails_at(int line, normcache *cache, normcache_op *op, const char *response,
                                    const normcache_write_options *options, int code, const char *message)
{
    char *out = (char *)(void *)&out;
    size_t length = 7;
    nc_text before = {0};
    int listed = nc_dump_records(cache, &before);
    int got = normcache_write_ex(cache, op, NULL, 0, response, strlen(response), options, &out, &length);
    nc_check_failed_write(__FILE__, line, "normcache_write_ex", got, code, out, length, message, cache, listed, &before);
}

/**
 * Writes `response` with normcache_write_ex and fails unless it returns `code` with
 * exactly `message`, clears its output and leaves every record as it was.
 */
#define CHECK_WRITE_EX_FAILS(cache, op, response, options, code, message) \
    check_write_ex_fails_at(__LINE__, (cache), (op), (response), (options), (code), (message))

/** normcache_normalize_ex counts the fallbacks, and refuses them with the flag. */
static void test_normalize_ex_counts_and_refuses(void)
{
    normcache *cache = rules_cache();
    normcache_op *feed = nc_prepare(cache, feed_query);
    size_t fallbacks = 77;
    char *out = NULL;
    size_t length = 0;

    CHECK_OK(normcache_normalize_ex(feed, NULL, 0, feed_response, strlen(feed_response), 0, &fallbacks, &out, &length));
    nc_check_output(__FILE__, __LINE__, "records", out, length, FEED_RECORDS);
    CHECK(fallbacks == 1);
    CHECK_OK(normcache_normalize_ex(feed, NULL, 0, feed_response, strlen(feed_response), 0, NULL, &out, &length));
    nc_check_output(__FILE__, __LINE__, "records", out, length, FEED_RECORDS);
    /* normcache_normalize is normcache_normalize_ex without flags. */
    CHECK_OK(normcache_normalize(feed, NULL, 0, feed_response, strlen(feed_response), &out, &length));
    nc_check_output(__FILE__, __LINE__, "records", out, length, FEED_RECORDS);

    out = (char *)(void *)&out;
    length = 7;
    CHECK_CODE(normcache_normalize_ex(feed, NULL, 0, feed_response, strlen(feed_response), NORMCACHE_WRITE_STRICT_KEYS,
                                      &fallbacks, &out, &length),
               NORMCACHE_EDATA);
    nc_check_whole(__FILE__, __LINE__, "errmsg", normcache_errmsg(), FEED_ERROR);
    CHECK(out == NULL && length == 0 && fallbacks == 0);

    fallbacks = 77;
    CHECK_CODE(normcache_normalize_ex(feed, NULL, 0, feed_response, strlen(feed_response), 2, &fallbacks, &out, &length),
               NORMCACHE_EINVAL);
    nc_check_whole(__FILE__, __LINE__, "errmsg", normcache_errmsg(), "unknown normalize flags 0x2");
    CHECK(fallbacks == 0);
    CHECK_CODE(normcache_normalize_ex(feed, NULL, 0, feed_response, strlen(feed_response), 0, &fallbacks, NULL, &length),
               NORMCACHE_EINVAL);
    nc_check_whole(__FILE__, __LINE__, "errmsg", normcache_errmsg(), "out_records or its length pointer is NULL");
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/** write_ex counts through options->key_fallbacks; the flag makes the write fail, changing nothing. */
static void test_write_ex_counts_and_refuses(void)
{
    normcache *cache = rules_cache();
    normcache_op *feed = nc_prepare(cache, feed_query);
    normcache_write_options options = nc_write_options();
    const char *old = "{\"data\": {\"feed\": [{\"__typename\": \"Article\", \"id\": \"1\", \"title\": \"Old\"}]}}";
    size_t fallbacks = 77;
    char *out = NULL;
    size_t length = 0;

    options.key_fallbacks = &fallbacks;
    CHECK_OK(normcache_write_ex(cache, feed, NULL, 0, old, strlen(old), &options, &out, &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length,
                    "[\"Article:1.title\",\"Article:1.__typename\",\"Article:1.id\",\"QUERY_ROOT.feed(first:3)\"]");
    CHECK(fallbacks == 0);

    options.flags = NORMCACHE_WRITE_STRICT_KEYS;
    fallbacks = 77;
    CHECK_WRITE_EX_FAILS(cache, feed, feed_response, &options, NORMCACHE_EDATA, FEED_ERROR);
    CHECK(fallbacks == 0);
    CHECK_GET(cache, "Article:1", "{\"__typename\":\"Article\",\"id\":\"1\",\"title\":\"Old\"}");

    options.flags = 0;
    CHECK_OK(normcache_write_ex(cache, feed, NULL, 0, feed_response, strlen(feed_response), &options, NULL, NULL));
    CHECK(fallbacks == 1);
    CHECK_SEARCH(cache, "", NULL, 0, "[\"Article:1\",\"Article:2\",\"QUERY_ROOT\",\"QUERY_ROOT.feed(first:3).2\"]");
    CHECK_GET(cache, "QUERY_ROOT.feed(first:3).2", "{\"__typename\":\"Article\",\"title\":\"Three\"}");

    /* no-store counts nothing; neither does a failed write of another kind. */
    options.cache_control = "no-store";
    options.cache_control_len = 8;
    CHECK_CODE(normcache_write_ex(cache, feed, NULL, 0, feed_response, strlen(feed_response), &options, NULL, NULL),
               NORMCACHE_NOTSTORED);
    CHECK(fallbacks == 0);
    options = nc_write_options();
    options.key_fallbacks = &fallbacks;
    fallbacks = 77;
    CHECK_WRITE_EX_FAILS(cache, feed, "{\"data\": {\"feed\": [{\"id\": 5}]}}", &options, NORMCACHE_EDATA,
                         "invalid response data at feed.0.title: the response has no 'title'");
    CHECK(fallbacks == 0);
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/** A fallback deep in a list: its exact path in the message, nothing written; counted without the flag. */
static void test_a_fallback_deep_in_a_list(void)
{
    normcache *cache = rules_cache();
    normcache_op *thread = nc_prepare(cache, thread_query);
    normcache_write_options options = nc_write_options();
    size_t fallbacks = 77;

    options.flags = NORMCACHE_WRITE_STRICT_KEYS;
    options.key_fallbacks = &fallbacks;
    CHECK_WRITE_EX_FAILS(cache, thread, thread_response, &options, NORMCACHE_EDATA,
                         "invalid response data at feed.1.comments.2: Comment lacks its key field 'id'; strict keys "
                         "refuse the fallback to its path key 'Article:2.comments.2'");
    CHECK_SEARCH(cache, "", NULL, 0, "[]");
    CHECK(fallbacks == 0);
    options.flags = 0;
    CHECK_OK(normcache_write_ex(cache, thread, NULL, 0, thread_response, strlen(thread_response), &options, NULL, NULL));
    CHECK(fallbacks == 2);
    CHECK_GET(cache, "Article:2",
              "{\"__typename\":\"Article\",\"comments\":[{\"$reference\":\"Comment:c1\"},{\"$reference\":\"Comment:c2\"},"
              "{\"$reference\":\"Article:2.comments.2\"},{\"$reference\":\"Article:2.comments.3\"}],\"id\":\"2\","
              "\"title\":\"Two\"}");
    CHECK_OK(normcache_op_free(thread));
    CHECK_OK(normcache_close(cache));
}

/** write_fragment_ex counts the fallbacks below its key, and refuses them with the flag. */
static void test_write_fragment_ex_counts_and_refuses(void)
{
    normcache *cache = rules_cache();
    normcache_op *fragment = nc_prepare(cache, "fragment Thread on Article { title comments { text } }");
    normcache_write_options options = nc_write_options();
    const char *data = "{\"title\": \"One\", \"comments\": [{\"__typename\": \"Comment\", \"id\": \"c1\", \"text\": \"a\"}, "
                       "{\"__typename\": \"Comment\", \"text\": \"b\"}]}";
    size_t fallbacks = 77;
    char *out = (char *)(void *)&out;
    size_t length = 7;

    options.flags = NORMCACHE_WRITE_STRICT_KEYS;
    options.key_fallbacks = &fallbacks;
    CHECK_CODE(normcache_write_fragment_ex(cache, fragment, "Article:1", 9, data, strlen(data), NULL, 0, &options, &out,
                                           &length),
               NORMCACHE_EDATA);
    nc_check_whole(__FILE__, __LINE__, "errmsg", normcache_errmsg(),
                   "invalid response data at comments.1: Comment lacks its key field 'id'; strict keys refuse the "
                   "fallback to its path key 'Article:1.comments.1'");
    CHECK(out == NULL && length == 0 && fallbacks == 0);
    CHECK_SEARCH(cache, "", NULL, 0, "[]");
    options.flags = 0;
    CHECK_OK(normcache_write_fragment_ex(cache, fragment, "Article:1", 9, data, strlen(data), NULL, 0, &options, &out,
                                         &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length,
                    "[\"Comment:c1.text\",\"Comment:c1.__typename\",\"Comment:c1.id\",\"Article:1.comments.1.text\","
                    "\"Article:1.comments.1.__typename\",\"Article:1.title\",\"Article:1.comments\"]");
    CHECK(fallbacks == 1);
    CHECK_OK(normcache_op_free(fragment));
    CHECK_OK(normcache_close(cache));
}

/** The flag in a fetch's reply headers fails execute with the write's error; nothing is written. */
static void test_strict_keys_in_a_reply(void)
{
    struct nc_clock clock = {NC_START};
    normcache *cache = rules_cache();
    normcache_op *feed = nc_prepare(cache, feed_query);
    normcache_execute_options options = nc_execute_options(NORMCACHE_NETWORK_ONLY, -1, NORMCACHE_ERRORS_NONE);
    normcache_write_options headers = nc_write_options();
    size_t fallbacks = 77;
    struct nc_network net = nc_network(feed_response);

    CHECK_OK(normcache_set_clock(cache, nc_clock_now, &clock));
    headers.flags = NORMCACHE_WRITE_STRICT_KEYS;
    headers.key_fallbacks = &fallbacks;
    net.headers = &headers;
    NC_CHECK_EXECUTE_FAILS(cache, feed, NULL, NULL, &options, &net, NORMCACHE_EDATA, FEED_ERROR, "");
    CHECK(fallbacks == 0);
    CHECK_SEARCH(cache, "", NULL, 0, "[]");
    nc_network_free(&net);
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

int main(void)
{
    test_normalize_ex_counts_and_refuses();
    test_write_ex_counts_and_refuses();
    test_a_fallback_deep_in_a_list();
    test_write_fragment_ex_counts_and_refuses();
    test_strict_keys_in_a_reply();
    return 0;
}
