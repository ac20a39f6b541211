/*
 * test_freshness.c — freshness through the C interface, with a clock the test sets
 * (normcache_set_clock): max-age rules from normcache_configure ("maxAges",
 * "defaultMaxAge") and from SDL (@cacheControl, @cacheControlField) and their
 * precedence; lifetimes from normcache_write_ex (max_age, Cache-Control, Age, Date,
 * Expires, no-cache, no-store), normcache_put_ex and normcache_write_fragment_ex, and
 * options of the struct's first version; normcache_read_ex's whole result (OK, STALE, MISS,
 * with and without a fragment key); normcache_invalidate by record, field and prefix;
 * the clock's failures and the system clock; and bad input, each with its exact
 * status and message, checking after every failed write that nothing was written.
 * Outputs are compared byte for byte.
 */
#include "check.h"

/** Sun, 06 Nov 1994 08:49:37 GMT (RFC 9110's example date): the clock starts here. */
#define START INT64_C(784111777)

/** A clock the test moves: `now` is answered, `calls` counts the questions. */
struct test_clock {
    int64_t now;
    unsigned calls;
};

/** The normcache_clock over a struct test_clock. */
static int64_t test_clock_now(void *context)
{
    struct test_clock *clock = context;
    clock->calls++;
    return clock->now;
}

/** The schema of the feed: articles and users, keyed by id, behind an interface. */
static const char *feed_schema =
    "type Query { feed(first: Int): [Article] node(id: ID!): Node }\n"
    "interface Node { id: ID! }\n"
    "type Article implements Node { id: ID! title: String body: String author: User }\n"
    "type User implements Node { id: ID! name: String }\n"
    "extend type Article @typePolicy(keyFields: \"id\")\n"
    "extend type User @typePolicy(keyFields: \"id\")\n";

static const char *feed_query = "query Feed { feed(first: 2) { id title body author { id name } } }";

static const char *feed_response =
    "{\"data\": {\"feed\": [{\"__typename\": \"Article\", \"id\": \"1\", \"title\": \"One\", \"body\": \"B1\", "
    "\"author\": {\"__typename\": \"User\", \"id\": \"7\", \"name\": \"Ada\"}}, "
    "{\"__typename\": \"Article\", \"id\": \"2\", \"title\": \"Two\", \"body\": \"B2\", "
    "\"author\": {\"__typename\": \"User\", \"id\": \"7\", \"name\": \"Ada\"}}]}}";

/** The data of the feed, as a read rebuilds it. */
#define FEED_DATA                                                                                             \
    "{\"feed\":[{\"id\":\"1\",\"title\":\"One\",\"body\":\"B1\",\"author\":{\"id\":\"7\",\"name\":\"Ada\"}}," \
    "{\"id\":\"2\",\"title\":\"Two\",\"body\":\"B2\",\"author\":{\"id\":\"7\",\"name\":\"Ada\"}}]}"

/** The 14 fields the feed's response writes, as normcache_write reports them. */
#define FEED_CHANGED                                                                             \
    "[\"User:7.id\",\"User:7.name\",\"User:7.__typename\",\"Article:1.id\",\"Article:1.title\"," \
    "\"Article:1.body\",\"Article:1.author\",\"Article:1.__typename\",\"Article:2.id\","         \
    "\"Article:2.title\",\"Article:2.body\",\"Article:2.author\",\"Article:2.__typename\","      \
    "\"QUERY_ROOT.feed(first:2)\"]"

/** A miss entry of the feed's field `field` of article `n` (0 or 1), stale or invalidated. */
#define ARTICLE_ENTRY(n, id, field, reason, written, expired)                                      \
    "{\"path\":[\"feed\"," #n ",\"" field "\"],\"reason\":\"" reason "\",\"record\":\"Article:" id \
    "\",\"field\":\"" field "\",\"writtenAt\":" written ",\"expiredAt\":" expired "}"

/** Prepares `document` on `cache`, failing the test unless it works. */
static normcache_op *prepare(normcache *cache, const char *document)
{
    normcache_op *op = NULL;
    CHECK_OK(normcache_prepare(cache, document, strlen(document), NULL, 0, &op));
    CHECK(op != NULL);
    return op;
}

/**
 * A new cache with `clock` set at START, the feed schema plus `extra_sdl` (NULL: none),
 * then `configuration` given to normcache_configure (NULL: none).
 */
static normcache *feed_cache(struct test_clock *clock, const char *extra_sdl, const char *configuration)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    nc_text sdl = {0};
    nc_append(&sdl, feed_schema, strlen(feed_schema));
    if (extra_sdl != NULL) {
        nc_append(&sdl, extra_sdl, strlen(extra_sdl));
    }
    clock->now = START;
    clock->calls = 0;
    CHECK_OK(normcache_set_clock(cache, test_clock_now, clock));
    CHECK_OK(normcache_load_schema(cache, sdl.data, sdl.len));
    free(sdl.data);
    if (configuration != NULL) {
        CHECK_OK(normcache_configure(cache, configuration, strlen(configuration)));
    }
    return cache;
}

/** Writes the feed with normcache_write, failing unless every field changed. */
static void write_feed(normcache *cache, normcache_op *feed)
{
    char *out = NULL;
    size_t length = 0;
    CHECK_OK(normcache_write(cache, feed, NULL, 0, feed_response, strlen(feed_response), &out, &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length, FEED_CHANGED);
}

/** Implements CHECK_READ: normcache_read with `flags`. */
static void check_read_at(int line, normcache *cache, normcache_op *op, unsigned flags, int code,
                          const char *expected)
{
    char *out = NULL;
    size_t length = 0;
    nc_check_code(__FILE__, line, "normcache_read", normcache_read(cache, op, NULL, 0, flags, &out, &length), code);
    nc_check_output(__FILE__, line, "read", out, length, expected);
}

/** Reads `op` with normcache_read and fails unless the status and output are exact. */
#define CHECK_READ(cache, op, flags, code, expected) \
    check_read_at(__LINE__, (cache), (op), (flags), (code), (expected))

/** Implements CHECK_READ_EX. */
static void check_read_ex_at(int line, normcache *cache, normcache_op *op, const char *key,
                             const normcache_read_options *options, int code, const char *expected)
{
    char *out = NULL;
    size_t length = 0;
    nc_check_code(__FILE__, line, "normcache_read_ex",
                  normcache_read_ex(cache, op, key, key == NULL ? 0 : strlen(key), NULL, 0, options, &out, &length),
                  code);
    nc_check_output(__FILE__, line, "read_ex", out, length, expected);
}

/**
 * Reads `op` with normcache_read_ex (at the C string `key`, or NULL for an operation)
 * and fails unless the status and the whole result are exact.
 */
#define CHECK_READ_EX(cache, op, key, options, code, expected) \
    check_read_ex_at(__LINE__, (cache), (op), (key), (options), (code), (expected))

/** Read options of the first version: `flags` and `max_stale`. */
static normcache_read_options read_options(unsigned flags, int64_t max_stale)
{
    normcache_read_options options;
    memset(&options, 0, sizeof options);
    options.size = sizeof options;
    options.flags = flags;
    options.max_stale = max_stale;
    return options;
}

/** The size of the first version of normcache_write_options, which ended before `flags`. */
#define FIRST_VERSION offsetof(normcache_write_options, flags)

/** Write options of the current version with no lifetime, no headers and no flags. */
static normcache_write_options write_options(void)
{
    normcache_write_options options;
    memset(&options, 0, sizeof options);
    options.size = sizeof options;
    options.max_age = -1;
    return options;
}

/** Sets one header of write options to the C string `value` (NULL: absent). */
#define SET_HEADER(options, header, value)                                  \
    do {                                                                    \
        const char *nc_value_ = (value);                                    \
        (options).header = nc_value_;                                       \
        (options).header##_len = nc_value_ == NULL ? 0 : strlen(nc_value_); \
    } while (0)

/** Implements CHECK_WRITE_EX_FAILS. */
static void check_write_ex_fails_at(int line, normcache *cache, normcache_op *op,
                                    const normcache_write_options *options, int code, const char *message)
{
    char *out = (char *)(void *)&out;
    size_t length = 7;
    nc_text before = {0};
    int listed = nc_dump_records(cache, &before);
    int got = normcache_write_ex(cache, op, NULL, 0, feed_response, strlen(feed_response), options, &out, &length);
    nc_check_failed_write(__FILE__, line, "normcache_write_ex", got, code, out, length, message, cache, listed, &before);
}

/**
 * Writes the feed with normcache_write_ex and `options`, and fails unless the status is
 * `code`, the output is cleared, the message is exactly `message` and (when the handle
 * can be listed) every record is as it was.
 */
#define CHECK_WRITE_EX_FAILS(cache, op, options, code, message) \
    check_write_ex_fails_at(__LINE__, (cache), (op), (options), (code), (message))

/* ---------------------------------------------------------------------------
 * Rules from configure
 * ------------------------------------------------------------------------- */

/** Without a rule, a default or a lifetime, data never expires; the read says so. */
static void test_without_rules_data_never_expires(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, NULL);
    normcache_op *feed = prepare(cache, feed_query);
    normcache_read_options options = read_options(0, -1);

    write_feed(cache, feed);
    clock.now = START + INT64_C(100) * 365 * 86400;
    CHECK_READ(cache, feed, 0, NORMCACHE_OK, FEED_DATA);
    CHECK_READ_EX(cache, feed, NULL, &options, NORMCACHE_OK,
                  "{\"data\":" FEED_DATA ",\"missing\":[],\"stale\":[],\"oldestWrittenAt\":784111777,"
                  "\"earliestExpiry\":null}");
    CHECK_READ_EX(cache, feed, NULL, NULL, NORMCACHE_OK,
                  "{\"data\":" FEED_DATA ",\"missing\":[],\"stale\":[],\"oldestWrittenAt\":784111777,"
                  "\"earliestExpiry\":null}");
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/** The clock is asked at most once per call, on the calling thread. */
static void test_the_clock_is_asked_at_most_once_per_call(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, "{\"maxAges\": {\"Article\": 1800}}");
    normcache_op *feed = prepare(cache, feed_query);
    normcache_read_options options = read_options(NORMCACHE_READ_PARTIAL, 5);
    uint64_t count = 0;
    unsigned before;
    char *out = NULL;
    size_t length = 0;

    before = clock.calls;
    CHECK_OK(normcache_write(cache, feed, NULL, 0, feed_response, strlen(feed_response), NULL, NULL));
    CHECK(clock.calls - before <= 1);
    before = clock.calls;
    CHECK_OK(normcache_read(cache, feed, NULL, 0, 0, &out, &length));
    normcache_free(out);
    CHECK(clock.calls - before <= 1);
    before = clock.calls;
    CHECK_OK(normcache_read_ex(cache, feed, NULL, 0, NULL, 0, &options, &out, &length));
    normcache_free(out);
    CHECK(clock.calls - before <= 1);
    before = clock.calls;
    CHECK_OK(normcache_invalidate(cache, "Article:", 8, NULL, 0, NORMCACHE_INVALIDATE_PREFIX, &count));
    CHECK(count == 10);
    CHECK(clock.calls - before <= 1);
    CHECK(clock.calls >= 1);
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/**
 * One moment of a timeline: at START + `after` seconds, normcache_read with `flags`
 * answers `code` and exactly `expected`.
 */
struct moment {
    int64_t after;
    unsigned flags;
    int code;
    const char *expected;
};

/** Implements CHECK_TIMELINE. */
static void check_timeline_at(int line, struct test_clock *clock, normcache *cache, normcache_op *op,
                              const struct moment *moments, size_t count)
{
    size_t i;
    for (i = 0; i < count; i++) {
        char *out = NULL;
        size_t length = 0;
        char what[64];
        snprintf(what, sizeof what, "the read at START + %lld", (long long)moments[i].after);
        clock->now = START + moments[i].after;
        nc_check_code(__FILE__, line, what, normcache_read(cache, op, NULL, 0, moments[i].flags, &out, &length),
                      moments[i].code);
        nc_check_output(__FILE__, line, what, out, length, moments[i].expected);
    }
}

/** Moves `clock` through the array `moments` and checks the read of `op` at each. */
#define CHECK_TIMELINE(clock, cache, op, moments) \
    check_timeline_at(__LINE__, (clock), (cache), (op), (moments), sizeof(moments) / sizeof((moments)[0]))

/** The author entries of both articles, stale, expired at `expired`. */
#define AUTHOR_ENTRIES(expired)                                                                             \
    "{\"path\":[\"feed\",0,\"author\"],\"reason\":\"stale\",\"record\":\"Article:1\",\"field\":\"author\"," \
    "\"writtenAt\":784111777,\"expiredAt\":" expired "},"                                                   \
    "{\"path\":[\"feed\",1,\"author\"],\"reason\":\"stale\",\"record\":\"Article:2\",\"field\":\"author\"," \
    "\"writtenAt\":784111777,\"expiredAt\":" expired "}"

/** The feed's own entry, stale, expired at `expired`. */
#define FEED_ENTRY(expired)                                                                            \
    "{\"path\":[\"feed\"],\"reason\":\"stale\",\"record\":\"QUERY_ROOT\",\"field\":\"feed(first:2)\"," \
    "\"writtenAt\":784111777,\"expiredAt\":" expired "}"

/** The body entries of both articles, stale, expired at `expired`. */
#define BODY_ENTRIES(expired)                                    \
    ARTICLE_ENTRY(0, "1", "body", "stale", "784111777", expired) \
    "," ARTICLE_ENTRY(1, "2", "body", "stale", "784111777", expired)

/** A miss of normcache_read without data, listing `entries`. */
#define MISS_OF(entries) "{\"data\":null,\"missing\":[" entries "]}"

/**
 * Where the rules of a test come from: SDL added to the feed's schema (NULL: none) and
 * a configuration (NULL: none). The setups of one test say the same rules two ways.
 */
struct rule_setup {
    const char *sdl;
    const char *configuration;
};

/** Writes the feed at START on a cache set up by `setup` and checks `count` moments. */
static void check_feed_timeline_at(int line, const struct rule_setup *setup, const struct moment *moments,
                                   size_t count)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, setup->sdl, setup->configuration);
    normcache_op *feed = prepare(cache, feed_query);
    write_feed(cache, feed);
    check_timeline_at(line, &clock, cache, feed, moments, count);
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/** Checks the feed's timeline `moments` under every setup of the array `setups`. */
#define CHECK_FEED_TIMELINES(setups, moments)                                                \
    do {                                                                                     \
        size_t nc_setup_;                                                                    \
        for (nc_setup_ = 0; nc_setup_ < sizeof(setups) / sizeof((setups)[0]); nc_setup_++) { \
            check_feed_timeline_at(__LINE__, &(setups)[nc_setup_], (moments),                \
                                   sizeof(moments) / sizeof((moments)[0]));                  \
        }                                                                                    \
    } while (0)

