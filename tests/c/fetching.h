/*
 * fetching.h — what the C tests of normcache_execute and normcache_execute_document
 * share: a clock the test moves, a fake network that answers the fetch callback (or
 * fails, or misbehaves) and records every request, the options structs filled in, the
 * exact text of a result, and checks of one execute call: its status, every result
 * on_result got, out_json, and on failure the exact message.
 *
 * Include it after check.h.
 */
#ifndef NORMCACHE_TEST_FETCHING_H
#define NORMCACHE_TEST_FETCHING_H

#include "check.h"

/* ---------------------------------------------------------------------------
 * A clock the test moves (normcache_set_clock)
 * ------------------------------------------------------------------------- */

/** 2023-11-14 22:13:20 UTC: the clock of every fetching test starts here. */
#define NC_START INT64_C(1700000000)

/** A clock the test moves: normcache_set_clock(cache, nc_clock_now, &clock). */
struct nc_clock {
    int64_t now; /**< the time answered, seconds since 1970 */
};

/** The normcache_clock over a struct nc_clock. */
static inline int64_t nc_clock_now(void *context)
{
    return ((const struct nc_clock *)context)->now;
}

/* ---------------------------------------------------------------------------
 * Options and operations
 * ------------------------------------------------------------------------- */

/** normcache_execute_options of this header's version, filled in. */
static inline normcache_execute_options nc_execute_options(int policy, int64_t max_stale, int error_policy)
{
    normcache_execute_options options;
    memset(&options, 0, sizeof options);
    options.size = sizeof options;
    options.policy = policy;
    options.error_policy = error_policy;
    options.max_stale = max_stale;
    return options;
}

/** normcache_write_options of this header's version: no max_age, no headers. */
static inline normcache_write_options nc_write_options(void)
{
    normcache_write_options options;
    memset(&options, 0, sizeof options);
    options.size = sizeof options;
    options.max_age = -1;
    return options;
}

/** Prepares the C string `document` on `cache`, failing the test unless it works. */
static inline normcache_op *nc_prepare(normcache *cache, const char *document)
{
    normcache_op *op = NULL;
    CHECK_OK(normcache_prepare(cache, document, strlen(document), NULL, 0, &op));
    CHECK(op != NULL);
    return op;
}

/* ---------------------------------------------------------------------------
 * The exact text of results
 * ------------------------------------------------------------------------- */

/** A result of normcache_execute, its members given as JSON text (strings with quotes). */
#define NC_RESULT(source, data, missing, stale, written, expiry, errors, fetch_error)       \
    "{\"source\":\"" source "\",\"data\":" data ",\"missing\":" missing ",\"stale\":" stale \
    ",\"oldestWrittenAt\":" written ",\"earliestExpiry\":" expiry ",\"errors\":" errors ",\"fetchError\":" fetch_error "}"

/** A "stale" (or "missing") entry of a field that expired; `path` is JSON text. */
#define NC_STALE_ENTRY(path, record, field, written, expired)                              \
    "{\"path\":" path ",\"reason\":\"stale\",\"record\":\"" record "\",\"field\":\"" field \
    "\",\"writtenAt\":" written ",\"expiredAt\":" expired "}"

/** The message of a fetch callback that returned NORMCACHE_OK without an answer. */
#define NC_NO_ANSWER                                                                    \
    "the fetch callback returned without an answer: call normcache_fetch_reply_set or " \
    "normcache_fetch_reply_error"

/* ---------------------------------------------------------------------------
 * A fake network
 * ------------------------------------------------------------------------- */

/** What one fetch was asked: malloc'ed NUL-terminated copies, NULL where the request had NULL. */
struct nc_request {
    char *document;
    char *operation_name;
    char *variables;
    char *key;
};

/** How the fake network answers. */
enum nc_network_mode {
    NC_ANSWER, /**< the hook (if any), then the body with the headers, or the failure; returns `status` */
    NC_SILENT, /**< answers nothing; returns `status` */
    NC_TWICE,  /**< answers the body twice, keeping the second call's code and message */
    NC_REASON  /**< gives `failure` to normcache_callback_error, answers nothing, returns `status` */
};

/** The most requests a fake network records. */
#define NC_MAX_REQUESTS 8

