/*
 * test_resources.c — normcache when a resource runs out: a memory map far smaller
 * than the data, a disk (file size limit) that fills in the middle of a write, reader
 * slots all in use, a file or directory the process may not write, and a read-only
 * handle on a cache that another process keeps writing.
 *
 * Links with -llmdb besides the library: reader slots are held from a child process
 * through liblmdb directly, the only way to keep them taken for as long as a check
 * needs (every normcache read is one short transaction).
 */
#include "check.h"
#include "processes.h"

#include <errno.h>
#include <lmdb.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

/* ---------------------------------------------------------------------------
 * Fixtures
 * ------------------------------------------------------------------------- */

/**
 * Fails unless the last error message of this thread is that of a write that ran out
 * of file space on `path`: LMDB reports a write refused outright (EFBIG) as "File too
 * large" and a short write (cut at the limit) as "Input/output error".
 */
static void check_out_of_space_message(const char *path)
{
    const char *message = normcache_errmsg();
    CHECK_CONTAINS(message, "mdb_txn_commit on '");
    CHECK_CONTAINS(message, path);
    if (strstr(message, "' failed: File too large") == NULL) {
        CHECK_CONTAINS(message, "' failed: Input/output error");
    }
}

/** Fails unless the stats of `cache` count exactly `expected` records. */
static void check_record_count(normcache *cache, unsigned long long expected)
{
    unsigned long long got = NC_STAT_NUMBER(cache, "records");
    if (got != expected) {
        nc_fail(__FILE__, __LINE__, "stats count %llu records, expected %llu", got, expected);
    }
}

/* ---------------------------------------------------------------------------
 * Records with sizeable, checkable values
 * ------------------------------------------------------------------------- */

/**
 * Appends to `text` the JSON string value of record `number` of the group `tag`:
 * `size` characters derived from both, so that any two records differ.
 */
static void append_value(nc_text *text, char tag, int number, size_t size)
{
    size_t i;
    nc_reserve(text, size + 2);
    text->data[text->len++] = '"';
    for (i = 0; i < size; i++) {
        text->data[text->len++] = (char)('a' + (unsigned)(number * 7 + (int)i + tag) % 26u);
    }
    text->data[text->len++] = '"';
    text->data[text->len] = '\0';
}

/** Puts the one record `<tag>:<number>` = {"v": value of `size`} and checks its changed keys. */
static void put_numbered(normcache *cache, char tag, int number, size_t size)
{
    nc_text records = {0};
    char changed[64];
    nc_appendf(&records, "{\"%c:%06d\": {\"v\": ", tag, number);
    append_value(&records, tag, number, size);
    NC_APPEND_LITERAL(&records, "}}");
    snprintf(changed, sizeof changed, "[\"%c:%06d.v\"]", tag, number);
    CHECK_PUT(cache, records.data, changed);
    free(records.data);
}

/** Fails unless the record `<tag>:<number>` is exactly what put_numbered wrote. */
static void check_numbered(normcache *cache, char tag, int number, size_t size)
{
    nc_text record = {0};
    char key[32];
    snprintf(key, sizeof key, "%c:%06d", tag, number);
    NC_APPEND_LITERAL(&record, "{\"v\":");
    append_value(&record, tag, number, size);
    NC_APPEND_LITERAL(&record, "}");
    CHECK_GET(cache, key, record.data);
    free(record.data);
}

/* ---------------------------------------------------------------------------
 * Map filling
 * ------------------------------------------------------------------------- */

/** map_size below 1 MiB (64 KiB, 1 MiB - 1) is EINVAL with the minimum in the message. */
static void test_map_size_below_minimum(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache;
    CHECK_OPEN_FAILS(nc_temp_path(path, "map-64k"), "{\"map_size\": 65536}", NORMCACHE_EINVAL);
    CHECK_CONTAINS(normcache_errmsg(),
                   "option 'map_size' must be an integer number of bytes, at least 1048576");
    CHECK(!nc_exists(path));
    CHECK_OPEN_FAILS(nc_temp_path(path, "map-1m-1"), "{\"map_size\": 1048575}", NORMCACHE_EINVAL);
    CHECK(!nc_exists(path));
    cache = NC_OPEN(nc_temp_path(path, "map-1m"), "{\"map_size\": 1048576}");
    CHECK_STAT(cache, "map_size", "1048576");
    CHECK_OK(normcache_close(cache));
}

/** Records of the map-filling test: many small puts, one big put, one wide batch. */
#define SMALL_PUTS 1500
#define SMALL_SIZE 3000
#define BIG_SIZE (6u * 1024u * 1024u)
#define BATCH_RECORDS 400
#define BATCH_SIZE 1000

/** Fails unless every record test_map_fills_and_grows wrote is in `cache`, and no more. */
static void check_map_fill_records(normcache *cache)
{
    int i;
    for (i = 0; i < SMALL_PUTS; i++) {
        check_numbered(cache, 'S', i, SMALL_SIZE);
    }
    check_numbered(cache, 'B', 0, BIG_SIZE);
    for (i = 0; i < BATCH_RECORDS; i++) {
        check_numbered(cache, 'W', i, BATCH_SIZE);
    }
    check_record_count(cache, SMALL_PUTS + 1 + BATCH_RECORDS);
}

