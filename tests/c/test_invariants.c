/*
 * test_invariants.c — concurrent transfers between accounts, with invariants that
 * span records, so that every read shows whether it saw each write whole or not at
 * all.
 *
 * The cache holds ACCOUNTS records "Account:<i>" {"id", "balance", "seq"}, one record
 * "Ledger:main" with a transfer counter "t<w>" and a checksum "c<w>" for each writer w,
 * and the query root QUERY_ROOT {"accounts": [references], "ledger": reference}.
 * Writer w owns the accounts i with i % WRITERS == w (so that writers, which keep the
 * balances of their accounts in memory, never race each other's read-modify-write);
 * its n-th transfer moves an amount between two of its accounts in ONE normcache_put
 * that also sets both accounts' "seq" to n and the ledger's t<w> to n and c<w> to the
 * checksum of its balances after the transfer.
 *
 * Readers check, in every GraphQL read of `accounts` and `ledger` (one snapshot):
 * the total and each writer's share of it are intact, each checksum matches the
 * balances, no account is ahead of its ledger counter and the last transfer shows on
 * exactly two accounts, and each counter never goes back for that reader. They also
 * get single records, which must be whole and never ahead of a ledger read after them.
 *
 * Part 1: WRITERS writer and THREAD_READERS reader threads share one handle.
 * Part 2: WRITERS writer processes and CHILD_READERS reader processes, each with
 * threads and its own handle opened after fork(), share one file.
 *
 * Usage: test_invariants [--seconds S]; without arguments each part runs
 * DEFAULT_SECONDS (the CI run). A summary line ends the output.
 */
#include "check.h"

#include <pthread.h>
#include <sys/types.h>
#include <sys/wait.h>

/** Accounts in the cache. */
#define ACCOUNTS 16
/** Writers in each part; writer w owns the accounts i with i % WRITERS == w. */
#define WRITERS 2
/** Reader threads of part 1, besides its WRITERS writer threads. */
#define THREAD_READERS 4
/** Reader processes of part 2, besides its WRITERS writer processes. */
#define CHILD_READERS 3
/** Reader threads in a reader process of part 2 (a writer process runs one). */
#define CHILD_READER_THREADS 2
/** Seconds each part runs when no --seconds is given. */
#define DEFAULT_SECONDS 3.0
/** Violations printed in full per process; later ones are only counted. */
#define SHOWN_VIOLATIONS 10
/** The modulus of the checksums. */
#define CHECKSUM_MODULUS 1000000007ULL

/** The GraphQL read of every account and the ledger, in one snapshot. */
static const char snapshot_query[] =
    "query Snapshot { accounts { id balance seq } ledger { t0 c0 t1 c1 } }";
/** snapshot_query names the ledger fields of exactly two writers. */
typedef char snapshot_query_has_every_writer[WRITERS == 2 ? 1 : -1];

/* ---------------------------------------------------------------------------
 * Shared state and counters
 * ------------------------------------------------------------------------- */

/** The counts of one process, updated by its threads under `lock`. */
typedef struct tally {
    pthread_mutex_t lock; /**< guards the counts */
    long long transfers;  /**< acknowledged transfers */
    long long snapshots;  /**< checked GraphQL reads */
    long long gets;       /**< checked single-record gets */
    long long violations; /**< broken invariants seen */
} tally;

/** What every thread of a process needs. */
typedef struct context {
    normcache *cache; /**< the handle all threads of the process share */
    double deadline;  /**< CLOCK_MONOTONIC second at which threads stop */
    tally *counts;    /**< the process's counts */
} context;

/** A writer thread: its number, its acknowledged transfers, its accounts' balances. */
typedef struct writer {
    context *common;              /**< the shared context */
    int number;                   /**< 0..WRITERS-1: which accounts it owns */
    long long transfers;          /**< transfers the cache acknowledged */
    long long balances[ACCOUNTS]; /**< balances of its own accounts (others unused) */
} writer;

/** A reader thread: its number and its random seed. */
typedef struct reader {
    context *common; /**< the shared context */
    int number;      /**< distinguishes its random stream */
} reader;