/** The node query of the tests, and the response that writes Article:1 through it. */
static const char *node_query = "query { node(id: \"1\") { id } }";
static const char *node_response = "{\"data\": {\"node\": {\"__typename\": \"Article\", \"id\": \"1\"}}}";

/** Implements CHECK_FEED_AND_NODE_TIMELINES; closes `cache`. */
static void check_feed_and_node_timelines_at(int line, struct test_clock *clock, normcache *cache,
                                             const struct moment *feed_moments, size_t feed_count,
                                             const struct moment *node_moments, size_t node_count)
{
    normcache_op *feed = prepare(cache, feed_query);
    normcache_op *node = prepare(cache, node_query);
    write_feed(cache, feed);
    CHECK_OK(normcache_write(cache, node, NULL, 0, node_response, strlen(node_response), NULL, NULL));
    check_timeline_at(line, clock, cache, feed, feed_moments, feed_count);
    check_timeline_at(line, clock, cache, node, node_moments, node_count);
    CHECK_OK(normcache_op_free(node));
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/**
 * Writes the feed and the node at START on `cache` (its clock `clock`), checks the
 * timelines of both arrays of moments, and closes the cache.
 */
#define CHECK_FEED_AND_NODE_TIMELINES(clock, cache, feed_moments, node_moments)                        \
    check_feed_and_node_timelines_at(__LINE__, (clock), (cache), (feed_moments),                       \
                                     sizeof(feed_moments) / sizeof((feed_moments)[0]), (node_moments), \
                                     sizeof(node_moments) / sizeof((node_moments)[0]))

/**
 * A type's rule expires the root field of that type (feed is a list of Article): the
 * read does not go below it. From configure, and from @cacheControl on the type.
 */
static void test_a_type_rule_expires_the_root_field(void)
{
    static const struct rule_setup setups[] = {
        {NULL, "{\"maxAges\": {\"Article\": 1800}}"},
        {"extend type Article @cacheControl(maxAge: 1800)\n", NULL},
    };
    static const struct moment moments[] = {
        {1799, 0, NORMCACHE_OK, FEED_DATA},
        {1800, 0, NORMCACHE_MISS, MISS_OF(FEED_ENTRY("784113577"))},
        {1800, NORMCACHE_READ_PARTIAL, NORMCACHE_MISS,
         "{\"data\":{\"feed\":null},\"missing\":[" FEED_ENTRY("784113577") "]}"},
    };
    CHECK_FEED_TIMELINES(setups, moments);
}

/** A field's rule beats its type's: only the bodies expire; partial nulls them. */
static void test_a_field_rule_beats_the_type_rule(void)
{
    static const struct rule_setup setups[] = {
        {NULL, "{\"maxAges\": {\"Article\": 1800, \"Article.body\": 30}}"},
        {"extend type Article @cacheControl(maxAge: 1800) @cacheControlField(name: \"body\", maxAge: 30)\n", NULL},
    };
    static const struct moment moments[] = {
        {29, 0, NORMCACHE_OK, FEED_DATA},
        {30, NORMCACHE_READ_PARTIAL, NORMCACHE_MISS,
         "{\"data\":{\"feed\":[{\"id\":\"1\",\"title\":\"One\",\"body\":null,\"author\":{\"id\":\"7\",\"name\":\"Ada\"}},"
         "{\"id\":\"2\",\"title\":\"Two\",\"body\":null,\"author\":{\"id\":\"7\",\"name\":\"Ada\"}}]},"
         "\"missing\":[" BODY_ENTRIES("784111807") "]}"},
    };
    CHECK_FEED_TIMELINES(setups, moments);
}

/**
 * A child is never fresher than the path to it: title's 5000 (and Article's 1800) is
 * bounded by feed's 60; the User type's 10 expires the authors first. From configure,
 * and from @cacheControl on the types with Apollo Kotlin's @cacheControlField on Query.
 */
static void test_a_child_is_never_fresher_than_its_path(void)
{
    static const struct rule_setup setups[] = {
        {NULL, "{\"maxAges\": {\"Query.feed\": 60, \"Article.title\": 5000, \"User\": 10}}"},
        {"extend type Article @cacheControl(maxAge: 1800) @cacheControlField(name: \"title\", maxAge: 5000)\n"
         "extend type User @cacheControl(maxAge: 10)\n"
         "extend type Query @cacheControlField(name: \"feed\", maxAge: 60)\n",
         NULL},
    };
    static const struct moment moments[] = {
        {9, 0, NORMCACHE_OK, FEED_DATA},
        {10, 0, NORMCACHE_MISS, MISS_OF(AUTHOR_ENTRIES("784111787"))},
        {59, 0, NORMCACHE_MISS, MISS_OF(AUTHOR_ENTRIES("784111787"))},
        {60, 0, NORMCACHE_MISS, MISS_OF(FEED_ENTRY("784111837"))},
    };
    CHECK_FEED_TIMELINES(setups, moments);
}

/**
 * "inherit" (inheritMaxAge: true) takes the parent field's max age instead of the
 * type's: the authors last as long as the feed, not User's 10.
 */
static void test_inherit_takes_the_parent_fields_max_age(void)
{
    static const struct rule_setup setups[] = {
        {NULL, "{\"maxAges\": {\"Query.feed\": 60, \"User\": 10, \"Article.author\": \"inherit\"}}"},
        {"extend type User @cacheControl(maxAge: 10)\n"
         "extend type Article @cacheControlField(name: \"author\", inheritMaxAge: true)\n"
         "extend type Query @cacheControlField(name: \"feed\", maxAge: 60)\n",
         NULL},
    };
    static const struct moment moments[] = {
        {59, 0, NORMCACHE_OK, FEED_DATA},
        {60, 0, NORMCACHE_MISS, MISS_OF(FEED_ENTRY("784111837"))},
    };
    CHECK_FEED_TIMELINES(setups, moments);
}

/**
 * The default applies to root fields and composite fields without a rule; a leaf
 * inherits its parent's; the root field is not bounded by the root's default.
 */
static void test_the_default_max_age(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, "{\"defaultMaxAge\": 100, \"maxAges\": {\"Query.feed\": 500}}");
    static const struct moment feed_moments[] = {
        {99, 0, NORMCACHE_OK, FEED_DATA},
        {100, NORMCACHE_READ_PARTIAL, NORMCACHE_MISS,
         "{\"data\":{\"feed\":[{\"id\":\"1\",\"title\":\"One\",\"body\":\"B1\",\"author\":null},"
         "{\"id\":\"2\",\"title\":\"Two\",\"body\":\"B2\",\"author\":null}]},"
         "\"missing\":[" AUTHOR_ENTRIES("784111877") "]}"},
        {500, 0, NORMCACHE_MISS, MISS_OF(FEED_ENTRY("784112277"))},
    };
    static const struct moment node_moments[] = {
        {99, 0, NORMCACHE_OK, "{\"node\":{\"id\":\"1\"}}"},
        {100, 0, NORMCACHE_MISS,
         MISS_OF("{\"path\":[\"node\"],\"reason\":\"stale\",\"record\":\"QUERY_ROOT\",\"field\":\"node(id:1)\","
                 "\"writtenAt\":784111777,\"expiredAt\":784111877}")},
    };

    CHECK_FEED_AND_NODE_TIMELINES(&clock, cache, feed_moments, node_moments);
}

/**
 * A field's rule is found on the object's concrete typename (node is declared Node),
 * and on the interfaces of the type ("Node.id" for Article.id).
 */
static void test_rules_on_the_concrete_type_and_its_interfaces(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, "{\"maxAges\": {\"Article.title\": 10, \"Node.id\": 20}}");
    normcache_op *node = prepare(cache, "query { node(id: \"1\") { id ... on Article { title } } }");
    const char *response = "{\"data\": {\"node\": {\"__typename\": \"Article\", \"id\": \"1\", \"title\": \"One\"}}}";
    static const struct moment moments[] = {
        {9, 0, NORMCACHE_OK, "{\"node\":{\"id\":\"1\",\"title\":\"One\"}}"},
        {10, 0, NORMCACHE_MISS,
         MISS_OF("{\"path\":[\"node\",\"title\"],\"reason\":\"stale\",\"record\":\"Article:1\","
                 "\"field\":\"title\",\"writtenAt\":784111777,\"expiredAt\":784111787}")},
        {20, NORMCACHE_READ_PARTIAL, NORMCACHE_MISS,
         "{\"data\":{\"node\":{\"id\":null,\"title\":null}},\"missing\":["
         "{\"path\":[\"node\",\"id\"],\"reason\":\"stale\",\"record\":\"Article:1\","
         "\"field\":\"id\",\"writtenAt\":784111777,\"expiredAt\":784111797},"
         "{\"path\":[\"node\",\"title\"],\"reason\":\"stale\",\"record\":\"Article:1\","
         "\"field\":\"title\",\"writtenAt\":784111777,\"expiredAt\":784111787}]}"},
    };

    CHECK_OK(normcache_write(cache, node, NULL, 0, response, strlen(response), NULL, NULL));
    CHECK_TIMELINE(&clock, cache, node, moments);
    CHECK_OK(normcache_op_free(node));
    CHECK_OK(normcache_close(cache));
}

