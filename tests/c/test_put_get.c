/*
 * test_put_get.c — normcache_put and normcache_get: the field-level merge, the
 * changed-key arrays, and exact round trips of every kind of JSON value.
 *
 * Outputs are compact JSON (no whitespace); get orders fields by the bytes of their
 * keys; changed keys come in the order of the input.
 */
#include "check.h"

/** The record notation of the header, with references, nulls and a list. */
static void test_record_with_references(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    CHECK_PUT(cache,
              "{\"Droid:2001\": {\"name\": \"R2-D2\", \"friends\": "
              "[{\"$reference\": \"Human:1000\"}, null]}}",
              "[\"Droid:2001.name\",\"Droid:2001.friends\"]");
    CHECK_GET(cache, "Droid:2001",
              "{\"friends\":[{\"$reference\":\"Human:1000\"},null],\"name\":\"R2-D2\"}");
    CHECK_NOTFOUND(cache, "Human:1000");
    CHECK_OK(normcache_close(cache));
}

/** A field given replaces the stored one; fields not given stay. */
static void test_merge_last_write_wins(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    CHECK_PUT(cache, "{\"Dog:1\": {\"name\": \"Rex\", \"age\": 3}}",
              "[\"Dog:1.name\",\"Dog:1.age\"]");
    CHECK_PUT(cache, "{\"Dog:1\": {\"age\": 4, \"owner\": {\"$reference\": \"Human:1\"}}}",
              "[\"Dog:1.age\",\"Dog:1.owner\"]");
    CHECK_GET(cache, "Dog:1",
              "{\"age\":4,\"name\":\"Rex\",\"owner\":{\"$reference\":\"Human:1\"}}");
    CHECK_PUT(cache, "{\"Dog:1\": {\"name\": null}}", "[\"Dog:1.name\"]");
    CHECK_GET(cache, "Dog:1",
              "{\"age\":4,\"name\":null,\"owner\":{\"$reference\":\"Human:1\"}}");
    CHECK_PUT(cache, "{\"Dog:1\": {\"age\": \"4\"}}", "[\"Dog:1.age\"]");
    CHECK_GET(cache, "Dog:1",
              "{\"age\":\"4\",\"name\":null,\"owner\":{\"$reference\":\"Human:1\"}}");
    CHECK_OK(normcache_close(cache));
}

/** A list is replaced whole, never merged element by element. */
static void test_lists_replaced_whole(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    CHECK_PUT(cache, "{\"Droid:2001\": {\"friends\": [{\"$reference\": \"Human:1000\"}, "
                     "{\"$reference\": \"Human:1002\"}, null]}}",
              "[\"Droid:2001.friends\"]");
    CHECK_PUT(cache, "{\"Droid:2001\": {\"friends\": [{\"$reference\": \"Human:1003\"}]}}",
              "[\"Droid:2001.friends\"]");
    CHECK_GET(cache, "Droid:2001", "{\"friends\":[{\"$reference\":\"Human:1003\"}]}");
    CHECK_PUT(cache, "{\"Droid:2001\": {\"friends\": []}}", "[\"Droid:2001.friends\"]");
    CHECK_GET(cache, "Droid:2001", "{\"friends\":[]}");
    CHECK_OK(normcache_close(cache));
}

/** Writing data equal to what is stored reports no change, field by field. */
static void test_identical_rewrite(void)
{
    static const char records[] =
        "{\"Droid:2001\": {\"name\": \"R2-D2\", \"height\": 1.09, \"tags\": [[1, 2], {}], "
        "\"friends\": [{\"$reference\": \"Human:1000\"}, null], \"meta\": {\"a\": {\"b\": [true]}}}}";
    normcache *cache = NC_OPEN_FRESH(NULL);
    CHECK_PUT(cache, records,
              "[\"Droid:2001.name\",\"Droid:2001.height\",\"Droid:2001.tags\","
              "\"Droid:2001.friends\",\"Droid:2001.meta\"]");
    CHECK_PUT(cache, records, "[]");
    CHECK_PUT(cache, "{\"Droid:2001\": {\"name\": \"R2-D2\", \"primaryFunction\": \"Astromech\"}}",
              "[\"Droid:2001.primaryFunction\"]");
    CHECK_PUT(cache, "{\"Droid:2001\": {\"meta\": {\"a\": {\"b\": [false]}}}}",
              "[\"Droid:2001.meta\"]");
    CHECK_PUT(cache, "{}", "[]");
    CHECK_OK(normcache_close(cache));
}

