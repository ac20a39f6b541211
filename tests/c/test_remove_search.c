/*
 * test_remove_search.c — normcache_remove, normcache_remove_field,
 * normcache_remove_prefix, normcache_clear and normcache_search, with key groups that share prefixes and with keys far longer
 * than LMDB's 511-byte key limit.
 */
#include "check.h"

/** Keys of three groups that share leading bytes, and keys at their edges, in byte order. */
static const char *const group_keys[] = {
    "Pe", "Person:1", "Pet:", "Pet:\"q\\", "Pet:1", "Pet:10", "Pet:2", "Pet:\xc3\xa9", "Pet;",
    "Pets:1"};

/** The number of group_keys. */
#define GROUP_KEY_COUNT (sizeof group_keys / sizeof group_keys[0])

/** Appends `key` as a JSON string, escaping '"' and '\' (the keys here need no more). */
static void append_json_string(nc_text *out, const char *key)
{
    NC_APPEND_LITERAL(out, "\"");
    for (; *key != '\0'; key++) {
        if (*key == '"' || *key == '\\') {
            NC_APPEND_LITERAL(out, "\\");
        }
        nc_append(out, key, 1);
    }
    NC_APPEND_LITERAL(out, "\"");
}

/** Fails unless a search for `prefix` after `after` with `limit` lists exactly `count` `keys`. */
static void check_keys(normcache *cache, const char *prefix, const char *after, size_t limit,
                       const char *const *keys, size_t count)
{
    nc_text expected = {0};
    size_t i;
    NC_APPEND_LITERAL(&expected, "[");
    for (i = 0; i < count; i++) {
        if (i > 0) {
            NC_APPEND_LITERAL(&expected, ",");
        }
        append_json_string(&expected, keys[i]);
    }
    NC_APPEND_LITERAL(&expected, "]");
    CHECK_SEARCH(cache, prefix, after, limit, expected.data);
    free(expected.data);
}

/** A fresh cache holding group_keys, written in a shuffled order, each {"v": 1}. */
static normcache *open_with_groups(void)
{
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    nc_text records = {0};
    size_t i;
    NC_APPEND_LITERAL(&records, "{");
    for (i = 0; i < GROUP_KEY_COUNT; i++) {
        if (i > 0) {
            NC_APPEND_LITERAL(&records, ", ");
        }
        append_json_string(&records, group_keys[i * 3 % GROUP_KEY_COUNT]);
        NC_APPEND_LITERAL(&records, ": {\"v\": 1}");
    }
    NC_APPEND_LITERAL(&records, "}");
    CHECK_OK(normcache_put(cache, records.data, records.len, NULL, NULL));
    free(records.data);
    return cache;
}

/**
 * remove deletes a record once; the second time there is nothing to delete, which is
 * not a failure: the thread's last message stays as it was.
 */
static void test_remove(void)
{
    normcache *cache = open_with_groups();
    char before_message[512];
    char *out = NULL;
    size_t out_len = 0;

    CHECK_CODE(normcache_get(cache, "", 0, &out, &out_len), NORMCACHE_EINVAL);
    snprintf(before_message, sizeof before_message, "%s", normcache_errmsg());

    CHECK_OK(normcache_remove(cache, "Pet:1", 5));
    CHECK_NOTFOUND(cache, "Pet:1");
    CHECK_CODE(normcache_remove(cache, "Pet:1", 5), NORMCACHE_NOTFOUND);
    CHECK(strcmp(normcache_errmsg(), before_message) == 0);
    CHECK_GET(cache, "Pet:10", "{\"v\":1}");
    CHECK_CODE(normcache_remove(cache, "Pet", 3), NORMCACHE_NOTFOUND);
    CHECK_SEARCH(cache, "Pet:1", NULL, 0, "[\"Pet:10\"]");
    CHECK_STAT(cache, "records", "9");
    CHECK_OK(normcache_close(cache));
}

