/*
 * test_hostile_files.c — whatever lies at the cache path, normcache answers with a
 * clear status code and message, never a crash, and a failed open leaves the file as
 * it was: real caches cut at many lengths, zero-filled and random files, zeros
 * behind real LMDB meta pages, plain LMDB files that normcache did not make (built
 * here with liblmdb), caches stamped with a format version from the future or with a
 * damaged meta database or damaged saved rules, a directory, and single records whose
 * stored bytes are damaged.
 *
 * Links with -llmdb besides the library.
 */
#include "check.h"
#include "processes.h"

#include <lmdb.h>
#include <sys/stat.h>

/* ---------------------------------------------------------------------------
 * Fixtures
 * ------------------------------------------------------------------------- */

/** The options of a read-only open. */
#define READ_ONLY "{\"read_only\": true}"

/**
 * Fails unless opening the file at `path` fails with `code` and a message with `path`
 * and `reason`, both read-write and read-only, and leaves the file's bytes as they were.
 */
#define CHECK_REFUSED(path, code, reason) \
    check_refused(__FILE__, __LINE__, (path), (code), (reason))

/** Implements CHECK_REFUSED. */
static void check_refused(const char *file, int line, const char *path, int code,
                          const char *reason)
{
    static const char *const options[] = {NULL, READ_ONLY, "{\"durability\": \"fast\"}"};
    size_t before_len;
    unsigned char *before = nc_read_file(path, &before_len);
    size_t i;
    for (i = 0; i < sizeof options / sizeof options[0]; i++) {
        normcache *cache = (normcache *)(void *)&cache;
        int got = normcache_open(path, strlen(path), options[i],
                                 options[i] == NULL ? 0 : strlen(options[i]), &cache);
        if (got != code || cache != NULL) {
            if (got == NORMCACHE_OK) {
                normcache_close(cache);
            }
            nc_fail(file, line, "opening '%s' with %s returned %d (%s), expected %d; errmsg: %s",
                    path, options[i] == NULL ? "no options" : options[i], got,
                    normcache_errstr(got), code, normcache_errmsg());
        }
        if (strstr(normcache_errmsg(), path) == NULL || strstr(normcache_errmsg(), reason) == NULL) {
            nc_fail(file, line, "opening '%s' with %s: errmsg \"%s\" lacks the path or \"%s\"",
                    path, options[i] == NULL ? "no options" : options[i], normcache_errmsg(),
                    reason);
        }
    }
    CHECK_FILE_IS(path, before, before_len);
    free(before);
}

/** Fills `len` bytes with the pseudo-random sequence of `seed` (one byte a number). */
static void fill_random(unsigned char *bytes, size_t len, uint32_t seed)
{
    uint64_t state = seed;
    size_t i;
    for (i = 0; i < len; i++) {
        bytes[i] = (unsigned char)(nc_next_random(&state) >> 56);
    }
}

/** Records of the real caches the tests damage, and their value size. */
#define REAL_RECORDS 2000
#define REAL_SIZE 100

/** The JSON object of record `i` of a real cache, as normcache_get gives it. */
static void real_record(int i, char *out, size_t size)
{
    snprintf(out, size, "{\"n\":%d,\"v\":\"%0*d\"}", i, REAL_SIZE, i);
}

/** Makes at `path` a normcache cache of REAL_RECORDS records "K:<i>" and returns its size. */
static size_t make_real_cache(const char *path)
{
    normcache *cache = NC_OPEN(path, "{\"durability\": \"fast\"}");
    nc_text records = {0};
    struct stat info;
    int i;
    NC_APPEND_LITERAL(&records, "{");
    for (i = 0; i < REAL_RECORDS; i++) {
        nc_appendf(&records, "%s\"K:%05d\": {\"n\": %d, \"v\": \"%0*d\"}", i == 0 ? "" : ", ", i,
                   i, REAL_SIZE, i);
    }
    NC_APPEND_LITERAL(&records, "}");
    CHECK_OK(normcache_put(cache, records.data, records.len, NULL, NULL));
    CHECK_OK(normcache_close(cache));
    free(records.data);
    CHECK(stat(path, &info) == 0);
    return (size_t)info.st_size;
}

/** Fails unless the cache at `path` holds every record make_real_cache wrote. */
static void check_real_cache(const char *path)
{
    normcache *cache = NC_OPEN(path, READ_ONLY);
    char key[16];
    char record[REAL_SIZE + 64];
    int i;
    for (i = 0; i < REAL_RECORDS; i += 97) {
        snprintf(key, sizeof key, "K:%05d", i);
        real_record(i, record, sizeof record);
        CHECK_GET(cache, key, record);
    }
    CHECK_OK(normcache_close(cache));
}

/** The LMDB page size of the file at `path` (from its first meta page), checked sane. */
static size_t lmdb_page_size(const char *path)
{
    MDB_env *env = NULL;
    MDB_stat stat;
    CHECK(mdb_env_create(&env) == 0);
    CHECK(mdb_env_set_maxdbs(env, 4) == 0);
    CHECK(mdb_env_open(env, path, MDB_NOSUBDIR | MDB_RDONLY, 0644) == 0);
    CHECK(mdb_env_stat(env, &stat) == 0);
    mdb_env_close(env);
    CHECK(stat.ms_psize >= 512 && (stat.ms_psize & (stat.ms_psize - 1)) == 0);
    return stat.ms_psize;
}

