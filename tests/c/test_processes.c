/*
 * test_processes.c — several processes share one cache file: children that create
 * and fill it at the same time lose nothing, and each process sees what another has
 * committed while both keep their handles open.
 */
#include "check.h"
#include "processes.h"

/** Processes that create and fill one cache at the same time. */
#define CHILDREN 3
/** Records each child writes, one put each. */
#define CHILD_WRITES 100

/** The handle the parent opened before forking, for test_fork_after_open. */
static normcache *inherited;

/** Child body: opens (maybe creating) the cache and writes C<number>:<i> records. */
static void write_group(const char *path, int number)
{
    normcache *cache = NC_OPEN(path, "{\"durability\": \"fast\"}");
    int i;
    for (i = 0; i < CHILD_WRITES; i++) {
        char records[64];
        char changed[64];
        snprintf(records, sizeof records, "{\"C%d:%03d\": {\"n\": %d}}", number, i, i);
        snprintf(changed, sizeof changed, "[\"C%d:%03d.n\"]", number, i);
        CHECK_PUT(cache, records, changed);
    }
    CHECK_OK(normcache_close(cache));
}

/** Children that create one cache file and write to it at once lose no record. */
static void test_children_write_one_file(void)
{
    char path[NC_PATH_SIZE];
    pid_t children[CHILDREN];
    normcache *cache;
    char count[16];
    int child;

    nc_temp_path(path, "children");
    for (child = 0; child < CHILDREN; child++) {
        children[child] = nc_spawn(write_group, path, child);
    }
    for (child = 0; child < CHILDREN; child++) {
        CHECK_CHILD_PASSED(children[child]);
    }

    cache = NC_OPEN(path, NULL);
    for (child = 0; child < CHILDREN; child++) {
        char group[8];
        nc_text keys = {0};
        int i;
        snprintf(group, sizeof group, "C%d:", child);
        NC_APPEND_LITERAL(&keys, "[");
        for (i = 0; i < CHILD_WRITES; i++) {
            char key[16];
            char record[16];
            snprintf(key, sizeof key, "C%d:%03d", child, i);
            snprintf(record, sizeof record, "{\"n\":%d}", i);
            CHECK_GET(cache, key, record);
            nc_appendf(&keys, "%s\"%s\"", i == 0 ? "" : ",", key);
        }
        NC_APPEND_LITERAL(&keys, "]");
        CHECK_SEARCH(cache, group, NULL, 0, keys.data);
        free(keys.data);
    }
    snprintf(count, sizeof count, "%d", CHILDREN * CHILD_WRITES);
    CHECK_STAT(cache, "records", count);
    CHECK_OK(normcache_close(cache));
}

/**
 * The pipes of the parent and its child, one for each direction. Each side closes the
 * ends it does not use, so that a side that dies ends the other's wait.
 */
static int to_child[2];
static int to_parent[2];

/** Child body of the handshake: writes X:1, then reads the parent's X:2 and adds to it. */
static void child_side(const char *path, int number)
{
    normcache *cache;
    (void)number;
    CHECK(close(to_parent[0]) == 0 && close(to_child[1]) == 0);
    cache = NC_OPEN(path, NULL);
    nc_send_signal(to_parent[1], 'o');
    nc_await_signal(to_child[0], 'w');
    CHECK_PUT(cache, "{\"X:1\": {\"by\": \"child\"}}", "[\"X:1.by\"]");
    nc_send_signal(to_parent[1], 'd');
    nc_await_signal(to_child[0], 'p');
    CHECK_GET(cache, "X:2", "{\"by\":\"parent\"}");
    CHECK_PUT(cache, "{\"X:2\": {\"seen\": true}}", "[\"X:2.seen\"]");
    CHECK_OK(normcache_close(cache));
}

/** Each of two processes with the file open sees the other's committed writes at once. */
static void test_processes_see_each_others_writes(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache;
    pid_t child;

    nc_temp_path(path, "handshake");
    cache = NC_OPEN(path, NULL);
    CHECK_PUT(cache, "{\"X:0\": {\"by\": \"parent\"}}", "[\"X:0.by\"]");
    CHECK_OK(normcache_close(cache));

    CHECK(pipe(to_child) == 0 && pipe(to_parent) == 0);
    child = nc_spawn(child_side, path, 0);
    CHECK(close(to_parent[1]) == 0 && close(to_child[0]) == 0);
    cache = NC_OPEN(path, NULL);
    nc_await_signal(to_parent[0], 'o');
    CHECK_NOTFOUND(cache, "X:1");
    nc_send_signal(to_child[1], 'w');
    nc_await_signal(to_parent[0], 'd');
    CHECK_GET(cache, "X:1", "{\"by\":\"child\"}");
    CHECK_PUT(cache, "{\"X:2\": {\"by\": \"parent\"}}", "[\"X:2.by\"]");
    nc_send_signal(to_child[1], 'p');
    CHECK_CHILD_PASSED(child);
    CHECK_GET(cache, "X:2", "{\"by\":\"parent\",\"seen\":true}");
    CHECK_SEARCH(cache, "X:", NULL, 0, "[\"X:0\",\"X:1\",\"X:2\"]");
    CHECK_OK(normcache_close(cache));
}

/** Child body: a handle inherited through fork() is refused; a fresh open works. */
static void child_after_fork(const char *path, int number)
{
    char *out = NULL;
    size_t length = 0;
    normcache *cache = NULL;
    (void)number;
    CHECK_CODE(normcache_get(inherited, "F:1", 3, &out, &length), NORMCACHE_EINVAL);
    CHECK(strstr(normcache_errmsg(), "was opened before fork()") != NULL);
    CHECK_CODE(normcache_put(inherited, "{\"F:2\": {}}", 11, NULL, NULL), NORMCACHE_EINVAL);
    cache = NC_OPEN(path, NULL);
    CHECK_GET(cache, "F:1", "{\"v\":1}");
    CHECK_PUT(cache, "{\"F:3\": {\"v\": 3}}", "[\"F:3.v\"]");
    CHECK_OK(normcache_close(cache));
}

/** After fork() the child must open the cache again; the parent's handle goes on. */
static void test_fork_after_open(void)
{
    char path[NC_PATH_SIZE];
    nc_temp_path(path, "fork");
    inherited = NC_OPEN(path, NULL);
    CHECK_PUT(inherited, "{\"F:1\": {\"v\": 1}}", "[\"F:1.v\"]");
    CHECK_CHILD_PASSED(nc_spawn(child_after_fork, path, 0));
    CHECK_GET(inherited, "F:3", "{\"v\":3}");
    CHECK_OK(normcache_close(inherited));
}

int main(void)
{
    test_children_write_one_file();
    test_processes_see_each_others_writes();
    test_fork_after_open();
    return 0;
}
