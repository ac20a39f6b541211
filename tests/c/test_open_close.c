/*
 * test_open_close.c — normcache_open with its defaults and options, the files it
 * makes, the ways it fails, and normcache_close with closed handles.
 */
#include "check.h"

#include <sys/stat.h>

/** A non-NULL handle value that no open returns, to see out-parameters reset. */
static int sentinel_storage;
#define SENTINEL ((normcache *)(void *)&sentinel_storage)

/** A new cache with no options: the data file, its lock file and the default stats. */
static void test_defaults(void)
{
    char path[NC_PATH_SIZE];
    char lock_path[NC_PATH_SIZE + 8];
    struct stat info;
    normcache *cache;
    unsigned long long page_size;

    nc_temp_path(path, "defaults");
    umask(022);
    cache = NC_OPEN(path, NULL);
    CHECK(cache != NULL);

    CHECK(stat(path, &info) == 0);
    CHECK(S_ISREG(info.st_mode));
    CHECK((info.st_mode & 0777) == 0600);
    snprintf(lock_path, sizeof lock_path, "%s-lock", path);
    CHECK(stat(lock_path, &info) == 0);
    CHECK((info.st_mode & 0777) == 0600);

    CHECK_STAT(cache, "records", "0");
    CHECK_STAT(cache, "read_only", "false");
    CHECK_STAT(cache, "durability", "\"full\"");
    CHECK_STAT(cache, "map_size", "67108864");
    CHECK_STAT(cache, "library_version", "\"" NORMCACHE_VERSION "\"");
    CHECK(NC_STAT_NUMBER(cache, "format_version") >= 1);
    CHECK(NC_STAT_NUMBER(cache, "bytes_used") > 0);
    page_size = NC_STAT_NUMBER(cache, "page_size");
    CHECK(page_size >= 512 && (page_size & (page_size - 1)) == 0);
    CHECK_OK(normcache_close(cache));
}

/** NULL/0, an empty non-NULL range and {} all mean the defaults. */
static void test_empty_options_are_defaults(void)
{
    static const char *const empty_options[] = {"", "{}", " { } "};
    size_t i;
    for (i = 0; i < sizeof empty_options / sizeof empty_options[0]; i++) {
        normcache *cache = NC_OPEN_FRESH(empty_options[i]);
        CHECK_STAT(cache, "durability", "\"full\"");
        CHECK_STAT(cache, "read_only", "false");
        CHECK_OK(normcache_close(cache));
    }
}

/** The path is exactly (pointer, length): bytes after the length are not part of it. */
static void test_path_is_a_byte_range(void)
{
    char path[NC_PATH_SIZE];
    char longer[NC_PATH_SIZE + 8];
    normcache *cache = NULL;

    nc_temp_path(path, "range");
    snprintf(longer, sizeof longer, "%sXYZ", path);
    CHECK_OK(normcache_open(longer, strlen(path), NULL, 0, &cache));
    CHECK(nc_exists(path));
    CHECK(!nc_exists(longer));
    CHECK_OK(normcache_close(cache));
}

/** Records written before a close are there after the next open. */
static void test_reopen_keeps_records(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache;

    nc_temp_path(path, "reopen");
    cache = NC_OPEN(path, NULL);
    CHECK_PUT(cache, "{\"Dog:1\": {\"name\": \"Rex\"}}", "[\"Dog:1.name\"]");
    CHECK_OK(normcache_close(cache));

    cache = NC_OPEN(path, NULL);
    CHECK_GET(cache, "Dog:1", "{\"name\":\"Rex\"}");
    CHECK_STAT(cache, "records", "1");
    CHECK_OK(normcache_close(cache));
}

/** "durability" selects "fast" or "full", and stats report it. */
static void test_durability_option(void)
{
    normcache *fast = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    normcache *full = NC_OPEN_FRESH("{\"durability\": \"full\"}");
    CHECK_STAT(fast, "durability", "\"fast\"");
    CHECK_STAT(full, "durability", "\"full\"");
    CHECK_PUT(fast, "{\"A:1\": {\"x\": 1}}", "[\"A:1.x\"]");
    CHECK_PUT(full, "{\"A:1\": {\"x\": 1}}", "[\"A:1.x\"]");
    CHECK_OK(normcache_close(fast));
    CHECK_OK(normcache_close(full));
}

