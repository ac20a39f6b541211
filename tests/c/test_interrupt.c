/*
 * test_interrupt.c — normcache_interrupt and normcache_close against calls in progress.
 *
 * Interrupt: from a key resolver and a clock of the call itself (the call is running, so
 * it stops at its next check), from another thread during a long prepare, and from a
 * SIGALRM handler during a long prepare and a long put: each call returns
 * NORMCACHE_INTERRUPTED with its message, leaves its outputs NULL/0 and every record as it
 * was; the same call made again succeeds (the interrupt ended with the calls it stopped),
 * as does a call after an interrupt made while nothing ran. The JSON scan that reads a
 * put's records or a write's response before parsing them stops too: a put_ex and a
 * write_ex of tens of MB whose clock interrupts them, and a put of tens of MB interrupted by
 * SIGALRM, return NORMCACHE_INTERRUPTED although their last byte is wrong (the scan, had
 * it run to its end, would fail with NORMCACHE_EJSON). Close: a write whose key
 * resolver closes the handle fails with NORMCACHE_EINVAL and writes nothing; a prepare
 * running on another thread during a close returns its operation, usable with another
 * handle.
 */
#include "check.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/time.h>

/** The message of an interrupted call. */
#define INTERRUPTED_MESSAGE \
    "interrupted: interrupt() was called on the cache handle while this call ran; nothing was changed"

/** The longest a stopped call may take to return, in seconds (a loaded machine's margin). */
#define PROMPT_SECONDS 2.0

/** The handle the callbacks and the signal handler interrupt. */
static normcache *volatile target;
/** When the signal handler first interrupted, in seconds (0: not yet). */
static volatile double first_signal;

/** Sleeps `microseconds`. */
static void nap(long microseconds)
{
    struct timespec pause = {0, microseconds * 1000};
    nanosleep(&pause, NULL);
}

/** A query of `repeats` copies of one field on one line (prepared in seconds today). */
static char *long_document(size_t repeats, size_t *len)
{
    nc_text text = {0};
    size_t index;
    NC_APPEND_LITERAL(&text, "query Q { ");
    for (index = 0; index < repeats; index++) {
        NC_APPEND_LITERAL(&text, "hero { id name } ");
    }
    NC_APPEND_LITERAL(&text, "}");
    *len = text.len;
    return text.data;
}

/** Records JSON of `count` (at least 1) records "K:<n>" of one field. */
static char *many_records(size_t count, size_t *len)
{
    nc_text text = {0};
    size_t index;
    nc_append_repeat(&text, '{', 1);
    for (index = 0; index < count; index++) {
        nc_appendf(&text, "\"K:%zu\":{\"f\":%zu},", index, index);
    }
    text.data[text.len - 1] = '}'; /* the last comma */
    *len = text.len;
    return text.data;
}

/** The records of many_records(count) with their last byte wrong (']' for '}'): valid JSON
 *  up to its end, so only a scan that runs to the end finds the mistake. */
static char *records_wrong_at_the_end(size_t count, size_t *len)
{
    char *records = many_records(count, len);
    records[*len - 1] = ']';
    return records;
}

/** The number of records of the large documents of the scan tests: about 45 MB. */
#define SCANNED_RECORDS 1800000

/** Fails unless the cache holds no record at all. */
#define CHECK_EMPTY(cache) CHECK_SEARCH((cache), "", NULL, 0, "[]")

/** What the acting resolver does to `target`, and at which object. */
typedef struct {
    int objects; /**< the objects met so far */
    int at;      /**< the object (from 1) at which it acts */
    int closes;  /**< closes `target` (and sets it NULL) instead of interrupting it */
} resolver_plan;

/** A key resolver that interrupts or closes `target` at the object its plan says. */
static int acting_resolver(void *context, const char *typename_, size_t typename_len,
                           const normcache_object *object, normcache_key *key)
{
    resolver_plan *plan = context;
    (void)typename_;
    (void)typename_len;
    (void)object;
    (void)key;
    if (++plan->objects == plan->at) {
        CHECK_OK(plan->closes ? normcache_close(target) : normcache_interrupt(target));
        if (plan->closes) {
            target = NULL;
        }
    }
    return NORMCACHE_OK;
}

