/*
 * test_crash_safety.c — a writer killed with SIGKILL at random moments loses no
 * acknowledged write and leaves no torn record, and the processes that kept the file
 * open meanwhile go on reading and writing.
 *
 * The parent forks a writer child that opens the cache and makes numbered writes, one
 * normcache_put each, and reports each number to the parent through a pipe only after
 * the put returned NORMCACHE_OK. The parent waits a random time, kills the child with
 * SIGKILL, waits for it and drains the pipe: what it read is the acknowledged set. It
 * then opens the cache (it never holds a handle across fork) and checks that
 *
 *  1. every acknowledged write is present, byte for byte;
 *  2. the shared record Log:head names the last write that committed — the highest
 *     acknowledged one, or the one after it when the kill fell between the commit and
 *     the acknowledgement — and is whole, and every write up to it is present and whole
 *     (Log:head and its Entry were written in one put, so they commit together);
 *  3. no Entry beyond Log:head exists, and the cache holds no other records;
 *  4. each Slot record names the last write of its slot;
 *  5. normcache_search over "Entry:" lists exactly the expected keys;
 *
 * then makes the next write itself to show the reopened cache takes writes, closes it
 * and forks the next writer, which goes on from the following number.
 *
 * Write number n (from 1) is one JSON object of three records:
 *
 *   {"Entry:<n, 7 digits>": {"seq": n, "payload": "<text derived from n>"},
 *    "Log:head": {"last": n, "check": <check_value(n)>},
 *    "Slot:<n mod 8>": {"seq": n, "entry": {"$reference": "Entry:<n>"}}}
 *
 * Payloads are mostly a few hundred bytes; every 7th is 16–64 KB and every 31st (from
 * the 3rd) is 200–400 KB. The cache is opened with a 1 MiB map, so the map has to grow
 * within the first writes on each file, and kills land inside large transactions and
 * inside map growth. A new cache file is started every KILLS_PER_FILE kills. The first
 * kill on a file, and a fifth of the others, come 0–3 ms after the fork, inside the
 * creation or opening of the cache; the rest come a random time after the writer's
 * first acknowledgement, among its writes (see pick_kill).
 *
 * Three phases: durability "full", then "fast", then "shared". Under "fast" normcache
 * sets LMDB's MDB_NOMETASYNC (and even MDB_NOSYNC would be the same here): commits skip
 * an fsync, but every committed page has been written to the file (write(2) or the
 * shared map) before the commit returns, so it is in the kernel's page cache, which
 * outlives the process. Only a system crash or power cut could lose it. A SIGKILL
 * therefore loses nothing under "fast" either, and the same invariants are checked in
 * every phase.
 *
 * In the "shared" phase (durability "full") the writers die while other processes have
 * the file open, often inside a write transaction, holding LMDB's write mutex and a
 * reader slot. Two survive each kill:
 *  - the parent keeps one handle on each cache file open from its creation to its last
 *    kill, and verifies and makes its fresh write through that handle;
 *  - a survivor process, started with the file, writes and reads back the record
 *    Survivor:0 ({"seq": k} for k = 1, 2, ...) in a loop throughout, acknowledging each
 *    k to the parent, so that a kill can find it waiting for the write mutex its owner
 *    dies holding. When the parent is done with the file it stops the survivor, which must
 *    have had no failed call, and checks that Survivor:0 holds its last acknowledged k.
 * A survivor's write takes the mutex its dead owner left (LMDB's robust-mutex "owner
 * died" path, which rolls the dead writer's transaction back), its reads see every
 * acknowledged write, and its writes land, as the checks below require.
 *
 * A writer killed after writing its commit's meta page (under "full", during that
 * page's sync) but before publishing the new transaction id in the lock file leaves a
 * commit that readers do not see yet: LMDB's readers take the id from the lock file, so
 * they go on reading the snapshot before it until the next write transaction begins,
 * takes the dead owner's mutex and publishes it. Such a commit was never acknowledged.
 * So that the parent verifies one settled state, after each kill it waits for a write
 * of the survivor that began after the kill (see settle_after_kill).
 *
 * Usage: test_crash_safety [--kills N] [--seed S]
 *   no arguments: the bounded CI run (CI_FULL_KILLS + CI_FAST_KILLS + CI_SHARED_KILLS kills);
 *   --kills N:    N kills in all: 3/7 under "full", 2/7 under "fast", the rest "shared"
 *                 (use N >= 1000 for a long run);
 *   --seed S:     the seed of the PRNG that picks the kill delays (default: from time
 *                 and pid). It is printed first, so a failing run can be repeated with
 *                 the same delays; the moments of the kills still depend on timing.
 */
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>

