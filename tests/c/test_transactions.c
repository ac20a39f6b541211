/*
 * test_transactions.c — normcache_begin, normcache_commit, normcache_rollback: several
 * writes, puts, removes and fragment writes committed at once (a reader on another
 * thread and in another process sees none of it before and all of it after), reads
 * inside that see the transaction's writes, rollback, a failing call that fails alone,
 * misuse (nesting, no transaction, another thread, another handle, read-only), writers
 * that wait, close inside (own thread and another), a full map, fork() and a process
 * killed with SIGKILL in the middle of a transaction.
 */
#include "check.h"
#include "processes.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>

static normcache_op *prepare(normcache *cache, const char *document)
{
    normcache_op *op = NULL;
    CHECK_OK(normcache_prepare(cache, document, strlen(document), NULL, 0, &op));
    return op;
}

static const char hero_query[] = "{ hero { name } }";
static const char hero_response[] = "{\"data\": {\"hero\": {\"name\": \"R2-D2\"}}}";
static const char droid_fragment[] = "fragment D on Droid { name }";
static const char droid_data[] = "{\"name\": \"C-3PO\"}";

/** Fails unless the record `key` is absent from a new handle on `path`. */
static void check_absent_in_child(const char *path, int number)
{
    normcache *cache = NC_OPEN(path, NULL);
    (void)number;
    CHECK_NOTFOUND(cache, "Keep:1.new");
    CHECK_NOTFOUND(cache, "QUERY_ROOT");
    CHECK_NOTFOUND(cache, "Droid:3");
    CHECK_GET(cache, "Gone:1", "{\"v\":1}");
    CHECK_GET(cache, "Keep:1", "{\"a\":1,\"b\":2}");
    CHECK_OK(normcache_close(cache));
}

/** Fails unless every write of the transaction of test_atomic is in a new handle. */
static void check_present_in_child(const char *path, int number)
{
    normcache *cache = NC_OPEN(path, NULL);
    (void)number;
    CHECK_GET(cache, "Keep:1.new", "{\"x\":true}");
    CHECK_GET(cache, "QUERY_ROOT.hero", "{\"name\":\"R2-D2\"}");
    CHECK_GET(cache, "Droid:3", "{\"name\":\"C-3PO\"}");
    CHECK_NOTFOUND(cache, "Gone:1");
    CHECK_GET(cache, "Keep:1", "{\"a\":1}");
    CHECK_OK(normcache_close(cache));
}

static void *check_absent_on_thread(void *cache)
{
    CHECK_NOTFOUND((normcache *)cache, "Keep:1.new");
    CHECK_NOTFOUND((normcache *)cache, "Droid:3");
    CHECK_GET((normcache *)cache, "Gone:1", "{\"v\":1}");
    CHECK_SEARCH((normcache *)cache, "", NULL, 0, "[\"Gone:1\",\"Keep:1\"]");
    CHECK_CODE(normcache_commit((normcache *)cache), NORMCACHE_EINVAL);
    CHECK_CONTAINS(normcache_errmsg(), "no transaction to commit: none is open on the cache '");
    CHECK_CONTAINS(normcache_errmsg(), "' in this thread (a transaction belongs to the thread that began it)");
    CHECK_CODE(normcache_rollback((normcache *)cache), NORMCACHE_EINVAL);
    CHECK_CONTAINS(normcache_errmsg(), "no transaction to roll back: none is open on the cache '");
    return NULL;
}

static void on_thread(void *(*body)(void *), void *argument)
{
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, body, argument) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
}

