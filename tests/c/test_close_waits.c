/*
 * test_close_waits.c — normcache_close on one thread while a call of another thread is
 * inside its transaction.
 *
 * A put on one handle is held inside its transaction, waiting for the file's writer lock
 * that a transaction of several calls (normcache_begin) on a second handle holds. A close
 * of the first handle from a third thread then waits: it has not returned while the put
 * waits, and returns NORMCACHE_OK only after the put committed. The put returns
 * NORMCACHE_OK with its changed fields, as it would have without the close; later calls
 * on the closed handle fail with NORMCACHE_EINVAL; both commits are in the file.
 *
 * The transaction's own thread, while a close of its handle on another thread waits for
 * it, goes on calling on the handle (stats, last_commit, reads, writes) and commits; the
 * close returns after the commit.
 *
 * A thread is known to wait when /proc says it sleeps for 50 ms on end: the calls held
 * here sleep only on the lock they wait for.
 */
/* syscall(SYS_gettid), for a thread's entry in /proc. */
#define _DEFAULT_SOURCE
#include "check.h"
#include "processes.h"

#include <poll.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

/** A call run on a thread of its own: what it returned, and a pipe it signals on. */
typedef struct {
    normcache *cache;
    normcache *observer; /**< a handle of the file, read when the call returned */
    volatile pid_t tid;  /**< the thread's id, set before the call */
    int done[2];         /**< the thread writes one byte when its call returned */
    int code;
    char *changed;
    size_t changed_len;
    int committed_at_return; /**< whether `observer` saw "Inside:1" when the call returned */
} held_call;

/** The thread's state letter in /proc (R, S, D...), or 0 when it cannot be read. */
static char thread_state(pid_t tid)
{
    char path[64];
    char line[512];
    char *after_name;
    FILE *stat_file;
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    stat_file = fopen(path, "r");
    if (stat_file == NULL) {
        return 0;
    }
    after_name = fgets(line, sizeof line, stat_file) ? strrchr(line, ')') : NULL;
    fclose(stat_file);
    return after_name != NULL && after_name[1] == ' ' ? after_name[2] : 0;
}

/** Waits until the thread `call` runs on has slept for 50 ms on end (10 s at most). */
static void await_sleeping(held_call *call)
{
    double start = nc_now_seconds();
    double asleep_since = 0;
    struct timespec pause = {0, 1000000};
    while (call->tid == 0) {
        nanosleep(&pause, NULL);
    }
    for (;;) {
        double now = nc_now_seconds();
        if (thread_state(call->tid) != 'S') {
            asleep_since = 0;
        } else if (asleep_since == 0) {
            asleep_since = now;
        } else if (now - asleep_since >= 0.05) {
            return;
        }
        if (now - start > 10) {
            nc_fail(__FILE__, __LINE__, "thread %d does not wait after 10 s", (int)call->tid);
        }
        nanosleep(&pause, NULL);
    }
}

/** Fails unless the pipe end `fd` stays without data for `ms` milliseconds. */
static void check_still_waiting(int fd, int ms)
{
    struct pollfd wanted = {fd, POLLIN, 0};
    CHECK(poll(&wanted, 1, ms) == 0);
}

/** Notes whether "Inside:1" is in the file through `call->observer`, then signals `c`. */
static void signal_returned(held_call *call, char c)
{
    char *record = NULL;
    size_t record_len = 0;
    int code = normcache_get(call->observer, "Inside:1", 8, &record, &record_len);
    call->committed_at_return = code == NORMCACHE_OK;
    normcache_free(record);
    nc_send_signal(call->done[1], c);
}

static void *put_inside(void *argument)
{
    held_call *call = argument;
    call->tid = (pid_t)syscall(SYS_gettid);
    call->code = normcache_put(call->cache, "{\"Inside:1\": {\"v\": 1}}", NORMCACHE_NUL_TERMINATED, &call->changed,
                               &call->changed_len);
    signal_returned(call, 'p');
    return NULL;
}

static void *close_handle(void *argument)
{
    held_call *call = argument;
    call->tid = (pid_t)syscall(SYS_gettid);
    call->code = normcache_close(call->cache);
    signal_returned(call, 'c');
    return NULL;
}

/** Starts `body` on a thread for `call` on `cache`, reporting through `observer`. */
static void start(held_call *call, pthread_t *thread, void *(*body)(void *), normcache *cache, normcache *observer)
{
    memset(call, 0, sizeof *call);
    call->cache = cache;
    call->observer = observer;
    CHECK(pipe(call->done) == 0);
    CHECK(pthread_create(thread, NULL, body, call) == 0);
}