/** Kills under "full" durability in the CI run. */
#define CI_FULL_KILLS 600
/** Kills under "fast" durability in the CI run. */
#define CI_FAST_KILLS 400
/** Kills in the CI run while the parent holds the file open ("shared"). */
#define CI_SHARED_KILLS 400
/** Kills on one cache file before the harness starts a new one. */
#define KILLS_PER_FILE 25
/** The Slot records each write rotates through. */
#define SLOTS 8

/** Open options of the two phases: a 1 MiB map that has to grow. */
static const char full_options[] = "{\"durability\": \"full\", \"map_size\": 1048576}";
static const char fast_options[] = "{\"durability\": \"fast\", \"map_size\": 1048576}";

/* ---------------------------------------------------------------------------
 * Randomness: a seeded PRNG for the kill delays, a fixed mix for the payloads
 * ------------------------------------------------------------------------- */

/** The state of the kill-delay PRNG (nc_next_random's splitmix64). */
static uint64_t random_state;

/** A random number in [low, high] from the kill-delay PRNG. */
static uint64_t random_between(uint64_t low, uint64_t high)
{
    return low + nc_next_random(&random_state) % (high - low + 1);
}

/* ---------------------------------------------------------------------------
 * The content of write number n, and of the records it leaves
 * ------------------------------------------------------------------------- */

/** The check field of Log:head after write `n`: a 32-bit hash that differs for every n. */
static unsigned long check_value(uint64_t n)
{
    return (unsigned long)(((uint32_t)n * UINT32_C(2654435761)) ^ UINT32_C(0x5bd1e995));
}

/** The number of generated characters in the payload of write `n`. */
static size_t payload_length(uint64_t n)
{
    uint64_t h = nc_mix(n);
    if (n % 31 == 3) {
        return (size_t)(200000 + h % 200000);
    }
    if (n % 7 == 0) {
        return (size_t)(16384 + h % 49152);
    }
    return (size_t)(20 + h % 480);
}

/**
 * Appends the payload of write `n` as JSON string content: an "é" (raw UTF-8, which
 * normcache writes back raw), an escaped tab (written back as \t), the number, and
 * payload_length(n) letters and digits derived from n. The same text serves as input
 * and as the expected compact output.
 */