/** Changed keys follow the input: records in input order, fields in input order. */
static void test_changed_keys_in_input_order(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    CHECK_PUT(cache, "{\"B:1\": {\"z\": 1, \"a\": 2}, \"A:1\": {\"y\": true, \"b\": false}}",
              "[\"B:1.z\",\"B:1.a\",\"A:1.y\",\"A:1.b\"]");
    CHECK_PUT(cache, "{\"A:1\": {\"b\": true, \"y\": true}, \"B:1\": {\"a\": 3, \"z\": 1}}",
              "[\"A:1.b\",\"B:1.a\"]");
    CHECK_GET(cache, "A:1", "{\"b\":true,\"y\":true}");
    CHECK_GET(cache, "B:1", "{\"a\":3,\"z\":1}");
    CHECK_OK(normcache_close(cache));
}

/** A record key given twice in one input is merged in input order, each field reported once. */
static void test_record_key_twice_in_one_input(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    CHECK_PUT(cache, "{\"C:1\": {\"a\": 1, \"c\": 0}, \"C:1\": {\"a\": 2, \"b\": 3}}",
              "[\"C:1.a\",\"C:1.c\",\"C:1.b\"]");
    CHECK_GET(cache, "C:1", "{\"a\":2,\"b\":3,\"c\":0}");
    CHECK_OK(normcache_close(cache));
}

/** Every kind of JSON value comes back as written, in compact form. */
static void test_value_kinds_round_trip(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    CHECK_PUT(cache,
              "{\"V:1\": {\"t\": true, \"f\": false, \"n\": null, \"s\": \"\", \"o\": {}, "
              "\"l\": [], \"deep\": {\"k\": [[], [{\"x\": null}], \"y\"], \"r\": "
              "{\"$reference\": \"Human:1\"}}, \"refs\": [[{\"$reference\": \"A:1\"}]]}}",
              "[\"V:1.t\",\"V:1.f\",\"V:1.n\",\"V:1.s\",\"V:1.o\",\"V:1.l\",\"V:1.deep\","
              "\"V:1.refs\"]");
    CHECK_GET(cache, "V:1",
              "{\"deep\":{\"k\":[[],[{\"x\":null}],\"y\"],\"r\":{\"$reference\":\"Human:1\"}},"
              "\"f\":false,\"l\":[],\"n\":null,\"o\":{},\"refs\":[[{\"$reference\":\"A:1\"}]],"
              "\"s\":\"\",\"t\":true}");
    CHECK_OK(normcache_close(cache));
}

/** Numbers keep their text: no rounding, no reformatting, no range limit. */
static void test_numbers_keep_their_text(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    CHECK_PUT(cache,
              "{\"N:1\": {\"a\": 1.0, \"b\": 12345678901234567890, \"c\": -0, \"d\": 1e400, "
              "\"e\": 0.1e-2, \"f\": -12.50E+3, \"g\": 0, \"h\": 123456789012345678901234567890.5}}",
              "[\"N:1.a\",\"N:1.b\",\"N:1.c\",\"N:1.d\",\"N:1.e\",\"N:1.f\",\"N:1.g\",\"N:1.h\"]");
    CHECK_GET(cache, "N:1",
              "{\"a\":1.0,\"b\":12345678901234567890,\"c\":-0,\"d\":1e400,\"e\":0.1e-2,"
              "\"f\":-12.50E+3,\"g\":0,\"h\":123456789012345678901234567890.5}");
    CHECK_OK(normcache_close(cache));
}

/**
 * Strings keep every code point. Output escapes only '"', '\' and control characters
 * (\n, \r and \t by their short names, others as \u00XX); '/' and every other code
 * point, U+2028 included, are raw UTF-8.
 */
static void test_strings_round_trip(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    CHECK_PUT(cache,
              "{\"S:1\": {\"s\": \"q\\\"b\\\\n\\nr\\rt\\tc\\u0001z\\u0000e\\u0019/\\/"
              "\\u00e9\xc3\xa9\\u20ac\\ud83d\\ude00\xf0\x9f\x98\x80\\u2028 \\u00E9\"}}",
              "[\"S:1.s\"]");
    CHECK_GET(cache, "S:1",
              "{\"s\":\"q\\\"b\\\\n\\nr\\rt\\tc\\u0001z\\u0000e\\u0019//"
              "\xc3\xa9\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xe2\x80\xa8 \xc3\xa9\"}");
    CHECK_OK(normcache_close(cache));
}