/**
 * A 1 MiB map takes about 11 MB: 1500 puts of 3 KB records (a map growth every few
 * hundred), one put of a 6 MiB value, one put of 400 records; every record is whole,
 * then and after a reopen with the same small map_size, which adopts the grown map.
 */
static void test_map_fills_and_grows(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache;
    nc_text batch = {0};
    nc_text changed = {0};
    char *out = NULL;
    size_t out_len = 0;
    unsigned long long map_size;
    int i;

    nc_temp_path(path, "map-fill");
    cache = NC_OPEN(path, "{\"map_size\": 1048576, \"durability\": \"fast\"}");
    for (i = 0; i < SMALL_PUTS; i++) {
        put_numbered(cache, 'S', i, SMALL_SIZE);
    }
    put_numbered(cache, 'B', 0, BIG_SIZE);

    NC_APPEND_LITERAL(&batch, "{");
    NC_APPEND_LITERAL(&changed, "[");
    for (i = 0; i < BATCH_RECORDS; i++) {
        nc_appendf(&batch, "%s\"W:%06d\": {\"v\": ", i == 0 ? "" : ", ", i);
        append_value(&batch, 'W', i, BATCH_SIZE);
        NC_APPEND_LITERAL(&batch, "}");
        nc_appendf(&changed, "%s\"W:%06d.v\"", i == 0 ? "" : ",", i);
    }
    NC_APPEND_LITERAL(&batch, "}");
    NC_APPEND_LITERAL(&changed, "]");
    CHECK_OK(normcache_put(cache, batch.data, batch.len, &out, &out_len));
    CHECK_STR(out, out_len, changed.data);
    normcache_free(out);

    check_map_fill_records(cache);
    map_size = NC_STAT_NUMBER(cache, "map_size");
    CHECK(map_size > (unsigned long long)SMALL_PUTS * SMALL_SIZE + BIG_SIZE);
    CHECK(NC_STAT_NUMBER(cache, "bytes_used") <= map_size);
    CHECK_OK(normcache_close(cache));

    cache = NC_OPEN(path, "{\"map_size\": 1048576}");
    check_map_fill_records(cache);
    CHECK(NC_STAT_NUMBER(cache, "map_size") >= NC_STAT_NUMBER(cache, "bytes_used"));
    CHECK_PUT(cache, "{\"S:000000\": {\"extra\": true}}", "[\"S:000000.extra\"]");
    CHECK_OK(normcache_close(cache));
    free(batch.data);
    free(changed.data);
}

/** The pipes between the parent and the child of the map-growth handshake. */
static int to_child[2];
static int to_parent[2];

/** Records the parent writes in test_map_grows_under_other_handles, 20 KB each. */
#define GROWTH_RECORDS 300
#define GROWTH_SIZE 20000

/**
 * Child body: opens the cache with a 1 MiB map before the parent grows it, then,
 * told to, reads every record the parent wrote into the grown map and writes its own.
 */
static void grown_map_child(const char *path, int number)
{
    normcache *cache;
    int i;
    (void)number;
    CHECK(close(to_parent[0]) == 0 && close(to_child[1]) == 0);
    cache = NC_OPEN(path, "{\"map_size\": 1048576}");
    CHECK_STAT(cache, "map_size", "1048576");
    nc_send_signal(to_parent[1], 'o');
    nc_await_signal(to_child[0], 'g');
    for (i = 0; i < GROWTH_RECORDS; i++) {
        check_numbered(cache, 'G', i, GROWTH_SIZE);
    }
    CHECK(NC_STAT_NUMBER(cache, "map_size") > 1048576u);
    for (i = 0; i < 50; i++) {
        put_numbered(cache, 'C', i, GROWTH_SIZE);
    }
    CHECK_OK(normcache_close(cache));
}

/**
 * A map grown by one process is adopted by another process that had the file open
 * with the old size (for reads and writes), and by a second handle of the same process.
 */