static void append_payload(nc_text *text, uint64_t n)
{
    static const char alphabet[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    size_t length = payload_length(n);
    uint64_t state = nc_mix(n ^ UINT64_C(0xC0FFEE));
    size_t i;
    char *out;
    nc_appendf(text, "\xc3\xa9\\t%llu:", (unsigned long long)n);
    nc_reserve(text, length);
    out = text->data + text->len;
    for (i = 0; i < length; i++) {
        state = state * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
        out[i] = alphabet[(state >> 33) % (sizeof alphabet - 1)];
    }
    text->len += length;
    text->data[text->len] = '\0';
}

/** Writes the key of Entry `n` ("Entry:" and 7 digits, so byte order is number order). */
static void entry_key(char *out, size_t size, uint64_t n)
{
    snprintf(out, size, "Entry:%07llu", (unsigned long long)n);
}

/** Appends the JSON input of write `n` (replacing what `text` held). */
static void build_write(nc_text *text, uint64_t n)
{
    char key[32];
    entry_key(key, sizeof key, n);
    text->len = 0;
    nc_appendf(text, "{\"%s\": {\"seq\": %llu, \"payload\": \"", key, (unsigned long long)n);
    append_payload(text, n);
    nc_appendf(text,
               "\"}, \"Log:head\": {\"last\": %llu, \"check\": %lu}, "
               "\"Slot:%d\": {\"seq\": %llu, \"entry\": {\"$reference\": \"%s\"}}}",
               (unsigned long long)n, check_value(n), (int)(n % SLOTS),
               (unsigned long long)n, key);
}

/** Appends the exact compact JSON that normcache_get returns for Entry `n`. */
static void build_entry(nc_text *text, uint64_t n)
{
    text->len = 0;
    NC_APPEND_LITERAL(text, "{\"payload\":\"");
    append_payload(text, n);
    nc_appendf(text, "\",\"seq\":%llu}", (unsigned long long)n);
}

/* ---------------------------------------------------------------------------
 * Reading records
 * ------------------------------------------------------------------------- */

/** Fails unless the record `key` is exactly the `expected_len` bytes at `expected`. */
static void check_record(normcache *cache, const char *key, const char *expected,
                         size_t expected_len)
{
    char *out = NULL;
    size_t out_len = 0;
    int status = normcache_get(cache, key, strlen(key), &out, &out_len);
    if (status != NORMCACHE_OK) {
        nc_fail(__FILE__, __LINE__, "normcache_get(%s) returned %d (%s); errmsg: %s", key,
                status, normcache_errstr(status), normcache_errmsg());
    }
    nc_check_bytes(__FILE__, __LINE__, key, out, out_len, expected, expected_len);
    CHECK(out[out_len] == '\0');
    normcache_free(out);
}

/**
 * The `last` of Log:head, after checking that the record is whole ({"check":c,"last":n}
 * with c = check_value(n)); 0 when there is no Log:head yet.
 */
static uint64_t read_head(normcache *cache)
{
    char *out = NULL;
    size_t out_len = 0;
    unsigned long check = 0;
    unsigned long long last = 0;
    char expected[96];
    int status = normcache_get(cache, "Log:head", 8, &out, &out_len);
    if (status == NORMCACHE_NOTFOUND) {
        return 0;
    }
    CHECK_OK(status);
    if (sscanf(out, "{\"check\":%lu,\"last\":%llu}", &check, &last) != 2) {
        nc_fail(__FILE__, __LINE__, "Log:head is torn: %s", out);
    }
    snprintf(expected, sizeof expected, "{\"check\":%lu,\"last\":%llu}", check_value(last),
             last);
    nc_check_bytes(__FILE__, __LINE__, "Log:head", out, out_len, expected, strlen(expected));
    normcache_free(out);
    CHECK(last > 0);
    return (uint64_t)last;
}

/* ---------------------------------------------------------------------------
 * The writer child
 * ------------------------------------------------------------------------- */

/**
 * Child body: opens the cache at `path` with `options`, checks that Log:head is
 * `first` - 1, then makes writes `first`, `first` + 1, ... forever, writing each number
 * to `ack_fd` after its put returned NORMCACHE_OK. Only SIGKILL ends it; a failed
 * check ends it with status 1, which the parent reports.
 */
static void run_writer(const char *path, const char *options, uint64_t first, int ack_fd)
{
    normcache *cache = NC_OPEN(path, options);
    nc_text records = {0};
    uint64_t n;
    CHECK(read_head(cache) == first - 1);
    for (n = first;; n++) {
        build_write(&records, n);
        CHECK_OK(normcache_put(cache, records.data, records.len, NULL, NULL));
        CHECK(write(ack_fd, &n, sizeof n) == (ssize_t)sizeof n);
    }
}

/* ---------------------------------------------------------------------------
 * The parent
 * ------------------------------------------------------------------------- */

/** The state of one phase: its cache file and what the harness knows about it. */
typedef struct phase {
    const char *name;        /**< "full" or "fast" */
    const char *options;     /**< the open options of the phase */
    char path[NC_PATH_SIZE]; /**< the current cache file ("" before the first) */
    uint64_t head;           /**< the last write known committed in that file */
    int kills_in_file;       /**< kills on the current file so far */
    int grown;               /**< whether its map has grown past the initial 1 MiB */
    int shared;              /**< 1: the parent holds the file open throughout */
    normcache *held;         /**< under `shared`: the parent's handle on the file */
    pid_t survivor;          /**< under `shared`: the survivor process of the file */
    int survivor_acks;       /**< the read end of its acknowledgements (non-blocking) */
    int survivor_stop;       /**< the write end of its stop pipe */
    uint64_t survivor_last;  /**< its last acknowledged write */
} phase;

/** Totals over the whole run, for the summary. */
static struct {
    int kills;                   /**< writers killed and verified */
    unsigned long long acked;    /**< acknowledged writes, each verified after its kill */
    unsigned long long verified; /**< Entry records compared byte for byte, all checks */
    int unacknowledged;          /**< kills between a commit and its acknowledgement */
    int before_first_write;      /**< kills before the writer's first acknowledgement */
    int shared_kills;            /**< kills while the parent held the file open */
    unsigned long long survived; /**< writes the survivors made, each acknowledged */
    int files;                   /**< cache files used */
    int grown;                   /**< files whose map grew past the initial 1 MiB */
} totals;

/** What the parent is doing, printed when a check fails. */
static char context[NC_PATH_SIZE + 256];
/** The parent's pid: only the parent prints the context. */
static pid_t parent_pid;
/** The seed of the run, printed with the context. */
static unsigned long long run_seed;

/** atexit handler: after a failure in the parent, says where it happened. */
static void print_context(void)
{
    if (getpid() == parent_pid && context[0] != '\0') {
        fprintf(stderr, "crash safety: failed %s (seed %llu)\n", context, run_seed);
    }
}

/** Removes the cache file at `path` and its lock file. */
static void remove_cache(const char *path)
{
    char lock[NC_PATH_SIZE + 8];
    snprintf(lock, sizeof lock, "%s-lock", path);
    CHECK(unlink(path) == 0 || errno == ENOENT);
    CHECK(unlink(lock) == 0 || errno == ENOENT);
}

/** When the parent kills a writer: how long after which moment. */
typedef struct kill_plan {
    int after_first_ack; /**< 1: the delay starts at the first acknowledgement */
    long delay;          /**< nanoseconds from fork() or from that acknowledgement */
} kill_plan;

/**
 * Picks when to kill the next writer. A forked writer needs a few ms (more on a loaded
 * machine) to open the cache and commit its first write, so delays counted from fork()
 * serve to kill it inside the creation and opening of the cache: always for the first
 * kill on a new file, and for a fifth of the others. The rest are counted from the
 * writer's first acknowledgement, so that they land among its writes whatever the load:
 * at once (inside the second put), after a few writes, or after tens of them, large
 * ones and map growth among them.
 */
static kill_plan pick_kill(const phase *current)
{
    kill_plan plan;
    uint64_t roll = nc_next_random(&random_state) % 100;
    plan.after_first_ack = 0;
    if (current->kills_in_file == 0 || roll < 20) {
        plan.delay = (long)random_between(0, 3000000);
        return plan;
    }
    plan.after_first_ack = 1;
    if (roll < 30) {
        plan.delay = 0;
    } else if (roll < 80) {
        plan.delay = (long)random_between(0, 6000000);
    } else {
        plan.delay = (long)random_between(6000000, 30000000);
    }
    return plan;
}

/** Sleeps `nanoseconds`, going on after signals. */
static void sleep_for(long nanoseconds)
{
    struct timespec left;
    left.tv_sec = nanoseconds / 1000000000L;
    left.tv_nsec = nanoseconds % 1000000000L;
    while (nanosleep(&left, &left) != 0) {
        CHECK(errno == EINTR);
    }
}

/** The longest the parent waits for a writer's first acknowledgement, in ms. */
#define ACK_TIMEOUT_MS 20000

/**
 * Reads one acknowledgement from `fd` into *n; returns 0 at end of file (the writer is
 * dead and everything it wrote was read). With `wait_ms` >= 0, fails when nothing
 * arrives in that many ms (a writer that hangs).
 */
static int read_ack(int fd, uint64_t *n, int wait_ms)
{
    for (;;) {
        ssize_t got;
        if (wait_ms >= 0) {
            struct pollfd ready;
            int polled;
            ready.fd = fd;
            ready.events = POLLIN;
            ready.revents = 0;
            polled = poll(&ready, 1, wait_ms);
            if (polled < 0 && errno == EINTR) {
                continue;
            }
            CHECK(polled >= 0);
            if (polled == 0) {
                nc_fail(__FILE__, __LINE__, "the writer made no write in %d ms", wait_ms);
            }
        }
        got = read(fd, n, sizeof *n);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        CHECK(got >= 0);
        /* writes of at most PIPE_BUF bytes to a pipe are atomic: never half a number */
        CHECK(got == 0 || got == (ssize_t)sizeof *n);
        return got != 0;
    }
}

/** Fails unless the acknowledgement `n` is the one after `last`; returns `n`. */
static uint64_t next_ack(uint64_t n, uint64_t last)
{
    if (n != last + 1) {
        nc_fail(__FILE__, __LINE__, "acknowledgement %llu follows %llu",
                (unsigned long long)n, (unsigned long long)last);
    }
    return n;
}

/**
 * Reads the acknowledgements left in `fd` until end of file, checks that they go on in
 * order from `last`, and returns the last one (`last` when there were none).
 */
static uint64_t drain_acks(int fd, uint64_t last)
{
    uint64_t n = 0;
    while (read_ack(fd, &n, -1)) {
        last = next_ack(n, last);
    }
    return last;
}

/**
 * Checks, through `cache` (a handle on the file of `current`), the invariants listed at
 * the top of this file after a kill, knowing that writes up to `acked` were
 * acknowledged, and sets current->head to the last committed write.
 */
static void verify(normcache *cache, phase *current, uint64_t acked)
{
    nc_text expected = {0};
    nc_text keys = {0};
    char *out = NULL;
    size_t out_len = 0;
    char key[32];
    char count[32];
    uint64_t head = read_head(cache);
    uint64_t n;
    int slot;

    /* 2: the head is the last acknowledged write, or the one whose ack the kill cut */
    if (head != acked && head != acked + 1) {
        nc_fail(__FILE__, __LINE__, "Log:head.last is %llu, but %llu writes were acknowledged",
                (unsigned long long)head, (unsigned long long)acked);
    }
    if (head == acked + 1) {
        totals.unacknowledged++;
    }

    /* 1 and 2: every write up to the head, acknowledged or not, is whole */
    NC_APPEND_LITERAL(&keys, "[");
    for (n = 1; n <= head; n++) {
        entry_key(key, sizeof key, n);
        build_entry(&expected, n);
        check_record(cache, key, expected.data, expected.len);
        nc_appendf(&keys, "%s\"%s\"", n == 1 ? "" : ",", key);
        totals.verified++;
    }
    NC_APPEND_LITERAL(&keys, "]");

    /* 3: nothing beyond the head, and no records but Entry, Log:head, Slot (and the
       survivor's record) */
    entry_key(key, sizeof key, head + 1);
    CHECK_NOTFOUND(cache, key);
    snprintf(count, sizeof count, "%llu",
             (unsigned long long)((head == 0 ? 0 : head + 1 + (head < SLOTS ? head : SLOTS)) +
                                  (current->survivor != 0)));
    CHECK_STAT(cache, "records", count);

    /* 4: each slot names the last write n <= head with n mod SLOTS == slot */
    for (slot = 0; slot < SLOTS; slot++) {
        char slot_key[16];
        uint64_t last = head - (head + SLOTS - (uint64_t)slot) % SLOTS;
        snprintf(slot_key, sizeof slot_key, "Slot:%d", slot);
        if (head < (uint64_t)slot || last == 0) {
            CHECK_NOTFOUND(cache, slot_key);
            continue;
        }
        entry_key(key, sizeof key, last);
        expected.len = 0;
        nc_appendf(&expected, "{\"entry\":{\"$reference\":\"%s\"},\"seq\":%llu}", key,
                   (unsigned long long)last);
        check_record(cache, slot_key, expected.data, expected.len);
    }

    /* 5: the key group lists exactly Entry 1..head */
    CHECK_OK(normcache_search(cache, "Entry:", 6, NULL, 0, 0, &out, &out_len));
    nc_check_bytes(__FILE__, __LINE__, "Entry keys", out, out_len, keys.data, keys.len);
    normcache_free(out);

    free(expected.data);
    free(keys.data);
    current->head = head;
}

/**
 * Makes write current->head + 1 on `cache`, checks the fields it reports changed and
 * reads it back, then advances current->head.
 */
static void check_fresh_write(normcache *cache, phase *current)
{
    uint64_t n = current->head + 1;
    nc_text records = {0};
    nc_text expected = {0};
    char *changed = NULL;
    size_t changed_len = 0;
    char key[32];
    char head[96];
    entry_key(key, sizeof key, n);
    build_write(&records, n);
    CHECK_OK(normcache_put(cache, records.data, records.len, &changed, &changed_len));
    nc_appendf(&expected,
               "[\"%s.seq\",\"%s.payload\",\"Log:head.last\",\"Log:head.check\","
               "\"Slot:%d.seq\",\"Slot:%d.entry\"]",
               key, key, (int)(n % SLOTS), (int)(n % SLOTS));
    nc_check_output(__FILE__, __LINE__, "changed fields", changed, changed_len,
                    expected.data);
    build_entry(&expected, n);
    check_record(cache, key, expected.data, expected.len);
    snprintf(head, sizeof head, "{\"check\":%lu,\"last\":%llu}", check_value(n),
             (unsigned long long)n);
    CHECK_GET(cache, "Log:head", head);
    free(records.data);
    free(expected.data);
    current->head = n;
}

/* ---------------------------------------------------------------------------
 * The survivor of the "shared" phase
 * ------------------------------------------------------------------------- */

/** The longest the parent waits for a survivor to acknowledge or to stop, in ms. */
#define SURVIVOR_TIMEOUT_MS 20000

/**
 * Survivor body: opens the cache at `path` and, until a byte arrives on `stop_fd`,
 * writes {"seq": k} to Survivor:0 for k = 1, 2, ..., reads it back and writes k to
 * `ack_fd`. Any failed call ends it with status 1; a stop, with status 0.
 */
static void run_survivor(const char *path, const char *options, int ack_fd, int stop_fd)
{
    normcache *cache = NC_OPEN(path, options);
    char record[64];
    char expected[32];
    uint64_t k;
    for (k = 1;; k++) {
        struct pollfd stop;
        snprintf(record, sizeof record, "{\"Survivor:0\": {\"seq\": %llu}}", (unsigned long long)k);
        snprintf(expected, sizeof expected, "{\"seq\":%llu}", (unsigned long long)k);
        CHECK_OK(normcache_put(cache, record, strlen(record), NULL, NULL));
        CHECK_GET(cache, "Survivor:0", expected);
        CHECK(write(ack_fd, &k, sizeof k) == (ssize_t)sizeof k);
        stop.fd = stop_fd;
        stop.events = POLLIN;
        stop.revents = 0;
        if (poll(&stop, 1, 0) != 0) {
            break;
        }
    }
    CHECK_OK(normcache_close(cache));
    _exit(0);
}

/**
 * Reads the survivor's acknowledgements that have arrived, checking their order;
 * returns 0 at end of file (the survivor has ended).
 */
static int drain_survivor(phase *current)
{
    for (;;) {
        uint64_t k = 0;
        ssize_t got = read(current->survivor_acks, &k, sizeof k);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0 && errno == EAGAIN) {
            return 1;
        }
        CHECK(got >= 0);
        if (got == 0) {
            return 0;
        }
        CHECK(got == (ssize_t)sizeof k);
        current->survivor_last = next_ack(k, current->survivor_last);
        totals.survived++;
    }
}

