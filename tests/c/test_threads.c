/*
 * test_threads.c — one handle shared by 8 threads: writers merge into their own
 * records and into one shared record, readers check every result they see; then
 * threads racing a close see only whole results or EINVAL; then threads calling through
 * one handle and one operation while other handles and operations come and go.
 */
#include "check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

/** Writer and reader threads of the shared-handle test. */
#define WRITERS 4
#define READERS 4
/** Records each writer writes, one put each. */
#define WRITES 200
/** Rounds each reader makes. */
#define READS 300
/** Seed records, there before the threads start. */
#define SEEDS 100

/** The JSON key array of records "<group><0000>" .. "<group><count-1>". */
static nc_text key_array(const char *group, int count)
{
    nc_text keys = {0};
    int i;
    NC_APPEND_LITERAL(&keys, "[");
    for (i = 0; i < count; i++) {
        nc_appendf(&keys, "%s\"%s%04d\"", i == 0 ? "" : ",", group, i);
    }
    NC_APPEND_LITERAL(&keys, "]");
    return keys;
}

/** What every thread of the shared-handle test needs. */
typedef struct shared {
    normcache *cache;  /**< the one handle */
    nc_text seed_keys; /**< the search result for "Seed:" */
} shared;

/** A thread's share: the common state and its number. */
typedef struct worker {
    shared *common; /**< state shared by all threads */
    int number;     /**< 0.. within its kind */
} worker;

/** Writer: puts T<n>:<i> and its field of Shared:1, checking each changed list and read-back. */
static void *write_records(void *argument)
{
    worker *self = argument;
    normcache *cache = self->common->cache;
    int i;
    for (i = 0; i < WRITES; i++) {
        char records[128];
        char changed[128];
        char key[32];
        char record[32];
        snprintf(records, sizeof records, "{\"T%d:%04d\": {\"n\": %d}, \"Shared:1\": {\"w%d\": %d}}",
                 self->number, i, i, self->number, i);
        snprintf(changed, sizeof changed, "[\"T%d:%04d.n\",\"Shared:1.w%d\"]", self->number, i,
                 self->number);
        CHECK_PUT(cache, records, changed);
        snprintf(key, sizeof key, "T%d:%04d", self->number, i);
        snprintf(record, sizeof record, "{\"n\":%d}", i);
        CHECK_GET(cache, key, record);
    }
    return NULL;
}

/**
 * Fails unless the search result `got` lists T<writer>:0000 .. T<writer>:k-1 for some
 * k, which is all a reader may see of a writer that writes its keys in order.
 */
static void check_written_prefix(const char *got, size_t got_len, const nc_text *all)
{
    CHECK(got_len >= 2 && got[got_len - 1] == ']');
    CHECK(got_len <= all->len);
    CHECK(memcmp(got, all->data, got_len - 1) == 0);
    CHECK(got_len == 2 || all->data[got_len - 1] == ',' || all->data[got_len - 1] == ']');
}

/**
 * Reader: checks seed records, the seed group, the growing group of one writer, and
 * that the record count is one the writers can have reached.
 */
static void *read_records(void *argument)
{
    worker *self = argument;
    normcache *cache = self->common->cache;
    char group[8];
    nc_text all_written;
    int round;

    snprintf(group, sizeof group, "T%d:", self->number % WRITERS);
    all_written = key_array(group, WRITES);
    for (round = 0; round < READS; round++) {
        int seed = (round * 37 + self->number) % SEEDS;
        char key[32];
        char record[64];
        char count[16];
        char *out = NULL;
        size_t out_len = 0;

        snprintf(key, sizeof key, "Seed:%04d", seed);
        snprintf(record, sizeof record, "{\"n\":%d,\"s\":\"seed-%d\"}", seed, seed);
        CHECK_GET(cache, key, record);
        CHECK_SEARCH(cache, "Seed:", NULL, 0, self->common->seed_keys.data);

        CHECK_OK(normcache_search(cache, group, strlen(group), NULL, 0, 0, &out, &out_len));
        check_written_prefix(out, out_len, &all_written);
        normcache_free(out);
        NC_STAT(cache, "records", count, sizeof count);
        CHECK(atoi(count) >= SEEDS && atoi(count) <= SEEDS + WRITERS * WRITES + 1);
    }
    free(all_written.data);
    return NULL;
}

