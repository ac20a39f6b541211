/*
 * test_abi_misuse.c — misuse of the GraphQL half of the C interface gives the codes
 * and messages the header documents, resets the outputs and changes nothing: NULL for
 * each pointer in turn, closed handles and freed operations, a key resolver that calls
 * back into the library (reads, writes, even closing the handle it runs for), key and
 * member calls with odd arguments, values that are JSON but of the wrong shape, and
 * operations inherited through fork().
 *
 * Not tested, because the header makes them undefined: normcache_free of a pointer the
 * library did not return, or of a buffer freed already; a normcache_object used after
 * its resolver returned; lengths larger than the memory a valid pointer points at.
 */
#include "check.h"
#include "processes.h"

#include <stdint.h>

/** A non-NULL output value that no call returns, to see out-parameters reset. */
static char placeholder;

/** A non-NULL operation value that no prepare returns, to see out_op reset. */
static int op_sentinel_storage;
#define OP_SENTINEL ((normcache_op *)(void *)&op_sentinel_storage)

/** Fails unless `call` returns `expected` and the thread's message contains `needle`. */
#define CHECK_FAILS(call, expected, needle)         \
    do {                                            \
        CHECK_CODE(call, expected);                 \
        CHECK_CONTAINS(normcache_errmsg(), needle); \
    } while (0)

/** Fails unless an output pair was reset to NULL and 0. */
#define CHECK_RESET(out, out_len) CHECK((out) == NULL && (out_len) == 0)

/** Sets an output pair to values that a failing call must reset. */
static void preset(char **out, size_t *out_len)
{
    *out = &placeholder;
    *out_len = 99;
}

/** The records every seeded cache starts from. */
static const char seed_records[] = "{\"Seed:1\": {\"v\": 1}, \"QUERY_ROOT\": {\"seed\": 1}}";

/** The operation most tests use: one keyed object with an unkeyed object below it. */
static const char query_a[] = "{ a { id b { c } } }";

/** A response to query_a: A with id 7, and below it an object without __typename. */
static const char response_a[] =
    "{\"data\": {\"a\": {\"__typename\": \"A\", \"id\": 7, \"b\": {\"c\": 1}}}}";

/** A fragment on A, for the fragment functions. */
static const char fragment_a[] = "fragment F on A { id }";

/** Data of fragment_a. */
static const char fragment_data[] = "{\"id\": 7}";

/** Fails unless the store holds exactly seed_records: two keys and their fields. */
#define CHECK_SEEDED(cache)                                                \
    do {                                                                   \
        CHECK_SEARCH((cache), "", NULL, 0, "[\"QUERY_ROOT\",\"Seed:1\"]"); \
        CHECK_GET((cache), "QUERY_ROOT", "{\"seed\":1}");                  \
        CHECK_GET((cache), "Seed:1", "{\"v\":1}");                         \
    } while (0)

/** A fresh cache (fast durability) holding seed_records. */
static normcache *open_seeded(void)
{
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    CHECK_OK(normcache_put(cache, seed_records, strlen(seed_records), NULL, NULL));
    CHECK_SEEDED(cache);
    return cache;
}

/** Prepares the C string `document` on `cache`, failing the test unless it works. */
static normcache_op *prepare(normcache *cache, const char *document)
{
    normcache_op *op = NULL;
    CHECK_OK(normcache_prepare(cache, document, strlen(document), NULL, 0, &op));
    CHECK(op != NULL);
    return op;
}

/** The network document of `op`, as a malloc'd C string (free it with normcache_free). */
static char *document_of(normcache_op *op)
{
    char *out = NULL;
    size_t out_len = 0;
    CHECK_OK(normcache_op_document(op, &out, &out_len));
    CHECK(out != NULL && out[out_len] == '\0');
    return out;
}

/* ---------------------------------------------------------------------------
 * NULL pointers
 * ------------------------------------------------------------------------- */

/**
 * load_schema, configure and set_key_resolver: a NULL handle, and a NULL text with a
 * length, are EINVAL and leave the rules as they were (the network document of an
 * operation prepared afterwards is the same as before).
 */
static void test_null_schema_and_rules(void)
{
    normcache *cache = open_seeded();
    const char *sdl = "type Query { a: A } type A { id: ID! b: B } type B { c: Int }";
    const char *config = "{\"typePolicies\": {\"A\": {\"keyFields\": [\"id\"]}}}";
    normcache_op *op;
    char *before;
    char *after;

    CHECK_OK(normcache_load_schema(cache, sdl, strlen(sdl)));
    CHECK_OK(normcache_configure(cache, config, strlen(config)));
    op = prepare(cache, "{ a { b { c } } }");
    before = document_of(op);
    CHECK_OK(normcache_op_free(op));

    CHECK_FAILS(normcache_load_schema(NULL, sdl, strlen(sdl)), NORMCACHE_EINVAL,
                "the cache handle is NULL");
    CHECK_FAILS(normcache_load_schema(cache, NULL, 5), NORMCACHE_EINVAL,
                "sdl is NULL but its length is 5");
    CHECK_FAILS(normcache_load_schema(cache, NULL, SIZE_MAX), NORMCACHE_EINVAL, "sdl");
    CHECK_FAILS(normcache_configure(NULL, config, strlen(config)), NORMCACHE_EINVAL,
                "the cache handle is NULL");
    CHECK_FAILS(normcache_configure(cache, NULL, 5), NORMCACHE_EINVAL,
                "config_json is NULL but its length is 5");
    CHECK_FAILS(normcache_set_key_resolver(NULL, NULL, NULL), NORMCACHE_EINVAL,
                "the cache handle is NULL");
    /* NULL/0 is empty input: an empty schema and an empty configuration are malformed. */
    CHECK_FAILS(normcache_load_schema(cache, NULL, 0), NORMCACHE_ESCHEMA,
                "GraphQL error at line 1, column 1");
    CHECK_FAILS(normcache_configure(cache, NULL, 0), NORMCACHE_EJSON, "JSON error at byte 0");

    op = prepare(cache, "{ a { b { c } } }");
    after = document_of(op);
    CHECK(strcmp(before, after) == 0);
    CHECK(strstr(after, "id") != NULL);
    CHECK_OK(normcache_op_free(op));
    normcache_free(before);
    normcache_free(after);
    CHECK_SEEDED(cache);
    CHECK_OK(normcache_close(cache));
}

/** prepare and op_document: each NULL in turn is EINVAL, with *out_op and outputs reset. */
static void test_null_prepare_and_document(void)
{
    normcache *cache = open_seeded();
    normcache_op *op = OP_SENTINEL;
    char *out;
    size_t out_len;

    CHECK_FAILS(normcache_prepare(NULL, query_a, strlen(query_a), NULL, 0, &op),
                NORMCACHE_EINVAL, "the cache handle is NULL");
    CHECK(op == NULL);
    op = OP_SENTINEL;
    CHECK_FAILS(normcache_prepare(cache, NULL, 9, NULL, 0, &op), NORMCACHE_EINVAL,
                "document is NULL but its length is 9");
    CHECK(op == NULL);
    op = OP_SENTINEL;
    CHECK_FAILS(normcache_prepare(cache, query_a, strlen(query_a), NULL, 3, &op),
                NORMCACHE_EINVAL, "operation_name is NULL but its length is 3");
    CHECK(op == NULL);
    CHECK_FAILS(normcache_prepare(cache, query_a, strlen(query_a), NULL, 0, NULL),
                NORMCACHE_EINVAL, "out_op is NULL");
    /* NULL/0 is an empty document, which has nothing to prepare. */
    op = OP_SENTINEL;
    CHECK_CODE(normcache_prepare(cache, NULL, 0, NULL, 0, &op), NORMCACHE_EDOCUMENT);
    CHECK_CONTAINS(normcache_errmsg(), "GraphQL error at line 1, column 1");
    CHECK(op == NULL);

    op = prepare(cache, query_a);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_op_document(NULL, &out, &out_len), NORMCACHE_EINVAL,
                "the operation handle is NULL");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_op_document(op, NULL, &out_len), NORMCACHE_EINVAL,
                "out_document or its length pointer is NULL");
    CHECK(out_len == 0);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_op_document(op, &out, NULL), NORMCACHE_EINVAL,
                "out_document or its length pointer is NULL");
    CHECK(out == NULL);
    CHECK_OK(normcache_op_free(op));
    CHECK_SEEDED(cache);
    CHECK_OK(normcache_close(cache));
}

