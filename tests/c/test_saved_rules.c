/*
 * test_saved_rules.c — rules saved in the cache file travel to other processes: a
 * child that brings no rules prepares, writes and reads keyed by the saved rules; a
 * child that brings other rules sees both fingerprints in its stats, and a strict one
 * is refused with the exact message; clearing leaves the file as one that never had
 * any. Damaged saved rules: test_hostile_files.
 */
#include "check.h"
#include "processes.h"

static const char *const schema = "type Query { dog(id: ID!): Dog }\n"
                                  "type Dog { id: ID! name: String }\n";
static const char *const key_rules = "{\"typePolicies\": {\"Dog\": {\"keyFields\": [\"id\"]}}}";
static const char *const other_rules = "{\"defaultKeyFields\": [\"id\"]}";
static const char *const query = "query Q { dog(id: 1) { id name } }";
static const char *const response =
    "{\"data\": {\"dog\": {\"__typename\": \"Dog\", \"id\": \"1\", \"name\": \"Rex\"}}}";

/** The fingerprint of the rules saved by the parent, as its stats showed it. */
static char saved_fingerprint[32];

/** Prepares `query`, writes `response` and checks that the data reads back. */
static void write_and_read(normcache *cache)
{
    normcache_op *op = NULL;
    char *data = NULL;
    size_t data_len = 0;
    CHECK_OK(normcache_prepare(cache, query, strlen(query), NULL, 0, &op));
    CHECK_OK(normcache_write(cache, op, NULL, 0, response, strlen(response), NULL, NULL));
    CHECK_OK(normcache_read(cache, op, NULL, 0, 0, &data, &data_len));
    CHECK_STR(data, data_len, "{\"dog\":{\"id\":\"1\",\"name\":\"Rex\"}}");
    normcache_free(data);
    normcache_op_free(op);
}

/** Child body: opens the cache with no rules of its own and writes keyed by the saved ones. */
static void use_saved_rules(const char *path, int number)
{
    normcache *cache = NC_OPEN(path, NULL);
    (void)number;
    CHECK_STAT(cache, "rules_fingerprint", saved_fingerprint);
    CHECK_STAT(cache, "saved_rules_fingerprint", saved_fingerprint);
    write_and_read(cache);
    CHECK_GET(cache, "Dog:1", "{\"__typename\":\"Dog\",\"id\":\"1\",\"name\":\"Rex\"}");
    CHECK_GET(cache, "QUERY_ROOT", "{\"dog(id:1)\":{\"$reference\":\"Dog:1\"}}");
    CHECK_OK(normcache_close(cache));
}

