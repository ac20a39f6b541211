/*
 * test_copy.c — normcache_copy: a compacted, consistent copy to a new file; the
 * destinations it refuses (exists, missing directory, not writable, empty, NUL byte,
 * not UTF-8) with their exact messages; the copy's mode and lock file; a read-only
 * handle; and copies taken while another process commits in a loop.
 */
#include "check.h"
#include "processes.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

/** The size of a buffer for a lock file path of this test. */
#define NC_LOCK_PATH_SIZE (2 * NC_PATH_SIZE)

/** The size of the file at `path`, or -1 when there is none. */
static long long file_size(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 ? (long long)info.st_size : -1;
}

/** The permission bits of the file at `path`. */
static unsigned file_mode(const char *path)
{
    struct stat info;
    CHECK(stat(path, &info) == 0);
    return (unsigned)(info.st_mode & 07777);
}

/** Writes "<path>-lock" into `out` (NC_LOCK_PATH_SIZE bytes). */
static const char *lock_path(char *out, const char *path)
{
    snprintf(out, NC_LOCK_PATH_SIZE, "%s-lock", path);
    return out;
}

/** A copy holds the records; it is a cache of its own, with no lock file until opened. */
static void test_copy_holds_the_records(void)
{
    char source[NC_PATH_SIZE];
    char destination[NC_PATH_SIZE];
    char lock[NC_LOCK_PATH_SIZE];
    normcache *cache = NC_OPEN(nc_temp_path(source, "source"), NULL);
    normcache *copy;
    CHECK_PUT(cache, "{\"Pet:1\": {\"name\": \"Rex\", \"owner\": {\"$reference\": \"User:1\"}}, \"User:1\": {\"name\": \"Ada\"}}",
              "[\"Pet:1.name\",\"Pet:1.owner\",\"User:1.name\"]");
    CHECK_OK(normcache_copy(cache, nc_temp_path(destination, "copy"), NORMCACHE_NUL_TERMINATED));
    CHECK(!nc_exists(lock_path(lock, destination)));
    copy = NC_OPEN(destination, NULL);
    CHECK(nc_exists(lock));
    CHECK_GET(copy, "Pet:1", "{\"name\":\"Rex\",\"owner\":{\"$reference\":\"User:1\"}}");
    CHECK_GET(copy, "User:1", "{\"name\":\"Ada\"}");
    CHECK_STAT(copy, "records", "2");
    CHECK_PUT(copy, "{\"Pet:2\": {\"name\": \"Tom\"}}", "[\"Pet:2.name\"]");
    CHECK_NOTFOUND(cache, "Pet:2");
    CHECK_OK(normcache_close(copy));
    CHECK_OK(normcache_close(cache));
}

/** A cache filled and cleared copies to a file of a few pages; the source stays as large. */
static void test_copy_is_compacted(void)
{
    char source[NC_PATH_SIZE];
    char destination[NC_PATH_SIZE];
    nc_text records = {0};
    normcache *cache = NC_OPEN(nc_temp_path(source, "full"), NULL);
    normcache *copy;
    int i;
    NC_APPEND_LITERAL(&records, "{");
    for (i = 0; i < 2000; i++) {
        nc_appendf(&records, "%s\"R:%d\": {\"v\": \"", i == 0 ? "" : ",", i);
        nc_append_repeat(&records, 'x', 1000);
        NC_APPEND_LITERAL(&records, "\"}");
    }
    NC_APPEND_LITERAL(&records, "}");
    CHECK_OK(normcache_put(cache, records.data, records.len, NULL, NULL));
    free(records.data);
    CHECK_OK(normcache_clear(cache));
    CHECK(file_size(source) > 2000 * 1000);
    CHECK_OK(normcache_copy(cache, nc_temp_path(destination, "compacted"), NORMCACHE_NUL_TERMINATED));
    /* Meta pages, database roots, and the commit log's entries for the put and the clear. */
    CHECK(file_size(destination) <= 12 * 4096);
    copy = NC_OPEN(destination, NULL);
    CHECK_STAT(copy, "records", "0");
    CHECK_OK(normcache_close(copy));
    CHECK_OK(normcache_close(cache));
}

