/*
 * test_dead_readers.c — a reader process that dies inside a read must not pin the
 * file: a writer that stays open releases its reader slot by itself, so the pages
 * freed after its snapshot are reused and the file does not grow. The reader is a
 * process reading a 30 MB record through liblmdb itself, held inside its read
 * transaction until it is killed with SIGKILL; while it lives, normcache_stats shows its
 * slot and how many commits its snapshot is behind.
 */
#include "check.h"
#include "processes.h"

#include <lmdb.h>
#include <signal.h>
#include <sys/stat.h>

/** The records each rewrite puts again, the rewrites, and the size of the big record. */
#define RECORDS 1000
#define REWRITES 600
#define BIG_SIZE (30 * 1000 * 1000)

/** The most the file may grow with the dead reader beyond its growth without one. */
#define GROWTH_SLACK (4 * 1024 * 1024)

/** The size of the file at `path` in bytes. */
static long long file_size(const char *path)
{
    struct stat info;
    CHECK(stat(path, &info) == 0);
    return (long long)info.st_size;
}

/** Puts the RECORDS records of round `round`: every record changes. */
static void put_round(normcache *cache, int round)
{
    nc_text records = {0};
    int i;
    NC_APPEND_LITERAL(&records, "{");
    for (i = 0; i < RECORDS; i++) {
        nc_appendf(&records, "%s\"R:%d\": {\"round\": %d, \"text\": \"", i == 0 ? "" : ",", i, round);
        nc_append_repeat(&records, 'a' + (char)(round % 26), 100);
        NC_APPEND_LITERAL(&records, "\"}");
    }
    NC_APPEND_LITERAL(&records, "}");
    CHECK_OK(normcache_put(cache, records.data, records.len, NULL, NULL));
    free(records.data);
}

/** Puts the record Big:1 of about BIG_SIZE bytes. */
static void put_big_record(normcache *cache)
{
    nc_text big = {0};
    NC_APPEND_LITERAL(&big, "{\"Big:1\": {\"text\": \"");
    nc_append_repeat(&big, 'b', BIG_SIZE);
    NC_APPEND_LITERAL(&big, "\"}}");
    CHECK_OK(normcache_put(cache, big.data, big.len, NULL, NULL));
    free(big.data);
}

/**
 * Child body: opens the file with liblmdb, begins a read, reads every page of Big:1,
 * reports 'r' on the pipe end `ready` and stays inside the read until it is killed.
 */
static void reader_inside_read(const char *path, int ready)
{
    MDB_env *env = NULL;
    MDB_txn *txn = NULL;
    MDB_dbi records;
    MDB_val key = {5, (void *)"Big:1"};
    MDB_val value;
    unsigned long sum = 0;
    size_t i;
    CHECK(mdb_env_create(&env) == 0);
    CHECK(mdb_env_set_maxdbs(env, 4) == 0);
    CHECK(mdb_env_open(env, path, MDB_NOSUBDIR | MDB_RDONLY | MDB_NOTLS, 0600) == 0);
    CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0);
    CHECK(mdb_dbi_open(txn, "records", 0, &records) == 0);
    CHECK(mdb_get(txn, records, &key, &value) == 0);
    CHECK(value.mv_size > BIG_SIZE);
    for (i = 0; i < value.mv_size; i += 4096) {
        sum += ((const unsigned char *)value.mv_data)[i];
    }
    CHECK(sum > 0);
    nc_send_signal(ready, 'r');
    for (;;) {
        pause();
    }
}

/**
 * Opens a new cache with the big record and round 0; with `dead_reader`, a reader
 * process enters a read of the big record, is seen in the stats while three commits
 * land, and is killed with SIGKILL. Then, the writer open throughout, REWRITES rewrites
 * of every record; returns how many bytes the file grew by during them.
 */
static long long growth_of_rewrites(const char *name, int dead_reader)
{
    char path[NC_PATH_SIZE];
    normcache *cache = NC_OPEN(nc_temp_path(path, name), NULL);
    long long before;
    int round;
    put_big_record(cache);
    put_round(cache, 0);
    if (dead_reader) {
        int ready[2];
        pid_t reader;
        int status = 0;
        CHECK(pipe(ready) == 0);
        reader = nc_spawn(reader_inside_read, path, ready[1]);
        CHECK(close(ready[1]) == 0);
        nc_await_signal(ready[0], 'r');
        CHECK(close(ready[0]) == 0);
        CHECK_STAT(cache, "readers", "1");
        CHECK_STAT(cache, "oldest_reader_lag", "0");
        for (round = 1; round <= 3; round++) {
            put_round(cache, 0 - round);
        }
        CHECK_STAT(cache, "readers", "1");
        CHECK_STAT(cache, "oldest_reader_lag", "3");
        CHECK(kill(reader, SIGKILL) == 0);
        CHECK(waitpid(reader, &status, 0) == reader);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    }
    before = file_size(path);
    for (round = 1; round <= REWRITES; round++) {
        put_round(cache, round);
    }
    CHECK_STAT(cache, "readers", "0");
    CHECK_STAT(cache, "oldest_reader_lag", "0");
    CHECK_OK(normcache_close(cache));
    return file_size(path) - before;
}

/** The file grows by about as much with a reader killed inside a read as without one. */
static void test_dead_reader_does_not_pin_the_file(void)
{
    long long without = growth_of_rewrites("no-reader", 0);
    long long with = growth_of_rewrites("dead-reader", 1);
    printf("test_dead_readers: %d rewrites of %d records grew the file %.1f MB without a reader, "
           "%.1f MB after a reader was killed inside a read of a 30 MB record\n",
           REWRITES, RECORDS, (double)without / 1e6, (double)with / 1e6);
    CHECK(with <= without + GROWTH_SLACK);
}

int main(void)
{
    test_dead_reader_does_not_pin_the_file();
    return 0;
}
