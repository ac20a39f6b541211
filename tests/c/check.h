/*
 * check.h — the checks and fixtures shared by the C tests of normcache.
 *
 * Include this header first in every test file: it selects POSIX 2008 with XSI
 * (mkdtemp, nftw, fork) before any system header is read, which a strict -std=c99
 * build needs.
 *
 * Every CHECK macro evaluates its arguments once and, when the check fails, prints
 * "file:line: what was expected and what came instead" on stderr and ends the
 * process with status 1. A test program that returns from main passed.
 *
 * Paths: nc_temp_path() gives a fresh cache path inside one directory made with
 * mkdtemp for this process (under $TMPDIR, else /tmp); the directory and everything
 * in it is removed when the process that made it exits (forked children leave it).
 *
 * Tests that fork include processes.h after this header: children that run a body,
 * the check that they passed, and one-byte signals on pipes.
 */
#ifndef NORMCACHE_TEST_CHECK_H
#define NORMCACHE_TEST_CHECK_H

#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif

#include "normcache.h"

#include <ftw.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------
 * Failing
 * ------------------------------------------------------------------------- */

/** Prints "file:line: " and the formatted message on stderr, then exits with 1. */
static inline void nc_fail(const char *file, int line, const char *format, ...)
{
    va_list args;
    fprintf(stderr, "%s:%d: ", file, line);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    exit(1);
}

/** The longest stretch of a byte range that a failure message shows. */
#define NC_SHOWN_BYTES 300

/** Prints a byte range as a quoted C-like string, cut after NC_SHOWN_BYTES bytes. */
static inline void nc_show_bytes(const char *bytes, size_t len)
{
    size_t shown = len < NC_SHOWN_BYTES ? len : NC_SHOWN_BYTES;
    size_t i;
    if (bytes == NULL) {
        fputs("NULL", stderr);
        return;
    }
    fputc('"', stderr);
    for (i = 0; i < shown; i++) {
        unsigned char c = (unsigned char)bytes[i];
        if (c == '"' || c == '\\') {
            fprintf(stderr, "\\%c", c);
        } else if (c < 0x20 || c >= 0x7f) {
            fprintf(stderr, "\\x%02x", c);
        } else {
            fputc(c, stderr);
        }
    }
    fputc('"', stderr);
    if (shown < len) {
        fprintf(stderr, "... (%zu bytes in all)", len);
    }
}

/* ---------------------------------------------------------------------------
 * Checks
 * ------------------------------------------------------------------------- */