/** Writes, puts, removes and a fragment write in one commit; reads inside see them. */
static void test_atomic(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache = NC_OPEN(nc_temp_path(path, "atomic"), NULL);
    normcache_op *hero = prepare(cache, hero_query);
    normcache_op *droid = prepare(cache, droid_fragment);
    char *out = NULL;
    size_t len = 0;

    CHECK_PUT(cache, "{\"Gone:1\": {\"v\": 1}, \"Keep:1\": {\"a\": 1, \"b\": 2}}",
              "[\"Gone:1.v\",\"Keep:1.a\",\"Keep:1.b\"]");
    CHECK_OK(normcache_begin(cache));
    CHECK_OK(normcache_write(cache, hero, NULL, 0, hero_response, strlen(hero_response), &out, &len));
    nc_check_output(__FILE__, __LINE__, "changed", out, len, "[\"QUERY_ROOT.hero.name\",\"QUERY_ROOT.hero\"]");
    CHECK_PUT(cache, "{\"Keep:1.new\": {\"x\": true}}", "[\"Keep:1.new.x\"]");
    CHECK_OK(normcache_write_fragment(cache, droid, "Droid:3", 7, droid_data, strlen(droid_data), NULL, 0,
                                      &out, &len));
    nc_check_output(__FILE__, __LINE__, "changed", out, len, "[\"Droid:3.name\"]");
    CHECK_OK(normcache_remove(cache, "Gone:1", 6));
    CHECK_OK(normcache_remove_field(cache, "Keep:1", 6, "b", 1));

    /* Inside: the transaction's own writes. */
    CHECK_GET(cache, "Droid:3", "{\"name\":\"C-3PO\"}");
    CHECK_NOTFOUND(cache, "Gone:1");
    CHECK_GET(cache, "Keep:1", "{\"a\":1}");
    CHECK_SEARCH(cache, "", NULL, 0, "[\"Droid:3\",\"Keep:1\",\"Keep:1.new\",\"QUERY_ROOT\",\"QUERY_ROOT.hero\"]");
    CHECK_OK(normcache_read(cache, hero, NULL, 0, 0, &out, &len));
    nc_check_output(__FILE__, __LINE__, "read", out, len, "{\"hero\":{\"name\":\"R2-D2\"}}");
    CHECK(NC_STAT_NUMBER(cache, "records") == 5);

    /* Outside, on another thread of the same handle and in another process: nothing. */
    on_thread(check_absent_on_thread, cache);
    CHECK_CHILD_PASSED(nc_spawn(check_absent_in_child, path, 0));

    CHECK_OK(normcache_commit(cache));
    CHECK_CHILD_PASSED(nc_spawn(check_present_in_child, path, 0));
    CHECK_OK(normcache_op_free(hero));
    CHECK_OK(normcache_op_free(droid));
    CHECK_OK(normcache_close(cache));
}

/** Rollback drops everything; a failing call fails alone, the rest commits. */
static void test_rollback_and_failing_call(void)
{
    const char *bad = "{\"C:1\": {\"v\": 1}, \"D:1\": {\"v\": }}";
    normcache *cache = NC_OPEN_FRESH(NULL);
    CHECK_PUT(cache, "{\"A:1\": {\"v\": 1}}", "[\"A:1.v\"]");
    CHECK_OK(normcache_begin(cache));
    CHECK_PUT(cache, "{\"A:1\": {\"v\": 2}, \"B:1\": {\"v\": 1}}", "[\"A:1.v\",\"B:1.v\"]");
    CHECK_OK(normcache_clear(cache));
    CHECK(NC_STAT_NUMBER(cache, "records") == 0);
    CHECK_OK(normcache_rollback(cache));
    CHECK_SEARCH(cache, "", NULL, 0, "[\"A:1\"]");
    CHECK_GET(cache, "A:1", "{\"v\":1}");

    CHECK_OK(normcache_begin(cache));
    CHECK_PUT(cache, "{\"B:1\": {\"v\": 1}}", "[\"B:1.v\"]");
    CHECK_CODE(normcache_put(cache, bad, strlen(bad), NULL, NULL), NORMCACHE_EJSON);
    CHECK_CONTAINS(normcache_errmsg(), "JSON error at byte 31");
    CHECK_PUT(cache, "{\"A:1\": {\"w\": 3}}", "[\"A:1.w\"]");
    CHECK_OK(normcache_commit(cache));
    CHECK_SEARCH(cache, "", NULL, 0, "[\"A:1\",\"B:1\"]");
    CHECK_GET(cache, "A:1", "{\"v\":1,\"w\":3}");
    CHECK_OK(normcache_close(cache));
}