/** The destinations normcache_copy refuses, each with its exact message; nothing is left. */
static void test_refused_destinations(void)
{
    char source[NC_PATH_SIZE];
    char destination[NC_PATH_SIZE];
    char expected[3 * NC_PATH_SIZE];
    char missing[NC_PATH_SIZE + 16];
    normcache *cache = NC_OPEN(nc_temp_path(source, "source"), NULL);
    static const char nul[] = "a\0b.cache";
    static const char latin1[] = "caf\xe9.cache";
    CHECK_PUT(cache, "{\"P:1\": {\"x\": 1}}", "[\"P:1.x\"]");

    /* An existing file, and a directory, are left as they are. */
    nc_write_file(nc_temp_path(destination, "exists"), (const unsigned char *)"keep", 4);
    CHECK_CODE(normcache_copy(cache, destination, strlen(destination)), NORMCACHE_EINVAL);
    snprintf(expected, sizeof expected, "'%s' exists: a copy is written only to a new file", destination);
    CHECK_ERRMSG_IS(expected);
    CHECK_FILE_IS(destination, (const unsigned char *)"keep", 4);
    CHECK_CODE(normcache_copy(cache, nc_temp_dir(), NORMCACHE_NUL_TERMINATED), NORMCACHE_EINVAL);
    snprintf(expected, sizeof expected, "'%s' exists: a copy is written only to a new file", nc_temp_dir());
    CHECK_ERRMSG_IS(expected);

    snprintf(missing, sizeof missing, "%s/no-such-dir/copy.cache", nc_temp_dir());
    CHECK_CODE(normcache_copy(cache, missing, NORMCACHE_NUL_TERMINATED), NORMCACHE_ESTORAGE);
    snprintf(expected, sizeof expected,
             "copying the cache to '%s' on '%s' failed: No such file or directory (open)", missing, source);
    CHECK_ERRMSG_IS(expected);

    CHECK_CODE(normcache_copy(cache, "", 0), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("empty destination path");
    CHECK_CODE(normcache_copy(cache, NULL, 0), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("empty destination path");
    CHECK_CODE(normcache_copy(cache, NULL, 5), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("path is NULL but its length is 5");
    CHECK_CODE(normcache_copy(cache, nul, sizeof nul - 1), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("destination path contains a NUL byte");
    CHECK_CODE(normcache_copy(cache, latin1, sizeof latin1 - 1), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("path is not valid UTF-8");
    CHECK(!nc_exists("a"));
    CHECK(!nc_exists(latin1));

    CHECK_CODE(normcache_copy(NULL, "x.cache", 7), NORMCACHE_EINVAL);
    CHECK_OK(normcache_close(cache));
}

/** Child body, as uid 65534: a read-only handle copies, but not into root's directory. */
static void unwritable_child(const char *path, int number)
{
    char destination[NC_PATH_SIZE + 16];
    char expected[3 * NC_PATH_SIZE];
    normcache *cache;
    (void)number;
    nc_drop_privileges();
    cache = NC_OPEN(path, "{\"read_only\": true}");
    snprintf(destination, sizeof destination, "%s/copy.cache", nc_shared_dir());
    CHECK_CODE(normcache_copy(cache, destination, NORMCACHE_NUL_TERMINATED), NORMCACHE_ESTORAGE);
    snprintf(expected, sizeof expected, "copying the cache to '%s' on '%s' failed: Permission denied (open)",
             destination, path);
    CHECK_ERRMSG_IS(expected);
    CHECK(!nc_exists(destination));
    snprintf(destination, sizeof destination, "/tmp/normcache-copy-test-%d.cache", (int)getpid());
    CHECK_OK(normcache_copy(cache, destination, NORMCACHE_NUL_TERMINATED));
    CHECK(file_mode(destination) == 0644);
    CHECK(unlink(destination) == 0);
    CHECK_OK(normcache_close(cache));
}

/**
 * The copy gets the source's permission bits less the umask; a read-only handle copies;
 * as another user (root only), a directory it may not write is refused.
 */
static void test_modes_and_read_only(void)
{
    char source[NC_PATH_SIZE + 16];
    char destination[NC_PATH_SIZE];
    mode_t previous;
    normcache *cache = NC_OPEN(nc_temp_path(source, "owner-only"), NULL);
    normcache *reader;
    CHECK_PUT(cache, "{\"P:1\": {\"x\": 1}}", "[\"P:1.x\"]");
    CHECK_OK(normcache_close(cache));
    reader = NC_OPEN(source, "{\"read_only\": true}");
    CHECK_OK(normcache_copy(reader, nc_temp_path(destination, "copy"), NORMCACHE_NUL_TERMINATED));
    CHECK_OK(normcache_close(reader));
    CHECK(file_mode(destination) == 0600);

    if (geteuid() != 0) {
        printf("test_copy: skipping the unwritable directory: it needs root to drop to uid 65534\n");
        return;
    }
    snprintf(source, sizeof source, "%s/readable.cache", nc_shared_dir());
    previous = umask(022);
    cache = NC_OPEN(source, "{\"mode\": \"0666\"}");
    CHECK_PUT(cache, "{\"P:1\": {\"x\": 1}}", "[\"P:1.x\"]");
    CHECK_OK(normcache_close(cache));
    CHECK(chmod(source, 0644) == 0);
    {
        char lock[NC_LOCK_PATH_SIZE];
        CHECK(chmod(lock_path(lock, source), 0666) == 0);
    }
    CHECK_CHILD_PASSED(nc_spawn(unwritable_child, source, 0));
    umask(previous);
}

/** Child body: commits {"A:1": {"n": i}, "B:1": {"n": i}} for i = 1, 2, ... until killed. */
static void writer_child(const char *path, int number)
{
    normcache *cache = NC_OPEN(path, "{\"durability\": \"fast\"}");
    char records[128];
    int i;
    (void)number;
    for (i = 1;; i++) {
        snprintf(records, sizeof records, "{\"A:1\": {\"n\": %d}, \"B:1\": {\"n\": %d}, \"C:%d\": {\"n\": %d}}", i, i,
                 i, i);
        CHECK_OK(normcache_put(cache, records, strlen(records), NULL, NULL));
    }
}

/** The number in the record `key` of `cache` ({"n":<number>}). */
static long record_number(normcache *cache, const char *key)
{
    char *json = NULL;
    size_t len = 0;
    long n = -1;
    CHECK_OK(normcache_get(cache, key, strlen(key), &json, &len));
    CHECK(sscanf(json, "{\"n\":%ld}", &n) == 1);
    normcache_free(json);
    return n;
}

/**
 * Copies taken while another process commits in a loop each hold whole commits: A:1 and
 * B:1 carry the same number n, and C:1..C:n are all there (n + 2 records).
 */
static void test_copies_while_another_process_writes(void)
{
    char source[NC_PATH_SIZE];
    char destination[NC_PATH_SIZE];
    char expected[32];
    normcache *cache = NC_OPEN(nc_temp_path(source, "busy"), NULL);
    long previous = 0;
    int status;
    int copies;
    pid_t writer;
    CHECK_PUT(cache, "{\"A:1\": {\"n\": 0}, \"B:1\": {\"n\": 0}}", "[\"A:1.n\",\"B:1.n\"]");
    writer = nc_spawn(writer_child, source, 0);
    while (NC_STAT_NUMBER(cache, "records") < 100) {
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    for (copies = 0; copies < 20; copies++) {
        normcache *copy;
        long n;
        CHECK_OK(normcache_copy(cache, nc_temp_path(destination, "snapshot"), NORMCACHE_NUL_TERMINATED));
        copy = NC_OPEN(destination, NULL);
        n = record_number(copy, "A:1");
        CHECK(record_number(copy, "B:1") == n);
        CHECK(n >= previous);
        snprintf(expected, sizeof expected, "%ld", n + 2);
        CHECK_STAT(copy, "records", expected);
        CHECK_OK(normcache_close(copy));
        previous = n;
    }
    CHECK(kill(writer, SIGKILL) == 0);
    CHECK(waitpid(writer, &status, 0) == writer);
    CHECK(previous >= 98);
    CHECK_OK(normcache_close(cache));
}

int main(void)
{
    test_copy_holds_the_records();
    test_copy_is_compacted();
    test_refused_destinations();
    test_modes_and_read_only();
    test_copies_while_another_process_writes();
    return 0;
}