/** Writers and readers share one handle; every result is exact and nothing is lost. */
static void test_shared_handle(void)
{
    shared common;
    worker writers[WRITERS];
    worker readers[READERS];
    pthread_t threads[WRITERS + READERS];
    nc_text seeds = {0};
    char shared_record[128];
    char records_count[16];
    int i;

    common.cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    common.seed_keys = key_array("Seed:", SEEDS);
    NC_APPEND_LITERAL(&seeds, "{");
    for (i = 0; i < SEEDS; i++) {
        nc_appendf(&seeds, "%s\"Seed:%04d\": {\"n\": %d, \"s\": \"seed-%d\"}", i == 0 ? "" : ", ",
                   i, i, i);
    }
    NC_APPEND_LITERAL(&seeds, "}");
    CHECK_OK(normcache_put(common.cache, seeds.data, seeds.len, NULL, NULL));
    free(seeds.data);

    for (i = 0; i < WRITERS; i++) {
        writers[i].common = &common;
        writers[i].number = i;
        CHECK(pthread_create(&threads[i], NULL, write_records, &writers[i]) == 0);
    }
    for (i = 0; i < READERS; i++) {
        readers[i].common = &common;
        readers[i].number = i;
        CHECK(pthread_create(&threads[WRITERS + i], NULL, read_records, &readers[i]) == 0);
    }
    for (i = 0; i < WRITERS + READERS; i++) {
        CHECK(pthread_join(threads[i], NULL) == 0);
    }

    for (i = 0; i < WRITERS; i++) {
        char group[8];
        nc_text keys;
        snprintf(group, sizeof group, "T%d:", i);
        keys = key_array(group, WRITES);
        CHECK_SEARCH(common.cache, group, NULL, 0, keys.data);
        free(keys.data);
    }
    snprintf(shared_record, sizeof shared_record, "{\"w0\":%d,\"w1\":%d,\"w2\":%d,\"w3\":%d}",
             WRITES - 1, WRITES - 1, WRITES - 1, WRITES - 1);
    CHECK_GET(common.cache, "Shared:1", shared_record);
    snprintf(records_count, sizeof records_count, "%d", SEEDS + WRITERS * WRITES + 1);
    CHECK_STAT(common.cache, "records", records_count);
    CHECK_OK(normcache_close(common.cache));
    free(common.seed_keys.data);
}

/** Threads that keep calling while the handle is closed under them. */
#define RACERS 4

/** The record the racers read, the key they read it by, and what they write. */
static const char race_seed[] = "{\"Seed:0000\": {\"n\": 0, \"s\": \"seed-0\"}}";
static const char race_key[] = "Seed:0000";
static const char race_write[] = "{\"Race:1\": {\"n\": 1}}";

/**
 * Racer: reads (and, when its number is even, writes) until a call gives EINVAL;
 * every earlier call succeeds with an exact result, and every later call is EINVAL too.
 */
static void *race_close(void *argument)
{
    worker *self = argument;
    normcache *cache = self->common->cache;
    int code = NORMCACHE_OK;
    int i;
    while (code == NORMCACHE_OK) {
        char *out = NULL;
        size_t out_len = 0;
        code = normcache_get(cache, race_key, strlen(race_key), &out, &out_len);
        if (code == NORMCACHE_OK) {
            CHECK_STR(out, out_len, "{\"n\":0,\"s\":\"seed-0\"}");
            normcache_free(out);
            if (self->number % 2 == 0) {
                code = normcache_put(cache, race_write, strlen(race_write), NULL, NULL);
            }
        } else {
            CHECK(out == NULL && out_len == 0);
        }
    }
    CHECK_CODE(code, NORMCACHE_EINVAL);
    for (i = 0; i < 10; i++) {
        char *out = NULL;
        size_t out_len = 0;
        CHECK_CODE(normcache_get(cache, race_key, strlen(race_key), &out, &out_len),
                   NORMCACHE_EINVAL);
        CHECK_CODE(normcache_put(cache, race_write, strlen(race_write), NULL, NULL),
                   NORMCACHE_EINVAL);
    }
    return NULL;
}

/** Closing a handle in use waits for the calls in progress; later calls are EINVAL. */
static void test_close_while_in_use(void)
{
    shared common = {0};
    worker racers[RACERS];
    pthread_t threads[RACERS];
    struct timespec pause = {0, 50 * 1000 * 1000};
    int i;

    common.cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    CHECK_PUT(common.cache, race_seed, "[\"Seed:0000.n\",\"Seed:0000.s\"]");
    for (i = 0; i < RACERS; i++) {
        racers[i].common = &common;
        racers[i].number = i;
        CHECK(pthread_create(&threads[i], NULL, race_close, &racers[i]) == 0);
    }
    nanosleep(&pause, NULL);
    CHECK_OK(normcache_close(common.cache));
    for (i = 0; i < RACERS; i++) {
        CHECK(pthread_join(threads[i], NULL) == 0);
    }
}

/** Handles and operations a churning thread opens, prepares, frees and closes. */
#define CHURNS 200

