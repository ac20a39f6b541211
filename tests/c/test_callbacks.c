/*
 * test_callbacks.c — the lifetime of a key resolver's context and the words of a
 * failing callback: normcache_set_key_resolver_v2 calls `destroy` exactly once, when
 * the library holds the resolver no more (replaced, removed, handle closed, last
 * operation freed, a failed call), on the thread that lets it go; and
 * normcache_callback_error puts a callback's own reason into the failed call's message.
 * And what a resolver sees of its object: the members listed in response order
 * (normcache_object_member_count, normcache_object_member_at), with a repeated name
 * listed twice and found first by name, NORMCACHE_NOTFOUND past the end, and
 * NORMCACHE_EINVAL for NULL pointers and for an object that is not the resolver's own
 * (kept past its call, used on another thread, a normcache_key).
 */
#include "check.h"

#include <pthread.h>

/** Fails unless `call` returns `expected` and normcache_errmsg() contains `needle`. */
#define CHECK_FAILS(call, expected, needle)         \
    do {                                            \
        CHECK_CODE(call, expected);                 \
        CHECK_CONTAINS(normcache_errmsg(), needle); \
    } while (0)

/** A resolver's context: what it was asked, and how often it was destroyed, and where. */
typedef struct {
    int calls;           /**< resolver calls */
    int destroyed;       /**< destroy calls; must end at exactly 1 */
    pthread_t destroyer; /**< the thread of the last destroy call */
    const char *reason;  /**< given to normcache_callback_error, or NULL */
    int status;          /**< what the resolver returns */
} resolver_state;

/** The destructor handed to normcache_set_key_resolver_v2: counts and remembers the thread. */
static void destroy_state(void *context)
{
    resolver_state *state = context;
    state->destroyed++;
    state->destroyer = pthread_self();
}

/**
 * Keys every object with an "id" as "Kept:<id>"; with a reason, gives it through
 * normcache_callback_error and returns the state's status.
 */
static int keep_resolver(void *context, const char *typename_, size_t typename_len,
                         const normcache_object *object, normcache_key *key)
{
    resolver_state *state = context;
    const char *json = NULL;
    size_t json_len = 0;
    (void)typename_;
    (void)typename_len;
    state->calls++;
    if (state->reason != NULL) {
        CHECK_OK(normcache_callback_error(state->reason, strlen(state->reason)));
        return state->status;
    }
    if (normcache_object_member(object, "id", 2, &json, &json_len) != NORMCACHE_OK) {
        return state->status;
    }
    return normcache_key_set(key, json, json_len, "Kept", 4);
}

static const char query[] = "{ a { id b } }";
static const char response[] = "{\"data\": {\"a\": {\"id\": 7, \"b\": 1}}}";
static const char response_without_id[] = "{\"data\": {\"a\": {\"b\": 1}}}";

/** A fresh, empty resolver state that returns NORMCACHE_OK. */
static resolver_state fresh_state(void)
{
    resolver_state state;
    memset(&state, 0, sizeof state);
    return state;
}

/** Prepares `query` on `cache`, failing the test when it cannot. */
static normcache_op *prepare_query(normcache *cache)
{
    normcache_op *op = NULL;
    CHECK_OK(normcache_prepare(cache, query, strlen(query), NULL, 0, &op));
    return op;
}

/** Replacing the resolver, or removing it, destroys the old context at once. */
static void test_replaced_and_removed(void)
{
    resolver_state first = fresh_state();
    resolver_state second = fresh_state();
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");

    CHECK_OK(normcache_set_key_resolver_v2(cache, keep_resolver, &first, destroy_state));
    CHECK(first.destroyed == 0);
    CHECK_OK(normcache_set_key_resolver_v2(cache, keep_resolver, &second, destroy_state));
    CHECK(first.destroyed == 1);
    CHECK(pthread_equal(first.destroyer, pthread_self()));
    CHECK(second.destroyed == 0);
    CHECK_OK(normcache_set_key_resolver(cache, NULL, NULL));
    CHECK(second.destroyed == 1);
    CHECK_OK(normcache_close(cache));
    CHECK(first.destroyed == 1);
    CHECK(second.destroyed == 1);
}