/** One consistent view of the accounts and the ledger, as a GraphQL read gives it. */
typedef struct snapshot {
    long long balance[ACCOUNTS];  /**< balance of each account */
    long long seq[ACCOUNTS];      /**< transfer number that last touched each account */
    long long transfers[WRITERS]; /**< ledger counter of each writer */
    long long checksum[WRITERS];  /**< ledger checksum of each writer */
} snapshot;

/** What a child process of part 2 reports to the parent through its pipe. */
typedef struct child_report {
    long long transfers;          /**< acknowledged transfers (writers) */
    long long snapshots;          /**< checked GraphQL reads */
    long long gets;               /**< checked gets */
    long long violations;         /**< broken invariants seen */
    long long balances[ACCOUNTS]; /**< final balances of its accounts (writers) */
} child_report;

/** Totals over a whole run, for the summary line. */
typedef struct totals {
    long long transfers;  /**< acknowledged transfers */
    long long snapshots;  /**< checked GraphQL reads */
    long long gets;       /**< checked gets */
    long long violations; /**< broken invariants */
    int failed_children;  /**< children that did not end with status 0 */
} totals;

/** The balance account `i` starts with. */
static long long initial_balance(int i)
{
    return 1000 + 37 * (long long)i;
}

/** The sum of the initial balances of writer `w`'s accounts (every account: w < 0). */
static long long initial_share(int w)
{
    long long sum = 0;
    int i;
    for (i = 0; i < ACCOUNTS; i++) {
        if (w < 0 || i % WRITERS == w) {
            sum += initial_balance(i);
        }
    }
    return sum;
}

/** The checksum of writer `w` after `transfers` transfers left its accounts at `balance`. */
static long long checksum(int w, long long transfers, const long long balance[ACCOUNTS])
{
    unsigned long long sum = (unsigned long long)transfers % CHECKSUM_MODULUS;
    int i;
    for (i = w; i < ACCOUNTS; i += WRITERS) {
        sum = (sum * 1000003ULL + (unsigned long long)balance[i] + 1) % CHECKSUM_MODULUS;
    }
    return (long long)sum;
}

/**
 * Counts a violation in `counts` and prints it (the first SHOWN_VIOLATIONS of the
 * process) with the process id, then the bytes `json` (NULL: none) it was seen in.
 */
static void violation(tally *counts, const char *json, size_t json_len, const char *format, ...)
{
    long long seen;
    va_list args;
    CHECK(pthread_mutex_lock(&counts->lock) == 0);
    seen = ++counts->violations;
    if (seen <= SHOWN_VIOLATIONS) {
        fprintf(stderr, "test_invariants[%d]: violation: ", (int)getpid());
        va_start(args, format);
        vfprintf(stderr, format, args);
        va_end(args);
        if (json != NULL) {
            fputs(" in ", stderr);
            nc_show_bytes(json, json_len);
        }
        fputc('\n', stderr);
    }
    CHECK(pthread_mutex_unlock(&counts->lock) == 0);
}

/** Adds `amount` to the counter `field` of `counts` under its lock. */
static void add_count(tally *counts, long long *field, long long amount)
{
    CHECK(pthread_mutex_lock(&counts->lock) == 0);
    *field += amount;
    CHECK(pthread_mutex_unlock(&counts->lock) == 0);
}

/* ---------------------------------------------------------------------------
 * Parsing the exact JSON the library returns
 * ------------------------------------------------------------------------- */

/** A position in an output buffer; `ok` turns 0 at the first mismatch. */
typedef struct cursor {
    const char *at;  /**< next byte */
    const char *end; /**< end of the buffer */
    int ok;          /**< 1 while everything matched */
} cursor;

/** Consumes the C string `literal`, or marks the cursor failed. */
static void expect(cursor *c, const char *literal)
{
    size_t length = strlen(literal);
    if (c->ok && (size_t)(c->end - c->at) >= length && memcmp(c->at, literal, length) == 0) {
        c->at += length;
    } else {
        c->ok = 0;
    }
}