/** normalize: each NULL in turn is EINVAL (NULL/0 response: EJSON), outputs reset. */
static void test_null_normalize(void)
{
    normcache *cache = open_seeded();
    normcache_op *op = prepare(cache, query_a);
    size_t response_len = strlen(response_a);
    char *out;
    size_t out_len;

    preset(&out, &out_len);
    CHECK_FAILS(normcache_normalize(NULL, NULL, 0, response_a, response_len, &out, &out_len),
                NORMCACHE_EINVAL, "the operation handle is NULL");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_normalize(op, NULL, 2, response_a, response_len, &out, &out_len),
                NORMCACHE_EINVAL, "variables_json is NULL but its length is 2");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_normalize(op, NULL, 0, NULL, response_len, &out, &out_len),
                NORMCACHE_EINVAL, "response_json is NULL but its length is");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_normalize(op, NULL, 0, NULL, 0, &out, &out_len), NORMCACHE_EJSON,
                "JSON error at byte 0");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_normalize(op, NULL, 0, response_a, response_len, NULL, &out_len),
                NORMCACHE_EINVAL, "out_records or its length pointer is NULL");
    CHECK(out_len == 0);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_normalize(op, NULL, 0, response_a, response_len, &out, NULL),
                NORMCACHE_EINVAL, "out_records or its length pointer is NULL");
    CHECK(out == NULL);

    CHECK_OK(normcache_op_free(op));
    CHECK_SEEDED(cache);
    CHECK_OK(normcache_close(cache));
}

/**
 * write and read: each NULL in turn is EINVAL (a NULL/0 response: EJSON), the outputs
 * are reset and nothing is written. out_changed may be NULL while out_len is not.
 */
static void test_null_write_and_read(void)
{
    normcache *cache = open_seeded();
    normcache_op *op = prepare(cache, query_a);
    normcache_op *seed = prepare(cache, "{ seed }");
    size_t response_len = strlen(response_a);
    char *out;
    size_t out_len;

    preset(&out, &out_len);
    CHECK_FAILS(normcache_write(NULL, op, NULL, 0, response_a, response_len, &out, &out_len),
                NORMCACHE_EINVAL, "the cache handle is NULL");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write(cache, NULL, NULL, 0, response_a, response_len, &out, &out_len),
                NORMCACHE_EINVAL, "the operation handle is NULL");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write(cache, op, NULL, 2, response_a, response_len, &out, &out_len),
                NORMCACHE_EINVAL, "variables_json is NULL but its length is 2");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write(cache, op, NULL, 0, NULL, response_len, &out, &out_len),
                NORMCACHE_EINVAL, "response_json is NULL but its length is");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write(cache, op, NULL, 0, NULL, 0, &out, &out_len), NORMCACHE_EJSON,
                "JSON error at byte 0");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write(cache, op, NULL, 0, response_a, response_len, &out, NULL),
                NORMCACHE_EINVAL, "out_changed or its length pointer is NULL");
    CHECK(out == NULL);
    CHECK_SEEDED(cache);

    preset(&out, &out_len);
    CHECK_FAILS(normcache_read(NULL, seed, NULL, 0, 0, &out, &out_len), NORMCACHE_EINVAL,
                "the cache handle is NULL");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read(cache, NULL, NULL, 0, 0, &out, &out_len), NORMCACHE_EINVAL,
                "the operation handle is NULL");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read(cache, seed, NULL, 2, 0, &out, &out_len), NORMCACHE_EINVAL,
                "variables_json is NULL but its length is 2");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read(cache, seed, NULL, 0, 0, NULL, &out_len), NORMCACHE_EINVAL,
                "out_json or its length pointer is NULL");
    CHECK(out_len == 0);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read(cache, seed, NULL, 0, 0, &out, NULL), NORMCACHE_EINVAL,
                "out_json or its length pointer is NULL");
    CHECK(out == NULL);
    CHECK_SEEDED(cache);

    /* out_changed NULL with a length pointer: the changes are not wanted, the write works. */
    CHECK_OK(normcache_write(cache, seed, NULL, 0, "{\"data\": {\"seed\": 1}}", 21, NULL, &out_len));
    CHECK_SEEDED(cache);

    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_op_free(seed));
    CHECK_OK(normcache_close(cache));
}

/**
 * read_fragment and write_fragment: each NULL in turn is EINVAL (a NULL/0 key too: it
 * is empty; NULL/0 data is EJSON), the outputs are reset and nothing is written.
 */
static void test_null_fragments(void)
{
    normcache *cache = open_seeded();
    normcache_op *fragment = prepare(cache, fragment_a);
    size_t data_len = strlen(fragment_data);
    char *out;
    size_t out_len;

    preset(&out, &out_len);
    CHECK_FAILS(normcache_read_fragment(NULL, fragment, "A:7", 3, NULL, 0, 0, &out, &out_len),
                NORMCACHE_EINVAL, "the cache handle is NULL");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read_fragment(cache, NULL, "A:7", 3, NULL, 0, 0, &out, &out_len),
                NORMCACHE_EINVAL, "the operation handle is NULL");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read_fragment(cache, fragment, NULL, 3, NULL, 0, 0, &out, &out_len),
                NORMCACHE_EINVAL, "key is NULL but its length is 3");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read_fragment(cache, fragment, NULL, 0, NULL, 0, 0, &out, &out_len),
                NORMCACHE_EINVAL, "empty record key");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read_fragment(cache, fragment, "A:7", 3, NULL, 2, 0, &out, &out_len),
                NORMCACHE_EINVAL, "variables_json is NULL but its length is 2");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read_fragment(cache, fragment, "A:7", 3, NULL, 0, 0, NULL, &out_len),
                NORMCACHE_EINVAL, "out_json or its length pointer is NULL");
    CHECK(out_len == 0);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read_fragment(cache, fragment, "A:7", 3, NULL, 0, 0, &out, NULL),
                NORMCACHE_EINVAL, "out_json or its length pointer is NULL");
    CHECK(out == NULL);

    preset(&out, &out_len);
    CHECK_FAILS(normcache_write_fragment(NULL, fragment, "A:7", 3, fragment_data, data_len,
                                         NULL, 0, &out, &out_len),
                NORMCACHE_EINVAL, "the cache handle is NULL");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write_fragment(cache, NULL, "A:7", 3, fragment_data, data_len,
                                         NULL, 0, &out, &out_len),
                NORMCACHE_EINVAL, "the operation handle is NULL");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write_fragment(cache, fragment, NULL, 3, fragment_data, data_len,
                                         NULL, 0, &out, &out_len),
                NORMCACHE_EINVAL, "key is NULL but its length is 3");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write_fragment(cache, fragment, NULL, 0, fragment_data, data_len,
                                         NULL, 0, &out, &out_len),
                NORMCACHE_EINVAL, "empty record key");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write_fragment(cache, fragment, "A:7", 3, NULL, data_len,
                                         NULL, 0, &out, &out_len),
                NORMCACHE_EINVAL, "data_json is NULL but its length is");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write_fragment(cache, fragment, "A:7", 3, NULL, 0,
                                         NULL, 0, &out, &out_len),
                NORMCACHE_EJSON, "JSON error at byte 0");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write_fragment(cache, fragment, "A:7", 3, fragment_data, data_len,
                                         NULL, 2, &out, &out_len),
                NORMCACHE_EINVAL, "variables_json is NULL but its length is 2");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write_fragment(cache, fragment, "A:7", 3, fragment_data, data_len,
                                         NULL, 0, &out, NULL),
                NORMCACHE_EINVAL, "out_changed or its length pointer is NULL");
    CHECK(out == NULL);

    CHECK_OK(normcache_op_free(fragment));
    CHECK_SEEDED(cache);
    CHECK_OK(normcache_close(cache));
}

