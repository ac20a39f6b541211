/*
 * test_rest_feed_example.c — the example program examples/rest_feed.c, run as a real
 * process against a real HTTP server.
 *
 * A small HTTP/1.1 server runs on a thread of this test, on 127.0.0.1 at a port the
 * system picks: it serves GET /articles with Content-Type: application/json,
 * Cache-Control: max-age=1800, a Date header and a JSON body, and counts the requests it
 * served. The example (REST_FEED_PROGRAM, its path from CMake) is started with
 * posix_spawn, its stdout and stderr kept in files, and each run is checked for its
 * exact output, its exit status and what the server saw:
 *
 *   1. a new cache: "articles from the network", one request;
 *   2. the same cache: "articles from the cache", no request;
 *   3. --now 31 minutes later: "articles from the network", one more request;
 *   4. the server answering 503, later still: exit 1 and the reason;
 *   5. a URL that is not 127.0.0.1, or a bad --now: exit 2, no request;
 *   6. the server gone: exit 1, "Connection refused".
 *
 * Nothing leaves 127.0.0.1.
 */
#include "check.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>

#ifndef REST_FEED_PROGRAM
#error "REST_FEED_PROGRAM must name the example program (tests/CMakeLists.txt defines it)"
#endif

extern char **environ;

/** The articles the server serves. */
static const char articles[] =
    "{\"articles\": [{\"id\": 1, \"title\": \"Caching without tears\"}, "
    "{\"id\": 2, \"title\": \"Fetch policies explained\"}]}";

/** What the example prints for them, after its first line. */
#define TITLES "- Caching without tears\n- Fetch policies explained\n"

/* ---------------------------------------------------------------------------
 * A tiny HTTP server on a thread
 * ------------------------------------------------------------------------- */

/** The server: its socket and port, what it answers, and what it served. */
struct server {
    int listener;
    unsigned short port;
    pthread_t thread;
    pthread_mutex_t lock;    /* guards the members below */
    int stop;                /* set to end the thread */
    int served;              /* requests answered */
    int unavailable;         /* answer 503 instead of the articles */
    char last_request[1024]; /* the request line and headers of the last request */
};

/** Reads a request's head (up to the blank line) from `fd` into `out`; 0 when it came whole. */
static int read_request(int fd, char *out, size_t size)
{
    size_t len = 0;
    while (len + 1 < size) {
        ssize_t got = recv(fd, out + len, size - 1 - len, 0);
        if (got <= 0) {
            return -1;
        }
        len += (size_t)got;
        out[len] = '\0';
        if (strstr(out, "\r\n\r\n") != NULL) {
            return 0;
        }
    }
    return -1;
}

/** Answers one connection: the articles for GET /articles, 404 for anything else, or 503. */
static void serve(struct server *server, int fd)
{
    char request[1024];
    char date[64];
    char response[2048];
    const char *body = articles;
    const char *status = "200 OK";
    time_t now = time(NULL);
    struct tm utc;
    int len;

    if (read_request(fd, request, sizeof request) != 0) {
        return;
    }
    pthread_mutex_lock(&server->lock);
    snprintf(server->last_request, sizeof server->last_request, "%s", request);
    if (server->unavailable) {
        status = "503 Service Unavailable";
        body = "{\"error\": \"maintenance\"}";
    } else if (strncmp(request, "GET /articles HTTP/1.1\r\n", 24) != 0) {
        status = "404 Not Found";
        body = "{}";
    }
    server->served++;
    pthread_mutex_unlock(&server->lock);

    gmtime_r(&now, &utc);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &utc);
    len = snprintf(response, sizeof response,
                   "HTTP/1.1 %s\r\nContent-Type: application/json\r\nCache-Control: max-age=1800\r\n"
                   "Date: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
                   status, date, strlen(body), body);
    CHECK(len > 0 && (size_t)len < sizeof response);
    CHECK(send(fd, response, (size_t)len, 0) == len);
}

/** The server thread: accepts and answers connections until told to stop. */
static void *run_server(void *context)
{
    struct server *server = context;
    for (;;) {
        struct pollfd ready = {server->listener, POLLIN, 0};
        int stop;
        pthread_mutex_lock(&server->lock);
        stop = server->stop;
        pthread_mutex_unlock(&server->lock);
        if (stop) {
            return NULL;
        }
        if (poll(&ready, 1, 50) == 1) {
            int fd = accept(server->listener, NULL, NULL);
            if (fd >= 0) {
                serve(server, fd);
                close(fd);
            }
        }
    }
}

/** Starts the server on 127.0.0.1 at a port the system picks. */
static void start_server(struct server *server)
{
    struct sockaddr_in address;
    socklen_t address_len = sizeof address;
    int on = 1;

    memset(server, 0, sizeof *server);
    CHECK(pthread_mutex_init(&server->lock, NULL) == 0);
    server->listener = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(server->listener >= 0);
    CHECK(setsockopt(server->listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) == 0);
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    CHECK(bind(server->listener, (struct sockaddr *)&address, sizeof address) == 0);
    CHECK(listen(server->listener, 8) == 0);
    CHECK(getsockname(server->listener, (struct sockaddr *)&address, &address_len) == 0);
    server->port = ntohs(address.sin_port);
    CHECK(pthread_create(&server->thread, NULL, run_server, server) == 0);
}

/** Stops the server and closes its socket: the port then refuses connections. */
static void stop_server(struct server *server)
{
    pthread_mutex_lock(&server->lock);
    server->stop = 1;
    pthread_mutex_unlock(&server->lock);
    CHECK(pthread_join(server->thread, NULL) == 0);
    CHECK(close(server->listener) == 0);
    CHECK(pthread_mutex_destroy(&server->lock) == 0);
}