/** Consumes a non-negative JSON integer of at most 18 digits, or marks the cursor failed. */
static long long number(cursor *c)
{
    long long value = 0;
    int digits = 0;
    const char *start = c->at;
    while (c->ok && c->at < c->end && *c->at >= '0' && *c->at <= '9') {
        if (++digits > 18) {
            c->ok = 0;
            break;
        }
        value = value * 10 + (*c->at - '0');
        c->at++;
    }
    if (digits == 0 || (digits > 1 && *start == '0')) {
        c->ok = 0;
    }
    return value;
}

/**
 * Parses the data of snapshot_query,
 * {"accounts":[{"id":"0","balance":B,"seq":S},...],"ledger":{"t0":T,"c0":C,...}},
 * into `view`. Returns 1 when the bytes are exactly of that shape.
 */
static int parse_snapshot(const char *json, size_t length, snapshot *view)
{
    cursor c;
    char text[48];
    int i;
    c.at = json;
    c.end = json + length;
    c.ok = 1;
    expect(&c, "{\"accounts\":[");
    for (i = 0; i < ACCOUNTS; i++) {
        snprintf(text, sizeof text, "%s{\"id\":\"%d\",\"balance\":", i == 0 ? "" : ",", i);
        expect(&c, text);
        view->balance[i] = number(&c);
        expect(&c, ",\"seq\":");
        view->seq[i] = number(&c);
        expect(&c, "}");
    }
    expect(&c, "],\"ledger\":{");
    for (i = 0; i < WRITERS; i++) {
        snprintf(text, sizeof text, "%s\"t%d\":", i == 0 ? "" : ",", i);
        expect(&c, text);
        view->transfers[i] = number(&c);
        snprintf(text, sizeof text, ",\"c%d\":", i);
        expect(&c, text);
        view->checksum[i] = number(&c);
    }
    expect(&c, "}}");
    return c.ok && c.at == c.end;
}

/**
 * Checks the invariants of one snapshot and that no ledger counter is behind
 * `last_transfers` (then raises those to the snapshot's); counts each broken one.
 */
static void check_snapshot(tally *counts, const snapshot *view, long long last_transfers[WRITERS],
                           const char *json, size_t length)
{
    long long total = 0;
    int i;
    int w;
    for (i = 0; i < ACCOUNTS; i++) {
        total += view->balance[i];
    }
    if (total != initial_share(-1)) {
        violation(counts, json, length, "torn read: total %lld, expected %lld", total,
                  initial_share(-1));
    }
    for (w = 0; w < WRITERS; w++) {
        long long share = 0;
        int at_last = 0;
        for (i = w; i < ACCOUNTS; i += WRITERS) {
            share += view->balance[i];
            if (view->seq[i] > view->transfers[w]) {
                violation(counts, json, length,
                          "torn read: Account:%d has seq %lld, ahead of ledger t%d %lld", i,
                          view->seq[i], w, view->transfers[w]);
            }
            at_last += view->seq[i] == view->transfers[w];
        }
        if (share != initial_share(w)) {
            violation(counts, json, length, "torn read: writer %d's accounts sum to %lld, expected %lld",
                      w, share, initial_share(w));
        }
        if (view->transfers[w] > 0 && at_last != 2) {
            violation(counts, json, length,
                      "torn read: %d accounts of writer %d show its last transfer %lld, expected 2",
                      at_last, w, view->transfers[w]);
        }
        if (view->checksum[w] != checksum(w, view->transfers[w], view->balance)) {
            violation(counts, json, length, "torn read: ledger c%d %lld does not match the balances",
                      w, view->checksum[w]);
        }
        if (view->transfers[w] < last_transfers[w]) {
            violation(counts, json, length, "ledger t%d went back from %lld to %lld", w,
                      last_transfers[w], view->transfers[w]);
        } else {
            last_transfers[w] = view->transfers[w];
        }
    }
}

/** Reads snapshot_query with `op` into `view`, failing on any code but OK; 1 when it parses. */
static int read_snapshot(context *common, normcache_op *op, snapshot *view,
                         long long last_transfers[WRITERS])
{
    char *out = NULL;
    size_t length = 0;
    int parsed;
    CHECK_OK(normcache_read(common->cache, op, NULL, 0, 0, &out, &length));
    CHECK(out != NULL && out[length] == '\0');
    parsed = parse_snapshot(out, length, view);
    if (!parsed) {
        violation(common->counts, out, length, "malformed read");
    } else {
        check_snapshot(common->counts, view, last_transfers, out, length);
    }
    normcache_free(out);
    return parsed;
}