/** A rule configured after the write applies to the data already there, both ways. */
static void test_a_rule_configured_later_applies_without_rewriting(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, NULL);
    normcache_op *feed = prepare(cache, feed_query);
    const char *short_rule = "{\"maxAges\": {\"Query.feed\": 60}}";
    const char *long_rule = "{\"maxAges\": {\"Query.feed\": 3600}}";

    write_feed(cache, feed);
    clock.now = START + 61;
    CHECK_READ(cache, feed, 0, NORMCACHE_OK, FEED_DATA);
    CHECK_OK(normcache_configure(cache, short_rule, strlen(short_rule)));
    CHECK_READ(cache, feed, 0, NORMCACHE_MISS, MISS_OF(FEED_ENTRY("784111837")));
    CHECK_OK(normcache_configure(cache, long_rule, strlen(long_rule)));
    CHECK_READ(cache, feed, 0, NORMCACHE_OK, FEED_DATA);
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/** Bad max-age configuration: exact codes and messages, and the rules stay as they were. */
static void test_bad_max_age_configuration(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, NULL);
    normcache_op *feed = prepare(cache, feed_query);
    const struct {
        const char *config;
        int code;
        const char *message;
    } cases[] = {
        {"{\"maxAges\": {\"Query.feed\": -1}}", NORMCACHE_EINVAL,
         "configuration error at byte 27: maxAges.Query.feed must be an integer from 0 to 2147483647 or \"inherit\""},
        {"{\"maxAges\": {\"Query.feed\": \"soon\"}}", NORMCACHE_EINVAL,
         "configuration error at byte 28: maxAges.Query.feed must be an integer from 0 to 2147483647 or \"inherit\""},
        {"{\"maxAges\": {\"Query.feed\": 2147483648}}", NORMCACHE_EINVAL,
         "configuration error at byte 27: maxAges.Query.feed must be an integer from 0 to 2147483647 or \"inherit\""},
        {"{\"maxAges\": 5}", NORMCACHE_EINVAL, "configuration error at byte 12: maxAges must be a JSON object"},
        {"{\"defaultMaxAge\": \"inherit\"}", NORMCACHE_EINVAL,
         "configuration error at byte 19: defaultMaxAge must be an integer from 0 to 2147483647 or null"},
        {"{\"maxAges\": {\"Query.fede\": 60}}", NORMCACHE_ESCHEMA,
         "configuration error at byte 27: maxAges.Query.fede names no field of 'Query' (did you mean 'feed'?)"},
        /* A good rule beside a bad one is not added either. */
        {"{\"maxAges\": {\"Query.feed\": 1, \"Article\": -5}}", NORMCACHE_EINVAL,
         "configuration error at byte 41: maxAges.Article must be an integer from 0 to 2147483647 or \"inherit\""},
    };
    size_t i;

    write_feed(cache, feed);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_CODE(normcache_configure(cache, cases[i].config, strlen(cases[i].config)), cases[i].code);
        CHECK_ERRMSG_IS(cases[i].message);
    }
    clock.now = START + 100000;
    CHECK_READ(cache, feed, 0, NORMCACHE_OK, FEED_DATA);
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/* ---------------------------------------------------------------------------
 * Rules from SDL, and their precedence
 * ------------------------------------------------------------------------- */

/**
 * The schema with field directives written in place: @cacheControl on an interface, on
 * types and on fields (maxAge and inheritMaxAge), @cacheControlField on Query, and one
 * on Article.body that the field's own @cacheControl beats.
 */
static const char *sdl_field_rules =
    "type Query { feed(first: Int): [Article] node(id: ID!): Node }\n"
    "interface Node @cacheControl(maxAge: 40) { id: ID! }\n"
    "type Article implements Node @cacheControl(maxAge: 1800) { id: ID! title: String "
    "body: String @cacheControl(maxAge: 30) author: User @cacheControl(inheritMaxAge: true) }\n"
    "type User implements Node @cacheControl(maxAge: 10) { id: ID! name: String }\n"
    "extend type Article @typePolicy(keyFields: \"id\") @cacheControlField(name: \"body\", maxAge: 500)\n"
    "extend type User @typePolicy(keyFields: \"id\")\n"
    "extend type Query @cacheControlField(name: \"feed\", maxAge: 60)\n";

/** A new cache with `clock` at START and the SDL `sdl` (whole, not added to the feed's). */
static normcache *sdl_cache(struct test_clock *clock, const char *sdl)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    clock->now = START;
    clock->calls = 0;
    CHECK_OK(normcache_set_clock(cache, test_clock_now, clock));
    CHECK_OK(normcache_load_schema(cache, sdl, strlen(sdl)));
    return cache;
}

/**
 * A field's @cacheControl beats its type's and a @cacheControlField naming it: body's
 * 30 beats Article's 1800 and the 500; author's inheritMaxAge takes feed's 60 instead of
 * User's 10. An interface's @cacheControl is the type rule of a root field of that type.
 */
static void test_sdl_field_rules_and_inherit(void)
{
    struct test_clock clock;
    normcache *cache = sdl_cache(&clock, sdl_field_rules);
    static const struct moment feed_moments[] = {
        {29, 0, NORMCACHE_OK, FEED_DATA},
        {30, 0, NORMCACHE_MISS, MISS_OF(BODY_ENTRIES("784111807"))},
        {59, 0, NORMCACHE_MISS, MISS_OF(BODY_ENTRIES("784111807"))},
        {60, 0, NORMCACHE_MISS, MISS_OF(FEED_ENTRY("784111837"))},
    };
    static const struct moment node_moments[] = {
        {39, 0, NORMCACHE_OK, "{\"node\":{\"id\":\"1\"}}"},
        {40, 0, NORMCACHE_MISS,
         MISS_OF("{\"path\":[\"node\"],\"reason\":\"stale\",\"record\":\"QUERY_ROOT\",\"field\":\"node(id:1)\","
                 "\"writtenAt\":784111777,\"expiredAt\":784111817}")},
    };

    CHECK_FEED_AND_NODE_TIMELINES(&clock, cache, feed_moments, node_moments);
}

/**
 * A configured coordinate replaces the schema's: Query.feed 120 replaces
 * @cacheControlField's 60, Article.author 20 replaces its inheritMaxAge, and
 * Article.body "inherit" replaces its 30.
 */