/* ---------------------------------------------------------------------------
 * Truncated, zero-filled and random files
 * ------------------------------------------------------------------------- */

/**
 * A real cache cut inside its first two pages, before the second meta page's header
 * (1 byte, a page less a byte, a page, a page and a byte), is "not an LMDB file"; cut
 * later (two pages less a byte, two pages, half, a page short) it is
 * "truncated" with both lengths in the message. Each is ENOTCACHE both ways and left
 * unchanged.
 */
static void test_truncated_cache(void)
{
    char whole_path[NC_PATH_SIZE];
    char path[NC_PATH_SIZE];
    char reason[128];
    size_t whole_len;
    unsigned char *whole;
    size_t page;
    size_t cuts[8];
    size_t count = 0;
    size_t i;

    nc_temp_path(whole_path, "whole");
    make_real_cache(whole_path);
    whole = nc_read_file(whole_path, &whole_len);
    page = lmdb_page_size(whole_path);
    CHECK(whole_len > 8 * page);

    cuts[count++] = 1;
    cuts[count++] = page - 1;
    cuts[count++] = page;
    cuts[count++] = page + 1;
    for (i = 0; i < count; i++) {
        nc_temp_path(path, "cut-head");
        nc_write_file(path, whole, cuts[i]);
        CHECK_REFUSED(path, NORMCACHE_ENOTCACHE, "' is not a normcache cache: not an LMDB file");
    }

    count = 0;
    cuts[count++] = 2 * page - 1;
    cuts[count++] = 2 * page;
    cuts[count++] = whole_len / 2;
    cuts[count++] = whole_len - page;
    for (i = 0; i < count; i++) {
        nc_temp_path(path, "cut");
        nc_write_file(path, whole, cuts[i]);
        snprintf(reason, sizeof reason, "' is truncated: %zu bytes, but its pages end at byte ",
                 cuts[i]);
        CHECK_REFUSED(path, NORMCACHE_ENOTCACHE, reason);
    }
    check_real_cache(whole_path);
    free(whole);
}

/**
 * An empty file at the path is a cache not made yet: a read-write open makes a new,
 * empty cache there; a read-only open, which cannot, is ESTORAGE and leaves it empty.
 */
static void test_empty_file(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache;
    struct stat info;

    nc_temp_path(path, "empty");
    nc_write_file(path, NULL, 0);
    CHECK_OPEN_FAILS(path, READ_ONLY, NORMCACHE_ESTORAGE);
    CHECK_ERRMSG(path, "opening the cache on '");
    CHECK(stat(path, &info) == 0 && info.st_size == 0);

    cache = NC_OPEN(path, NULL);
    CHECK_STAT(cache, "records", "0");
    CHECK_STAT(cache, "format_version", "1");
    CHECK_PUT(cache, "{\"A:1\": {\"x\": 1}}", "[\"A:1.x\"]");
    CHECK_OK(normcache_close(cache));
    cache = NC_OPEN(path, READ_ONLY);
    CHECK_GET(cache, "A:1", "{\"x\":1}");
    CHECK_OK(normcache_close(cache));
}

/** Files of zero bytes at many lengths, from 1 byte to 1 MiB, are "not an LMDB file". */
static void test_zero_filled_files(void)
{
    static const size_t sizes[] = {1, 16, 512, 4095, 4096, 8192, 12288, 65536, 1048576};
    unsigned char *zeros = calloc(1048576, 1);
    char path[NC_PATH_SIZE];
    size_t i;
    CHECK(zeros != NULL);
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        nc_temp_path(path, "zeros");
        nc_write_file(path, zeros, sizes[i]);
        CHECK_REFUSED(path, NORMCACHE_ENOTCACHE, "' is not a normcache cache: not an LMDB file");
    }
    free(zeros);
}

/** Fails unless no `<path>-lock` file exists: a refused open leaves nothing beside the file. */
static void check_no_lock_file(const char *path)
{
    char lock[NC_PATH_SIZE + 8];
    struct stat info;
    snprintf(lock, sizeof lock, "%s-lock", path);
    if (stat(lock, &info) == 0) {
        nc_fail(__FILE__, __LINE__, "a refused open left '%s' behind", lock);
    }
}

/** Random bytes of several seeds and lengths are "not an LMDB file", and leave no lock file. */
static void test_random_files(void)
{
    static const size_t sizes[] = {1, 100, 4096, 8192, 65543, 1048576};
    static const uint32_t seeds[] = {1u, 0x9e3779b9u, 20240601u};
    unsigned char *noise = malloc(1048576);
    char path[NC_PATH_SIZE];
    size_t i;
    size_t j;
    CHECK(noise != NULL);
    for (j = 0; j < sizeof seeds / sizeof seeds[0]; j++) {
        for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            fill_random(noise, sizes[i], seeds[j] + (uint32_t)i);
            nc_temp_path(path, "random");
            nc_write_file(path, noise, sizes[i]);
            CHECK_REFUSED(path, NORMCACHE_ENOTCACHE, "' is not a normcache cache: not an LMDB file");
            check_no_lock_file(path);
        }
    }
    free(noise);
}

