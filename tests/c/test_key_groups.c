/*
 * test_key_groups.c — normcache_key_groups: each key group's records, bytes and oldest
 * and newest write, exactly, under a clock the test moves; an empty cache; bad handles
 * and out-parameters.
 */
#include "check.h"

/** The normcache_clock over an int64_t the test sets. */
static int64_t test_clock_now(void *context)
{
    return *(int64_t *)context;
}

/** Groups by their first ':' or a '.' before it; each counted once, ordered by name, names escaped. */
static void test_groups(void)
{
    int64_t now = 1700000000;
    normcache *cache = NC_OPEN_FRESH(NULL);
    char *json = NULL;
    size_t len = 0;
    CHECK_OK(normcache_key_groups(cache, &json, &len));
    CHECK_STR(json, len, "[]");
    normcache_free(json);

    CHECK_OK(normcache_set_clock(cache, test_clock_now, &now));
    CHECK_OK(normcache_put(cache, "{\"Pet:1\": {\"name\": \"Rex\"}, \"QUERY_ROOT\": {\"pet\": {\"$reference\": \"Pet:1\"}}}",
                           NORMCACHE_NUL_TERMINATED, NULL, NULL));
    now += 60;
    CHECK_OK(normcache_put(cache, "{\"Pet:2\": {\"name\": \"Tom\", \"age\": 3}, \"QUERY_ROOT.pets.0\": {\"x\": 1}, \"pl\\\"ain\": {\"y\": \"\\\"q\\\"\"}}",
                           NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK_OK(normcache_key_groups(cache, &json, &len));
    CHECK_STR(json, len,
              "[{\"group\":\"Pet:\",\"records\":2,\"bytes\":74,\"oldest_write\":1700000000,\"newest_write\":1700000060},"
              "{\"group\":\"QUERY_ROOT\",\"records\":2,\"bytes\":69,\"oldest_write\":1700000000,\"newest_write\":1700000060},"
              "{\"group\":\"pl\\\"ain\",\"records\":1,\"bytes\":26,\"oldest_write\":1700000060,\"newest_write\":1700000060}]");
    normcache_free(json);
    CHECK_OK(normcache_close(cache));
}

/** NULL and closed handles and NULL out-parameters are NORMCACHE_EINVAL, with nothing returned. */
static void test_bad_arguments(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    char *json = (char *)1;
    size_t len = 7;
    CHECK_CODE(normcache_key_groups(NULL, &json, &len), NORMCACHE_EINVAL);
    CHECK(json == NULL && len == 0);
    CHECK_CODE(normcache_key_groups(cache, NULL, &len), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_key_groups(cache, &json, NULL), NORMCACHE_EINVAL);
    CHECK_OK(normcache_close(cache));
    CHECK_CODE(normcache_key_groups(cache, &json, &len), NORMCACHE_EINVAL);
    CHECK(json == NULL);
}

int main(void)
{
    test_groups();
    test_bad_arguments();
    return 0;
}
