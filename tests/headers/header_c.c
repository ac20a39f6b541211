/*
 * header_c.c — include/normcache.h compiles as strict C99 (-std=c99 -pedantic -Wall
 * -Wextra -Werror), can be included twice, and links against the library.
 */
#include "normcache.h"
#include "normcache.h"

#include <string.h>

/** Passes when the library is the version of the header. */
int main(void)
{
    return strcmp(normcache_version(), NORMCACHE_VERSION) == 0 ? 0 : 1;
}
