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
#include <stdarg.h>

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

/** One test's cache holding R2-D2 and two friends, the query over them, and a watcher. */
typedef struct {
    char path[NC_PATH_SIZE];
    normcache *cache;
    normcache_op *op;
    normcache_watcher *watcher;
    deliveries got;
} hero_test;

/** Fills `hero` (zeroed first) with a new cache named after `name`, its query and records. */
static void hero_cache(hero_test *hero, const char *name)
{
    memset(hero, 0, sizeof *hero);
    hero->cache = NC_OPEN(nc_temp_path(hero->path, name), "{\"durability\": \"fast\"}");
    CHECK_OK(normcache_prepare(hero->cache, heroQuery, strlen(heroQuery), NULL, 0, &hero->op));
    CHECK_OK(normcache_put(hero->cache,
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
    hero_test hero;
    hero_cache(&hero, "in-process");

    CHECK_OK(normcache_watch(hero.cache, hero.op, NULL, 0, NULL, 0, record, &hero.got, &hero.watcher));
    CHECK(hero.watcher != NULL);
    CHECK(hero.got.calls == 1 && hero.got.status == NORMCACHE_OK);
    CHECK_CONTAINS(hero.got.json, HERO_RESULT("Luke Skywalker"));
    /* The operation may go: the watcher keeps its own. */
    CHECK_OK(normcache_op_free(hero.op));

    CHECK_OK(normcache_put(hero.cache, "{\"Human:1000\": {\"name\": \"Luke\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK(hero.got.calls == 2 && hero.got.status == NORMCACHE_OK);
    CHECK_CONTAINS(hero.got.json, HERO_RESULT("Luke"));

    /* Unrelated: another record, another field of a used record, the same values again. */
    CHECK_OK(normcache_put(hero.cache, "{\"Starship:3000\": {\"name\": \"Falcon\"}, \"Human:1000\": {\"height\": 1.72}}",
                           NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK_OK(normcache_put(hero.cache, "{\"Human:1000\": {\"name\": \"Luke\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK(hero.got.calls == 2);

    /* A removal makes it a miss, with the partial data. */
    CHECK_OK(normcache_remove(hero.cache, "Human:1002", NORMCACHE_NUL_TERMINATED));
    CHECK(hero.got.calls == 3 && hero.got.status == NORMCACHE_MISS);
    CHECK_CONTAINS(hero.got.json, "{\"data\":{\"hero\":{\"name\":\"R2-D2\",\"friends\":[{\"name\":\"Luke\"},null]}},"
                                  "\"missing\":[{\"path\":[\"hero\",\"friends\",1],\"reason\":\"absent\",\"record\":\"Human:1002\"}]");

    CHECK_OK(normcache_unwatch(hero.watcher));
    CHECK_OK(normcache_put(hero.cache, "{\"Human:1000\": {\"name\": \"Luke S.\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK(hero.got.calls == 3);
    CHECK_CODE(normcache_unwatch(hero.watcher), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("the watcher is closed or was never opened");
    CHECK_OK(normcache_unwatch(NULL));
    CHECK_OK(normcache_close(hero.cache));
}

static void test_unwatch_inside_and_close(void)
{
    hero_test hero;
    normcache_watcher *other = NULL;
    deliveries kept = {0};
    hero_cache(&hero, "inside");

    CHECK_OK(normcache_watch(hero.cache, hero.op, NULL, 0, NULL, 0, record, &hero.got, &hero.watcher));
    hero.got.self = hero.watcher;
    CHECK_OK(normcache_put(hero.cache, "{\"Human:1000\": {\"name\": \"Luke\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK(hero.got.calls == 2 && hero.got.unwatch_status == NORMCACHE_OK);
    CHECK_OK(normcache_put(hero.cache, "{\"Human:1000\": {\"name\": \"Luke S.\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK(hero.got.calls == 2);

    /* Closing the handle ends its watchers; each is still released. */
    CHECK_OK(normcache_watch(hero.cache, hero.op, NULL, 0, NULL, 0, record, &kept, &other));
    CHECK(kept.calls == 1);
    CHECK_OK(normcache_close(hero.cache));
    CHECK_OK(normcache_unwatch(other));
    CHECK(kept.calls == 1);
    CHECK_OK(normcache_op_free(hero.op));
}

/** Implements CHECK_CHANGES. */
static void check_changes(const char *file, int line, normcache *cache, uint64_t since, const char *format, ...)
{
    char expected[1024];
    char *json = NULL;
    size_t len = 0;
    va_list args;
    va_start(args, format);
    vsnprintf(expected, sizeof expected, format, args);
    va_end(args);
    nc_check_code(file, line, "normcache_changes_since", normcache_changes_since(cache, since, &json, &len), NORMCACHE_OK);
    nc_check_output(file, line, "changes", json, len, expected);
}

/**
 * Fails unless normcache_changes_since(cache, since) gives exactly the JSON that the
 * printf `format` makes of the commit ids after it (unsigned long long each).
 */
#define CHECK_CHANGES(cache, since, ...) check_changes(__FILE__, __LINE__, (cache), (since), __VA_ARGS__)

static void test_commit_log(void)
{
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    uint64_t before = 0, after = 0, commit = 0;
    char *json = NULL;
    size_t len = 0;
    int i;
    CHECK_OK(normcache_last_commit(cache, &before));
    CHECK_OK(normcache_put(cache, "{\"Pet:1\": {\"name\": \"Rex\", \"age\": 3}, \"Pet:2\": {\"name\": \"Tom\"}}",
                           NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK_OK(normcache_last_commit(cache, &after));
    CHECK(after == before + 1);
    CHECK_CHANGES(cache, before,
                  "{\"through\":%llu,\"complete\":true,\"commits\":[{\"commit\":%llu,\"fields\":[],"
                  "\"records\":[\"Pet:1\",\"Pet:2\"],\"prefixes\":[],\"all\":false}]}",
                  (unsigned long long)after, (unsigned long long)after);

    /* Nothing new: complete and empty. A rewrite of the same values is no commit. */
    CHECK_OK(normcache_put(cache, "{\"Pet:2\": {\"name\": \"Tom\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK_OK(normcache_last_commit(cache, &commit));
    CHECK(commit == after);
    CHECK_CHANGES(cache, after, "{\"through\":%llu,\"complete\":true,\"commits\":[]}", (unsigned long long)after);

    CHECK_OK(normcache_put(cache, "{\"Pet:1\": {\"age\": 4, \"name\": \"Rex\", \"owner\": \"Ada\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK_CHANGES(cache, after,
                  "{\"through\":%llu,\"complete\":true,\"commits\":[{\"commit\":%llu,\"fields\":[\"Pet:1.age\",\"Pet:1.owner\"],"
                  "\"records\":[],\"prefixes\":[],\"all\":false}]}",
                  (unsigned long long)after + 1, (unsigned long long)after + 1);
    after += 1;

    CHECK_OK(normcache_remove(cache, "Pet:2", NORMCACHE_NUL_TERMINATED));
    CHECK_OK(normcache_remove_prefix(cache, "Pet:", NORMCACHE_NUL_TERMINATED, NULL));
    CHECK_OK(normcache_put(cache, "{\"Pet:3\": {\"name\": \"Kit\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK_OK(normcache_clear(cache));
    CHECK_CHANGES(cache, after,
                  "{\"through\":%llu,\"complete\":true,\"commits\":["
                  "{\"commit\":%llu,\"fields\":[],\"records\":[\"Pet:2\"],\"prefixes\":[],\"all\":false},"
                  "{\"commit\":%llu,\"fields\":[],\"records\":[],\"prefixes\":[\"Pet:\"],\"all\":false},"
                  "{\"commit\":%llu,\"fields\":[],\"records\":[\"Pet:3\"],\"prefixes\":[],\"all\":false},"
                  "{\"commit\":%llu,\"fields\":[],\"records\":[],\"prefixes\":[],\"all\":true}]}",
                  (unsigned long long)after + 4, (unsigned long long)after + 1, (unsigned long long)after + 2,
                  (unsigned long long)after + 3, (unsigned long long)after + 4);

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
    CHECK_CHANGES(cache, commit - 1,
                  "{\"through\":%llu,\"complete\":true,\"commits\":[{\"commit\":%llu,\"fields\":[\"Counter:1.n\"],"
                  "\"records\":[],\"prefixes\":[],\"all\":false}]}",
                  (unsigned long long)commit, (unsigned long long)commit);

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
    hero_test hero;
    uint64_t seen = 0, newest = 0, dispatched = 0;
    double start, waited;
    pid_t child;
    hero_cache(&hero, "processes");
    CHECK(pipe(go_pipe) == 0);
    child = nc_spawn(rename_luke, hero.path, 0);

    CHECK_OK(normcache_watch(hero.cache, hero.op, NULL, 0, NULL, 0, record, &hero.got, &hero.watcher));
    CHECK_OK(normcache_last_commit(hero.cache, &seen));
    /* Nothing to dispatch yet. */
    CHECK_OK(normcache_dispatch_changes(hero.cache, &dispatched));
    CHECK(dispatched == seen && hero.got.calls == 1);

    start = nc_now_seconds();
    nc_send_signal(go_pipe[1], 'g');
    CHECK_OK(normcache_wait_commit(hero.cache, seen, 10000, &newest));
    waited = nc_now_seconds() - start;
    CHECK(newest > seen);
    CHECK_OK(normcache_dispatch_changes(hero.cache, &dispatched));
    CHECK(dispatched >= newest);
    CHECK(hero.got.calls == 2);
    CHECK_CONTAINS(hero.got.json, HERO_RESULT("Luke from another process"));
    printf("another process's commit seen by normcache_wait_commit and delivered after %.2f ms (including its open)\n",
           waited * 1000);
    CHECK_CHILD_PASSED(child);
    CHECK_OK(normcache_unwatch(hero.watcher));
    CHECK_OK(normcache_op_free(hero.op));
    CHECK_OK(normcache_close(hero.cache));
}

static void test_bad_arguments(void)
{
    hero_test hero;
    normcache_op *fragment = NULL;
    uint64_t commit = 0;
    char *json = (char *)&hero;
    size_t len = 1;
    hero_cache(&hero, "bad");
    hero.watcher = (normcache_watcher *)&hero;
    CHECK_OK(normcache_prepare(hero.cache, "fragment F on Human { name }", NORMCACHE_NUL_TERMINATED, NULL, 0, &fragment));

    CHECK_CODE(normcache_watch(hero.cache, hero.op, NULL, 0, NULL, 0, NULL, &hero.got, &hero.watcher), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("callback is NULL");
    CHECK(hero.watcher == NULL);
    CHECK_CODE(normcache_watch(hero.cache, hero.op, NULL, 0, NULL, 0, record, &hero.got, NULL), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("out_watcher is NULL");
    CHECK_CODE(normcache_watch(hero.cache, fragment, NULL, 0, NULL, 0, record, &hero.got, &hero.watcher), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("'F' is a fragment, not an operation: read or write it at a record key (a fragment read or write)");
    CHECK_CODE(normcache_watch(hero.cache, hero.op, NULL, 0, "Human:1000", NORMCACHE_NUL_TERMINATED, record, &hero.got, &hero.watcher),
               NORMCACHE_EINVAL);
    CHECK_CODE(normcache_watch(hero.cache, hero.op, "{\"a\":", NORMCACHE_NUL_TERMINATED, NULL, 0, record, &hero.got, &hero.watcher), NORMCACHE_EJSON);
    CHECK_CODE(normcache_watch(hero.cache, fragment, NULL, 0, "\xff", 1, record, &hero.got, &hero.watcher), NORMCACHE_EINVAL);
    CHECK(hero.got.calls == 0 && hero.watcher == NULL);
    CHECK_OK(normcache_watch(hero.cache, fragment, NULL, 0, "Human:1000", NORMCACHE_NUL_TERMINATED, record, &hero.got, &hero.watcher));
    CHECK(hero.got.calls == 1);
    CHECK_CONTAINS(hero.got.json, "{\"data\":{\"name\":\"Luke Skywalker\"},\"missing\":[],\"stale\":[],\"oldestWrittenAt\":");
    CHECK_CONTAINS(hero.got.json, ",\"earliestExpiry\":null}");
    CHECK_OK(normcache_unwatch(hero.watcher));

    CHECK_CODE(normcache_last_commit(hero.cache, NULL), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("out_commit is NULL");
    CHECK_CODE(normcache_changes_since(hero.cache, 0, NULL, &len), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_wait_commit(hero.cache, 0, -1, &commit), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("timeout -1 ms is negative");
    CHECK_OK(normcache_close(hero.cache));
    CHECK_CODE(normcache_last_commit(hero.cache, &commit), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_changes_since(hero.cache, 0, &json, &len), NORMCACHE_EINVAL);
    CHECK(json == NULL && len == 0);
    CHECK_CODE(normcache_dispatch_changes(hero.cache, NULL), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_watch(hero.cache, hero.op, NULL, 0, NULL, 0, record, &hero.got, &hero.watcher), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("the cache handle is closed or was never opened");
    CHECK_OK(normcache_op_free(hero.op));
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
