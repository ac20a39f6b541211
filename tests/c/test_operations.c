/*
 * test_operations.c — GraphQL operations through the C interface: schema and rules,
 * prepare, the network document, normalize, write, read with hits and misses, and
 * the errors of each, with exact outputs.
 */
#include "check.h"
#include "star_wars_schema.h"

static const char *response =
    "{\"data\": {\"hero\": {\"__typename\": \"Droid\", \"id\": \"2001\", \"name\": \"R2-D2\", \"friends\": ["
    "{\"__typename\": \"Human\", \"id\": \"1000\", \"name\": \"Luke\"}]}}}";

/** Prepares `document` on `cache`, failing the test unless it works. */
static normcache_op *prepare(normcache *cache, const char *document)
{
    normcache_op *op = NULL;
    CHECK_OK(normcache_prepare(cache, document, strlen(document), NULL, 0, &op));
    CHECK(op != NULL);
    return op;
}

/** Reads `op` and fails unless the status is `code` and the output exactly `expected`. */
static void check_read(normcache *cache, normcache_op *op, const char *variables, unsigned flags,
                       int code, const char *expected)
{
    char *out = NULL;
    size_t length = 0;
    CHECK_CODE(normcache_read(cache, op, variables, variables ? strlen(variables) : 0, flags, &out, &length), code);
    nc_check_output(__FILE__, __LINE__, "read", out, length, expected);
}