/**
 * Gets Account:<i> and then Ledger:main: each must be whole and exact in shape, the
 * balance within the owner's share, and the ledger (read later) not behind the
 * account's seq nor behind `last_transfers` (which it raises).
 */
static void check_gets(context *common, int i, long long last_transfers[WRITERS])
{
    char key[32];
    char text[48];
    char *out = NULL;
    size_t length = 0;
    long long balance;
    long long seq;
    long long transfers[WRITERS];
    cursor c;
    int w;

    snprintf(key, sizeof key, "Account:%d", i);
    CHECK_OK(normcache_get(common->cache, key, strlen(key), &out, &length));
    CHECK(out != NULL && out[length] == '\0');
    c.at = out;
    c.end = out + length;
    c.ok = 1;
    expect(&c, "{\"balance\":");
    balance = number(&c);
    snprintf(text, sizeof text, ",\"id\":\"%d\",\"seq\":", i);
    expect(&c, text);
    seq = number(&c);
    expect(&c, "}");
    if (!c.ok || c.at != c.end) {
        violation(common->counts, out, length, "malformed get of %s", key);
        normcache_free(out);
        return;
    }
    if (balance > initial_share(i % WRITERS)) {
        violation(common->counts, out, length, "%s has balance %lld, above its owner's share", key,
                  balance);
    }
    normcache_free(out);

    CHECK_OK(normcache_get(common->cache, "Ledger:main", 11, &out, &length));
    CHECK(out != NULL && out[length] == '\0');
    c.at = out;
    c.end = out + length;
    c.ok = 1;
    for (w = 0; w < WRITERS; w++) {
        snprintf(text, sizeof text, "%s\"c%d\":", w == 0 ? "{" : ",", w);
        expect(&c, text);
        (void)number(&c);
    }
    for (w = 0; w < WRITERS; w++) {
        snprintf(text, sizeof text, ",\"t%d\":", w);
        expect(&c, text);
        transfers[w] = number(&c);
    }
    expect(&c, "}");
    if (!c.ok || c.at != c.end) {
        violation(common->counts, out, length, "malformed get of Ledger:main");
        normcache_free(out);
        return;
    }
    if (transfers[i % WRITERS] < seq) {
        violation(common->counts, out, length, "Ledger:main t%d %lld is behind %s seq %lld got before it",
                  i % WRITERS, transfers[i % WRITERS], key, seq);
    }
    for (w = 0; w < WRITERS; w++) {
        if (transfers[w] < last_transfers[w]) {
            violation(common->counts, out, length, "ledger t%d went back from %lld to %lld", w,
                      last_transfers[w], transfers[w]);
        } else {
            last_transfers[w] = transfers[w];
        }
    }
    normcache_free(out);
}

/* ---------------------------------------------------------------------------
 * Threads
 * ------------------------------------------------------------------------- */

/** The records of a new cache: every account at its initial balance, ledger, root. */
static nc_text initial_records(void)
{
    nc_text records = {0};
    long long balance[ACCOUNTS];
    int i;
    NC_APPEND_LITERAL(&records, "{");
    for (i = 0; i < ACCOUNTS; i++) {
        balance[i] = initial_balance(i);
        nc_appendf(&records, "\"Account:%d\": {\"id\": \"%d\", \"balance\": %lld, \"seq\": 0}, ", i, i,
                   balance[i]);
    }
    NC_APPEND_LITERAL(&records, "\"Ledger:main\": {");
    for (i = 0; i < WRITERS; i++) {
        nc_appendf(&records, "%s\"t%d\": 0, \"c%d\": %lld", i == 0 ? "" : ", ", i, i,
                   checksum(i, 0, balance));
    }
    NC_APPEND_LITERAL(&records, "}, \"QUERY_ROOT\": {\"accounts\": [");
    for (i = 0; i < ACCOUNTS; i++) {
        nc_appendf(&records, "%s{\"$reference\": \"Account:%d\"}", i == 0 ? "" : ", ", i);
    }
    NC_APPEND_LITERAL(&records, "], \"ledger\": {\"$reference\": \"Ledger:main\"}}}");
    return records;
}

