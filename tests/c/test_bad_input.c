/*
 * test_bad_input.c — every kind of bad argument and bad JSON gets its error code and
 * a message, resets the outputs, and changes nothing in the store; messages are kept
 * per thread.
 */
#include "check.h"

#include <pthread.h>

/** A non-NULL output value that no call returns, to see out-parameters reset. */
static char placeholder;

/** Fails unless `call` returns `expected` and leaves a non-empty message. */
#define CHECK_FAILS(call, expected)           \
    do {                                      \
        CHECK_CODE(call, expected);           \
        CHECK(normcache_errmsg()[0] != '\0'); \
    } while (0)

/** Sets an output pair to values that a failing call must reset. */
static void preset(char **out, size_t *out_len)
{
    *out = &placeholder;
    *out_len = 99;
}

/** The records every test here starts from, and the only keys they may hold. */
static const char seed_records[] =
    "{\"A:1\": {\"a\": 1, \"list\": [1, 2]}, \"B:1\": {\"b\": \"x\", \"r\": {\"$reference\": \"A:1\"}}}";

/** The state of a store seeded with seed_records: every key, and every seeded record. */
static const char seed_snapshot[] =
    "[\"A:1\",\"B:1\"]{\"a\":1,\"list\":[1,2]}{\"b\":\"x\",\"r\":{\"$reference\":\"A:1\"}}";

/** Fails unless the store holds exactly the seeded records and no other key. */
#define CHECK_UNCHANGED(cache) check_unchanged(__FILE__, __LINE__, (cache))

/** Implements CHECK_UNCHANGED: compares search("") and a get of each seeded key. */
static void check_unchanged(const char *file, int line, normcache *cache)
{
    static const char *const keys[] = {"A:1", "B:1"};
    nc_text state = {0};
    char *out = NULL;
    size_t out_len = 0;
    size_t i;

    nc_check_code(file, line, "normcache_search",
                  normcache_search(cache, NULL, 0, NULL, 0, 0, &out, &out_len), NORMCACHE_OK);
    nc_append(&state, out, out_len);
    normcache_free(out);
    for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        nc_check_code(file, line, "normcache_get",
                      normcache_get(cache, keys[i], strlen(keys[i]), &out, &out_len),
                      NORMCACHE_OK);
        nc_append(&state, out, out_len);
        normcache_free(out);
    }
    nc_check_bytes(file, line, "store", state.data, state.len, seed_snapshot,
                   strlen(seed_snapshot));
    free(state.data);
}

/** A fresh cache holding seed_records. */
static normcache *open_seeded(void)
{
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    CHECK_OK(normcache_put(cache, seed_records, strlen(seed_records), NULL, NULL));
    CHECK_UNCHANGED(cache);
    return cache;
}