/** Child body: brings other rules; sees the difference, and under "strict" is refused. */
static void bring_other_rules(const char *path, int strict)
{
    normcache *cache = NC_OPEN(path, strict ? "{\"rules\": \"strict\"}" : NULL);
    normcache_op *op = NULL;
    char own[32];
    char expected[1024];
    CHECK_OK(normcache_configure(cache, other_rules, strlen(other_rules)));
    NC_STAT(cache, "rules_fingerprint", own, sizeof own);
    CHECK(strcmp(own, saved_fingerprint) != 0 && strlen(own) == 18);
    CHECK_STAT(cache, "saved_rules_fingerprint", saved_fingerprint);
    if (!strict) {
        CHECK_OK(normcache_close(cache));
        return;
    }
    /* The fingerprints come quoted from the stats JSON, as the message quotes neither. */
    snprintf(expected, sizeof expected,
             "the rules of this handle (fingerprint %.16s) differ from the rules saved in "
             "'%s' (fingerprint %.16s), and it was opened with \"rules\": \"strict\": give it "
             "no rules of its own to use the saved ones, or save its rules in the file",
             own + 1, path, saved_fingerprint + 1);
    CHECK_CODE(normcache_prepare(cache, query, strlen(query), NULL, 0, &op), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS(expected);
    CHECK(op == NULL);
    CHECK_CODE(normcache_put(cache, "{\"Dog:9\": {\"name\": \"Odd\"}}", NORMCACHE_NUL_TERMINATED, NULL, NULL),
               NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS(expected);
    CHECK_NOTFOUND(cache, "Dog:9");
    CHECK_OK(normcache_close(cache));
}

/** Saved in one process, the rules key the writes of others. */
static void test_rules_travel_to_other_processes(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache = NC_OPEN(nc_temp_path(path, "saved"), NULL);
    CHECK_OK(normcache_load_schema(cache, schema, strlen(schema)));
    CHECK_OK(normcache_configure(cache, key_rules, strlen(key_rules)));
    CHECK_STAT(cache, "saved_rules_fingerprint", "null");
    CHECK_OK(normcache_save_rules(cache));
    NC_STAT(cache, "saved_rules_fingerprint", saved_fingerprint, sizeof saved_fingerprint);
    CHECK(strlen(saved_fingerprint) == 18 && saved_fingerprint[0] == '"');
    CHECK_STAT(cache, "rules_fingerprint", saved_fingerprint);
    CHECK_OK(normcache_close(cache));

    CHECK_CHILD_PASSED(nc_spawn(use_saved_rules, path, 0));
    CHECK_CHILD_PASSED(nc_spawn(bring_other_rules, path, 0));
    CHECK_CHILD_PASSED(nc_spawn(bring_other_rules, path, 1));
}

/** Cleared rules leave a file that behaves as one that never had any. */
static void test_clearing(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache = NC_OPEN(nc_temp_path(path, "cleared"), NULL);
    normcache *reader;
    CHECK_CODE(normcache_save_rules(cache), NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("this handle has no rules to save: load a schema or configure rules first");
    CHECK_CODE(normcache_clear_saved_rules(cache), NORMCACHE_NOTFOUND);
    CHECK_OK(normcache_configure(cache, key_rules, strlen(key_rules)));
    CHECK_OK(normcache_save_rules(cache));
    CHECK_OK(normcache_clear_saved_rules(cache));
    CHECK_CODE(normcache_clear_saved_rules(cache), NORMCACHE_NOTFOUND);
    reader = NC_OPEN(path, "{\"rules\": \"strict\"}");
    CHECK_STAT(reader, "rules_fingerprint", "null");
    CHECK_STAT(reader, "saved_rules_fingerprint", "null");
    CHECK_PUT(reader, "{\"Dog:1\": {\"name\": \"Rex\"}}", "[\"Dog:1.name\"]");
    CHECK_OK(normcache_close(reader));
    CHECK_OK(normcache_close(cache));
}

/** NULL and closed handles, read-only handles and a bad "rules" option. */
static void test_misuse(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache = NC_OPEN(nc_temp_path(path, "misuse"), NULL);
    normcache *reader;
    CHECK_CODE(normcache_save_rules(NULL), NORMCACHE_EINVAL);
    CHECK_CODE(normcache_clear_saved_rules(NULL), NORMCACHE_EINVAL);
    reader = NC_OPEN(path, "{\"read_only\": true}");
    CHECK_OK(normcache_configure(reader, key_rules, strlen(key_rules)));
    CHECK_CODE(normcache_save_rules(reader), NORMCACHE_EREADONLY);
    CHECK_CODE(normcache_clear_saved_rules(reader), NORMCACHE_EREADONLY);
    CHECK_OK(normcache_close(reader));
    CHECK_OPEN_FAILS(path, "{\"rules\": \"mine\"}", NORMCACHE_EINVAL);
    CHECK_ERRMSG_IS("option 'rules' must be \"saved\", \"own\" or \"strict\"");
    CHECK_OK(normcache_close(cache));
    CHECK_CODE(normcache_save_rules(cache), NORMCACHE_EINVAL);
}

int main(void)
{
    test_rules_travel_to_other_processes();
    test_clearing();
    test_misuse();
    return 0;
}