/** A read-only handle reads what is there and refuses every write with EREADONLY. */
static void test_read_only_option(void)
{
    char path[NC_PATH_SIZE];
    normcache *writer;
    normcache *reader;
    const char *new_record = "{\"Dog:2\": {\"name\": \"Fido\"}}";
    uint64_t count = 7;

    nc_temp_path(path, "read-only");
    writer = NC_OPEN(path, NULL);
    CHECK_PUT(writer, "{\"Dog:1\": {\"name\": \"Rex\"}}", "[\"Dog:1.name\"]");
    CHECK_OK(normcache_close(writer));

    reader = NC_OPEN(path, "{\"read_only\": true}");
    CHECK_STAT(reader, "read_only", "true");
    CHECK_GET(reader, "Dog:1", "{\"name\":\"Rex\"}");
    CHECK_SEARCH(reader, "", NULL, 0, "[\"Dog:1\"]");
    CHECK_CODE(normcache_put(reader, new_record, strlen(new_record), NULL, NULL),
               NORMCACHE_EREADONLY);
    CHECK_CODE(normcache_remove(reader, "Dog:1", 5), NORMCACHE_EREADONLY);
    CHECK_CODE(normcache_remove_prefix(reader, "Dog:", 4, &count), NORMCACHE_EREADONLY);
    CHECK_CODE(normcache_clear(reader), NORMCACHE_EREADONLY);
    CHECK_GET(reader, "Dog:1", "{\"name\":\"Rex\"}");
    CHECK_NOTFOUND(reader, "Dog:2");
    CHECK_OK(normcache_close(reader));

    reader = NC_OPEN(path, "{\"read_only\": false}");
    CHECK_STAT(reader, "read_only", "false");
    CHECK_OK(normcache_close(reader));
}

/** A read-only open needs an existing file, and does not create one. */
static void test_read_only_needs_the_file(void)
{
    char path[NC_PATH_SIZE];
    nc_temp_path(path, "read-only-missing");
    CHECK_OPEN_FAILS(path, "{\"read_only\": true}", NORMCACHE_ESTORAGE);
    CHECK(!nc_exists(path));
}

/** "map_size" sets the first map size, and the map grows past it when it fills. */
static void test_map_size_option(void)
{
    const size_t value_size = 3u * 1024u * 1024u;
    normcache *cache = NC_OPEN_FRESH("{\"map_size\": 1048576}");
    nc_text records = {0};
    nc_text record = {0};

    CHECK_STAT(cache, "map_size", "1048576");
    NC_APPEND_LITERAL(&records, "{\"Big:1\": {\"v\": \"");
    nc_append_repeat(&records, 'm', value_size);
    NC_APPEND_LITERAL(&records, "\"}}");
    CHECK_PUT(cache, records.data, "[\"Big:1.v\"]");

    NC_APPEND_LITERAL(&record, "{\"v\":\"");
    nc_append_repeat(&record, 'm', value_size);
    NC_APPEND_LITERAL(&record, "\"}");
    CHECK_GET(cache, "Big:1", record.data);

    CHECK(NC_STAT_NUMBER(cache, "map_size") > value_size);
    CHECK_OK(normcache_close(cache));
    free(records.data);
    free(record.data);
}

/** "max_readers" within 1..65535 is accepted and the cache works. */
static void test_max_readers_option(void)
{
    normcache *one = NC_OPEN_FRESH("{\"max_readers\": 1}");
    normcache *most = NC_OPEN_FRESH("{\"max_readers\": 65535, \"durability\": \"fast\"}");
    CHECK_PUT(one, "{\"A:1\": {\"x\": 1}}", "[\"A:1.x\"]");
    CHECK_GET(one, "A:1", "{\"x\":1}");
    CHECK_PUT(most, "{\"A:1\": {\"x\": 1}}", "[\"A:1.x\"]");
    CHECK_GET(most, "A:1", "{\"x\":1}");
    CHECK_OK(normcache_close(one));
    CHECK_OK(normcache_close(most));
}