/**
 * Waits up to 100 ms for more acknowledgements of the survivor and reads them; returns
 * 0 when the survivor has ended. Fails, saying that the survivor `failing`, once
 * `deadline` (nc_now_seconds) has passed.
 */
static int await_survivor(phase *current, double deadline, const char *failing)
{
    struct pollfd ready;
    ready.fd = current->survivor_acks;
    ready.events = POLLIN;
    ready.revents = 0;
    if (nc_now_seconds() > deadline) {
        nc_fail(__FILE__, __LINE__, "the survivor %s in %d ms", failing, SURVIVOR_TIMEOUT_MS);
    }
    CHECK(poll(&ready, 1, 100) >= 0 || errno == EINTR);
    return drain_survivor(current);
}

/**
 * After a kill, waits until the survivor has acknowledged a write that began after the
 * kill: its write transaction took the write mutex and published whatever the killed
 * writer committed, so the file holds still but for Survivor:0. The acknowledgements
 * read just after the kill end at some L; L + 1 may have been written before the kill,
 * but L + 2 began after the survivor wrote L + 1's acknowledgement, which came after
 * that read.
 */
static void settle_after_kill(phase *current)
{
    uint64_t wanted;
    double deadline = nc_now_seconds() + SURVIVOR_TIMEOUT_MS / 1000.0;
    if (!drain_survivor(current)) {
        nc_fail(__FILE__, __LINE__, "the survivor ended during the kills");
    }
    wanted = current->survivor_last + 2;
    while (current->survivor_last < wanted) {
        if (!await_survivor(current, deadline, "made no write after a kill")) {
            nc_fail(__FILE__, __LINE__, "the survivor ended after a kill");
        }
    }
}