/** The key resolver of test_null_resolver_arguments: probes object_member and key_set. */
static int null_argument_resolver(void *context, const char *typename_, size_t typename_len,
                                  const normcache_object *object, normcache_key *key)
{
    int *calls = context;
    const char *json = "x";
    size_t json_len = 9;
    (void)typename_;
    (void)typename_len;
    ++*calls;
    CHECK_FAILS(normcache_object_member(NULL, "c", 1, &json, &json_len), NORMCACHE_EINVAL,
                "object, out_json or out_len is NULL");
    CHECK(json == NULL && json_len == 0);
    json = "x";
    json_len = 9;
    CHECK_FAILS(normcache_object_member(object, NULL, 2, &json, &json_len), NORMCACHE_EINVAL,
                "name is NULL but its length is 2");
    CHECK(json == NULL && json_len == 0);
    json_len = 9;
    CHECK_FAILS(normcache_object_member(object, "c", 1, NULL, &json_len), NORMCACHE_EINVAL,
                "object, out_json or out_len is NULL");
    CHECK(json_len == 0);
    json = "x";
    CHECK_FAILS(normcache_object_member(object, "c", 1, &json, NULL), NORMCACHE_EINVAL,
                "object, out_json or out_len is NULL");
    CHECK(json == NULL);

    CHECK_FAILS(normcache_key_set(NULL, "1", 1, "G", 1), NORMCACHE_EINVAL, "key is NULL");
    CHECK_FAILS(normcache_key_set(key, NULL, 0, "G", 1), NORMCACHE_EINVAL, "empty id");
    CHECK_FAILS(normcache_key_set(key, NULL, 4, "G", 1), NORMCACHE_EINVAL,
                "id is NULL but its length is 4");
    CHECK_FAILS(normcache_key_set(key, "1", 1, NULL, 3), NORMCACHE_EINVAL,
                "group is NULL but its length is 3");
    return NORMCACHE_OK;
}

/**
 * Inside a resolver: object_member and key_set with each NULL in turn are EINVAL with
 * the outputs reset; the failed calls leave no key, so the objects are keyed by path.
 */
static void test_null_resolver_arguments(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    normcache_op *op;
    int calls = 0;

    CHECK_OK(normcache_set_key_resolver(cache, null_argument_resolver, &calls));
    op = prepare(cache, query_a);
    CHECK_OK(normcache_write(cache, op, NULL, 0, response_a, strlen(response_a), NULL, NULL));
    CHECK(calls == 2);
    CHECK_SEARCH(cache, "", NULL, 0, "[\"QUERY_ROOT\",\"QUERY_ROOT.a\",\"QUERY_ROOT.a.b\"]");
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
}

/** errstr: 6, the first positive code not defined, is unknown; NORMCACHE_MISS is a code this header defines. */
static void test_errstr_and_free(void)
{
    const char *miss = normcache_errstr(NORMCACHE_MISS);
    CHECK(strcmp(normcache_errstr(6), "unknown status code") == 0);
    CHECK(strcmp(normcache_errstr(-14), "unknown status code") == 0);
    CHECK(normcache_errstr(6) == normcache_errstr(6));
    CHECK(miss != NULL && miss[0] != '\0');
    if (strcmp(miss, "unknown status code") == 0 ||
        strcmp(miss, normcache_errstr(NORMCACHE_NOTFOUND)) == 0 ||
        strcmp(miss, normcache_errstr(NORMCACHE_OK)) == 0) {
        nc_fail(__FILE__, __LINE__, "errstr(NORMCACHE_MISS) is \"%s\", not a text of its own",
                miss);
    }
    normcache_free(NULL);
}

/* ---------------------------------------------------------------------------
 * Closed handles, freed operations, operations of another kind
 * ------------------------------------------------------------------------- */

/** A resolver that keys every object with an "id" as "Kept:<id>" and counts its calls. */
static int counting_resolver(void *context, const char *typename_, size_t typename_len,
                             const normcache_object *object, normcache_key *key)
{
    int *calls = context;
    const char *json = NULL;
    size_t json_len = 0;
    (void)typename_;
    (void)typename_len;
    ++*calls;
    if (normcache_object_member(object, "id", 2, &json, &json_len) != NORMCACHE_OK) {
        return NORMCACHE_OK;
    }
    return normcache_key_set(key, json, json_len, "Kept", 4);
}

/**
 * Fails unless the functions that only touch the rules of `cache` (prepare,
 * load_schema, configure, set_key_resolver) are EINVAL with `reason` in the message,
 * with *out_op reset.
 */
static void check_rules_refused(normcache *cache, const char *reason)
{
    normcache_op *op = OP_SENTINEL;
    CHECK_FAILS(normcache_prepare(cache, query_a, strlen(query_a), NULL, 0, &op),
                NORMCACHE_EINVAL, reason);
    CHECK(op == NULL);
    CHECK_FAILS(normcache_load_schema(cache, "type Query { a: Int }", 21), NORMCACHE_EINVAL,
                reason);
    CHECK_FAILS(normcache_configure(cache, "{}", 2), NORMCACHE_EINVAL, reason);
    CHECK_FAILS(normcache_set_key_resolver(cache, NULL, NULL), NORMCACHE_EINVAL, reason);
}

/**
 * Every operation function on a closed handle is EINVAL with the outputs reset; an
 * operation prepared on it stays valid ("stays valid after the handle is closed"),
 * resolver and all, and works through another handle on the same file.
 */