/** A NULL pointer with a non-zero length, or a NULL out-parameter, is EINVAL everywhere. */
static void test_null_pointers(void)
{
    normcache *cache = open_seeded();
    normcache *opened = NULL;
    const char *new_record = "{\"C:1\": {\"c\": 1}}";
    char *out;
    size_t out_len;
    uint64_t count = 0;
    char path[NC_PATH_SIZE];

    nc_temp_path(path, "null");
    CHECK_FAILS(normcache_open(NULL, 5, NULL, 0, &opened), NORMCACHE_EINVAL);
    CHECK_FAILS(normcache_open(path, strlen(path), NULL, 5, &opened), NORMCACHE_EINVAL);

    preset(&out, &out_len);
    CHECK_FAILS(normcache_put(NULL, seed_records, strlen(seed_records), &out, &out_len),
                NORMCACHE_EINVAL);
    CHECK(out == NULL && out_len == 0);
    CHECK_FAILS(normcache_put(cache, NULL, 5, NULL, NULL), NORMCACHE_EINVAL);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_put(cache, new_record, strlen(new_record), &out, NULL), NORMCACHE_EINVAL);
    CHECK(out == NULL);
    CHECK_UNCHANGED(cache);

    preset(&out, &out_len);
    CHECK_FAILS(normcache_get(NULL, "A:1", 3, &out, &out_len), NORMCACHE_EINVAL);
    CHECK(out == NULL && out_len == 0);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_get(cache, NULL, 3, &out, &out_len), NORMCACHE_EINVAL);
    CHECK(out == NULL && out_len == 0);
    CHECK_FAILS(normcache_get(cache, "A:1", 3, NULL, &out_len), NORMCACHE_EINVAL);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_get(cache, "A:1", 3, &out, NULL), NORMCACHE_EINVAL);
    CHECK(out == NULL);

    CHECK_FAILS(normcache_remove(NULL, "A:1", 3), NORMCACHE_EINVAL);
    CHECK_FAILS(normcache_remove(cache, NULL, 3), NORMCACHE_EINVAL);
    CHECK_FAILS(normcache_remove_prefix(NULL, "A:", 2, &count), NORMCACHE_EINVAL);
    CHECK_FAILS(normcache_remove_prefix(cache, NULL, 2, &count), NORMCACHE_EINVAL);
    CHECK_FAILS(normcache_clear(NULL), NORMCACHE_EINVAL);
    CHECK_UNCHANGED(cache);

    preset(&out, &out_len);
    CHECK_FAILS(normcache_search(NULL, "A:", 2, NULL, 0, 0, &out, &out_len), NORMCACHE_EINVAL);
    CHECK(out == NULL && out_len == 0);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_search(cache, NULL, 2, NULL, 0, 0, &out, &out_len), NORMCACHE_EINVAL);
    CHECK(out == NULL && out_len == 0);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_search(cache, "A:", 2, NULL, 3, 0, &out, &out_len), NORMCACHE_EINVAL);
    CHECK(out == NULL && out_len == 0);
    CHECK_FAILS(normcache_search(cache, "A:", 2, NULL, 0, 0, NULL, &out_len), NORMCACHE_EINVAL);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_search(cache, "A:", 2, NULL, 0, 0, &out, NULL), NORMCACHE_EINVAL);
    CHECK(out == NULL);

    preset(&out, &out_len);
    CHECK_FAILS(normcache_stats(NULL, &out, &out_len), NORMCACHE_EINVAL);
    CHECK(out == NULL && out_len == 0);
    CHECK_FAILS(normcache_stats(cache, NULL, &out_len), NORMCACHE_EINVAL);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_stats(cache, &out, NULL), NORMCACHE_EINVAL);
    CHECK(out == NULL);

    normcache_free(NULL);
    CHECK_UNCHANGED(cache);
    CHECK_OK(normcache_close(cache));
}

/** NULL with length 0 is empty input: no JSON for put, an empty key or prefix, all keys for search. */
static void test_null_with_zero_length(void)
{
    normcache *cache = open_seeded();
    char *out;
    size_t out_len;
    uint64_t count = 0;

    CHECK_FAILS(normcache_put(cache, NULL, 0, NULL, NULL), NORMCACHE_EJSON);
    preset(&out, &out_len);
    CHECK_FAILS(normcache_get(cache, NULL, 0, &out, &out_len), NORMCACHE_EINVAL);
    CHECK(out == NULL && out_len == 0);
    CHECK_FAILS(normcache_remove(cache, NULL, 0), NORMCACHE_EINVAL);
    CHECK_FAILS(normcache_remove_prefix(cache, NULL, 0, &count), NORMCACHE_EINVAL);
    CHECK_OK(normcache_search(cache, NULL, 0, NULL, 0, 0, &out, &out_len));
    CHECK_STR(out, out_len, "[\"A:1\",\"B:1\"]");
    normcache_free(out);
    CHECK_UNCHANGED(cache);
    CHECK_OK(normcache_close(cache));
}

