/* liblmdb for the harness's raw LMDB baseline: the bench's own module, apart from the
 * core's CLMDB, so that the harness uses no module of the library's internals. */
#ifndef NORMCACHE_BENCH_CRAWLMDB_SHIM_H
#define NORMCACHE_BENCH_CRAWLMDB_SHIM_H
#include <lmdb.h>
#endif