static void test_closed_handle(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache;
    normcache *other;
    normcache_op *op;
    normcache_op *fragment;
    const char *closed = "the cache handle is closed or was never opened";
    char *out;
    size_t out_len;
    int calls = 0;

    nc_temp_path(path, "closed");
    cache = NC_OPEN(path, "{\"durability\": \"fast\"}");
    CHECK_OK(normcache_set_key_resolver(cache, counting_resolver, &calls));
    op = prepare(cache, query_a);
    fragment = prepare(cache, fragment_a);
    CHECK_OK(normcache_close(cache));
    CHECK_FAILS(normcache_close(cache), NORMCACHE_EINVAL, closed);

    check_rules_refused(cache, closed);
    CHECK_FAILS(normcache_set_key_resolver(cache, counting_resolver, &calls), NORMCACHE_EINVAL,
                closed);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write(cache, op, NULL, 0, response_a, strlen(response_a), &out,
                                &out_len),
                NORMCACHE_EINVAL, closed);
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read(cache, op, NULL, 0, 0, &out, &out_len), NORMCACHE_EINVAL, closed);
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read_fragment(cache, fragment, "Kept:7", 6, NULL, 0, 0, &out,
                                        &out_len),
                NORMCACHE_EINVAL, closed);
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write_fragment(cache, fragment, "Kept:7", 6, fragment_data,
                                         strlen(fragment_data), NULL, 0, &out, &out_len),
                NORMCACHE_EINVAL, closed);
    CHECK_RESET(out, out_len);
    CHECK(calls == 0);

    /* The operations outlive the handle, and keep its resolver and context. */
    CHECK_OK(normcache_op_document(op, &out, &out_len));
    nc_check_output(__FILE__, __LINE__, "document", out, out_len,
                    "{\n  a {\n    id\n    b {\n      c\n      __typename\n    }\n    __typename\n  }\n}");
    CHECK_OK(normcache_normalize(op, NULL, 0, response_a, strlen(response_a), &out, &out_len));
    nc_check_output(__FILE__, __LINE__, "records", out, out_len,
                    "{\"Kept:7.b\":{\"c\":1},\"Kept:7\":{\"id\":7,\"b\":{\"$reference\":\"Kept:7.b\"},"
                    "\"__typename\":\"A\"},\"QUERY_ROOT\":{\"a\":{\"$reference\":\"Kept:7\"}}}");
    CHECK(calls == 2);
    other = NC_OPEN(path, NULL);
    CHECK_OK(normcache_write(other, op, NULL, 0, response_a, strlen(response_a), NULL, NULL));
    CHECK(calls == 4);
    CHECK_SEARCH(other, "", NULL, 0, "[\"Kept:7\",\"Kept:7.b\",\"QUERY_ROOT\"]");
    CHECK_OK(normcache_read_fragment(other, fragment, "Kept:7", 6, NULL, 0, 0, &out, &out_len));
    nc_check_output(__FILE__, __LINE__, "fragment", out, out_len, "{\"id\":7}");
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_op_free(fragment));
    CHECK_OK(normcache_close(other));
}

/**
 * A freed operation is EINVAL in normalize, write, read_fragment and write_fragment
 * (op_document, read and a second op_free are in test_operations.c), and a slot reused
 * by a later prepare does not revive the old handle.
 */
static void test_freed_operation(void)
{
    normcache *cache = open_seeded();
    normcache_op *op = prepare(cache, query_a);
    normcache_op *fragment = prepare(cache, fragment_a);
    normcache_op *reused;
    const char *freed = "the operation handle is closed or was never opened";
    char *out;
    size_t out_len;

    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_op_free(fragment));
    reused = prepare(cache, query_a);
    CHECK(reused != op);

    preset(&out, &out_len);
    CHECK_FAILS(normcache_normalize(op, NULL, 0, response_a, strlen(response_a), &out, &out_len),
                NORMCACHE_EINVAL, freed);
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write(cache, op, NULL, 0, response_a, strlen(response_a), &out,
                                &out_len),
                NORMCACHE_EINVAL, freed);
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read_fragment(cache, fragment, "A:7", 3, NULL, 0, 0, &out, &out_len),
                NORMCACHE_EINVAL, freed);
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write_fragment(cache, fragment, "A:7", 3, fragment_data,
                                         strlen(fragment_data), NULL, 0, &out, &out_len),
                NORMCACHE_EINVAL, freed);
    CHECK_RESET(out, out_len);
    CHECK_FAILS(normcache_op_free(fragment), NORMCACHE_EINVAL, freed);
    CHECK_SEEDED(cache);
    CHECK_OK(normcache_op_free(reused));
    CHECK_OK(normcache_close(cache));
}

/** An operation given to the fragment functions, and a fragment to write and read, are EINVAL. */
static void test_operation_of_the_wrong_kind(void)
{
    normcache *cache = open_seeded();
    normcache_op *op = prepare(cache, query_a);
    normcache_op *fragment = prepare(cache, fragment_a);
    char *out;
    size_t out_len;

    preset(&out, &out_len);
    CHECK_FAILS(normcache_write(cache, fragment, NULL, 0, response_a, strlen(response_a), &out,
                                &out_len),
                NORMCACHE_EINVAL, "'F' is a fragment");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_normalize(fragment, NULL, 0, response_a, strlen(response_a), &out,
                                    &out_len),
                NORMCACHE_EINVAL, "'F' is a fragment");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read(cache, fragment, NULL, 0, 0, &out, &out_len), NORMCACHE_EINVAL,
                "'F' is a fragment");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read_fragment(cache, op, "Seed:1", 6, NULL, 0, 0, &out, &out_len),
                NORMCACHE_EINVAL, "is an operation, not a fragment");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write_fragment(cache, op, "Seed:1", 6, fragment_data,
                                         strlen(fragment_data), NULL, 0, &out, &out_len),
                NORMCACHE_EINVAL, "is an operation, not a fragment");
    CHECK_RESET(out, out_len);
    CHECK_SEEDED(cache);
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_op_free(fragment));
    CHECK_OK(normcache_close(cache));
}

/* ---------------------------------------------------------------------------
 * Values that lie: JSON of the wrong shape, limits and flags out of range
 * ------------------------------------------------------------------------- */

/** Variables, responses, data and configurations that are JSON but not objects. */
static void test_json_of_the_wrong_shape(void)
{
    static const char *const not_objects[] = {"[]", "null", "1", "\"x\"", "true", "[{}]"};
    normcache *cache = open_seeded();
    normcache_op *op = prepare(cache, query_a);
    normcache_op *seed = prepare(cache, "{ seed }");
    normcache_op *fragment = prepare(cache, fragment_a);
    char *out;
    size_t out_len;
    size_t i;

    for (i = 0; i < sizeof not_objects / sizeof not_objects[0]; i++) {
        const char *value = not_objects[i];
        size_t len = strlen(value);
        preset(&out, &out_len);
        CHECK_FAILS(normcache_normalize(op, value, len, response_a, strlen(response_a), &out,
                                        &out_len),
                    NORMCACHE_EJSON, "variables must be a JSON object");
        CHECK_RESET(out, out_len);
        preset(&out, &out_len);
        CHECK_FAILS(normcache_write(cache, op, value, len, response_a, strlen(response_a), &out,
                                    &out_len),
                    NORMCACHE_EJSON, "variables must be a JSON object");
        CHECK_RESET(out, out_len);
        preset(&out, &out_len);
        CHECK_FAILS(normcache_read(cache, seed, value, len, 0, &out, &out_len), NORMCACHE_EJSON,
                    "variables must be a JSON object");
        CHECK_RESET(out, out_len);
        preset(&out, &out_len);
        CHECK_FAILS(normcache_read_fragment(cache, fragment, "Seed:1", 6, value, len, 0, &out,
                                            &out_len),
                    NORMCACHE_EJSON, "variables must be a JSON object");
        CHECK_RESET(out, out_len);
        preset(&out, &out_len);
        CHECK_FAILS(normcache_write_fragment(cache, fragment, "A:7", 3, fragment_data,
                                             strlen(fragment_data), value, len, &out, &out_len),
                    NORMCACHE_EJSON, "variables must be a JSON object");
        CHECK_RESET(out, out_len);

        /* A response that is not an object does not match the operation. */
        preset(&out, &out_len);
        CHECK_FAILS(normcache_write(cache, op, NULL, 0, value, len, &out, &out_len),
                    NORMCACHE_EDATA, "a GraphQL response must be a JSON object with 'data'");
        CHECK_RESET(out, out_len);
        /* Fragment data that is not an object does not match the fragment. */
        preset(&out, &out_len);
        CHECK_FAILS(normcache_write_fragment(cache, fragment, "A:7", 3, value, len, NULL, 0, &out,
                                             &out_len),
                    NORMCACHE_EDATA, "invalid response data");
        CHECK_RESET(out, out_len);
        CHECK_FAILS(normcache_configure(cache, value, len), NORMCACHE_EINVAL,
                    "must be a JSON object");
    }
    /* "data" of the wrong shape is EDATA too. */
    CHECK_FAILS(normcache_write(cache, op, NULL, 0, "{\"data\": [1]}", 13, NULL, NULL),
                NORMCACHE_EDATA, "invalid response data");
    CHECK_SEEDED(cache);
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_op_free(seed));
    CHECK_OK(normcache_op_free(fragment));
    CHECK_OK(normcache_close(cache));
}