/**
 * A lock file that was there before a refused open is not the open's to remove (LMDB
 * took it as the lock file of the path, as it would a real one): it stays.
 */
static void test_lock_file_of_another(void)
{
    static const unsigned char text[] = "print('not a cache')\n";
    char path[NC_PATH_SIZE];
    char lock[NC_PATH_SIZE + 8];
    struct stat info;
    nc_temp_path(path, "server.py");
    nc_write_file(path, text, sizeof text - 1);
    snprintf(lock, sizeof lock, "%s-lock", path);
    nc_write_file(lock, (const unsigned char *)"", 0);
    CHECK_REFUSED(path, NORMCACHE_ENOTCACHE, "' is not a normcache cache: not an LMDB file");
    CHECK(stat(lock, &info) == 0);
}

/** Child body of test_valid_meta_pages_then_zeros: the file at `path` is refused. */
static void check_damaged_behind_meta(const char *path, int number)
{
    (void)number;
    CHECK_REFUSED(path, NORMCACHE_ENOTCACHE, "'");
    if (strstr(normcache_errmsg(), "' is damaged: ") == NULL) {
        CHECK_CONTAINS(normcache_errmsg(), "' is not a normcache cache: ");
    }
}

/**
 * A file that begins with the two valid meta pages of a real cache followed by zeros
 * up to the real length (pages that were never written, as a file system without
 * ordered writes can leave them) is ENOTCACHE ("is damaged" or "is not a normcache
 * cache"), never a crash. The open runs in a child process, so that a crash is
 * reported as one.
 *
 * Random bytes in place of LMDB's B-tree pages are not tested: LMDB keeps no page
 * checksums and follows what its pages say, so such a file can crash the reader (see
 * "Damaged files" in normcache.h).
 */
static void test_valid_meta_pages_then_zeros(void)
{
    char whole_path[NC_PATH_SIZE];
    char path[NC_PATH_SIZE];
    size_t whole_len;
    unsigned char *whole;
    size_t page;

    nc_temp_path(whole_path, "meta-source");
    make_real_cache(whole_path);
    whole = nc_read_file(whole_path, &whole_len);
    page = lmdb_page_size(whole_path);
    memset(whole + 2 * page, 0, whole_len - 2 * page);
    nc_temp_path(path, "meta-then-zeros");
    nc_write_file(path, whole, whole_len);
    CHECK_CHILD_PASSED(nc_spawn(check_damaged_behind_meta, path, 0));
    free(whole);
}

/** A directory at the path is ESTORAGE "Is a directory", both ways; it stays empty. */
static void test_directory_at_path(void)
{
    char path[NC_PATH_SIZE];
    char inside[NC_PATH_SIZE + 16];
    struct stat info;
    nc_temp_path(path, "directory");
    CHECK(mkdir(path, 0755) == 0);
    CHECK_OPEN_FAILS(path, NULL, NORMCACHE_ESTORAGE);
    CHECK_ERRMSG(path, "opening the cache on '");
    CHECK_CONTAINS(normcache_errmsg(), "' failed: Is a directory");
    CHECK_OPEN_FAILS(path, READ_ONLY, NORMCACHE_ESTORAGE);
    CHECK_ERRMSG(path, "opening the cache on '");
    CHECK_CONTAINS(normcache_errmsg(), "' failed: Is a directory");
    CHECK(stat(path, &info) == 0 && S_ISDIR(info.st_mode));
    snprintf(inside, sizeof inside, "%s/data.mdb", path);
    CHECK(stat(inside, &info) != 0);
}

/* ---------------------------------------------------------------------------
 * LMDB files that normcache did not make, or made differently
 * ------------------------------------------------------------------------- */

/** An LMDB environment opened on a file with liblmdb directly, and a write transaction. */
typedef struct raw_env {
    MDB_env *env; /**< the environment */
    MDB_txn *txn; /**< its write transaction */
} raw_env;

/** Opens (creating) the LMDB file at `path` with liblmdb and begins a write transaction. */
static raw_env raw_begin(const char *path)
{
    raw_env raw;
    CHECK(mdb_env_create(&raw.env) == 0);
    CHECK(mdb_env_set_maxdbs(raw.env, 8) == 0);
    CHECK(mdb_env_set_mapsize(raw.env, 16u * 1024u * 1024u) == 0);
    CHECK(mdb_env_open(raw.env, path, MDB_NOSUBDIR, 0644) == 0);
    CHECK(mdb_txn_begin(raw.env, NULL, 0, &raw.txn) == 0);
    return raw;
}

/** Opens (creating it with `flags`, MDB_CREATE added) the database `name` (NULL: the main one). */
static MDB_dbi raw_db(raw_env *raw, const char *name, unsigned flags)
{
    MDB_dbi dbi;
    CHECK(mdb_dbi_open(raw->txn, name, flags | MDB_CREATE, &dbi) == 0);
    return dbi;
}