/** A clock that interrupts `target` and says 1,000,000. */
static int64_t interrupting_clock(void *context)
{
    (void)context;
    CHECK_OK(normcache_interrupt(target));
    return 1000000;
}

static const char friends_query[] = "{ hero { id name friends { id name } } }";
static const char friends_response[] =
    "{\"data\":{\"hero\":{\"__typename\":\"Droid\",\"id\":\"2001\",\"name\":\"R2-D2\",\"friends\":["
    "{\"__typename\":\"Human\",\"id\":\"1000\",\"name\":\"Luke\"},"
    "{\"__typename\":\"Human\",\"id\":\"1002\",\"name\":\"Han\"}]}}}";

/** Bad handles: NULL, closed; an interrupt while nothing runs does nothing. */
static void test_handles(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    CHECK_CODE(normcache_interrupt(NULL), NORMCACHE_EINVAL);
    CHECK_OK(normcache_interrupt(cache));
    CHECK_OK(normcache_interrupt(cache));
    CHECK_PUT(cache, "{\"A:1\":{\"x\":1}}", "[\"A:1.x\"]");
    CHECK_GET(cache, "A:1", "{\"x\":1}");
    CHECK_OK(normcache_close(cache));
    CHECK_CODE(normcache_interrupt(cache), NORMCACHE_EINVAL);
    CHECK(strcmp(normcache_errstr(NORMCACHE_INTERRUPTED), "interrupted") == 0);
}

/** A write interrupted by its own key resolver writes nothing; made again it succeeds. */
static void test_write_from_resolver(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    normcache_op *op = NULL;
    char *changed = NULL;
    size_t changed_len = 0;
    resolver_plan plan = {0, 3, 0};
    nc_text before = {0};
    int listed;
    target = cache;
    CHECK_PUT(cache, "{\"Droid:2001\":{\"name\":\"Artoo\"}}", "[\"Droid:2001.name\"]");
    CHECK_OK(normcache_set_key_resolver(cache, acting_resolver, &plan));
    CHECK_OK(normcache_prepare(cache, friends_query, sizeof friends_query - 1, NULL, 0, &op));
    listed = nc_dump_records(cache, &before);
    nc_check_failed_write(__FILE__, __LINE__, "normcache_write",
                          normcache_write(cache, op, NULL, 0, friends_response, sizeof friends_response - 1, &changed,
                                          &changed_len),
                          NORMCACHE_INTERRUPTED, changed, changed_len, INTERRUPTED_MESSAGE, cache, listed, &before);
    CHECK(plan.objects == 3);
    CHECK_OK(normcache_write(cache, op, NULL, 0, friends_response, sizeof friends_response - 1, &changed,
                             &changed_len));
    normcache_free(changed);
    CHECK_GET(cache, "QUERY_ROOT.hero.friends.1", "{\"__typename\":\"Human\",\"id\":\"1002\",\"name\":\"Han\"}");
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
}

/** A put and a read whose clock interrupts them: nothing written, nothing returned. */
static void test_put_and_read_from_clock(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    normcache_op *op = NULL;
    char *out = NULL;
    size_t out_len = 0;
    nc_text before = {0};
    int listed;
    target = cache;
    CHECK_PUT(cache, "{\"Droid:2001\":{\"name\":\"R2-D2\"}}", "[\"Droid:2001.name\"]");
    CHECK_OK(normcache_prepare(cache, "{ hero { name } }", NORMCACHE_NUL_TERMINATED, NULL, 0, &op));
    CHECK_PUT(cache, "{\"QUERY_ROOT\":{\"hero\":{\"$reference\":\"Droid:2001\"}}}", "[\"QUERY_ROOT.hero\"]");
    CHECK_OK(normcache_set_clock(cache, interrupting_clock, NULL));
    listed = nc_dump_records(cache, &before);
    nc_check_failed_write(__FILE__, __LINE__, "normcache_put",
                          normcache_put(cache, "{\"Droid:2001\":{\"name\":\"Artoo\"},\"Human:1\":{\"name\":\"Luke\"}}",
                                        NORMCACHE_NUL_TERMINATED, &out, &out_len),
                          NORMCACHE_INTERRUPTED, out, out_len, INTERRUPTED_MESSAGE, cache, listed, &before);
    CHECK_CODE(normcache_read(cache, op, NULL, 0, 0, &out, &out_len), NORMCACHE_INTERRUPTED);
    CHECK(out == NULL && out_len == 0);
    CHECK_ERRMSG_IS(INTERRUPTED_MESSAGE);
    CHECK_OK(normcache_set_clock(cache, NULL, NULL));
    CHECK_OK(normcache_read(cache, op, NULL, 0, 0, &out, &out_len));
    CHECK_STR(out, out_len, "{\"hero\":{\"name\":\"R2-D2\"}}");
    normcache_free(out);
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
}