/** A fake network: zero it with nc_network(); free its records with nc_network_free(). */
struct nc_network {
    const char *body;                       /**< the answer (a C string) */
    const normcache_write_options *headers; /**< its headers, or NULL */
    const char *failure;                    /**< NULL, or the message of a failed fetch */
    int status;                             /**< what the callback returns */
    enum nc_network_mode mode;              /**< how it answers */
    /** Runs first in NC_ANSWER mode, on the callback's thread, with `context`. */
    void (*hook)(struct nc_network *net, const normcache_fetch_request *request,
                 normcache_fetch_reply *reply);
    void *context;                               /**< for the hook */
    int calls;                                   /**< how often the callback ran */
    struct nc_request requests[NC_MAX_REQUESTS]; /**< the first requests, in order */
    int second_code;                             /**< NC_TWICE: the second answer's status */
    char second_message[512];                    /**< NC_TWICE: normcache_errmsg() after it */
};

/** A fake network that answers `body` (a C string) with no headers and NORMCACHE_OK. */
static inline struct nc_network nc_network(const char *body)
{
    struct nc_network net;
    memset(&net, 0, sizeof net);
    net.body = body;
    return net;
}

/** A NUL-terminated copy of (bytes, len), or NULL for NULL. */
static inline char *nc_copy_or_null(const char *bytes, size_t len)
{
    char *copy;
    if (bytes == NULL) {
        CHECK(len == 0);
        return NULL;
    }
    copy = malloc(len + 1);
    CHECK(copy != NULL);
    memcpy(copy, bytes, len);
    copy[len] = '\0';
    return copy;
}

/** Frees the requests a fake network recorded. */
static inline void nc_network_free(struct nc_network *net)
{
    int i;
    for (i = 0; i < net->calls && i < NC_MAX_REQUESTS; i++) {
        free(net->requests[i].document);
        free(net->requests[i].operation_name);
        free(net->requests[i].variables);
        free(net->requests[i].key);
    }
    net->calls = 0;
}

/** Answers `reply` with the network's body and headers. */
static inline int nc_answer(struct nc_network *net, normcache_fetch_reply *reply)
{
    return normcache_fetch_reply_set(reply, net->body, strlen(net->body), net->headers);
}

/** The normcache_fetch of a struct nc_network (`context`). */
static inline int nc_fetch(void *context, const normcache_fetch_request *request, normcache_fetch_reply *reply)
{
    struct nc_network *net = context;
    if (net->calls < NC_MAX_REQUESTS) {
        struct nc_request *copy = &net->requests[net->calls];
        copy->document = nc_copy_or_null(request->document, request->document_len);
        copy->operation_name = nc_copy_or_null(request->operation_name, request->operation_name_len);
        copy->variables = nc_copy_or_null(request->variables_json, request->variables_len);
        copy->key = nc_copy_or_null(request->key, request->key_len);
    }
    net->calls++;
    switch (net->mode) {
    case NC_SILENT:
        return net->status;
    case NC_REASON:
        CHECK_OK(normcache_callback_error(net->failure, strlen(net->failure)));
        return net->status;
    case NC_TWICE:
        CHECK_OK(nc_answer(net, reply));
        net->second_code = nc_answer(net, reply);
        snprintf(net->second_message, sizeof net->second_message, "%s", normcache_errmsg());
        return net->status;
    case NC_ANSWER:
        break;
    }
    if (net->hook != NULL) {
        net->hook(net, request, reply);
    }
    if (net->failure != NULL) {
        CHECK_OK(normcache_fetch_reply_error(reply, net->failure, strlen(net->failure)));
    } else {
        CHECK_OK(nc_answer(net, reply));
    }
    return net->status;
}

/* ---------------------------------------------------------------------------
 * Checking one execute call
 * ------------------------------------------------------------------------- */

/** The normcache_result_callback that appends "<status> <result>\n" to an nc_text (`context`). */
static inline void nc_log_result(void *context, int status, const char *json, size_t len)
{
    nc_text *log = context;
    /* The text is (json, len): the header promises no NUL after it, and there is none. */
    CHECK(json != NULL);
    nc_appendf(log, "%d ", status);
    nc_append(log, json, len);
    NC_APPEND_LITERAL(log, "\n");
}

/** Fails at `line`, showing the whole of `what` got and expected (results are long). */
static inline void nc_check_whole(const char *file, int line, const char *what, const char *got, const char *expected)
{
    if (strcmp(got, expected) != 0) {
        nc_fail(file, line, "%s is\n%s\nexpected\n%s", what, got, expected);
    }
}