static void test_map_grows_under_other_handles(void)
{
    char path[NC_PATH_SIZE];
    normcache *first;
    normcache *second;
    pid_t child;
    int i;

    nc_temp_path(path, "map-growth");
    first = NC_OPEN(path, "{\"map_size\": 1048576, \"durability\": \"fast\"}");
    second = NC_OPEN(path, NULL);
    CHECK_STAT(second, "map_size", "1048576");
    CHECK(pipe(to_child) == 0 && pipe(to_parent) == 0);
    child = nc_spawn(grown_map_child, path, 0);
    CHECK(close(to_parent[1]) == 0 && close(to_child[0]) == 0);
    nc_await_signal(to_parent[0], 'o');

    for (i = 0; i < GROWTH_RECORDS; i++) {
        put_numbered(first, 'G', i, GROWTH_SIZE);
    }
    CHECK(NC_STAT_NUMBER(second, "map_size") > 1048576u);
    for (i = 0; i < GROWTH_RECORDS; i += 7) {
        check_numbered(second, 'G', i, GROWTH_SIZE);
    }
    nc_send_signal(to_child[1], 'g');
    CHECK_CHILD_PASSED(child);
    CHECK(close(to_parent[0]) == 0 && close(to_child[1]) == 0);

    for (i = 0; i < 50; i++) {
        check_numbered(second, 'C', i, GROWTH_SIZE);
    }
    check_record_count(first, GROWTH_RECORDS + 50);
    CHECK_OK(normcache_close(first));
    CHECK_OK(normcache_close(second));
}

/* ---------------------------------------------------------------------------
 * Disk filling
 * ------------------------------------------------------------------------- */

/** Bytes a disk-filling child may grow its cache file by, and its record size. */
#define FILL_ROOM (256 * 1024)
#define FILL_SIZE 10000
/** Records written before the limit, and the most puts tried after it. */
#define FILL_BEFORE 20
#define FILL_MOST 1000

/** The pipe on which the disk-filling child reports how many records were acknowledged. */
static int fill_report[2];

/**
 * Child body: with the file size limited to its size plus FILL_ROOM (and SIGXFSZ
 * ignored, so writes past it fail with EFBIG), puts records until one fails. The
 * failure is ESTORAGE naming the file (see check_out_of_space_message); everything acknowledged
 * is whole, the failed record absent, and the handle goes on reading. `number` 1
 * runs with durability "fast", 0 with "full". Reports the count of acknowledged records.
 */
static void fill_disk_child(const char *path, int number)
{
    const char *options = number == 1 ? "{\"durability\": \"fast\"}" : "{\"durability\": \"full\"}";
    normcache *cache;
    struct stat info;
    struct rlimit limit;
    nc_text records = {0};
    int acknowledged;
    int code = NORMCACHE_OK;
    int i;

    CHECK(close(fill_report[0]) == 0);
    CHECK(signal(SIGXFSZ, SIG_IGN) != SIG_ERR);
    cache = NC_OPEN(path, options);
    for (i = 0; i < FILL_BEFORE; i++) {
        put_numbered(cache, 'D', i, FILL_SIZE);
    }
    CHECK(stat(path, &info) == 0);
    limit.rlim_cur = (rlim_t)info.st_size + FILL_ROOM;
    limit.rlim_max = (rlim_t)info.st_size + FILL_ROOM;
    CHECK(setrlimit(RLIMIT_FSIZE, &limit) == 0);

    for (acknowledged = FILL_BEFORE; acknowledged < FILL_MOST; acknowledged++) {
        records.len = 0;
        nc_appendf(&records, "{\"D:%06d\": {\"v\": ", acknowledged);
        append_value(&records, 'D', acknowledged, FILL_SIZE);
        NC_APPEND_LITERAL(&records, "}}");
        code = normcache_put(cache, records.data, records.len, NULL, NULL);
        if (code != NORMCACHE_OK) {
            break;
        }
    }
    CHECK_CODE(code, NORMCACHE_ESTORAGE);
    check_out_of_space_message(path);
    CHECK(acknowledged > FILL_BEFORE);

    /* The handle still reads; the failed write left nothing. */
    for (i = 0; i < acknowledged; i++) {
        check_numbered(cache, 'D', i, FILL_SIZE);
    }
    {
        char key[32];
        snprintf(key, sizeof key, "D:%06d", acknowledged);
        CHECK_NOTFOUND(cache, key);
    }
    check_record_count(cache, (unsigned long long)acknowledged);
    /* A write too big to fit fails the same way, and changes nothing either. */
    records.len = 0;
    NC_APPEND_LITERAL(&records, "{\"D:000000\": {\"v\": ");
    append_value(&records, 'X', 0, 2 * FILL_ROOM);
    NC_APPEND_LITERAL(&records, "}}");
    CHECK_CODE(normcache_put(cache, records.data, records.len, NULL, NULL), NORMCACHE_ESTORAGE);
    check_out_of_space_message(path);
    check_numbered(cache, 'D', 0, FILL_SIZE);
    CHECK_SEARCH(cache, "D:00000", NULL, 3, "[\"D:000000\",\"D:000001\",\"D:000002\"]");
    CHECK_OK(normcache_close(cache));
    free(records.data);
    CHECK(write(fill_report[1], &acknowledged, sizeof acknowledged) == (ssize_t)sizeof acknowledged);
}

/**
 * A disk that fills in the middle of writes (durability full, then fast): a clear
 * ESTORAGE, no acknowledged record lost or damaged, in that process and, after it
 * exits, in another that opens the file anew and writes on.
 */
