/*
 * test_gc.c — normcache_gc, normcache_retain and normcache_release through the C
 * interface: the exact report, dry runs, options checked, retain counts shared by a
 * forked process, and bad input (NULL pointers, unknown flags, a short struct, a key
 * that is not UTF-8, a release below zero).
 */
#include "check.h"
#include "processes.h"

/** The report up to its timing, which varies: the rest must match exactly. */
static void check_report(const char *file, int line, char *out, size_t out_len, const char *expected)
{
    const char *tail = strstr(out, ",\"elapsed_us\":");
    if (tail == NULL || out[out_len - 1] != '}')
        nc_fail(file, line, "report \"%s\" lacks its elapsed_us", out);
    nc_check_bytes(file, line, "report", out, (size_t)(tail - out), expected, strlen(expected));
    normcache_free(out);
}

/** Puts JSON records, the changed keys left unasked. */
#define PUT(cache, records) CHECK_OK(normcache_put((cache), (records), strlen(records), NULL, NULL))

#define CHECK_REPORT(out, out_len, expected) check_report(__FILE__, __LINE__, (out), (out_len), (expected))

/** Unreachable records go; the report is exact; a dry run reports the same and writes nothing. */
static void test_report(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    PUT(cache, "{\"QUERY_ROOT\": {\"book\": {\"$reference\": \"Book:1\"}, \"gone\": [{\"$reference\": \"Book:9\"}], \"n\": 1},"
               " \"Book:1\": {\"t\": 1}, \"Book:2\": {\"t\": 2}, \"Pen:1\": {\"t\": 3}}");
    normcache_gc_options options = {sizeof options, NORMCACHE_GC_DRY_RUN | NORMCACHE_GC_DANGLING, -1};
    char *out = NULL;
    size_t out_len = 0;
    CHECK_OK(normcache_gc(cache, &options, &out, &out_len));
    CHECK_REPORT(out, out_len,
                 "{\"dry_run\":true,\"removed_records\":2,\"unreachable_records\":2,\"emptied_records\":0,"
                 "\"removed_fields\":1,\"stale_fields\":0,\"dangling_fields\":1,\"kept_records\":2,"
                 "\"groups\":{\"Book:\":{\"records\":1,\"fields\":0},\"Pen:\":{\"records\":1,\"fields\":0},"
                 "\"QUERY_ROOT\":{\"records\":0,\"fields\":1}},\"mark_set_bytes\":32768");
    CHECK_GET(cache, "Pen:1", "{\"t\":3}");
    CHECK_OK(normcache_gc(cache, NULL, &out, &out_len));
    CHECK_REPORT(out, out_len,
                 "{\"dry_run\":false,\"removed_records\":2,\"unreachable_records\":2,\"emptied_records\":0,"
                 "\"removed_fields\":0,\"stale_fields\":0,\"dangling_fields\":0,\"kept_records\":2,"
                 "\"groups\":{\"Book:\":{\"records\":1,\"fields\":0},\"Pen:\":{\"records\":1,\"fields\":0}},"
                 "\"mark_set_bytes\":32768");
    CHECK_CODE(normcache_get(cache, "Pen:1", 5, &out, &out_len), NORMCACHE_NOTFOUND);
    CHECK_OK(normcache_close(cache));
}

/** Every bad argument gets EINVAL and a message naming it. */
static void test_bad_input(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    char *out = NULL;
    size_t out_len = 0;
    uint32_t count = 7;
    CHECK_CODE(normcache_gc(NULL, NULL, &out, &out_len), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_gc(cache, NULL, NULL, &out_len), NORMCACHE_EINVAL);
    normcache_gc_options options = {sizeof options - 1, 0, -1};
    CHECK_CODE(normcache_gc(cache, &options, &out, &out_len), NORMCACHE_EINVAL);
    CHECK_CONTAINS(normcache_errmsg(), "options->size is");
    options.size = sizeof options;
    options.flags = 8;
    CHECK_CODE(normcache_gc(cache, &options, &out, &out_len), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("options->flags has unknown bits 8 (known: NORMCACHE_GC_DRY_RUN, NORMCACHE_GC_DANGLING)");
    options.flags = 0;
    options.stale_grace = -2;
    CHECK_CODE(normcache_gc(cache, &options, &out, &out_len), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("options->stale_grace is -2: seconds, or -1 to keep stale fields");
    CHECK(out == NULL && out_len == 0);
    CHECK_CODE(normcache_retain(NULL, "k", 1, &count), NORMCACHE_EINVAL);
    CHECK(count == 0);
    CHECK_CODE(normcache_retain(cache, NULL, 1, NULL), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_retain(cache, "\xff", 1, NULL), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("retained key is not valid UTF-8");
    CHECK_CODE(normcache_release(cache, "Book:1", 6, &count), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("'Book:1' is not retained");
    CHECK_OK(normcache_close(cache));
}

/** A forked process's retain is the parent's too, and keeps the record through its GC. */
static void retain_in_child(const char *path, int number)
{
    (void)number;
    normcache *cache = NC_OPEN(path, NULL);
    uint32_t count = 0;
    CHECK_OK(normcache_retain(cache, "Draft:1", NORMCACHE_NUL_TERMINATED, &count));
    CHECK(count == 2);
    CHECK_OK(normcache_close(cache));
}

static void test_retain_across_processes(void)
{
    char path[NC_PATH_SIZE];
    nc_temp_path(path, "retain");
    normcache *cache = NC_OPEN(path, NULL);
    PUT(cache, "{\"Draft:1\": {\"body\": \"x\"}}");
    uint32_t count = 0;
    CHECK_OK(normcache_retain(cache, "Draft:1", NORMCACHE_NUL_TERMINATED, &count));
    CHECK(count == 1);
    CHECK_CHILD_PASSED(nc_spawn(retain_in_child, path, 0));
    CHECK_OK(normcache_release(cache, "Draft:1", NORMCACHE_NUL_TERMINATED, &count));
    CHECK(count == 1);
    char *out = NULL;
    size_t out_len = 0;
    CHECK_OK(normcache_gc(cache, NULL, &out, &out_len));
    CHECK_CONTAINS(out, "\"removed_records\":0,");
    normcache_free(out);
    CHECK_OK(normcache_release(cache, "Draft:1", NORMCACHE_NUL_TERMINATED, &count));
    CHECK(count == 0);
    CHECK_OK(normcache_gc(cache, NULL, &out, &out_len));
    CHECK_CONTAINS(out, "\"removed_records\":1,");
    normcache_free(out);
    CHECK_OK(normcache_close(cache));
}

int main(void)
{
    test_report();
    test_bad_input();
    test_retain_across_processes();
    return 0;
}