/** Stores `len` bytes `value` under the C string `key`. */
static void raw_put(raw_env *raw, MDB_dbi dbi, const char *key, const void *value, size_t len)
{
    MDB_val k;
    MDB_val v;
    k.mv_size = strlen(key);
    k.mv_data = (void *)key;
    v.mv_size = len;
    v.mv_data = (void *)value;
    CHECK(mdb_put(raw->txn, dbi, &k, &v, 0) == 0);
}

/** Deletes the C string `key`; fails unless it was there. */
static void raw_delete(raw_env *raw, MDB_dbi dbi, const char *key)
{
    MDB_val k;
    k.mv_size = strlen(key);
    k.mv_data = (void *)key;
    CHECK(mdb_del(raw->txn, dbi, &k, NULL) == 0);
}

/** Commits and closes. */
static void raw_end(raw_env *raw)
{
    CHECK(mdb_txn_commit(raw->txn) == 0);
    mdb_env_close(raw->env);
}

/** A 4-byte little-endian format version, as normcache stores it. */
static void version_bytes(uint32_t version, unsigned char out[4])
{
    out[0] = (unsigned char)version;
    out[1] = (unsigned char)(version >> 8);
    out[2] = (unsigned char)(version >> 16);
    out[3] = (unsigned char)(version >> 24);
}

/**
 * Plain LMDB files: keys in the main database; a main-database key named "meta" that
 * is not a database; a named database "records" without "meta". Each is ENOTCACHE with
 * its reason, both ways, and unchanged.
 */
static void test_plain_lmdb_files(void)
{
    char path[NC_PATH_SIZE];
    raw_env raw;
    MDB_dbi main_db;
    MDB_dbi records;

    nc_temp_path(path, "plain-keys");
    raw = raw_begin(path);
    main_db = raw_db(&raw, NULL, 0);
    raw_put(&raw, main_db, "alpha", "1", 1);
    raw_put(&raw, main_db, "beta", "22", 2);
    raw_end(&raw);
    CHECK_REFUSED(path, NORMCACHE_ENOTCACHE,
                  "' is not a normcache cache: an LMDB file without normcache's meta database");

    nc_temp_path(path, "plain-meta-key");
    raw = raw_begin(path);
    main_db = raw_db(&raw, NULL, 0);
    raw_put(&raw, main_db, "meta", "not a database", 14);
    raw_end(&raw);
    CHECK_REFUSED(path, NORMCACHE_ENOTCACHE,
                  "' is not a normcache cache: a database of the file is not what normcache expects");

    nc_temp_path(path, "plain-records-only");
    raw = raw_begin(path);
    records = raw_db(&raw, "records", 0);
    raw_put(&raw, records, "K:1", "\x01\x00", 2);
    raw_end(&raw);
    CHECK_REFUSED(path, NORMCACHE_ENOTCACHE,
                  "' is not a normcache cache: an LMDB file without normcache's meta database");
}

/**
 * An LMDB file with nothing in it: a read-only open is ENOTCACHE ("never stamped");
 * a read-write open stamps it and it becomes an ordinary cache.
 */
static void test_empty_lmdb_file(void)
{
    char path[NC_PATH_SIZE];
    raw_env raw;
    normcache *cache;
    size_t before_len;
    unsigned char *before;

    nc_temp_path(path, "plain-empty");
    raw = raw_begin(path);
    raw_end(&raw);
    before = nc_read_file(path, &before_len);
    CHECK_OPEN_FAILS(path, READ_ONLY, NORMCACHE_ENOTCACHE);
    CHECK_ERRMSG(path, "' is not a normcache cache: an empty LMDB file, never stamped by normcache");
    CHECK_FILE_IS(path, before, before_len);
    free(before);

    cache = NC_OPEN(path, NULL);
    CHECK_STAT(cache, "format_version", "1");
    CHECK_PUT(cache, "{\"A:1\": {\"x\": 1}}", "[\"A:1.x\"]");
    CHECK_OK(normcache_close(cache));
    cache = NC_OPEN(path, READ_ONLY);
    CHECK_GET(cache, "A:1", "{\"x\":1}");
    CHECK_OK(normcache_close(cache));
}

/** How test_damaged_meta changes the meta database of a real cache. */
typedef enum meta_damage {
    VERSION_2,       /**< format version 2 */
    VERSION_MAX,     /**< format version 0xffffffff */
    VERSION_0,       /**< format version 0 */
    VERSION_3_BYTES, /**< a format stamp of 3 bytes */
    VERSION_MISSING, /**< no format stamp */
    SALT_SHORT,      /**< a key salt of 7 bytes */
    SALT_MISSING,    /**< no key salt */
    RECORDS_MISSING, /**< the records database dropped */
    META_DAMAGES     /**< the count */
} meta_damage;

/** The message part each meta_damage gives. */
static const char *const meta_reasons[META_DAMAGES] = {
    "' is not a normcache cache: format version 2 is newer than this library reads (up to 1)",
    "' is not a normcache cache: format version 4294967295 is newer than this library reads (up to 1)",
    "' is not a normcache cache: its format version is 0, which no normcache writes",
    "' is not a normcache cache: its meta database has no valid format version",
    "' is not a normcache cache: its meta database has no valid format version",
    "' is not a normcache cache: its meta database has no valid key salt",
    "' is not a normcache cache: its meta database has no valid key salt",
    "' is not a normcache cache: its records database is missing",
};

