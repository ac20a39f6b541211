/*
 * test_version.c — the header's version macros agree with the loaded library, and
 * normcache_errstr has a fixed, distinct text for every status code.
 */
#include "check.h"

#include <limits.h>

/** The header and the library name the same version, and the parts agree with the text. */
static void test_version_matches_header(void)
{
    char parts[32];
    snprintf(parts, sizeof parts, "%d.%d.%d", NORMCACHE_VERSION_MAJOR,
             NORMCACHE_VERSION_MINOR, NORMCACHE_VERSION_PATCH);
    CHECK(strcmp(NORMCACHE_VERSION, parts) == 0);
    CHECK(normcache_version() != NULL);
    CHECK(strcmp(normcache_version(), NORMCACHE_VERSION) == 0);
    CHECK(normcache_version() == normcache_version());
    CHECK(NORMCACHE_VERSION_NUMBER ==
          NORMCACHE_VERSION_MAJOR * 1000000 + NORMCACHE_VERSION_MINOR * 1000 + NORMCACHE_VERSION_PATCH);
    CHECK(normcache_version_number() == NORMCACHE_VERSION_NUMBER);
    CHECK(strcmp(NORMCACHE_CMAKE_VERSION, NORMCACHE_VERSION) == 0);
}

/** Every status code of the header, success and outcomes included. */
static const int known_codes[] = {
    NORMCACHE_OK,
    NORMCACHE_MISS,
    NORMCACHE_NOTFOUND,
    NORMCACHE_STALE,
    NORMCACHE_NOTSTORED,
    NORMCACHE_TIMEOUT,
    NORMCACHE_EINVAL,
    NORMCACHE_EJSON,
    NORMCACHE_EDOCUMENT,
    NORMCACHE_ESCHEMA,
    NORMCACHE_EDATA,
    NORMCACHE_ESTORAGE,
    NORMCACHE_ECALLBACK,
    NORMCACHE_ENOMEM,
    NORMCACHE_ENOTCACHE,
    NORMCACHE_EREADONLY,
    NORMCACHE_EFETCH,
    NORMCACHE_EGRAPHQL,
    NORMCACHE_INTERRUPTED,
};

/** The text the header promises for a code the library does not define. */
static const char unknown_text[] = "unknown status code";

/** Each known code has its own non-empty text, stable from call to call. */
static void test_errstr_of_known_codes(void)
{
    size_t count = sizeof known_codes / sizeof known_codes[0];
    size_t i, j;
    for (i = 0; i < count; i++) {
        const char *text = normcache_errstr(known_codes[i]);
        CHECK(text != NULL);
        CHECK(text[0] != '\0');
        CHECK(strcmp(text, unknown_text) != 0);
        CHECK(strcmp(text, normcache_errstr(known_codes[i])) == 0);
        for (j = 0; j < i; j++) {
            if (strcmp(text, normcache_errstr(known_codes[j])) == 0) {
                nc_fail(__FILE__, __LINE__, "codes %d and %d share the text \"%s\"",
                        known_codes[i], known_codes[j], text);
            }
        }
    }
}

/** Codes outside the header's list, including the extremes of int, are "unknown". */
static void test_errstr_of_unknown_codes(void)
{
    static const int unknown_codes[] = {-14, -100, 6, 100, INT_MIN, INT_MAX};
    size_t i;
    for (i = 0; i < sizeof unknown_codes / sizeof unknown_codes[0]; i++) {
        const char *text = normcache_errstr(unknown_codes[i]);
        CHECK(text != NULL);
        if (strcmp(text, unknown_text) != 0) {
            nc_fail(__FILE__, __LINE__, "errstr(%d) is \"%s\", expected \"%s\"",
                    unknown_codes[i], text, unknown_text);
        }
    }
}

int main(void)
{
    test_version_matches_header();
    test_errstr_of_known_codes();
    test_errstr_of_unknown_codes();
    return 0;
}
