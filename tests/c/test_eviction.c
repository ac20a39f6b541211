/*
 * test_eviction.c — normcache_trim and the "max_bytes"/"low_water" open options: whole
 * records evicted least recently written first, the roots spared, the report by key
 * group, a write over the limit refused, and bad limits refused.
 */
#include "check.h"

/** The time the clock answers, moved by the test. */
static int64_t now_seconds = 1700000000;

/** A clock answering now_seconds. */
static int64_t test_clock(void *context)
{
    (void)context;
    return now_seconds;
}

/** Puts `key` with a 20,000-byte body (five overflow pages of its own) at time `at`. */
static void put_large(normcache *cache, const char *key, int64_t at)
{
    nc_text records = {0};
    char *out = NULL;
    size_t out_len = 0;
    now_seconds = at;
    nc_appendf(&records, "{\"%s\": {\"body\": \"", key);
    nc_append_repeat(&records, 'x', 20000);
    NC_APPEND_LITERAL(&records, "\"}}");
    CHECK_OK(normcache_put(cache, records.data, records.len, &out, &out_len));
    normcache_free(out);
    free(records.data);
}

static void test_trim_evicts_the_oldest_records_by_group(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    char *report = NULL;
    size_t report_len = 0;
    unsigned long long before;
    nc_text expected = {0};
    CHECK_OK(normcache_set_clock(cache, test_clock, NULL));
    now_seconds = 50;
    CHECK_PUT(cache, "{\"QUERY_ROOT\": {\"me\": {\"$reference\": \"User:1\"}}}", "[\"QUERY_ROOT.me\"]");
    put_large(cache, "User:2", 100);
    put_large(cache, "User:1", 200);
    put_large(cache, "Post:1", 300);
    before = NC_STAT_NUMBER(cache, "data_bytes");
    CHECK_OK(normcache_trim(cache, (int64_t)before - 1, &report, &report_len));
    nc_appendf(&expected,
               "{\"records\":1,\"bytes\":20036,\"data_bytes_before\":%llu,\"data_bytes_after\":%llu,"
               "\"groups\":{\"User:\":1}}",
               before, before - 5 * 4096);
    nc_check_output(__FILE__, __LINE__, "report", report, report_len, expected.data);
    CHECK_SEARCH(cache, "", NULL, 0, "[\"Post:1\",\"QUERY_ROOT\",\"User:1\"]");
    CHECK(NC_STAT_NUMBER(cache, "data_bytes") == before - 5 * 4096);

    CHECK_OK(normcache_trim(cache, 0, &report, &report_len));
    CHECK_CONTAINS(report, "\"records\":2,");
    CHECK_CONTAINS(report, "\"groups\":{\"Post:\":1,\"User:\":1}}");
    normcache_free(report);
    CHECK_SEARCH(cache, "", NULL, 0, "[\"QUERY_ROOT\"]");

    CHECK_CODE(normcache_trim(cache, -1, &report, &report_len), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("max_bytes -1 is negative");
    CHECK(report == NULL);
    CHECK_CODE(normcache_trim(cache, 0, NULL, &report_len), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("out_json or its length pointer is NULL");
    CHECK_CODE(normcache_trim(cache, 0, &report, NULL), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_trim(NULL, 0, &report, &report_len), NORMCACHE_EINVAL);
    free(expected.data);
    normcache_close(cache);
}

static void test_max_bytes_keeps_the_data_under_the_limit(void)
{
    normcache *cache = NC_OPEN_FRESH("{\"max_bytes\": 200000, \"low_water\": 0.5}");
    char key[32];
    int i;
    CHECK_OK(normcache_set_clock(cache, test_clock, NULL));
    for (i = 0; i < 20; i++) {
        snprintf(key, sizeof key, "Item:%d", i);
        put_large(cache, key, 1000 + i);
        CHECK(NC_STAT_NUMBER(cache, "data_bytes") <= 200000);
    }
    CHECK(NC_STAT_NUMBER(cache, "max_bytes") == 200000);
    CHECK_SEARCH(cache, "", NULL, 0,
                 "[\"Item:12\",\"Item:13\",\"Item:14\",\"Item:15\",\"Item:16\",\"Item:17\",\"Item:18\","
                 "\"Item:19\"]");
    normcache_close(cache);
}

static void test_a_write_larger_than_the_limit_is_refused(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache = NC_OPEN(nc_temp_path(path, "refused.cache"), "{\"max_bytes\": 65536}");
    nc_text records = {0};
    char *out = NULL;
    size_t out_len = 0;
    CHECK_PUT(cache, "{\"Small:1\": {\"n\": 1}}", "[\"Small:1.n\"]");
    NC_APPEND_LITERAL(&records, "{\"Huge:1\": {\"body\": \"");
    nc_append_repeat(&records, 'y', 100000);
    NC_APPEND_LITERAL(&records, "\"}}");
    CHECK_CODE(normcache_put(cache, records.data, records.len, &out, &out_len), NORMCACHE_ESTORAGE);
    CHECK_ERRMSG(path, "over its max_bytes of 65536, with every record it may evict evicted (the roots and the "
                       "records it wrote stay); nothing was written");
    CHECK_SEARCH(cache, "", NULL, 0, "[\"Small:1\"]");
    free(records.data);
    normcache_close(cache);
}

static void test_bad_limits_are_refused(void)
{
    char path[NC_PATH_SIZE];
    nc_temp_path(path, "bad.cache");
    CHECK_OPEN_FAILS(path, "{\"max_bytes\": 0}", NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("option 'max_bytes' must be an integer number of bytes, at least 65536");
    CHECK_OPEN_FAILS(path, "{\"max_bytes\": -65536}", NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("option 'max_bytes' must be an integer number of bytes, at least 65536");
    CHECK_OPEN_FAILS(path, "{\"max_bytes\": 1e400}", NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("option 'max_bytes' must be an integer number of bytes, at least 65536");
    CHECK_OPEN_FAILS(path, "{\"low_water\": 1.01}", NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("option 'low_water' must be a number greater than 0 and at most 1");
    CHECK(!nc_exists(path));
}

int main(void)
{
    test_trim_evicts_the_oldest_records_by_group();
    test_max_bytes_keeps_the_data_under_the_limit();
    test_a_write_larger_than_the_limit_is_refused();
    test_bad_limits_are_refused();
    return 0;
}
