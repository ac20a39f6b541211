#ifndef NORMCACHE_CPREFETCH_H
#define NORMCACHE_CPREFETCH_H

/* The compiler's prefetch hint, which Swift has no spelling for: asks the CPU to bring
   the cache line of `address` in ahead of the reads that follow. */
static inline void normcache_prefetch(const void *address)
{
    __builtin_prefetch(address);
}

#endif