static void test_write_then_read(void)
{
    normcache *cache = NC_OPEN(nc_temp_path((char[NC_PATH_SIZE]){0}, "ops"), NULL);
    normcache_op *op;
    normcache_op *droid;
    char *out = NULL;
    size_t length = 0;
    const char *hero = "{ hero { name friends { name } } }";

    CHECK_OK(normcache_load_schema(cache, star_wars_schema, strlen(star_wars_schema)));
    op = prepare(cache, hero);
    CHECK_OK(normcache_op_document(op, &out, &length));
    nc_check_output(__FILE__, __LINE__, "document", out, length,
                    "{\n  hero {\n    name\n    friends {\n      name\n      id\n      __typename\n    }\n"
                    "    id\n    __typename\n  }\n}");
    CHECK_OK(normcache_normalize(op, NULL, 0, response, strlen(response), &out, &length));
    nc_check_output(__FILE__, __LINE__, "records", out, length,
                    "{\"Human:1000\":{\"name\":\"Luke\",\"id\":\"1000\",\"__typename\":\"Human\"},"
                    "\"Droid:2001\":{\"name\":\"R2-D2\",\"friends\":[{\"$reference\":\"Human:1000\"}],\"id\":\"2001\",\"__typename\":\"Droid\"},"
                    "\"QUERY_ROOT\":{\"hero\":{\"$reference\":\"Droid:2001\"}}}");
    CHECK_OK(normcache_write(cache, op, NULL, 0, response, strlen(response), &out, &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length,
                    "[\"Human:1000.name\",\"Human:1000.id\",\"Human:1000.__typename\",\"Droid:2001.name\","
                    "\"Droid:2001.friends\",\"Droid:2001.id\",\"Droid:2001.__typename\",\"QUERY_ROOT.hero\"]");
    check_read(cache, op, NULL, 0, NORMCACHE_OK, "{\"hero\":{\"name\":\"R2-D2\",\"friends\":[{\"name\":\"Luke\"}]}}");
    CHECK_OK(normcache_op_free(op));

    droid = prepare(cache, "query ($id: ID!) { droid(id: $id) { name primaryFunction } }");
    check_read(cache, droid, "{\"id\": \"2001\"}", 0, NORMCACHE_MISS,
               "{\"data\":null,\"missing\":[{\"path\":[\"droid\",\"primaryFunction\"],\"reason\":\"absent\","
               "\"record\":\"Droid:2001\",\"field\":\"primaryFunction\"}]}");
    check_read(cache, droid, "{\"id\": \"2001\"}", NORMCACHE_READ_PARTIAL, NORMCACHE_MISS,
               "{\"data\":{\"droid\":{\"name\":\"R2-D2\",\"primaryFunction\":null}},\"missing\":[{\"path\":[\"droid\","
               "\"primaryFunction\"],\"reason\":\"absent\",\"record\":\"Droid:2001\",\"field\":\"primaryFunction\"}]}");
    check_read(cache, droid, "{\"id\": \"7\"}", 0, NORMCACHE_MISS,
               "{\"data\":null,\"missing\":[{\"path\":[\"droid\"],\"reason\":\"absent\",\"record\":\"Droid:7\"}]}");
    CHECK_CODE(normcache_read(cache, droid, NULL, 0, 4u, &out, &length), NORMCACHE_EINVAL);
    CHECK_OK(normcache_op_free(droid));
    CHECK_OK(normcache_close(cache));
}

static void test_errors(void)
{
    normcache *cache = NC_OPEN(nc_temp_path((char[NC_PATH_SIZE]){0}, "errors"), NULL);
    normcache_op *op = NULL;
    char *out = NULL;
    size_t length = 0;
    const char *bad_response = "{\"data\": {\"hero\": {\"__typename\": \"Droid\", \"id\": \"1\"}}}";

    CHECK_CODE(normcache_load_schema(cache, "type Query {", 12), NORMCACHE_ESCHEMA);
    CHECK_CONTAINS(normcache_errmsg(), "GraphQL error at line 1, column 13");
    CHECK_CODE(normcache_configure(cache, "{\"typePolicies\": 5}", 19), NORMCACHE_EINVAL);
    CHECK_CONTAINS(normcache_errmsg(), "typePolicies must be a JSON object");
    CHECK_CODE(normcache_prepare(cache, "{ hero { }", 10, NULL, 0, &op), NORMCACHE_EDOCUMENT);
    CHECK(op == NULL);
    CHECK_CONTAINS(normcache_errmsg(), "GraphQL error at line 1, column 10");
    CHECK_CODE(normcache_prepare(cache, "query A { a } query B { b }", 27, NULL, 0, &op), NORMCACHE_EDOCUMENT);
    CHECK_CODE(normcache_prepare(cache, "query A { a }", 13, "C", 1, &op), NORMCACHE_EDOCUMENT);
    CHECK_CODE(normcache_prepare(cache, "{ a }", 5, NULL, 0, NULL), NORMCACHE_EINVAL);

    op = prepare(cache, "{ hero { name } }");
    CHECK_CODE(normcache_write(cache, op, NULL, 0, bad_response, strlen(bad_response), &out, &length), NORMCACHE_EDATA);
    CHECK_CONTAINS(normcache_errmsg(), "invalid response data at hero.name: the response has no 'name'");
    CHECK_CODE(normcache_write(cache, op, NULL, 0, "{\"data\": ", 9, NULL, NULL), NORMCACHE_EJSON);
    CHECK_CODE(normcache_write(cache, op, "[]", 2, "{}", 2, NULL, NULL), NORMCACHE_EJSON);
    CHECK_SEARCH(cache, "", NULL, 0, "[]");
    CHECK_OK(normcache_op_free(op));
    CHECK_CODE(normcache_op_free(op), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_op_document(op, &out, &length), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_read(cache, op, NULL, 0, 0, &out, &length), NORMCACHE_EINVAL);
    CHECK(out == NULL && length == 0);
    CHECK_OK(normcache_op_free(NULL));
    CHECK_OK(normcache_close(cache));
}

/** A prepared operation outlives the handle it was prepared on. */
static void test_operation_outlives_its_cache(void)
{
    const char *path = nc_temp_path((char[NC_PATH_SIZE]){0}, "outlive");
    normcache *cache = NC_OPEN(path, NULL);
    normcache_op *op = prepare(cache, "{ a }");
    CHECK_OK(normcache_close(cache));
    cache = NC_OPEN(path, NULL);
    CHECK_OK(normcache_write(cache, op, NULL, 0, "{\"data\": {\"a\": 1}}", 18, NULL, NULL));
    check_read(cache, op, NULL, 0, NORMCACHE_OK, "{\"a\":1}");
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
}

/** A key resolver: objects with an "id" member are keyed "Node:<id text>"; a typename
 * of "Fail" fails; `context` counts the calls and holds the cache, which it reads. */
struct resolver_state {
    int calls;
    normcache *cache;
};

static int node_resolver(void *context, const char *typename_, size_t typename_len,
                         const normcache_object *object, normcache_key *key)
{
    struct resolver_state *state = context;
    const char *json = NULL;
    size_t length = 0;
    char *record = NULL;
    size_t record_length = 0;
    state->calls++;
    if (typename_ != NULL && typename_len == 4 && memcmp(typename_, "Fail", 4) == 0) {
        return -42;
    }
    /* Calling back into the library works: the write holds no transaction yet. */
    if (normcache_get(state->cache, "Node:x", 6, &record, &record_length) == NORMCACHE_OK) {
        normcache_free(record);
    }
    CHECK_CODE(normcache_object_member(object, "missing", 7, &json, &length), NORMCACHE_NOTFOUND);
    CHECK(json == NULL && length == 0);
    if (normcache_object_member(object, "id", 2, &json, &length) != NORMCACHE_OK) {
        return NORMCACHE_OK;
    }
    CHECK_CODE(normcache_key_set(key, "", 0, NULL, 0), NORMCACHE_EINVAL);
    return normcache_key_set(key, json, length, "Node", 4);
}

static void test_key_resolver(void)
{
    normcache *cache = NC_OPEN(nc_temp_path((char[NC_PATH_SIZE]){0}, "resolver"), NULL);
    struct resolver_state state = {0, NULL};
    normcache_op *op;
    char *out = NULL;
    size_t length = 0;
    const char *good = "{\"data\": {\"a\": {\"__typename\": \"A\", \"id\": 7, \"b\": {\"c\": 1}}}}";
    const char *failing = "{\"data\": {\"a\": {\"__typename\": \"Fail\", \"id\": 7, \"b\": {\"c\": 1}}}}";

    state.cache = cache;
    CHECK_OK(normcache_set_key_resolver(cache, node_resolver, &state));
    op = prepare(cache, "{ a { id b { c } } }");
    CHECK_OK(normcache_normalize(op, NULL, 0, good, strlen(good), &out, &length));
    nc_check_output(__FILE__, __LINE__, "records", out, length,
                    "{\"Node:7.b\":{\"c\":1},\"Node:7\":{\"id\":7,\"b\":{\"$reference\":\"Node:7.b\"},\"__typename\":\"A\"},"
                    "\"QUERY_ROOT\":{\"a\":{\"$reference\":\"Node:7\"}}}");
    CHECK(state.calls == 2);
    CHECK_CODE(normcache_write(cache, op, NULL, 0, failing, strlen(failing), NULL, NULL), NORMCACHE_ECALLBACK);
    CHECK_CONTAINS(normcache_errmsg(), "the key resolver failed at a: the resolver returned status -42 for Fail");
    CHECK_SEARCH(cache, "", NULL, 0, "[]");
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_set_key_resolver(cache, NULL, NULL));
    CHECK_CODE(normcache_set_key_resolver(NULL, node_resolver, NULL), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_object_member(NULL, "a", 1, NULL, NULL), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_key_set(NULL, "a", 1, NULL, 0), NORMCACHE_EINVAL);
    CHECK_OK(normcache_close(cache));
}

