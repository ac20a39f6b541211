/*
 * test_interchange.c — normcache_import and normcache_export: Apollo Client's
 * cache.extract() JSON and Apollo iOS's rows, through the C interface.
 */
#include "check.h"

/** An extract with a root argument key, a reference, an inline object and __META. */
static const char extract[] =
    "{\"ROOT_QUERY\": {\"hero({\\\"episode\\\":\\\"JEDI\\\"})\": {\"__ref\": \"Droid:2001\"}, "
    "\"stats\": {\"__typename\": \"Stats\", \"count\": 2}}, "
    "\"Droid:2001\": {\"__typename\": \"Droid\", \"name\": \"R2-D2\"}, \"__META\": {\"extraRootIds\": []}}";

/**
 * Import translates keys and references (an inline object's record comes before the record
 * that holds it, as the normalizer writes them); export gives the extract back without __META.
 */
static void test_apollo_client_both_ways(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    char *out = NULL;
    size_t out_len = 0;
    CHECK_OK(normcache_import(cache, NORMCACHE_FORMAT_APOLLO_CLIENT, extract, strlen(extract), &out, &out_len));
    nc_check_output(__FILE__, __LINE__, "changed keys", out, out_len,
                    "[\"QUERY_ROOT.stats.__typename\",\"QUERY_ROOT.stats.count\",\"QUERY_ROOT.hero(episode:JEDI)\","
                    "\"QUERY_ROOT.stats\",\"Droid:2001.__typename\",\"Droid:2001.name\"]");
    CHECK_GET(cache, "QUERY_ROOT",
              "{\"hero(episode:JEDI)\":{\"$reference\":\"Droid:2001\"},\"stats\":{\"$reference\":\"QUERY_ROOT.stats\"}}");
    CHECK_GET(cache, "QUERY_ROOT.stats", "{\"__typename\":\"Stats\",\"count\":2}");
    CHECK_OK(normcache_export(cache, NORMCACHE_FORMAT_APOLLO_CLIENT, &out, &out_len));
    nc_check_output(__FILE__, __LINE__, "extract", out, out_len,
                    "{\"Droid:2001\":{\"__typename\":\"Droid\",\"name\":\"R2-D2\"},"
                    "\"ROOT_QUERY\":{\"hero({\\\"episode\\\":\\\"JEDI\\\"})\":{\"__ref\":\"Droid:2001\"},"
                    "\"stats\":{\"__typename\":\"Stats\",\"count\":2}}}");
    CHECK_OK(normcache_export(cache, NORMCACHE_FORMAT_APOLLO_IOS, &out, &out_len));
    nc_check_output(__FILE__, __LINE__, "rows", out, out_len,
                    "{\"Droid:2001\":\"{\\\"__typename\\\":\\\"Droid\\\",\\\"name\\\":\\\"R2-D2\\\"}\","
                    "\"QUERY_ROOT\":\"{\\\"hero(episode:JEDI)\\\":{\\\"$reference\\\":\\\"Droid:2001\\\"},"
                    "\\\"stats\\\":{\\\"$reference\\\":\\\"QUERY_ROOT.stats\\\"}}\","
                    "\"QUERY_ROOT.stats\":\"{\\\"__typename\\\":\\\"Stats\\\",\\\"count\\\":2}\"}");
    CHECK_OK(normcache_close(cache));
}

/** Apollo iOS rows are put as they are; the changed keys may be left unasked. */
static void test_apollo_ios_rows(void)
{
    static const char rows[] = "{\"QUERY_ROOT\": \"{\\\"hero\\\": {\\\"$reference\\\": \\\"Droid:1\\\"}}\", "
                               "\"Droid:1\": \"{\\\"name\\\": \\\"R2\\\"}\"}";
    normcache *cache = NC_OPEN_FRESH(NULL);
    CHECK_OK(normcache_import(cache, NORMCACHE_FORMAT_APOLLO_IOS, rows, strlen(rows), NULL, NULL));
    CHECK_GET(cache, "QUERY_ROOT", "{\"hero\":{\"$reference\":\"Droid:1\"}}");
    CHECK_GET(cache, "Droid:1", "{\"name\":\"R2\"}");
    CHECK_OK(normcache_close(cache));
}

/** Bad formats, bad data and dangling references fail with their codes and write nothing. */
static void test_failures_write_nothing(void)
{
    static const char dangling[] = "{\"ROOT_QUERY\": {\"hero\": {\"__ref\": \"Droid:9\"}}}";
    static const char not_json[] = "{\"QUERY_ROOT\": \"{oops\"}";
    normcache *cache = NC_OPEN_FRESH(NULL);
    char *out = (char *)1;
    size_t out_len = 7;
    CHECK_CODE(normcache_import(cache, 3, "{}", 2, NULL, NULL), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("unknown format 3 (NORMCACHE_FORMAT_APOLLO_CLIENT is 1, NORMCACHE_FORMAT_APOLLO_IOS 2)");
    CHECK_CODE(normcache_export(cache, 0, &out, &out_len), NORMCACHE_EINVAL);
    CHECK(out == NULL && out_len == 0);
    CHECK_CODE(normcache_export(cache, NORMCACHE_FORMAT_APOLLO_CLIENT, NULL, NULL), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_import(cache, NORMCACHE_FORMAT_APOLLO_CLIENT, dangling, strlen(dangling), NULL, NULL),
               NORMCACHE_EDATA);
    CHECK_ERRMSG_IS("apollo-client import: field 'hero' of record 'ROOT_QUERY' refers to 'Droid:9', which the file "
                    "does not hold; nothing was imported");
    CHECK_CODE(normcache_import(cache, NORMCACHE_FORMAT_APOLLO_IOS, not_json, strlen(not_json), NULL, NULL),
               NORMCACHE_EJSON);
    CHECK_ERRMSG_IS("apollo-ios import: the record of key 'QUERY_ROOT' is not JSON: JSON error at byte 1: expected a "
                    "string as object key");
    CHECK_CODE(normcache_import(cache, NORMCACHE_FORMAT_APOLLO_CLIENT, extract, 40, NULL, NULL), NORMCACHE_EJSON);
    CHECK_CODE(normcache_import(NULL, NORMCACHE_FORMAT_APOLLO_CLIENT, extract, strlen(extract), NULL, NULL),
               NORMCACHE_EINVAL);
    CHECK_SEARCH(cache, "", NULL, 0, "[]");
    CHECK_OK(normcache_export(cache, NORMCACHE_FORMAT_APOLLO_CLIENT, &out, &out_len));
    nc_check_output(__FILE__, __LINE__, "empty extract", out, out_len, "{}");
    CHECK_OK(normcache_close(cache));
}

int main(void)
{
    test_apollo_client_both_ways();
    test_apollo_ios_rows();
    test_failures_write_nothing();
    return 0;
}