static void test_disk_fills(void)
{
    int number;
    for (number = 0; number < 2; number++) {
        char path[NC_PATH_SIZE];
        normcache *cache;
        int acknowledged = 0;
        pid_t child;
        int i;

        nc_temp_path(path, number == 0 ? "disk-full" : "disk-full-fast");
        CHECK(pipe(fill_report) == 0);
        child = nc_spawn(fill_disk_child, path, number);
        CHECK(close(fill_report[1]) == 0);
        CHECK(read(fill_report[0], &acknowledged, sizeof acknowledged) == (ssize_t)sizeof acknowledged);
        CHECK(close(fill_report[0]) == 0);
        CHECK_CHILD_PASSED(child);

        cache = NC_OPEN(path, NULL);
        check_record_count(cache, (unsigned long long)acknowledged);
        for (i = 0; i < acknowledged; i++) {
            check_numbered(cache, 'D', i, FILL_SIZE);
        }
        put_numbered(cache, 'D', acknowledged, FILL_SIZE);
        check_numbered(cache, 'D', acknowledged, FILL_SIZE);
        CHECK_OK(normcache_close(cache));
    }
}

/* ---------------------------------------------------------------------------
 * Reader slots
 * ------------------------------------------------------------------------- */

/** A child process that holds read transactions (reader slots) of a cache through liblmdb. */
typedef struct slot_holder {
    pid_t pid;   /**< the child */
    int command; /**< write end: one byte releases the slots and ends the child */
    int held;    /**< how many read transactions the child could begin */
    int refused; /**< the LMDB code of the first refused begin, 0 if none was */
} slot_holder;

/**
 * Forks a child that opens the cache at `path` with liblmdb and begins up to `wanted`
 * read transactions (MDB_NOTLS: one reader slot each), keeping them until told to end.
 * Returns once the child has them.
 */
static slot_holder hold_slots(const char *path, int wanted)
{
    slot_holder holder;
    int command[2];
    int report[2];
    int counts[2];
    CHECK(pipe(command) == 0 && pipe(report) == 0);
    fflush(NULL);
    holder.pid = fork();
    CHECK(holder.pid >= 0);
    if (holder.pid == 0) {
        MDB_env *env = NULL;
        MDB_txn *txns[64];
        int held = 0;
        int refused = 0;
        char byte;
        CHECK(wanted <= 64);
        CHECK(close(command[1]) == 0 && close(report[0]) == 0);
        CHECK(mdb_env_create(&env) == 0);
        CHECK(mdb_env_set_maxdbs(env, 4) == 0);
        CHECK(mdb_env_open(env, path, MDB_NOSUBDIR | MDB_RDONLY | MDB_NOTLS, 0644) == 0);
        while (held < wanted) {
            int rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txns[held]);
            if (rc != 0) {
                refused = rc;
                break;
            }
            held++;
        }
        counts[0] = held;
        counts[1] = refused;
        CHECK(write(report[1], counts, sizeof counts) == (ssize_t)sizeof counts);
        if (read(command[0], &byte, 1) != 1) {
            _exit(1);
        }
        while (held > 0) {
            mdb_txn_abort(txns[--held]);
        }
        mdb_env_close(env);
        _exit(0);
    }
    CHECK(close(command[0]) == 0 && close(report[1]) == 0);
    CHECK(read(report[0], counts, sizeof counts) == (ssize_t)sizeof counts);
    CHECK(close(report[0]) == 0);
    holder.command = command[1];
    holder.held = counts[0];
    holder.refused = counts[1];
    return holder;
}

/** Tells a slot holder to release its slots, and waits for it. */
static void release_slots(slot_holder *holder)
{
    nc_send_signal(holder->command, 'r');
    CHECK(close(holder->command) == 0);
    CHECK_CHILD_PASSED(holder->pid);
}

/** Fails unless a slot holder at `path` can take `slots` slots and no more: none leaked. */
static void check_free_slots(const char *path, int slots)
{
    slot_holder holder = hold_slots(path, slots + 1);
    CHECK(holder.held == slots);
    CHECK(holder.refused == MDB_READERS_FULL);
    release_slots(&holder);
}

/** The message of a read refused for want of a reader slot. */
#define SLOTS_FULL "all reader slots are in use (raise max_readers)"

/**
 * Child body: a process opening the cache while every reader slot is taken. A
 * read-only open needs a slot and fails with ESTORAGE; a read-write open needs none
 * (it reads the saved rules in a write transaction), but its reads fail while its
 * writes succeed.
 */
static void open_with_slots_full(const char *path, int number)
{
    normcache *cache;
    char *out = NULL;
    size_t out_len = 0;
    (void)number;
    CHECK_OPEN_FAILS(path, "{\"read_only\": true}", NORMCACHE_ESTORAGE);
    CHECK_ERRMSG(path, "mdb_txn_begin on '");
    CHECK_CONTAINS(normcache_errmsg(), SLOTS_FULL);
    cache = NC_OPEN(path, NULL);
    CHECK_CODE(normcache_get(cache, "R:1", 3, &out, &out_len), NORMCACHE_ESTORAGE);
    CHECK(out == NULL && out_len == 0);
    CHECK_CONTAINS(normcache_errmsg(), SLOTS_FULL);
    CHECK_PUT(cache, "{\"R:child\": {\"x\": 1}}", "[\"R:child.x\"]");
    CHECK_OK(normcache_close(cache));
}