/** Fails unless `call` returns `expected` and the thread's message is exactly `message`. */
#define CHECK_FAILS_WITH(call, expected, message)          \
    do {                                                   \
        CHECK_CODE(call, expected);                        \
        CHECK(strcmp(normcache_errmsg(), (message)) == 0); \
    } while (0)

/**
 * remove_field deletes one field and keeps the rest; the last field takes the record;
 * an absent record or field is NOTFOUND; a root field's entry removed makes the read
 * of its operation miss at exactly that path until it is written again.
 */
static void test_remove_field(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache = NC_OPEN(nc_temp_path(path, "field"), "{\"durability\": \"fast\"}");
    normcache_op *op = NULL;
    const char *document = "{ feed(first: 10) { id title } viewer { name } }";
    const char *response = "{\"data\": {\"feed\": [{\"id\": \"1\", \"title\": \"Hi\"}], "
                           "\"viewer\": {\"name\": \"Ann\"}}}";
    char *out = NULL;
    size_t out_len = 0;
    const char *pet = "{\"Pet:1\": {\"name\": \"Rex\", \"age\": 3}}";

    CHECK_OK(normcache_put(cache, pet, strlen(pet), NULL, NULL));
    CHECK_OK(normcache_remove_field(cache, "Pet:1", 5, "age", 3));
    CHECK_GET(cache, "Pet:1", "{\"name\":\"Rex\"}");
    CHECK_CODE(normcache_remove_field(cache, "Pet:1", 5, "age", 3), NORMCACHE_NOTFOUND);
    CHECK_CODE(normcache_remove_field(cache, "Pet:1", 5, "nam", 3), NORMCACHE_NOTFOUND);
    CHECK_CODE(normcache_remove_field(cache, "Pet:9", 5, "name", 4), NORMCACHE_NOTFOUND);
    CHECK_OK(normcache_remove_field(cache, "Pet:1", 5, "name", 4));
    CHECK_NOTFOUND(cache, "Pet:1");
    CHECK_STAT(cache, "records", "0");

    CHECK_OK(normcache_prepare(cache, document, strlen(document), NULL, 0, &op));
    CHECK_OK(normcache_write(cache, op, NULL, 0, response, strlen(response), NULL, NULL));
    CHECK_CODE(normcache_remove_field(cache, "QUERY_ROOT", 10, "feed(first: 10)", 15), NORMCACHE_NOTFOUND);
    CHECK_OK(normcache_remove_field(cache, "QUERY_ROOT", 10, "feed(first:10)", 14));
    CHECK_CODE(normcache_read(cache, op, NULL, 0, 0, &out, &out_len), NORMCACHE_MISS);
    CHECK_STR(out, out_len,
              "{\"data\":null,\"missing\":[{\"path\":[\"feed\"],\"reason\":\"absent\",\"record\":\"QUERY_ROOT\","
              "\"field\":\"feed(first:10)\"}]}");
    free(out);
    CHECK_GET(cache, "QUERY_ROOT.feed(first:10).0", "{\"id\":\"1\",\"title\":\"Hi\"}");
    CHECK_OK(normcache_write(cache, op, NULL, 0, response, strlen(response), NULL, NULL));
    CHECK_OK(normcache_read(cache, op, NULL, 0, 0, &out, &out_len));
    CHECK_STR(out, out_len, "{\"feed\":[{\"id\":\"1\",\"title\":\"Hi\"}],\"viewer\":{\"name\":\"Ann\"}}");
    free(out);
    normcache_op_free(op);
    CHECK_OK(normcache_close(cache));
}

