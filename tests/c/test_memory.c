/*
 * test_memory.c — the memory the library keeps between calls: normcache_release_memory
 * frees the blocks a large put let go, alone and while other threads get large records
 * and free them; and a later read of an operation hands over a block of its data's size.
 *
 * NORMCACHE_POOL_KEEPS_BLOCKS is 0 when the library was built checked
 * (NORMCACHE_INTERNAL_CHECKS, for the sanitizers), whose pool keeps nothing.
 */
#include "check.h"

#include <malloc.h>
#include <pthread.h>

/** A record value larger than the smallest block the library keeps (256 KiB). */
#define BIG_VALUE (300u * 1024u)
/** Reader threads, and the reads each makes, while another thread releases memory. */
#define READERS 2
#define READS 200

/** The smallest block the library keeps (256 KiB). */
#define SMALLEST_KEPT (256u * 1024u)

/** A cache holding Big:1 with a string of BIG_VALUE letters, written after the pool was
 *  emptied; `record` gets its JSON. */
static normcache *open_with_big_record(nc_text *record)
{
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    nc_text records = {0};
    char *value = malloc(BIG_VALUE);
    size_t i;

    CHECK(value != NULL);
    for (i = 0; i < BIG_VALUE; i++) {
        value[i] = (char)('a' + i % 26u);
    }
    NC_APPEND_LITERAL(&records, "{\"Big:1\": {\"blob\": \"");
    nc_append(&records, value, BIG_VALUE);
    NC_APPEND_LITERAL(&records, "\"}}");
    NC_APPEND_LITERAL(record, "{\"blob\":\"");
    nc_append(record, value, BIG_VALUE);
    NC_APPEND_LITERAL(record, "\"}");
    free(value);
    CHECK_OK(normcache_release_memory(NULL));
    CHECK_PUT(cache, records.data, "[\"Big:1.blob\"]");
    free(records.data);
    return cache;
}

/** Fails at `line` unless `released` (what normcache_release_memory freed) is at least
 *  `least` bytes, `what` naming them; a checked library, whose pool keeps nothing, must
 *  have freed nothing. */
static void expect_released_at_least(size_t released, size_t least, const char *what, int line)
{
#if NORMCACHE_POOL_KEEPS_BLOCKS
    if (released < least) {
        nc_fail(__FILE__, line, "released %zu bytes, fewer than %s (%zu)", released, what, least);
    }
#else
    (void)least;
    (void)what;
    if (released != 0) {
        nc_fail(__FILE__, line, "released %zu bytes; a checked library keeps none", released);
    }
#endif
}

/** The blocks a put of 300 KiB let go are kept, released once, and the record is whole. */
static void test_release_after_a_large_put(void)
{
    nc_text record = {0};
    normcache *cache = open_with_big_record(&record);
    size_t released = 12345;

    CHECK_OK(normcache_release_memory(&released));
    /* At least the scan of the put's JSON, a block of 256 KiB or more. */
    expect_released_at_least(released, SMALLEST_KEPT, "one kept block", __LINE__);
    released = 12345;
    CHECK_OK(normcache_release_memory(&released));
    CHECK(released == 0);
    CHECK_GET(cache, "Big:1", record.data);
    CHECK_OK(normcache_close(cache));
    free(record.data);
}

/** A record value larger than the blocks the pool keeps ready (32 MiB). */
#define HUGE_VALUE (40u * 1024u * 1024u)

/** A result of 40 MiB freed twice: the first goes back to malloc, the second, once its
 *  size has come again, is kept for later calls, and release frees it. */
static void test_a_large_result_freed_again_is_kept(void)
{
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    nc_text records = {0};
    char *value = malloc(HUGE_VALUE);
    char *out = NULL;
    size_t out_len = 0;
    size_t released = 12345;
    int i;

    CHECK(value != NULL);
    memset(value, 'h', HUGE_VALUE);
    NC_APPEND_LITERAL(&records, "{\"Huge:1\": {\"blob\": \"");
    nc_append(&records, value, HUGE_VALUE);
    NC_APPEND_LITERAL(&records, "\"}}");
    free(value);
    CHECK_PUT(cache, records.data, "[\"Huge:1.blob\"]");
    free(records.data);
    for (i = 0; i < 2; i++) {
        CHECK_OK(normcache_get(cache, "Huge:1", 6, &out, &out_len));
        CHECK(out_len == HUGE_VALUE + 11);
        normcache_free(out);
    }
    CHECK_OK(normcache_release_memory(&released));
    expect_released_at_least(released, out_len, "the result freed", __LINE__);
    CHECK_OK(normcache_close(cache));
}

