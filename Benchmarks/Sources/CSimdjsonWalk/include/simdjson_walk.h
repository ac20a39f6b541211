/*
 * simdjson_walk.h — the parse ceiling of normcache-bench: simdjson's DOM parser, called
 * from Swift through this C interface (simdjson itself is C++).
 */
#ifndef SIMDJSON_WALK_H
#define SIMDJSON_WALK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The bytes of zeroed padding simdjson needs after the end of a document. */
size_t simdjson_walk_padding(void);

/** A reusable simdjson DOM parser (a parser keeps its buffers between documents). */
typedef struct simdjson_walk_parser simdjson_walk_parser;

/** A new parser, or NULL when out of memory. */
simdjson_walk_parser *simdjson_walk_parser_new(void);

/** Releases a parser; NULL is allowed. */
void simdjson_walk_parser_free(simdjson_walk_parser *parser);

/**
 * Parses `length` bytes of JSON at `json` (followed by simdjson_walk_padding() readable
 * bytes) into the DOM and visits every value, as a normalizer would. Returns the number
 * of values plus the bytes of all strings and keys (so the walk cannot be optimised
 * away), or -1 when the document is not valid JSON.
 */
int64_t simdjson_walk_parse(simdjson_walk_parser *parser, const char *json, size_t length);

#ifdef __cplusplus
}
#endif

#endif