/** remove_field refuses bad arguments and handles with their messages; nothing changes. */
static void test_remove_field_bad_input(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache = NC_OPEN(nc_temp_path(path, "field-bad"), NULL);
    normcache *reader;
    const char *pet = "{\"Pet:1\": {\"name\": \"Rex\"}}";

    CHECK_OK(normcache_put(cache, pet, strlen(pet), NULL, NULL));
    CHECK_FAILS_WITH(normcache_remove_field(NULL, "Pet:1", 5, "name", 4), NORMCACHE_EINVAL,
                     "the cache handle is NULL");
    CHECK_FAILS_WITH(normcache_remove_field(cache, NULL, 5, "name", 4), NORMCACHE_EINVAL,
                     "key is NULL but its length is 5");
    CHECK_FAILS_WITH(normcache_remove_field(cache, "Pet:1", 5, NULL, 4), NORMCACHE_EINVAL,
                     "field is NULL but its length is 4");
    CHECK_FAILS_WITH(normcache_remove_field(cache, "", 0, "name", 4), NORMCACHE_EINVAL,
                     "empty record key");
    CHECK_FAILS_WITH(normcache_remove_field(cache, "Pet:1", 5, NULL, 0), NORMCACHE_EINVAL,
                     "empty field key");
    CHECK_FAILS_WITH(normcache_remove_field(cache, "Pet:\xff", 5, "name", 4), NORMCACHE_EINVAL,
                     "record key is not valid UTF-8");
    CHECK_FAILS_WITH(normcache_remove_field(cache, "Pet:1", 5, "n\xc3", 2), NORMCACHE_EINVAL,
                     "field key is not valid UTF-8");
    reader = NC_OPEN(path, "{\"read_only\": true}");
    CHECK_CODE(normcache_remove_field(reader, "Pet:1", 5, "name", 4), NORMCACHE_EREADONLY);
    CHECK_CODE(normcache_remove_field(reader, "Pet:9", 5, "name", 4), NORMCACHE_EREADONLY);
    CHECK_OK(normcache_close(reader));
    CHECK_GET(cache, "Pet:1", "{\"name\":\"Rex\"}");
    CHECK_OK(normcache_close(cache));
    CHECK_FAILS_WITH(normcache_remove_field(cache, "Pet:1", 5, "name", 4), NORMCACHE_EINVAL,
                     "the cache handle is closed or was never opened");
}

/** remove_prefix deletes exactly the group, counts it, and leaves neighbours alone. */
static void test_remove_prefix(void)
{
    normcache *cache = open_with_groups();
    uint64_t count = 99;

    CHECK_OK(normcache_remove_prefix(cache, "Pet:", 4, &count));
    CHECK(count == 6);
    CHECK_SEARCH(cache, "", NULL, 0, "[\"Pe\",\"Person:1\",\"Pet;\",\"Pets:1\"]");
    CHECK_OK(normcache_remove_prefix(cache, "Pet:", 4, &count));
    CHECK(count == 0);
    CHECK_OK(normcache_remove_prefix(cache, "Zebra:", 6, &count));
    CHECK(count == 0);
    CHECK_OK(normcache_remove_prefix(cache, "Pe", 2, NULL));
    CHECK_SEARCH(cache, "", NULL, 0, "[]");
    CHECK_STAT(cache, "records", "0");
    CHECK_OK(normcache_close(cache));
}

/** clear deletes every record; the cache stays usable. */
static void test_clear(void)
{
    normcache *cache = open_with_groups();
    CHECK_OK(normcache_clear(cache));
    CHECK_SEARCH(cache, "", NULL, 0, "[]");
    CHECK_STAT(cache, "records", "0");
    CHECK_NOTFOUND(cache, "Pet:1");
    CHECK_OK(normcache_clear(cache));
    CHECK_PUT(cache, "{\"Pet:1\": {\"v\": 1}}", "[\"Pet:1.v\"]");
    CHECK_SEARCH(cache, "", NULL, 0, "[\"Pet:1\"]");
    CHECK_OK(normcache_close(cache));
}

