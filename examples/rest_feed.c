/*
 * rest_feed.c — the REST flow of normcache in C: "show the articles from the cache while
 * they are younger than 30 minutes, else call the API and keep its answer".
 *
 *     rest_feed CACHE_PATH BASE_URL [--now SECONDS]
 *     rest_feed /tmp/feed.cache http://127.0.0.1:8080
 *
 * It asks normcache_execute_document for the document "GET /articles" with the policy
 * NORMCACHE_CACHE_FIRST: a fresh copy in the cache is the answer; otherwise normcache
 * calls fetch_articles (below), which sends GET BASE_URL/articles and hands the body
 * and its caching headers back. normcache stores the body under the key with a lifetime
 * of at most 30 minutes — earlier if the server's Cache-Control, Age or Date say so, and
 * not at all if it says no-store — and returns it. The program prints where the
 * articles came from and their titles:
 *
 *     articles from the network
 *     - Caching without tears
 *     - Fetch policies explained
 *
 * C has no standard HTTP client, so this file carries a minimal one over POSIX sockets
 * (http_get): plain HTTP/1.1 to 127.0.0.1 only, one GET per connection, a body sized by
 * Content-Length or read to the end of the connection. A real program would use its own
 * client (libcurl, ...) in fetch_articles and keep the rest.
 *
 * --now SECONDS sets the cache's clock (normcache_set_clock) to that time, in seconds
 * since 1970, instead of the system's. It exists only for tests and demonstrations, to
 * run the program "31 minutes later" without waiting; a real program leaves the clock alone.
 *
 * Exit status: 0 with the articles printed; 1 when they could be neither read nor
 * fetched (the reason on stderr); 2 for a bad command line.
 */
#define _POSIX_C_SOURCE 200809L

#include "normcache.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/** How long the articles stay fresh when the server allows it: 30 minutes. */
#define ARTICLES_MAX_AGE 1800

/** How a result that came from the network begins (see "Fetching" in normcache.h). */
static const char from_network[] = "{\"source\":\"network\"";

/** The cache key of the document, and the path it is fetched from. */
static const char articles_key[] = "GET /articles";
static const char articles_path[] = "/articles";

/* ---------------------------------------------------------------------------
 * A minimal HTTP/1.1 client (plain HTTP to 127.0.0.1 only)
 * ------------------------------------------------------------------------- */

/** The largest response this client reads: 8 MiB. */
#define HTTP_MAX_RESPONSE (8u << 20)

/** A response: status code, the caching headers normcache uses, and the body. */
struct http_response {
    int status;       /* 200, 404, ... */
    char *raw;        /* the whole response, NUL-terminated; the fields point into it */
    const char *body; /* the body, body_len bytes */
    size_t body_len;
    char cache_control[512]; /* Cache-Control, several headers joined by ", "; "" if none */
    char age[32];            /* Age; "" if none */
    char date[64];           /* Date; "" if none */
    char expires[64];        /* Expires; "" if none */
};

/** Writes "what" or "what: detail" into `error` (a buffer of `size` bytes); returns -1. */
static int failed(char *error, size_t size, const char *what, const char *detail)
{
    snprintf(error, size, "%s%s%s", what, detail != NULL ? ": " : "", detail != NULL ? detail : "");
    return -1;
}

/**
 * Splits "http://127.0.0.1:PORT" (a trailing "/" allowed) into its port. Only plain
 * HTTP to 127.0.0.1 is supported by this client.
 */
static int parse_base_url(const char *url, unsigned short *port)
{
    static const char prefix[] = "http://127.0.0.1:";
    char *end = NULL;
    long value;
    if (strncmp(url, prefix, sizeof prefix - 1) != 0) {
        return -1;
    }
    errno = 0;
    value = strtol(url + sizeof prefix - 1, &end, 10);
    if (errno != 0 || end == url + sizeof prefix - 1 || value < 1 || value > 65535 ||
        !(*end == '\0' || (end[0] == '/' && end[1] == '\0'))) {
        return -1;
    }
    *port = (unsigned short)value;
    return 0;
}

