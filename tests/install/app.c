/* A program outside the source tree: built against an installed normcache with
 * pkg-config or find_package, it writes a record, reads it back and prints it. */
#include <normcache.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "app.cache";
    const char *records = "{\"Pet:7\": {\"name\": \"Rex\"}}";
    normcache *cache = NULL;
    char *record = NULL;
    size_t length = 0;
    if (normcache_open(path, strlen(path), NULL, 0, &cache) != NORMCACHE_OK ||
        normcache_put(cache, records, strlen(records), NULL, NULL) != NORMCACHE_OK ||
        normcache_get(cache, "Pet:7", 5, &record, &length) != NORMCACHE_OK) {
        fprintf(stderr, "app: %s\n", normcache_errmsg());
        return 1;
    }
    printf("%s %s\n", normcache_version(), record);
    normcache_free(record);
    return normcache_close(cache) == NORMCACHE_OK ? 0 : 1;
}