/** Unknown options and values of the wrong type or out of range are EINVAL. */
static void test_invalid_options(void)
{
    static const char *const invalid[] = {
        "{\"durability\": \"medium\"}",
        "{\"durability\": 1}",
        "{\"durability\": null}",
        "{\"read_only\": \"yes\"}",
        "{\"read_only\": 1}",
        "{\"map_size\": \"big\"}",
        "{\"map_size\": -1}",
        "{\"map_size\": 1.5}",
        "{\"map_size\": 1000}",
        "{\"max_readers\": 0}",
        "{\"max_readers\": 65536}",
        "{\"mode\": \"01000\"}",
        "{\"mode\": 512}",
        "{\"mode\": \"4755\"}",
        "{\"mode\": \"0648\"}",
        "{\"mode\": \"\"}",
        "{\"mode\": -1}",
        "{\"mode\": 1.5}",
        "{\"mode\": null}",
    };
    char path[NC_PATH_SIZE];
    size_t i;
    for (i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        CHECK_OPEN_FAILS(nc_temp_path(path, "invalid-options"), invalid[i], NORMCACHE_EINVAL);
        CHECK(!nc_exists(path));
    }
    CHECK_ERRMSG_IS("option 'mode' must be permission bits from 0 to 0777: a string of octal digits "
                    "(\"0640\") or an integer (416)");
    CHECK_OPEN_FAILS(nc_temp_path(path, "unknown-option"), "{\"durabilty\": \"fast\"}",
                     NORMCACHE_EINVAL);
    CHECK_CONTAINS(normcache_errmsg(), "durabilty");
}

/** Options that are not JSON are EJSON. */
static void test_options_not_json(void)
{
    static const char *const not_json[] = {
        "{\"durability\": ",
        "durability=fast",
        "{\"durability\": \"fast\"} x",
        "{'durability': 'fast'}",
    };
    char path[NC_PATH_SIZE];
    size_t i;
    for (i = 0; i < sizeof not_json / sizeof not_json[0]; i++) {
        CHECK_OPEN_FAILS(nc_temp_path(path, "bad-json"), not_json[i], NORMCACHE_EJSON);
    }
}

/** NULL out_cache, an empty path and a path with a NUL byte are EINVAL. */
static void test_invalid_arguments(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache = SENTINEL;

    nc_temp_path(path, "invalid-arguments");
    CHECK_CODE(normcache_open(path, strlen(path), NULL, 0, NULL), NORMCACHE_EINVAL);
    CHECK(!nc_exists(path));
    CHECK_OPEN_FAILS("", NULL, NORMCACHE_EINVAL);
    CHECK_CODE(normcache_open(NULL, 0, NULL, 0, &cache), NORMCACHE_EINVAL);
    CHECK(cache == NULL);
    cache = SENTINEL;
    CHECK_CODE(normcache_open(path, strlen(path) + 1, NULL, 0, &cache), NORMCACHE_EINVAL);
    CHECK(cache == NULL);
}

/** A path in a directory that does not exist is ESTORAGE. */
static void test_missing_directory(void)
{
    char path[NC_PATH_SIZE];
    snprintf(path, sizeof path, "%s/no-such-directory/a.cache", nc_temp_dir());
    CHECK_OPEN_FAILS(path, NULL, NORMCACHE_ESTORAGE);
}

/** A file of random bytes, or of a little text, is ENOTCACHE, and is left as it was. */
static void test_not_a_cache(void)
{
    static unsigned char noise[1 << 16];
    static const unsigned char text[] = "hello, not a cache\n";
    char path[NC_PATH_SIZE];
    unsigned int state = 12345u;
    size_t i;

    for (i = 0; i < sizeof noise; i++) {
        state = state * 1103515245u + 12345u;
        noise[i] = (unsigned char)(state >> 16);
    }
    nc_temp_path(path, "noise");
    nc_write_file(path, noise, sizeof noise);
    CHECK_OPEN_FAILS(path, NULL, NORMCACHE_ENOTCACHE);
    CHECK_OPEN_FAILS(path, "{\"read_only\": true}", NORMCACHE_ENOTCACHE);
    CHECK_FILE_IS(path, noise, sizeof noise);

    nc_temp_path(path, "text");
    nc_write_file(path, text, sizeof text - 1);
    CHECK_OPEN_FAILS(path, NULL, NORMCACHE_ENOTCACHE);
    CHECK_FILE_IS(path, text, sizeof text - 1);
}