/** Copies the header value at `value` (up to CR LF, trimmed) into `out`, after ", " if `join`. */
static void copy_header_value(const char *value, const char *line_end, char *out, size_t size, int join)
{
    size_t used = strlen(out);
    while (value < line_end && (*value == ' ' || *value == '\t')) {
        value++;
    }
    while (line_end > value && (line_end[-1] == ' ' || line_end[-1] == '\t')) {
        line_end--;
    }
    if (join && used > 0 && used + 2 < size) {
        memcpy(out + used, ", ", 2);
        used += 2;
    }
    if (used + (size_t)(line_end - value) >= size) {
        return; /* too long for this example: the header is dropped (out stays as it was) */
    }
    memcpy(out + used, value, (size_t)(line_end - value));
    out[used + (size_t)(line_end - value)] = '\0';
}

/**
 * Parses the status line and headers of the `len` bytes at response->raw, and finds the
 * body: Content-Length bytes after the blank line, or everything after it when there is
 * no Content-Length (the server closed the connection at its end).
 */
static int parse_response(struct http_response *response, size_t len, char *error, size_t size)
{
    char *raw = response->raw;
    char *headers_end = strstr(raw, "\r\n\r\n");
    char *line;
    long content_length = -1;
    if (headers_end == NULL || strncmp(raw, "HTTP/1.", 7) != 0 || strlen(raw) < 12 || raw[8] != ' ') {
        return failed(error, size, "the server's answer is not an HTTP/1.x response", NULL);
    }
    response->status = atoi(raw + 9);
    /* One header a line: "Name: value" CR LF, the name compared without case. */
    for (line = strstr(raw, "\r\n") + 2; line < headers_end; line = strstr(line, "\r\n") + 2) {
        char *line_end = strstr(line, "\r\n");
        char *colon = memchr(line, ':', (size_t)(line_end - line));
        size_t name_len;
        if (colon == NULL) {
            continue;
        }
        name_len = (size_t)(colon - line);
        if (name_len == 13 && strncasecmp(line, "Cache-Control", 13) == 0) {
            copy_header_value(colon + 1, line_end, response->cache_control, sizeof response->cache_control, 1);
        } else if (name_len == 3 && strncasecmp(line, "Age", 3) == 0) {
            copy_header_value(colon + 1, line_end, response->age, sizeof response->age, 0);
        } else if (name_len == 4 && strncasecmp(line, "Date", 4) == 0) {
            copy_header_value(colon + 1, line_end, response->date, sizeof response->date, 0);
        } else if (name_len == 7 && strncasecmp(line, "Expires", 7) == 0) {
            copy_header_value(colon + 1, line_end, response->expires, sizeof response->expires, 0);
        } else if (name_len == 14 && strncasecmp(line, "Content-Length", 14) == 0) {
            content_length = strtol(colon + 1, NULL, 10);
        } else if (name_len == 17 && strncasecmp(line, "Transfer-Encoding", 17) == 0) {
            return failed(error, size, "the server sent a Transfer-Encoding, which this example does not read", NULL);
        }
    }
    response->body = headers_end + 4;
    response->body_len = len - (size_t)(response->body - raw);
    if (content_length >= 0) {
        if ((size_t)content_length > response->body_len) {
            return failed(error, size, "the connection closed before the end of the body", NULL);
        }
        response->body_len = (size_t)content_length;
    }
    return 0;
}

/**
 * GET `path` from 127.0.0.1:`port` over HTTP/1.1 with "Connection: close", reading the
 * whole response (at most HTTP_MAX_RESPONSE bytes, 10 s per read). On success fills
 * `response` (free response->raw) and returns 0; else says why in `error` and returns -1.
 */