/** Closing the handle destroys a context no operation holds. */
static void test_closed_handle(void)
{
    resolver_state state = fresh_state();
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    CHECK_OK(normcache_set_key_resolver_v2(cache, keep_resolver, &state, destroy_state));
    CHECK_OK(normcache_close(cache));
    CHECK(state.destroyed == 1);
    CHECK(state.calls == 0);
}

/** Operations keep the resolver past the handle; the last one freed destroys it. */
static void test_operations_hold_the_context(void)
{
    resolver_state state = fresh_state();
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    normcache_op *first;
    normcache_op *second;
    char *out = NULL;
    size_t out_len = 0;

    CHECK_OK(normcache_set_key_resolver_v2(cache, keep_resolver, &state, destroy_state));
    first = prepare_query(cache);
    second = prepare_query(cache);
    CHECK_OK(normcache_set_key_resolver(cache, NULL, NULL));
    CHECK_OK(normcache_close(cache));
    CHECK(state.destroyed == 0);

    CHECK_OK(normcache_normalize(first, NULL, 0, response, strlen(response), &out, &out_len));
    nc_check_output(__FILE__, __LINE__, "records", out, out_len,
                    "{\"Kept:7\":{\"id\":7,\"b\":1},\"QUERY_ROOT\":{\"a\":{\"$reference\":\"Kept:7\"}}}");
    CHECK(state.calls == 1);
    CHECK_OK(normcache_op_free(first));
    CHECK(state.destroyed == 0);
    CHECK_OK(normcache_op_free(second));
    CHECK(state.destroyed == 1);
}

/** The body of test_destroyed_on_the_freeing_thread's other thread: frees the operation. */
static void *free_operation(void *op)
{
    CHECK_OK(normcache_op_free(op));
    return NULL;
}