/** Forks the survivor of the file of `current` and waits for its first write. */
static void start_survivor(phase *current)
{
    int acks[2];
    int stop[2];
    uint64_t first = 0;
    CHECK(pipe(acks) == 0);
    CHECK(pipe(stop) == 0);
    fflush(NULL);
    current->survivor = fork();
    CHECK(current->survivor >= 0);
    if (current->survivor == 0) {
        CHECK(close(acks[0]) == 0 && close(stop[1]) == 0);
        run_survivor(current->path, current->options, acks[1], stop[0]);
    }
    CHECK(close(acks[1]) == 0 && close(stop[0]) == 0);
    current->survivor_acks = acks[0];
    current->survivor_stop = stop[1];
    current->survivor_last = 0;
    if (!read_ack(acks[0], &first, SURVIVOR_TIMEOUT_MS)) {
        nc_fail(__FILE__, __LINE__, "the survivor ended before its first write");
    }
    current->survivor_last = next_ack(first, 0);
    totals.survived++;
    CHECK(fcntl(acks[0], F_SETFL, O_NONBLOCK) == 0);
}

/**
 * Stops the survivor of `current`: it must end by itself with status 0 within
 * SURVIVOR_TIMEOUT_MS, having failed no call, and Survivor:0 must hold its last
 * acknowledged write.
 */