/** A search lists exactly the keys with the prefix, in byte order. */
static void test_search_by_prefix(void)
{
    normcache *cache = open_with_groups();
    CHECK_SEARCH(cache, "", NULL, 0,
                 "[\"Pe\",\"Person:1\",\"Pet:\",\"Pet:\\\"q\\\\\",\"Pet:1\",\"Pet:10\",\"Pet:2\","
                 "\"Pet:\xc3\xa9\",\"Pet;\",\"Pets:1\"]");
    CHECK_SEARCH(cache, "Pet:", NULL, 0,
                 "[\"Pet:\",\"Pet:\\\"q\\\\\",\"Pet:1\",\"Pet:10\",\"Pet:2\",\"Pet:\xc3\xa9\"]");
    CHECK_SEARCH(cache, "Pets:", NULL, 0, "[\"Pets:1\"]");
    CHECK_SEARCH(cache, "Person:", NULL, 0, "[\"Person:1\"]");
    CHECK_SEARCH(cache, "Pet", NULL, 0,
                 "[\"Pet:\",\"Pet:\\\"q\\\\\",\"Pet:1\",\"Pet:10\",\"Pet:2\",\"Pet:\xc3\xa9\","
                 "\"Pet;\",\"Pets:1\"]");
    CHECK_SEARCH(cache, "Pet:1", NULL, 0, "[\"Pet:1\",\"Pet:10\"]");
    CHECK_SEARCH(cache, "Dog:", NULL, 0, "[]");
    CHECK_SEARCH(cache, "Pets:10", NULL, 0, "[]");
    CHECK_SEARCH(cache, "\x7f", NULL, 0, "[]");
    CHECK_OK(normcache_close(cache));
}

/** `after` starts strictly after a key, stored or not; `limit` cuts the page. */
static void test_search_after_and_limit(void)
{
    normcache *cache = open_with_groups();
    CHECK_SEARCH(cache, "Pet:", NULL, 2, "[\"Pet:\",\"Pet:\\\"q\\\\\"]");
    CHECK_SEARCH(cache, "Pet:", "Pet:\"q\\", 2, "[\"Pet:1\",\"Pet:10\"]");
    CHECK_SEARCH(cache, "Pet:", "Pet:10", 2, "[\"Pet:2\",\"Pet:\xc3\xa9\"]");
    CHECK_SEARCH(cache, "Pet:", "Pet:\xc3\xa9", 2, "[]");
    CHECK_SEARCH(cache, "Pet:", "Pet:15", 0, "[\"Pet:2\",\"Pet:\xc3\xa9\"]");
    CHECK_SEARCH(cache, "Pet:", "A", 1, "[\"Pet:\"]");
    CHECK_SEARCH(cache, "Pet:", "Pets:", 0, "[]");
    CHECK_SEARCH(cache, "Pet:", "", 1, "[\"Pet:\"]");
    CHECK_SEARCH(cache, "", "Pet:2", 3, "[\"Pet:\xc3\xa9\",\"Pet;\",\"Pets:1\"]");
    check_keys(cache, "", NULL, 1000, group_keys, GROUP_KEY_COUNT);
    CHECK_OK(normcache_close(cache));
}

/**
 * Paging through every key with pages of 1 to 4 keys, passing the last key of each
 * page as the next `after`, lists every key once, in order, across the groups, and
 * ends with an empty page.
 */
static void test_search_paging_across_groups(void)
{
    normcache *cache = open_with_groups();
    size_t limit;
    for (limit = 1; limit <= 4; limit++) {
        size_t first = 0;
        const char *after = NULL;
        while (first < GROUP_KEY_COUNT) {
            size_t count = GROUP_KEY_COUNT - first < limit ? GROUP_KEY_COUNT - first : limit;
            check_keys(cache, "", after, limit, group_keys + first, count);
            first += count;
            after = group_keys[first - 1];
        }
        check_keys(cache, "", after, limit, group_keys, 0);
    }
    CHECK_OK(normcache_close(cache));
}

/** The length of the prefix that the long keys share, past LMDB's key limit. */
#define SHARED 600

/** A record key: the shared 600-byte prefix, `tail`, `pad` bytes of 'z', then `end`. */
static char *long_key(const char *tail, size_t pad, const char *end)
{
    nc_text key = {0};
    NC_APPEND_LITERAL(&key, "Long:");
    nc_append_repeat(&key, 'x', SHARED - 5);
    nc_append(&key, tail, strlen(tail));
    nc_append_repeat(&key, 'z', pad);
    nc_append(&key, end, strlen(end));
    return key.data;
}