/** What the callers and the churning thread of the lookup test share. */
typedef struct lookups {
    normcache *cache;    /**< the handle the callers call through */
    normcache_op *op;    /**< the operation they read through */
    const char *path;    /**< the file, which the churning thread opens again */
    atomic_int churning; /**< 1 while the churning thread runs */
    atomic_int phase;    /**< 0 while open, 1 while closing, 2 once closed and freed */
} lookups;

/**
 * Checks a call's `code` against the phase before and after it: EINVAL once closed,
 * success while open, either in between; frees a result.
 */
static void check_phase(int before, int after, int code, char *out)
{
    if (before == 2) {
        CHECK_CODE(code, NORMCACHE_EINVAL);
    } else if (after == 0) {
        CHECK_OK(code);
    } else {
        CHECK(code == NORMCACHE_OK || code == NORMCACHE_EINVAL);
    }
    normcache_free(out);
}

/**
 * Caller: gets a record and reads an operation through the same two handles, so that
 * each lookup is its thread's last one again, until it sees them closed: the results
 * are exact, and every call after the close is EINVAL.
 */
static void *call_through(void *argument)
{
    lookups *common = argument;
    int before;
    do {
        char *out = NULL;
        size_t out_len = 0;
        int code;
        before = atomic_load(&common->phase);
        code = normcache_get(common->cache, race_key, strlen(race_key), &out, &out_len);
        if (code == NORMCACHE_OK) {
            CHECK_STR(out, out_len, "{\"n\":0,\"s\":\"seed-0\"}");
        }
        check_phase(before, atomic_load(&common->phase), code, out);
        out = NULL;
        code = normcache_read(common->cache, common->op, NULL, 0, 0, &out, &out_len);
        if (code == NORMCACHE_OK) {
            CHECK_STR(out, out_len, "{\"seed\":{\"n\":0}}");
        }
        check_phase(before, atomic_load(&common->phase), code, out);
    } while (before != 2);
    return NULL;
}

/** Churner: opens the file again, prepares, frees and closes, CHURNS times. */
static void *churn(void *argument)
{
    lookups *common = argument;
    int i;
    for (i = 0; i < CHURNS; i++) {
        normcache *other = NC_OPEN(common->path, "{\"durability\": \"fast\"}");
        normcache_op *op = NULL;
        CHECK_OK(normcache_prepare(other, "{ seed { n } }", strlen("{ seed { n } }"), NULL, 0, &op));
        CHECK_OK(normcache_op_free(op));
        CHECK_OK(normcache_close(other));
    }
    atomic_store(&common->churning, 0);
    return NULL;
}

/**
 * A thread's lookup of the handle it looked up last takes no lock while no handle left
 * the table since: callers keep calling through one handle and one operation while
 * another thread's handles and operations come and go (each one leaving the tables
 * sends the callers' next lookups through the lock), and once the two are closed and
 * freed, every caller's next call is EINVAL, however recently it looked them up.
 */
static void test_lookups_while_handles_leave(void)
{
    char path[NC_PATH_SIZE] = {0};
    lookups common = {0};
    pthread_t callers[RACERS];
    pthread_t churner;
    struct timespec pause = {0, 1000 * 1000};
    int i;

    common.path = nc_temp_path(path, "lookups");
    common.cache = NC_OPEN(path, "{\"durability\": \"fast\"}");
    CHECK_PUT(common.cache, "{\"Seed:0000\": {\"n\": 0, \"s\": \"seed-0\"}, "
                            "\"QUERY_ROOT\": {\"seed\": {\"$reference\": \"Seed:0000\"}}}",
              "[\"Seed:0000.n\",\"Seed:0000.s\",\"QUERY_ROOT.seed\"]");
    CHECK_OK(normcache_prepare(common.cache, "{ seed { n } }", strlen("{ seed { n } }"), NULL, 0, &common.op));
    atomic_store(&common.churning, 1);
    for (i = 0; i < RACERS; i++) {
        CHECK(pthread_create(&callers[i], NULL, call_through, &common) == 0);
    }
    CHECK(pthread_create(&churner, NULL, churn, &common) == 0);
    while (atomic_load(&common.churning)) {
        nanosleep(&pause, NULL);
    }
    CHECK(pthread_join(churner, NULL) == 0);
    atomic_store(&common.phase, 1);
    CHECK_OK(normcache_op_free(common.op));
    CHECK_OK(normcache_close(common.cache));
    atomic_store(&common.phase, 2);
    for (i = 0; i < RACERS; i++) {
        CHECK(pthread_join(callers[i], NULL) == 0);
    }
}

int main(void)
{
    test_shared_handle();
    test_close_while_in_use();
    test_lookups_while_handles_leave();
    return 0;
}