static void stop_survivor(phase *current)
{
    char expected[32];
    int status = 0;
    double deadline = nc_now_seconds() + SURVIVOR_TIMEOUT_MS / 1000.0;
    CHECK(write(current->survivor_stop, "s", 1) == 1);
    while (await_survivor(current, deadline, "did not stop")) {
    }
    CHECK(waitpid(current->survivor, &status, 0) == current->survivor);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        nc_fail(__FILE__, __LINE__, "the survivor failed (wait status %d)", status);
    }
    CHECK(close(current->survivor_acks) == 0 && close(current->survivor_stop) == 0);
    current->survivor = 0;
    snprintf(expected, sizeof expected, "{\"seq\":%llu}", (unsigned long long)current->survivor_last);
    CHECK_GET(current->held, "Survivor:0", expected);
}

/**
 * Starts `current` on a new cache file, removing the previous one. The file is not yet
 * created, unless the phase is `shared`: then the parent creates it and holds it open.
 */
static void next_file(phase *current)
{
    if (current->survivor != 0) {
        stop_survivor(current);
    }
    if (current->held != NULL) {
        CHECK_OK(normcache_close(current->held));
        current->held = NULL;
    }
    if (current->path[0] != '\0') {
        remove_cache(current->path);
    }
    nc_temp_path(current->path, current->name);
    if (current->shared) {
        current->held = NC_OPEN(current->path, current->options);
        start_survivor(current);
    }
    current->head = 0;
    current->kills_in_file = 0;
    current->grown = 0;
    totals.files++;
}