/**
 * Runs normcache_execute of `op` (or, when `op` is NULL, normcache_execute_document of
 * the C string `key`) with the C string `variables_json` (NULL: none), `options`, the
 * fake network `net` (NULL: a NULL fetch) and a result log; returns its status, the
 * results on_result got in `log`, out_json in `out` and `out_len`.
 */
static inline int nc_call_execute(normcache *cache, normcache_op *op, const char *key, const char *variables_json,
                                  const normcache_execute_options *options, struct nc_network *net, nc_text *log,
                                  char **out, size_t *out_len)
{
    normcache_fetch fetch = net == NULL ? NULL : nc_fetch;
    NC_APPEND_LITERAL(log, "");
    if (op == NULL) {
        return normcache_execute_document(cache, key, key == NULL ? 0 : strlen(key), options, fetch, net, nc_log_result, log, out,
                                          out_len);
    }
    return normcache_execute(cache, op, variables_json, variables_json == NULL ? 0 : strlen(variables_json),
                             options, fetch, net, nc_log_result, log, out, out_len);
}

/** Implements NC_CHECK_EXECUTE. */
static inline void nc_check_execute_at(const char *file, int line, normcache *cache, normcache_op *op, const char *key,
                                       const char *variables_json, const normcache_execute_options *options,
                                       struct nc_network *net, int code, const char *expected_log)
{
    nc_text log = {0};
    char *out = (char *)"unset";
    size_t out_len = 5;
    const char *last;
    nc_check_code(file, line, op == NULL ? "normcache_execute_document" : "normcache_execute",
                  nc_call_execute(cache, op, key, variables_json, options, net, &log, &out, &out_len), code);
    nc_check_whole(file, line, "the results", log.data, expected_log);
    /* out_json is the last result, as on_result got it last. */
    last = expected_log + strlen(expected_log) - 1;
    while (last > expected_log && last[-1] != '\n') {
        last--;
    }
    last = strchr(last, ' ') + 1;
    CHECK(out != NULL && out[out_len] == '\0');
    if (out_len != strlen(last) - 1 || memcmp(out, last, out_len) != 0) {
        nc_fail(file, line, "out_json is\n%s\nnot the last result\n%s", out, last);
    }
    normcache_free(out);
    free(log.data);
}

/**
 * Runs one execute call (see nc_call_execute) and fails unless its status is `code`
 * (OK, STALE or MISS), the results on_result got are exactly `log` ("<status>
 * <result>\n" each) and out_json is the last of them.
 */
#define NC_CHECK_EXECUTE(cache, op, key, variables, options, net, code, log) \
    nc_check_execute_at(__FILE__, __LINE__, (cache), (op), (key), (variables), (options), (net), (code), (log))

/** Implements NC_CHECK_EXECUTE_FAILS. */
static inline void nc_check_execute_fails_at(const char *file, int line, normcache *cache, normcache_op *op, const char *key,
                                             const char *variables_json, const normcache_execute_options *options,
                                             struct nc_network *net, int code, const char *message,
                                             const char *expected_log)
{
    nc_text log = {0};
    char *out = (char *)"unset";
    size_t out_len = 5;
    nc_check_code(file, line, op == NULL ? "normcache_execute_document" : "normcache_execute",
                  nc_call_execute(cache, op, key, variables_json, options, net, &log, &out, &out_len), code);
    nc_check_whole(file, line, "errmsg", normcache_errmsg(), message);
    nc_check_whole(file, line, "the results", log.data, expected_log);
    if (out != NULL || out_len != 0) {
        nc_fail(file, line, "a failed call left out_json set");
    }
    free(log.data);
}

/**
 * Runs one execute call (see nc_call_execute) and fails unless it fails with `code` and
 * exactly the message `message`, on_result got exactly `log` (results handed on before
 * the failure), and out_json is NULL/0.
 */
#define NC_CHECK_EXECUTE_FAILS(cache, op, key, variables, options, net, code, message, log)                               \
    nc_check_execute_fails_at(__FILE__, __LINE__, (cache), (op), (key), (variables), (options), (net), (code), (message), \
                              (log))

#endif /* NORMCACHE_TEST_FETCHING_H */