/** A length of NORMCACHE_NUL_TERMINATED reads a C string up to its NUL (SQLite's convention). */
static void test_nul_terminated_inputs(void)
{
    normcache *cache = open_seeded();
    const char *query = "query { dog { name } }";
    const char *config = "{\"defaultKeyFields\": [\"id\"]}";
    normcache_op *op = NULL;
    char *out;
    size_t out_len;

    CHECK_OK(normcache_put(cache, "{\"C:1\": {\"n\": 1}}", NORMCACHE_NUL_TERMINATED, NULL, NULL));
    CHECK_OK(normcache_get(cache, "C:1", NORMCACHE_NUL_TERMINATED, &out, &out_len));
    CHECK_STR(out, out_len, "{\"n\":1}");
    normcache_free(out);
    CHECK_OK(normcache_configure(cache, config, NORMCACHE_NUL_TERMINATED));
    CHECK_OK(normcache_prepare(cache, query, NORMCACHE_NUL_TERMINATED, NULL, 0, &op));
    CHECK_OK(normcache_op_document(op, &out, &out_len));
    CHECK_STR(out, out_len, "{\n  dog {\n    name\n    __typename\n  }\n}");
    normcache_free(out);
    CHECK_OK(normcache_op_free(op));
    /* The input ends at its first NUL: the key "C:1" of "C:1\0junk". */
    CHECK_OK(normcache_remove(cache, "C:1\0junk", NORMCACHE_NUL_TERMINATED));
    CHECK_CODE(normcache_get(cache, "C:1", 3, &out, &out_len), NORMCACHE_NOTFOUND);

    /* NULL is not a C string; other lengths past SIZE_MAX / 2 are refused. */
    CHECK_FAILS(normcache_get(cache, NULL, NORMCACHE_NUL_TERMINATED, &out, &out_len), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("key is NULL but its length is NORMCACHE_NUL_TERMINATED");
    CHECK_FAILS(normcache_remove(cache, "A:1", (size_t)-2), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("key: length 18446744073709551614 is too large (above SIZE_MAX / 2)");
    CHECK_FAILS(normcache_put(cache, "{}", SIZE_MAX / 2 + 1, NULL, NULL), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("records_json: length 9223372036854775808 is too large (above SIZE_MAX / 2)");
    CHECK_UNCHANGED(cache);
    CHECK_OK(normcache_close(cache));
}

/** Empty record keys, field names, keys and prefixes are EINVAL. */
static void test_empty_keys(void)
{
    static const char *const empty_in_records[] = {
        "{\"\": {\"a\": 1}}",
        "{\"A:1\": {\"\": 1}}",
        "{\"C:1\": {\"c\": 1}, \"\": {\"a\": 1}}",
        "{\"A:1\": {\"a\": 5, \"\": 1}}",
    };
    normcache *cache = open_seeded();
    char *out;
    size_t out_len;
    uint64_t count = 0;
    size_t i;

    for (i = 0; i < sizeof empty_in_records / sizeof empty_in_records[0]; i++) {
        preset(&out, &out_len);
        CHECK_FAILS(normcache_put(cache, empty_in_records[i], strlen(empty_in_records[i]), &out,
                                  &out_len),
                    NORMCACHE_EINVAL);
        CHECK(out == NULL && out_len == 0);
        CHECK_UNCHANGED(cache);
    }
    CHECK_FAILS(normcache_get(cache, "", 0, &out, &out_len), NORMCACHE_EINVAL);
    CHECK_FAILS(normcache_remove(cache, "", 0), NORMCACHE_EINVAL);
    CHECK_FAILS(normcache_remove_prefix(cache, "", 0, &count), NORMCACHE_EINVAL);
    CHECK_UNCHANGED(cache);
    CHECK_OK(normcache_close(cache));
}

/** A byte range that is not acceptable records JSON. */
typedef struct bad_json {
    const char *bytes; /**< the input */
    size_t len;        /**< its length; 0 means strlen(bytes) */
    const char *key;   /**< the record key the message must name, or NULL */
} bad_json;

/** Inputs that are not JSON, not UTF-8, or not of the records shape. */
static const bad_json malformed[] = {
    /* not JSON */
    {"{\"A:1\": {\"a\": 2}", 0, NULL},
    {"{\"A:1\": {\"a\": tru}}", 0, NULL},
    {"{\"A:1\": {\"a\": 2,}}", 0, NULL},
    {"{\"A:1\": {\"a\": 02}}", 0, NULL},
    {"{\"A:1\": {\"a\": NaN}}", 0, NULL},
    {"{\"A:1\": {\"a\": \"unterminated}}", 0, NULL},
    {"{\"A:1\": {\"a\": \"\\x\"}}", 0, NULL},
    {"{\"A:1\": {\"a\": \"\\u12G4\"}}", 0, NULL},
    {"{\"A:1\": {\"a\": \"\\ud800\"}}", 0, NULL},
    {"{\"A:1\": {\"a\": \"\\udc00x\"}}", 0, NULL},
    {"{\"A:1\": {\"a\": \"tab\there\"}}", 0, NULL},
    {"{\"A:1\": {\"a\": \"nul\0here\"}}", sizeof "{\"A:1\": {\"a\": \"nul\0here\"}}" - 1, NULL},
    {"{\"A:1\": {\"a\": 2}} x", 0, NULL},
    {"{\"A:1\": {\"a\": 2}} {}", 0, NULL},
    {"{'A:1': {'a': 2}}", 0, NULL},
    {"", 0, NULL},
    {" \n ", 0, NULL},
    /* not UTF-8 */
    {"{\"A:1\": {\"a\": \"\xff\"}}", 0, NULL},
    {"{\"A:1\": {\"a\": \"\x80\"}}", 0, NULL},
    {"{\"A:1\": {\"a\": \"\xc0\xaf\"}}", 0, NULL},
    {"{\"A:1\": {\"a\": \"\xe2\x82\"}}", 0, NULL},
    {"{\"A:1\": {\"a\": \"\xed\xa0\x80\"}}", 0, NULL},
    {"{\"A:1\": {\"a\": \"\xf4\x90\x80\x80\"}}", 0, NULL},
    {"{\"A:\xff\": {\"a\": 2}}", 0, NULL},
    {"{\"A:1\": {\"\xfe\": 2}}", 0, NULL},
    {"{\"A:1\": {\"a\": 2}}\xff", 0, NULL},
    /* top level not an object */
    {"[]", 0, NULL},
    {"[{\"A:1\": {\"a\": 2}}]", 0, NULL},
    {"\"A:1\"", 0, NULL},
    {"1", 0, NULL},
    {"null", 0, NULL},
    /* a record that is not an object */
    {"{\"A:1\": 5}", 0, "A:1"},
    {"{\"A:1\": [{\"a\": 2}]}", 0, "A:1"},
    {"{\"A:1\": null}", 0, "A:1"},
    {"{\"A:1\": \"x\"}", 0, "A:1"},
    {"{\"C:1\": {\"c\": 1}, \"A:1\": 5}", 0, "A:1"},
    /* malformed references */
    {"{\"A:1\": {\"r\": {\"$reference\": 5}}}", 0, "A:1"},
    {"{\"A:1\": {\"r\": {\"$reference\": \"X\", \"a\": 1}}}", 0, "A:1"},
    {"{\"A:1\": {\"r\": {\"a\": 1, \"$reference\": \"X\"}}}", 0, "A:1"},
    {"{\"A:1\": {\"r\": [{\"$reference\": null}]}}", 0, "A:1"},
    {"{\"A:1\": {\"r\": {\"x\": {\"$reference\": [\"X\"]}}}}", 0, "A:1"},
    {"{\"A:1\": {\"a\": 9}, \"B:1\": {\"r\": {\"$reference\": 7}}}", 0, "B:1"},
};

/**
 * Each malformed input is EJSON with a message naming a byte offset (and, for a bad
 * record or reference, the record key), and writes nothing.
 */
static void test_malformed_records(void)
{
    normcache *cache = open_seeded();
    size_t i;
    for (i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        const bad_json *input = &malformed[i];
        size_t len = input->len != 0 ? input->len : strlen(input->bytes);
        char *out;
        size_t out_len;
        int code;
        preset(&out, &out_len);
        code = normcache_put(cache, input->bytes, len, &out, &out_len);
        if (code != NORMCACHE_EJSON || strstr(normcache_errmsg(), "byte") == NULL ||
            (input->key != NULL && strstr(normcache_errmsg(), input->key) == NULL)) {
            fprintf(stderr, "input %zu: ", i);
            nc_show_bytes(input->bytes, len);
            fputc('\n', stderr);
        }
        CHECK_CODE(code, NORMCACHE_EJSON);
        CHECK_CONTAINS(normcache_errmsg(), "byte");
        if (input->key != NULL) {
            CHECK_CONTAINS(normcache_errmsg(), input->key);
        }
        CHECK(out == NULL && out_len == 0);
        CHECK_UNCHANGED(cache);
    }
    CHECK_OK(normcache_close(cache));
}

/** Fails unless `call` returns `expected` with exactly the message `message`, resets its
 * output pair and leaves the seeded store as it was. */
#define CHECK_REFUSED(cache, call, out, out_len, expected, message) \
    do {                                                            \
        preset(&(out), &(out_len));                                 \
        CHECK_CODE(call, expected);                                 \
        CHECK(strcmp(normcache_errmsg(), (message)) == 0);          \
        CHECK((out) == NULL && (out_len) == 0);                     \
        CHECK_UNCHANGED(cache);                                     \
    } while (0)

/**
 * A response without its {"data": ...} envelope, or with a stray top-level member, is
 * NORMCACHE_EDATA from normalize and write; a variable the operation does not declare is
 * NORMCACHE_EINVAL from normalize, write and read; with a schema loaded, a variable used
 * where its type is not allowed fails prepare with NORMCACHE_EDOCUMENT.
 */
static void test_responses_and_variables(void)
{
    static const char bare[] = "{\"feed\": [{\"id\": \"1\"}]}";
    static const char stray[] = "{\"data\": {\"feed\": []}, \"result\": 1}";
    static const char wrapped[] = "{\"data\": {\"feed\": []}}";
    static const char misspelled[] = "{\"frist\": 2}";
    static const char document[] = "query Feed($first: Int) { feed(first: $first) { id } }";
    static const char sdl[] = "type Query { feed(first: Int): [Item] } type Item { id: ID! }";
    static const char misused[] = "query ($n: String) { feed(first: $n) { id } }";
    const char *no_envelope = "the response has no 'data' envelope: its member 'feed' is a field of the "
                              "operation; pass {\"data\": <this object>}";
    const char *stray_member = "unexpected member 'result' at the top of the response: a GraphQL "
                               "response holds only 'data', 'errors' and 'extensions'";
    const char *undeclared = "variable '$frist' is not declared by operation 'Feed' (it declares: $first)";
    normcache *cache = open_seeded();
    normcache_op *op = NULL;
    char *out = NULL;
    size_t out_len = 0;

    CHECK_OK(normcache_prepare(cache, document, strlen(document), NULL, 0, &op));
    CHECK_REFUSED(cache, normcache_normalize(op, NULL, 0, bare, strlen(bare), &out, &out_len), out, out_len,
                  NORMCACHE_EDATA, no_envelope);
    CHECK_REFUSED(cache, normcache_write(cache, op, NULL, 0, bare, strlen(bare), &out, &out_len), out, out_len,
                  NORMCACHE_EDATA, no_envelope);
    CHECK_REFUSED(cache, normcache_write(cache, op, NULL, 0, stray, strlen(stray), &out, &out_len), out, out_len,
                  NORMCACHE_EDATA, stray_member);
    CHECK_REFUSED(cache,
                  normcache_normalize(op, misspelled, strlen(misspelled), wrapped, strlen(wrapped), &out, &out_len),
                  out, out_len, NORMCACHE_EINVAL, undeclared);
    CHECK_REFUSED(cache,
                  normcache_write(cache, op, misspelled, strlen(misspelled), wrapped, strlen(wrapped), &out,
                                  &out_len),
                  out, out_len, NORMCACHE_EINVAL, undeclared);
    CHECK_REFUSED(cache, normcache_read(cache, op, misspelled, strlen(misspelled), 0, &out, &out_len), out, out_len,
                  NORMCACHE_EINVAL, undeclared);
    CHECK_OK(normcache_op_free(op));

    CHECK_OK(normcache_load_schema(cache, sdl, strlen(sdl)));
    op = NULL;
    CHECK_CODE(normcache_prepare(cache, misused, strlen(misused), NULL, 0, &op), NORMCACHE_EDOCUMENT);
    CHECK(strcmp(normcache_errmsg(), "GraphQL error at line 1, column 27: variable '$n' of type 'String' is "
                                     "used in a position expecting type 'Int'") == 0);
    CHECK(op == NULL);
    CHECK_UNCHANGED(cache);
    CHECK_OK(normcache_close(cache));
}

/**
 * The open options "max_document_bytes" and "max_document_tokens" bound the documents
 * normcache_prepare takes: one byte or one token past a limit is NORMCACHE_EDOCUMENT with
 * a message naming the limit, the figure and the option; at the limit it prepares. A
 * limit below 1 is NORMCACHE_EINVAL at open.
 */
static void test_document_limits(void)
{
    static const char document[] = "{ hero { name, id } }"; /* 21 bytes, 7 tokens */
    normcache *bytes = NC_OPEN_FRESH("{\"max_document_bytes\": 20}");
    normcache *tokens = NC_OPEN_FRESH("{\"max_document_tokens\": 6, \"max_document_bytes\": 21}");
    normcache *both = NC_OPEN_FRESH("{\"max_document_tokens\": 7, \"max_document_bytes\": 21}");
    normcache *refused = NULL;
    normcache_op *op = NULL;
    char path[NC_PATH_SIZE];

    CHECK_CODE(normcache_prepare(bytes, document, strlen(document), NULL, 0, &op), NORMCACHE_EDOCUMENT);
    CHECK(strcmp(normcache_errmsg(),
                 "the document is 21 bytes long, more than the limit of 20 (option max_document_bytes)") == 0);
    CHECK(op == NULL);
    CHECK_CODE(normcache_prepare(tokens, document, strlen(document), NULL, 0, &op), NORMCACHE_EDOCUMENT);
    CHECK(strcmp(normcache_errmsg(), "GraphQL error at line 1, column 21: the document has more than 6 tokens, "
                                     "the limit (option max_document_tokens)") == 0);
    CHECK(op == NULL);
    CHECK_OK(normcache_prepare(both, document, strlen(document), NULL, 0, &op));
    CHECK_OK(normcache_op_free(op));
    CHECK_CODE(normcache_open(nc_temp_path(path, "cache"), strlen(path), "{\"max_document_tokens\": 0}", 26, &refused),
               NORMCACHE_EINVAL);
    CHECK(strcmp(normcache_errmsg(), "option 'max_document_tokens' must be an integer of at least 1") == 0);
    CHECK(refused == NULL);
    CHECK_OK(normcache_close(bytes));
    CHECK_OK(normcache_close(tokens));
    CHECK_OK(normcache_close(both));
}

/** {"A:1": {"a": VALUE}} where VALUE is `depth` nested `open`s around 1, closed when `closed`. */
static nc_text nested_record(size_t depth, const char *open, char close, int closed)
{
    nc_text text = {0};
    size_t i;
    NC_APPEND_LITERAL(&text, "{\"A:1\": {\"a\": ");
    for (i = 0; i < depth; i++) {
        nc_append(&text, open, strlen(open));
    }
    NC_APPEND_LITERAL(&text, "1");
    if (closed) {
        nc_append_repeat(&text, close, depth);
        NC_APPEND_LITERAL(&text, "}}");
    }
    return text;
}

/** Nesting far past the limit of 512 levels is EJSON and writes nothing. */
static void test_absurd_nesting(void)
{
    normcache *cache = open_seeded();
    nc_text inputs[4];
    size_t i;
    inputs[0] = nested_record(100000, "[", ']', 1);
    inputs[1] = nested_record(100000, "{\"a\": ", '}', 1);
    inputs[2] = nested_record(100000, "[", ']', 0);
    inputs[3] = nested_record(600, "[", ']', 1);
    for (i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        CHECK_CODE(normcache_put(cache, inputs[i].data, inputs[i].len, NULL, NULL),
                   NORMCACHE_EJSON);
        CHECK_CONTAINS(normcache_errmsg(), "byte");
        CHECK_UNCHANGED(cache);
        free(inputs[i].data);
    }
    CHECK_OK(normcache_close(cache));
}

/** Nesting within the limit (500 levels in a field) round-trips exactly. */
static void test_deep_but_allowed_nesting(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    nc_text input = nested_record(500, "[", ']', 1);
    nc_text expected = {0};
    NC_APPEND_LITERAL(&expected, "{\"a\":");
    nc_append_repeat(&expected, '[', 500);
    NC_APPEND_LITERAL(&expected, "1");
    nc_append_repeat(&expected, ']', 500);
    NC_APPEND_LITERAL(&expected, "}");
    CHECK_OK(normcache_put(cache, input.data, input.len, NULL, NULL));
    CHECK_GET(cache, "A:1", expected.data);
    free(input.data);
    free(expected.data);
    CHECK_OK(normcache_close(cache));
}

/** What a thread saw of its own messages; filled in by the thread. */
typedef struct thread_messages {
    normcache *cache;   /**< the shared handle */
    char first[512];    /**< errmsg before this thread's first failure */
    char failed[512];   /**< errmsg after its own EINVAL */
    char after_ok[512]; /**< errmsg after a later successful call */
} thread_messages;

/** Thread body: reads its message before and after its own failure and a success. */
static void *record_own_messages(void *argument)
{
    thread_messages *seen = argument;
    char *out = NULL;
    size_t out_len = 0;
    snprintf(seen->first, sizeof seen->first, "%s", normcache_errmsg());
    CHECK_CODE(normcache_get(seen->cache, "", 0, &out, &out_len), NORMCACHE_EINVAL);
    snprintf(seen->failed, sizeof seen->failed, "%s", normcache_errmsg());
    CHECK_OK(normcache_get(seen->cache, "A:1", 3, &out, &out_len));
    normcache_free(out);
    snprintf(seen->after_ok, sizeof seen->after_ok, "%s", normcache_errmsg());
    return NULL;
}

/** A failure on one thread does not change another thread's message. */
static void test_errmsg_is_per_thread(void)
{
    normcache *cache = open_seeded();
    const char *truncated = "{\"A:1\": ";
    thread_messages seen;
    pthread_t thread;
    char main_message[512];

    memset(&seen, 0, sizeof seen);
    seen.cache = cache;
    CHECK_CODE(normcache_put(cache, truncated, strlen(truncated), NULL, NULL), NORMCACHE_EJSON);
    snprintf(main_message, sizeof main_message, "%s", normcache_errmsg());
    CHECK_CONTAINS(main_message, "byte");

    CHECK(pthread_create(&thread, NULL, record_own_messages, &seen) == 0);
    CHECK(pthread_join(thread, NULL) == 0);

    CHECK(strcmp(seen.first, "") == 0);
    CHECK(seen.failed[0] != '\0');
    CHECK(strcmp(seen.failed, main_message) != 0);
    CHECK(strcmp(seen.after_ok, seen.failed) == 0);
    CHECK(strcmp(normcache_errmsg(), main_message) == 0);
    CHECK_OK(normcache_close(cache));
}

/** Iterations of each failing thread in test_errmsg_under_contention. */
#define CONTENDED_FAILURES 2000

/** Thread body: fails with EJSON again and again; each message must name a byte. */
static void *fail_with_json(void *argument)
{
    normcache *cache = argument;
    const char *missing_value = "{\"A:1\": {\"a\": }}";
    int i;
    for (i = 0; i < CONTENDED_FAILURES; i++) {
        CHECK_CODE(normcache_put(cache, missing_value, strlen(missing_value), NULL, NULL),
                   NORMCACHE_EJSON);
        CHECK_CONTAINS(normcache_errmsg(), "byte");
    }
    return NULL;
}

/** Thread body: fails with EINVAL again and again; the message must stay the same. */
static void *fail_with_empty_key(void *argument)
{
    normcache *cache = argument;
    char first[512] = "";
    int i;
    for (i = 0; i < CONTENDED_FAILURES; i++) {
        CHECK_CODE(normcache_remove(cache, "", 0), NORMCACHE_EINVAL);
        if (i == 0) {
            snprintf(first, sizeof first, "%s", normcache_errmsg());
        }
        CHECK(strcmp(normcache_errmsg(), first) == 0);
    }
    return NULL;
}

/** Threads failing at the same time each keep their own message. */
static void test_errmsg_under_contention(void)
{
    normcache *cache = open_seeded();
    pthread_t json_thread;
    pthread_t key_thread;
    CHECK(pthread_create(&json_thread, NULL, fail_with_json, cache) == 0);
    CHECK(pthread_create(&key_thread, NULL, fail_with_empty_key, cache) == 0);
    CHECK(pthread_join(json_thread, NULL) == 0);
    CHECK(pthread_join(key_thread, NULL) == 0);
    CHECK_UNCHANGED(cache);
    CHECK_OK(normcache_close(cache));
}

int main(void)
{
    test_null_pointers();
    test_null_with_zero_length();
    test_nul_terminated_inputs();
    test_empty_keys();
    test_malformed_records();
    test_responses_and_variables();
    test_document_limits();
    test_absurd_nesting();
    test_deep_but_allowed_nesting();
    test_errmsg_is_per_thread();
    test_errmsg_under_contention();
    return 0;
}
