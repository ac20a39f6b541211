/*
 * test_out_of_memory.c — normcache when memory runs out. A call that needs far more
 * memory than an address-space limit (RLIMIT_AS) leaves returns NORMCACHE_ENOMEM with a
 * message naming the allocation ("out of memory: could not allocate N bytes while
 * ..."), writes nothing, and the process goes on with the cache as it was: a put whose
 * scan needs a 2 GiB tape, a normalize and a write of a response holding a 192 MiB
 * string, and a read and a get of a stored record of that size.
 *
 * Each case runs in a child process: it opens the cache, builds its input, limits its
 * address space to what it uses then plus HEADROOM, makes the failing call, then checks
 * the cache with calls that need little memory.
 */
#include "check.h"

#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

/* Under AddressSanitizer a failed allocation returns NULL, as malloc does, instead of
 * stopping the process with a report. */
#if defined(__SANITIZE_ADDRESS__)
#define NC_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NC_ADDRESS_SANITIZER 1
#endif
#endif
#ifdef NC_ADDRESS_SANITIZER
const char *__asan_default_options(void);
/** AddressSanitizer's options for this program. */
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}
#endif

#define MIB ((size_t)1 << 20)
/** What a child may allocate beyond what it holds when its limit is set. */
#define HEADROOM (128 * MIB)
/**
 * The length of the string that no copy of fits in the headroom. Below 256 MiB: LMDB
 * 0.9.24 (Debian 12's) spills the pages of a transaction that writes a value that large
 * and never frees its list of spilled pages, which LeakSanitizer reports (fixed in LMDB
 * 0.9.25, ITS#9155).
 */
#define BLOB (192 * MIB)
/** The length of the list of zeros ("0,0,..."), which scans to a tape of 2 GiB. */
#define ZEROS (256 * MIB)
/** Open options: room for the blob without growing the map, commits without fsync. */
#define OPTIONS "{\"map_size\": 1073741824, \"durability\": \"fast\"}"

/* ---------------------------------------------------------------------------
 * Children and limits
 * ------------------------------------------------------------------------- */

/** Forks a child that runs `body(path)` and checks that it ended with status 0. */
static void run_child(void (*body)(const char *), const char *path)
{
    int status = 0;
    pid_t pid;
    fflush(NULL);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        body(path);
        fflush(NULL);
        _exit(0);
    }
    CHECK(waitpid(pid, &status, 0) == pid);
    if (WIFSIGNALED(status)) {
        nc_fail(__FILE__, __LINE__, "the child was killed by signal %d", WTERMSIG(status));
    }
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/** Limits this process's address space to what it maps now plus HEADROOM. */
static void limit_address_space(void)
{
    unsigned long pages = 0;
    struct rlimit limit;
    FILE *statm = fopen("/proc/self/statm", "r");
    CHECK(statm != NULL);
    CHECK(fscanf(statm, "%lu", &pages) == 1);
    fclose(statm);
    limit.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + HEADROOM;
    limit.rlim_max = limit.rlim_cur;
    CHECK(setrlimit(RLIMIT_AS, &limit) == 0);
}

/**
 * A malloc'd, NUL-terminated text: `prefix`, `count` copies of the `unit` string, then
 * `suffix`; its length in *len.
 */
static char *repeated_text(const char *prefix, const char *unit, size_t count, const char *suffix,
                           size_t *len)
{
    size_t prefix_len = strlen(prefix), unit_len = strlen(unit), suffix_len = strlen(suffix);
    char *text;
    size_t i;
    *len = prefix_len + unit_len * count + suffix_len;
    text = malloc(*len + 1);
    CHECK(text != NULL);
    memcpy(text, prefix, prefix_len);
    for (i = 0; i < count; i++) {
        memcpy(text + prefix_len + i * unit_len, unit, unit_len);
    }
    memcpy(text + prefix_len + unit_len * count, suffix, suffix_len + 1);
    return text;
}

/** Fails unless the last error is an allocation of some bytes that failed while `work`. */
static void check_out_of_memory_message(const char *work)
{
    const char *message = normcache_errmsg();
    const char *prefix = "out of memory: could not allocate ";
    const char *rest = message + strlen(prefix);
    char *end = NULL;
    CHECK(strncmp(message, prefix, strlen(prefix)) == 0);
    CHECK(strtoull(rest, &end, 10) > HEADROOM / 2);
    CHECK(strncmp(end, " bytes while ", strlen(" bytes while ")) == 0);
    CHECK_CONTAINS(end, work);
}

/** Prepares the C string `document`, failing the test on error. */
static normcache_op *prepare(normcache *cache, const char *document)
{
    normcache_op *op = NULL;
    CHECK_OK(normcache_prepare(cache, document, strlen(document), NULL, 0, &op));
    return op;
}

