/*
 * test_large.c — sizes far past the defaults: a 50 MB field value (the default map
 * is 64 MiB) and a million records in one put.
 */
#include "check.h"

/** The size of the large field value. */
#define BIG_VALUE (50u * 1024u * 1024u)
/** The number of records written by one put. */
#define MANY 1000000
/** A multiplier coprime with MANY: record i of the input is R:<i * STRIDE % MANY>. */
#define STRIDE 7919

/** A 50 MB string of pseudo-random letters round-trips, and rewriting it changes nothing. */
static void test_big_value(void)
{
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    nc_text records = {0};
    nc_text record = {0};
    char *value = malloc(BIG_VALUE);
    unsigned int state = 2024u;
    size_t i;

    CHECK(value != NULL);
    for (i = 0; i < BIG_VALUE; i++) {
        state = state * 1103515245u + 12345u;
        value[i] = (char)('a' + (state >> 16) % 26u);
    }
    NC_APPEND_LITERAL(&records, "{\"Big:1\": {\"blob\": \"");
    nc_append(&records, value, BIG_VALUE);
    NC_APPEND_LITERAL(&records, "\", \"n\": 1}}");
    NC_APPEND_LITERAL(&record, "{\"blob\":\"");
    nc_append(&record, value, BIG_VALUE);
    NC_APPEND_LITERAL(&record, "\",\"n\":1}");
    free(value);

    CHECK_PUT(cache, records.data, "[\"Big:1.blob\",\"Big:1.n\"]");
    CHECK_GET(cache, "Big:1", record.data);
    CHECK_PUT(cache, records.data, "[]");
    CHECK_OK(normcache_close(cache));
    free(records.data);
    free(record.data);
}

/** A million records in one put, in a scrambled order: all written, all reported, all found. */
static void test_million_records(void)
{
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    nc_text records = {0};
    nc_text changed = {0};
    nc_text group = {0};
    int i;

    NC_APPEND_LITERAL(&records, "{");
    NC_APPEND_LITERAL(&changed, "[");
    for (i = 0; i < MANY; i++) {
        int n = (int)((long long)i * STRIDE % MANY);
        nc_appendf(&records, "%s\"R:%07d\": {\"n\": %d}", i == 0 ? "" : ", ", n, n);
        nc_appendf(&changed, "%s\"R:%07d.n\"", i == 0 ? "" : ",", n);
    }
    NC_APPEND_LITERAL(&records, "}");
    NC_APPEND_LITERAL(&changed, "]");
    CHECK_PUT(cache, records.data, changed.data);
    free(records.data);
    free(changed.data);

    CHECK_STAT(cache, "records", "1000000");
    NC_APPEND_LITERAL(&group, "[");
    for (i = 100; i < 200; i++) {
        nc_appendf(&group, "%s\"R:%07d\"", i == 100 ? "" : ",", i);
    }
    NC_APPEND_LITERAL(&group, "]");
    CHECK_SEARCH(cache, "R:00001", NULL, 0, group.data);
    free(group.data);
    CHECK_SEARCH(cache, "R:", "R:0999997", 5, "[\"R:0999998\",\"R:0999999\"]");
    CHECK_SEARCH(cache, "R:", NULL, 3, "[\"R:0000000\",\"R:0000001\",\"R:0000002\"]");
    CHECK_GET(cache, "R:0531441", "{\"n\":531441}");
    CHECK_OK(normcache_close(cache));
}

int main(void)
{
    test_big_value();
    test_million_records();
    return 0;
}