static void *begin_and_leave_open(void *cache)
{
    CHECK_OK(normcache_begin((normcache *)cache));
    CHECK_PUT((normcache *)cache, "{\"Exit:1\": {\"v\": 1}}", "[\"Exit:1.v\"]");
    return NULL;
}

/** Nesting, no transaction, another handle of the file, read-only, a thread's exit. */
static void test_misuse(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache = NC_OPEN(nc_temp_path(path, "misuse"), NULL);
    normcache *other = NC_OPEN(path, NULL);
    normcache *reader;
    char expected[NC_PATH_SIZE + 200];

    CHECK_CODE(normcache_commit(cache), NORMCACHE_EINVAL);
    snprintf(expected, sizeof expected,
             "no transaction to commit: none is open on the cache '%s' in this thread "
             "(a transaction belongs to the thread that began it)",
             path);
    CHECK_ERRMSG_IS(expected);
    CHECK_CODE(normcache_begin(NULL), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("the cache handle is NULL");

    CHECK_OK(normcache_begin(cache));
    CHECK_CODE(normcache_begin(cache), NORMCACHE_EINVAL);
    snprintf(expected, sizeof expected,
             "a transaction is already open on the cache '%s' in this thread; transactions do not nest", path);
    CHECK_ERRMSG_IS(expected);
    CHECK_CODE(normcache_begin(other), NORMCACHE_EINVAL);
    snprintf(expected, sizeof expected,
             "this thread has a transaction open on the cache '%s' through another handle; a thread holds one "
             "transaction at a time, and its writes go through the handle that began it",
             path);
    CHECK_ERRMSG_IS(expected);
    CHECK_CODE(normcache_put(other, "{\"X:1\": {\"v\": 1}}", NORMCACHE_NUL_TERMINATED, NULL, NULL), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS(expected);
    CHECK_PUT(cache, "{\"X:1\": {\"v\": 1}}", "[\"X:1.v\"]");
    CHECK_NOTFOUND(other, "X:1"); /* a read through the other handle sees the last commit */
    CHECK_OK(normcache_commit(cache));
    CHECK_GET(other, "X:1", "{\"v\":1}");

    /* A thread that exits with its transaction open rolls it back. */
    on_thread(begin_and_leave_open, cache);
    CHECK_NOTFOUND(cache, "Exit:1");
    CHECK_PUT(cache, "{\"Exit:2\": {\"v\": 1}}", "[\"Exit:2.v\"]");

    CHECK_OK(normcache_close(other));
    CHECK_OK(normcache_close(cache));
    reader = NC_OPEN(path, "{\"read_only\": true}");
    CHECK_CODE(normcache_begin(reader), NORMCACHE_EREADONLY);
    snprintf(expected, sizeof expected, "'%s' is open read-only", path);
    CHECK_ERRMSG_IS(expected);
    CHECK_OK(normcache_close(reader));
}

struct waiting_call {
    normcache *cache;
    int done[2]; /* a pipe: the thread writes one byte when its call returned */
    int code;
};

static void *put_and_signal(void *argument)
{
    struct waiting_call *call = argument;
    call->code = normcache_put(call->cache, "{\"Later:1\": {\"v\": 1}}", NORMCACHE_NUL_TERMINATED, NULL, NULL);
    nc_send_signal(call->done[1], 'p');
    return NULL;
}

static void *close_and_signal(void *argument)
{
    struct waiting_call *call = argument;
    call->code = normcache_close(call->cache);
    nc_send_signal(call->done[1], 'c');
    return NULL;
}

/** Fails unless the pipe end `fd` stays without data for `ms` milliseconds. */
static void check_still_waiting(int fd, int ms)
{
    struct pollfd wanted = {fd, POLLIN, 0};
    CHECK(poll(&wanted, 1, ms) == 0);
}

/** Another thread's write (any handle) and close wait for the transaction to end. */
static void test_waiting(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache = NC_OPEN(nc_temp_path(path, "waiting"), NULL);
    struct waiting_call call;
    pthread_t thread;

    call.cache = NC_OPEN(path, NULL);
    CHECK(pipe(call.done) == 0);
    CHECK_OK(normcache_begin(cache));
    CHECK_PUT(cache, "{\"First:1\": {\"v\": 1}}", "[\"First:1.v\"]");
    CHECK(pthread_create(&thread, NULL, put_and_signal, &call) == 0);
    check_still_waiting(call.done[0], 300);
    CHECK_NOTFOUND(cache, "Later:1");
    CHECK_OK(normcache_commit(cache));
    nc_await_signal(call.done[0], 'p');
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(call.code == NORMCACHE_OK);
    CHECK_GET(cache, "Later:1", "{\"v\":1}");

    /* A close on another thread waits until the owner commits through the handle. */
    CHECK_OK(normcache_close(call.cache));
    call.cache = cache;
    CHECK_OK(normcache_begin(cache));
    CHECK_PUT(cache, "{\"Second:1\": {\"v\": 1}}", "[\"Second:1.v\"]");
    CHECK(pthread_create(&thread, NULL, close_and_signal, &call) == 0);
    check_still_waiting(call.done[0], 300);
    CHECK_GET(cache, "Second:1", "{\"v\":1}");
    CHECK_OK(normcache_commit(cache));
    nc_await_signal(call.done[0], 'c');
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(call.code == NORMCACHE_OK);
    CHECK_CODE(normcache_remove(cache, "Second:1", 8), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("the cache handle is closed or was never opened");

    /* A close on the owning thread rolls back. */
    cache = NC_OPEN(path, NULL);
    CHECK_OK(normcache_begin(cache));
    CHECK_PUT(cache, "{\"Third:1\": {\"v\": 1}}", "[\"Third:1.v\"]");
    CHECK_OK(normcache_close(cache));
    cache = NC_OPEN(path, NULL);
    CHECK_SEARCH(cache, "", NULL, 0, "[\"First:1\",\"Later:1\",\"Second:1\"]");
    CHECK_PUT(cache, "{\"Fourth:1\": {\"v\": 1}}", "[\"Fourth:1.v\"]");
    CHECK_OK(normcache_close(cache));
    close(call.done[0]);
    close(call.done[1]);
}

/** A call that fills the map fails alone; the earlier calls commit. */
static void test_full_map(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache = NC_OPEN(nc_temp_path(path, "full"), NULL);
    nc_text big = {0};
    int stored = 0;
    int code = NORMCACHE_OK;
    char key[32];

    CHECK_OK(normcache_begin(cache));
    while (stored < 64) {
        big.len = 0;
        snprintf(key, sizeof key, "Big:%02d", stored);
        nc_appendf(&big, "{\"%s\": {\"v\": \"", key);
        nc_append_repeat(&big, 'x', 4u << 20);
        nc_append(&big, "\"}}", 3);
        code = normcache_put(cache, big.data, big.len, NULL, NULL);
        if (code != NORMCACHE_OK) {
            break;
        }
        stored++;
    }
    CHECK_CODE(code, NORMCACHE_ESTORAGE);
    CHECK_ERRMSG(path, "is full and cannot grow while a transaction is open (its begin left 64 MiB free): this call "
                       "was undone and the transaction's earlier calls stay; commit or roll back, then go on in a new "
                       "transaction (its begin grows the map), or open the cache with a larger \"map_size\"");
    /* begin left 64 MiB free: 15 records of 4 MiB and their pages fit, a 16th does not. */
    CHECK(stored == 15);
    CHECK(NC_STAT_NUMBER(cache, "records") == (unsigned long long)stored);
    CHECK_PUT(cache, "{\"Small:1\": {\"v\": 1}}", "[\"Small:1.v\"]");
    CHECK_OK(normcache_commit(cache));
    CHECK_OK(normcache_close(cache));
    cache = NC_OPEN(path, NULL);
    CHECK(NC_STAT_NUMBER(cache, "records") == (unsigned long long)stored + 1);
    CHECK_GET(cache, "Small:1", "{\"v\":1}");
    /* The next transaction begins in a grown map. */
    CHECK_OK(normcache_begin(cache));
    CHECK_OK(normcache_put(cache, big.data, big.len, NULL, NULL));
    CHECK_OK(normcache_commit(cache));
    CHECK_OK(normcache_close(cache));
    free(big.data);
}

static int ready[2];

/** Begins a transaction, writes, says so and waits to be killed. */
static void write_and_wait_for_kill(const char *path, int number)
{
    normcache *cache = NC_OPEN(path, NULL);
    (void)number;
    CHECK_OK(normcache_begin(cache));
    CHECK_PUT(cache, "{\"Killed:1\": {\"v\": 1}}", "[\"Killed:1.v\"]");
    CHECK_OK(normcache_remove(cache, "Kept:1", 6));
    nc_send_signal(ready[1], 'r');
    for (;;) {
        pause();
    }
}

/** Fails unless the parent's committed transaction is in a new handle. */
static void check_parent_commit(const char *path, int number)
{
    normcache *cache = NC_OPEN(path, NULL);
    (void)number;
    CHECK_GET(cache, "Parent:1", "{\"v\":1}");
    CHECK_OK(normcache_close(cache));
}

/** A process killed in a transaction leaves nothing of it; a fork() child inherits none. */
static void test_kill_and_fork(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache = NC_OPEN(nc_temp_path(path, "killed"), NULL);
    pid_t child;
    int status = 0;

    CHECK_PUT(cache, "{\"Kept:1\": {\"v\": 1}}", "[\"Kept:1.v\"]");
    CHECK(pipe(ready) == 0);
    child = nc_spawn(write_and_wait_for_kill, path, 0);
    nc_await_signal(ready[0], 'r');
    CHECK(kill(child, SIGKILL) == 0);
    CHECK(waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    /* The survivor writes (LMDB releases the dead writer's lock) and finds nothing of it. */
    CHECK_PUT(cache, "{\"After:1\": {\"v\": 1}}", "[\"After:1.v\"]");
    CHECK_SEARCH(cache, "", NULL, 0, "[\"After:1\",\"Kept:1\"]");
    CHECK_OK(normcache_close(cache));
    cache = NC_OPEN(path, NULL);
    CHECK_SEARCH(cache, "", NULL, 0, "[\"After:1\",\"Kept:1\"]");

    /* fork() in a transaction: the child's calls on the inherited handle are refused,
     * its own handle reads the last commit; the parent commits afterwards. */
    CHECK_OK(normcache_begin(cache));
    CHECK_PUT(cache, "{\"Parent:1\": {\"v\": 1}}", "[\"Parent:1.v\"]");
    fflush(NULL);
    child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        normcache *own;
        CHECK_CODE(normcache_remove(cache, "Parent:1", 8), NORMCACHE_EINVAL);
        CHECK_ERRMSG_IS("the cache handle was opened before fork() by the parent process: open the cache again in this process");
        CHECK_CODE(normcache_commit(cache), NORMCACHE_EINVAL);
        CHECK_CODE(normcache_begin(cache), NORMCACHE_EINVAL);
        CHECK_OK(normcache_close(cache));
        own = NC_OPEN(path, NULL);
        CHECK_NOTFOUND(own, "Parent:1");
        CHECK_OK(normcache_close(own));
        fflush(NULL);
        _exit(0);
    }
    CHECK_CHILD_PASSED(child);
    CHECK_GET(cache, "Parent:1", "{\"v\":1}");
    CHECK_OK(normcache_commit(cache));
    CHECK_CHILD_PASSED(nc_spawn(check_parent_commit, path, 0));
    CHECK_OK(normcache_close(cache));
    close(ready[0]);
    close(ready[1]);
}

int main(void)
{
    test_atomic();
    test_rollback_and_failing_call();
    test_misuse();
    test_waiting();
    test_full_map();
    test_kill_and_fork();
    return 0;
}
