/*
 * test_mutations.c — a mutation's root fields through the C interface: by default a
 * write keeps the entities a mutation returns and not MUTATION_ROOT (whose keys hold
 * the arguments, a password here), normalize shows exactly that, and no byte of the
 * password reaches the cache file; "storeMutationRoot": true brings back Apollo's
 * records.
 */
#include "check.h"

/** The login of issue 12: a password argument, a token in the answer, a keyed user. */
static const char *login =
    "mutation { login(email: \"a@b\", password: \"hunter2\") { token user { __typename id name } } }";
/** The server's answer to `login`. */
static const char *login_response =
    "{\"data\": {\"login\": {\"__typename\": \"LoginPayload\", \"token\": \"t0k3n\", "
    "\"user\": {\"__typename\": \"User\", \"id\": \"1\", \"name\": \"Ann\"}}}}";
/** Key rules for User alone. */
static const char *user_rule = "{\"typePolicies\": {\"User\": {\"keyFields\": [\"id\"]}}}";

/** Prepares `document` on `cache`, failing the test unless it works. */
static normcache_op *prepare(normcache *cache, const char *document)
{
    normcache_op *op = NULL;
    CHECK_OK(normcache_prepare(cache, document, strlen(document), NULL, 0, &op));
    CHECK(op != NULL);
    return op;
}

/** Fails when the bytes of the file at `path` hold `needle`. */
static void check_file_lacks(const char *path, const char *needle)
{
    size_t length = 0;
    size_t needle_len = strlen(needle);
    unsigned char *bytes = nc_read_file(path, &length);
    size_t at;
    CHECK(length > 0);
    for (at = 0; at + needle_len <= length; at++) {
        CHECK(memcmp(bytes + at, needle, needle_len) != 0);
    }
    free(bytes);
}

static void test_the_root_of_a_mutation_is_not_stored(void)
{
    char path[NC_PATH_SIZE] = {0};
    normcache *cache = NC_OPEN(nc_temp_path(path, "mutation-default"), NULL);
    normcache_op *op;
    char *out = NULL;
    size_t length = 0;

    CHECK_OK(normcache_configure(cache, user_rule, strlen(user_rule)));
    op = prepare(cache, login);
    CHECK_OK(normcache_normalize(op, NULL, 0, login_response, strlen(login_response), &out, &length));
    nc_check_output(__FILE__, __LINE__, "records", out, length,
                    "{\"User:1\":{\"__typename\":\"User\",\"id\":\"1\",\"name\":\"Ann\"}}");
    CHECK_OK(normcache_write(cache, op, NULL, 0, login_response, strlen(login_response), &out, &length));
    nc_check_output(__FILE__, __LINE__, "changed", out, length,
                    "[\"User:1.__typename\",\"User:1.id\",\"User:1.name\"]");
    CHECK_SEARCH(cache, "", NULL, 0, "[\"User:1\"]");
    CHECK_GET(cache, "User:1", "{\"__typename\":\"User\",\"id\":\"1\",\"name\":\"Ann\"}");
    CHECK_CODE(normcache_read(cache, op, NULL, 0, 0, &out, &length), NORMCACHE_MISS);
    nc_check_output(__FILE__, __LINE__, "read", out, length,
                    "{\"data\":null,\"missing\":[{\"path\":[\"login\"],\"reason\":\"absent\",\"record\":\"MUTATION_ROOT\","
                    "\"field\":\"login\"}]}");
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
    check_file_lacks(path, "hunter2");
}

static void test_store_mutation_root_keeps_apollos_records(void)
{
    normcache *cache = NC_OPEN(nc_temp_path((char[NC_PATH_SIZE]){0}, "mutation-apollo"), NULL);
    const char *store = "{\"storeMutationRoot\": true}";
    const char *wrong = "{\"storeMutationRoot\": 1}";
    normcache_op *op;
    char *out = NULL;
    size_t length = 0;

    CHECK_OK(normcache_configure(cache, user_rule, strlen(user_rule)));
    CHECK_CODE(normcache_configure(cache, wrong, strlen(wrong)), NORMCACHE_EINVAL);
    CHECK_ERRMSG("byte 22", "storeMutationRoot must be true or false");
    CHECK_OK(normcache_configure(cache, store, strlen(store)));
    op = prepare(cache, login);
    CHECK_OK(normcache_normalize(op, NULL, 0, login_response, strlen(login_response), &out, &length));
    nc_check_output(__FILE__, __LINE__, "records", out, length,
                    "{\"User:1\":{\"__typename\":\"User\",\"id\":\"1\",\"name\":\"Ann\"},"
                    "\"MUTATION_ROOT.login(email:a@b,password:hunter2)\":{\"token\":\"t0k3n\","
                    "\"user\":{\"$reference\":\"User:1\"},\"__typename\":\"LoginPayload\"},"
                    "\"MUTATION_ROOT\":{\"login(email:a@b,password:hunter2)\":"
                    "{\"$reference\":\"MUTATION_ROOT.login(email:a@b,password:hunter2)\"}}}");
    CHECK_OK(normcache_write(cache, op, NULL, 0, login_response, strlen(login_response), NULL, NULL));
    CHECK_SEARCH(cache, "", NULL, 0,
                 "[\"MUTATION_ROOT\",\"MUTATION_ROOT.login(email:a@b,password:hunter2)\",\"User:1\"]");
    CHECK_OK(normcache_read(cache, op, NULL, 0, 0, &out, &length));
    nc_check_output(__FILE__, __LINE__, "read", out, length,
                    "{\"login\":{\"token\":\"t0k3n\",\"user\":{\"__typename\":\"User\",\"id\":\"1\",\"name\":\"Ann\"}}}");
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
}

int main(void)
{
    test_the_root_of_a_mutation_is_not_stored();
    test_store_mutation_root_keeps_apollos_records();
    return 0;
}
