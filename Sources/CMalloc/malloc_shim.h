#ifndef NORMCACHE_CMALLOC_SHIM_H
#define NORMCACHE_CMALLOC_SHIM_H
/* glibc's <malloc.h>, which the Glibc module leaves out: malloc_usable_size, the size
   of a block that normcache_free takes back into the block pool. */
#include <malloc.h>
#endif
