/* The program of the C guide (docs/guides/c.md): a schema, an operation with variables,
 * the document to send, a write, reads that hit and miss, errors, threads sharing one
 * handle and a child process opening the same file, app.cache in the current folder. */
#include <normcache.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ALL NORMCACHE_NUL_TERMINATED

static const char *SCHEMA = "type Query { feed(first: Int!): [Article!]! }\n"
                            "type Article { id: ID! title: String! author: User! }\n"
                            "type User { id: ID! name: String! }\n";
static const char *FEED = "query Feed($n: Int!) { feed(first: $n) { title author { name } } }";
static const char *RESPONSE = "{\"data\": {\"feed\": [{\"__typename\": \"Article\", \"id\": \"1\", \"title\": \"Hello\","
                              " \"author\": {\"__typename\": \"User\", \"id\": \"7\", \"name\": \"Ada\"}}]}}";

/* Stops the program with the library's message when a call failed. */
static void check(int status)
{
    if (status < 0) {
        fprintf(stderr, "%s: %s\n", normcache_errstr(status), normcache_errmsg());
        exit(1);
    }
}

/* Reads the feed 1,000 times on one thread; returns how many reads hit. */
struct reader {
    normcache *cache;
    normcache_op *feed;
    int hits;
};

static void *read_feed(void *argument)
{
    struct reader *reader = argument;
    for (int i = 0; i < 1000; i++) {
        char *data;
        size_t data_len;
        if (normcache_read(reader->cache, reader->feed, "{\"n\": 1}", ALL, 0, &data, &data_len) == NORMCACHE_OK) {
            reader->hits++;
        }
        normcache_free(data);
    }
    return NULL;
}

int main(void)
{
    /* A first cache: options are JSON; every object with an id is stored as Type:id. */
    normcache *cache;
    check(normcache_open("app.cache", ALL, "{\"durability\": \"full\"}", ALL, &cache));
    check(normcache_configure(cache, "{\"defaultKeyFields\": [\"id\"]}", ALL));
    check(normcache_clear(cache)); /* an empty cache, so that every run prints the same */

    /* The GraphQL flow: a schema, an operation prepared once, the document to send. */
    check(normcache_load_schema(cache, SCHEMA, ALL));
    normcache_op *feed;
    check(normcache_prepare(cache, FEED, ALL, NULL, 0, &feed));
    char *document;
    size_t document_len;
    check(normcache_op_document(feed, &document, &document_len));
    printf("send: %s\n", document);
    normcache_free(document);

    char *json;
    size_t json_len;
    check(normcache_write(cache, feed, "{\"n\": 1}", ALL, RESPONSE, ALL, &json, &json_len));
    printf("changed: %s\n", json);
    normcache_free(json);
    check(normcache_read(cache, feed, "{\"n\": 1}", ALL, 0, &json, &json_len));
    printf("read: %s\n", json);
    normcache_free(json);
    if (normcache_read(cache, feed, "{\"n\": 2}", ALL, 0, &json, &json_len) == NORMCACHE_MISS) {
        printf("miss: %s\n", json);
    }
    normcache_free(json);

    /* Errors: a negative status, its fixed name and the message of this thread's last failure. */
    normcache_op *wrong = NULL;
    int status = normcache_prepare(cache, "{ feed(first: 1) { headline } }", ALL, NULL, 0, &wrong);
    printf("error %d (%s): %s\n", status, normcache_errstr(status), normcache_errmsg());
    status = normcache_get(cache, "Article:2", ALL, &json, &json_len);
    printf("get Article:2: %s\n", status == NORMCACHE_NOTFOUND ? "NORMCACHE_NOTFOUND" : "found");

    /* Threads: one handle, four readers at once. */
    pthread_t threads[4];
    struct reader readers[4];
    for (int i = 0; i < 4; i++) {
        readers[i] = (struct reader){cache, feed, 0};
        pthread_create(&threads[i], NULL, read_feed, &readers[i]);
    }
    int hits = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        hits += readers[i].hits;
    }
    printf("threads: %d reads hit\n", hits);

    /* Processes: a child opens the file itself (a handle does not cross fork) and reads. */
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        normcache *own;
        check(normcache_open("app.cache", ALL, "{\"read_only\": true}", ALL, &own));
        check(normcache_get(own, "User:7", ALL, &json, &json_len));
        printf("child: User:7 is %s\n", json);
        normcache_free(json);
        fflush(stdout);
        _exit(normcache_close(own) == NORMCACHE_OK ? 0 : 1);
    }
    int child_status;
    waitpid(child, &child_status, 0);

    normcache_op_free(feed);
    check(normcache_close(cache));
    return WIFEXITED(child_status) ? WEXITSTATUS(child_status) : 1;
}