/** Fails unless `condition` is true. */
#define CHECK(condition)                                                 \
    do {                                                                 \
        if (!(condition)) {                                              \
            nc_fail(__FILE__, __LINE__, "check failed: %s", #condition); \
        }                                                                \
    } while (0)

/** Implements CHECK_CODE: fails unless `got` equals `expected`. */
static inline void nc_check_code(const char *file, int line, const char *call,
                                 int got, int expected)
{
    if (got != expected) {
        nc_fail(file, line, "%s returned %d (%s), expected %d (%s); errmsg: %s", call,
                got, normcache_errstr(got), expected, normcache_errstr(expected),
                normcache_errmsg());
    }
}

/** Fails unless the status `call` returns equals `expected`. */
#define CHECK_CODE(call, expected) nc_check_code(__FILE__, __LINE__, #call, (call), (expected))

/** Fails unless `call` returns NORMCACHE_OK. */
#define CHECK_OK(call) CHECK_CODE(call, NORMCACHE_OK)

/** Implements CHECK_STR and the record checks: fails unless the byte range equals `expected`. */
static inline void nc_check_bytes(const char *file, int line, const char *what,
                                  const char *got, size_t got_len,
                                  const char *expected, size_t expected_len)
{
    if (got == NULL || got_len != expected_len || memcmp(got, expected, got_len) != 0) {
        fprintf(stderr, "%s:%d: %s is ", file, line, what);
        nc_show_bytes(got, got_len);
        fputs(", expected ", stderr);
        nc_show_bytes(expected, expected_len);
        fputc('\n', stderr);
        exit(1);
    }
}

/** Fails unless the byte range (got, got_len) equals the C string `expected`. */
#define CHECK_STR(got, got_len, expected)                                        \
    do {                                                                         \
        const char *nc_expected_ = (expected);                                   \
        nc_check_bytes(__FILE__, __LINE__, #got, (got), (got_len), nc_expected_, \
                       strlen(nc_expected_));                                    \
    } while (0)

/** Fails unless the C string `haystack` contains the C string `needle`. */
#define CHECK_CONTAINS(haystack, needle)                                    \
    do {                                                                    \
        const char *nc_haystack_ = (haystack);                              \
        const char *nc_needle_ = (needle);                                  \
        if (strstr(nc_haystack_, nc_needle_) == NULL) {                     \
            nc_fail(__FILE__, __LINE__, "%s is \"%s\", which lacks \"%s\"", \
                    #haystack, nc_haystack_, nc_needle_);                   \
        }                                                                   \
    } while (0)

/** Fails unless the last error message of this thread names `path` and contains `text`. */
#define CHECK_ERRMSG(path, text)                    \
    do {                                            \
        CHECK_CONTAINS(normcache_errmsg(), (path)); \
        CHECK_CONTAINS(normcache_errmsg(), (text)); \
    } while (0)

/** Fails unless the last error message of this thread is exactly `expected`. */
#define CHECK_ERRMSG_IS(expected)                                                                \
    do {                                                                                         \
        const char *nc_expected_ = (expected);                                                   \
        if (strcmp(normcache_errmsg(), nc_expected_) != 0) {                                     \
            nc_fail(__FILE__, __LINE__, "errmsg is \"%s\", expected \"%s\"", normcache_errmsg(), \
                    nc_expected_);                                                               \
        }                                                                                        \
    } while (0)

/* ---------------------------------------------------------------------------
 * Record operations checked in one step (C strings in, exact JSON out)
 * ------------------------------------------------------------------------- */

/**
 * Fails unless the library's output buffer (out, out_len) is exactly the C string
 * `expected` and is followed by the NUL the header promises; then frees it.
 */
static inline void nc_check_output(const char *file, int line, const char *what, char *out,
                                   size_t out_len, const char *expected)
{
    nc_check_bytes(file, line, what, out, out_len, expected, strlen(expected));
    if (out[out_len] != '\0') {
        nc_fail(file, line, "%s is not followed by a NUL byte", what);
    }
    normcache_free(out);
}

/** Implements CHECK_PUT. */
static inline void nc_check_put(const char *file, int line, normcache *cache,
                                const char *records, const char *changed)
{
    char *out = NULL;
    size_t out_len = 0;
    nc_check_code(file, line, "normcache_put",
                  normcache_put(cache, records, strlen(records), &out, &out_len), NORMCACHE_OK);
    nc_check_output(file, line, "changed keys", out, out_len, changed);
}

/** Puts the JSON records and fails unless the changed-key array is exactly `changed`. */
#define CHECK_PUT(cache, records, changed) \
    nc_check_put(__FILE__, __LINE__, (cache), (records), (changed))

/** Implements CHECK_GET. */
static inline void nc_check_get(const char *file, int line, normcache *cache,
                                const char *key, size_t key_len, const char *record)
{
    char *out = NULL;
    size_t out_len = 0;
    nc_check_code(file, line, "normcache_get",
                  normcache_get(cache, key, key_len, &out, &out_len), NORMCACHE_OK);
    nc_check_output(file, line, "record", out, out_len, record);
}

/** Gets the record at the C string `key` and fails unless it is exactly `record`. */
#define CHECK_GET(cache, key, record)                                                  \
    do {                                                                               \
        const char *nc_key_ = (key);                                                   \
        nc_check_get(__FILE__, __LINE__, (cache), nc_key_, strlen(nc_key_), (record)); \
    } while (0)

/** Fails unless the record at the C string `key` is NORMCACHE_NOTFOUND. */
#define CHECK_NOTFOUND(cache, key)                                                       \
    do {                                                                                 \
        const char *nc_key_ = (key);                                                     \
        char *nc_out_ = NULL;                                                            \
        size_t nc_len_ = 0;                                                              \
        CHECK_CODE(normcache_get((cache), nc_key_, strlen(nc_key_), &nc_out_, &nc_len_), \
                   NORMCACHE_NOTFOUND);                                                  \
        CHECK(nc_out_ == NULL && nc_len_ == 0);                                          \
    } while (0)

/** Implements CHECK_SEARCH. */
static inline void nc_check_search(const char *file, int line, normcache *cache,
                                   const char *prefix, const char *after, size_t limit,
                                   const char *keys)
{
    char *out = NULL;
    size_t out_len = 0;
    nc_check_code(file, line, "normcache_search",
                  normcache_search(cache, prefix, strlen(prefix), after,
                                   after == NULL ? 0 : strlen(after), limit, &out, &out_len),
                  NORMCACHE_OK);
    nc_check_output(file, line, "keys", out, out_len, keys);
}

/**
 * Searches with the C strings `prefix` and `after` (NULL: no `after`) and fails unless
 * the key array is exactly `keys`.
 */
#define CHECK_SEARCH(cache, prefix, after, limit, keys) \
    nc_check_search(__FILE__, __LINE__, (cache), (prefix), (after), (limit), (keys))

/* ---------------------------------------------------------------------------
 * Growing text, for inputs too large or too regular to write out
 * ------------------------------------------------------------------------- */

/** A growing byte buffer; zero-initialise it, free `data` with free(). */
typedef struct nc_text {
    char *data; /**< the bytes, NUL-terminated once anything was appended */
    size_t len; /**< bytes in use, without the NUL */
    size_t cap; /**< bytes allocated */
} nc_text;

/** Makes room for `extra` more bytes and the NUL; exits on allocation failure. */
static inline void nc_reserve(nc_text *text, size_t extra)
{
    if (text->len + extra + 1 > text->cap) {
        size_t cap = text->cap == 0 ? 256 : text->cap;
        while (cap < text->len + extra + 1) {
            cap *= 2;
        }
        text->data = realloc(text->data, cap);
        if (text->data == NULL) {
            perror("realloc");
            exit(1);
        }
        text->cap = cap;
    }
}

/** Appends `len` bytes. */
static inline void nc_append(nc_text *text, const char *bytes, size_t len)
{
    nc_reserve(text, len);
    memcpy(text->data + text->len, bytes, len);
    text->len += len;
    text->data[text->len] = '\0';
}

/** Appends a string literal, without its NUL. */
#define NC_APPEND_LITERAL(text, literal) nc_append((text), "" literal, sizeof(literal) - 1)

/** Appends `count` copies of the byte `c`. */
static inline void nc_append_repeat(nc_text *text, char c, size_t count)
{
    nc_reserve(text, count);
    memset(text->data + text->len, c, count);
    text->len += count;
    text->data[text->len] = '\0';
}

/** Appends printf-formatted text. */
static inline void nc_appendf(nc_text *text, const char *format, ...)
{
    va_list args;
    int needed;
    va_start(args, format);
    needed = vsnprintf(NULL, 0, format, args);
    va_end(args);
    nc_reserve(text, (size_t)needed);
    va_start(args, format);
    vsnprintf(text->data + text->len, (size_t)needed + 1, format, args);
    va_end(args);
    text->len += (size_t)needed;
}

/**
 * Every record of `cache`, keys and fields, as one text in `dump` (emptied first); false
 * when the handle cannot be listed (NULL or closed). The keys must hold no quote or
 * backslash: each is the text between quotes.
 */
static inline int nc_dump_records(normcache *cache, nc_text *dump)
{
    char *keys = NULL;
    size_t keys_len = 0;
    const char *key;
    dump->len = 0;
    NC_APPEND_LITERAL(dump, "");
    if (normcache_search(cache, "", 0, NULL, 0, 0, &keys, &keys_len) != NORMCACHE_OK) {
        return 0;
    }
    nc_append(dump, keys, keys_len);
    for (key = strchr(keys, '"'); key != NULL; key = strchr(strchr(key + 1, '"') + 1, '"')) {
        size_t key_len = (size_t)(strchr(key + 1, '"') - (key + 1));
        char *record = NULL;
        size_t record_len = 0;
        CHECK_OK(normcache_get(cache, key + 1, key_len, &record, &record_len));
        nc_append(dump, record, record_len);
        normcache_free(record);
    }
    normcache_free(keys);
    return 1;
}

/**
 * Fails unless the write `call` returned `code` where `expected` was due, left its output
 * (`out`, `length`) NULL/0 and the exact message `message`, and, when `before` (an
 * nc_dump_records of `cache` made before the call, which this frees and empties so that
 * it can be dumped into again) could list it, left every record as it was.
 */
static inline void nc_check_failed_write(const char *file, int line, const char *call, int code, int expected,
                                         const char *out, size_t length, const char *message, normcache *cache,
                                         int listed, nc_text *before)
{
    nc_text after = {0};
    nc_check_code(file, line, call, code, expected);
    if (out != NULL || length != 0) {
        nc_fail(file, line, "a failed %s left its output set", call);
    }
    if (strcmp(normcache_errmsg(), message) != 0) {
        nc_fail(file, line, "errmsg is \"%s\", expected \"%s\"", normcache_errmsg(), message);
    }
    if (listed && (!nc_dump_records(cache, &after) || after.len != before->len ||
                   memcmp(after.data, before->data, before->len) != 0)) {
        nc_fail(file, line, "a failed %s changed the records: %s, before: %s", call, after.data, before->data);
    }
    free(before->data);
    *before = (nc_text){0};
    free(after.data);
}

/* ---------------------------------------------------------------------------
 * Stats
 * ------------------------------------------------------------------------- */

/**
 * The text of the value of `"name"` in the stats JSON of `cache`, up to the next ','
 * or '}' (so numbers, booleans and quoted strings without commas), in `out` of `size`
 * bytes. Fails the test when stats fails or has no such member.
 */
#define NC_STAT(cache, name, out, size) \
    nc_stat(__FILE__, __LINE__, (cache), (name), (out), (size))

/** Implements NC_STAT. */
static inline void nc_stat(const char *file, int line, normcache *cache, const char *name,
                           char *out, size_t size)
{
    char *json = NULL;
    size_t json_len = 0;
    char member[64];
    const char *value;
    size_t value_len;
    nc_check_code(file, line, "normcache_stats", normcache_stats(cache, &json, &json_len),
                  NORMCACHE_OK);
    snprintf(member, sizeof member, "\"%s\":", name);
    value = strstr(json, member);
    if (value == NULL) {
        nc_fail(file, line, "stats %s lack the member %s", json, member);
    }
    value += strlen(member);
    value += strspn(value, " ");
    value_len = strcspn(value, ",}");
    if (value_len >= size) {
        nc_fail(file, line, "stats member %s is too long in %s", name, json);
    }
    memcpy(out, value, value_len);
    out[value_len] = '\0';
    normcache_free(json);
}

/** Fails unless the stats member `name` of `cache` has exactly the text `expected`. */
#define CHECK_STAT(cache, name, expected)                                      \
    do {                                                                       \
        char nc_value_[128];                                                   \
        NC_STAT((cache), (name), nc_value_, sizeof nc_value_);                 \
        if (strcmp(nc_value_, (expected)) != 0) {                              \
            nc_fail(__FILE__, __LINE__, "stats %s is %s, expected %s", (name), \
                    nc_value_, (expected));                                    \
        }                                                                      \
    } while (0)

/* ---------------------------------------------------------------------------
 * Files and stats
 * ------------------------------------------------------------------------- */

/** Writes `len` bytes to a new (or emptied) file at `path`. */
static inline void nc_write_file(const char *path, const unsigned char *bytes, size_t len)
{
    FILE *file = fopen(path, "wb");
    CHECK(file != NULL);
    CHECK(len == 0 || fwrite(bytes, 1, len, file) == len);
    CHECK(fclose(file) == 0);
}

/** The whole content of the file at `path` in a malloc'ed buffer, its length in `len`. */
static inline unsigned char *nc_read_file(const char *path, size_t *len)
{
    FILE *file = fopen(path, "rb");
    unsigned char *bytes;
    long size;
    CHECK(file != NULL);
    CHECK(fseek(file, 0, SEEK_END) == 0);
    size = ftell(file);
    CHECK(size >= 0);
    CHECK(fseek(file, 0, SEEK_SET) == 0);
    bytes = malloc((size_t)size + 1);
    CHECK(bytes != NULL);
    CHECK(fread(bytes, 1, (size_t)size, file) == (size_t)size);
    CHECK(fclose(file) == 0);
    *len = (size_t)size;
    return bytes;
}

/** True when something exists at the C string `path`. */
static inline int nc_exists(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0;
}

/** Implements CHECK_FILE_IS. */
static inline void nc_check_file_is(const char *file, int line, const char *path,
                                    const unsigned char *bytes, size_t len)
{
    size_t got_len;
    unsigned char *got = nc_read_file(path, &got_len);
    if (got_len != len || (len > 0 && memcmp(got, bytes, len) != 0)) {
        nc_fail(file, line, "'%s' changed: %zu bytes, expected the %zu bytes it held before",
                path, got_len, len);
    }
    free(got);
}

/** Fails unless the file at `path` holds exactly the `len` bytes `bytes`. */
#define CHECK_FILE_IS(path, bytes, len) nc_check_file_is(__FILE__, __LINE__, (path), (bytes), (len))

/** Implements NC_STAT_NUMBER. */
static inline unsigned long long nc_stat_number(const char *file, int line, normcache *cache,
                                                const char *name)
{
    char text[32];
    char *end;
    unsigned long long value;
    nc_stat(file, line, cache, name, text, sizeof text);
    value = strtoull(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0') {
        nc_fail(file, line, "stats %s is %s, not an integer", name, text);
    }
    return value;
}

/** The stats member `name` of `cache` as a decimal integer; fails unless it is one. */
#define NC_STAT_NUMBER(cache, name) nc_stat_number(__FILE__, __LINE__, (cache), (name))

/* ---------------------------------------------------------------------------
 * Time and pseudo-random numbers
 * ------------------------------------------------------------------------- */

/** The CLOCK_MONOTONIC time in seconds. */
static inline double nc_now_seconds(void)
{
    struct timespec now;
    CHECK(clock_gettime(CLOCK_MONOTONIC, &now) == 0);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/** The splitmix64 finaliser: a well-mixed 64-bit function of `x`. */
static inline uint64_t nc_mix(uint64_t x)
{
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

/** The next number of the splitmix64 stream at `state` (any seed, 0 included). */
static inline uint64_t nc_next_random(uint64_t *state)
{
    *state += UINT64_C(0x9E3779B97F4A7C15);
    return nc_mix(*state);
}

/* ---------------------------------------------------------------------------
 * Temporary cache paths
 * ------------------------------------------------------------------------- */

/** The temporary directory of this process ("" until made) and the process that made it. */
static char nc_temp_dir_path[512];
static pid_t nc_temp_dir_owner;

/** nftw callback of nc_remove_temp_dir: removes one entry. */
static inline int nc_remove_entry(const char *path, const struct stat *info, int type,
                                  struct FTW *ftw)
{
    (void)info;
    (void)type;
    (void)ftw;
    return remove(path);
}

/** atexit handler: removes the temporary directory, in the process that made it only. */
static inline void nc_remove_temp_dir(void)
{
    if (nc_temp_dir_path[0] != '\0' && getpid() == nc_temp_dir_owner) {
        nftw(nc_temp_dir_path, nc_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
}

/** The temporary directory of this process, made on first use. */
static inline const char *nc_temp_dir(void)
{
    if (nc_temp_dir_path[0] == '\0') {
        const char *base = getenv("TMPDIR");
        snprintf(nc_temp_dir_path, sizeof nc_temp_dir_path, "%s/normcache-c-test-XXXXXX",
                 base != NULL && base[0] != '\0' ? base : "/tmp");
        if (mkdtemp(nc_temp_dir_path) == NULL) {
            perror("mkdtemp");
            exit(1);
        }
        nc_temp_dir_owner = getpid();
        atexit(nc_remove_temp_dir);
    }
    return nc_temp_dir_path;
}

/** The size of a buffer that holds any path nc_temp_path() writes. */
#define NC_PATH_SIZE 600

/**
 * Writes into `out` (NC_PATH_SIZE bytes) a path in the temporary directory that no
 * earlier call returned: "<dir>/<name>-<n>.cache". Nothing exists there yet.
 */
static inline const char *nc_temp_path(char *out, const char *name)
{
    static int counter;
    snprintf(out, NC_PATH_SIZE, "%s/%s-%d.cache", nc_temp_dir(), name, ++counter);
    return out;
}

/** Opens the cache at the C string `path` with the C string `options` (NULL: defaults). */
static inline normcache *nc_open_at(const char *file, int line, const char *path,
                                    const char *options)
{
    normcache *cache = NULL;
    nc_check_code(file, line, "normcache_open",
                  normcache_open(path, strlen(path), options,
                                 options == NULL ? 0 : strlen(options), &cache),
                  NORMCACHE_OK);
    return cache;
}

/** Opens the cache at `path` with `options` (NULL: defaults), failing the test on error. */
#define NC_OPEN(path, options) nc_open_at(__FILE__, __LINE__, (path), (options))

/** Opens a new, empty cache at a fresh temporary path with `options` (NULL: defaults). */
#define NC_OPEN_FRESH(options)                                                     \
    nc_open_at(__FILE__, __LINE__, nc_temp_path((char[NC_PATH_SIZE]){0}, "cache"), \
               (options))

/**
 * Opens the C string `path` with the C string `options` (NULL: defaults) and fails
 * unless the status is `expected` and no handle came back.
 */
#define CHECK_OPEN_FAILS(path, options, expected)                                \
    do {                                                                         \
        const char *nc_path_ = (path);                                           \
        const char *nc_options_ = (options);                                     \
        normcache *nc_failed_ = (normcache *)(void *)&nc_failed_;                \
        CHECK_CODE(normcache_open(nc_path_, strlen(nc_path_), nc_options_,       \
                                  nc_options_ == NULL ? 0 : strlen(nc_options_), \
                                  &nc_failed_),                                  \
                   (expected));                                                  \
        CHECK(nc_failed_ == NULL);                                               \
    } while (0)

#endif /* NORMCACHE_TEST_CHECK_H */