/** How many requests the server answered so far. */
static int served(struct server *server)
{
    int count;
    pthread_mutex_lock(&server->lock);
    count = server->served;
    pthread_mutex_unlock(&server->lock);
    return count;
}

/* ---------------------------------------------------------------------------
 * Running the example
 * ------------------------------------------------------------------------- */

/** Implements CHECK_RUN: runs the example with `args` (NULL-terminated) and checks all it did. */
static void check_run_at(int line, char *const *args, int expected_status, const char *expected_out,
                         const char *expected_err)
{
    char out_path[NC_PATH_SIZE], err_path[NC_PATH_SIZE];
    posix_spawn_file_actions_t actions;
    pid_t pid;
    int status = 0;
    unsigned char *out, *err;
    size_t out_len, err_len;

    nc_temp_path(out_path, "stdout");
    nc_temp_path(err_path, "stderr");
    CHECK(posix_spawn_file_actions_init(&actions) == 0);
    CHECK(posix_spawn_file_actions_addopen(&actions, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600) == 0);
    CHECK(posix_spawn_file_actions_addopen(&actions, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600) == 0);
    fflush(NULL);
    if (posix_spawn(&pid, REST_FEED_PROGRAM, &actions, NULL, args, environ) != 0) {
        nc_fail(__FILE__, line, "cannot start %s", REST_FEED_PROGRAM);
    }
    CHECK(posix_spawn_file_actions_destroy(&actions) == 0);
    CHECK(waitpid(pid, &status, 0) == pid);
    out = nc_read_file(out_path, &out_len);
    err = nc_read_file(err_path, &err_len);
    out[out_len] = '\0';
    err[err_len] = '\0';
    if (!WIFEXITED(status) || WEXITSTATUS(status) != expected_status || strcmp((char *)out, expected_out) != 0 ||
        strcmp((char *)err, expected_err) != 0) {
        nc_fail(__FILE__, line,
                "the example ended with wait status %d (expected exit %d)\nstdout:\n%s\nexpected:\n%s\n"
                "stderr:\n%s\nexpected:\n%s",
                status, expected_status, (char *)out, expected_out, (char *)err, expected_err);
    }
    free(out);
    free(err);
}

/**
 * Runs the example with the NULL-terminated `args` and fails unless it exits with
 * `status` and prints exactly `out` on stdout and `err` on stderr.
 */
#define CHECK_RUN(args, status, out, err) check_run_at(__LINE__, (args), (status), (out), (err))

int main(void)
{
    struct server server;
    char cache_path[NC_PATH_SIZE];
    char url[64];
    char later[32];
    char much_later[32];
    char errors[256];
    time_t start = time(NULL);
    char program[] = "rest_feed";
    char now_flag[] = "--now";

    start_server(&server);
    nc_temp_path(cache_path, "feed");
    snprintf(url, sizeof url, "http://127.0.0.1:%u", (unsigned)server.port);
    snprintf(later, sizeof later, "%lld", (long long)start + 31 * 60);
    snprintf(much_later, sizeof much_later, "%lld", (long long)start + 62 * 60);

    {
        char *run[] = {program, cache_path, url, NULL};
        char *run_later[] = {program, cache_path, url, now_flag, later, NULL};
        char *run_much_later[] = {program, cache_path, url, now_flag, much_later, NULL};
        char elsewhere[] = "http://192.0.2.1:80";
        char *run_elsewhere[] = {program, cache_path, elsewhere, NULL};
        char bad_now[] = "soon";
        char *run_bad_now[] = {program, cache_path, url, now_flag, bad_now, NULL};

        /* 1. A new cache: from the network. */
        CHECK_RUN(run, 0, "articles from the network\n" TITLES, "");
        CHECK(served(&server) == 1);
        CHECK_CONTAINS(server.last_request, "GET /articles HTTP/1.1\r\n");
        CHECK_CONTAINS(server.last_request, "Connection: close\r\n");
        /* 2. The same cache, at once: from the cache, the server not asked. */
        CHECK_RUN(run, 0, "articles from the cache\n" TITLES, "");
        CHECK(served(&server) == 1);
        /* 3. 31 minutes later: older than 30 minutes, from the network again. */
        CHECK_RUN(run_later, 0, "articles from the network\n" TITLES, "");
        CHECK(served(&server) == 2);
        /* 4. Later still, the server down for maintenance: no articles, exit 1. */
        pthread_mutex_lock(&server.lock);
        server.unavailable = 1;
        pthread_mutex_unlock(&server.lock);
        CHECK_RUN(run_much_later, 1, "", "rest_feed: no articles: GET /articles answered HTTP 503\n");
        CHECK(served(&server) == 3);
        /* 5. Refused before any request: another host, a bad --now. */
        CHECK_RUN(run_elsewhere, 2, "",
                  "rest_feed: 'http://192.0.2.1:80' is not http://127.0.0.1:PORT (this example speaks plain "
                  "HTTP to 127.0.0.1 only)\n");
        CHECK_RUN(run_bad_now, 2, "", "rest_feed: --now takes seconds since 1970, not 'soon'\n");
        CHECK(served(&server) == 3);
        /* 6. The server gone: the connection is refused. */
        stop_server(&server);
        snprintf(errors, sizeof errors, "rest_feed: no articles: cannot connect to the API: %s\n",
                 strerror(ECONNREFUSED));
        CHECK_RUN(run_much_later, 1, "", errors);
    }
    return 0;
}