/** A cache file cut to a third of its length is ENOTCACHE, for writing and reading alike. */
static void test_truncated_cache(void)
{
    char path[NC_PATH_SIZE];
    nc_text records = {0};
    normcache *cache;
    struct stat info;
    int i;

    nc_temp_path(path, "truncated");
    cache = NC_OPEN(path, "{\"durability\": \"fast\"}");
    NC_APPEND_LITERAL(&records, "{");
    for (i = 0; i < 5000; i++) {
        nc_appendf(&records, "%s\"K:%05d\": {\"v\": \"%0200d\"}", i == 0 ? "" : ", ", i, i);
    }
    NC_APPEND_LITERAL(&records, "}");
    CHECK_OK(normcache_put(cache, records.data, records.len, NULL, NULL));
    CHECK_OK(normcache_close(cache));
    free(records.data);

    CHECK(stat(path, &info) == 0);
    CHECK(info.st_size > 3 * 4096);
    CHECK(truncate(path, info.st_size / 3) == 0);
    CHECK_OPEN_FAILS(path, "{\"read_only\": true}", NORMCACHE_ENOTCACHE);
    CHECK_OPEN_FAILS(path, NULL, NORMCACHE_ENOTCACHE);
}

/** Two handles on one path in one process see each other's writes and close independently. */
static void test_two_handles_in_one_process(void)
{
    char path[NC_PATH_SIZE];
    normcache *first;
    normcache *second;

    nc_temp_path(path, "two-handles");
    first = NC_OPEN(path, NULL);
    second = NC_OPEN(path, NULL);
    CHECK_PUT(first, "{\"A:1\": {\"x\": 1}}", "[\"A:1.x\"]");
    CHECK_GET(second, "A:1", "{\"x\":1}");
    CHECK_OK(normcache_close(first));
    CHECK_PUT(second, "{\"A:1\": {\"x\": 2}}", "[\"A:1.x\"]");
    CHECK_GET(second, "A:1", "{\"x\":2}");
    CHECK_OK(normcache_close(second));
}

/** Closing NULL is OK; closing twice is EINVAL. */
static void test_close(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    CHECK_OK(normcache_close(NULL));
    CHECK_OK(normcache_close(cache));
    CHECK_CODE(normcache_close(cache), NORMCACHE_EINVAL);
}

/** Fails unless an output pair was reset to NULL and 0. */
#define CHECK_RESET(out, out_len) CHECK((out) == NULL && (out_len) == 0)

/** Every function given a closed handle is EINVAL and leaves its outputs NULL and 0. */
static void test_use_after_close(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    const char *records = "{\"A:2\": {\"x\": 1}}";
    char placeholder = 'x';
    char *out = &placeholder;
    size_t out_len = 9;
    uint64_t count = 9;

    CHECK_PUT(cache, "{\"A:1\": {\"x\": 1}}", "[\"A:1.x\"]");
    CHECK_OK(normcache_close(cache));

    CHECK_CODE(normcache_put(cache, records, strlen(records), &out, &out_len),
               NORMCACHE_EINVAL);
    CHECK_RESET(out, out_len);
    out = &placeholder;
    out_len = 9;
    CHECK_CODE(normcache_get(cache, "A:1", 3, &out, &out_len), NORMCACHE_EINVAL);
    CHECK_RESET(out, out_len);
    CHECK_CODE(normcache_remove(cache, "A:1", 3), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_remove_prefix(cache, "A:", 2, &count), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_clear(cache), NORMCACHE_EINVAL);
    out = &placeholder;
    out_len = 9;
    CHECK_CODE(normcache_search(cache, "", 0, NULL, 0, 0, &out, &out_len), NORMCACHE_EINVAL);
    CHECK_RESET(out, out_len);
    out = &placeholder;
    out_len = 9;
    CHECK_CODE(normcache_stats(cache, &out, &out_len), NORMCACHE_EINVAL);
    CHECK_RESET(out, out_len);
    CHECK_CODE(normcache_close(cache), NORMCACHE_EINVAL);
}

int main(void)
{
    test_defaults();
    test_empty_options_are_defaults();
    test_path_is_a_byte_range();
    test_reopen_keeps_records();
    test_durability_option();
    test_read_only_option();
    test_read_only_needs_the_file();
    test_map_size_option();
    test_max_readers_option();
    test_invalid_options();
    test_options_not_json();
    test_invalid_arguments();
    test_missing_directory();
    test_not_a_cache();
    test_truncated_cache();
    test_two_handles_in_one_process();
    test_close();
    test_use_after_close();
    return 0;
}