static int http_get(unsigned short port, const char *path, struct http_response *response, char *error, size_t size)
{
    struct sockaddr_in address;
    struct timeval timeout = {10, 0};
    char request[256];
    size_t len = 0, cap = 64 * 1024, sent;
    int fd, request_len, result;

    memset(response, 0, sizeof *response);
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    request_len = snprintf(request, sizeof request,
                           "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nAccept: application/json\r\n"
                           "Connection: close\r\n\r\n",
                           path, (unsigned)port);

    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        return failed(error, size, "socket", strerror(errno));
    }
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        result = failed(error, size, "cannot connect to the API", strerror(errno));
        close(fd);
        return result;
    }
    for (sent = 0; sent < (size_t)request_len; sent += (size_t)result) {
        result = (int)send(fd, request + sent, (size_t)request_len - sent, 0);
        if (result < 0 && errno != EINTR) {
            result = failed(error, size, "cannot send the request", strerror(errno));
            close(fd);
            return result;
        }
        result = result < 0 ? 0 : result;
    }
    /* Read until the server closes the connection (we asked for Connection: close). The
     * caller frees response->raw, also after a failure. */
    response->raw = malloc(cap + 1);
    for (;;) {
        ssize_t got;
        if (response->raw == NULL) {
            close(fd);
            return failed(error, size, "out of memory", NULL);
        }
        got = recv(fd, response->raw + len, cap - len, 0);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            result = failed(error, size, "cannot read the response", strerror(errno));
            close(fd);
            return result;
        }
        if (got == 0) {
            break;
        }
        len += (size_t)got;
        if (len == cap) {
            char *larger;
            if (cap >= HTTP_MAX_RESPONSE) {
                close(fd);
                return failed(error, size, "the response is larger than this example reads", NULL);
            }
            cap *= 2;
            larger = realloc(response->raw, cap + 1);
            if (larger == NULL) {
                free(response->raw);
            }
            response->raw = larger;
        }
    }
    close(fd);
    response->raw[len] = '\0';
    return parse_response(response, len, error, size);
}

/* ---------------------------------------------------------------------------
 * The fetch callback: what normcache calls when the cache cannot answer
 * ------------------------------------------------------------------------- */

/** What the fetch callback needs: where the API is. */
struct api {
    unsigned short port;
};

/** Points a (pointer, length) pair of normcache_write_options at `value`, or leaves it absent. */
static void set_header(const char **field, size_t *field_len, const char *value)
{
    if (value[0] != '\0') {
        *field = value;
        *field_len = strlen(value);
    }
}

/**
 * normcache's fetch callback: GETs the articles and answers with the body and its
 * caching headers (normcache_fetch_reply_set), or with the reason it could not
 * (normcache_fetch_reply_error). request->key is the document's key, "GET /articles".
 */
static int fetch_articles(void *context, const normcache_fetch_request *request, normcache_fetch_reply *reply)
{
    struct api *api = context;
    struct http_response response;
    normcache_write_options headers;
    char error[512];
    int code;
    (void)request;

    if (http_get(api->port, articles_path, &response, error, sizeof error) != 0) {
        free(response.raw);
        normcache_fetch_reply_error(reply, error, strlen(error));
        return NORMCACHE_OK;
    }
    if (response.status != 200) {
        snprintf(error, sizeof error, "GET %s answered HTTP %d", articles_path, response.status);
        free(response.raw);
        normcache_fetch_reply_error(reply, error, strlen(error));
        return NORMCACHE_OK;
    }
    /* Our own limit, 30 minutes, and the server's headers: the earliest expiry wins. */
    memset(&headers, 0, sizeof headers);
    headers.size = sizeof headers;
    headers.max_age = ARTICLES_MAX_AGE;
    set_header(&headers.cache_control, &headers.cache_control_len, response.cache_control);
    set_header(&headers.age, &headers.age_len, response.age);
    set_header(&headers.date, &headers.date_len, response.date);
    set_header(&headers.expires, &headers.expires_len, response.expires);
    /* normcache copies the body and headers; the response can go right after. */
    code = normcache_fetch_reply_set(reply, response.body, response.body_len, &headers);
    free(response.raw);
    return code;
}

/* ---------------------------------------------------------------------------
 * Printing the articles (without a JSON library)
 * ------------------------------------------------------------------------- */