/**
 * With max_readers 2 and both slots held by another process, reads (get, search,
 * stats) fail at once with ESTORAGE and a message that says to raise max_readers —
 * they neither wait nor crash — while writes, which need no slot, go on; once the
 * slots are released, reads work again on the same handle.
 */
static void test_reader_slots_held(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache;
    slot_holder holder;
    char *out = NULL;
    size_t out_len = 0;

    nc_temp_path(path, "slots-held");
    cache = NC_OPEN(path, "{\"max_readers\": 2}");
    CHECK_PUT(cache, "{\"R:1\": {\"x\": 1}}", "[\"R:1.x\"]");
    /* Saved rules, which every later open reads, must not make a read-write open need a slot. */
    CHECK_OK(normcache_configure(cache, "{\"defaultKeyFields\": [\"id\"]}", NORMCACHE_NUL_TERMINATED));
    CHECK_OK(normcache_save_rules(cache));
    holder = hold_slots(path, 3);
    CHECK(holder.held == 2);
    CHECK(holder.refused == MDB_READERS_FULL);

    CHECK_CODE(normcache_get(cache, "R:1", 3, &out, &out_len), NORMCACHE_ESTORAGE);
    CHECK(out == NULL && out_len == 0);
    CHECK_ERRMSG(path, "mdb_txn_begin on '");
    CHECK_CONTAINS(normcache_errmsg(), SLOTS_FULL);
    CHECK_CODE(normcache_search(cache, "", 0, NULL, 0, 0, &out, &out_len), NORMCACHE_ESTORAGE);
    CHECK_CONTAINS(normcache_errmsg(), SLOTS_FULL);
    CHECK_CODE(normcache_stats(cache, &out, &out_len), NORMCACHE_ESTORAGE);
    CHECK_CONTAINS(normcache_errmsg(), SLOTS_FULL);
    CHECK_PUT(cache, "{\"R:2\": {\"x\": 2}}", "[\"R:2.x\"]");
    CHECK_OK(normcache_remove(cache, "R:2", 3));

    CHECK_CHILD_PASSED(nc_spawn(open_with_slots_full, path, 0));

    release_slots(&holder);
    CHECK_GET(cache, "R:1", "{\"x\":1}");
    CHECK_GET(cache, "R:child", "{\"x\":1}");
    CHECK_SEARCH(cache, "R:", NULL, 0, "[\"R:1\",\"R:child\"]");
    CHECK_OK(normcache_close(cache));
}

/** Child body: opens the cache read-only and reads R:1. */
static void open_and_read(const char *path, int number)
{
    normcache *cache = NC_OPEN(path, "{\"read_only\": true}");
    (void)number;
    CHECK_GET(cache, "R:1", "{\"x\":1}");
    CHECK_OK(normcache_close(cache));
}

/**
 * A process that dies holding every reader slot leaves them stale; a handle that was
 * open all along finds every slot taken, releases the dead process's slots
 * (mdb_reader_check) and reads; so does the next process to open the cache, and no
 * slot stays taken.
 */
static void test_stale_reader_slots_released(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache;
    slot_holder holder;
    int status = 0;

    nc_temp_path(path, "slots-stale");
    cache = NC_OPEN(path, "{\"max_readers\": 2}");
    CHECK_PUT(cache, "{\"R:1\": {\"x\": 1}}", "[\"R:1.x\"]");

    holder = hold_slots(path, 2);
    CHECK(holder.held == 2);
    CHECK(kill(holder.pid, SIGKILL) == 0);
    CHECK(waitpid(holder.pid, &status, 0) == holder.pid);
    CHECK(WIFSIGNALED(status));
    CHECK(close(holder.command) == 0);

    CHECK_GET(cache, "R:1", "{\"x\":1}");
    CHECK_CHILD_PASSED(nc_spawn(open_and_read, path, 0));
    check_free_slots(path, 2);
    CHECK_OK(normcache_close(cache));
}

/**
 * A read keeps its reader slot for the next read of its process. With another process
 * holding every other slot, that kept slot still serves this process's reads, and a
 * copy, whose read transaction LMDB begins inside the call, is not refused: the kept
 * transaction is given up for it. Once the holder is gone, every slot is free but the
 * one kept for the next read, and the copy holds the record.
 */