/** The context is destroyed on the thread that frees the last operation holding it. */
static void test_destroyed_on_the_freeing_thread(void)
{
    resolver_state state = fresh_state();
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    normcache_op *op;
    pthread_t thread;

    CHECK_OK(normcache_set_key_resolver_v2(cache, keep_resolver, &state, destroy_state));
    op = prepare_query(cache);
    CHECK_OK(normcache_close(cache));
    CHECK(state.destroyed == 0);
    CHECK(pthread_create(&thread, NULL, free_operation, op) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(state.destroyed == 1);
    CHECK(pthread_equal(state.destroyer, thread));
}

/** A failed call destroys the context before it returns; a NULL resolver does too. */
static void test_failed_and_null_calls(void)
{
    resolver_state refused = fresh_state();
    resolver_state unused = fresh_state();
    resolver_state no_destroy = fresh_state();
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");

    CHECK_FAILS(normcache_set_key_resolver_v2(NULL, keep_resolver, &refused, destroy_state),
                NORMCACHE_EINVAL, "the cache handle is NULL");
    CHECK(refused.destroyed == 1);
    CHECK_OK(normcache_set_key_resolver_v2(cache, NULL, &unused, destroy_state));
    CHECK(unused.destroyed == 1);
    CHECK_OK(normcache_set_key_resolver_v2(cache, keep_resolver, &no_destroy, NULL));
    CHECK_OK(normcache_close(cache));
    CHECK_FAILS(normcache_set_key_resolver_v2(cache, keep_resolver, &refused, destroy_state),
                NORMCACHE_EINVAL, "the cache handle is closed or was never opened");
    CHECK(refused.destroyed == 2);
    CHECK(unused.destroyed == 1);
}

/** A failing resolver's reason ends the write's message; nothing is written. */
static void test_callback_reason(void)
{
    resolver_state state = fresh_state();
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    normcache_op *op;
    char *out = (char *)"preset";
    size_t out_len = 9;

    state.reason = "KeyError: 'uuid'";
    state.status = -7;
    CHECK_OK(normcache_set_key_resolver_v2(cache, keep_resolver, &state, destroy_state));
    op = prepare_query(cache);
    CHECK_CODE(normcache_write(cache, op, NULL, 0, response, strlen(response), &out, &out_len),
               NORMCACHE_ECALLBACK);
    CHECK(strcmp(normcache_errmsg(), "the key resolver failed at a: KeyError: 'uuid'") == 0);
    CHECK(out == NULL && out_len == 0);
    CHECK_SEARCH(cache, "", NULL, 0, "[]");

    /* Bytes that are not UTF-8 are replaced; the reason is the callback's own text. */
    state.reason = "bad \xff byte";
    CHECK_CODE(normcache_normalize(op, NULL, 0, response, strlen(response), &out, &out_len),
               NORMCACHE_ECALLBACK);
    CHECK(strcmp(normcache_errmsg(), "the key resolver failed at a: bad \xef\xbf\xbd byte") == 0);

    /* An empty reason is none: the status is named instead. */
    state.reason = "";
    CHECK_CODE(normcache_normalize(op, NULL, 0, response, strlen(response), &out, &out_len),
               NORMCACHE_ECALLBACK);
    CHECK(strcmp(normcache_errmsg(),
                 "the key resolver failed at a: the resolver returned status -7 for an object "
                 "without __typename") == 0);

    /* Without a reason, the status is named, as before. */
    state.reason = NULL;
    state.status = 42;
    CHECK_CODE(normcache_normalize(op, "{}", 2, response_without_id, strlen(response_without_id),
                                   &out, &out_len),
               NORMCACHE_ECALLBACK);
    CHECK(strcmp(normcache_errmsg(),
                 "the key resolver failed at a: the resolver returned status 42 for an object "
                 "without __typename") == 0);
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
    CHECK(state.destroyed == 1);
}

/** What test_reasons_stay_apart's outer resolver works with. */
typedef struct {
    normcache *cache;        /**< the cache the inner write goes to */
    normcache_op *inner;     /**< an operation whose resolver fails with its own reason */
    int inner_code;          /**< what the inner write returned */
    char inner_message[200]; /**< its message, as the outer resolver saw it */
} nesting_state;

/** Gives a reason, then runs a write whose own resolver fails; returns failure. */
static int outer_resolver(void *context, const char *typename_, size_t typename_len,
                          const normcache_object *object, normcache_key *key)
{
    nesting_state *state = context;
    (void)typename_;
    (void)typename_len;
    (void)object;
    (void)key;
    CHECK_OK(normcache_callback_error("first outer reason", 18));
    CHECK_OK(normcache_callback_error("outer reason", 12));
    state->inner_code = normcache_write(state->cache, state->inner, NULL, 0, response,
                                        strlen(response), NULL, NULL);
    snprintf(state->inner_message, sizeof state->inner_message, "%s", normcache_errmsg());
    return NORMCACHE_ECALLBACK;
}

/**
 * A callback that runs another failing callback keeps its own reason (the inner
 * call's reason stays with the inner call); a second call replaces the first.
 */
static void test_reasons_stay_apart(void)
{
    resolver_state inner = fresh_state();
    nesting_state nesting;
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    normcache_op *outer;

    memset(&nesting, 0, sizeof nesting);
    inner.reason = "inner reason";
    inner.status = -1;
    nesting.cache = cache;
    CHECK_OK(normcache_set_key_resolver_v2(cache, keep_resolver, &inner, destroy_state));
    nesting.inner = prepare_query(cache);
    CHECK_OK(normcache_set_key_resolver(cache, outer_resolver, &nesting));
    outer = prepare_query(cache);
    CHECK_CODE(normcache_write(cache, outer, NULL, 0, response, strlen(response), NULL, NULL),
               NORMCACHE_ECALLBACK);
    CHECK(strcmp(normcache_errmsg(), "the key resolver failed at a: outer reason") == 0);
    CHECK(nesting.inner_code == NORMCACHE_ECALLBACK);
    CHECK(strcmp(nesting.inner_message, "the key resolver failed at a: inner reason") == 0);
    CHECK_SEARCH(cache, "", NULL, 0, "[]");
    CHECK_OK(normcache_op_free(outer));
    CHECK_OK(normcache_op_free(nesting.inner));
    CHECK_OK(normcache_close(cache));
    CHECK(inner.destroyed == 1);
}

/** Outside a callback, or with a NULL message of some length, the call is refused. */
static void test_callback_error_misuse(void)
{
    CHECK_FAILS(normcache_callback_error("why", 3), NORMCACHE_EINVAL,
                "normcache_callback_error was called outside a callback of the library");
    CHECK_FAILS(normcache_callback_error(NULL, 3), NORMCACHE_EINVAL,
                "message is NULL but its length is 3");
}

/* ---------------------------------------------------------------------------
 * Listing the members of a resolver's object
 * ------------------------------------------------------------------------- */

/** The message of a call given an object that is not a running resolver's own. */
static const char not_running[] = "object is not the object of a key resolver running on this thread";

/** What listing_resolver saw: a line per object, and the last object, kept past its call. */
typedef struct {
    char lines[1024];               /**< per object: "name json, name json [id json]\n" */
    size_t used;                    /**< bytes of `lines` in use */
    const normcache_object *kept;   /**< the last object the resolver was given */
    int other_thread_code;          /**< what normcache_object_member_count gave on another thread */
    char other_thread_message[200]; /**< and its message there */
} listing_state;

/** Appends the formatted text to the state's lines; fails the test when they are full. */
static void append_line(listing_state *state, const char *format, ...)
{
    va_list args;
    int written;
    va_start(args, format);
    written = vsnprintf(state->lines + state->used, sizeof state->lines - state->used, format, args);
    va_end(args);
    CHECK(written >= 0 && (size_t)written < sizeof state->lines - state->used);
    state->used += (size_t)written;
}

/**
 * Fails unless normcache_object_member_at(object, index, ...) returns `expected` and
 * clears every output it is given (preset to "x"/9) to NULL/0; the outputs whose bit is
 * set in `missing` (1 name, 2 name_len, 4 json, 8 json_len) are passed as NULL. With a
 * `message`, the error message must contain it.
 */
static void check_member_at_clears(const normcache_object *object, size_t index, unsigned missing,
                                   int expected, const char *message)
{
    const char *name = "x";
    size_t name_len = 9;
    const char *json = "x";
    size_t json_len = 9;
    CHECK_CODE(normcache_object_member_at(object, index, missing & 1 ? NULL : &name,
                                          missing & 2 ? NULL : &name_len, missing & 4 ? NULL : &json,
                                          missing & 8 ? NULL : &json_len),
               expected);
    if (message != NULL) {
        CHECK_CONTAINS(normcache_errmsg(), message);
    }
    CHECK((missing & 1 || name == NULL) && (missing & 2 || name_len == 0));
    CHECK((missing & 4 || json == NULL) && (missing & 8 || json_len == 0));
}

/** The body of the thread listing_resolver starts: counts the members of the kept object. */
static void *count_on_another_thread(void *context)
{
    listing_state *state = context;
    size_t count = 9;
    state->other_thread_code = normcache_object_member_count(state->kept, &count);
    snprintf(state->other_thread_message, sizeof state->other_thread_message, "%s",
             normcache_errmsg());
    CHECK(count == 0);
    return NULL;
}

/**
 * Lists every member of the object as a line "name json, ..." (both as the response
 * wrote them) with " [id json]" when the lookup by name finds "id". Checks on the way:
 * NORMCACHE_NOTFOUND at the count and at SIZE_MAX; NORMCACHE_EINVAL for each NULL, for
 * the key passed as an object, and for the object used on another thread.
 */
static int listing_resolver(void *context, const char *typename_, size_t typename_len,
                            const normcache_object *object, normcache_key *key)
{
    const char *const null_output = "object, out_name, out_name_len, out_json or out_len is NULL";
    listing_state *state = context;
    size_t count = 99;
    size_t index;
    unsigned missing;
    const char *name = NULL;
    size_t name_len = 0;
    const char *json = NULL;
    size_t json_len = 0;
    pthread_t thread;
    (void)typename_;
    (void)typename_len;
    CHECK_OK(normcache_object_member_count(object, &count));
    for (index = 0; index < count; index++) {
        CHECK_OK(normcache_object_member_at(object, index, &name, &name_len, &json, &json_len));
        append_line(state, "%s%.*s %.*s", index == 0 ? "" : ", ", (int)name_len, name,
                    (int)json_len, json);
    }
    if (normcache_object_member(object, "id", 2, &json, &json_len) == NORMCACHE_OK) {
        append_line(state, " [id %.*s]", (int)json_len, json);
    }
    append_line(state, "\n");

    check_member_at_clears(object, count, 0, NORMCACHE_NOTFOUND, NULL);
    check_member_at_clears(object, SIZE_MAX, 0, NORMCACHE_NOTFOUND, NULL);
    check_member_at_clears(NULL, 0, 0, NORMCACHE_EINVAL, null_output);
    for (missing = 1; missing <= 8; missing <<= 1) {
        check_member_at_clears(object, 0, missing, NORMCACHE_EINVAL, null_output);
    }
    check_member_at_clears((const normcache_object *)(const void *)key, 0, 0, NORMCACHE_EINVAL,
                           not_running);
    count = 9;
    CHECK_FAILS(normcache_object_member_count(NULL, &count), NORMCACHE_EINVAL,
                "object or out_count is NULL");
    CHECK(count == 0);
    CHECK_FAILS(normcache_object_member_count(object, NULL), NORMCACHE_EINVAL,
                "object or out_count is NULL");

    state->kept = object;
    CHECK(pthread_create(&thread, NULL, count_on_another_thread, state) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    return NORMCACHE_OK;
}

/**
 * The members of each object in response order, names as JSON text with their escapes
 * ("e\u00e9" stays so); the lookup by name takes the decoded name; a repeated name is
 * listed at each place and found first by name; an object with no members lists none.
 */
static void test_listing(void)
{
    static const char listed_query[] = "{ a { id b { c } } }";
    static const char listed_response[] =
        "{\"data\": {\"a\": {\"__typename\":\"A\",\"id\":7,\"b\":{\"c\":1},\"e\\u00e9\":\"x\"}}}";
    static const char repeated_query[] = "{ a { id } b { ... on B { x } } }";
    static const char repeated_response[] = "{\"data\": {\"a\": {\"id\": 1, \"id\": 2}, \"b\": {}}}";
    listing_state state;
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    normcache_op *op;
    char *out = NULL;
    size_t out_len = 0;

    memset(&state, 0, sizeof state);
    CHECK_OK(normcache_set_key_resolver(cache, listing_resolver, &state));
    CHECK_OK(normcache_prepare(cache, listed_query, strlen(listed_query), NULL, 0, &op));
    CHECK_OK(normcache_write(cache, op, NULL, 0, listed_response, strlen(listed_response), NULL, NULL));
    CHECK_STR(state.lines, state.used,
              "\"__typename\" \"A\", \"id\" 7, \"b\" {\"c\":1}, \"e\\u00e9\" \"x\" [id 7]\n"
              "\"c\" 1\n");
    CHECK_OK(normcache_op_free(op));

    memset(&state, 0, sizeof state);
    CHECK_OK(normcache_prepare(cache, repeated_query, strlen(repeated_query), NULL, 0, &op));
    CHECK_OK(normcache_normalize(op, NULL, 0, repeated_response, strlen(repeated_response), &out,
                                 &out_len));
    normcache_free(out);
    CHECK_STR(state.lines, state.used, "\"id\" 1, \"id\" 2 [id 1]\n\n");
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
}

/**
 * An object used on another thread during its call, or kept and used after the call,
 * is refused with NORMCACHE_EINVAL and cleared outputs, and never read.
 */
static void test_listing_refuses_other_objects(void)
{
    listing_state state;
    normcache *cache = NC_OPEN_FRESH("{\"durability\": \"fast\"}");
    normcache_op *op;
    const char *json = "x";
    size_t json_len = 9;
    size_t count = 9;

    memset(&state, 0, sizeof state);
    CHECK_OK(normcache_set_key_resolver(cache, listing_resolver, &state));
    op = prepare_query(cache);
    CHECK_OK(normcache_write(cache, op, NULL, 0, response, strlen(response), NULL, NULL));
    CHECK_STR(state.lines, state.used, "\"id\" 7, \"b\" 1 [id 7]\n");
    CHECK(state.other_thread_code == NORMCACHE_EINVAL);
    CHECK(strcmp(state.other_thread_message, not_running) == 0);

    CHECK(state.kept != NULL);
    check_member_at_clears(state.kept, 0, 0, NORMCACHE_EINVAL, not_running);
    CHECK_FAILS(normcache_object_member_count(state.kept, &count), NORMCACHE_EINVAL, not_running);
    CHECK(count == 0);
    CHECK_FAILS(normcache_object_member(state.kept, "id", 2, &json, &json_len), NORMCACHE_EINVAL,
                not_running);
    CHECK(json == NULL && json_len == 0);
    CHECK_OK(normcache_op_free(op));
    CHECK_OK(normcache_close(cache));
}

int main(void)
{
    test_replaced_and_removed();
    test_closed_handle();
    test_operations_hold_the_context();
    test_destroyed_on_the_freeing_thread();
    test_failed_and_null_calls();
    test_callback_reason();
    test_reasons_stay_apart();
    test_callback_error_misuse();
    test_listing();
    test_listing_refuses_other_objects();
    return 0;
}
