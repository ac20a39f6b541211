/*
 * test_watchers.c — watchers and the commit log through the C interface.
 *
 * In one process: the first result at once, a dependent write wakes the watcher with
 * the new data, an unrelated write does not, a rewrite of the same values delivers
 * nothing, a callback that unwatches itself, closing the handle ends its watchers.
 * The log: the exact changes of a put, a remove and a clear; a reader far behind the
 * log is told it is incomplete. Across processes: a child's commit is seen by
 * normcache_wait_commit and delivered by normcache_dispatch_changes, with the delay
 * printed. Bad arguments get NORMCACHE_EINVAL with their message.
 */
#include "check.h"
#include "processes.h"

#include <pthread.h>

/** What a watcher's callback got. */
typedef struct {
    int calls;
    int status;
    char json[4096];
    normcache_watcher *self; /* unwatched from inside the callback when set */
    int unwatch_status;
} deliveries;

/** Records a delivery; unwatches the watcher from inside when asked. */
static void record(void *context, int status, const char *json, size_t len)
{
    deliveries *got = context;
    got->calls++;
    got->status = status;
    CHECK(json != NULL && len < sizeof got->json);
    memcpy(got->json, json, len);
    got->json[len] = '\0';
    if (got->self != NULL) {
        got->unwatch_status = normcache_unwatch(got->self);
        got->self = NULL;
    }
}

static const char *const heroQuery = "{ hero { name friends { name } } }";

/** A cache holding R2-D2 and two friends, and the query over them. */
static void hero_cache(const char *path, normcache **cache, normcache_op **op)
{
    CHECK_OK(normcache_open(path, NORMCACHE_NUL_TERMINATED, "{\"durability\": \"fast\"}", NORMCACHE_NUL_TERMINATED, cache));
    CHECK_OK(normcache_prepare(*cache, heroQuery, strlen(heroQuery), NULL, 0, op));
    CHECK_OK(normcache_put(*cache,
                           "{\"QUERY_ROOT\": {\"hero\": {\"$reference\": \"Droid:2001\"}},"
                           " \"Droid:2001\": {\"name\": \"R2-D2\", \"friends\": [{\"$reference\": \"Human:1000\"}, {\"$reference\": \"Human:1002\"}]},"
                           " \"Human:1000\": {\"name\": \"Luke Skywalker\"}, \"Human:1002\": {\"name\": \"Han Solo\"}}",
                           NORMCACHE_NUL_TERMINATED, NULL, NULL));
}

#define HERO_RESULT(luke)                                                                                      \
    "{\"data\":{\"hero\":{\"name\":\"R2-D2\",\"friends\":[{\"name\":\"" luke "\"},{\"name\":\"Han Solo\"}]}}," \
    "\"missing\":[],\"stale\":[],\"oldestWrittenAt\":"

