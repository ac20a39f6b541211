/* The C quick start of README.md: open a cache, prepare a query, write a response, read it back. */
#include <normcache.h>
#include <stdio.h>
#include <stdlib.h>

#define ALL NORMCACHE_NUL_TERMINATED /* a length that means "up to the NUL" */

/* Stops the program with the library's message when a call failed. */
static void check(int status)
{
    if (status < 0) {
        fprintf(stderr, "%s: %s\n", normcache_errstr(status), normcache_errmsg());
        exit(1);
    }
}

int main(void)
{
    normcache *cache;
    check(normcache_open("quickstart.cache", ALL, NULL, 0, &cache));
    /* Every object that has an id is stored once, as the record Type:id. */
    check(normcache_configure(cache, "{\"defaultKeyFields\": [\"id\"]}", ALL));

    normcache_op *feed;
    check(normcache_prepare(cache, "{ feed(first: 2) { id title author { id name } } }", ALL, NULL, 0, &feed));
    /* normcache_op_document gives what to send to the server: the query with __typename added. */
    const char *response =
        "{\"data\": {\"feed\": ["
        "{\"__typename\": \"Article\", \"id\": \"1\", \"title\": \"Hello\","
        " \"author\": {\"__typename\": \"User\", \"id\": \"7\", \"name\": \"Ada\"}},"
        "{\"__typename\": \"Article\", \"id\": \"2\", \"title\": \"Again\","
        " \"author\": {\"__typename\": \"User\", \"id\": \"7\", \"name\": \"Ada\"}}]}}";
    check(normcache_write(cache, feed, NULL, 0, response, ALL, NULL, NULL));

    char *json;
    size_t json_len;
    check(normcache_get(cache, "Article:1", ALL, &json, &json_len)); /* the author is a reference */
    puts(json);
    normcache_free(json);
    check(normcache_read(cache, feed, NULL, 0, 0, &json, &json_len)); /* exactly the selection */
    puts(json);
    normcache_free(json);

    /* Another query returns User:7 with a new name: every article that references it sees it. */
    normcache_op *user;
    check(normcache_prepare(cache, "query ($id: ID!) { user(id: $id) { id name } }", ALL, NULL, 0, &user));
    check(normcache_write(cache, user, "{\"id\": \"7\"}", ALL,
                          "{\"data\": {\"user\": {\"__typename\": \"User\", \"id\": \"7\", \"name\": \"Ada L.\"}}}",
                          ALL, NULL, NULL));
    check(normcache_read(cache, feed, NULL, 0, 0, &json, &json_len));
    puts(json);
    normcache_free(json);

    /* Another argument is another field: NORMCACHE_MISS, with what is missing. */
    normcache_op *more;
    check(normcache_prepare(cache, "{ feed(first: 3) { id title } }", ALL, NULL, 0, &more));
    if (normcache_read(cache, more, NULL, 0, 0, &json, &json_len) == NORMCACHE_MISS) {
        puts(json);
    }
    normcache_free(json);

    normcache_op_free(more);
    normcache_op_free(user);
    normcache_op_free(feed);
    return normcache_close(cache) == NORMCACHE_OK ? 0 : 1;
}
