/*
 * test_compact.c — normcache_compact: a cache file rewritten in place without its free
 * pages, every record kept byte for byte, its report, and the file much smaller after a
 * clear; the paths, options and files it refuses with their exact messages (NULL, empty,
 * NUL byte, not UTF-8, missing, a directory, random bytes, a truncated cache, bad
 * options), leaving each as it was; and the file held open by a handle of this process
 * or by another process, refused with the file named and nothing changed.
 */
#include "check.h"
#include "processes.h"

#include <sys/stat.h>
#include <sys/wait.h>

/** The size of a buffer for a lock file path or an expected message of this test. */
#define NC_LONG_SIZE (3 * NC_PATH_SIZE)

/** The size of the file at `path`, or -1 when there is none. */
static long long file_size(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 ? (long long)info.st_size : -1;
}

/** A cache at `path` with 40 small records and 2000 records of 1 kB under "Big:". */
static normcache *filled_cache(const char *path)
{
    nc_text records = {0};
    normcache *cache = NC_OPEN(path, NULL);
    int i;
    NC_APPEND_LITERAL(&records, "{");
    for (i = 0; i < 40; i++) {
        nc_appendf(&records, "%s\"Pet:%d\": {\"name\": \"pet %d\", \"owner\": {\"$reference\": \"User:%d\"}, \"n\": %d}",
                   i == 0 ? "" : ",", i, i, i % 3, i);
    }
    for (i = 0; i < 2000; i++) {
        nc_appendf(&records, ",\"Big:%d\": {\"v\": \"", i);
        nc_append_repeat(&records, 'x', 1000);
        NC_APPEND_LITERAL(&records, "\"}");
    }
    NC_APPEND_LITERAL(&records, "}");
    CHECK_OK(normcache_put(cache, records.data, records.len, NULL, NULL));
    free(records.data);
    return cache;
}

/** Every record of the cache file at `path`, as nc_dump_records lists them. */
static void dump_file(const char *path, nc_text *dump)
{
    normcache *cache = NC_OPEN(path, NULL);
    CHECK(nc_dump_records(cache, dump));
    CHECK_OK(normcache_close(cache));
}

/**
 * With most records removed, compaction shrinks the file, reports both sizes, and keeps
 * every record left byte for byte; after clear() it leaves a few pages, and the cache
 * opens and takes writes as before.
 */