/** Posts in the list that the sized-read test reads: about 50 KB of data, under the
 *  smallest block the library keeps, so that each result is malloc's own block. */
#define SIZED_POSTS 1000

/** Fails unless `out`, a read's result of `out_len` bytes, is a block that holds the data
 *  and its NUL with no room to spare: malloc rounds a request up by at most 24 bytes. */
static void expect_block_of_its_size(const char *out, size_t out_len, int read, int line)
{
    if (malloc_usable_size((void *)out) > out_len + 1 + 24) {
        nc_fail(__FILE__, line, "read %d handed over %zu bytes of block for %zu bytes and a NUL", read,
                malloc_usable_size((void *)out), out_len);
    }
}

/** The first read of an operation after a write reserves its output from the size of the
 *  data written through it, and each later read from the last read's size: every block
 *  a read hands over holds the data and its NUL with no room to spare. Before, the first
 *  read doubled its block from 64 bytes up (a block of 64 KiB for 50 KB), and the NUL of
 *  a later read found the block full and grew it by half or double. The response is
 *  compact and selects what the read returns, so the data written is the data read. */
static void test_every_read_hands_over_a_block_of_its_size(void)
{
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    const char *document = "{ posts { __typename id title } }";
    normcache_op *op = NULL;
    nc_text response = {0};
    char *out = NULL;
    size_t out_len = 0;
    int i;

    const char *config = "{\"defaultKeyFields\": [\"id\"]}";
    CHECK_OK(normcache_configure(cache, config, strlen(config)));
    CHECK_OK(normcache_prepare(cache, document, strlen(document), NULL, 0, &op));
    NC_APPEND_LITERAL(&response, "{\"data\":{\"posts\":[");
    for (i = 0; i < SIZED_POSTS; i++) {
        nc_appendf(&response, "%s{\"__typename\":\"Post\",\"id\":\"%d\",\"title\":\"Post number %d\"}", i ? "," : "", i, i);
    }
    NC_APPEND_LITERAL(&response, "]}}");
    CHECK_OK(normcache_write(cache, op, NULL, 0, response.data, response.len, NULL, NULL));
    for (i = 0; i < 3; i++) {
        CHECK_OK(normcache_read(cache, op, NULL, 0, 0, &out, &out_len));
        CHECK(out[out_len] == '\0');
        /* The data read is the response's data member: all but `{"data":` and `}`. */
        CHECK(out_len == response.len - 9);
        CHECK(memcmp(out, response.data + 8, out_len) == 0);
        CHECK(out_len > 30000 && out_len < SMALLEST_KEPT);
        expect_block_of_its_size(out, out_len, i + 1, __LINE__);
        normcache_free(out);
    }
    normcache_op_free(op);
    free(response.data);
    CHECK_OK(normcache_close(cache));
}

/** What a reader thread reads, and the record it expects. */
struct reader {
    normcache *cache;
    const char *record;
};

/** Gets Big:1 READS times, checking every byte, and frees each result. */
static void *read_big_record(void *argument)
{
    const struct reader *reader = argument;
    int i;
    for (i = 0; i < READS; i++) {
        CHECK_GET(reader->cache, "Big:1", reader->record);
    }
    return NULL;
}

/** Releasing memory while two threads get and free large results loses no byte. */
static void test_release_while_other_threads_read(void)
{
    nc_text record = {0};
    normcache *cache = open_with_big_record(&record);
    struct reader reader = {cache, NULL};
    pthread_t threads[READERS];
    int i;

    reader.record = record.data;
    for (i = 0; i < READERS; i++) {
        CHECK(pthread_create(&threads[i], NULL, read_big_record, &reader) == 0);
    }
    for (i = 0; i < READS; i++) {
        CHECK_OK(normcache_release_memory(NULL));
    }
    for (i = 0; i < READERS; i++) {
        CHECK(pthread_join(threads[i], NULL) == 0);
    }
    CHECK_OK(normcache_close(cache));
    free(record.data);
}

int main(void)
{
    test_release_after_a_large_put();
    test_release_while_other_threads_read();
    test_a_large_result_freed_again_is_kept();
    test_every_read_hands_over_a_block_of_its_size();
    return 0;
}