/**
 * One transfer of writer `self`: moves a random amount between two of its accounts in
 * one put of both accounts and its ledger fields, and checks the changed-field list.
 */
static void transfer(writer *self, uint64_t *random)
{
    const int owned = ACCOUNTS / WRITERS;
    int from;
    int to;
    long long amount;
    long long n = self->transfers + 1;
    long long after[ACCOUNTS];
    char records[256];
    char prefix[192];
    char suffix[32];
    char *changed = NULL;
    size_t changed_len = 0;
    size_t prefix_len;
    int w = self->number;

    do {
        from = w + WRITERS * (int)(nc_next_random(random) % (uint64_t)owned);
        to = w + WRITERS * (int)(nc_next_random(random) % (uint64_t)(owned - 1));
        if (to >= from) {
            to += WRITERS;
        }
        if (self->balances[from] == 0) {
            int swap = from;
            from = to;
            to = swap;
        }
    } while (self->balances[from] == 0);
    amount = 1 + (long long)(nc_next_random(random) % (uint64_t)self->balances[from]);
    memcpy(after, self->balances, sizeof after);
    after[from] -= amount;
    after[to] += amount;
    snprintf(records, sizeof records,
             "{\"Account:%d\": {\"balance\": %lld, \"seq\": %lld}, "
             "\"Account:%d\": {\"balance\": %lld, \"seq\": %lld}, "
             "\"Ledger:main\": {\"t%d\": %lld, \"c%d\": %lld}}",
             from, after[from], n, to, after[to], n, w, n, w, checksum(w, n, after));
    CHECK_OK(normcache_put(self->common->cache, records, strlen(records), &changed, &changed_len));
    memcpy(self->balances, after, sizeof after);
    self->transfers = n;
    add_count(self->common->counts, &self->common->counts->transfers, 1);

    /* The checksum may happen to repeat, so its field is changed or not. */
    prefix_len = (size_t)snprintf(prefix, sizeof prefix,
                                  "[\"Account:%d.balance\",\"Account:%d.seq\",\"Account:%d.balance\","
                                  "\"Account:%d.seq\",\"Ledger:main.t%d\"",
                                  from, from, to, to, w);
    snprintf(suffix, sizeof suffix, ",\"Ledger:main.c%d\"]", w);
    if (changed_len != strlen(changed) || changed_len < prefix_len ||
        memcmp(changed, prefix, prefix_len) != 0 ||
        (strcmp(changed + prefix_len, "]") != 0 && strcmp(changed + prefix_len, suffix) != 0)) {
        violation(self->common->counts, changed, changed_len, "unexpected changed fields for %s",
                  records);
    }
    normcache_free(changed);
}

/** Writer thread: transfers until the deadline (at least once). */
static void *run_writer(void *argument)
{
    writer *self = argument;
    uint64_t random = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)getpid() << 16) ^ (uint64_t)(self->number + 1);
    do {
        transfer(self, &random);
    } while (nc_now_seconds() < self->common->deadline);
    return NULL;
}

/** Reader thread: alternates snapshot reads and get pairs until the deadline (at least once). */
static void *run_reader(void *argument)
{
    reader *self = argument;
    context *common = self->common;
    uint64_t random = 0xD1B54A32D192ED03ULL ^ ((uint64_t)getpid() << 20) ^ (uint64_t)(self->number + 1);
    long long last_transfers[WRITERS] = {0};
    normcache_op *op = NULL;
    snapshot view;
    long long snapshots = 0;
    long long gets = 0;

    CHECK_OK(normcache_prepare(common->cache, snapshot_query, strlen(snapshot_query), NULL, 0, &op));
    do {
        read_snapshot(common, op, &view, last_transfers);
        snapshots++;
        check_gets(common, (int)(nc_next_random(&random) % ACCOUNTS), last_transfers);
        gets += 2;
    } while (nc_now_seconds() < common->deadline);
    CHECK_OK(normcache_op_free(op));
    add_count(common->counts, &common->counts->snapshots, snapshots);
    add_count(common->counts, &common->counts->gets, gets);
    return NULL;
}