/** One round: fork a writer, kill it when planned, verify, write, close. */
static void kill_and_verify(phase *current, int number, int kills)
{
    int fds[2];
    int status = 0;
    pid_t pid;
    uint64_t acked;
    uint64_t first = 0;
    normcache *cache;
    kill_plan plan;

    if (current->kills_in_file == KILLS_PER_FILE) {
        next_file(current);
    }
    plan = pick_kill(current);
    snprintf(context, sizeof context,
             "at kill %d of %d under \"%s\" (%s, kill %d on it, head %llu, "
             "delay %ld ns after %s)",
             number, kills, current->name, current->path, current->kills_in_file + 1,
             (unsigned long long)current->head, plan.delay,
             plan.after_first_ack ? "the first acknowledgement" : "fork");

    CHECK(pipe(fds) == 0);
    fflush(NULL);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        CHECK(close(fds[0]) == 0);
        run_writer(current->path, current->options, current->head + 1, fds[1]);
        _exit(1);
    }
    CHECK(close(fds[1]) == 0);
    acked = current->head;
    /* a writer that fails a check exits: its pipe ends, and waitpid tells */
    if (plan.after_first_ack && read_ack(fds[0], &first, ACK_TIMEOUT_MS)) {
        acked = next_ack(first, acked);
    }
    sleep_for(plan.delay);
    CHECK(kill(pid, SIGKILL) == 0);
    CHECK(waitpid(pid, &status, 0) == pid);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
        nc_fail(__FILE__, __LINE__, "writer %d ended by itself (wait status %d)", (int)pid,
                status);
    }
    acked = drain_acks(fds[0], acked);
    CHECK(close(fds[0]) == 0);

    if (acked == current->head) {
        totals.before_first_write++;
    }
    totals.acked += acked - current->head;
    if (current->survivor != 0) {
        settle_after_kill(current);
    }
    cache = current->held != NULL ? current->held : NC_OPEN(current->path, current->options);
    verify(cache, current, acked);
    check_fresh_write(cache, current);
    if (!current->grown) {
        char map_size[32];
        NC_STAT(cache, "map_size", map_size, sizeof map_size);
        current->grown = strtoull(map_size, NULL, 10) > 1048576;
        totals.grown += current->grown;
    }
    if (cache != current->held) {
        CHECK_OK(normcache_close(cache));
    } else {
        totals.shared_kills++;
    }
    current->kills_in_file++;
    totals.kills++;
}