static void test_kept_slot_given_up_when_slots_run_out(void)
{
    char path[NC_PATH_SIZE];
    char copy[NC_PATH_SIZE];
    normcache *cache;
    normcache *copied;
    slot_holder holder;

    nc_temp_path(path, "slots-kept");
    nc_temp_path(copy, "slots-kept-copy");
    cache = NC_OPEN(path, "{\"max_readers\": 32}");
    CHECK_PUT(cache, "{\"R:1\": {\"x\": 1}}", "[\"R:1.x\"]");
    CHECK_GET(cache, "R:1", "{\"x\":1}");

    holder = hold_slots(path, 32);
    CHECK(holder.held == 31);
    CHECK(holder.refused == MDB_READERS_FULL);
    CHECK_GET(cache, "R:1", "{\"x\":1}");
    CHECK_OK(normcache_copy(cache, copy, strlen(copy)));
    CHECK_GET(cache, "R:1", "{\"x\":1}");
    release_slots(&holder);
    /* This process keeps the one slot of its last read; the copy left none taken. */
    check_free_slots(path, 31);
    CHECK_OK(normcache_close(cache));

    copied = NC_OPEN(copy, NULL);
    CHECK_GET(copied, "R:1", "{\"x\":1}");
    CHECK_OK(normcache_close(copied));
}

/** Threads and rounds of the reader-slot storm; the big record makes each read last. */
#define STORM_THREADS 6
#define STORM_ROUNDS 40
#define STORM_SIZE (512 * 1024)

/** What one storm thread did. */
typedef struct storm_thread {
    normcache *cache; /**< the handle it reads with */
    const char *path; /**< the cache path, for its error messages */
    int refused;      /**< reads refused for want of a slot */
    int done;         /**< reads that gave the whole record */
} storm_thread;

/** The record every storm read expects, made once before the threads start. */
static nc_text storm_record;

/**
 * Thread body: reads the big record STORM_ROUNDS times. Each read either gives it
 * exactly or is refused with ESTORAGE and the reader-slot message; nothing else.
 */
static void *storm_reads(void *argument)
{
    storm_thread *self = argument;
    int round;
    for (round = 0; round < STORM_ROUNDS; round++) {
        char *out = NULL;
        size_t out_len = 0;
        int code = normcache_get(self->cache, "Big:1", 5, &out, &out_len);
        if (code == NORMCACHE_OK) {
            CHECK_STR(out, out_len, storm_record.data);
            normcache_free(out);
            self->done++;
        } else {
            CHECK_CODE(code, NORMCACHE_ESTORAGE);
            CHECK(out == NULL && out_len == 0);
            CHECK_ERRMSG(self->path, SLOTS_FULL);
            self->refused++;
        }
    }
    return NULL;
}

/**
 * Child body: a process of the storm, reading with its own handle from several
 * threads. Even-numbered processes open read-only, which takes a reader slot: while
 * the others hold both, the open fails with ESTORAGE and the reader-slot message, and
 * is tried again.
 */
static void storm_process(const char *path, int number)
{
    const char *options = number % 2 == 0 ? "{\"read_only\": true}" : NULL;
    normcache *cache = NULL;
    int code;
    int tries = 0;
    while ((code = normcache_open(path, strlen(path), options,
                                  options == NULL ? 0 : strlen(options), &cache)) != NORMCACHE_OK) {
        CHECK_CODE(code, NORMCACHE_ESTORAGE);
        CHECK(cache == NULL);
        CHECK_ERRMSG(path, SLOTS_FULL);
        CHECK(++tries < 100000);
    }
    storm_thread threads[STORM_THREADS / 2];
    pthread_t ids[STORM_THREADS / 2];
    int i;
    for (i = 0; i < STORM_THREADS / 2; i++) {
        threads[i].cache = cache;
        threads[i].path = path;
        threads[i].refused = 0;
        threads[i].done = 0;
        CHECK(pthread_create(&ids[i], NULL, storm_reads, &threads[i]) == 0);
    }
    for (i = 0; i < STORM_THREADS / 2; i++) {
        CHECK(pthread_join(ids[i], NULL) == 0);
    }
    CHECK_OK(normcache_close(cache));
}

/**
 * max_readers 2 and more readers than slots — threads of one handle, threads of two
 * handles, and three processes: no wait, no crash, each read gives the record whole
 * or ESTORAGE with the reader-slot message, and afterwards no slot is leaked.
 */