/** A search limit up to SIZE_MAX/2 is "no limit that matters"; above it, EINVAL. Flags likewise. */
static void test_limits_and_flags(void)
{
    normcache *cache = open_seeded();
    normcache_op *seed = prepare(cache, "{ seed }");
    normcache_op *fragment = prepare(cache, fragment_a);
    char *out;
    size_t out_len;

    CHECK_SEARCH(cache, "", NULL, SIZE_MAX / 2, "[\"QUERY_ROOT\",\"Seed:1\"]");
    CHECK_SEARCH(cache, "", "QUERY_ROOT", SIZE_MAX / 2, "[\"Seed:1\"]");
    preset(&out, &out_len);
    CHECK_FAILS(normcache_search(cache, "", 0, NULL, 0, SIZE_MAX / 2 + 1, &out, &out_len),
                NORMCACHE_EINVAL, "limit");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_search(cache, "", 0, NULL, 0, SIZE_MAX, &out, &out_len),
                NORMCACHE_EINVAL, "limit");
    CHECK_RESET(out, out_len);

    preset(&out, &out_len);
    CHECK_FAILS(normcache_read(cache, seed, NULL, 0, ~0u, &out, &out_len), NORMCACHE_EINVAL,
                "unknown read flags 0xffffffff");
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read_fragment(cache, fragment, "Seed:1", 6, NULL, 0,
                                        NORMCACHE_READ_PARTIAL | 2u, &out, &out_len),
                NORMCACHE_EINVAL, "unknown read flags 0x3");
    CHECK_RESET(out, out_len);
    /* A NULL pointer whose length has the top bit set is refused like any NULL with a length. */
    preset(&out, &out_len);
    CHECK_CODE(normcache_read(cache, seed, NULL, SIZE_MAX, 0, &out, &out_len), NORMCACHE_EINVAL);
    CHECK_CONTAINS(normcache_errmsg(), "variables_json");
    CHECK_RESET(out, out_len);

    CHECK_SEEDED(cache);
    CHECK_OK(normcache_op_free(seed));
    CHECK_OK(normcache_op_free(fragment));
    CHECK_OK(normcache_close(cache));
}

/* ---------------------------------------------------------------------------
 * Key resolvers that call back into the library
 * ------------------------------------------------------------------------- */

/** What a reentrant resolver works on, and what it saw. */
typedef struct reentry {
    normcache *cache;     /**< the handle the write runs on */
    normcache_op *seed;   /**< "{ seed }", read from inside the resolver */
    normcache_op *nested; /**< "{ nested }", written from inside the resolver */
    int calls;            /**< resolver calls so far */
} reentry;

/**
 * For the object of type A: gets, reads, searches, puts and writes through the handle
 * whose write is running, then keys the object "Node:<id>"; other objects get no key.
 */
static int reentrant_resolver(void *context, const char *typename_, size_t typename_len,
                              const normcache_object *object, normcache_key *key)
{
    reentry *state = context;
    const char *side = "{\"Side:1\": {\"by\": \"resolver\"}}";
    char nested[64];
    const char *json = NULL;
    size_t json_len = 0;
    char *out = NULL;
    size_t out_len = 0;

    state->calls++;
    if (typename_ == NULL || typename_len != 1 || typename_[0] != 'A') {
        return NORMCACHE_OK;
    }
    CHECK_GET(state->cache, "Seed:1", "{\"v\":1}");
    CHECK_OK(normcache_read(state->cache, state->seed, NULL, 0, 0, &out, &out_len));
    nc_check_output(__FILE__, __LINE__, "read in resolver", out, out_len, "{\"seed\":1}");
    CHECK_SEARCH(state->cache, "Seed:", NULL, 0, "[\"Seed:1\"]");
    CHECK_PUT(state->cache, side, "[\"Side:1.by\"]");
    snprintf(nested, sizeof nested, "{\"data\": {\"nested\": %d}}", state->calls);
    CHECK_OK(normcache_write(state->cache, state->nested, NULL, 0, nested, strlen(nested), &out,
                             &out_len));
    nc_check_output(__FILE__, __LINE__, "nested write", out, out_len, "[\"QUERY_ROOT.nested\"]");
    CHECK_GET(state->cache, "Side:1", "{\"by\":\"resolver\"}");
    CHECK_OK(normcache_object_member(object, "id", 2, &json, &json_len));
    return normcache_key_set(key, json, json_len, "Node", 4);
}

/**
 * A resolver may read, search, put and write through the very handle whose write (or
 * write_fragment) calls it: normalizing comes before the write's transaction, so
 * nothing deadlocks, and every write commits.
 */
static void test_resolver_calls_back(void)
{
    normcache *cache = open_seeded();
    reentry state;
    normcache_op *op;
    normcache_op *fragment;
    const char *data = "{\"a\": {\"__typename\": \"A\", \"id\": 8}}";
    char *out = NULL;
    size_t out_len = 0;

    memset(&state, 0, sizeof state);
    state.cache = cache;
    state.seed = prepare(cache, "{ seed }");
    state.nested = prepare(cache, "{ nested }");
    CHECK_OK(normcache_set_key_resolver(cache, reentrant_resolver, &state));
    op = prepare(cache, query_a);
    fragment = prepare(cache, "fragment G on Q { a { id } }");

    CHECK_OK(normcache_write(cache, op, NULL, 0, response_a, strlen(response_a), &out, &out_len));
    nc_check_output(__FILE__, __LINE__, "changed", out, out_len,
                    "[\"Node:7.b.c\",\"Node:7.id\",\"Node:7.b\",\"Node:7.__typename\",\"QUERY_ROOT.a\"]");
    CHECK(state.calls == 2);
    CHECK_GET(cache, "QUERY_ROOT",
              "{\"a\":{\"$reference\":\"Node:7\"},\"nested\":1,\"seed\":1}");
    CHECK_GET(cache, "Node:7",
              "{\"__typename\":\"A\",\"b\":{\"$reference\":\"Node:7.b\"},\"id\":7}");
    CHECK_GET(cache, "Side:1", "{\"by\":\"resolver\"}");

    CHECK_OK(normcache_remove(cache, "Side:1", 6));
    CHECK_OK(normcache_write_fragment(cache, fragment, "Q:1", 3, data, strlen(data), NULL, 0,
                                      NULL, NULL));
    /* The fragment's root is the record "Q:1": only the object below it meets the resolver. */
    CHECK(state.calls == 3);
    CHECK_GET(cache, "Q:1", "{\"a\":{\"$reference\":\"Node:8\"}}");
    CHECK_GET(cache, "Node:8", "{\"__typename\":\"A\",\"id\":8}");
    CHECK_GET(cache, "Side:1", "{\"by\":\"resolver\"}");

    /* normalize touches no cache, but its resolver may. */
    CHECK_OK(normcache_remove(cache, "Side:1", 6));
    CHECK_OK(normcache_normalize(op, NULL, 0, response_a, strlen(response_a), &out, &out_len));
    normcache_free(out);
    CHECK(state.calls == 5);
    CHECK_GET(cache, "Side:1", "{\"by\":\"resolver\"}");

    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_op_free(fragment));
    CHECK_OK(normcache_op_free(state.seed));
    CHECK_OK(normcache_op_free(state.nested));
    CHECK_OK(normcache_close(cache));
}