static void test_configured_rules_replace_the_schemas(void)
{
    struct test_clock clock;
    normcache *cache = sdl_cache(&clock, sdl_field_rules);
    normcache_op *feed = prepare(cache, feed_query);
    const char *rules = "{\"maxAges\": {\"Query.feed\": 120, \"Article.author\": 20, \"Article.body\": \"inherit\"}}";
    static const struct moment moments[] = {
        {19, 0, NORMCACHE_OK, FEED_DATA},
        {20, 0, NORMCACHE_MISS, MISS_OF(AUTHOR_ENTRIES("784111797"))},
        {119, 0, NORMCACHE_MISS, MISS_OF(AUTHOR_ENTRIES("784111797"))},
        {120, 0, NORMCACHE_MISS, MISS_OF(FEED_ENTRY("784111897"))},
    };

    CHECK_OK(normcache_configure(cache, rules, strlen(rules)));
    write_feed(cache, feed);
    CHECK_TIMELINE(&clock, cache, feed, moments);
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/** Malformed directives are schema errors at the directive; the schema is not loaded. */
static void test_bad_sdl_rules(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    const char *cases[][2] = {
        {"type Query { a: Int } extend type Query @cacheControl(maxAge: -1)",
         "GraphQL error at line 1, column 41: maxAge of @cacheControl on 'Query' must be an integer from 0 to "
         "2147483647, not -1"},
        {"type Query { a: Int @cacheControl(maxAge: 5, inheritMaxAge: true) }",
         "GraphQL error at line 1, column 21: @cacheControl on 'Query.a' has both maxAge and inheritMaxAge: true "
         "(give one)"},
        {"type Query { a: Int } extend type Query @cacheControlField(name: \"b\", maxAge: 5)",
         "GraphQL error at line 1, column 41: @cacheControlField on 'Query' names 'b', which is not a field of "
         "'Query' (did you mean 'a'?)"},
        {"type Query { a: Int } extend type Query @cacheControl(maxAge: 5, ttl: 3)",
         "GraphQL error at line 1, column 41: @cacheControl on 'Query' has an unknown argument 'ttl' (known: maxAge, "
         "inheritMaxAge, scope)"},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_CODE(normcache_load_schema(cache, cases[i][0], strlen(cases[i][0])), NORMCACHE_ESCHEMA);
        CHECK_ERRMSG_IS(cases[i][1]);
    }
    CHECK_OK(normcache_close(cache));
}

/* ---------------------------------------------------------------------------
 * Lifetimes from the write
 * ------------------------------------------------------------------------- */

/** Stale data within max_stale is returned and listed (NORMCACHE_STALE); one second more misses. */
static void test_max_stale_returns_stale_data_and_lists_it(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, "{\"maxAges\": {\"Article.body\": 30}}");
    normcache_op *feed = prepare(cache, feed_query);
    normcache_read_options allowed = read_options(0, 10);
    normcache_read_options too_old = read_options(0, 9);
    normcache_read_options partial = read_options(NORMCACHE_READ_PARTIAL, 9);
    const char *bodies = BODY_ENTRIES("784111807");
    nc_text expected = {0};

    write_feed(cache, feed);
    clock.now = START + 40;
    nc_appendf(&expected, "{\"data\":" FEED_DATA ",\"missing\":[],\"stale\":[%s],\"oldestWrittenAt\":784111777,"
                          "\"earliestExpiry\":784111807}",
               bodies);
    CHECK_READ_EX(cache, feed, NULL, &allowed, NORMCACHE_STALE, expected.data);
    expected.len = 0;
    nc_appendf(&expected, "{\"data\":null,\"missing\":[%s],\"stale\":[],\"oldestWrittenAt\":784111777,"
                          "\"earliestExpiry\":784111807}",
               bodies);
    CHECK_READ_EX(cache, feed, NULL, &too_old, NORMCACHE_MISS, expected.data);
    expected.len = 0;
    nc_appendf(&expected,
               "{\"data\":{\"feed\":[{\"id\":\"1\",\"title\":\"One\",\"body\":null,\"author\":{\"id\":\"7\",\"name\":\"Ada\"}},"
               "{\"id\":\"2\",\"title\":\"Two\",\"body\":null,\"author\":{\"id\":\"7\",\"name\":\"Ada\"}}]},"
               "\"missing\":[%s],\"stale\":[],\"oldestWrittenAt\":784111777,\"earliestExpiry\":784111807}",
               bodies);
    CHECK_READ_EX(cache, feed, NULL, &partial, NORMCACHE_MISS, expected.data);
    /* Options NULL: stale fields are misses, as in normcache_read. */
    expected.len = 0;
    nc_appendf(&expected, "{\"data\":null,\"missing\":[%s],\"stale\":[],\"oldestWrittenAt\":784111777,"
                          "\"earliestExpiry\":784111807}",
               bodies);
    CHECK_READ_EX(cache, feed, NULL, NULL, NORMCACHE_MISS, expected.data);
    /* normcache_read never returns stale data. */
    expected.len = 0;
    nc_appendf(&expected, "{\"data\":null,\"missing\":[%s]}", bodies);
    CHECK_READ(cache, feed, 0, NORMCACHE_MISS, expected.data);
    free(expected.data);
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/** read_ex of a fragment at a key: fresh, stale within max_stale, too stale, absent. */
static void test_read_ex_of_a_fragment(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, "{\"maxAges\": {\"Article.body\": 30}}");
    normcache_op *feed = prepare(cache, feed_query);
    normcache_op *fragment = prepare(cache, "fragment Parts on Article { title body }");
    normcache_read_options allowed = read_options(0, 10);
    normcache_read_options partial = read_options(NORMCACHE_READ_PARTIAL, -1);
    char *out = (char *)(void *)&out;
    size_t length = 3;

    write_feed(cache, feed);
    clock.now = START + 29;
    CHECK_READ_EX(cache, fragment, "Article:1", NULL, NORMCACHE_OK,
                  "{\"data\":{\"title\":\"One\",\"body\":\"B1\"},\"missing\":[],\"stale\":[],"
                  "\"oldestWrittenAt\":784111777,\"earliestExpiry\":784111807}");
    clock.now = START + 40;
    CHECK_READ_EX(cache, fragment, "Article:1", &allowed, NORMCACHE_STALE,
                  "{\"data\":{\"title\":\"One\",\"body\":\"B1\"},\"missing\":[],\"stale\":["
                  "{\"path\":[\"body\"],\"reason\":\"stale\",\"record\":\"Article:1\",\"field\":\"body\","
                  "\"writtenAt\":784111777,\"expiredAt\":784111807}],"
                  "\"oldestWrittenAt\":784111777,\"earliestExpiry\":784111807}");
    CHECK_READ_EX(cache, fragment, "Article:1", &partial, NORMCACHE_MISS,
                  "{\"data\":{\"title\":\"One\",\"body\":null},\"missing\":["
                  "{\"path\":[\"body\"],\"reason\":\"stale\",\"record\":\"Article:1\",\"field\":\"body\","
                  "\"writtenAt\":784111777,\"expiredAt\":784111807}],\"stale\":[],"
                  "\"oldestWrittenAt\":784111777,\"earliestExpiry\":784111807}");
    CHECK_READ_EX(cache, fragment, "Article:9", &allowed, NORMCACHE_MISS,
                  "{\"data\":null,\"missing\":[{\"path\":[],\"reason\":\"absent\",\"record\":\"Article:9\"}],"
                  "\"stale\":[],\"oldestWrittenAt\":null,\"earliestExpiry\":null}");
    CHECK_READ_EX(cache, fragment, "Article:9", &partial, NORMCACHE_MISS,
                  "{\"data\":null,\"missing\":[{\"path\":[],\"reason\":\"absent\",\"record\":\"Article:9\"}],"
                  "\"stale\":[],\"oldestWrittenAt\":null,\"earliestExpiry\":null}");
    /* normcache_read_fragment gives the same entry for an absent record. */
    CHECK_CODE(normcache_read_fragment(cache, fragment, "Article:9", 9, NULL, 0, 0, &out, &length), NORMCACHE_MISS);
    nc_check_output(__FILE__, __LINE__, "read_fragment", out, length,
                    "{\"data\":null,\"missing\":[{\"path\":[],\"reason\":\"absent\",\"record\":\"Article:9\"}]}");

    /* An operation with a key, a fragment without one. */
    out = (char *)(void *)&out;
    length = 3;
    CHECK_CODE(normcache_read_ex(cache, feed, "Article:1", 9, NULL, 0, NULL, &out, &length), NORMCACHE_EINVAL);
    CHECK(out == NULL && length == 0);
    CHECK_ERRMSG_IS("'Feed' is an operation, not a fragment: read it without a record key (an operation read)");
    CHECK_CODE(normcache_read_ex(cache, fragment, NULL, 0, NULL, 0, NULL, &out, &length), NORMCACHE_EINVAL);
    CHECK(out == NULL && length == 0);
    CHECK_ERRMSG_IS("'Parts' is a fragment, not an operation: read or write it at a record key (a fragment read or write)");
    CHECK_OK(normcache_op_free(fragment));
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/** A write's max_age stamps only the fields it carries; later writes give theirs. */
static void test_a_writes_max_age_stamps_only_its_fields(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, NULL);
    normcache_op *feed = prepare(cache, feed_query);
    normcache_op *titles = prepare(cache, "query Titles { feed(first: 2) { id title } }");
    normcache_write_options options = write_options();
    normcache_read_options report = read_options(0, -1);
    const char *titles_response = "{\"data\": {\"feed\": [{\"__typename\": \"Article\", \"id\": \"1\", \"title\": \"One\"}, "
                                  "{\"__typename\": \"Article\", \"id\": \"2\", \"title\": \"Two\"}]}}";
    char *out = NULL;
    size_t length = 0;

    options.max_age = 300;
    CHECK_OK(normcache_write_ex(cache, feed, NULL, 0, feed_response, strlen(feed_response), &options, &out, &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length, FEED_CHANGED);
    clock.now = START + 100;
    CHECK_OK(normcache_write(cache, titles, NULL, 0, titles_response, strlen(titles_response), &out, &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length, "[]");
    clock.now = START + 300;
    CHECK_READ(cache, titles, 0, NORMCACHE_OK, "{\"feed\":[{\"id\":\"1\",\"title\":\"One\"},{\"id\":\"2\",\"title\":\"Two\"}]}");
    CHECK_READ_EX(cache, feed, NULL, &report, NORMCACHE_MISS,
                  "{\"data\":null,\"missing\":[" ARTICLE_ENTRY(0, "1", "body", "stale", "784111777", "784112077") "," ARTICLE_ENTRY(0, "1", "author", "stale", "784111777", "784112077") "," ARTICLE_ENTRY(1, "2", "body", "stale", "784111777", "784112077") "," ARTICLE_ENTRY(1, "2", "author", "stale", "784111777", "784112077") "],\"stale\":[],\"oldestWrittenAt\":784111777,\"earliestExpiry\":784112077}");
    CHECK_OK(normcache_op_free(titles));
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/** Rewriting identical data refreshes the times and reports no change. */
static void test_an_identical_rewrite_refreshes_the_times(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, "{\"maxAges\": {\"Query.feed\": 60}}");
    normcache_op *feed = prepare(cache, feed_query);
    char *out = NULL;
    size_t length = 0;

    write_feed(cache, feed);
    clock.now = START + 50;
    CHECK_OK(normcache_write(cache, feed, NULL, 0, feed_response, strlen(feed_response), &out, &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length, "[]");
    clock.now = START + 100;
    CHECK_READ_EX(cache, feed, NULL, NULL, NORMCACHE_OK,
                  "{\"data\":" FEED_DATA ",\"missing\":[],\"stale\":[],\"oldestWrittenAt\":784111827,"
                  "\"earliestExpiry\":784111887}");
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/** One row of the header table: the options and the expiry they give (-1: never). */
struct header_case {
    int64_t max_age;
    const char *cache_control;
    const char *age;
    const char *date;
    const char *expires;
    int64_t expiry; /**< seconds after START, or -1 for none */
};

/** The server's headers set the expiry, per RFC 9111; the lower of them and max_age wins. */
static void test_the_servers_headers_set_the_expiry(void)
{
    static const struct header_case cases[] = {
        {-1, "max-age=600", NULL, NULL, NULL, 600},
        {-1, "public, max-age=600", "100", NULL, NULL, 500},
        {-1, "max-age=600", "100", "Sun, 06 Nov 1994 08:46:17 GMT", NULL, 400},
        {-1, "max-age=600", "100", "Sun, 06 Nov 1994 08:39:37 GMT", NULL, 0},
        {-1, NULL, NULL, "Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 09:49:37 GMT", 3600},
        {-1, NULL, "600", NULL, "Sun, 06 Nov 1994 09:49:37 GMT", 3000},
        {-1, "max-age=60", NULL, "Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 09:49:37 GMT", 60},
        {60, "max-age=600", NULL, NULL, NULL, 60},
        {900, "max-age=600", NULL, NULL, NULL, 600},
        {900, NULL, NULL, NULL, NULL, 900},
        {0, NULL, NULL, NULL, NULL, 0},
        {-1, "no-cache", NULL, NULL, NULL, 0},
        {-1, "max-age=0", NULL, NULL, NULL, 0},
        {-1, "max-age=60, max-age=120", NULL, NULL, NULL, 0},
        {-1, "MAX-AGE=\"60\"", NULL, NULL, NULL, 60},
        {-1, NULL, NULL, NULL, "0", 0},
        {-1, "private", NULL, NULL, NULL, -1},
        {-1, "s-maxage=abc, must-revalidate, stale-while-revalidate=30", "5", "Sun, 06 Nov 1994 08:49:37 GMT", NULL,
         -1},
        {-1, "", NULL, NULL, NULL, -1},
        {-1, "max-age=99999999999", NULL, NULL, NULL, INT64_C(2147483648)},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct test_clock clock;
        normcache *cache = feed_cache(&clock, NULL, NULL);
        normcache_op *feed = prepare(cache, feed_query);
        normcache_write_options options = write_options();
        normcache_read_options stale_ok = read_options(0, 0);
        nc_text expected = {0};
        char *out = NULL;
        size_t length = 0;
        int code;

        options.max_age = cases[i].max_age;
        SET_HEADER(options, cache_control, cases[i].cache_control);
        SET_HEADER(options, age, cases[i].age);
        SET_HEADER(options, date, cases[i].date);
        SET_HEADER(options, expires, cases[i].expires);
        code = normcache_write_ex(cache, feed, NULL, 0, feed_response, strlen(feed_response), &options, &out, &length);
        if (code != NORMCACHE_OK) {
            nc_fail(__FILE__, __LINE__, "case %zu: write_ex returned %d: %s", i, code, normcache_errmsg());
        }
        nc_check_output(__FILE__, __LINE__, "changed", out, length, FEED_CHANGED);
        if (cases[i].expiry < 0) {
            nc_appendf(&expected, "{\"data\":" FEED_DATA ",\"missing\":[],\"stale\":[],\"oldestWrittenAt\":784111777,"
                                  "\"earliestExpiry\":null}");
        } else if (cases[i].expiry == 0) {
            /* Stale at once: every field the read uses is listed, the root field first. */
            nc_appendf(&expected, "{\"data\":" FEED_DATA ",\"missing\":[],\"stale\":[{\"path\":[\"feed\"],"
                                  "\"reason\":\"stale\",\"record\":\"QUERY_ROOT\",\"field\":\"feed(first:2)\","
                                  "\"writtenAt\":784111777,\"expiredAt\":784111777},");
        } else {
            nc_appendf(&expected, "{\"data\":" FEED_DATA ",\"missing\":[],\"stale\":[],\"oldestWrittenAt\":784111777,"
                                  "\"earliestExpiry\":%lld}",
                       (long long)(START + cases[i].expiry));
        }
        code = normcache_read_ex(cache, feed, NULL, 0, NULL, 0, &stale_ok, &out, &length);
        if (cases[i].expiry == 0) {
            if (code != NORMCACHE_STALE || length < expected.len || memcmp(out, expected.data, expected.len) != 0 ||
                strstr(out, "\"oldestWrittenAt\":784111777,\"earliestExpiry\":784111777}") == NULL) {
                nc_fail(__FILE__, __LINE__, "case %zu: read_ex returned %d: %s", i, code, out);
            }
            normcache_free(out);
        } else {
            if (code != NORMCACHE_OK) {
                nc_fail(__FILE__, __LINE__, "case %zu: read_ex returned %d: %s", i, code, out);
            }
            nc_check_output(__FILE__, __LINE__, "read_ex", out, length, expected.data);
        }
        free(expected.data);
        CHECK_OK(normcache_op_free(feed));
        CHECK_OK(normcache_close(cache));
    }
}

/** no-store writes nothing and normalizes nothing: NORMCACHE_NOTSTORED, [] changed. */
static void test_no_store_writes_nothing(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, NULL);
    normcache_op *feed = prepare(cache, feed_query);
    normcache_write_options options = write_options();
    char *out = NULL;
    size_t length = 0;

    options.max_age = 60;
    SET_HEADER(options, cache_control, "no-store, max-age=60");
    CHECK_CODE(normcache_write_ex(cache, feed, NULL, 0, feed_response, strlen(feed_response), &options, &out, &length),
               NORMCACHE_NOTSTORED);
    nc_check_output(__FILE__, __LINE__, "changed", out, length, "[]");
    CHECK_SEARCH(cache, "", NULL, 0, "[]");
    CHECK_CODE(normcache_write_ex(cache, feed, NULL, 0, feed_response, strlen(feed_response), &options, NULL, NULL),
               NORMCACHE_NOTSTORED);
    CHECK_SEARCH(cache, "", NULL, 0, "[]");
    /* Nothing is normalized: a response that does not fit is not looked at. */
    CHECK_CODE(normcache_write_ex(cache, feed, NULL, 0, "{\"data\": 5}", 11, &options, &out, &length),
               NORMCACHE_NOTSTORED);
    nc_check_output(__FILE__, __LINE__, "changed", out, length, "[]");
    /* Earlier data stays as it was. */
    write_feed(cache, feed);
    SET_HEADER(options, cache_control, "No-Store");
    CHECK_CODE(normcache_write_ex(cache, feed, NULL, 0, feed_response, strlen(feed_response), &options, &out, &length),
               NORMCACHE_NOTSTORED);
    nc_check_output(__FILE__, __LINE__, "changed", out, length, "[]");
    clock.now = START + 1000000;
    CHECK_READ(cache, feed, 0, NORMCACHE_OK, FEED_DATA);
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/** write_ex with options NULL is normcache_write; a larger struct (a later version) is accepted. */
static void test_write_ex_without_options_and_with_a_larger_struct(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, NULL);
    normcache_op *feed = prepare(cache, feed_query);
    struct {
        normcache_write_options options;
        int64_t later_member;
    } larger;
    struct {
        normcache_read_options options;
        int64_t later_member;
    } larger_read;
    char *out = NULL;
    size_t length = 0;

    CHECK_OK(normcache_write_ex(cache, feed, NULL, 0, feed_response, strlen(feed_response), NULL, &out, &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length, FEED_CHANGED);
    memset(&larger, 0, sizeof larger);
    larger.options = write_options();
    larger.options.size = sizeof larger;
    larger.options.max_age = 5;
    clock.now = START + 1;
    CHECK_OK(normcache_write_ex(cache, feed, NULL, 0, feed_response, strlen(feed_response), &larger.options, NULL,
                                NULL));
    memset(&larger_read, 0, sizeof larger_read);
    larger_read.options = read_options(0, -1);
    larger_read.options.size = sizeof larger_read;
    CHECK_READ_EX(cache, feed, NULL, &larger_read.options, NORMCACHE_OK,
                  "{\"data\":" FEED_DATA ",\"missing\":[],\"stale\":[],\"oldestWrittenAt\":784111778,"
                  "\"earliestExpiry\":784111783}");
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/**
 * Options of the first version (80 bytes on LP64, no flags nor key_fallbacks), in a block
 * of exactly that size, are taken: a caller built against the old header still works,
 * and the library reads nothing past `size` (AddressSanitizer would see it). A size that
 * holds `flags` but not `key_fallbacks` has its flags read and its count left alone.
 */
static void test_write_options_of_the_first_version(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, NULL);
    normcache_op *feed = prepare(cache, feed_query);
    normcache_op *missing_id = prepare(cache, "query Feed { feed(first: 2) { title } }");
    normcache_write_options options = write_options();
    normcache_write_options *first = malloc(FIRST_VERSION);
    const char *no_id = "{\"data\": {\"feed\": [{\"__typename\": \"Article\", \"title\": \"One\"}]}}";
    size_t fallbacks = 77;
    char *out = NULL;
    size_t length = 0;

    CHECK(first != NULL);
    options.size = FIRST_VERSION;
    options.max_age = 5;
    memcpy(first, &options, FIRST_VERSION);
    CHECK_OK(normcache_write_ex(cache, feed, NULL, 0, feed_response, strlen(feed_response), first, &out, &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length, FEED_CHANGED);
    CHECK_OK(normcache_put_ex(cache, "{\"Article:1\": {\"title\": \"Uno\"}}", 31, first, &out, &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length, "[\"Article:1.title\"]");
    CHECK_READ_EX(cache, feed, NULL, NULL, NORMCACHE_OK,
                  "{\"data\":{\"feed\":[{\"id\":\"1\",\"title\":\"Uno\",\"body\":\"B1\",\"author\":{\"id\":\"7\","
                  "\"name\":\"Ada\"}},{\"id\":\"2\",\"title\":\"Two\",\"body\":\"B2\",\"author\":{\"id\":\"7\","
                  "\"name\":\"Ada\"}}]},\"missing\":[],\"stale\":[],\"oldestWrittenAt\":784111777,"
                  "\"earliestExpiry\":784111782}");
    free(first);

    /* flags held, key_fallbacks not: strict keys apply, the count is not written. */
    options = write_options();
    options.size = offsetof(normcache_write_options, key_fallbacks);
    options.flags = NORMCACHE_WRITE_STRICT_KEYS;
    options.key_fallbacks = &fallbacks;
    CHECK_CODE(normcache_write_ex(cache, missing_id, NULL, 0, no_id, strlen(no_id), &options, NULL, NULL),
               NORMCACHE_EDATA);
    CHECK(fallbacks == 77);
    options.flags = 0;
    CHECK_OK(normcache_write_ex(cache, missing_id, NULL, 0, no_id, strlen(no_id), &options, NULL, NULL));
    CHECK(fallbacks == 77);
    options.size = sizeof options;
    CHECK_OK(normcache_write_ex(cache, missing_id, NULL, 0, no_id, strlen(no_id), &options, NULL, NULL));
    CHECK(fallbacks == 1);
    CHECK_OK(normcache_op_free(missing_id));
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/* ---------------------------------------------------------------------------
 * Lifetimes of put and write_fragment
 * ------------------------------------------------------------------------- */

/** Article:1 with a title and a body, put without a lifetime at START. */
#define ARTICLE_RECORDS "{\"Article:1\": {\"title\": \"One\", \"body\": \"B\"}}"

/** A fragment read of Article:1: title and body. */
#define ARTICLE_DATA(title) "{\"data\":{\"title\":\"" title "\",\"body\":\"B\"},"

/** Implements CHECK_PUT_EX_FAILS. */
static void check_put_ex_fails_at(int line, normcache *cache, const char *records,
                                  const normcache_write_options *options, int code, const char *message)
{
    char *out = (char *)(void *)&out;
    size_t length = 7;
    nc_text before = {0};
    int listed = nc_dump_records(cache, &before);
    int got = normcache_put_ex(cache, records, strlen(records), options, &out, &length);
    nc_check_failed_write(__FILE__, line, "normcache_put_ex", got, code, out, length, message, cache, listed, &before);
}

/**
 * Puts `records` with normcache_put_ex and fails unless it returns `code` with the
 * message `message`, clears its output and leaves every record as it was.
 */
#define CHECK_PUT_EX_FAILS(cache, records, options, code, message) \
    check_put_ex_fails_at(__LINE__, (cache), (records), (options), (code), (message))

/** put_ex stamps the fields it gives with its lifetime; the record's others keep theirs. */
static void test_put_ex_stamps_only_the_fields_it_gives(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, NULL);
    normcache_op *parts = prepare(cache, "fragment Parts on Article { title body }");
    normcache_write_options options = write_options();
    normcache_read_options allowed = read_options(0, 100);
    size_t fallbacks = 77;
    char *out = NULL;
    size_t length = 0;

    CHECK_PUT(cache, ARTICLE_RECORDS, "[\"Article:1.title\",\"Article:1.body\"]");
    clock.now = START + 10;
    options.max_age = 60;
    options.key_fallbacks = &fallbacks;
    CHECK_OK(normcache_put_ex(cache, "{\"Article:1\": {\"title\": \"Uno\"}}", 31, &options, &out, &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length, "[\"Article:1.title\"]");
    CHECK(fallbacks == 0);
    CHECK_READ_EX(cache, parts, "Article:1", NULL, NORMCACHE_OK,
                  ARTICLE_DATA("Uno") "\"missing\":[],\"stale\":[],\"oldestWrittenAt\":784111777,"
                                      "\"earliestExpiry\":784111847}");
    clock.now = START + 70;
    CHECK_READ_EX(cache, parts, "Article:1", &allowed, NORMCACHE_STALE,
                  ARTICLE_DATA("Uno") "\"missing\":[],\"stale\":[{\"path\":[\"title\"],\"reason\":\"stale\","
                                      "\"record\":\"Article:1\",\"field\":\"title\",\"writtenAt\":784111787,"
                                      "\"expiredAt\":784111847}],\"oldestWrittenAt\":784111777,"
                                      "\"earliestExpiry\":784111847}");
    /* Strict keys change nothing for records given by key; options NULL is normcache_put. */
    options.flags = NORMCACHE_WRITE_STRICT_KEYS;
    options.max_age = -1;
    CHECK_OK(normcache_put_ex(cache, "{\"QUERY_ROOT.feed.0\": {\"title\": \"T\"}}", 37, &options, NULL, NULL));
    CHECK(fallbacks == 0);
    CHECK_OK(normcache_put_ex(cache, "{\"Article:1\": {\"title\": \"Un\"}}", 30, NULL, &out, &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length, "[\"Article:1.title\"]");
    CHECK_READ_EX(cache, parts, "Article:1", NULL, NORMCACHE_OK,
                  ARTICLE_DATA("Un") "\"missing\":[],\"stale\":[],\"oldestWrittenAt\":784111777,"
                                     "\"earliestExpiry\":null}");
    CHECK_OK(normcache_op_free(parts));
    CHECK_OK(normcache_close(cache));
}

/** put_ex takes the server's headers as write_ex does; no-store writes and parses nothing. */
static void test_put_ex_follows_the_servers_headers(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, NULL);
    normcache_op *parts = prepare(cache, "fragment Parts on Article { title body }");
    normcache_write_options options = write_options();
    char *out = NULL;
    size_t length = 0;

    SET_HEADER(options, cache_control, "public, max-age=600");
    SET_HEADER(options, age, "100");
    CHECK_OK(normcache_put_ex(cache, ARTICLE_RECORDS, strlen(ARTICLE_RECORDS), &options, &out, &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length, "[\"Article:1.title\",\"Article:1.body\"]");
    CHECK_READ_EX(cache, parts, "Article:1", NULL, NORMCACHE_OK,
                  ARTICLE_DATA("One") "\"missing\":[],\"stale\":[],\"oldestWrittenAt\":784111777,"
                                      "\"earliestExpiry\":784112277}");

    options = write_options();
    SET_HEADER(options, cache_control, "no-store");
    CHECK_CODE(normcache_put_ex(cache, "{\"Article:2\": {\"title\": \"Two\"}}", 31, &options, &out, &length),
               NORMCACHE_NOTSTORED);
    nc_check_output(__FILE__, __LINE__, "changed", out, length, "[]");
    CHECK_CODE(normcache_put_ex(cache, "not json", 8, &options, NULL, NULL), NORMCACHE_NOTSTORED);
    CHECK_SEARCH(cache, "", NULL, 0, "[\"Article:1\"]");
    CHECK_OK(normcache_op_free(parts));
    CHECK_OK(normcache_close(cache));
}

/** Each bad put_ex: its exact status and message, the output cleared, nothing written. */
static void test_bad_put_ex(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, NULL);
    normcache_write_options options = write_options();
    char size_message[128];

    CHECK_PUT(cache, ARTICLE_RECORDS, "[\"Article:1.title\",\"Article:1.body\"]");
    SET_HEADER(options, cache_control, "max-age=abc");
    CHECK_PUT_EX_FAILS(cache, "{\"Article:1\": {\"title\": \"Two\"}}", &options, NORMCACHE_EINVAL,
                       "Cache-Control: malformed max-age at byte 8 ('max-age=abc'): it needs a whole number of seconds");
    SET_HEADER(options, cache_control, "no-store, max-age=");
    CHECK_PUT_EX_FAILS(cache, "{\"Article:1\": {\"title\": \"Two\"}}", &options, NORMCACHE_EINVAL,
                       "Cache-Control: malformed max-age at byte 18 ('max-age='): it needs a whole number of seconds");
    options = write_options();
    options.size = FIRST_VERSION - 1;
    snprintf(size_message, sizeof size_message,
             "options->size is %zu, below sizeof the struct's first version (%zu): set it to sizeof",
             FIRST_VERSION - 1, FIRST_VERSION);
    CHECK_PUT_EX_FAILS(cache, "{\"Article:1\": {\"title\": \"Two\"}}", &options, NORMCACHE_EINVAL, size_message);
    options = write_options();
    options.max_age = -2;
    CHECK_PUT_EX_FAILS(cache, "{\"Article:1\": {\"title\": \"Two\"}}", &options, NORMCACHE_EINVAL,
                       "options->max_age is -2: seconds from 0 to 2147483647, or -1 for none");
    options.max_age = 60;
    options.flags = 0x10;
    CHECK_PUT_EX_FAILS(cache, "{\"Article:1\": {\"title\": \"Two\"}}", &options, NORMCACHE_EINVAL,
                       "unknown options->flags 0x10");
    options.flags = 0;
    CHECK_PUT_EX_FAILS(cache, "{\"Article:1\": {\"title\": 2", &options, NORMCACHE_EJSON,
                       "JSON error at byte 25: unexpected end of input (truncated?)");
    CHECK_PUT_EX_FAILS(NULL, ARTICLE_RECORDS, &options, NORMCACHE_EINVAL, "the cache handle is NULL");
    CHECK_GET(cache, "Article:1", "{\"body\":\"B\",\"title\":\"One\"}");
    CHECK_OK(normcache_close(cache));
}

/** write_fragment_ex stamps the fields its data carries; no-store and bad headers write nothing. */
static void test_write_fragment_ex_lifetimes(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, NULL);
    normcache_op *parts = prepare(cache, "fragment Parts on Article { title body }");
    normcache_op *title = prepare(cache, "fragment Title on Article { title }");
    normcache_op *feed = prepare(cache, feed_query);
    normcache_write_options options = write_options();
    nc_text before = {0};
    nc_text after = {0};
    char *out = (char *)(void *)&out;
    size_t length = 7;

    CHECK_PUT(cache, ARTICLE_RECORDS, "[\"Article:1.title\",\"Article:1.body\"]");
    clock.now = START + 5;
    SET_HEADER(options, cache_control, "max-age=30");
    CHECK_OK(normcache_write_fragment_ex(cache, title, "Article:1", 9, "{\"title\": \"Uno\"}", 16, NULL, 0, &options,
                                         &out, &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length, "[\"Article:1.title\"]");
    CHECK_READ_EX(cache, parts, "Article:1", NULL, NORMCACHE_OK,
                  ARTICLE_DATA("Uno") "\"missing\":[],\"stale\":[],\"oldestWrittenAt\":784111777,"
                                      "\"earliestExpiry\":784111812}");
    clock.now = START + 35;
    CHECK_READ_EX(cache, parts, "Article:1", NULL, NORMCACHE_MISS,
                  "{\"data\":null,\"missing\":[{\"path\":[\"title\"],\"reason\":\"stale\",\"record\":\"Article:1\","
                  "\"field\":\"title\",\"writtenAt\":784111782,\"expiredAt\":784111812}],\"stale\":[],"
                  "\"oldestWrittenAt\":784111777,\"earliestExpiry\":784111812}");

    nc_dump_records(cache, &before);
    SET_HEADER(options, cache_control, "no-store");
    CHECK_CODE(normcache_write_fragment_ex(cache, title, "Article:1", 9, "{\"title\": 5", 11, NULL, 0, &options, &out,
                                           &length),
               NORMCACHE_NOTSTORED);
    nc_check_output(__FILE__, __LINE__, "changed", out, length, "[]");
    SET_HEADER(options, cache_control, "max-age=x");
    out = (char *)(void *)&out;
    length = 7;
    CHECK_CODE(normcache_write_fragment_ex(cache, title, "Article:1", 9, "{\"title\": \"Dos\"}", 16, NULL, 0,
                                           &options, &out, &length),
               NORMCACHE_EINVAL);
    CHECK(out == NULL && length == 0);
    CHECK_ERRMSG_IS("Cache-Control: malformed max-age at byte 8 ('max-age=x'): it needs a whole number of seconds");
    options = write_options();
    options.size = 0;
    CHECK_CODE(normcache_write_fragment_ex(cache, title, "Article:1", 9, "{\"title\": \"Dos\"}", 16, NULL, 0,
                                           &options, NULL, NULL),
               NORMCACHE_EINVAL);
    /* An operation is no fragment, as for normcache_write_fragment. */
    CHECK_CODE(normcache_write_fragment_ex(cache, feed, "Article:1", 9, "{}", 2, NULL, 0, NULL, NULL, NULL),
               NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("'Feed' is an operation, not a fragment: write it with write");
    nc_dump_records(cache, &after);
    CHECK(after.len == before.len && memcmp(after.data, before.data, before.len) == 0);
    free(before.data);
    free(after.data);
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_op_free(title));
    CHECK_OK(normcache_op_free(parts));
    CHECK_OK(normcache_close(cache));
}

/* ---------------------------------------------------------------------------
 * Invalidation
 * ------------------------------------------------------------------------- */

/** Pets with an operation over them, the clock at 1700000000. */
static normcache *pets_cache(struct test_clock *clock, normcache_op **pets)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    const char *records = "{\"QUERY_ROOT\": {\"pets\": [{\"$reference\": \"Pet:1\"}, {\"$reference\": \"Pet:2\"}]}, "
                          "\"Pet:1\": {\"name\": \"Rex\", \"age\": 3}, \"Pet:2\": {\"name\": \"Tom\", \"age\": 5}, "
                          "\"User:1\": {\"name\": \"Ada\"}}";
    clock->now = 1700000000;
    clock->calls = 0;
    CHECK_OK(normcache_set_clock(cache, test_clock_now, clock));
    CHECK_OK(normcache_put(cache, records, strlen(records), NULL, NULL));
    *pets = prepare(cache, "{ pets { name age } }");
    return cache;
}

/** Implements CHECK_INVALIDATE. */
static void check_invalidate_at(int line, normcache *cache, const char *key, const char *field, unsigned flags,
                                int code, uint64_t count)
{
    uint64_t got = 12345;
    nc_check_code(__FILE__, line, "normcache_invalidate",
                  normcache_invalidate(cache, key, key == NULL ? 0 : strlen(key), field,
                                       field == NULL ? 0 : strlen(field), flags, &got),
                  code);
    if (got != count) {
        nc_fail(__FILE__, line, "out_count is %llu, expected %llu", (unsigned long long)got,
                (unsigned long long)count);
    }
}

/** Invalidates and fails unless the status and out_count are exact. */
#define CHECK_INVALIDATE(cache, key, field, flags, code, count) \
    check_invalidate_at(__LINE__, (cache), (key), (field), (flags), (code), (count))

/** A field invalidated is a miss with its reason; the data stays for a read that allows it. */
static void test_a_field_invalidated_is_a_miss_with_its_reason(void)
{
    struct test_clock clock;
    normcache_op *pets = NULL;
    normcache *cache = pets_cache(&clock, &pets);
    normcache_read_options allowed = read_options(0, 15);
    normcache_read_options too_old = read_options(0, 14);
    const char *entry = "{\"path\":[\"pets\",0,\"age\"],\"reason\":\"invalidated\",\"record\":\"Pet:1\",\"field\":\"age\","
                        "\"writtenAt\":1700000000,\"expiredAt\":1700000010}";
    nc_text expected = {0};

    clock.now = 1700000010;
    CHECK_INVALIDATE(cache, "Pet:1", "age", 0, NORMCACHE_OK, 1);
    clock.now = 1700000025;
    nc_appendf(&expected, "{\"data\":null,\"missing\":[%s]}", entry);
    CHECK_READ(cache, pets, 0, NORMCACHE_MISS, expected.data);
    expected.len = 0;
    nc_appendf(&expected,
               "{\"data\":{\"pets\":[{\"name\":\"Rex\",\"age\":3},{\"name\":\"Tom\",\"age\":5}]},\"missing\":[],"
               "\"stale\":[%s],\"oldestWrittenAt\":1700000000,\"earliestExpiry\":1700000010}",
               entry);
    CHECK_READ_EX(cache, pets, NULL, &allowed, NORMCACHE_STALE, expected.data);
    expected.len = 0;
    nc_appendf(&expected,
               "{\"data\":null,\"missing\":[%s],\"stale\":[],\"oldestWrittenAt\":1700000000,"
               "\"earliestExpiry\":1700000010}",
               entry);
    CHECK_READ_EX(cache, pets, NULL, &too_old, NORMCACHE_MISS, expected.data);
    free(expected.data);
    /* The record keeps its data. */
    CHECK_GET(cache, "Pet:1", "{\"age\":3,\"name\":\"Rex\"}");
    /* Invalidating again keeps the first expiry. */
    clock.now = 1700000030;
    CHECK_INVALIDATE(cache, "Pet:1", "age", 0, NORMCACHE_OK, 1);
    CHECK_READ(cache, pets, 0, NORMCACHE_MISS,
               "{\"data\":null,\"missing\":[{\"path\":[\"pets\",0,\"age\"],\"reason\":\"invalidated\",\"record\":"
               "\"Pet:1\",\"field\":\"age\",\"writtenAt\":1700000000,\"expiredAt\":1700000010}]}");
    CHECK_OK(normcache_op_free(pets));
    CHECK_OK(normcache_close(cache));
}

/** A record invalidated whole; a write makes it fresh again without reporting a change. */
static void test_a_write_makes_an_invalidated_record_fresh(void)
{
    struct test_clock clock;
    normcache_op *pets = NULL;
    normcache *cache = pets_cache(&clock, &pets);
    const char *again = "{\"Pet:1\": {\"name\": \"Rex\", \"age\": 3}}";

    CHECK_INVALIDATE(cache, "Pet:1", NULL, 0, NORMCACHE_OK, 2);
    CHECK_READ(cache, pets, 0, NORMCACHE_MISS,
               "{\"data\":null,\"missing\":["
               "{\"path\":[\"pets\",0,\"name\"],\"reason\":\"invalidated\",\"record\":\"Pet:1\",\"field\":\"name\","
               "\"writtenAt\":1700000000,\"expiredAt\":1700000000},"
               "{\"path\":[\"pets\",0,\"age\"],\"reason\":\"invalidated\",\"record\":\"Pet:1\",\"field\":\"age\","
               "\"writtenAt\":1700000000,\"expiredAt\":1700000000}]}");
    clock.now = 1700000005;
    CHECK_PUT(cache, again, "[]");
    CHECK_READ(cache, pets, 0, NORMCACHE_OK, "{\"pets\":[{\"name\":\"Rex\",\"age\":3},{\"name\":\"Tom\",\"age\":5}]}");
    CHECK_OK(normcache_op_free(pets));
    CHECK_OK(normcache_close(cache));
}

/** A key group at once; an empty group is NOTFOUND with 0; other records stay fresh. */
static void test_a_key_group_is_invalidated_at_once(void)
{
    struct test_clock clock;
    normcache_op *pets = NULL;
    normcache *cache = pets_cache(&clock, &pets);
    normcache_op *user = prepare(cache, "fragment U on User { name }");
    char *out = NULL;
    size_t length = 0;

    CHECK_INVALIDATE(cache, "Pet:", NULL, NORMCACHE_INVALIDATE_PREFIX, NORMCACHE_OK, 4);
    CHECK_CODE(normcache_read(cache, pets, NULL, 0, 0, &out, &length), NORMCACHE_MISS);
    CHECK_CONTAINS(out, "\"record\":\"Pet:1\",\"field\":\"name\"");
    CHECK_CONTAINS(out, "\"record\":\"Pet:2\",\"field\":\"age\"");
    normcache_free(out);
    CHECK_INVALIDATE(cache, "Cat:", NULL, NORMCACHE_INVALIDATE_PREFIX, NORMCACHE_NOTFOUND, 0);
    CHECK_READ_EX(cache, user, "User:1", NULL, NORMCACHE_OK,
                  "{\"data\":{\"name\":\"Ada\"},\"missing\":[],\"stale\":[],\"oldestWrittenAt\":1700000000,"
                  "\"earliestExpiry\":null}");
    /* The prefix is bytes: "Pet:1" matches Pet:1 alone here. */
    CHECK_INVALIDATE(cache, "Pet:1", NULL, NORMCACHE_INVALIDATE_PREFIX, NORMCACHE_OK, 2);
    CHECK_OK(normcache_op_free(user));
    CHECK_OK(normcache_op_free(pets));
    CHECK_OK(normcache_close(cache));
}

/** A field that expired before keeps its earlier expiry: its reason stays "stale". */
static void test_an_expired_field_keeps_its_earlier_expiry(void)
{
    struct test_clock clock;
    normcache_op *pets = NULL;
    normcache *cache = pets_cache(&clock, &pets);
    const char *typed = "{\"Pet:1\": {\"__typename\": \"Pet\"}, \"Pet:2\": {\"__typename\": \"Pet\"}}";
    const char *rule = "{\"maxAges\": {\"Pet.age\": 5}}";

    CHECK_OK(normcache_put(cache, typed, strlen(typed), NULL, NULL));
    CHECK_OK(normcache_configure(cache, rule, strlen(rule)));
    clock.now = 1700000100;
    CHECK_INVALIDATE(cache, "Pet:2", "age", 0, NORMCACHE_OK, 1);
    CHECK_READ(cache, pets, 0, NORMCACHE_MISS,
               "{\"data\":null,\"missing\":["
               "{\"path\":[\"pets\",0,\"age\"],\"reason\":\"stale\",\"record\":\"Pet:1\",\"field\":\"age\","
               "\"writtenAt\":1700000000,\"expiredAt\":1700000005},"
               "{\"path\":[\"pets\",1,\"age\"],\"reason\":\"invalidated\",\"record\":\"Pet:2\",\"field\":\"age\","
               "\"writtenAt\":1700000000,\"expiredAt\":1700000005}]}");
    CHECK_OK(normcache_op_free(pets));
    CHECK_OK(normcache_close(cache));
}

/** Absent records and fields, and the arguments invalidate refuses, with exact messages. */
static void test_invalidate_absent_and_refused(void)
{
    struct test_clock clock;
    normcache_op *pets = NULL;
    normcache *cache = pets_cache(&clock, &pets);
    const char *path = nc_temp_path((char[NC_PATH_SIZE]){0}, "invalidate-read-only");
    normcache *writer;
    normcache *reader;
    uint64_t count = 7;

    CHECK_INVALIDATE(cache, "Pet:9", NULL, 0, NORMCACHE_NOTFOUND, 0);
    CHECK_INVALIDATE(cache, "Pet:1", "colour", 0, NORMCACHE_NOTFOUND, 0);
    CHECK_INVALIDATE(cache, "Pet:9", "age", 0, NORMCACHE_NOTFOUND, 0);
    CHECK_INVALIDATE(cache, "", NULL, 0, NORMCACHE_EINVAL, 0);
    CHECK_ERRMSG_IS("empty record key");
    CHECK_INVALIDATE(cache, "Pet:1", "", 0, NORMCACHE_EINVAL, 0);
    CHECK_ERRMSG_IS("empty field key");
    CHECK_INVALIDATE(cache, "", NULL, NORMCACHE_INVALIDATE_PREFIX, NORMCACHE_EINVAL, 0);
    CHECK_ERRMSG_IS("empty prefix");
    CHECK_INVALIDATE(cache, "Pet:", "age", NORMCACHE_INVALIDATE_PREFIX, NORMCACHE_EINVAL, 0);
    CHECK_ERRMSG_IS("a field cannot be given with NORMCACHE_INVALIDATE_PREFIX");
    CHECK_INVALIDATE(cache, "Pet:", "", NORMCACHE_INVALIDATE_PREFIX, NORMCACHE_EINVAL, 0);
    CHECK_ERRMSG_IS("a field cannot be given with NORMCACHE_INVALIDATE_PREFIX");
    CHECK_INVALIDATE(cache, "Pet:1", NULL, 2u, NORMCACHE_EINVAL, 0);
    CHECK_ERRMSG_IS("unknown invalidate flags 0x2");
    CHECK_INVALIDATE(cache, "Pet:1", NULL, 0x80000001u, NORMCACHE_EINVAL, 0);
    CHECK_ERRMSG_IS("unknown invalidate flags 0x80000001");
    CHECK_CODE(normcache_invalidate(cache, NULL, 5, NULL, 0, 0, &count), NORMCACHE_EINVAL);
    CHECK(count == 0);
    CHECK_ERRMSG_IS("key is NULL but its length is 5");
    CHECK_CODE(normcache_invalidate(cache, "Pet:1", 5, NULL, 3, 0, &count), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("field is NULL but its length is 3");
    CHECK_CODE(normcache_invalidate(cache, "Pet:\xff", 5, NULL, 0, 0, &count), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("record key is not valid UTF-8");
    CHECK_CODE(normcache_invalidate(cache, "Pet:1", 5, "a\xc3", 2, 0, &count), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("field key is not valid UTF-8");
    /* out_count may be NULL. */
    CHECK_OK(normcache_invalidate(cache, "Pet:1", 5, "age", 3, 0, NULL));
    CHECK_CODE(normcache_invalidate(cache, "Pet:9", 5, NULL, 0, 0, NULL), NORMCACHE_NOTFOUND);
    /* Nothing was marked by the refused calls: Pet:2 is fresh. */
    CHECK_GET(cache, "Pet:2", "{\"age\":5,\"name\":\"Tom\"}");
    CHECK_CODE(normcache_invalidate(NULL, "Pet:1", 5, NULL, 0, 0, &count), NORMCACHE_EINVAL);
    CHECK_OK(normcache_op_free(pets));
    CHECK_OK(normcache_close(cache));
    CHECK_CODE(normcache_invalidate(cache, "Pet:1", 5, NULL, 0, 0, &count), NORMCACHE_EINVAL);
    CHECK(count == 0);

    /* A read-only handle refuses, whether or not the record exists. */
    writer = NC_OPEN(path, NULL);
    CHECK_PUT(writer, "{\"Pet:1\": {\"name\": \"Rex\"}}", "[\"Pet:1.name\"]");
    CHECK_OK(normcache_close(writer));
    reader = NC_OPEN(path, "{\"read_only\": true}");
    count = 7;
    CHECK_CODE(normcache_invalidate(reader, "Pet:1", 5, NULL, 0, 0, &count), NORMCACHE_EREADONLY);
    CHECK(count == 0);
    CHECK_CODE(normcache_invalidate(reader, "Pet:9", 5, NULL, 0, 0, &count), NORMCACHE_EREADONLY);
    CHECK_CODE(normcache_invalidate(reader, "Pet:", 4, NULL, 0, NORMCACHE_INVALIDATE_PREFIX, &count),
               NORMCACHE_EREADONLY);
    CHECK_OK(normcache_close(reader));
}

/* ---------------------------------------------------------------------------
 * The clock
 * ------------------------------------------------------------------------- */

/** A clock that answers a time before 1970 fails each call that asks it; nothing is written. */
static void test_a_clock_before_1970_fails_the_call(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, "{\"maxAges\": {\"Query.feed\": 60}}");
    normcache_op *feed = prepare(cache, feed_query);
    normcache_write_options options = write_options();
    normcache_read_options read = read_options(0, 10);
    const char *message = "the cache's clock answered -5: a clock answers seconds since 1970, not below 0";
    char *out = (char *)(void *)&out;
    size_t length = 3;
    uint64_t count = 9;

    clock.now = -5;
    CHECK_CODE(normcache_write(cache, feed, NULL, 0, feed_response, strlen(feed_response), &out, &length),
               NORMCACHE_ECALLBACK);
    CHECK(out == NULL && length == 0);
    CHECK_ERRMSG_IS(message);
    CHECK_SEARCH(cache, "", NULL, 0, "[]");
    options.max_age = 60;
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_ECALLBACK, message);
    CHECK_SEARCH(cache, "", NULL, 0, "[]");
    CHECK_CODE(normcache_put(cache, "{\"A:1\": {\"a\": 1}}", 17, NULL, NULL), NORMCACHE_ECALLBACK);
    CHECK_ERRMSG_IS(message);
    CHECK_SEARCH(cache, "", NULL, 0, "[]");

    clock.now = START;
    write_feed(cache, feed);
    clock.now = INT64_MIN;
    CHECK_CODE(normcache_read(cache, feed, NULL, 0, 0, &out, &length), NORMCACHE_ECALLBACK);
    CHECK(out == NULL && length == 0);
    CHECK_ERRMSG_IS("the cache's clock answered -9223372036854775808: a clock answers seconds since 1970, not below 0");
    clock.now = -1;
    CHECK_CODE(normcache_read_ex(cache, feed, NULL, 0, NULL, 0, &read, &out, &length), NORMCACHE_ECALLBACK);
    CHECK(out == NULL && length == 0);
    CHECK_ERRMSG_IS("the cache's clock answered -1: a clock answers seconds since 1970, not below 0");
    CHECK_CODE(normcache_invalidate(cache, "Article:1", 9, NULL, 0, 0, &count), NORMCACHE_ECALLBACK);
    CHECK(count == 0);
    CHECK_ERRMSG_IS("the cache's clock answered -1: a clock answers seconds since 1970, not below 0");
    /* 0 is a time like any other. */
    clock.now = 0;
    CHECK_READ(cache, feed, 0, NORMCACHE_OK, FEED_DATA);
    clock.now = START + 1;
    CHECK_READ_EX(cache, feed, NULL, NULL, NORMCACHE_OK,
                  "{\"data\":" FEED_DATA ",\"missing\":[],\"stale\":[],\"oldestWrittenAt\":784111777,"
                  "\"earliestExpiry\":784111837}");
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/** A clock that gives `reason` to normcache_callback_error (when `call`), then answers `now`. */
struct reasoned_clock {
    int call;
    const char *reason;
    size_t reason_len;
    int64_t now;
    int status; /**< what normcache_callback_error returned */
};

/** The normcache_clock over a struct reasoned_clock. */
static int64_t reasoned_clock_now(void *context)
{
    struct reasoned_clock *clock = context;
    if (clock->call) {
        clock->status = normcache_callback_error(clock->reason, clock->reason_len);
    }
    return clock->now;
}

/**
 * A clock that cannot answer says why with normcache_callback_error: the call fails with
 * "the cache's clock failed: <reason>", whatever the clock returns; an empty reason
 * takes it back. Outside a callback, normcache_callback_error is refused.
 */
static void test_a_clock_can_say_why_it_failed(void)
{
    struct test_clock unused;
    normcache *cache = feed_cache(&unused, NULL, NULL);
    normcache_op *feed = prepare(cache, feed_query);
    struct reasoned_clock clock = {1, "no time from the network", 24, -1, 99};
    char *out = (char *)(void *)&out;
    size_t length = 3;

    CHECK_OK(normcache_set_clock(cache, reasoned_clock_now, &clock));
    CHECK_CODE(normcache_write(cache, feed, NULL, 0, feed_response, strlen(feed_response), &out, &length),
               NORMCACHE_ECALLBACK);
    CHECK(clock.status == NORMCACHE_OK);
    CHECK(out == NULL && length == 0);
    CHECK_ERRMSG_IS("the cache's clock failed: no time from the network");
    CHECK_SEARCH(cache, "", NULL, 0, "[]");
    /* A reason fails the call even beside a good time. */
    clock.now = START;
    CHECK_CODE(normcache_read_ex(cache, feed, NULL, 0, NULL, 0, NULL, &out, &length), NORMCACHE_ECALLBACK);
    CHECK_ERRMSG_IS("the cache's clock failed: no time from the network");
    /* Bytes that are not UTF-8 become U+FFFD. */
    clock.reason = "bad \xff byte";
    clock.reason_len = strlen(clock.reason);
    CHECK_CODE(normcache_invalidate(cache, "A:1", 3, NULL, 0, 0, NULL), NORMCACHE_ECALLBACK);
    CHECK_ERRMSG_IS("the cache's clock failed: bad \xef\xbf\xbd byte");
    /* An empty reason takes it back: the time stands. */
    clock.reason = "";
    clock.reason_len = 0;
    write_feed(cache, feed);
    CHECK_READ_EX(cache, feed, NULL, NULL, NORMCACHE_OK,
                  "{\"data\":" FEED_DATA ",\"missing\":[],\"stale\":[],\"oldestWrittenAt\":784111777,"
                  "\"earliestExpiry\":null}");
    /* NULL with a length is refused, and the time stands. */
    clock.reason = NULL;
    clock.reason_len = 5;
    CHECK_READ(cache, feed, 0, NORMCACHE_OK, FEED_DATA);
    CHECK(clock.status == NORMCACHE_EINVAL);
    CHECK_CODE(normcache_callback_error("outside", 7), NORMCACHE_EINVAL);
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/**
 * The calls that stamp or judge fields ask the clock, and fail with its answer; the
 * calls that only look up, list or delete records do not ask it.
 */
static void test_which_calls_ask_the_clock(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, NULL);
    normcache_op *fragment = prepare(cache, "fragment Parts on Article { title }");
    const char *records = "{\"Article:1\": {\"title\": \"One\", \"body\": \"B1\"}, \"Article:2\": {\"title\": \"Two\"}}";
    const char *update = "{\"Article:1\": {\"title\": \"Uno\"}}";
    const char *data = "{\"title\": \"Uno\"}";
    const char *message = "the cache's clock answered -1: a clock answers seconds since 1970, not below 0";
    char *out = NULL;
    size_t length = 0;
    uint64_t count = 0;
    unsigned before;

    CHECK_PUT(cache, records, "[\"Article:1.title\",\"Article:1.body\",\"Article:2.title\"]");
    clock.now = -1;
    CHECK_CODE(normcache_put(cache, update, strlen(update), NULL, NULL), NORMCACHE_ECALLBACK);
    CHECK_ERRMSG_IS(message);
    CHECK_CODE(normcache_write_fragment(cache, fragment, "Article:1", 9, data, strlen(data), NULL, 0, NULL, NULL),
               NORMCACHE_ECALLBACK);
    CHECK_ERRMSG_IS(message);
    CHECK_CODE(normcache_read_fragment(cache, fragment, "Article:1", 9, NULL, 0, 0, &out, &length),
               NORMCACHE_ECALLBACK);
    CHECK_ERRMSG_IS(message);
    CHECK_CODE(normcache_invalidate(cache, "Article:", 8, NULL, 0, NORMCACHE_INVALIDATE_PREFIX, &count),
               NORMCACHE_ECALLBACK);
    CHECK_ERRMSG_IS(message);
    CHECK_GET(cache, "Article:1", "{\"body\":\"B1\",\"title\":\"One\"}");

    before = clock.calls;
    CHECK_SEARCH(cache, "Article:", NULL, 0, "[\"Article:1\",\"Article:2\"]");
    CHECK_OK(normcache_stats(cache, &out, &length));
    normcache_free(out);
    CHECK_OK(normcache_remove_field(cache, "Article:1", 9, "body", 4));
    CHECK_OK(normcache_remove(cache, "Article:2", 9));
    CHECK_OK(normcache_remove_prefix(cache, "Article:", 8, &count));
    CHECK(count == 1);
    CHECK_OK(normcache_clear(cache));
    CHECK(clock.calls == before);
    CHECK_OK(normcache_op_free(fragment));
    CHECK_OK(normcache_close(cache));
}

/**
 * The seconds of CLOCK_REALTIME, the clock the cache stamps records with. glibc's time()
 * reads CLOCK_REALTIME_COARSE, which can trail it past a second's boundary.
 */
static long long realtime_seconds(void)
{
    struct timespec now;

    clock_gettime(CLOCK_REALTIME, &now);
    return (long long)now.tv_sec;
}

/** set_clock(NULL) brings back the system clock; the clock belongs to one handle. */
static void test_the_system_clock_and_handles(void)
{
    struct test_clock clock;
    char path[NC_PATH_SIZE] = {0};
    normcache *cache;
    normcache *other;
    normcache_op *feed;
    char *out = NULL;
    size_t length = 0;
    const char *written;
    long long stamp;
    long long before;
    long long after;

    nc_temp_path(path, "system-clock");
    cache = NC_OPEN(path, NULL);
    CHECK_OK(normcache_load_schema(cache, feed_schema, strlen(feed_schema)));
    feed = prepare(cache, feed_query);
    clock.now = START;
    clock.calls = 0;
    CHECK_OK(normcache_set_clock(cache, test_clock_now, &clock));
    CHECK_OK(normcache_set_clock(cache, NULL, NULL));
    before = realtime_seconds();
    write_feed(cache, feed);
    after = realtime_seconds();
    CHECK(clock.calls == 0);
    CHECK_OK(normcache_read_ex(cache, feed, NULL, 0, NULL, 0, NULL, &out, &length));
    written = strstr(out, "\"oldestWrittenAt\":");
    CHECK(written != NULL);
    stamp = strtoll(written + strlen("\"oldestWrittenAt\":"), NULL, 10);
    CHECK(stamp >= before && stamp <= after);
    normcache_free(out);

    /* Another handle on the file keeps the system clock while this one is set. */
    other = NC_OPEN(path, NULL);
    CHECK_OK(normcache_set_clock(cache, test_clock_now, &clock));
    clock.now = -1;
    CHECK_CODE(normcache_read(cache, feed, NULL, 0, 0, &out, &length), NORMCACHE_ECALLBACK);
    CHECK_OK(normcache_read(other, feed, NULL, 0, 0, &out, &length));
    nc_check_output(__FILE__, __LINE__, "read", out, length, FEED_DATA);
    CHECK_OK(normcache_close(other));

    CHECK_CODE(normcache_set_clock(NULL, test_clock_now, &clock), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("the cache handle is NULL");
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
    CHECK_CODE(normcache_set_clock(cache, test_clock_now, &clock), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_set_clock(cache, NULL, NULL), NORMCACHE_EINVAL);
}

/* ---------------------------------------------------------------------------
 * Bad input
 * ------------------------------------------------------------------------- */

/** Each bad write option: its exact status and message, the output cleared, nothing written. */
static void test_bad_write_options(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, NULL);
    normcache_op *feed = prepare(cache, feed_query);
    normcache_write_options options;
    nc_text big = {0};
    nc_text expected = {0};
    char size_message[128];

    options = write_options();
    options.size = 0;
    snprintf(size_message, sizeof size_message,
             "options->size is 0, below sizeof the struct's first version (%zu): set it to sizeof", FIRST_VERSION);
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL, size_message);
    options.size = FIRST_VERSION - 1;
    snprintf(size_message, sizeof size_message,
             "options->size is %zu, below sizeof the struct's first version (%zu): set it to sizeof",
             FIRST_VERSION - 1, FIRST_VERSION);
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL, size_message);
    options.size = sizeof(size_t);
    snprintf(size_message, sizeof size_message,
             "options->size is %zu, below sizeof the struct's first version (%zu): set it to sizeof", sizeof(size_t),
             FIRST_VERSION);
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL, size_message);
    options = write_options();
    options.flags = 6;
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL, "unknown options->flags 0x6");

    options = write_options();
    options.max_age = -2;
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL,
                         "options->max_age is -2: seconds from 0 to 2147483647, or -1 for none");
    options.max_age = (int64_t)NORMCACHE_MAX_AGE_LIMIT + 1;
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL,
                         "options->max_age is 2147483648: seconds from 0 to 2147483647, or -1 for none");
    options.max_age = INT64_MIN;
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL,
                         "options->max_age is -9223372036854775808: seconds from 0 to 2147483647, or -1 for none");

    options = write_options();
    SET_HEADER(options, cache_control, "max-age=abc");
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL,
                         "Cache-Control: malformed max-age at byte 8 ('max-age=abc'): it needs a whole number of seconds");
    SET_HEADER(options, cache_control, "public, max-age=-1");
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL,
                         "Cache-Control: malformed max-age at byte 16 ('max-age=-1'): it needs a whole number of seconds");
    /* A malformed Cache-Control is an error even beside no-store. */
    SET_HEADER(options, cache_control, "no-store, max-age=");
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL,
                         "Cache-Control: malformed max-age at byte 18 ('max-age='): it needs a whole number of seconds");
    options = write_options();
    SET_HEADER(options, age, "abc");
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL,
                         "Age: malformed value at byte 0 ('abc'): it needs a whole number of seconds");
    options = write_options();
    SET_HEADER(options, date, "yesterday");
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL,
                         "Date: malformed HTTP date at byte 0 ('yesterday'): a date is written as "
                         "'Sun, 06 Nov 1994 08:49:37 GMT'");

    /* A header pointer NULL with a length, and text that is not UTF-8. */
    options = write_options();
    options.cache_control_len = 5;
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL, "options->cache_control is NULL but its length is 5");
    options = write_options();
    options.age_len = 1;
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL, "options->age is NULL but its length is 1");
    options = write_options();
    options.date_len = 2;
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL, "options->date is NULL but its length is 2");
    options = write_options();
    options.expires_len = 3;
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL, "options->expires is NULL but its length is 3");
    options = write_options();
    SET_HEADER(options, cache_control, "max-age=\xff");
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL, "options->cache_control is not valid UTF-8");
    options = write_options();
    SET_HEADER(options, expires, "Sun, 06 Nov 1994 09:49:37 GMT\xc3");
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL, "options->expires is not valid UTF-8");

    /* A 1 MB Cache-Control value: malformed, quoted in 80 bytes; then well-formed ones. */
    NC_APPEND_LITERAL(&big, "max-age=");
    nc_append_repeat(&big, 'a', 1024 * 1024);
    options = write_options();
    options.cache_control = big.data;
    options.cache_control_len = big.len;
    NC_APPEND_LITERAL(&expected, "Cache-Control: malformed max-age at byte 8 ('max-age=");
    nc_append_repeat(&expected, 'a', 72);
    nc_appendf(&expected, "\xe2\x80\xa6 (%zu bytes)'): it needs a whole number of seconds", big.len);
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL, expected.data);
    CHECK_SEARCH(cache, "", NULL, 0, "[]");

    big.len = 0;
    NC_APPEND_LITERAL(&big, "x=");
    nc_append_repeat(&big, 'a', 1024 * 1024);
    NC_APPEND_LITERAL(&big, ", max-age=600");
    options.cache_control = big.data;
    options.cache_control_len = big.len;
    CHECK_OK(normcache_write_ex(cache, feed, NULL, 0, feed_response, strlen(feed_response), &options, NULL, NULL));
    CHECK_READ_EX(cache, feed, NULL, NULL, NORMCACHE_OK,
                  "{\"data\":" FEED_DATA ",\"missing\":[],\"stale\":[],\"oldestWrittenAt\":784111777,"
                  "\"earliestExpiry\":784112377}");
    free(big.data);
    free(expected.data);
    CHECK_OK(normcache_op_free(feed));
    CHECK_OK(normcache_close(cache));
}