/** Applies `damage` to the meta database (or records) of the cache at `path` with liblmdb. */
static void damage_meta(const char *path, meta_damage damage)
{
    raw_env raw = raw_begin(path);
    MDB_dbi meta;
    unsigned char version[4];
    CHECK(mdb_dbi_open(raw.txn, "meta", 0, &meta) == 0);
    switch (damage) {
    case VERSION_2:
    case VERSION_MAX:
    case VERSION_0:
        version_bytes(damage == VERSION_2 ? 2u : (damage == VERSION_MAX ? 0xffffffffu : 0u), version);
        raw_put(&raw, meta, "format", version, 4);
        break;
    case VERSION_3_BYTES:
        version_bytes(1u, version);
        raw_put(&raw, meta, "format", version, 3);
        break;
    case VERSION_MISSING:
        raw_delete(&raw, meta, "format");
        break;
    case SALT_SHORT:
        raw_put(&raw, meta, "key_salt", "1234567", 7);
        break;
    case SALT_MISSING:
        raw_delete(&raw, meta, "key_salt");
        break;
    case RECORDS_MISSING: {
        MDB_dbi records;
        CHECK(mdb_dbi_open(raw.txn, "records", 0, &records) == 0);
        CHECK(mdb_drop(raw.txn, records, 1) == 0);
        break;
    }
    case META_DAMAGES:
        CHECK(!"no such damage");
    }
    raw_end(&raw);
}

/**
 * A real cache whose meta database says it comes from a future format (2, 2^32-1), or
 * from format 0, or has a damaged or missing format stamp or key salt, or has lost its
 * records database: ENOTCACHE with the reason, both ways, and the file unchanged.
 */
static void test_damaged_meta(void)
{
    char path[NC_PATH_SIZE];
    int damage;
    for (damage = 0; damage < META_DAMAGES; damage++) {
        nc_temp_path(path, "meta-damage");
        make_real_cache(path);
        damage_meta(path, (meta_damage)damage);
        CHECK_REFUSED(path, NORMCACHE_ENOTCACHE, meta_reasons[damage]);
    }
}

/**
 * The meta or records database created with flags that change how keys compare or
 * values are stored (DUPSORT, INTEGERKEY, REVERSEKEY) is ENOTCACHE naming the flags.
 */
static void test_database_flags(void)
{
    static const unsigned flags[] = {MDB_DUPSORT, MDB_REVERSEKEY};
    static const char *const hex[] = {"0x4", "0x2"};
    char path[NC_PATH_SIZE];
    char reason[96];
    unsigned char version[4];
    size_t i;
    version_bytes(1u, version);
    for (i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        raw_env raw;
        MDB_dbi meta;

        nc_temp_path(path, "meta-flags");
        raw = raw_begin(path);
        meta = raw_db(&raw, "meta", flags[i]);
        raw_put(&raw, meta, "format", version, 4);
        raw_put(&raw, meta, "key_salt", "12345678", 8);
        raw_db(&raw, "records", 0);
        raw_end(&raw);
        snprintf(reason, sizeof reason, "' is not a normcache cache: its meta database has flags %s",
                 hex[i]);
        CHECK_REFUSED(path, NORMCACHE_ENOTCACHE, reason);

        nc_temp_path(path, "records-flags");
        raw = raw_begin(path);
        meta = raw_db(&raw, "meta", 0);
        raw_put(&raw, meta, "format", version, 4);
        raw_put(&raw, meta, "key_salt", "12345678", 8);
        raw_db(&raw, "records", flags[i]);
        raw_end(&raw);
        snprintf(reason, sizeof reason,
                 "' is not a normcache cache: its records database has flags %s", hex[i]);
        CHECK_REFUSED(path, NORMCACHE_ENOTCACHE, reason);
    }
}

/**
 * A normcache file made by liblmdb alone, with exactly the meta and records databases
 * normcache expects (format 1, an 8-byte salt), is a cache: the check is of the
 * format, not of who wrote it.
 */
static void test_handmade_cache(void)
{
    char path[NC_PATH_SIZE];
    unsigned char version[4];
    raw_env raw;
    MDB_dbi meta;
    normcache *cache;

    nc_temp_path(path, "handmade");
    raw = raw_begin(path);
    meta = raw_db(&raw, "meta", 0);
    version_bytes(1u, version);
    raw_put(&raw, meta, "format", version, 4);
    raw_put(&raw, meta, "key_salt", "12345678", 8);
    raw_db(&raw, "records", 0);
    raw_end(&raw);
    cache = NC_OPEN(path, NULL);
    CHECK_STAT(cache, "records", "0");
    CHECK_PUT(cache, "{\"A:1\": {\"x\": 1}}", "[\"A:1.x\"]");
    CHECK_GET(cache, "A:1", "{\"x\":1}");
    CHECK_OK(normcache_close(cache));
}

/* ---------------------------------------------------------------------------
 * Damaged records
 * ------------------------------------------------------------------------- */