/** What the closing resolver closes, and the code its close got. */
typedef struct closer {
    normcache *cache; /**< the handle to close */
    int calls;        /**< resolver calls so far */
    int close_code;   /**< what normcache_close returned inside the resolver */
} closer;

/** Closes the handle whose write is running (on its first call), then keys the object. */
static int closing_resolver(void *context, const char *typename_, size_t typename_len,
                            const normcache_object *object, normcache_key *key)
{
    closer *state = context;
    (void)typename_;
    (void)typename_len;
    (void)object;
    if (state->calls++ == 0) {
        state->close_code = normcache_close(state->cache);
    }
    return normcache_key_set(key, "1", 1, "Closed", 6);
}

/**
 * A resolver that closes the handle its write runs on: the close succeeds (the write
 * holds no transaction yet), the write then finds its handle closed and fails with
 * EINVAL, writing nothing; a second close is EINVAL. Another handle on the file goes on.
 */
static void test_resolver_closes_its_handle(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache;
    normcache *observer;
    normcache_op *op;
    closer state = {NULL, 0, 99};
    char *out;
    size_t out_len;

    nc_temp_path(path, "close-in-resolver");
    cache = NC_OPEN(path, "{\"durability\": \"fast\"}");
    observer = NC_OPEN(path, NULL);
    state.cache = cache;
    CHECK_OK(normcache_set_key_resolver(cache, closing_resolver, &state));
    op = prepare(cache, query_a);

    preset(&out, &out_len);
    CHECK_FAILS(normcache_write(cache, op, NULL, 0, response_a, strlen(response_a), &out,
                                &out_len),
                NORMCACHE_EINVAL, "is closed");
    CHECK_RESET(out, out_len);
    CHECK_CODE(state.close_code, NORMCACHE_OK);
    CHECK(state.calls == 2);
    CHECK_FAILS(normcache_close(cache), NORMCACHE_EINVAL,
                "the cache handle is closed or was never opened");
    CHECK_SEARCH(observer, "", NULL, 0, "[]");

    /* The operation and its resolver still work through the other handle. */
    state.cache = NULL;
    CHECK_OK(normcache_write(observer, op, NULL, 0, response_a, strlen(response_a), NULL, NULL));
    CHECK(state.calls == 4);
    CHECK_SEARCH(observer, "", NULL, 0, "[\"Closed:1\",\"QUERY_ROOT\"]");
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(observer));
}

/** What the swapping resolvers see: the handle, and each resolver's calls. */
typedef struct swapper {
    normcache *cache; /**< the handle whose resolver is swapped */
    int first_calls;  /**< calls of swapping_resolver */
    int second_calls; /**< calls of second_resolver */
} swapper;

/** The resolver swapped in: keys objects with an id "Second:<id>". */
static int second_resolver(void *context, const char *typename_, size_t typename_len,
                           const normcache_object *object, normcache_key *key)
{
    swapper *state = context;
    const char *json = NULL;
    size_t json_len = 0;
    (void)typename_;
    (void)typename_len;
    state->second_calls++;
    if (normcache_object_member(object, "id", 2, &json, &json_len) != NORMCACHE_OK) {
        return NORMCACHE_OK;
    }
    return normcache_key_set(key, json, json_len, "Second", 6);
}

/** Replaces itself with second_resolver on the handle, then keys objects with an id "First:<id>". */
static int swapping_resolver(void *context, const char *typename_, size_t typename_len,
                             const normcache_object *object, normcache_key *key)
{
    swapper *state = context;
    const char *json = NULL;
    size_t json_len = 0;
    (void)typename_;
    (void)typename_len;
    state->first_calls++;
    CHECK_OK(normcache_set_key_resolver(state->cache, second_resolver, state));
    if (normcache_object_member(object, "id", 2, &json, &json_len) != NORMCACHE_OK) {
        return NORMCACHE_OK;
    }
    return normcache_key_set(key, json, json_len, "First", 5);
}

/**
 * A resolver that sets the handle's resolver during a write: the running write (and
 * any later use of its operation) keeps the resolver it was prepared with; operations
 * prepared afterwards get the new one.
 */
static void test_resolver_replaces_itself(void)
{
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    swapper state = {NULL, 0, 0};
    normcache_op *op;
    normcache_op *later;
    const char *response_b = "{\"data\": {\"a\": {\"__typename\": \"A\", \"id\": 9, \"b\": {\"c\": 2}}}}";

    state.cache = cache;
    CHECK_OK(normcache_set_key_resolver(cache, swapping_resolver, &state));
    op = prepare(cache, query_a);
    CHECK_OK(normcache_write(cache, op, NULL, 0, response_a, strlen(response_a), NULL, NULL));
    CHECK(state.first_calls == 2 && state.second_calls == 0);
    CHECK_SEARCH(cache, "", NULL, 0, "[\"First:7\",\"First:7.b\",\"QUERY_ROOT\"]");

    later = prepare(cache, query_a);
    CHECK_OK(normcache_write(cache, later, NULL, 0, response_b, strlen(response_b), NULL, NULL));
    CHECK(state.first_calls == 2 && state.second_calls == 2);
    CHECK_GET(cache, "QUERY_ROOT", "{\"a\":{\"$reference\":\"Second:9\"}}");

    CHECK_OK(normcache_write(cache, op, NULL, 0, response_b, strlen(response_b), NULL, NULL));
    CHECK(state.first_calls == 4 && state.second_calls == 2);
    CHECK_GET(cache, "QUERY_ROOT", "{\"a\":{\"$reference\":\"First:9\"}}");
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_op_free(later));
    CHECK_OK(normcache_close(cache));
}

/** The length of the absurdly long id of key_set_resolver: 1 MiB. */
#define LONG_ID_LENGTH ((size_t)1 << 20)

/** The long id: LONG_ID_LENGTH 'x' bytes, made by test_key_set_misuse. */
static char *long_id;

/**
 * Answers for A: "first" in group G, then failing calls (which keep that answer), then
 * "second" with an empty group (the typename's), then more failing calls; for the
 * object without __typename, the 1 MiB id in group "Long".
 */
static int key_set_resolver(void *context, const char *typename_, size_t typename_len,
                            const normcache_object *object, normcache_key *key)
{
    int *calls = context;
    (void)typename_len;
    (void)object;
    ++*calls;
    if (typename_ == NULL) {
        return normcache_key_set(key, long_id, LONG_ID_LENGTH, "Long", 4);
    }
    CHECK_OK(normcache_key_set(key, "first", 5, "G", 1));
    CHECK_FAILS(normcache_key_set(key, "", 0, NULL, 0), NORMCACHE_EINVAL, "empty id");
    CHECK_FAILS(normcache_key_set(key, "\xff", 1, NULL, 0), NORMCACHE_EINVAL,
                "id is not valid UTF-8");
    CHECK_FAILS(normcache_key_set(key, "x", 1, "\xc0\xaf", 2), NORMCACHE_EINVAL,
                "group is not valid UTF-8");
    CHECK_OK(normcache_key_set(key, "second", 6, "", 0));
    CHECK_FAILS(normcache_key_set(key, NULL, 0, "G", 1), NORMCACHE_EINVAL, "empty id");
    CHECK_FAILS(normcache_key_set(key, "y", 1, NULL, 1), NORMCACHE_EINVAL,
                "group is NULL but its length is 1");
    return NORMCACHE_OK;
}