/** The end of the JSON string that starts at `s` (its opening quote): the closing quote. */
static const char *string_end(const char *s, const char *end)
{
    for (s++; s < end && *s != '"'; s++) {
        if (*s == '\\') {
            s++;
        }
    }
    return s;
}

/**
 * Prints "- <title>" for every member "title" whose value is a string, anywhere in the
 * JSON text (json, len), escapes as written. A small scanner, enough for an example:
 * a string followed by ':' is a member name.
 */
static void print_titles(const char *json, size_t len)
{
    const char *end = json + len;
    const char *s = json;
    while (s < end) {
        const char *name, *name_end, *value;
        if (*s != '"') {
            s++;
            continue;
        }
        name = s + 1;
        name_end = string_end(s, end);
        value = name_end + 1;
        while (value < end && (*value == ' ' || *value == '\t' || *value == '\n' || *value == '\r')) {
            value++;
        }
        if (value < end && *value == ':' && name_end - name == 5 && memcmp(name, "title", 5) == 0) {
            value++;
            while (value < end && (*value == ' ' || *value == '\t' || *value == '\n' || *value == '\r')) {
                value++;
            }
            if (value < end && *value == '"') {
                const char *title_end = string_end(value, end);
                printf("- %.*s\n", (int)(title_end - value - 1), value + 1);
                s = title_end + 1;
                continue;
            }
        }
        s = name_end + 1;
    }
}

/** The clock of --now: always the time given. */
static int64_t fixed_clock(void *context)
{
    return *(const int64_t *)context;
}

int main(int argc, char **argv)
{
    struct api api = {0};
    normcache *cache = NULL;
    normcache_execute_options options;
    char *result = NULL;
    size_t result_len = 0;
    int64_t now = 0;
    int code;

    if (!(argc == 3 || (argc == 5 && strcmp(argv[3], "--now") == 0))) {
        fprintf(stderr, "usage: %s CACHE_PATH http://127.0.0.1:PORT [--now SECONDS]\n", argv[0]);
        return 2;
    }
    if (parse_base_url(argv[2], &api.port) != 0) {
        fprintf(stderr,
                "rest_feed: '%s' is not http://127.0.0.1:PORT (this example speaks plain HTTP to 127.0.0.1 only)\n",
                argv[2]);
        return 2;
    }
    if (argc == 5) {
        char *end = NULL;
        now = strtoll(argv[4], &end, 10);
        if (end == argv[4] || *end != '\0' || now < 0) {
            fprintf(stderr, "rest_feed: --now takes seconds since 1970, not '%s'\n", argv[4]);
            return 2;
        }
    }

    code = normcache_open(argv[1], strlen(argv[1]), NULL, 0, &cache);
    if (code != NORMCACHE_OK) {
        fprintf(stderr, "rest_feed: cannot open %s: %s\n", argv[1], normcache_errmsg());
        return 1;
    }
    if (argc == 5) {
        normcache_set_clock(cache, fixed_clock, &now); /* tests and demos only */
    }

    /* Cache-first: a fresh copy in the cache, else fetch_articles. Stale data is not used
     * (max_stale -1); a REST document has no GraphQL errors (error_policy is ignored). */
    memset(&options, 0, sizeof options);
    options.size = sizeof options;
    options.policy = NORMCACHE_CACHE_FIRST;
    options.error_policy = NORMCACHE_ERRORS_NONE;
    options.max_stale = -1;
    code = normcache_execute_document(cache, articles_key, strlen(articles_key), &options, fetch_articles, &api,
                                      NULL, NULL, &result, &result_len);
    if (code != NORMCACHE_OK) {
        fprintf(stderr, "rest_feed: no articles: %s\n",
                code < 0 ? normcache_errmsg() : normcache_errstr(code));
        normcache_close(cache);
        return 1;
    }

    /* The result is {"source":"cache"|"network","data":<the document as the server sent it>,
     * "missing":[],...}: where it came from, then the titles found in it. */
    printf("articles from the %s\n", strncmp(result, from_network, sizeof from_network - 1) == 0 ? "network" : "cache");
    print_titles(result, result_len);
    normcache_free(result);
    normcache_close(cache);
    return 0;
}