static void test_more_readers_than_slots(void)
{
    char path[NC_PATH_SIZE];
    normcache *first;
    normcache *second;
    storm_thread threads[STORM_THREADS];
    pthread_t ids[STORM_THREADS];
    nc_text records = {0};
    pid_t children[3];
    int total_done = 0;
    int i;

    nc_temp_path(path, "slots-storm");
    first = NC_OPEN(path, "{\"max_readers\": 2, \"durability\": \"fast\"}");
    NC_APPEND_LITERAL(&records, "{\"Big:1\": {\"v\": \"");
    nc_append_repeat(&records, 's', STORM_SIZE);
    NC_APPEND_LITERAL(&records, "\"}}");
    CHECK_PUT(first, records.data, "[\"Big:1.v\"]");
    free(records.data);
    storm_record.len = 0;
    NC_APPEND_LITERAL(&storm_record, "{\"v\":\"");
    nc_append_repeat(&storm_record, 's', STORM_SIZE);
    NC_APPEND_LITERAL(&storm_record, "\"}");

    second = NC_OPEN(path, NULL);
    for (i = 0; i < STORM_THREADS; i++) {
        threads[i].cache = i % 2 == 0 ? first : second;
        threads[i].path = path;
        threads[i].refused = 0;
        threads[i].done = 0;
        CHECK(pthread_create(&ids[i], NULL, storm_reads, &threads[i]) == 0);
    }
    for (i = 0; i < STORM_THREADS; i++) {
        CHECK(pthread_join(ids[i], NULL) == 0);
        CHECK(threads[i].done + threads[i].refused == STORM_ROUNDS);
        total_done += threads[i].done;
    }
    CHECK(total_done > 0);
    check_free_slots(path, 2);

    for (i = 0; i < 3; i++) {
        children[i] = nc_spawn(storm_process, path, i);
    }
    for (i = 0; i < 3; i++) {
        CHECK_CHILD_PASSED(children[i]);
    }
    check_free_slots(path, 2);
    CHECK_GET(second, "Big:1", storm_record.data);
    CHECK_OK(normcache_close(first));
    CHECK_OK(normcache_close(second));
    free(storm_record.data);
}

/* ---------------------------------------------------------------------------
 * Files and directories the process may not write
 * ------------------------------------------------------------------------- */

/**
 * Child body, unprivileged: `path` is in a directory the child owns.
 *  - the cache file made read-only (0444): a read-write open is ESTORAGE "Permission
 *    denied", naming the cache file and its mode, and leaves the file as it was; a read-only open reads, and refuses writes
 *    with EREADONLY;
 *  - the directory made read-only (0555): a cache whose lock file exists opens
 *    read-only; one whose lock file is gone (it cannot be created) fails with ESTORAGE
 *    "Permission denied creating its lock file" both ways; a new cache cannot be created
 *    (ESTORAGE "may not create files in its directory", nothing made).
 */
static void unwritable_child(const char *path, int number)
{
    char dir[NC_PATH_SIZE];
    char second[NC_PATH_SIZE + 16];
    char second_lock[NC_PATH_SIZE + 32];
    char fresh[NC_PATH_SIZE + 16];
    normcache *cache;
    unsigned char *before;
    size_t before_len;
    uint64_t count = 9;
    char *slash;
    (void)number;

    nc_drop_privileges();
    snprintf(dir, sizeof dir, "%s", path);
    slash = strrchr(dir, '/');
    CHECK(slash != NULL);
    *slash = '\0';
    snprintf(second, sizeof second, "%s/second.cache", dir);
    snprintf(second_lock, sizeof second_lock, "%s-lock", second);
    snprintf(fresh, sizeof fresh, "%s/fresh.cache", dir);

    cache = NC_OPEN(path, NULL);
    CHECK_PUT(cache, "{\"P:1\": {\"x\": 1}}", "[\"P:1.x\"]");
    CHECK_OK(normcache_close(cache));
    cache = NC_OPEN(second, NULL);
    CHECK_PUT(cache, "{\"Q:1\": {\"x\": 1}}", "[\"Q:1.x\"]");
    CHECK_OK(normcache_close(cache));
    CHECK(unlink(second_lock) == 0);

    /* A read-only file. */
    CHECK(chmod(path, 0444) == 0);
    before = nc_read_file(path, &before_len);
    CHECK_OPEN_FAILS(path, NULL, NORMCACHE_ESTORAGE);
    CHECK_ERRMSG(path, "' for writing: Permission denied: this user may not read and write the cache file (mode 0444");
    CHECK_OPEN_FAILS(path, "{\"durability\": \"fast\"}", NORMCACHE_ESTORAGE);
    CHECK_CONTAINS(normcache_errmsg(), "Permission denied");
    CHECK_FILE_IS(path, before, before_len);

    cache = NC_OPEN(path, "{\"read_only\": true}");
    CHECK_STAT(cache, "read_only", "true");
    CHECK_GET(cache, "P:1", "{\"x\":1}");
    CHECK_SEARCH(cache, "", NULL, 0, "[\"P:1\"]");
    CHECK_CODE(normcache_put(cache, "{\"P:2\": {\"x\": 2}}", 17, NULL, NULL), NORMCACHE_EREADONLY);
    CHECK_ERRMSG(path, "is open read-only");
    CHECK_CODE(normcache_remove(cache, "P:1", 3), NORMCACHE_EREADONLY);
    CHECK_CODE(normcache_remove_prefix(cache, "P:", 2, &count), NORMCACHE_EREADONLY);
    CHECK_CODE(normcache_clear(cache), NORMCACHE_EREADONLY);
    CHECK_OK(normcache_close(cache));
    CHECK_FILE_IS(path, before, before_len);
    free(before);

    /* A read-only directory. */
    CHECK(chmod(dir, 0555) == 0);
    cache = NC_OPEN(path, "{\"read_only\": true}");
    CHECK_GET(cache, "P:1", "{\"x\":1}");
    CHECK_OK(normcache_close(cache));

    before = nc_read_file(second, &before_len);
    CHECK_OPEN_FAILS(second, NULL, NORMCACHE_ESTORAGE);
    CHECK_ERRMSG(second, "' for writing: Permission denied creating its lock file '");
    CHECK_CONTAINS(normcache_errmsg(), second_lock);
    CHECK_OPEN_FAILS(second, "{\"read_only\": true}", NORMCACHE_ESTORAGE);
    CHECK_ERRMSG(second, "' read-only: Permission denied creating its lock file '");
    CHECK_CONTAINS(normcache_errmsg(), "opening the cache once as a user who may creates it");
    CHECK(!nc_exists(second_lock));
    CHECK_FILE_IS(second, before, before_len);
    free(before);

    CHECK_OPEN_FAILS(fresh, NULL, NORMCACHE_ESTORAGE);
    CHECK_ERRMSG(fresh, "': Permission denied: this user may not create files in its directory");
    CHECK(!nc_exists(fresh));
    CHECK(chmod(dir, 0755) == 0);
}

