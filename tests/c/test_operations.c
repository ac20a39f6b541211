/*
 * test_operations.c — GraphQL operations through the C interface: schema and rules,
 * prepare, the network document, normalize, write, read with hits and misses, and
 * the errors of each, with exact outputs.
 */
#include "check.h"

static const char *schema =
    "type Query { hero(episode: Episode): Character droid(id: ID!): Droid }\n"
    "enum Episode { NEWHOPE EMPIRE JEDI }\n"
    "interface Character { id: ID! name: String! friends: [Character] }\n"
    "type Droid implements Character { id: ID! name: String! friends: [Character] primaryFunction: String }\n"
    "type Human implements Character { id: ID! name: String! friends: [Character] }\n"
    "extend type Droid @typePolicy(keyFields: \"id\")\n"
    "extend type Human @typePolicy(keyFields: \"id\")\n"
    "extend type Query @fieldPolicy(forField: \"droid\", keyArgs: \"id\")\n";

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

    CHECK_OK(normcache_load_schema(cache, schema, strlen(schema)));
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
               "{\"data\":null,\"missing\":[[\"droid\",\"primaryFunction\"]]}");
    check_read(cache, droid, "{\"id\": \"2001\"}", NORMCACHE_READ_PARTIAL, NORMCACHE_MISS,
               "{\"data\":{\"droid\":{\"name\":\"R2-D2\",\"primaryFunction\":null}},\"missing\":[[\"droid\",\"primaryFunction\"]]}");
    check_read(cache, droid, "{\"id\": \"7\"}", 0, NORMCACHE_MISS, "{\"data\":null,\"missing\":[[\"droid\"]]}");
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

int main(void)
{
    test_write_then_read();
    test_errors();
    test_operation_outlives_its_cache();
    return 0;
}