/** Joins the thread of `call` and closes its pipe. */
static void finish(held_call *call, pthread_t thread)
{
    CHECK(pthread_join(thread, NULL) == 0);
    close(call->done[0]);
    close(call->done[1]);
}

/** A put held inside its transaction: the close waits for it, the put commits. */
static void test_close_waits_for_call(void)
{
    char path[NC_PATH_SIZE];
    normcache *holder = NC_OPEN(nc_temp_path(path, "held-put"), NULL);
    normcache *cache = NC_OPEN(path, NULL);
    held_call put;
    held_call closing;
    pthread_t put_thread;
    pthread_t close_thread;

    /* The holder's transaction takes the file's writer lock: the put waits inside. */
    CHECK_OK(normcache_begin(holder));
    CHECK_PUT(holder, "{\"Holder:1\": {\"v\": 1}}", "[\"Holder:1.v\"]");
    start(&put, &put_thread, put_inside, cache, holder);
    await_sleeping(&put);
    start(&closing, &close_thread, close_handle, cache, holder);
    await_sleeping(&closing);
    check_still_waiting(put.done[0], 200);
    check_still_waiting(closing.done[0], 0);

    CHECK_OK(normcache_commit(holder));
    nc_await_signal(put.done[0], 'p');
    nc_await_signal(closing.done[0], 'c');
    finish(&put, put_thread);
    finish(&closing, close_thread);
    CHECK_OK(put.code);
    CHECK_STR(put.changed, put.changed_len, "[\"Inside:1.v\"]");
    normcache_free(put.changed);
    CHECK(put.committed_at_return);
    CHECK_OK(closing.code);
    CHECK(closing.committed_at_return);

    CHECK_CODE(normcache_put(cache, "{\"After:1\": {\"v\": 1}}", NORMCACHE_NUL_TERMINATED, NULL, NULL),
               NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("the cache handle is closed or was never opened");
    CHECK_CODE(normcache_close(cache), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("the cache handle is closed or was never opened");
    CHECK_SEARCH(holder, "", NULL, 0, "[\"Holder:1\",\"Inside:1\"]");
    CHECK_GET(holder, "Inside:1", "{\"v\":1}");
    CHECK_OK(normcache_close(holder));
}

/** The transaction's thread goes on calling while a close of its handle waits for it. */
static void test_transaction_goes_on_while_close_waits(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache = NC_OPEN(nc_temp_path(path, "owner-goes-on"), NULL);
    normcache *observer = NC_OPEN(path, NULL);
    held_call closing;
    pthread_t close_thread;
    uint64_t commit_before = 0;
    uint64_t commit = 0;
    char *stats = NULL;
    size_t stats_len = 0;

    CHECK_PUT(cache, "{\"Before:1\": {\"v\": 1}}", "[\"Before:1.v\"]");
    CHECK_OK(normcache_last_commit(cache, &commit_before));
    CHECK_OK(normcache_begin(cache));
    start(&closing, &close_thread, close_handle, cache, observer);
    await_sleeping(&closing);

    /* Calls that look at the handle's file, reads and writes, all inside the transaction. */
    CHECK_OK(normcache_last_commit(cache, &commit));
    CHECK(commit == commit_before);
    CHECK_OK(normcache_stats(cache, &stats, &stats_len));
    CHECK_CONTAINS(stats, "\"records\":1,");
    normcache_free(stats);
    CHECK_PUT(cache, "{\"Inside:1\": {\"v\": 2}}", "[\"Inside:1.v\"]");
    CHECK_GET(cache, "Inside:1", "{\"v\":2}");
    CHECK_NOTFOUND(observer, "Inside:1");
    check_still_waiting(closing.done[0], 100);

    CHECK_OK(normcache_commit(cache));
    nc_await_signal(closing.done[0], 'c');
    finish(&closing, close_thread);
    CHECK_OK(closing.code);
    CHECK(closing.committed_at_return);
    CHECK_CODE(normcache_last_commit(cache, &commit), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("the cache handle is closed or was never opened");
    CHECK_GET(observer, "Inside:1", "{\"v\":2}");
    CHECK_OK(normcache_close(observer));
}

int main(void)
{
    /* A deadlock (before the fix, the owner's normcache_last_commit and the close waited
     * for each other for ever) fails the test by SIGALRM instead of hanging it. */
    alarm(120);
    test_close_waits_for_call();
    test_transaction_goes_on_while_close_waits();
    return 0;
}