/** Replaces the stored bytes of the LMDB key (`key`, `key_len`) in "records" with `value`. */
static void overwrite_record(const char *path, const void *key, size_t key_len,
                             const void *value, size_t value_len)
{
    raw_env raw = raw_begin(path);
    MDB_dbi records;
    MDB_val k;
    MDB_val v;
    CHECK(mdb_dbi_open(raw.txn, "records", 0, &records) == 0);
    k.mv_size = key_len;
    k.mv_data = (void *)key;
    CHECK(mdb_get(raw.txn, records, &k, &v) == 0);
    v.mv_size = value_len;
    v.mv_data = (void *)value;
    CHECK(mdb_put(raw.txn, records, &k, &v, 0) == 0);
    raw_end(&raw);
}

/** The stored bytes of the LMDB key `key` in "records" of `path`, malloc'ed. */
static unsigned char *stored_record(const char *path, const char *key, size_t *len)
{
    MDB_env *env = NULL;
    MDB_txn *txn = NULL;
    MDB_dbi records;
    MDB_val k;
    MDB_val v;
    unsigned char *copy;
    CHECK(mdb_env_create(&env) == 0);
    CHECK(mdb_env_set_maxdbs(env, 4) == 0);
    CHECK(mdb_env_open(env, path, MDB_NOSUBDIR | MDB_RDONLY, 0644) == 0);
    CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0);
    CHECK(mdb_dbi_open(txn, "records", 0, &records) == 0);
    k.mv_size = strlen(key);
    k.mv_data = (void *)key;
    CHECK(mdb_get(txn, records, &k, &v) == 0);
    copy = malloc(v.mv_size + 1);
    CHECK(copy != NULL);
    memcpy(copy, v.mv_data, v.mv_size);
    *len = v.mv_size;
    mdb_txn_abort(txn);
    mdb_env_close(env);
    return copy;
}

/** The records of a damaged-record cache: a root, the record to damage, a neighbour. */
static const char *const damage_records =
    "{\"QUERY_ROOT\": {\"dog\": {\"$reference\": \"Dog:1\"}},"
    " \"Dog:1\": {\"__typename\": \"Dog\", \"name\": \"Rex\", \"age\": 3, \"tags\": [\"a\", \"b\"]},"
    " \"Dog:2\": {\"name\": \"Fido\"}}";

/** Fails unless `call` (a read) is ENOTCACHE, resets its outputs and names the damaged Dog:1. */
#define CHECK_DAMAGED(call, out, out_len, path)           \
    do {                                                  \
        out = (char *)(void *)&out;                       \
        out_len = 7;                                      \
        CHECK_CODE(call, NORMCACHE_ENOTCACHE);            \
        CHECK(out == NULL && out_len == 0);               \
        CHECK_ERRMSG(path, "record 'Dog:1'");             \
        CHECK_CONTAINS(normcache_errmsg(), "is damaged"); \
    } while (0)

/**
 * The stored bytes of one record replaced with garbage (empty, a wrong format byte,
 * cut in half, cut by one byte, a field count too big, random): get, and a read and
 * read_fragment that select its last field, are ENOTCACHE naming the record; a put that merges into it is
 * ENOTCACHE and writes nothing; search lists it, the other records read as ever, and
 * removing it heals the cache.
 */