static void test_in_process(void)
{
    char path[512];
    normcache *cache = NULL;
    normcache_op *op = NULL;
    normcache_watcher *watcher = NULL;
    deliveries got = {0};
    hero_cache(nc_temp_path(path, "in-process"), &cache, &op);

    CHECK_OK(normcache_watch(cache, op, NULL, 0, NULL, 0, record, &got, &watcher));
    CHECK(watcher != NULL);
    CHECK(got.calls == 1 && got.status == NORMCACHE_OK);
    CHECK_CONTAINS(got.json, HERO_RESULT("Luke Skywalker"));
    /* The operation may go: the watcher keeps its own. */
    CHECK_OK(normcache_op_free(op));

    CHECK_OK(normcache_put(cache, "{\"Human:1000\": {\"name\": \"Luke\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK(got.calls == 2 && got.status == NORMCACHE_OK);
    CHECK_CONTAINS(got.json, HERO_RESULT("Luke"));

    /* Unrelated: another record, another field of a used record, the same values again. */
    CHECK_OK(normcache_put(cache, "{\"Starship:3000\": {\"name\": \"Falcon\"}, \"Human:1000\": {\"height\": 1.72}}",
                           NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK_OK(normcache_put(cache, "{\"Human:1000\": {\"name\": \"Luke\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK(got.calls == 2);

    /* A removal makes it a miss, with the partial data. */
    CHECK_OK(normcache_remove(cache, "Human:1002", NORMCACHE_NUL_TERMINATED));
    CHECK(got.calls == 3 && got.status == NORMCACHE_MISS);
    CHECK_CONTAINS(got.json, "{\"data\":{\"hero\":{\"name\":\"R2-D2\",\"friends\":[{\"name\":\"Luke\"},null]}},"
                             "\"missing\":[{\"path\":[\"hero\",\"friends\",1],\"reason\":\"absent\",\"record\":\"Human:1002\"}]");

    CHECK_OK(normcache_unwatch(watcher));
    CHECK_OK(normcache_put(cache, "{\"Human:1000\": {\"name\": \"Luke S.\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK(got.calls == 3);
    CHECK_CODE(normcache_unwatch(watcher), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("the watcher is closed or was never opened");
    CHECK_OK(normcache_unwatch(NULL));
    CHECK_OK(normcache_close(cache));
}

static void test_unwatch_inside_and_close(void)
{
    char path[512];
    normcache *cache = NULL;
    normcache_op *op = NULL;
    normcache_watcher *watcher = NULL, *other = NULL;
    deliveries got = {0}, kept = {0};
    hero_cache(nc_temp_path(path, "inside"), &cache, &op);

    CHECK_OK(normcache_watch(cache, op, NULL, 0, NULL, 0, record, &got, &watcher));
    got.self = watcher;
    CHECK_OK(normcache_put(cache, "{\"Human:1000\": {\"name\": \"Luke\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK(got.calls == 2 && got.unwatch_status == NORMCACHE_OK);
    CHECK_OK(normcache_put(cache, "{\"Human:1000\": {\"name\": \"Luke S.\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK(got.calls == 2);

    /* Closing the handle ends its watchers; each is still released. */
    CHECK_OK(normcache_watch(cache, op, NULL, 0, NULL, 0, record, &kept, &other));
    CHECK(kept.calls == 1);
    CHECK_OK(normcache_close(cache));
    CHECK_OK(normcache_unwatch(other));
    CHECK(kept.calls == 1);
    CHECK_OK(normcache_op_free(op));
}

static void test_commit_log(void)
{
    char path[512];
    normcache *cache = NULL;
    uint64_t before = 0, after = 0, commit = 0;
    char *json = NULL;
    size_t len = 0;
    char expected[512];
    int i;
    CHECK_OK(normcache_open(nc_temp_path(path, "log"), NORMCACHE_NUL_TERMINATED, "{\"durability\": \"fast\"}",
                            NORMCACHE_NUL_TERMINATED, &cache));
    CHECK_OK(normcache_last_commit(cache, &before));
    CHECK_OK(normcache_put(cache, "{\"Pet:1\": {\"name\": \"Rex\", \"age\": 3}, \"Pet:2\": {\"name\": \"Tom\"}}",
                           NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK_OK(normcache_last_commit(cache, &after));
    CHECK(after == before + 1);
    CHECK_OK(normcache_changes_since(cache, before, &json, &len));
    snprintf(expected, sizeof expected,
             "{\"through\":%llu,\"complete\":true,\"commits\":[{\"commit\":%llu,\"fields\":[],"
             "\"records\":[\"Pet:1\",\"Pet:2\"],\"prefixes\":[],\"all\":false}]}",
             (unsigned long long)after, (unsigned long long)after);
    CHECK_STR(json, len, expected);
    normcache_free(json);

    /* Nothing new: complete and empty. A rewrite of the same values is no commit. */
    CHECK_OK(normcache_put(cache, "{\"Pet:2\": {\"name\": \"Tom\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK_OK(normcache_last_commit(cache, &commit));
    CHECK(commit == after);
    CHECK_OK(normcache_changes_since(cache, after, &json, &len));
    snprintf(expected, sizeof expected, "{\"through\":%llu,\"complete\":true,\"commits\":[]}", (unsigned long long)after);
    CHECK_STR(json, len, expected);
    normcache_free(json);

    CHECK_OK(normcache_put(cache, "{\"Pet:1\": {\"age\": 4, \"name\": \"Rex\", \"owner\": \"Ada\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK_OK(normcache_changes_since(cache, after, &json, &len));
    snprintf(expected, sizeof expected,
             "{\"through\":%llu,\"complete\":true,\"commits\":[{\"commit\":%llu,\"fields\":[\"Pet:1.age\",\"Pet:1.owner\"],"
             "\"records\":[],\"prefixes\":[],\"all\":false}]}",
             (unsigned long long)after + 1, (unsigned long long)after + 1);
    CHECK_STR(json, len, expected);
    normcache_free(json);
    after += 1;

    CHECK_OK(normcache_remove(cache, "Pet:2", NORMCACHE_NUL_TERMINATED));
    CHECK_OK(normcache_remove_prefix(cache, "Pet:", NORMCACHE_NUL_TERMINATED, NULL));
    CHECK_OK(normcache_put(cache, "{\"Pet:3\": {\"name\": \"Kit\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK_OK(normcache_clear(cache));
    CHECK_OK(normcache_changes_since(cache, after, &json, &len));
    snprintf(expected, sizeof expected,
             "{\"through\":%llu,\"complete\":true,\"commits\":["
             "{\"commit\":%llu,\"fields\":[],\"records\":[\"Pet:2\"],\"prefixes\":[],\"all\":false},"
             "{\"commit\":%llu,\"fields\":[],\"records\":[],\"prefixes\":[\"Pet:\"],\"all\":false},"
             "{\"commit\":%llu,\"fields\":[],\"records\":[\"Pet:3\"],\"prefixes\":[],\"all\":false},"
             "{\"commit\":%llu,\"fields\":[],\"records\":[],\"prefixes\":[],\"all\":true}]}",
             (unsigned long long)after + 4, (unsigned long long)after + 1, (unsigned long long)after + 2,
             (unsigned long long)after + 3, (unsigned long long)after + 4);
    CHECK_STR(json, len, expected);
    normcache_free(json);

    /* A reader more than 1024 logged commits behind is told the log is incomplete. */
    for (i = 0; i < 1030; i++) {
        char records[64];
        snprintf(records, sizeof records, "{\"Counter:1\": {\"n\": %d}}", i);
        CHECK_OK(normcache_put(cache, records, NORMCACHE_NUL_TERMINATED, NULL, NULL));
    }
    CHECK_OK(normcache_changes_since(cache, after, &json, &len));
    CHECK(strstr(json, "\"complete\":false") != NULL);
    CHECK(strstr(json, "\"Counter:1.n\"") != NULL);
    normcache_free(json);
    CHECK_OK(normcache_last_commit(cache, &commit));
    CHECK_OK(normcache_changes_since(cache, commit - 1, &json, &len));
    snprintf(expected, sizeof expected,
             "{\"through\":%llu,\"complete\":true,\"commits\":[{\"commit\":%llu,\"fields\":[\"Counter:1.n\"],"
             "\"records\":[],\"prefixes\":[],\"all\":false}]}",
             (unsigned long long)commit, (unsigned long long)commit);
    CHECK_STR(json, len, expected);
    normcache_free(json);

    /* No newer commit: a wait times out, saying the newest. */
    CHECK_CODE(normcache_wait_commit(cache, commit, 20, &after), NORMCACHE_TIMEOUT);
    CHECK(after == commit);
    CHECK_OK(normcache_wait_commit(cache, commit - 1, 0, &after));
    CHECK(after == commit);
    CHECK_OK(normcache_close(cache));
}

/** The child of test_across_processes: waits for the go, then renames Luke. */
static int go_pipe[2];

static void rename_luke(const char *path, int number)
{
    normcache *cache = NULL;
    (void)number;
    nc_await_signal(go_pipe[0], 'g');
    CHECK_OK(normcache_open(path, NORMCACHE_NUL_TERMINATED, NULL, 0, &cache));
    CHECK_OK(normcache_put(cache, "{\"Human:1000\": {\"name\": \"Luke from another process\"}}", NORMCACHE_NUL_TERMINATED,
                           NULL, NULL));
    CHECK_OK(normcache_close(cache));
}

static void test_across_processes(void)
{
    char path[512];
    normcache *cache = NULL;
    normcache_op *op = NULL;
    normcache_watcher *watcher = NULL;
    deliveries got = {0};
    uint64_t seen = 0, newest = 0, dispatched = 0;
    double start, waited;
    pid_t child;
    hero_cache(nc_temp_path(path, "processes"), &cache, &op);
    CHECK(pipe(go_pipe) == 0);
    child = nc_spawn(rename_luke, path, 0);

    CHECK_OK(normcache_watch(cache, op, NULL, 0, NULL, 0, record, &got, &watcher));
    CHECK_OK(normcache_last_commit(cache, &seen));
    /* Nothing to dispatch yet. */
    CHECK_OK(normcache_dispatch_changes(cache, &dispatched));
    CHECK(dispatched == seen && got.calls == 1);

    start = nc_now_seconds();
    nc_send_signal(go_pipe[1], 'g');
    CHECK_OK(normcache_wait_commit(cache, seen, 10000, &newest));
    waited = nc_now_seconds() - start;
    CHECK(newest > seen);
    CHECK_OK(normcache_dispatch_changes(cache, &dispatched));
    CHECK(dispatched >= newest);
    CHECK(got.calls == 2);
    CHECK_CONTAINS(got.json, HERO_RESULT("Luke from another process"));
    printf("another process's commit seen by normcache_wait_commit and delivered after %.2f ms (including its open)\n",
           waited * 1000);
    CHECK_CHILD_PASSED(child);
    CHECK_OK(normcache_unwatch(watcher));
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
}

static void test_bad_arguments(void)
{
    char path[512];
    normcache *cache = NULL;
    normcache_op *op = NULL, *fragment = NULL;
    normcache_watcher *watcher = (normcache_watcher *)&path;
    deliveries got = {0};
    uint64_t commit = 0;
    char *json = (char *)&path;
    size_t len = 1;
    hero_cache(nc_temp_path(path, "bad"), &cache, &op);
    CHECK_OK(normcache_prepare(cache, "fragment F on Human { name }", NORMCACHE_NUL_TERMINATED, NULL, 0, &fragment));

    CHECK_CODE(normcache_watch(cache, op, NULL, 0, NULL, 0, NULL, &got, &watcher), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("callback is NULL");
    CHECK(watcher == NULL);
    CHECK_CODE(normcache_watch(cache, op, NULL, 0, NULL, 0, record, &got, NULL), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("out_watcher is NULL");
    CHECK_CODE(normcache_watch(cache, fragment, NULL, 0, NULL, 0, record, &got, &watcher), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("'F' is a fragment, not an operation: read or write it at a record key (a fragment read or write)");
    CHECK_CODE(normcache_watch(cache, op, NULL, 0, "Human:1000", NORMCACHE_NUL_TERMINATED, record, &got, &watcher),
               NORMCACHE_EINVAL);
    CHECK_CODE(normcache_watch(cache, op, "{\"a\":", NORMCACHE_NUL_TERMINATED, NULL, 0, record, &got, &watcher), NORMCACHE_EJSON);
    CHECK_CODE(normcache_watch(cache, fragment, NULL, 0, "\xff", 1, record, &got, &watcher), NORMCACHE_EINVAL);
    CHECK(got.calls == 0 && watcher == NULL);
    CHECK_OK(normcache_watch(cache, fragment, NULL, 0, "Human:1000", NORMCACHE_NUL_TERMINATED, record, &got, &watcher));
    CHECK(got.calls == 1);
    CHECK_CONTAINS(got.json, "{\"data\":{\"name\":\"Luke Skywalker\"},\"missing\":[],\"stale\":[],\"oldestWrittenAt\":");
    CHECK_CONTAINS(got.json, ",\"earliestExpiry\":null}");
    CHECK_OK(normcache_unwatch(watcher));

    CHECK_CODE(normcache_last_commit(cache, NULL), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("out_commit is NULL");
    CHECK_CODE(normcache_changes_since(cache, 0, NULL, &len), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_wait_commit(cache, 0, -1, &commit), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("timeout -1 ms is negative");
    CHECK_OK(normcache_close(cache));
    CHECK_CODE(normcache_last_commit(cache, &commit), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_changes_since(cache, 0, &json, &len), NORMCACHE_EINVAL);
    CHECK(json == NULL && len == 0);
    CHECK_CODE(normcache_dispatch_changes(cache, NULL), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_watch(cache, op, NULL, 0, NULL, 0, record, &got, &watcher), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("the cache handle is closed or was never opened");
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_op_free(fragment));
}

int main(void)
{
    test_in_process();
    test_unwatch_inside_and_close();
    test_commit_log();
    test_across_processes();
    test_bad_arguments();
    return 0;
}