/** A response of tens of MB to `{ hero { id name friends { id name } } }`, with its
 *  last byte wrong; as records_wrong_at_the_end. */
static char *response_wrong_at_the_end(size_t friends, size_t *len)
{
    nc_text text = {0};
    size_t index;
    NC_APPEND_LITERAL(&text, "{\"data\":{\"hero\":{\"__typename\":\"Droid\",\"id\":\"2001\",\"name\":\"R2\",\"friends\":[");
    for (index = 0; index < friends; index++) {
        nc_appendf(&text, "%s{\"__typename\":\"Human\",\"id\":\"%zu\",\"name\":\"H\"}", index ? "," : "", index);
    }
    NC_APPEND_LITERAL(&text, "]}}]");
    *len = text.len;
    return text.data;
}

/** A put_ex and a write_ex (which ask the clock first) whose clock interrupts them before they scan tens of MB of JSON:
 *  the scan stops at its first check (at its end it would find the wrong last byte). */
static void test_scan_from_clock(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    normcache_op *op = NULL;
    normcache_write_options options;
    char *records;
    char *response;
    size_t records_len;
    size_t response_len;
    char *changed = NULL;
    size_t changed_len = 0;
    nc_text before = {0};
    int listed;
    target = cache;
    memset(&options, 0, sizeof options);
    options.size = sizeof options;
    options.max_age = -1;
    CHECK_PUT(cache, "{\"Droid:2001\":{\"name\":\"R2-D2\"}}", "[\"Droid:2001.name\"]");
    CHECK_OK(normcache_prepare(cache, friends_query, sizeof friends_query - 1, NULL, 0, &op));
    records = records_wrong_at_the_end(SCANNED_RECORDS, &records_len);
    response = response_wrong_at_the_end(SCANNED_RECORDS / 2, &response_len);
    CHECK(records_len > 40000000 && response_len > 40000000);
    CHECK_OK(normcache_set_clock(cache, interrupting_clock, NULL));
    listed = nc_dump_records(cache, &before);
    nc_check_failed_write(__FILE__, __LINE__, "normcache_put_ex",
                          normcache_put_ex(cache, records, records_len, &options, &changed, &changed_len),
                          NORMCACHE_INTERRUPTED, changed, changed_len, INTERRUPTED_MESSAGE, cache, listed, &before);
    listed = nc_dump_records(cache, &before);
    nc_check_failed_write(__FILE__, __LINE__, "normcache_write_ex",
                          normcache_write_ex(cache, op, NULL, 0, response, response_len, &options, &changed,
                                             &changed_len),
                          NORMCACHE_INTERRUPTED, changed, changed_len, INTERRUPTED_MESSAGE, cache, listed, &before);
    /* Not interrupted, the same scans run to the end and find the mistake. */
    CHECK_OK(normcache_set_clock(cache, NULL, NULL));
    CHECK_CODE(normcache_put_ex(cache, records, records_len, &options, NULL, NULL), NORMCACHE_EJSON);
    CHECK_CONTAINS(normcache_errmsg(), "expected ',' or '}' after an object member");
    CHECK_CODE(normcache_write_ex(cache, op, NULL, 0, response, response_len, &options, NULL, NULL), NORMCACHE_EJSON);
    CHECK_CONTAINS(normcache_errmsg(), "expected ',' or '}' after an object member");
    free(records);
    free(response);
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
}

/** What a thread running a long prepare sees, and when it returned. */
typedef struct {
    normcache *cache;
    const char *document;
    size_t document_len;
    volatile int started; /**< set just before the prepare */
    volatile int done;    /**< set when it returned */
    int status;
    normcache_op *op;
    double returned_at;
} prepare_run;