/** Puts {key: {"v": value}} and checks the changed key. */
static void put_long(normcache *cache, const char *key, int value)
{
    nc_text records = {0};
    nc_text changed = {0};
    nc_appendf(&records, "{\"%s\": {\"v\": %d}}", key, value);
    nc_appendf(&changed, "[\"%s.v\"]", key);
    CHECK_PUT(cache, records.data, changed.data);
    free(records.data);
    free(changed.data);
}

/**
 * Keys of 600 and 10,000 bytes that share their first 600 bytes (and two that differ
 * only in their last byte) are distinct records for put, get, search and remove.
 */
static void test_long_keys(void)
{
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    /* In byte order: the bare prefix, "a", the 10,000-byte "b" key, "c", then two
       10,000-byte "d" keys that differ in their last byte only. */
    char *keys[6];
    const char *const *listed = (const char *const *)keys;
    const char *remaining[4];
    char *prefix = long_key("", 0, "");
    char *d_prefix = long_key("d", 0, "");
    uint64_t count = 0;
    size_t i;

    keys[0] = long_key("", 0, "");
    keys[1] = long_key("a", 0, "");
    keys[2] = long_key("b", 10000 - SHARED - 1, "");
    keys[3] = long_key("c", 0, "");
    keys[4] = long_key("d", 10000 - SHARED - 2, "1");
    keys[5] = long_key("d", 10000 - SHARED - 2, "2");
    CHECK(strlen(keys[0]) == 600 && strlen(keys[2]) == 10000 && strlen(keys[5]) == 10000);

    for (i = 6; i-- > 0;) {
        put_long(cache, keys[i], (int)i);
    }
    for (i = 0; i < 6; i++) {
        char record[16];
        snprintf(record, sizeof record, "{\"v\":%d}", (int)i);
        CHECK_GET(cache, keys[i], record);
    }
    CHECK_STAT(cache, "records", "6");
    check_keys(cache, prefix, NULL, 0, listed, 6);
    check_keys(cache, "", NULL, 0, listed, 6);
    check_keys(cache, keys[2], NULL, 0, listed + 2, 1);
    check_keys(cache, prefix, keys[1], 2, listed + 2, 2);
    check_keys(cache, prefix, keys[4], 0, listed + 5, 1);
    check_keys(cache, d_prefix, NULL, 0, listed + 4, 2);

    CHECK_OK(normcache_remove(cache, keys[4], strlen(keys[4])));
    CHECK_NOTFOUND(cache, keys[4]);
    CHECK_GET(cache, keys[5], "{\"v\":5}");
    CHECK_CODE(normcache_remove(cache, keys[4], strlen(keys[4])), NORMCACHE_NOTFOUND);
    CHECK_OK(normcache_remove(cache, keys[2], strlen(keys[2])));
    CHECK_NOTFOUND(cache, keys[2]);
    remaining[0] = keys[0];
    remaining[1] = keys[1];
    remaining[2] = keys[3];
    remaining[3] = keys[5];
    check_keys(cache, prefix, NULL, 0, remaining, 4);

    CHECK_OK(normcache_remove_prefix(cache, d_prefix, strlen(d_prefix), &count));
    CHECK(count == 1);
    CHECK_OK(normcache_remove_prefix(cache, prefix, strlen(prefix), &count));
    CHECK(count == 3);
    CHECK_SEARCH(cache, "", NULL, 0, "[]");
    CHECK_OK(normcache_close(cache));

    for (i = 0; i < 6; i++) {
        free(keys[i]);
    }
    free(prefix);
    free(d_prefix);
}

int main(void)
{
    test_remove();
    test_remove_field();
    test_remove_field_bad_input();
    test_remove_prefix();
    test_clear();
    test_search_by_prefix();
    test_search_after_and_limit();
    test_search_paging_across_groups();
    test_long_keys();
    return 0;
}