static void test_damaged_record(void)
{
    enum {
        EMPTY,
        WRONG_FORMAT,
        HALF,
        ONE_SHORT,
        HUGE_COUNT,
        RANDOM,
        DAMAGES
    };
    char path[NC_PATH_SIZE];
    int damage;
    for (damage = 0; damage < DAMAGES; damage++) {
        normcache *cache;
        normcache_op *op = NULL;
        normcache_op *fragment = NULL;
        unsigned char *good;
        unsigned char garbage[64];
        size_t good_len;
        char *out;
        size_t out_len;
        const char *update = "{\"Dog:1\": {\"name\": \"Max\"}, \"Dog:3\": {\"name\": \"New\"}}";
        const char *query = "{ dog { name tags } }";
        unsigned char *before;
        size_t before_len;
        const char *fragment_text = "fragment D on Dog { name tags }";

        nc_temp_path(path, "damaged-record");
        cache = NC_OPEN(path, NULL);
        CHECK_OK(normcache_put(cache, damage_records, strlen(damage_records), NULL, NULL));
        CHECK_OK(normcache_close(cache));

        good = stored_record(path, "Dog:1", &good_len);
        CHECK(good_len > 8 && good[0] == 1);
        switch (damage) {
        case EMPTY:
            overwrite_record(path, "Dog:1", 5, "", 0);
            break;
        case WRONG_FORMAT:
            good[0] = 2;
            overwrite_record(path, "Dog:1", 5, good, good_len);
            break;
        case HALF:
            overwrite_record(path, "Dog:1", 5, good, good_len / 2);
            break;
        case ONE_SHORT:
            overwrite_record(path, "Dog:1", 5, good, good_len - 1);
            break;
        case HUGE_COUNT:
            garbage[0] = 1;
            memset(garbage + 1, 0xff, 9);
            garbage[10] = 0x01;
            overwrite_record(path, "Dog:1", 5, garbage, 11);
            break;
        default:
            fill_random(garbage, sizeof garbage, 99u);
            garbage[0] = 1;
            overwrite_record(path, "Dog:1", 5, garbage, sizeof garbage);
            break;
        }
        free(good);

        cache = NC_OPEN(path, NULL);
        CHECK_DAMAGED(normcache_get(cache, "Dog:1", 5, &out, &out_len), out, out_len, path);
        CHECK_OK(normcache_prepare(cache, query, strlen(query), NULL, 0, &op));
        CHECK_DAMAGED(normcache_read(cache, op, NULL, 0, 0, &out, &out_len), out, out_len, path);
        CHECK_DAMAGED(normcache_read(cache, op, NULL, 0, NORMCACHE_READ_PARTIAL, &out, &out_len),
                      out, out_len, path);
        CHECK_OK(normcache_prepare(cache, fragment_text, strlen(fragment_text), NULL, 0, &fragment));
        CHECK_DAMAGED(normcache_read_fragment(cache, fragment, "Dog:1", 5, NULL, 0, 0, &out, &out_len),
                      out, out_len, path);

        before = nc_read_file(path, &before_len);
        out = (char *)(void *)&out;
        out_len = 7;
        CHECK_CODE(normcache_put(cache, update, strlen(update), &out, &out_len), NORMCACHE_ENOTCACHE);
        CHECK_FILE_IS(path, before, before_len);
        free(before);
        CHECK(out == NULL && out_len == 0);
        CHECK_CONTAINS(normcache_errmsg(), "record 'Dog:1'");
        CHECK_CONTAINS(normcache_errmsg(), "is damaged");
        CHECK_NOTFOUND(cache, "Dog:3");

        CHECK_GET(cache, "Dog:2", "{\"name\":\"Fido\"}");
        CHECK_GET(cache, "QUERY_ROOT", "{\"dog\":{\"$reference\":\"Dog:1\"}}");
        CHECK_SEARCH(cache, "Dog:", NULL, 0, "[\"Dog:1\",\"Dog:2\"]");
        CHECK_STAT(cache, "records", "3");

        CHECK_OK(normcache_remove(cache, "Dog:1", 5));
        CHECK_NOTFOUND(cache, "Dog:1");
        CHECK_PUT(cache, update, "[\"Dog:1.name\",\"Dog:3.name\"]");
        CHECK_GET(cache, "Dog:1", "{\"name\":\"Max\"}");
        {
            char *data = NULL;
            size_t data_len = 0;
            CHECK_CODE(normcache_read(cache, op, NULL, 0, 0, &data, &data_len), NORMCACHE_MISS);
            nc_check_output(__FILE__, __LINE__, "read", data, data_len,
                            "{\"data\":null,\"missing\":[{\"path\":[\"dog\",\"tags\"],\"reason\":\"absent\","
                            "\"record\":\"Dog:1\",\"field\":\"tags\"}]}");
        }
        CHECK_OK(normcache_op_free(op));
        CHECK_OK(normcache_op_free(fragment));
        CHECK_OK(normcache_close(cache));
    }
}

/** The length of the long record key of test_damaged_long_key (over the 503-byte limit). */
#define LONG_KEY_LEN 600

/**
 * A record key longer than 503 bytes is stored under its first 503 bytes and a hash,
 * with the rest of the key at the front of the value. With that value damaged (an
 * impossible length prefix), get of the key and a search that meets it are ENOTCACHE
 * naming the key's start; a put to the key is ENOTCACHE and writes nothing.
 */