/**
 * A read-only cache file and a read-only directory, seen by an unprivileged process
 * (when the tests run as root, a child drops to uid and gid 65534 first).
 */
static void test_unwritable_file_and_directory(void)
{
    char dir[NC_PATH_SIZE];
    char path[NC_PATH_SIZE + 16];
    snprintf(dir, sizeof dir, "%s/unwritable", nc_temp_dir());
    CHECK(mkdir(dir, 0755) == 0);
    if (geteuid() == 0) {
        CHECK(chmod(nc_temp_dir(), 0711) == 0);
        CHECK(chown(dir, NC_NOBODY, NC_NOBODY) == 0);
    }
    snprintf(path, sizeof path, "%s/locked.cache", dir);
    CHECK_CHILD_PASSED(nc_spawn(unwritable_child, path, 0));
}

/* ---------------------------------------------------------------------------
 * A read-only handle on a cache being written
 * ------------------------------------------------------------------------- */

/** Records the live writer puts, one per put, and their size (they grow the map). */
#define LIVE_RECORDS 300
#define LIVE_SIZE 12000

/** Child body: puts LIVE_RECORDS records one by one, growing the 1 MiB map several times. */
static void live_writer(const char *path, int number)
{
    normcache *cache = NC_OPEN(path, "{\"map_size\": 1048576, \"durability\": \"fast\"}");
    int i;
    (void)number;
    for (i = 0; i < LIVE_RECORDS; i++) {
        put_numbered(cache, 'L', i, LIVE_SIZE);
    }
    CHECK_OK(normcache_close(cache));
}

/**
 * A read-only handle (1 MiB map) follows a writer process: the record count never
 * shrinks, the newest record it can see is whole, no read fails, and at the end it
 * sees everything — across the map growths the writer makes.
 */
static void test_read_only_follows_a_writer(void)
{
    char path[NC_PATH_SIZE];
    normcache *reader;
    pid_t child;
    unsigned long long last = 0;
    int finished = 0;
    int growths_seen = 0;
    unsigned long long map_size = 1048576;
    int i;

    nc_temp_path(path, "live");
    reader = NC_OPEN(path, "{\"map_size\": 1048576}");
    CHECK_PUT(reader, "{\"L:start\": {\"v\": 0}}", "[\"L:start.v\"]");
    CHECK_OK(normcache_close(reader));
    reader = NC_OPEN(path, "{\"read_only\": true, \"map_size\": 1048576}");

    child = nc_spawn(live_writer, path, 0);
    while (!finished) {
        int status = 0;
        pid_t done = waitpid(child, &status, WNOHANG);
        unsigned long long count;
        unsigned long long now_map;
        CHECK(done == 0 || done == child);
        if (done == child) {
            CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
            finished = 1;
        }
        count = NC_STAT_NUMBER(reader, "records");
        CHECK(count >= last && count <= LIVE_RECORDS + 1);
        last = count;
        if (count > 1) {
            check_numbered(reader, 'L', (int)count - 2, LIVE_SIZE);
        }
        now_map = NC_STAT_NUMBER(reader, "map_size");
        if (now_map > map_size) {
            growths_seen++;
            map_size = now_map;
        }
    }
    check_record_count(reader, LIVE_RECORDS + 1);
    for (i = 0; i < LIVE_RECORDS; i++) {
        check_numbered(reader, 'L', i, LIVE_SIZE);
    }
    CHECK(growths_seen > 0);
    CHECK_OK(normcache_close(reader));
}

int main(void)
{
    test_map_size_below_minimum();
    test_map_fills_and_grows();
    test_map_grows_under_other_handles();
    test_disk_fills();
    test_reader_slots_held();
    test_stale_reader_slots_released();
    test_kept_slot_given_up_when_slots_run_out();
    test_more_readers_than_slots();
    test_unwritable_file_and_directory();
    test_read_only_follows_a_writer();
    return 0;
}
