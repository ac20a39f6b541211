#ifndef NORMCACHE_CLMDB_SHIM_H
#define NORMCACHE_CLMDB_SHIM_H
#include <lmdb.h>
#endif