/** `search(q: "cats,topic:dogs")` and `search(q: "cats", topic: "dogs")` keep fields of
 * their own: separators inside strings are escaped with `\` in the storage key. */
static void test_separators_in_strings(void)
{
    normcache *cache = NC_OPEN(nc_temp_path((char[NC_PATH_SIZE]){0}, "separators"), NULL);
    const char *schema = "type Query { search(q: String, topic: String): [String] }";
    const char *joined_response = "{\"data\": {\"search\": [\"cats and dogs\"]}}";
    const char *apart_response = "{\"data\": {\"search\": [\"dogs about cats\"]}}";
    normcache_op *joined;
    normcache_op *apart;
    normcache_op *variable;
    char *out = NULL;
    size_t length = 0;

    CHECK_OK(normcache_load_schema(cache, schema, strlen(schema)));
    joined = prepare(cache, "{ search(q: \"cats,topic:dogs\") }");
    apart = prepare(cache, "{ search(q: \"cats\", topic: \"dogs\") }");
    variable = prepare(cache, "query ($q: String, $topic: String) { search(q: $q, topic: $topic) }");
    CHECK_OK(normcache_write(cache, joined, NULL, 0, joined_response, strlen(joined_response), &out, &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length, "[\"QUERY_ROOT.search(q:cats\\\\,topic\\\\:dogs)\"]");
    CHECK_OK(normcache_write(cache, apart, NULL, 0, apart_response, strlen(apart_response), &out, &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length, "[\"QUERY_ROOT.search(q:cats,topic:dogs)\"]");
    CHECK_GET(cache, "QUERY_ROOT",
              "{\"search(q:cats,topic:dogs)\":[\"dogs about cats\"],\"search(q:cats\\\\,topic\\\\:dogs)\":[\"cats and dogs\"]}");
    check_read(cache, joined, NULL, 0, NORMCACHE_OK, "{\"search\":[\"cats and dogs\"]}");
    check_read(cache, apart, NULL, 0, NORMCACHE_OK, "{\"search\":[\"dogs about cats\"]}");
    check_read(cache, variable, "{\"q\": \"cats,topic:dogs\"}", 0, NORMCACHE_OK, "{\"search\":[\"cats and dogs\"]}");
    check_read(cache, variable, "{\"q\": \"cats\", \"topic\": \"dogs\"}", 0, NORMCACHE_OK, "{\"search\":[\"dogs about cats\"]}");
    CHECK_OK(normcache_op_free(joined));
    CHECK_OK(normcache_op_free(apart));
    CHECK_OK(normcache_op_free(variable));
    CHECK_OK(normcache_close(cache));
}

/**
 * Configure's names are checked against the schema, in either order: at configure when
 * a schema is loaded, else at the next normcache_load_schema, which then fails whole.
 */
static void test_configure_checks_names_against_the_schema(void)
{
    normcache *cache = NC_OPEN(nc_temp_path((char[NC_PATH_SIZE]){0}, "configure-schema"), NULL);
    const char *misspelt = "{\"typePolicies\": {\"Driod\": {\"keyFields\": [\"id\"]}}}";
    const char *no_field = "{\"typePolicies\": {\"Droid\": {\"keyFields\": [\"serial\"]}}}";
    const char *no_type = "configuration error at byte 27: typePolicies names type 'Driod', which the schema lacks "
                          "(did you mean 'Droid'?)";
    normcache_op *op;
    char *out = NULL;
    size_t length = 0;

    CHECK_OK(normcache_load_schema(cache, star_wars_schema, strlen(star_wars_schema)));
    CHECK_CODE(normcache_configure(cache, misspelt, strlen(misspelt)), NORMCACHE_ESCHEMA);
    CHECK_CONTAINS(normcache_errmsg(), no_type);
    CHECK_CODE(normcache_configure(cache, no_field, strlen(no_field)), NORMCACHE_ESCHEMA);
    CHECK_CONTAINS(normcache_errmsg(),
                   "configuration error at byte 41: key field 'serial' of typePolicies.Droid is not a field of 'Droid'");
    op = prepare(cache, "{ hero { id } }");
    CHECK_OK(normcache_normalize(op, NULL, 0, response, strlen(response), &out, &length));
    CHECK_CONTAINS(out, "\"Droid:2001\"");
    normcache_free(out);
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));

    cache = NC_OPEN(nc_temp_path((char[NC_PATH_SIZE]){0}, "configure-first"), NULL);
    CHECK_OK(normcache_configure(cache, misspelt, strlen(misspelt)));
    CHECK_CODE(normcache_load_schema(cache, star_wars_schema, strlen(star_wars_schema)), NORMCACHE_ESCHEMA);
    CHECK_CONTAINS(normcache_errmsg(), "the key rules configured before the schema do not fit it: ");
    CHECK_CONTAINS(normcache_errmsg(), no_type);
    op = prepare(cache, "{ anything }");
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
}

int main(void)
{
    test_key_resolver();
    test_write_then_read();
    test_errors();
    test_operation_outlives_its_cache();
    test_separators_in_strings();
    test_configure_checks_names_against_the_schema();
    return 0;
}