static void test_damaged_long_key(void)
{
    char path[NC_PATH_SIZE];
    char long_key[LONG_KEY_LEN + 1];
    char stored_key[512];
    size_t stored_len = 0;
    nc_text records = {0};
    normcache *cache;
    char *out;
    size_t out_len;
    static const unsigned char garbage[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};

    memset(long_key, 'k', LONG_KEY_LEN);
    memcpy(long_key, "Long:", 5);
    long_key[LONG_KEY_LEN] = '\0';

    nc_temp_path(path, "damaged-long-key");
    cache = NC_OPEN(path, NULL);
    nc_appendf(&records, "{\"%s\": {\"x\": 1}, \"Long:a\": {\"x\": 2}}", long_key);
    CHECK_OK(normcache_put(cache, records.data, records.len, NULL, NULL));
    CHECK_OK(normcache_close(cache));

    {
        MDB_env *env = NULL;
        MDB_txn *txn = NULL;
        MDB_cursor *cursor = NULL;
        MDB_dbi dbi;
        MDB_val k;
        MDB_val v;
        int rc;
        CHECK(mdb_env_create(&env) == 0);
        CHECK(mdb_env_set_maxdbs(env, 4) == 0);
        CHECK(mdb_env_open(env, path, MDB_NOSUBDIR | MDB_RDONLY, 0644) == 0);
        CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0);
        CHECK(mdb_dbi_open(txn, "records", 0, &dbi) == 0);
        CHECK(mdb_cursor_open(txn, dbi, &cursor) == 0);
        for (rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST); rc == 0;
             rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)) {
            if (k.mv_size == 511) {
                memcpy(stored_key, k.mv_data, k.mv_size);
                stored_len = k.mv_size;
            }
        }
        CHECK(rc == MDB_NOTFOUND);
        mdb_cursor_close(cursor);
        mdb_txn_abort(txn);
        mdb_env_close(env);
    }
    CHECK(stored_len == 511);
    CHECK(memcmp(stored_key, long_key, 503) == 0);
    overwrite_record(path, stored_key, stored_len, garbage, sizeof garbage);

    cache = NC_OPEN(path, NULL);
    out = (char *)(void *)&out;
    out_len = 7;
    CHECK_CODE(normcache_get(cache, long_key, LONG_KEY_LEN, &out, &out_len), NORMCACHE_ENOTCACHE);
    CHECK(out == NULL && out_len == 0);
    CHECK_ERRMSG(path, "the record 'Long:kkkkk");
    CHECK_CONTAINS(normcache_errmsg(), "is damaged");
    out = (char *)(void *)&out;
    out_len = 7;
    CHECK_CODE(normcache_search(cache, "Long:", 5, NULL, 0, 0, &out, &out_len), NORMCACHE_ENOTCACHE);
    CHECK(out == NULL && out_len == 0);
    CHECK_ERRMSG(path, "the record 'Long:kkkkk");
    CHECK_CONTAINS(normcache_errmsg(), "is damaged");
    records.len = 0;
    nc_appendf(&records, "{\"%s\": {\"x\": 3}, \"Long:b\": {\"x\": 4}}", long_key);
    CHECK_CODE(normcache_put(cache, records.data, records.len, NULL, NULL), NORMCACHE_ENOTCACHE);
    CHECK_ERRMSG(path, "the record 'Long:kkkkk");
    CHECK_NOTFOUND(cache, "Long:b");
    CHECK_GET(cache, "Long:a", "{\"x\":2}");
    CHECK_SEARCH(cache, "Long:a", NULL, 0, "[\"Long:a\"]");
    CHECK_OK(normcache_close(cache));
    free(records.data);
}

/** The message of an open that finds the saved rules of the cache at `path` damaged. */
static void check_damaged_rules_message(const char *path, const char *reason)
{
    char expected[NC_PATH_SIZE + 256];
    snprintf(expected, sizeof expected,
             "'%s' is damaged: its saved rules %s; open it with the option \"rules\": \"own\" to "
             "clear or replace them",
             path, reason);
    CHECK_ERRMSG_IS(expected);
}

/**
 * Saved rules damaged behind the library's back (cut short, or bytes that do not match
 * their fingerprint) refuse every open that would use them with NORMCACHE_ENOTCACHE;
 * "rules": "own" opens the file, and clearing them repairs it.
 */
static void test_damaged_saved_rules(void)
{
    static const char rules[] = "{\"defaultKeyFields\": [\"id\"]}";
    /* A fingerprint of zeros, then encoding version 1, no schema, no configurations. */
    static const unsigned char mismatched[11] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0};
    char path[NC_PATH_SIZE];
    normcache *cache = NC_OPEN(nc_temp_path(path, "rules"), NULL);
    raw_env raw;
    MDB_dbi meta;
    CHECK_OK(normcache_configure(cache, rules, strlen(rules)));
    CHECK_OK(normcache_save_rules(cache));
    CHECK_OK(normcache_close(cache));

    raw = raw_begin(path);
    CHECK(mdb_dbi_open(raw.txn, "meta", 0, &meta) == 0);
    raw_put(&raw, meta, "rules", "short", 5);
    raw_end(&raw);
    CHECK_OPEN_FAILS(path, NULL, NORMCACHE_ENOTCACHE);
    check_damaged_rules_message(path, "are shorter than a fingerprint");

    raw = raw_begin(path);
    CHECK(mdb_dbi_open(raw.txn, "meta", 0, &meta) == 0);
    raw_put(&raw, meta, "rules", mismatched, sizeof mismatched);
    raw_end(&raw);
    CHECK_OPEN_FAILS(path, "{\"rules\": \"strict\"}", NORMCACHE_ENOTCACHE);
    check_damaged_rules_message(path, "do not match their fingerprint");
    CHECK_OPEN_FAILS(path, READ_ONLY, NORMCACHE_ENOTCACHE);
    check_damaged_rules_message(path, "do not match their fingerprint");

    cache = NC_OPEN(path, "{\"rules\": \"own\"}");
    CHECK_STAT(cache, "rules_fingerprint", "null");
    CHECK_STAT(cache, "saved_rules_fingerprint", "\"0000000000000000\"");
    CHECK_OK(normcache_clear_saved_rules(cache));
    CHECK_OK(normcache_close(cache));
    cache = NC_OPEN(path, NULL);
    CHECK_STAT(cache, "saved_rules_fingerprint", "null");
    CHECK_OK(normcache_close(cache));
}

int main(void)
{
    test_truncated_cache();
    test_empty_file();
    test_zero_filled_files();
    test_random_files();
    test_lock_file_of_another();
    test_directory_at_path();
    test_plain_lmdb_files();
    test_empty_lmdb_file();
    test_damaged_meta();
    test_database_flags();
    test_handmade_cache();
    test_damaged_record();
    test_damaged_long_key();
    test_valid_meta_pages_then_zeros();
    test_damaged_saved_rules();
    return 0;
}