/** Sets up `self` as writer `number` of `common` with the initial balances. */
static void init_writer(writer *self, context *common, int number)
{
    int i;
    self->common = common;
    self->number = number;
    self->transfers = 0;
    for (i = 0; i < ACCOUNTS; i++) {
        self->balances[i] = initial_balance(i);
    }
}

/**
 * Runs `writers` writers (numbers first_writer..) and `readers` readers on `common`
 * in threads until its deadline, and joins them; writer results land in `out_writers`.
 */
static void run_threads(context *common, writer *out_writers, int first_writer, int writers,
                        int readers)
{
    pthread_t threads[WRITERS + THREAD_READERS];
    reader reader_args[THREAD_READERS];
    int i;
    CHECK(writers + readers <= WRITERS + THREAD_READERS && readers <= THREAD_READERS);
    for (i = 0; i < writers; i++) {
        init_writer(&out_writers[i], common, first_writer + i);
        CHECK(pthread_create(&threads[i], NULL, run_writer, &out_writers[i]) == 0);
    }
    for (i = 0; i < readers; i++) {
        reader_args[i].common = common;
        reader_args[i].number = i;
        CHECK(pthread_create(&threads[writers + i], NULL, run_reader, &reader_args[i]) == 0);
    }
    for (i = 0; i < writers + readers; i++) {
        CHECK(pthread_join(threads[i], NULL) == 0);
    }
}

/**
 * Fails unless the cache holds exactly the end state of the writers: each ledger
 * counter equals `transfers[w]`, every balance equals `balances[w][i]` of its owner,
 * and the snapshot's invariants hold; the record count is unchanged.
 */
static void check_final_state(normcache *cache, const long long transfers[WRITERS],
                              long long balances[WRITERS][ACCOUNTS])
{
    tally counts;
    context common;
    long long last_transfers[WRITERS] = {0};
    normcache_op *op = NULL;
    snapshot view;
    char records[16];
    int i;
    int w;

    memset(&counts, 0, sizeof counts);
    CHECK(pthread_mutex_init(&counts.lock, NULL) == 0);
    common.cache = cache;
    common.deadline = 0;
    common.counts = &counts;
    CHECK_OK(normcache_prepare(cache, snapshot_query, strlen(snapshot_query), NULL, 0, &op));
    CHECK(read_snapshot(&common, op, &view, last_transfers));
    CHECK(counts.violations == 0);
    for (w = 0; w < WRITERS; w++) {
        if (view.transfers[w] != transfers[w]) {
            nc_fail(__FILE__, __LINE__, "ledger t%d is %lld, but writer %d had %lld transfers acknowledged",
                    w, view.transfers[w], w, transfers[w]);
        }
    }
    for (i = 0; i < ACCOUNTS; i++) {
        if (view.balance[i] != balances[i % WRITERS][i]) {
            nc_fail(__FILE__, __LINE__, "Account:%d has balance %lld, its writer left %lld", i,
                    view.balance[i], balances[i % WRITERS][i]);
        }
    }
    CHECK_OK(normcache_op_free(op));
    snprintf(records, sizeof records, "%d", ACCOUNTS + 2);
    CHECK_STAT(cache, "records", records);
    CHECK(pthread_mutex_destroy(&counts.lock) == 0);
}