static void test_compact_keeps_records_and_shrinks(void)
{
    char path[NC_PATH_SIZE];
    char expected[128];
    nc_text before = {0};
    nc_text after = {0};
    char *json = NULL;
    size_t len = 0;
    long long size_before;
    long long size_after;
    uint64_t removed = 0;
    normcache *cache = filled_cache(nc_temp_path(path, "filled.cache"));
    CHECK_OK(normcache_remove_prefix(cache, "Big:", 4, &removed));
    CHECK(removed == 2000);
    CHECK_PUT(cache, "{\"Big:7\": {\"v\": \"kept\"}}", "[\"Big:7.v\"]");
    CHECK_OK(normcache_close(cache));
    dump_file(path, &before);
    CHECK_CONTAINS(before.data, "\"Pet:39\"");
    size_before = file_size(path);
    CHECK(size_before > 2000 * 1000);

    CHECK_OK(normcache_compact(path, NORMCACHE_NUL_TERMINATED, NULL, 0, &json, &len));
    size_after = file_size(path);
    snprintf(expected, sizeof expected, "{\"bytes_before\":%lld,\"bytes_after\":%lld}", size_before, size_after);
    CHECK_STR(json, len, expected);
    normcache_free(json);
    CHECK(size_after <= 16 * 4096);
    dump_file(path, &after);
    CHECK(after.len == before.len && memcmp(after.data, before.data, before.len) == 0);

    cache = NC_OPEN(path, NULL);
    CHECK_GET(cache, "Pet:5", "{\"n\":5,\"name\":\"pet 5\",\"owner\":{\"$reference\":\"User:2\"}}");
    CHECK_GET(cache, "Big:7", "{\"v\":\"kept\"}");
    CHECK_NOTFOUND(cache, "Big:8");
    CHECK_STAT(cache, "records", "41");
    CHECK_OK(normcache_clear(cache));
    CHECK_OK(normcache_close(cache));

    /* A cache filled and cleared: the report is optional (both NULL). */
    cache = filled_cache(path);
    CHECK_OK(normcache_clear(cache));
    CHECK_OK(normcache_close(cache));
    CHECK(file_size(path) > 2000 * 1000);
    CHECK_OK(normcache_compact(path, strlen(path), "{\"max_readers\": 7}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK(file_size(path) <= 16 * 4096);
    cache = NC_OPEN(path, NULL);
    CHECK_STAT(cache, "records", "0");
    CHECK_PUT(cache, "{\"Pet:1\": {\"name\": \"again\"}}", "[\"Pet:1.name\"]");
    CHECK_GET(cache, "Pet:1", "{\"name\":\"again\"}");
    CHECK_OK(normcache_close(cache));
    free(before.data);
    free(after.data);
}

/**
 * Fails unless compacting `path` (a C string) with `options` fails with `code`, leaves the
 * report NULL/0, and (unless `message` is NULL) gives exactly `message`.
 */
static void check_refused(const char *path, const char *options, int code, const char *message)
{
    char *json = (char *)"unset";
    size_t len = 99;
    CHECK_CODE(normcache_compact(path, NORMCACHE_NUL_TERMINATED, options, options ? strlen(options) : 0, &json, &len),
               code);
    CHECK(json == NULL && len == 0);
    if (message != NULL) {
        CHECK_ERRMSG_IS(message);
    }
}

/** Paths and options refused before any file is touched, each with its exact message. */
static void test_refused_arguments(void)
{
    char path[NC_PATH_SIZE];
    char expected[NC_LONG_SIZE];
    char *json = NULL;
    static const char nul[] = "a\0b.cache";
    static const char latin1[] = "caf\xe9.cache";
    normcache *cache = filled_cache(nc_temp_path(path, "arguments.cache"));
    CHECK_OK(normcache_close(cache));

    CHECK_CODE(normcache_compact(NULL, 0, NULL, 0, NULL, NULL), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("empty cache path");
    CHECK_CODE(normcache_compact(NULL, 5, NULL, 0, NULL, NULL), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("path is NULL but its length is 5");
    CHECK_CODE(normcache_compact(NULL, NORMCACHE_NUL_TERMINATED, NULL, 0, NULL, NULL), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("path is NULL but its length is NORMCACHE_NUL_TERMINATED");
    CHECK_CODE(normcache_compact("", 0, NULL, 0, NULL, NULL), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("empty cache path");
    CHECK_CODE(normcache_compact(nul, sizeof nul - 1, NULL, 0, NULL, NULL), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("cache path contains a NUL byte");
    CHECK_CODE(normcache_compact(latin1, sizeof latin1 - 1, NULL, 0, NULL, NULL), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("path is not valid UTF-8");
    CHECK_CODE(normcache_compact(path, strlen(path), NULL, 0, &json, NULL), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("out_json or its length pointer is NULL");
    CHECK(json == NULL);

    snprintf(expected, sizeof expected, "cannot compact '%s' with the option read_only: compacting rewrites the file",
             path);
    check_refused(path, "{\"read_only\": true}", NORMCACHE_EREADONLY, expected);
    check_refused(path, "{\"max_readers\": 0}", NORMCACHE_EINVAL, "option 'max_readers' must be an integer from 1 to 65535");
    check_refused(path, "[]", NORMCACHE_EINVAL, "options must be a JSON object");
    check_refused(path, "{\"nope\": 1}", NORMCACHE_EINVAL,
                  "unknown option 'nope' (known: durability, read_only, map_size, max_readers, rules, mode, "
                  "max_document_bytes, max_document_tokens, max_bytes, low_water)");
    check_refused(path, "{", NORMCACHE_EJSON, NULL);
    CHECK(file_size(path) > 2000 * 1000);
}

/**
 * Files that are no cache to compact: each refused with its exact message and left as it
 * was, with no lock file made beside it.
 */
static void test_refused_files(void)
{
    char path[NC_PATH_SIZE];
    char lock[NC_LONG_SIZE];
    char expected[NC_LONG_SIZE];
    unsigned char noise[8192];
    unsigned char *cache_bytes;
    size_t cache_len = 0;
    uint64_t state = 42;
    size_t i;
    normcache *cache;

    nc_temp_path(path, "missing.cache");
    snprintf(expected, sizeof expected, "cannot compact '%s': cannot stat it: No such file or directory", path);
    check_refused(path, NULL, NORMCACHE_ESTORAGE, expected);
    CHECK(!nc_exists(path));

    snprintf(expected, sizeof expected, "cannot compact '%s': not a regular file", nc_temp_dir());
    check_refused(nc_temp_dir(), NULL, NORMCACHE_EINVAL, expected);

    for (i = 0; i < sizeof noise; i++) {
        noise[i] = (unsigned char)nc_next_random(&state);
    }
    nc_write_file(nc_temp_path(path, "noise.cache"), noise, sizeof noise);
    snprintf(expected, sizeof expected, "'%s' is not a normcache cache: not an LMDB file", path);
    check_refused(path, NULL, NORMCACHE_ENOTCACHE, expected);
    CHECK_FILE_IS(path, noise, sizeof noise);
    snprintf(lock, sizeof lock, "%s-lock", path);
    CHECK(!nc_exists(lock));

    nc_write_file(nc_temp_path(path, "empty.cache"), noise, 0);
    snprintf(expected, sizeof expected,
             "'%s' is not a normcache cache: an empty file, not made a cache yet: nothing to compact", path);
    check_refused(path, NULL, NORMCACHE_ENOTCACHE, expected);
    CHECK(file_size(path) == 0);
    snprintf(lock, sizeof lock, "%s-lock", path);
    CHECK(!nc_exists(lock));

    /* A cache cut to half its length: its pages end past the end of the file. */
    cache = filled_cache(nc_temp_path(path, "truncated.cache"));
    CHECK_OK(normcache_close(cache));
    cache_bytes = nc_read_file(path, &cache_len);
    CHECK(truncate(path, (off_t)(cache_len / 2)) == 0);
    snprintf(expected, sizeof expected, "'%s' is truncated: %zu bytes, but its pages end at byte ", path, cache_len / 2);
    check_refused(path, NULL, NORMCACHE_ENOTCACHE, NULL);
    CHECK(strncmp(normcache_errmsg(), expected, strlen(expected)) == 0);
    CHECK_FILE_IS(path, cache_bytes, cache_len / 2);
    free(cache_bytes);
}

/** The pipes between the parent and the child that holds the cache open. */
static int to_parent[2];
static int to_child[2];

/** Child body: opens the cache, says 'o', waits for 'q', reads its record and closes. */
static void holder_child(const char *path, int number)
{
    normcache *cache = NC_OPEN(path, NULL);
    (void)number;
    nc_send_signal(to_parent[1], 'o');
    nc_await_signal(to_child[0], 'q');
    CHECK_GET(cache, "Pet:3", "{\"n\":3,\"name\":\"pet 3\",\"owner\":{\"$reference\":\"User:0\"}}");
    CHECK_STAT(cache, "records", "2040");
    CHECK_OK(normcache_close(cache));
}

/**
 * A file held open by a handle of this process, then by another process: refused with
 * the file (and the other process's pid) named, the file and lock file left byte for
 * byte, and the holders go on using it. Once they have closed it, it compacts.
 */
static void test_refused_while_open(void)
{
    char path[NC_PATH_SIZE];
    char lock[NC_LONG_SIZE];
    char expected[NC_LONG_SIZE];
    unsigned char *data;
    unsigned char *lock_data;
    size_t data_len = 0;
    size_t lock_len = 0;
    pid_t holder;
    normcache *cache = filled_cache(nc_temp_path(path, "held.cache"));
    normcache *second = NC_OPEN(path, "{\"read_only\": true}");
    snprintf(lock, sizeof lock, "%s-lock", path);
    data = nc_read_file(path, &data_len);
    lock_data = nc_read_file(lock, &lock_len);

    snprintf(expected, sizeof expected, "'%s' is open in this process (2 handles): close it before compacting it", path);
    check_refused(path, NULL, NORMCACHE_EINVAL, expected);
    CHECK_OK(normcache_close(second));
    snprintf(expected, sizeof expected, "'%s' is open in this process (1 handle): close it before compacting it", path);
    check_refused(path, NULL, NORMCACHE_EINVAL, expected);
    CHECK_FILE_IS(path, data, data_len);
    CHECK_FILE_IS(lock, lock_data, lock_len);
    CHECK_GET(cache, "Pet:3", "{\"n\":3,\"name\":\"pet 3\",\"owner\":{\"$reference\":\"User:0\"}}");
    CHECK_OK(normcache_close(cache));
    free(data);
    free(lock_data);

    CHECK(pipe(to_parent) == 0 && pipe(to_child) == 0);
    holder = nc_spawn(holder_child, path, 0);
    nc_await_signal(to_parent[0], 'o');
    data = nc_read_file(path, &data_len);
    snprintf(expected, sizeof expected,
             "cannot compact '%s': another process has it open (pid %d); compact it when no process uses it", path,
             (int)holder);
    check_refused(path, NULL, NORMCACHE_ESTORAGE, expected);
    CHECK_FILE_IS(path, data, data_len);
    nc_send_signal(to_child[1], 'q');
    CHECK_CHILD_PASSED(holder);
    free(data);
    close(to_parent[0]);
    close(to_parent[1]);
    close(to_child[0]);
    close(to_child[1]);

    CHECK_OK(normcache_compact(path, strlen(path), NULL, 0, NULL, NULL));
    cache = NC_OPEN(path, NULL);
    CHECK_STAT(cache, "records", "2040");
    CHECK_OK(normcache_close(cache));
}

int main(void)
{
    test_compact_keeps_records_and_shrinks();
    test_refused_arguments();
    test_refused_files();
    test_refused_while_open();
    return 0;
}