/** NULL and closed handles, a freed operation, bad read options: exact codes, outputs cleared. */
static void test_bad_handles_and_read_options(void)
{
    struct test_clock clock;
    normcache *cache = feed_cache(&clock, NULL, NULL);
    normcache_op *feed = prepare(cache, feed_query);
    normcache_op *freed = prepare(cache, feed_query);
    normcache_write_options options = write_options();
    normcache_read_options read;
    char size_message[128];
    char *out = (char *)(void *)&out;
    size_t length = 3;

    CHECK_OK(normcache_op_free(freed));
    CHECK_WRITE_EX_FAILS(NULL, feed, &options, NORMCACHE_EINVAL, "the cache handle is NULL");
    CHECK_WRITE_EX_FAILS(cache, NULL, &options, NORMCACHE_EINVAL, "the operation handle is NULL");
    CHECK_WRITE_EX_FAILS(cache, freed, &options, NORMCACHE_EINVAL, "the operation handle is closed or was never opened");
    CHECK_SEARCH(cache, "", NULL, 0, "[]");
    CHECK_CODE(normcache_write_ex(cache, feed, NULL, 0, NULL, 4, &options, &out, &length), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("response_json is NULL but its length is 4");
    CHECK_CODE(normcache_write_ex(cache, feed, NULL, 0, feed_response, strlen(feed_response), &options, &out, NULL),
               NORMCACHE_EINVAL);
    CHECK(out == NULL);
    CHECK_ERRMSG_IS("out_changed or its length pointer is NULL");
    CHECK_SEARCH(cache, "", NULL, 0, "[]");

    read = read_options(0, -2);
    CHECK_CODE(normcache_read_ex(cache, feed, NULL, 0, NULL, 0, &read, &out, &length), NORMCACHE_EINVAL);
    CHECK(out == NULL && length == 0);
    CHECK_ERRMSG_IS("options->max_stale is -2: seconds, or -1 for none");
    read = read_options(4u, -1);
    CHECK_CODE(normcache_read_ex(cache, feed, NULL, 0, NULL, 0, &read, &out, &length), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("unknown read flags 0x4");
    read = read_options(NORMCACHE_READ_PARTIAL | 0x100u, -1);
    CHECK_CODE(normcache_read_ex(cache, feed, NULL, 0, NULL, 0, &read, &out, &length), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("unknown read flags 0x101");
    read = read_options(0, -1);
    read.size = 0;
    snprintf(size_message, sizeof size_message,
             "options->size is 0, below sizeof the struct (%zu): set it to sizeof", sizeof read);
    CHECK_CODE(normcache_read_ex(cache, feed, NULL, 0, NULL, 0, &read, &out, &length), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS(size_message);
    read.size = sizeof read - 1;
    snprintf(size_message, sizeof size_message,
             "options->size is %zu, below sizeof the struct (%zu): set it to sizeof", sizeof read - 1, sizeof read);
    CHECK_CODE(normcache_read_ex(cache, feed, NULL, 0, NULL, 0, &read, &out, &length), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS(size_message);
    read = read_options(0, -1);
    CHECK_CODE(normcache_read_ex(cache, feed, NULL, 0, NULL, 0, &read, NULL, &length), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("out_json or its length pointer is NULL");
    CHECK_CODE(normcache_read_ex(cache, feed, NULL, 0, NULL, 0, &read, &out, NULL), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_read_ex(NULL, feed, NULL, 0, NULL, 0, &read, &out, &length), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("the cache handle is NULL");
    CHECK_CODE(normcache_read_ex(cache, NULL, NULL, 0, NULL, 0, &read, &out, &length), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("the operation handle is NULL");
    CHECK_CODE(normcache_read_ex(cache, freed, NULL, 0, NULL, 0, &read, &out, &length), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("the operation handle is closed or was never opened");
    CHECK_CODE(normcache_read_ex(cache, feed, NULL, 3, NULL, 0, &read, &out, &length), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("key is NULL but its length is 3");
    CHECK_CODE(normcache_read_ex(cache, feed, "A:\xff", 3, NULL, 0, &read, &out, &length), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("key is not valid UTF-8");
    CHECK(out == NULL && length == 0);

    CHECK_OK(normcache_close(cache));
    CHECK_WRITE_EX_FAILS(cache, feed, &options, NORMCACHE_EINVAL, "the cache handle is closed or was never opened");
    CHECK_CODE(normcache_read_ex(cache, feed, NULL, 0, NULL, 0, &read, &out, &length), NORMCACHE_EINVAL);
    CHECK(out == NULL && length == 0);
    CHECK_ERRMSG_IS("the cache handle is closed or was never opened");
    CHECK_OK(normcache_op_free(feed));
}

int main(void)
{
    test_without_rules_data_never_expires();
    test_the_clock_is_asked_at_most_once_per_call();
    test_a_type_rule_expires_the_root_field();
    test_a_field_rule_beats_the_type_rule();
    test_a_child_is_never_fresher_than_its_path();
    test_inherit_takes_the_parent_fields_max_age();
    test_the_default_max_age();
    test_rules_on_the_concrete_type_and_its_interfaces();
    test_a_rule_configured_later_applies_without_rewriting();
    test_bad_max_age_configuration();
    test_sdl_field_rules_and_inherit();
    test_configured_rules_replace_the_schemas();
    test_bad_sdl_rules();
    test_max_stale_returns_stale_data_and_lists_it();
    test_read_ex_of_a_fragment();
    test_a_writes_max_age_stamps_only_its_fields();
    test_an_identical_rewrite_refreshes_the_times();
    test_the_servers_headers_set_the_expiry();
    test_no_store_writes_nothing();
    test_write_ex_without_options_and_with_a_larger_struct();
    test_write_options_of_the_first_version();
    test_put_ex_stamps_only_the_fields_it_gives();
    test_put_ex_follows_the_servers_headers();
    test_bad_put_ex();
    test_write_fragment_ex_lifetimes();
    test_a_field_invalidated_is_a_miss_with_its_reason();
    test_a_write_makes_an_invalidated_record_fresh();
    test_a_key_group_is_invalidated_at_once();
    test_an_expired_field_keeps_its_earlier_expiry();
    test_invalidate_absent_and_refused();
    test_a_clock_before_1970_fails_the_call();
    test_which_calls_ask_the_clock();
    test_a_clock_can_say_why_it_failed();
    test_the_system_clock_and_handles();
    test_bad_write_options();
    test_bad_handles_and_read_options();
    return 0;
}