/**
 * Runs `kills` rounds of kill_and_verify on new files with `options`; `shared`: the
 * parent holds each file open throughout.
 */
static void run_phase(const char *name, const char *options, int shared, int kills)
{
    phase current;
    int number;
    memset(&current, 0, sizeof current);
    current.name = name;
    current.options = options;
    current.shared = shared;
    next_file(&current);
    for (number = 1; number <= kills; number++) {
        kill_and_verify(&current, number, kills);
    }
    if (current.survivor != 0) {
        stop_survivor(&current);
    }
    if (current.held != NULL) {
        CHECK_OK(normcache_close(current.held));
    }
    remove_cache(current.path);
}

/** Parses a decimal number argument; exits with a usage message when it is not one. */
static unsigned long long parse_number(const char *text, const char *option)
{
    char *end = NULL;
    unsigned long long value;
    errno = 0;
    value = strtoull(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0) {
        fprintf(stderr, "test_crash_safety: %s needs a number, not \"%s\"\n", option, text);
        exit(2);
    }
    return value;
}

int main(int argc, char **argv)
{
    int full_kills = CI_FULL_KILLS;
    int fast_kills = CI_FAST_KILLS;
    int shared_kills = CI_SHARED_KILLS;
    double started;
    int i;

    run_seed = nc_mix((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32)) % 1000000000;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--kills") == 0 && i + 1 < argc) {
            unsigned long long kills = parse_number(argv[++i], "--kills");
            if (kills < 7 || kills > 100000000) {
                fprintf(stderr, "test_crash_safety: --kills must be 7..100000000\n");
                return 2;
            }
            full_kills = (int)(kills * 3 / 7);
            fast_kills = (int)(kills * 2 / 7);
            shared_kills = (int)kills - full_kills - fast_kills;
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            run_seed = parse_number(argv[++i], "--seed");
        } else {
            fprintf(stderr, "usage: test_crash_safety [--kills N] [--seed S]\n");
            return 2;
        }
    }
    random_state = run_seed;
    parent_pid = getpid();
    atexit(print_context);
    printf("crash safety: seed %llu, %d kills under \"full\", %d under \"fast\", %d under "
           "\"shared\"\n",
           run_seed, full_kills, fast_kills, shared_kills);

    started = nc_now_seconds();
    run_phase("full", full_options, 0, full_kills);
    run_phase("fast", fast_options, 0, fast_kills);
    run_phase("shared", full_options, 1, shared_kills);
    context[0] = '\0';

    printf("crash safety: %d files (map grown in %d), %d kills before the first "
           "acknowledgement, %d between a commit and its acknowledgement, "
           "%llu entries compared, %.1f s\n",
           totals.files, totals.grown, totals.before_first_write, totals.unacknowledged,
           totals.verified, nc_now_seconds() - started);
    printf("crash safety: %d kills survived (full %d, fast %d, shared %d with %llu "
           "survivor writes), %llu acknowledged writes verified, seed %llu\n",
           totals.kills, full_kills, fast_kills, totals.shared_kills, totals.survived,
           totals.acked, run_seed);
    return 0;
}