/** Fails unless what the cache holds is what main put there, and a put still works. */
static void check_cache_as_it_was(normcache *cache)
{
    CHECK_GET(cache, "Keep:1", "{\"v\":1}");
    CHECK_NOTFOUND(cache, "Big:1");
    CHECK_SEARCH(cache, "", NULL, 0, "[\"Keep:1\",\"QUERY_ROOT\"]");
    CHECK_PUT(cache, "{\"Keep:1\": {\"v\": 1}}", "[]");
}

/* ---------------------------------------------------------------------------
 * The cases, one child each
 * ------------------------------------------------------------------------- */

/** A put of a list of zeros that scans to a 2 GiB tape. */
static void put_needing_a_huge_tape(const char *path)
{
    normcache *cache = NC_OPEN(path, OPTIONS);
    size_t len = 0;
    char *records = repeated_text("{\"Big:1\": {\"zeros\": [", "0,", ZEROS / 2, "0]}}", &len);
    char sentinel = 0;
    char *changed = &sentinel;
    size_t changed_len = 1;
    limit_address_space();
    CHECK_CODE(normcache_put(cache, records, len, &changed, &changed_len), NORMCACHE_ENOMEM);
    CHECK(changed == NULL && changed_len == 0);
    check_out_of_memory_message("scanning JSON (a tape of ");
    free(records);
    check_cache_as_it_was(cache);
    CHECK_OK(normcache_close(cache));
}

/** A normalize, then a write, of a response whose string no copy of fits. */
static void normalize_and_write_of_a_huge_string(const char *path)
{
    normcache *cache = NC_OPEN(path, OPTIONS);
    normcache_op *op = prepare(cache, "{ blob }");
    size_t len = 0;
    char *response = repeated_text("{\"data\": {\"blob\": \"", "x", BLOB, "\"}}", &len);
    char sentinel = 0;
    char *out = &sentinel;
    size_t out_len = 1;
    limit_address_space();
    CHECK_CODE(normcache_normalize(op, NULL, 0, response, len, &out, &out_len), NORMCACHE_ENOMEM);
    CHECK(out == NULL && out_len == 0);
    check_out_of_memory_message("encoding the values of the records");
    out = &sentinel;
    out_len = 1;
    CHECK_CODE(normcache_write(cache, op, NULL, 0, response, len, &out, &out_len), NORMCACHE_ENOMEM);
    CHECK(out == NULL && out_len == 0);
    check_out_of_memory_message("encoding the values of the records");
    free(response);
    CHECK_CODE(normcache_read(cache, op, NULL, 0, 0, &out, &out_len), NORMCACHE_MISS);
    normcache_free(out);
    check_cache_as_it_was(cache);
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
}

/** A read of the stored record whose data no buffer in the headroom holds. */
static void read_of_a_huge_record(const char *path)
{
    normcache *cache = NC_OPEN(path, OPTIONS);
    normcache_op *op = prepare(cache, "{ stored }");
    char sentinel = 0;
    char *out = &sentinel;
    size_t out_len = 1;
    limit_address_space();
    CHECK_CODE(normcache_read(cache, op, NULL, 0, 0, &out, &out_len), NORMCACHE_ENOMEM);
    CHECK(out == NULL && out_len == 0);
    check_out_of_memory_message("writing the data of a read");
    check_cache_as_it_was(cache);
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
}

/** A get of the stored record whose JSON no buffer in the headroom holds. */
static void get_of_a_huge_record(const char *path)
{
    normcache *cache = NC_OPEN(path, OPTIONS);
    char sentinel = 0;
    char *out = &sentinel;
    size_t out_len = 1;
    limit_address_space();
    CHECK_CODE(normcache_get(cache, "QUERY_ROOT", 10, &out, &out_len), NORMCACHE_ENOMEM);
    CHECK(out == NULL && out_len == 0);
    check_out_of_memory_message("reading the record");
    check_cache_as_it_was(cache);
    CHECK_OK(normcache_close(cache));
}

int main(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache;
    size_t len = 0;
    char *records;
    nc_temp_path(path, "memory");
    cache = NC_OPEN(path, OPTIONS);
    CHECK_PUT(cache, "{\"Keep:1\": {\"v\": 1}}", "[\"Keep:1.v\"]");
    records = repeated_text("{\"QUERY_ROOT\": {\"stored\": \"", "s", BLOB, "\"}}", &len);
    CHECK_OK(normcache_put(cache, records, len, NULL, NULL));
    free(records);
    CHECK_OK(normcache_close(cache));

    run_child(put_needing_a_huge_tape, path);
    run_child(normalize_and_write_of_a_huge_string, path);
    run_child(read_of_a_huge_record, path);
    run_child(get_of_a_huge_record, path);

    cache = NC_OPEN(path, OPTIONS);
    check_cache_as_it_was(cache);
    CHECK_OK(normcache_close(cache));
    return 0;
}