static void *run_prepare(void *argument)
{
    prepare_run *run = argument;
    run->started = 1;
    run->status = normcache_prepare(run->cache, run->document, run->document_len, NULL, 0, &run->op);
    run->returned_at = nc_now_seconds();
    run->done = 1;
    return NULL;
}

/** Opens a fresh cache and starts a thread preparing a query of `repeats` fields with it. */
static void start_prepare(prepare_run *run, pthread_t *thread, size_t repeats)
{
    run->cache = NC_OPEN_FRESH(NULL);
    run->document = long_document(repeats, &run->document_len);
    CHECK(pthread_create(thread, NULL, run_prepare, run) == 0);
    while (!run->started) {
        sched_yield();
    }
}

/** A long prepare interrupted from another thread returns promptly, with no operation. */
static void test_prepare_from_thread(void)
{
    prepare_run run = {0};
    pthread_t thread;
    double first = 0;
    start_prepare(&run, &thread, 200000);
    /* Interrupts before the prepare counts as running do nothing: keep interrupting. */
    while (!run.done) {
        CHECK_OK(normcache_interrupt(run.cache));
        if (first == 0) {
            first = nc_now_seconds();
        }
        if (nc_now_seconds() - first > 10) {
            nc_fail(__FILE__, __LINE__, "the prepare still runs 10 s after the first interrupt");
        }
        nap(1000);
    }
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK_CODE(run.status, NORMCACHE_INTERRUPTED);
    CHECK(run.op == NULL);
    CHECK(run.returned_at - first < PROMPT_SECONDS);
    printf("prepare of %zu bytes interrupted from a thread: returned %.1f ms after the first interrupt\n",
           run.document_len, (run.returned_at - first) * 1000);
    free((void *)run.document);
    CHECK_OK(normcache_close(run.cache));
}

/** SIGALRM: interrupts `target`, noting when it first did. */
static void on_alarm(int signal_number)
{
    (void)signal_number;
    if (normcache_interrupt(target) == NORMCACHE_OK && first_signal == 0) {
        first_signal = nc_now_seconds();
    }
}

/** Sends SIGALRM every millisecond from 5 ms on (interval 0: stops it). */
static void arm_alarm(int on)
{
    struct itimerval timer = {{0, on ? 1000 : 0}, {0, on ? 5000 : 0}};
    CHECK(setitimer(ITIMER_REAL, &timer, NULL) == 0);
}

/** A long prepare and a long put stopped by a signal handler: prompt, nothing written. */
static void test_from_signal_handler(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    normcache_op *op = NULL;
    struct sigaction action;
    char *document;
    char *records;
    size_t document_len;
    size_t records_len;
    char *changed = NULL;
    size_t changed_len = 0;
    int status;
    double returned;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_alarm;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    CHECK(sigaction(SIGALRM, &action, NULL) == 0);
    target = cache;

    document = long_document(200000, &document_len);
    first_signal = 0;
    arm_alarm(1);
    status = normcache_prepare(cache, document, document_len, NULL, 0, &op);
    returned = nc_now_seconds();
    arm_alarm(0);
    CHECK_CODE(status, NORMCACHE_INTERRUPTED);
    CHECK_ERRMSG_IS(INTERRUPTED_MESSAGE);
    CHECK(op == NULL && first_signal != 0 && returned - first_signal < PROMPT_SECONDS);
    printf("prepare of %zu bytes interrupted by SIGALRM: returned %.1f ms after the handler's interrupt\n",
           document_len, (returned - first_signal) * 1000);
    free(document);

    records = many_records(300000, &records_len);
    first_signal = 0;
    arm_alarm(1);
    status = normcache_put(cache, records, records_len, &changed, &changed_len);
    returned = nc_now_seconds();
    arm_alarm(0);
    CHECK_CODE(status, NORMCACHE_INTERRUPTED);
    CHECK_ERRMSG_IS(INTERRUPTED_MESSAGE);
    CHECK(changed == NULL && changed_len == 0 && first_signal != 0 && returned - first_signal < PROMPT_SECONDS);
    printf("put of %zu bytes interrupted by SIGALRM: returned %.1f ms after the handler's interrupt\n", records_len,
           (returned - first_signal) * 1000);
    CHECK_EMPTY(cache);
    free(records);

    /* Interrupted while it scans: the scan, run to its end, would fail with EJSON. */
    records = records_wrong_at_the_end(SCANNED_RECORDS, &records_len);
    first_signal = 0;
    arm_alarm(1);
    status = normcache_put(cache, records, records_len, NULL, NULL);
    returned = nc_now_seconds();
    arm_alarm(0);
    CHECK_CODE(status, NORMCACHE_INTERRUPTED);
    CHECK_ERRMSG_IS(INTERRUPTED_MESSAGE);
    CHECK(first_signal != 0 && returned - first_signal < PROMPT_SECONDS);
    printf("put of %zu bytes interrupted by SIGALRM while its JSON is scanned: returned %.1f ms after the handler's "
           "interrupt\n",
           records_len, (returned - first_signal) * 1000);
    CHECK_EMPTY(cache);
    free(records);

    /* Once no call runs, the interrupt is over: the same put succeeds. */
    records = many_records(300000, &records_len);
    CHECK_OK(normcache_put(cache, records, records_len, NULL, NULL));
    CHECK_GET(cache, "K:299999", "{\"f\":299999}");
    free(records);
    CHECK_OK(normcache_close(cache));
}