/** Part 1: WRITERS writer and THREAD_READERS reader threads share one handle. */
static void test_threads_share_a_handle(double seconds, totals *sum)
{
    tally counts;
    context common;
    writer writers[WRITERS];
    long long transfers[WRITERS];
    long long balances[WRITERS][ACCOUNTS];
    long long acknowledged = 0;
    nc_text records = initial_records();
    int w;

    memset(&counts, 0, sizeof counts);
    CHECK(pthread_mutex_init(&counts.lock, NULL) == 0);
    common.cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    common.counts = &counts;
    CHECK_OK(normcache_put(common.cache, records.data, records.len, NULL, NULL));
    free(records.data);

    common.deadline = nc_now_seconds() + seconds;
    run_threads(&common, writers, 0, WRITERS, THREAD_READERS);

    for (w = 0; w < WRITERS; w++) {
        transfers[w] = writers[w].transfers;
        acknowledged += transfers[w];
        memcpy(balances[w], writers[w].balances, sizeof balances[w]);
    }
    check_final_state(common.cache, transfers, balances);
    CHECK_OK(normcache_close(common.cache));
    CHECK(counts.transfers == acknowledged);
    sum->transfers += counts.transfers;
    sum->snapshots += counts.snapshots;
    sum->gets += counts.gets;
    sum->violations += counts.violations;
    CHECK(pthread_mutex_destroy(&counts.lock) == 0);
}

/* ---------------------------------------------------------------------------
 * Processes
 * ------------------------------------------------------------------------- */

/** A child process of part 2: its pid and the read end of its report pipe. */
typedef struct child {
    pid_t pid;     /**< the process */
    int report_fd; /**< read end of the pipe it writes its child_report to */
    int writer;    /**< its writer number, or -1 for a reader process */
} child;

/**
 * Child body: opens the cache at `path` with `options` (its own handle, after fork),
 * runs one writer thread numbered `writer_number` and one reader thread (a writer
 * process, writer_number >= 0) or CHILD_READER_THREADS reader threads (writer_number
 * < 0) until `deadline`, writes its report to `fd`, and returns the exit status:
 * 0, or 2 when it saw a violation.
 */
static int child_main(const char *path, const char *options, int writer_number, double deadline,
                      int fd)
{
    tally counts;
    context common;
    writer self[1];
    child_report report;
    int status;

    memset(&counts, 0, sizeof counts);
    memset(&report, 0, sizeof report);
    CHECK(pthread_mutex_init(&counts.lock, NULL) == 0);
    common.cache = NC_OPEN(path, options);
    common.deadline = deadline;
    common.counts = &counts;
    if (writer_number >= 0) {
        run_threads(&common, self, writer_number, 1, 1);
        report.transfers = self[0].transfers;
        memcpy(report.balances, self[0].balances, sizeof report.balances);
        CHECK(counts.transfers == self[0].transfers);
    } else {
        run_threads(&common, self, 0, 0, CHILD_READER_THREADS);
    }
    CHECK_OK(normcache_close(common.cache));
    report.snapshots = counts.snapshots;
    report.gets = counts.gets;
    report.violations = counts.violations;
    CHECK(write(fd, &report, sizeof report) == (ssize_t)sizeof report);
    CHECK(close(fd) == 0);
    status = counts.violations == 0 ? 0 : 2;
    if (status != 0) {
        fprintf(stderr, "test_invariants[%d]: %s process saw %lld violations\n", (int)getpid(),
                writer_number >= 0 ? "writer" : "reader", counts.violations);
    }
    CHECK(pthread_mutex_destroy(&counts.lock) == 0);
    return status;
}

/** Forks a child that runs child_main with these arguments; returns it with its pipe. */
static child spawn_child(const char *path, const char *options, int writer_number, double deadline)
{
    child spawned;
    int pipe_fds[2];
    CHECK(pipe(pipe_fds) == 0);
    fflush(NULL);
    spawned.pid = fork();
    CHECK(spawned.pid >= 0);
    if (spawned.pid == 0) {
        CHECK(close(pipe_fds[0]) == 0);
        _exit(child_main(path, options, writer_number, deadline, pipe_fds[1]));
    }
    CHECK(close(pipe_fds[1]) == 0);
    spawned.report_fd = pipe_fds[0];
    spawned.writer = writer_number;
    return spawned;
}

/**
 * Reads the report of `spawned` and waits for it. Returns 1 when it ended with status
 * 0 and reported in full; otherwise prints why and returns 0.
 */