/**
 * key_set called many times: the last successful call is the answer, failed calls
 * change nothing, an empty group means the typename, and a 1 MiB id makes a 1 MiB
 * record key that can be stored, found and searched.
 */
static void test_key_set_misuse(void)
{
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    normcache_op *op;
    nc_text long_key = {0};
    nc_text keys = {0};
    nc_text record = {0};
    char *out = NULL;
    size_t out_len = 0;
    int calls = 0;

    long_id = malloc(LONG_ID_LENGTH);
    CHECK(long_id != NULL);
    memset(long_id, 'x', LONG_ID_LENGTH);
    NC_APPEND_LITERAL(&long_key, "Long:");
    nc_append(&long_key, long_id, LONG_ID_LENGTH);

    CHECK_OK(normcache_set_key_resolver(cache, key_set_resolver, &calls));
    op = prepare(cache, query_a);
    CHECK_OK(normcache_write(cache, op, NULL, 0, response_a, strlen(response_a), NULL, NULL));
    CHECK(calls == 2);

    nc_check_get(__FILE__, __LINE__, cache, long_key.data, long_key.len, "{\"c\":1}");
    NC_APPEND_LITERAL(&record, "{\"__typename\":\"A\",\"b\":{\"$reference\":\"");
    nc_append(&record, long_key.data, long_key.len);
    NC_APPEND_LITERAL(&record, "\"},\"id\":7}");
    CHECK_GET(cache, "A:second", record.data);
    CHECK_NOTFOUND(cache, "G:first");
    CHECK_GET(cache, "QUERY_ROOT", "{\"a\":{\"$reference\":\"A:second\"}}");

    NC_APPEND_LITERAL(&keys, "[\"A:second\",\"");
    nc_append(&keys, long_key.data, long_key.len);
    NC_APPEND_LITERAL(&keys, "\",\"QUERY_ROOT\"]");
    CHECK_OK(normcache_search(cache, NULL, 0, NULL, 0, 0, &out, &out_len));
    nc_check_output(__FILE__, __LINE__, "keys", out, out_len, keys.data);

    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
    free(long_key.data);
    free(keys.data);
    free(record.data);
    free(long_id);
    long_id = NULL;
}

/** Keys every object, with no group: fine for A, an error for the object without __typename. */
static int groupless_resolver(void *context, const char *typename_, size_t typename_len,
                              const normcache_object *object, normcache_key *key)
{
    int *calls = context;
    (void)object;
    ++*calls;
    if (typename_ == NULL) {
        CHECK(typename_len == 0);
    }
    return normcache_key_set(key, "1", 1, NULL, 0);
}

/** Returns NORMCACHE_NOTFOUND, a positive status that is still not NORMCACHE_OK. */
static int positive_resolver(void *context, const char *typename_, size_t typename_len,
                             const normcache_object *object, normcache_key *key)
{
    (void)context;
    (void)typename_;
    (void)typename_len;
    (void)object;
    (void)key;
    return NORMCACHE_NOTFOUND;
}

/**
 * An id with no group for an object without __typename, and a resolver that returns a
 * positive status, fail the write with ECALLBACK and write nothing.
 */
static void test_resolver_answers_that_fail(void)
{
    normcache *cache = open_seeded();
    normcache_op *op;
    char *out;
    size_t out_len;
    int calls = 0;

    CHECK_OK(normcache_set_key_resolver(cache, groupless_resolver, &calls));
    op = prepare(cache, query_a);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write(cache, op, NULL, 0, response_a, strlen(response_a), &out,
                                &out_len),
                NORMCACHE_ECALLBACK,
                "the key resolver gave an id but no group for an object without __typename at a.b");
    CHECK_RESET(out, out_len);
    CHECK(calls == 2);
    CHECK_OK(normcache_op_free(op));

    CHECK_OK(normcache_set_key_resolver(cache, positive_resolver, NULL));
    op = prepare(cache, query_a);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write(cache, op, NULL, 0, response_a, strlen(response_a), &out,
                                &out_len),
                NORMCACHE_ECALLBACK, "the resolver returned status 2 for A");
    CHECK_RESET(out, out_len);
    CHECK_SEEDED(cache);
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
}

/** Fails unless member `name` (of `name_len` bytes) of `object` has exactly the JSON text `expected`. */
static void check_member(int line, const normcache_object *object, const char *name,
                         size_t name_len, const char *expected)
{
    const char *json = NULL;
    size_t json_len = 0;
    nc_check_code(__FILE__, line, "normcache_object_member",
                  normcache_object_member(object, name, name_len, &json, &json_len), NORMCACHE_OK);
    nc_check_bytes(__FILE__, line, "member", json, json_len, expected, strlen(expected));
}

/** Fails unless `object` has no member `name` (of `name_len` bytes), with the outputs reset and errmsg untouched. */
static void check_no_member(int line, const normcache_object *object, const char *name,
                            size_t name_len)
{
    const char *json = "x";
    size_t json_len = 9;
    char message[256];
    snprintf(message, sizeof message, "%s", normcache_errmsg());
    nc_check_code(__FILE__, line, "normcache_object_member",
                  normcache_object_member(object, name, name_len, &json, &json_len),
                  NORMCACHE_NOTFOUND);
    if (json != NULL || json_len != 0) {
        nc_fail(__FILE__, line, "outputs not reset on NORMCACHE_NOTFOUND");
    }
    if (strcmp(message, normcache_errmsg()) != 0) {
        nc_fail(__FILE__, line, "NORMCACHE_NOTFOUND changed errmsg to \"%s\"", normcache_errmsg());
    }
}

/**
 * Looks members up by odd names: missing ones, the empty name (NULL/0 and ""/0),
 * names with an embedded NUL, a name written with an escape in the response, and a
 * name that is not UTF-8.
 */
static int member_resolver(void *context, const char *typename_, size_t typename_len,
                           const normcache_object *object, normcache_key *key)
{
    int *calls = context;
    ++*calls;
    /* A failure first, so that check_no_member sees a message it must not change. */
    CHECK_CODE(normcache_key_set(key, NULL, 0, NULL, 0), NORMCACHE_EINVAL);
    if (typename_ == NULL) {
        check_no_member(__LINE__, object, NULL, 0);
        check_no_member(__LINE__, object, "", 0);
        check_no_member(__LINE__, object, "id", 2);
        check_member(__LINE__, object, "c", 1, "1");
        return NORMCACHE_OK;
    }
    CHECK(typename_len == 1 && strcmp(typename_, "A") == 0);
    check_no_member(__LINE__, object, "nope", 4);
    check_no_member(__LINE__, object, "ID", 2);
    check_no_member(__LINE__, object, "i", 1);
    check_no_member(__LINE__, object, "id\0", 3);
    check_no_member(__LINE__, object, "a", 1);
    check_no_member(__LINE__, object, "\xff", 1);
    check_member(__LINE__, object, "id", 2, "7");
    check_member(__LINE__, object, "idle", 2, "7");
    check_member(__LINE__, object, NULL, 0, "[]");
    check_member(__LINE__, object, "", 0, "[]");
    check_member(__LINE__, object, "a\0b", 3, "\"nul\"");
    check_member(__LINE__, object, "esc", 3, "\"d\\u0061ta\"");
    check_member(__LINE__, object, "b", 1, "{\"c\":1}");
    check_member(__LINE__, object, "__typename", 10, "\"A\"");
    return NORMCACHE_OK;
}