/** A write whose key resolver closes its handle (before the write's transaction). */
static void test_close_before_transaction(void)
{
    char path_buffer[NC_PATH_SIZE];
    const char *path = nc_temp_path(path_buffer, "close-resolver");
    normcache *cache = NULL;
    normcache *again;
    normcache_op *op = NULL;
    char *changed = NULL;
    size_t changed_len = 0;
    nc_text message = {0};
    resolver_plan plan = {0, 1, 1};
    CHECK_OK(normcache_open(path, strlen(path), NULL, 0, &cache));
    target = cache;
    CHECK_OK(normcache_set_key_resolver(cache, acting_resolver, &plan));
    CHECK_OK(normcache_prepare(cache, friends_query, sizeof friends_query - 1, NULL, 0, &op));
    CHECK_CODE(normcache_write(cache, op, NULL, 0, friends_response, sizeof friends_response - 1, &changed,
                               &changed_len),
               NORMCACHE_EINVAL);
    nc_appendf(&message, "the cache '%s' is closed", path);
    CHECK_ERRMSG_IS(message.data);
    CHECK(changed == NULL && target == NULL);
    CHECK_OK(normcache_op_free(op));
    again = NC_OPEN(path, NULL);
    CHECK_EMPTY(again);
    CHECK_OK(normcache_close(again));
    free(message.data);
}

/** A prepare running on another thread while the handle closes returns its operation. */
static void test_close_during_prepare(void)
{
    normcache *other;
    prepare_run run = {0};
    pthread_t thread;
    double closed;
    start_prepare(&run, &thread, 6000);
    nap(20000);
    CHECK_OK(normcache_close(run.cache));
    closed = nc_now_seconds();
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK_OK(run.status);
    printf("close during a prepare: the prepare returned its operation %.1f ms after the close\n",
           (run.returned_at - closed) * 1000);
    other = NC_OPEN_FRESH(NULL);
    CHECK_PUT(other, "{\"QUERY_ROOT\":{\"hero\":{\"$reference\":\"Droid:1\"}},\"Droid:1\":{\"id\":\"1\",\"name\":\"R2\"}}",
              "[\"QUERY_ROOT.hero\",\"Droid:1.id\",\"Droid:1.name\"]");
    {
        char *out = NULL;
        size_t out_len = 0;
        CHECK_OK(normcache_read(other, run.op, NULL, 0, 0, &out, &out_len));
        CHECK_STR(out, out_len, "{\"hero\":{\"id\":\"1\",\"name\":\"R2\"}}");
        normcache_free(out);
    }
    CHECK_OK(normcache_op_free(run.op));
    CHECK_OK(normcache_close(other));
    free((void *)run.document);
}

int main(void)
{
    test_handles();
    test_write_from_resolver();
    test_put_and_read_from_clock();
    test_scan_from_clock();
    test_prepare_from_thread();
    test_from_signal_handler();
    test_close_before_transaction();
    test_close_during_prepare();
    return 0;
}