static int collect_child(const child *spawned, child_report *report)
{
    size_t got = 0;
    int status = 0;
    memset(report, 0, sizeof *report);
    while (got < sizeof *report) {
        ssize_t n = read(spawned->report_fd, (char *)report + got, sizeof *report - got);
        if (n <= 0) {
            break;
        }
        got += (size_t)n;
    }
    CHECK(close(spawned->report_fd) == 0);
    CHECK(waitpid(spawned->pid, &status, 0) == spawned->pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got != sizeof *report) {
        fprintf(stderr, "test_invariants: %s process %d failed (wait status %d, report %zu of %zu bytes)\n",
                spawned->writer >= 0 ? "writer" : "reader", (int)spawned->pid, status, got,
                sizeof *report);
        return 0;
    }
    return 1;
}

/**
 * Part 2: WRITERS writer processes and CHILD_READERS reader processes share one file;
 * then the parent checks every child and the end state against the writers' reports.
 * Writer 1 commits with full durability, reader 0 opens the file read-only.
 */
static void test_processes_share_a_file(double seconds, totals *sum)
{
    char path[NC_PATH_SIZE];
    child children[WRITERS + CHILD_READERS];
    long long transfers[WRITERS] = {0};
    long long balances[WRITERS][ACCOUNTS];
    normcache *cache;
    nc_text records = initial_records();
    double deadline;
    int i;

    nc_temp_path(path, "invariants");
    cache = NC_OPEN(path, "{\"durability\": \"fast\"}");
    CHECK_OK(normcache_put(cache, records.data, records.len, NULL, NULL));
    free(records.data);
    CHECK_OK(normcache_close(cache));

    deadline = nc_now_seconds() + seconds;
    for (i = 0; i < WRITERS; i++) {
        children[i] = spawn_child(path, i == 1 ? NULL : "{\"durability\": \"fast\"}", i, deadline);
    }
    for (i = 0; i < CHILD_READERS; i++) {
        children[WRITERS + i] = spawn_child(path, i == 0 ? "{\"read_only\": true}" : NULL, -1, deadline);
    }
    for (i = 0; i < WRITERS + CHILD_READERS; i++) {
        child_report report;
        if (!collect_child(&children[i], &report)) {
            sum->failed_children++;
        }
        if (children[i].writer >= 0) {
            transfers[children[i].writer] = report.transfers;
            memcpy(balances[children[i].writer], report.balances, sizeof balances[0]);
        }
        sum->transfers += report.transfers;
        sum->snapshots += report.snapshots;
        sum->gets += report.gets;
        sum->violations += report.violations;
    }
    if (sum->failed_children > 0) {
        return;
    }
    cache = NC_OPEN(path, NULL);
    check_final_state(cache, transfers, balances);
    CHECK_OK(normcache_close(cache));
}

/** Parses the command line: nothing, or --seconds S (S > 0). Exits 2 on anything else. */
static double parse_seconds(int argc, char **argv)
{
    char *end = NULL;
    double seconds;
    if (argc == 1) {
        return DEFAULT_SECONDS;
    }
    if (argc == 3 && strcmp(argv[1], "--seconds") == 0) {
        seconds = strtod(argv[2], &end);
        if (end != argv[2] && *end == '\0' && seconds > 0 && seconds <= 86400) {
            return seconds;
        }
    }
    fprintf(stderr, "usage: %s [--seconds S]\n", argv[0]);
    exit(2);
}

/** Runs both parts, prints the summary line; fails on any violation or failed child. */
int main(int argc, char **argv)
{
    double seconds = parse_seconds(argc, argv);
    totals sum;
    memset(&sum, 0, sizeof sum);
    test_threads_share_a_handle(seconds, &sum);
    test_processes_share_a_file(seconds, &sum);
    printf("invariants: %d threads %.1f s, %d processes %.1f s: %lld transfers, "
           "%lld checked reads (%lld snapshots, %lld gets), %lld violations\n",
           WRITERS + THREAD_READERS, seconds, WRITERS + CHILD_READERS, seconds, sum.transfers,
           sum.snapshots + sum.gets, sum.snapshots, sum.gets, sum.violations);
    fflush(stdout);
    if (sum.violations != 0 || sum.failed_children != 0) {
        fprintf(stderr, "test_invariants: %lld violations, %d failed processes\n", sum.violations,
                sum.failed_children);
        return 1;
    }
    return 0;
}