/** object_member with names that do not exist, empty names and embedded NULs. */
static void test_object_member_names(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    normcache_op *op;
    const char *response =
        "{\"data\": {\"a\": {\"__typename\": \"A\", \"id\": 7, \"\": [], \"a\\u0000b\": \"nul\", "
        "\"\\u0065sc\": \"d\\u0061ta\", \"b\": {\"c\":1}}}}";
    int calls = 0;

    CHECK_OK(normcache_set_key_resolver(cache, member_resolver, &calls));
    op = prepare(cache, query_a);
    CHECK_OK(normcache_write(cache, op, NULL, 0, response, strlen(response), NULL, NULL));
    CHECK(calls == 2);
    CHECK_SEARCH(cache, "", NULL, 0, "[\"QUERY_ROOT\",\"QUERY_ROOT.a\",\"QUERY_ROOT.a.b\"]");
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
}

/* ---------------------------------------------------------------------------
 * Operations inherited through fork()
 * ------------------------------------------------------------------------- */

/** The handle and operations the parent made before forking, for the child bodies. */
static normcache *fork_cache;
static normcache_op *fork_op;
static normcache_op *fork_fragment;

/**
 * Child body: every function given the inherited handle is EINVAL, even with an
 * inherited operation; the inherited operations work with a handle the child opens.
 */
static void fork_child(const char *path, int number)
{
    const char *inherited = "was opened before fork()";
    const char *response = "{\"data\": {\"a\": {\"__typename\": \"A\", \"id\": 5, \"b\": {\"c\": 3}}}}";
    normcache *cache;
    char *out;
    size_t out_len;
    (void)number;

    preset(&out, &out_len);
    CHECK_FAILS(normcache_read(fork_cache, fork_op, NULL, 0, 0, &out, &out_len),
                NORMCACHE_EINVAL, inherited);
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write(fork_cache, fork_op, NULL, 0, response, strlen(response), &out,
                                &out_len),
                NORMCACHE_EINVAL, inherited);
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_read_fragment(fork_cache, fork_fragment, "A:7", 3, NULL, 0, 0, &out,
                                        &out_len),
                NORMCACHE_EINVAL, inherited);
    CHECK_RESET(out, out_len);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_write_fragment(fork_cache, fork_fragment, "A:5", 3, "{\"id\": 5}", 9,
                                         NULL, 0, &out, &out_len),
                NORMCACHE_EINVAL, inherited);
    CHECK_RESET(out, out_len);

    /* The operations themselves are not tied to the process: they work with a new handle. */
    cache = NC_OPEN(path, NULL);
    out = document_of(fork_op);
    normcache_free(out);
    CHECK_OK(normcache_read(cache, fork_op, NULL, 0, 0, &out, &out_len));
    nc_check_output(__FILE__, __LINE__, "read", out, out_len, "{\"a\":{\"id\":7,\"b\":{\"c\":1}}}");
    CHECK_OK(normcache_read_fragment(cache, fork_fragment, "A:7", 3, NULL, 0, 0, &out, &out_len));
    nc_check_output(__FILE__, __LINE__, "fragment", out, out_len, "{\"id\":7}");
    CHECK_OK(normcache_write(cache, fork_op, NULL, 0, response, strlen(response), NULL, NULL));
    CHECK_OK(normcache_op_free(fork_op));
    CHECK_CODE(normcache_op_free(fork_op), NORMCACHE_EINVAL);
    CHECK_OK(normcache_close(cache));
}

/**
 * After fork(), the child's calls with the inherited handle are EINVAL; its inherited
 * operations work through a handle it opens; freeing them there does not free the
 * parent's.
 */
static void test_operations_across_fork(void)
{
    const char *config = "{\"typePolicies\": {\"A\": {\"keyFields\": [\"id\"]}}}";
    char path[NC_PATH_SIZE];
    char *out = NULL;
    size_t out_len = 0;

    nc_temp_path(path, "fork");
    fork_cache = NC_OPEN(path, NULL);
    CHECK_OK(normcache_configure(fork_cache, config, strlen(config)));
    fork_op = prepare(fork_cache, query_a);
    fork_fragment = prepare(fork_cache, fragment_a);
    CHECK_OK(normcache_write(fork_cache, fork_op, NULL, 0, response_a, strlen(response_a), NULL,
                             NULL));
    CHECK_CHILD_PASSED(nc_spawn(fork_child, path, 0));

    CHECK_OK(normcache_read(fork_cache, fork_op, NULL, 0, 0, &out, &out_len));
    nc_check_output(__FILE__, __LINE__, "read", out, out_len, "{\"a\":{\"id\":5,\"b\":{\"c\":3}}}");
    CHECK_GET(fork_cache, "A:7", "{\"__typename\":\"A\",\"b\":{\"$reference\":\"A:7.b\"},\"id\":7}");
    CHECK_OK(normcache_op_free(fork_op));
    CHECK_OK(normcache_op_free(fork_fragment));
    CHECK_OK(normcache_close(fork_cache));
}

/** Child body: the rules of the inherited handle are refused (check_rules_refused). */
static void inherited_rules_child(const char *path, int number)
{
    (void)path;
    (void)number;
    check_rules_refused(fork_cache, "was opened before fork()");
}

/**
 * After fork(), the functions that only touch a handle's rules (prepare, load_schema,
 * configure, set_key_resolver) are calls on an inherited handle like any other:
 * EINVAL, with *out_op reset.
 */
static void test_rules_of_an_inherited_handle(void)
{
    fork_cache = NC_OPEN_FRESH(NULL);
    CHECK_CHILD_PASSED(nc_spawn(inherited_rules_child, "", 0));
    CHECK_OK(normcache_close(fork_cache));
}

/* ---------------------------------------------------------------------------
 * Empty names
 * ------------------------------------------------------------------------- */

/**
 * An empty operation_name that is not NULL is the same empty input as NULL/0 (the
 * header's conventions), so it picks the only operation, or the only fragment.
 */
static void test_empty_operation_name(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    normcache_op *op = NULL;
    char *expected;
    char *got;

    CHECK_OK(normcache_prepare(cache, query_a, strlen(query_a), "", 0, &op));
    CHECK(op != NULL);
    CHECK_OK(normcache_op_free(op));
    op = NULL;
    CHECK_OK(normcache_prepare(cache, "query Q { a }", 13, "", 0, &op));
    got = document_of(op);
    CHECK_OK(normcache_op_free(op));
    op = prepare(cache, "query Q { a }");
    expected = document_of(op);
    CHECK(strcmp(got, expected) == 0);
    CHECK_OK(normcache_op_free(op));
    op = NULL;
    CHECK_OK(normcache_prepare(cache, fragment_a, strlen(fragment_a), "", 0, &op));
    CHECK_OK(normcache_op_free(op));
    normcache_free(got);
    normcache_free(expected);
    CHECK_OK(normcache_close(cache));
}

/** Runs every test; a failed check ends the process with status 1. */
int main(void)
{
    /* A deadlock (a resolver calling back in) fails the test instead of hanging it. */
    alarm(60);
    test_null_schema_and_rules();
    test_null_prepare_and_document();
    test_null_normalize();
    test_null_write_and_read();
    test_null_fragments();
    test_null_resolver_arguments();
    test_closed_handle();
    test_freed_operation();
    test_operation_of_the_wrong_kind();
    test_json_of_the_wrong_shape();
    test_limits_and_flags();
    test_resolver_calls_back();
    test_resolver_closes_its_handle();
    test_resolver_replaces_itself();
    test_key_set_misuse();
    test_resolver_answers_that_fail();
    test_object_member_names();
    test_operations_across_fork();
    test_rules_of_an_inherited_handle();
    test_empty_operation_name();
    test_errstr_and_free();
    return 0;
}