/**
 * Keys are bytes: field keys sort by byte, not by locale or case; precomposed and
 * decomposed spellings are different keys; quotes and backslashes in keys are escaped.
 */
static void test_keys_are_bytes(void)
{
    normcache *cache = NC_OPEN_FRESH(NULL);
    CHECK_PUT(cache,
              "{\"Caf\xc3\xa9:1\": {\"b\": 1, \"\xc3\xa9\": 2, \"B\": 3, \"a\": 4, "
              "\"e\\u0301\": 5, \"a\\\"q\\\\\": 6}}",
              "[\"Caf\xc3\xa9:1.b\",\"Caf\xc3\xa9:1.\xc3\xa9\",\"Caf\xc3\xa9:1.B\","
              "\"Caf\xc3\xa9:1.a\",\"Caf\xc3\xa9:1.e\xcc\x81\",\"Caf\xc3\xa9:1.a\\\"q\\\\\"]");
    CHECK_GET(cache, "Caf\xc3\xa9:1",
              "{\"B\":3,\"a\":4,\"a\\\"q\\\\\":6,\"b\":1,\"e\xcc\x81\":5,\"\xc3\xa9\":2}");
    CHECK_NOTFOUND(cache, "Cafe\xcc\x81:1");
    CHECK_PUT(cache, "{\"Cafe\\u0301:1\": {\"x\": 1}}", "[\"Cafe\xcc\x81:1.x\"]");
    CHECK_GET(cache, "Cafe\xcc\x81:1", "{\"x\":1}");
    CHECK_GET(cache, "Caf\xc3\xa9:1",
              "{\"B\":3,\"a\":4,\"a\\\"q\\\\\":6,\"b\":1,\"e\xcc\x81\":5,\"\xc3\xa9\":2}");
    CHECK_OK(normcache_close(cache));
}

/** A NUL inside a record key is a byte like any other. */
static void test_key_with_nul_byte(void)
{
    static const char key[] = {'N', ':', '\0', 'x'};
    normcache *cache = NC_OPEN_FRESH(NULL);
    char *out = NULL;
    size_t out_len = 0;

    CHECK_PUT(cache, "{\"N:\\u0000x\": {\"v\": 1}}", "[\"N:\\u0000x.v\"]");
    CHECK_OK(normcache_get(cache, key, sizeof key, &out, &out_len));
    CHECK_STR(out, out_len, "{\"v\":1}");
    normcache_free(out);
    CHECK_NOTFOUND(cache, "N:");
    CHECK_SEARCH(cache, "N:", NULL, 0, "[\"N:\\u0000x\"]");
    CHECK_OK(normcache_close(cache));
}

/** Input is exactly (pointer, length), with any JSON whitespace between tokens. */
static void test_input_is_a_byte_range(void)
{
    static const char input[] = " \t\r\n{ \"W:1\" :\n{\t\"x\"\r: [ 1 , 2 ] } } garbage";
    normcache *cache = NC_OPEN_FRESH(NULL);
    char *out = NULL;
    size_t out_len = 0;

    CHECK_OK(normcache_put(cache, input, strlen(input) - strlen("garbage"), &out, &out_len));
    CHECK_STR(out, out_len, "[\"W:1.x\"]");
    CHECK(out[out_len] == '\0');
    normcache_free(out);
    CHECK_GET(cache, "W:1", "{\"x\":[1,2]}");
    CHECK_OK(normcache_close(cache));
}

/** out_changed and out_len may both be NULL; the write still happens. */
static void test_changed_keys_not_asked_for(void)
{
    static const char input[] = "{\"Q:1\": {\"x\": 1}}";
    normcache *cache = NC_OPEN_FRESH(NULL);
    CHECK_OK(normcache_put(cache, input, strlen(input), NULL, NULL));
    CHECK_GET(cache, "Q:1", "{\"x\":1}");
    CHECK_PUT(cache, input, "[]");
    CHECK_OK(normcache_close(cache));
}

int main(void)
{
    test_record_with_references();
    test_merge_last_write_wins();
    test_lists_replaced_whole();
    test_identical_rewrite();
    test_changed_keys_in_input_order();
    test_record_key_twice_in_one_input();
    test_value_kinds_round_trip();
    test_numbers_keep_their_text();
    test_strings_round_trip();
    test_keys_are_bytes();
    test_key_with_nul_byte();
    test_input_is_a_byte_range();
    test_changed_keys_not_asked_for();
    return 0;
}
