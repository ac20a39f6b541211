/*
 * normcache.h — the C interface of normcache, an embeddable normalized cache for
 * GraphQL and JSON API responses, stored in LMDB.
 *
 * This header is the manual. Conventions that hold for every function unless its
 * own block says otherwise:
 *
 *  - Every function returns an int status: NORMCACHE_OK (0), a positive outcome
 *    that is not a failure (NORMCACHE_MISS, NORMCACHE_NOTFOUND, NORMCACHE_STALE,
 *    NORMCACHE_NOTSTORED), or a negative error code.
 *  - After a negative return, normcache_errmsg() on the same thread describes what
 *    went wrong and where (byte offset, record key, path).
 *  - Inputs are (pointer, length) byte ranges of UTF-8; no terminating NUL is needed
 *    and embedded NULs are bytes like any other. A NULL pointer with length 0 is an
 *    empty input; a NULL pointer with a non-zero length is NORMCACHE_EINVAL. A length
 *    of NORMCACHE_NUL_TERMINATED ((size_t)-1, SQLite's convention) takes the input up
 *    to its first NUL, as strlen does (a NULL pointer is then NORMCACHE_EINVAL); any
 *    other length above SIZE_MAX / 2 is NORMCACHE_EINVAL. This holds for the lengths
 *    a callback hands back too (normcache_key_set, normcache_fetch_reply_set, ...).
 *  - Outputs are buffers allocated by the library and returned through `char **out`
 *    and `size_t *out_len`. The caller owns them and releases them with
 *    normcache_free(). Each buffer is followed by a NUL byte that out_len does not
 *    count, so it can be used as a C string. On any return other than NORMCACHE_OK,
 *    *out is set to NULL and *out_len to 0.
 *  - Output JSON is compact: no spaces between tokens. Strings escape `"`, `\` and
 *    control characters (\n \r \t \b \f, others as \u00xx); every other code point is
 *    written as raw UTF-8.
 *  - A normcache handle may be used from many threads at once. Many processes may
 *    open the same cache file, and one process may open it several times (its handles
 *    then share one LMDB environment); each handle sees the writes the others have
 *    committed.
 *  - Threads: every function may be called from any thread. Calls on one handle
 *    run at the same time (reads in parallel, writes one after another, each in its
 *    own transaction, unless the thread has begun one: see "Transactions"). A prepared operation is immutable: many threads may use it at
 *    once, and normcache_op_free while other threads are inside calls with it lets
 *    those calls finish with it (later calls get NORMCACHE_EINVAL). What
 *    normcache_close does to calls in progress on other threads is said at
 *    normcache_close; normcache_interrupt stops them. load_schema, configure and
 *    set_key_resolver* may run while other threads prepare: a prepare uses the rules
 *    as they were when it began. normcache_errmsg is per thread.
 *  - A handle belongs to the process that opened it: after fork(), the child must
 *    open the cache again; calls on an inherited handle return NORMCACHE_EINVAL,
 *    except normcache_close, which releases the child's copy and leaves the parent's
 *    handle and the file alone. Prepared operations (normcache_op) are plain values:
 *    a child may use inherited ones with a cache it opens itself.
 *  - fork() from a threaded program: the library's process-wide locks (the open
 *    files, the handle tables) are taken by a pthread_atfork handler before fork()
 *    and are free in the child whatever the parent's other threads were doing, also
 *    inside normcache_open or normcache_close. So a child, before or without exec,
 *    may call every normcache function under the rules above: open the cache, use
 *    inherited operations, close inherited handles. A fork() waits for a
 *    normcache_open or normcache_close in progress on another thread (LMDB's open
 *    and close of the file) to finish. One lock inside the library is not its own to
 *    take: the Swift runtime's, held while it fills in a type's metadata the first
 *    time the process uses the type. A fork() while another thread makes its first
 *    calls of a kind (its first open, prepare, write or read) can leave the child
 *    waiting on that lock in its own first call of the kind; fork once the parent's
 *    threads have made their calls (as a server forks its workers after start-up),
 *    or before they start. What the library cannot answer for either are locks
 *    outside it that the parent's threads held (those of the host's own code, or of
 *    a callback it set); as POSIX says, only async-signal-safe calls are safe in such
 *    a child in general.
 *  - Time: every call that writes, reads an operation or a document, or invalidates asks
 *    the handle's clock once (normcache_set_clock); a clock set by the host that fails
 *    fails that call with NORMCACHE_ECALLBACK, which the Returns lists below do not
 *    repeat. get, search, stats, remove* and clear never ask it.
 *  - Nothing crosses this boundary but status codes: bad input, a closed handle or a
 *    damaged file gives an error code, never a crash, and a failed write changes
 *    nothing.
 *  - Memory: the buffers a call sizes by its data (the scan of its input, the records
 *    of a write, a merged record, the data of a read, the JSON it returns) are taken
 *    so that failing to get one is an answer: the call returns NORMCACHE_ENOMEM with
 *    "out of memory: could not allocate N bytes while ..." as its message, writes
 *    nothing, and the process goes on. The small allocations of the Swift runtime
 *    (handles, names, the list of changed fields) stop the process when they fail, as
 *    in any Swift program.
 *  - Damaged files: normcache refuses at open (NORMCACHE_ENOTCACHE) a file that is
 *    not an LMDB file, is cut short, holds no normcache databases, has a damaged
 *    meta database or a newer format version, and at read a record whose bytes are
 *    damaged. LMDB keeps no checksums of its B-tree pages and follows what they
 *    say: a file whose pages were overwritten inside (by a disk fault or another
 *    program) can crash a process that reads it, as it would crash LMDB itself.
 */
#ifndef NORMCACHE_H
#define NORMCACHE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Version
 * ------------------------------------------------------------------------- */

/** The version of this header, as major, minor and patch numbers. */
#define NORMCACHE_VERSION_MAJOR 0
#define NORMCACHE_VERSION_MINOR 1
#define NORMCACHE_VERSION_PATCH 0
/** The version of this header as text, "MAJOR.MINOR.PATCH". */
#define NORMCACHE_VERSION "0.1.0"
/** The version of this header as one integer, MAJOR * 1000000 + MINOR * 1000 + PATCH,
 *  for comparisons in the preprocessor (as SQLITE_VERSION_NUMBER and MDB_VERINT). */
#define NORMCACHE_VERSION_NUMBER 1000

/**
 * normcache_version — the version of the loaded library.
 *
 * Returns a static NUL-terminated string "MAJOR.MINOR.PATCH"; compare it with
 * NORMCACHE_VERSION to detect a header and a library that do not match.
 * Never fails; thread-safe; the caller must not free the string.
 */
const char *normcache_version(void);

/**
 * normcache_version_number — the version of the loaded library as one integer.
 *
 * Returns MAJOR * 1000000 + MINOR * 1000 + PATCH of the library, to compare with
 * NORMCACHE_VERSION_NUMBER. Never fails; thread-safe.
 */
int normcache_version_number(void);

/** An input length meaning "up to the first NUL byte" (see the conventions above). */
#define NORMCACHE_NUL_TERMINATED ((size_t)-1)

/* ---------------------------------------------------------------------------
 * Status codes
 * ------------------------------------------------------------------------- */

/** Success. */
#define NORMCACHE_OK 0
/** A read found the cache lacking some of the data, or holding it too stale. Not a failure: errmsg is untouched. */
#define NORMCACHE_MISS 1
/** The record asked for is not in the cache. Not a failure: errmsg is untouched. */
#define NORMCACHE_NOTFOUND 2
/** A read returned all the data, some of it stale within the read's max_stale. Not a failure. */
#define NORMCACHE_STALE 3
/** A write was not stored because the response said Cache-Control: no-store. Not a failure. */
#define NORMCACHE_NOTSTORED 4
/** A wait ended with its timeout before what it waited for happened. Not a failure. */
#define NORMCACHE_TIMEOUT 5

/** An argument is invalid: a NULL pointer, an empty key, an unknown option, a closed handle. */
#define NORMCACHE_EINVAL (-1)
/** Input JSON is malformed, not UTF-8, nested too deeply, or not of the expected shape. */
#define NORMCACHE_EJSON (-2)
/** A GraphQL document is malformed or invalid. */
#define NORMCACHE_EDOCUMENT (-3)
/** A schema is malformed or invalid. */
#define NORMCACHE_ESCHEMA (-4)
/** Response data does not match the operation that asked for it. */
#define NORMCACHE_EDATA (-5)
/** The storage failed: I/O error, disk full, permission denied, lock or map failure. */
#define NORMCACHE_ESTORAGE (-6)
/** A user callback failed. */
#define NORMCACHE_ECALLBACK (-7)
/** Memory could not be allocated. */
#define NORMCACHE_ENOMEM (-8)
/** The file is not a normcache cache, is damaged, or has a format this library cannot read. */
#define NORMCACHE_ENOTCACHE (-9)
/** A write was attempted on a cache opened read-only. */
#define NORMCACHE_EREADONLY (-10)
/** A fetch failed: the fetch callback said so (normcache_execute). */
#define NORMCACHE_EFETCH (-11)
/** A fetched response carried GraphQL errors under the error policy "none" (normcache_execute). */
#define NORMCACHE_EGRAPHQL (-12)
/** The call was interrupted by normcache_interrupt and changed nothing. */
#define NORMCACHE_INTERRUPTED (-13)

/**
 * normcache_errstr — a fixed English description of a status code.
 *
 * Returns a static NUL-terminated string for any int, known or not ("unknown status
 * code" for codes this library does not define). Never fails; thread-safe; the caller
 * must not free the string.
 */
const char *normcache_errstr(int code);

/**
 * normcache_errmsg — the detailed message of the last failure on the calling thread.
 *
 * Returns a NUL-terminated string that says what went wrong and where, or "" when
 * no call on this thread has failed yet. The string belongs to the library and stays
 * valid until the next failing normcache call on the same thread. Each thread has
 * its own message; successful calls leave it unchanged.
 */
const char *normcache_errmsg(void);

/**
 * normcache_free — release a buffer returned by this library.
 *
 * NULL is allowed and does nothing. Passing anything the library did not return
 * through an out-parameter, or freeing a buffer twice, is undefined behaviour.
 * A buffer larger than 32 MiB is kept for the library's later calls (see
 * normcache_release_memory), so that reading a large result again faults in no fresh
 * pages.
 */
void normcache_free(void *buffer);

/**
 * normcache_release_memory — free the memory the library keeps between calls.
 *
 * Writes and reads of large responses use blocks of 256 KiB and more (the scan of the
 * JSON, the write's records, a read's result of more than 32 MiB once normcache_free
 * releases it). The library keeps the blocks they let go for the next call, because
 * memory fresh from the kernel costs a page fault every 4 KiB (a quarter of a cold
 * write of 100,000 objects): up to 32 MiB kept as it is and, once the process wants a
 * block again, less than 10 seconds after the library freed one that held that much
 * memory (up to twice as much), up to 256 MiB more whose pages are marked MADV_FREE.
 * The kernel takes those back when memory runs short; the library frees them when they
 * have been unused for 10 seconds, at its next call. Until then they count in the
 * process's resident set. Both bounds count the memory a block holds, not the address
 * space it spans: a block over 32 MiB counts its pages in memory (mincore), so the scan
 * of a 50 MB response, which reserves room for the most values such a response could
 * hold and writes about half of it, counts what it wrote. This call frees every kept
 * block now, as SQLite's sqlite3_release_memory; later calls keep blocks again.
 *
 * Stores the bytes of memory the freed blocks held in *out_released (may be NULL).
 * Returns NORMCACHE_OK. It frees no memory of open caches (LMDB keeps the pages of a
 * cache's last write until the cache's last handle in the process closes).
 * Process-wide; thread-safe; any time, also while other threads call the library.
 */
int normcache_release_memory(size_t *out_released);

/* ---------------------------------------------------------------------------
 * Opening and closing
 * ------------------------------------------------------------------------- */

/** An open cache. Opaque; obtained from normcache_open, released by normcache_close. */
typedef struct normcache normcache;

/**
 * normcache_open — open (and, unless read-only, create) the cache at a path.
 *
 * `path` names the cache file, as with SQLite: `app.cache` is the data file and
 * `app.cache-lock` the lock file beside it. The directory must exist. New files are
 * created with mode 0600 (owner only, less the umask; see "mode") and a new cache is
 * stamped with the current format.
 *
 * `options_json` is NULL/0 for the defaults, or a JSON object with any of:
 *   "durability": "full" (default) — every committed write survives a power cut;
 *                 "fast" — a system crash may lose the last committed writes but
 *                 never corrupts the cache (a process crash loses nothing).
 *   "read_only":  false (default) | true — open for reading only; the file must exist
 *                 and writes fail with NORMCACHE_EREADONLY.
 *   "map_size":   initial size in bytes of the memory map (default 64 MiB, at least
 *                 1 MiB); the map grows by itself when it fills.
 *   "max_readers": the reader slots of the lock file (default 126, 1..65535), the most
 *                 read transactions of all processes at one moment; only the first
 *                 process to open the file sets it. A read that finds every slot
 *                 taken first frees the slots of processes that died holding them;
 *                 if all are still in use it fails at once with NORMCACHE_ESTORAGE
 *                 ("all reader slots are in use"), without waiting.
 *   "rules":      what the handle does with rules saved in the file (see "Saved rules"):
 *                 "saved" (default) — they become the handle's rules;
 *                 "own" — the handle starts with no rules, as if none were saved (this
 *                 opens a file whose saved rules are damaged, to clear or replace them);
 *                 "strict" — as "saved", and normcache_prepare and every write fail
 *                 with NORMCACHE_EINVAL while the handle's rules differ from the
 *                 file's saved rules.
 *   "mode":       the permission bits of the data and lock files when this open
 *                 creates them, less the umask: a string of octal digits ("0640", as
 *                 chmod takes them) or an integer (416, as open(2) takes 0640);
 *                 default "0600", owner only. Bits outside 0777 are NORMCACHE_EINVAL.
 *                 Every process that opens a cache, a read-only one too, writes the lock
 *                 file: a cache shared by a group needs "0660". A user who may not write
 *                 the lock file (or read the data file) gets NORMCACHE_ESTORAGE with a
 *                 message that names the file and what to do.
 *   "max_document_bytes": the longest GraphQL document normcache_prepare takes, in
 *                 bytes (default 4194304, 4 MiB; at least 1). A longer one fails with
 *                 NORMCACHE_EDOCUMENT before it is read: "the document is 5000000 bytes
 *                 long, more than the limit of 4194304 (option max_document_bytes)".
 *   "max_document_tokens": the most tokens (names, punctuators, values) of a document
 *                 normcache_prepare takes (default 500000; at least 1). The first token
 *                 past it fails the call with NORMCACHE_EDOCUMENT as it is read, before
 *                 anything is built: "GraphQL error at line 1, column 9: the document has
 *                 more than 500000 tokens, the limit (option max_document_tokens)".
 *                 Hand-written queries are a few thousand bytes and some hundred tokens;
 *                 generated ones reach hundreds of kB.
 *   "max_bytes":  a size limit on the cache's data (default: none; at least 65536): the
 *                 bytes of the pages the records and the meta database hold, as
 *                 normcache_stats reports them under "data_bytes" (not the file's size,
 *                 which never shrinks). A write of this handle that leaves more data
 *                 evicts, in its own transaction, the least recently written records
 *                 (by the newest written-at time of their fields), whole, until the data
 *                 is at most low_water × max_bytes. Never evicted: QUERY_ROOT,
 *                 MUTATION_ROOT, SUBSCRIPTION_ROOT, keys retained with
 *                 normcache_retain, and the records the write itself changed. A write that stays over max_bytes even so fails with
 *                 NORMCACHE_ESTORAGE and writes nothing ("the write leaves 90112 bytes of
 *                 data in 'app.cache', over its max_bytes of 65536, ..."). Evictions are
 *                 removals like any other: they are in the commit log and wake watchers.
 *                 Each handle enforces its own limit on its own writes; a handle opened
 *                 without one evicts nothing. See also normcache_trim.
 *   "low_water":  the fraction of max_bytes an eviction brings the data down to: a
 *                 number greater than 0 and at most 1 (default 0.8).
 * An unknown option or a value of the wrong type is NORMCACHE_EINVAL, and nothing is
 * created. When this process has the file open already, the new handle shares its
 * environment: map_size and max_readers of the first open hold, commits get the
 * strongest durability any open handle asked for, and a file open read-only cannot
 * be opened for writing until its read-only handles are closed (NORMCACHE_EINVAL).
 *
 * On success *out_cache receives the handle, to be closed with normcache_close.
 * On failure *out_cache is set to NULL.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL out_cache, empty path, a path with a
 * NUL byte or invalid UTF-8, options that are not an object, an unknown option, a value
 * of the wrong type or out of range);
 * NORMCACHE_EJSON (options not JSON); NORMCACHE_ENOTCACHE (the file is not a
 * normcache cache, is truncated or damaged, or has a newer format; unless "rules" is
 * "own", its saved rules are damaged or do not load);
 * NORMCACHE_ESTORAGE (missing directory, a read-only open of a missing file,
 * permission denied, I/O error); NORMCACHE_ENOMEM.
 */
int normcache_open(const char *path, size_t path_len,
                   const char *options_json, size_t options_len,
                   normcache **out_cache);

/**
 * normcache_close — close a cache handle.
 *
 * NULL is allowed and returns NORMCACHE_OK. Closing a handle that is already closed
 * returns NORMCACHE_EINVAL, as does any later use of it: a closed handle is detected,
 * never dereferenced.
 *
 * Calls in progress on the handle on other threads (or below a callback of this
 * thread) at the close, by where they are:
 *  - inside a transaction (reading records, merging a write, committing): the close
 *    waits until the transaction ends; the call returns as it would have.
 *  - before its transaction (scanning its input, normalizing a response, in a key
 *    resolver or the clock): the close does not wait; when the call reaches its
 *    transaction it fails with NORMCACHE_EINVAL ("the cache '<path>' is closed") and
 *    writes nothing.
 *  - normcache_prepare (which uses no transaction, unless the handle's rules are
 *    "strict"): neither waited for nor failed; it returns its operation, which is a plain
 *    value and stays usable with other handles.
 * A close does not interrupt: to stop long calls first, normcache_interrupt, then close.
 * A transaction of several calls (normcache_begin) open on the handle is rolled back
 * when the thread that began it closes the handle; a close on another thread waits
 * until that thread commits or rolls back, and that thread's calls on the handle
 * meanwhile run as usual (reads, writes, normcache_stats, normcache_last_commit...).
 * Once the close has returned, every call on the handle returns NORMCACHE_EINVAL
 * ("the cache handle is closed or was never opened").
 */
int normcache_close(normcache *cache);

/**
 * normcache_interrupt — stop the calls running on a cache handle, as sqlite3_interrupt.
 *
 * Callable from any thread and from a signal handler: it is async-signal-safe (atomic
 * operations only: no lock, no allocation) and sets no message (normcache_errmsg
 * stays as it was). The calls running on `cache` when it is called, and those that
 * start on it while these still run, stop at their next check and return
 * NORMCACHE_INTERRUPTED, having changed nothing: a write that has not committed aborts
 * its transaction. Once no call runs on the handle the interrupt is over, so a call
 * made after that is not interrupted, and normcache_interrupt while no call runs does
 * nothing. A call past its last check (a write that is committing) finishes as usual.
 *
 * The interruptible calls and their checks (every 256 tokens, JSON values, selections,
 * objects or records, and once at the start of each loop):
 *   normcache_prepare — the tokens of the document, its fields, its selections planned;
 *   normcache_put, normcache_put_ex — the JSON values scanned, the records parsed and
 *     merged, and before commit;
 *   normcache_write, normcache_write_ex, normcache_write_fragment,
 *   normcache_write_fragment_ex — the JSON values of the response scanned, its objects
 *     normalized, the records merged, and before commit;
 *   normcache_read, normcache_read_ex, normcache_read_fragment — the objects read;
 *   normcache_execute, normcache_put_document, normcache_execute_document — as the
 *     reads and writes they make (a fetch callback runs to its end: it is the host's).
 * Every other call runs to its end: they are short, or (normalize, without a handle)
 * have no handle to interrupt.
 *
 * Returns NORMCACHE_OK (also when no call was running); NORMCACHE_EINVAL (NULL, closed
 * or never-opened handle), without a message.
 */
int normcache_interrupt(normcache *cache);

/* ---------------------------------------------------------------------------
 * Transactions
 *
 * Several calls in one atomic, durable commit, as SQLite's BEGIN IMMEDIATE ...
 * COMMIT on a connection, adapted to LMDB, whose write transactions belong to the
 * thread that began them:
 *
 *  - normcache_begin(cache) opens a write transaction on the handle for the calling
 *    thread. Until normcache_commit or normcache_rollback on that thread, every call
 *    of that thread on that handle runs inside it: the writes (write, write_ex, put,
 *    put_ex, remove, remove_field, remove_prefix, clear, invalidate, write_fragment,
 *    put_document, refresh_document, import, save_rules ...) and the reads (read, get,
 *    search, keys, read_fragment, get_document, execute, stats ...), which see the
 *    transaction's own uncommitted writes. Nothing of it is visible to other threads
 *    or processes before the commit; after it, all of it is, at once.
 *  - A write transaction holds the file's single writer lock: every other writer, of
 *    every process and through every handle, waits until it ends (its normcache_write
 *    or normcache_begin blocks). Keep transactions short. Readers never wait: other
 *    threads and processes read the last commit meanwhile.
 *  - Threads: the transaction belongs to the thread that began it. A call on the same
 *    handle from another thread runs outside it, as on any handle: a read sees the last
 *    commit, a write (or begin) waits for the writer lock until the transaction ends.
 *    normcache_commit and normcache_rollback from another thread fail with
 *    NORMCACHE_EINVAL. A thread holds one transaction at a time: begin while it has one
 *    open, on any handle, is NORMCACHE_EINVAL (transactions do not nest), and so is a
 *    write of that thread through another handle of the same file (it would wait for
 *    the thread's own transaction for ever; a read through it sees the last commit).
 *    A thread that exits with a transaction open rolls it back.
 *  - A call that fails inside a transaction (bad JSON, a missing field, an interrupt,
 *    a callback's error) fails alone: each call runs in a transaction nested in the
 *    open one (LMDB's nested transactions), so its own partial work is dropped and the
 *    earlier calls' work stays. The transaction stays open: commit or roll back.
 *  - The memory map cannot grow while a transaction is open. normcache_begin grows it
 *    first so that at least 64 MiB are free; a call that fills the map anyway fails
 *    with NORMCACHE_ESTORAGE ("the map of '<path>' is full and cannot grow while a
 *    transaction is open ...") and is undone alone, the transaction staying open. A
 *    commit that fills the map fails with NORMCACHE_ESTORAGE and writes nothing. For
 *    larger transactions open the cache with a larger "map_size".
 *  - normcache_close on the owning thread rolls the transaction back, then closes.
 *    normcache_close on another thread waits until the owning thread commits or rolls
 *    back (as it waits for any transaction in progress).
 *  - A crash or kill of the process in a transaction leaves nothing of it in the file
 *    (LMDB releases the writer lock of a dead process). After fork(), the child does not
 *    inherit the parent's transaction: its calls on inherited handles are refused as
 *    always (NORMCACHE_EINVAL), and the parent's transaction goes on in the parent.
 *  - The commit is as durable as a single write under the handle's "durability": one
 *    sync for the whole transaction, which is what makes many small writes in one
 *    transaction cheaper than as many commits.
 * ------------------------------------------------------------------------- */

/**
 * normcache_begin — open a write transaction on a handle for the calling thread.
 *
 * Waits for the file's writer lock (see "Transactions"), which it holds until
 * normcache_commit or normcache_rollback on this thread.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL, closed or never-opened handle, an
 * inherited handle after fork(), or the thread already has a transaction open: "a
 * transaction is already open on the cache '<path>' in this thread; transactions do
 * not nest"); NORMCACHE_EREADONLY (a read-only handle); NORMCACHE_ESTORAGE (the map
 * could not grow, an I/O error).
 */
int normcache_begin(normcache *cache);

/**
 * normcache_commit — commit the calling thread's transaction on a handle.
 *
 * Makes every write of the transaction visible to all threads and processes at once,
 * as durably as a single write, and releases the writer lock. The transaction has
 * ended when this returns, whatever it returns: on an error nothing of it was written.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL, closed or never-opened handle, or no
 * transaction of this thread on this handle: "no transaction to commit: none is open
 * on the cache '<path>' in this thread (a transaction belongs to the thread that began
 * it)"); NORMCACHE_ESTORAGE (the map filled, an I/O error).
 */
int normcache_commit(normcache *cache);

/**
 * normcache_rollback — drop the calling thread's transaction on a handle.
 *
 * Undoes every write of the transaction and releases the writer lock.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL, closed or never-opened handle, or no
 * transaction of this thread on this handle: "no transaction to roll back: ...").
 */
int normcache_rollback(normcache *cache);

/* ---------------------------------------------------------------------------
 * Records
 *
 * Records travel as JSON: an object whose members are record keys, each holding an
 * object of fields. A field value is any JSON value; an object whose only member is
 * "$reference" with a string value is a reference to another record:
 *
 *   {"Droid:2001": {"name": "R2-D2", "friends": [{"$reference": "Human:1000"}, null]}}
 *
 * Leaf values round-trip exactly: numbers keep their text (1.0 stays 1.0), strings
 * keep every code point. JSON nested deeper than 512 levels is rejected.
 * ------------------------------------------------------------------------- */

/**
 * normcache_put — merge records into the cache in one atomic, durable transaction.
 *
 * The merge is field by field: each field given replaces the stored one (last write
 * wins), fields not given stay, lists are replaced whole. A record key that appears
 * twice in one input is merged in input order.
 *
 * When `out_changed` is not NULL it receives a JSON array of the fields whose stored
 * value changed, as "recordKey.fieldKey" strings in the order of the input
 * (["Droid:2001.name"]), each field once, at its first appearance; rewriting identical
 * data yields []. `out_len` may be NULL only when `out_changed` is NULL.
 *
 * All or nothing: on any error nothing is written.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL handle, closed handle, NULL input with
 * a non-zero length, an empty record key or field name); NORMCACHE_EJSON (empty or
 * malformed JSON, invalid UTF-8,
 * a top level or record that is not an object, a malformed reference, nesting deeper
 * than 512 levels counting the top-level object; the message gives the byte offset and
 * record key); NORMCACHE_EREADONLY; NORMCACHE_ENOTCACHE (a stored record it merges
 * with is damaged); NORMCACHE_ESTORAGE (also for a key longer than 503 bytes whose
 * salted hash collides with a stored one, which is refused, never merged);
 * NORMCACHE_ENOMEM.
 */
int normcache_put(normcache *cache, const char *records_json, size_t records_len,
                  char **out_changed, size_t *out_len);

/**
 * normcache_get — one record, as a JSON object of its fields.
 *
 * On NORMCACHE_OK *out_record receives the fields in the notation above, ordered by
 * the bytes of the field keys: {"friends":[{"$reference":"Human:1000"},null],"name":"R2-D2"}.
 *
 * Returns NORMCACHE_OK; NORMCACHE_NOTFOUND (no record with this key);
 * NORMCACHE_EINVAL (NULL handle or out-parameters, closed handle, a key that is empty
 * or not UTF-8);
 * NORMCACHE_ENOTCACHE (the stored record is damaged); NORMCACHE_ESTORAGE;
 * NORMCACHE_ENOMEM.
 */
int normcache_get(normcache *cache, const char *key, size_t key_len,
                  char **out_record, size_t *out_len);

/**
 * normcache_remove — delete one record.
 *
 * Returns NORMCACHE_OK when the record was deleted; NORMCACHE_NOTFOUND when there was
 * none; NORMCACHE_EINVAL (NULL handle, closed handle, a key that is empty or not
 * UTF-8); NORMCACHE_EREADONLY (checked first, whether or not the record exists);
 * NORMCACHE_ENOTCACHE (damaged file); NORMCACHE_ESTORAGE.
 */
int normcache_remove(normcache *cache, const char *key, size_t key_len);

/**
 * normcache_remove_field — delete one field of one record, so that the next read of
 * it misses.
 *
 * `field` is the field's storage key as stored, compared byte for byte: `name`, or a
 * root field's entry with its arguments, `feed(first:10)` of the record `QUERY_ROOT`.
 * An operation that selects it then reads as NORMCACHE_MISS at that path, and its next
 * fetch writes it again; a stored null would instead be data (and fail to read in a
 * non-null position). The record's other fields keep their values and times. A record
 * left without fields is deleted, as Apollo's evict does. One atomic transaction.
 *
 * Returns NORMCACHE_OK when the field was deleted; NORMCACHE_NOTFOUND when there was
 * no such record or the record had no such field (nothing is written);
 * NORMCACHE_EINVAL (NULL handle, closed handle, a NULL key or field with a non-zero
 * length, a key or field that is empty or not UTF-8); NORMCACHE_EREADONLY (checked
 * first, whether or not the field exists); NORMCACHE_ENOTCACHE (the stored record is
 * damaged); NORMCACHE_ESTORAGE; NORMCACHE_ENOMEM.
 *
 * Thread-safe, like every call on a handle; it waits for other writers, as a write
 * does.
 */
int normcache_remove_field(normcache *cache, const char *key, size_t key_len,
                           const char *field, size_t field_len);

/**
 * normcache_remove_prefix — delete every record whose key starts with `prefix`.
 *
 * One atomic transaction. When `out_count` is not NULL it receives the number of
 * records deleted. The prefix must not be empty (use normcache_clear).
 *
 * Returns NORMCACHE_OK (also when nothing matched); NORMCACHE_EINVAL (NULL handle,
 * closed handle, a prefix that is empty or not UTF-8); NORMCACHE_EREADONLY;
 * NORMCACHE_ENOTCACHE (damaged file); NORMCACHE_ESTORAGE.
 */
int normcache_remove_prefix(normcache *cache, const char *prefix, size_t prefix_len,
                            uint64_t *out_count);

/**
 * normcache_clear — delete every record, keeping the cache file and its format.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle); NORMCACHE_EREADONLY;
 * NORMCACHE_ENOTCACHE (damaged file); NORMCACHE_ESTORAGE.
 */
int normcache_clear(normcache *cache);

/**
 * normcache_search — the keys of a key group, in byte order, one page at a time.
 *
 * Lists the record keys that start with `prefix` ("Pet:"; an empty prefix lists every
 * key), in the byte order of their UTF-8, strictly after the key `after` when it is
 * not NULL (pass the last key of the previous page), at most `limit` of them
 * (0: no limit). The search positions a cursor at the start of the group and stops at
 * its end; it never scans the rest of the store.
 *
 * On NORMCACHE_OK *out_keys receives a JSON array of strings (["Pet:1","Pet:2"]);
 * an empty group gives [].
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL handle or out-parameters, closed
 * handle, a prefix or after key that is not UTF-8, a limit above SIZE_MAX/2);
 * NORMCACHE_ENOTCACHE; NORMCACHE_ESTORAGE; NORMCACHE_ENOMEM (the listing does not fit
 * in memory).
 */
int normcache_search(normcache *cache, const char *prefix, size_t prefix_len,
                     const char *after, size_t after_len, size_t limit,
                     char **out_keys, size_t *out_len);

/**
 * normcache_stats — facts about the cache, as a JSON object.
 *
 * *out_json receives {"records": <count>, "bytes_used": <bytes of pages in use>,
 * "data_bytes": <bytes>, "log_bytes": <bytes>, "max_bytes": <bytes, 0 for none>,
 * "map_size": <bytes>, "page_size": <bytes>, "format_version": <n>,
 * "library_version": "<x.y.z>", "read_only": <bool>, "durability": "full"|"fast",
 * "rules_fingerprint": "<16 hex digits>"|null, "saved_rules_fingerprint": "<16 hex
 * digits>"|null, "readers": <n>, "reader_slots": <n>, "max_readers": <n>,
 * "oldest_reader_lag": <commits>}.
 *
 * "rules_fingerprint" and "saved_rules_fingerprint" are the fingerprints of this
 * handle's rules and of the rules saved in the file (null: none; see "Saved rules").
 * When they differ, this handle keys and judges records otherwise than the file's
 * rules say.
 *
 * "data_bytes" is what "max_bytes" (normcache_open) bounds: the bytes of the pages the
 * records, the meta database and LMDB's main database hold. "log_bytes" is the bytes
 * of the pages of the commit log, which keeps its own bounds (1024 commits, 16 MiB).
 * "bytes_used" counts every page up to the last in use, free ones too: the file never
 * shrinks, and pages freed by removals and evictions are reused by later writes.
 * "max_bytes" is this handle's limit.
 *
 * "readers" counts the reads of the file in progress in every process (each holds a
 * reader slot; the slots of processes that died holding them are released first).
 * "reader_slots" counts the slots taken, of "max_readers": one for each read in
 * progress, and up to two a process keeps between its reads of the file, so that its
 * next reads renew a transaction rather than begin one (a file of fewer than 32
 * slots keeps none; a kept slot holds no snapshot and pins no pages, and a process
 * that finds every slot taken gives its own kept ones up before it fails). A read
 * finds a free slot while "reader_slots" is below "max_readers".
 * "oldest_reader_lag" is how many commits the oldest
 * snapshot still being read is behind the newest (0 when no read is in progress).
 * A lag that keeps growing means a live process holds a read open (stopped, in a
 * debugger, or stuck in a key resolver): until its read ends no page freed after its
 * snapshot can be reused and the file grows. A writer releases the slots of dead
 * readers by itself, before a write once a second and after any write that grew the
 * file.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL handle or out-parameters, closed
 * handle); NORMCACHE_ENOTCACHE (damaged file); NORMCACHE_ESTORAGE; NORMCACHE_ENOMEM.
 */
int normcache_stats(normcache *cache, char **out_json, size_t *out_len);

/**
 * normcache_key_groups — what each key group of the file holds, as a JSON array.
 *
 * *out_json receives [{"group": "<name>", "records": <count>, "bytes": <bytes>,
 * "oldest_write": <seconds>, "newest_write": <seconds>}, ...], one object per key group,
 * ordered by the UTF-8 bytes of the group's name; [] for an empty cache. A record's group
 * is its key up to and including its first ':' ("Pet:" for Pet:7), or, when a '.' comes
 * first or there is no ':', up to that '.' ("QUERY_ROOT" for QUERY_ROOT and
 * QUERY_ROOT.hero.0), else the whole key. "bytes" counts the keys and the encoded records
 * (not LMDB's pages or overhead). "oldest_write" and "newest_write" are the written-at
 * times (seconds since 1970, by the clock of the handle that wrote them) of the group's
 * oldest and newest field. Counted in one read transaction, visiting each record once:
 * the cost grows with the file, so call it on request, not on a hot path. Release the
 * buffer with normcache_free; on failure *out_json is NULL.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, NULL out-parameters);
 * NORMCACHE_ENOTCACHE (a damaged record); NORMCACHE_ESTORAGE; NORMCACHE_ENOMEM.
 */
int normcache_key_groups(normcache *cache, char **out_json, size_t *out_len);

/**
 * normcache_metrics — what this handle has read and written since it opened.
 *
 * *out_json receives {"reads": n, "hits": n, "misses": n, "stale_reads": n,
 * "writes": n, "changed_fields": n}, to be freed with normcache_free. The counts are
 * this handle's alone (another handle on the same file, in this process or another,
 * has its own), kept with relaxed atomic adds, so a snapshot taken while other threads
 * call may be a moment out of step between members.
 *
 * A read is a call that reads data and says whether it found it: normcache_read,
 * read_ex, read_fragment, get, get_document, and the cache reads of normcache_execute
 * and execute_document. "hits" returned all the data fresh (NORMCACHE_OK, or a record
 * found), "stale_reads" returned it with some of it stale within max_stale
 * (NORMCACHE_STALE), "misses" lacked something or held it too stale (NORMCACHE_MISS,
 * NORMCACHE_NOTFOUND). Watchers' reads are not counted. A write is a call that
 * committed (puts, writes, fragment and document writes, removes, clear, invalidation,
 * refresh, gc, trim, import; each call inside a transaction), whether it changed
 * anything or not; "changed_fields" counts what the commits changed: each field of a
 * stored record, the fields of a record created whole, and one for a record removed,
 * a key prefix removed or a clear.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, NULL out_json or
 * out_len); NORMCACHE_ENOMEM.
 */
int normcache_metrics(normcache *cache, char **out_json, size_t *out_len);

/**
 * normcache_copy — a compacted, consistent copy of the cache to a new file (a backup).
 *
 * Writes every record as of one moment (one read transaction: each commit of any thread
 * or process is in the copy whole or not at all) to the new file `path` (UTF-8 bytes;
 * len NORMCACHE_NUL_TERMINATED takes them up to the first NUL), while other threads and
 * processes go on reading and writing: readers never wait for it and writers do not
 * either (the copy only holds a reader slot, so pages freed meanwhile are not reused
 * until it ends and the file may grow). It is LMDB's mdb_copy -c: free pages are left
 * out, so the copy is as small as the records allow, whatever the source has freed
 * (normcache_clear and removals do not shrink a file). Works on a handle opened
 * read-only.
 *
 * To shrink a cache file in place, when no process has it open, use normcache_compact
 * (below), or `normcache compact CACHE`.
 *
 * The file is created with O_EXCL and the permission bits of the source's data file
 * (less the process's umask), written, and fsync'd before the call returns. It is a
 * cache file of its own, opened like any other with normcache_open; no lock file is
 * written beside it: the first open creates `<path>-lock`, as for any cache. A copy
 * that fails removes the file it created.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, NULL path with a
 * length, an empty path ("empty destination path"), a path with a NUL byte inside its
 * length ("destination path contains a NUL byte"), a path not UTF-8 ("path is not valid
 * UTF-8"), a path that exists, even as a directory ("'<path>' exists: a copy is written
 * only to a new file"; it is left untouched)); NORMCACHE_ESTORAGE with the reason from
 * the system, for a directory that does not exist ("copying the cache to '<path>' on
 * '<cache>' failed: No such file or directory (open)"), one that cannot be written
 * ("... Permission denied (open)"), a full disk, or every reader slot taken ("... all
 * reader slots are in use (raise max_readers) ..."; the slots this process keeps for its
 * next reads, and those of dead processes, are given up and the copy tried once more
 * before that answer); NORMCACHE_ENOTCACHE (damaged source); NORMCACHE_ENOMEM.
 * Thread-safe.
 */
int normcache_copy(normcache *cache, const char *path, size_t path_len);

/**
 * normcache_compact — shrink a cache file in place, when no process has it open.
 *
 * LMDB never gives pages back to the file system: normcache_clear and removals free
 * pages for later writes, and the file keeps its size. normcache_compact rewrites the
 * cache file at `path` (UTF-8 bytes; len NORMCACHE_NUL_TERMINATED takes them up to the
 * first NUL) without its free pages, so that it shrinks to the records it holds (a
 * cleared cache to a few pages). The records, the saved rules, retain counts and
 * documents are kept as they are; the commit log is kept too, and the compacted file
 * numbers its commits from 1 again (a process that knew the old numbers finds itself
 * behind the log: its watchers read everything again). To compact a cache that is in
 * use, copy it to a new file with normcache_copy instead.
 *
 * `options_json` is NULL/0, or the options the cache is opened with (as normcache_open
 * takes them, checked as it checks them): "max_readers" sizes the lock table the
 * compaction builds; "read_only": true is refused, since compacting rewrites the file;
 * the other options do not apply.
 *
 * The procedure, with the lock file `<path>-lock` claimed throughout (an fcntl write
 * lock on its first byte; every process that has the cache open holds a read lock
 * there from normcache_open to its last normcache_close):
 *  1. refuse if a handle of this process has the file open, or another process does;
 *  2. check that the file is a whole cache of a format this library reads, and copy it,
 *     compacted, as normcache_copy does, to `<path>.compact-<pid>` beside it, with the
 *     same permission bits, fsync'd;
 *  3. rename the copy over `path` and fsync the directory;
 *  4. build the lock table anew by opening the new file as its first user;
 *  5. release the claim.
 * A process that begins to open the cache meanwhile waits in normcache_open until the
 * claim ends and then opens the compacted file; a call that fails before step 3 removes
 * the copy and leaves the file as it was. A process killed during the call leaves either
 * the old file or the compacted one, whole, and maybe a stray `<path>.compact-<pid>`.
 *
 * Precondition: no handle and no process has the file open. It is checked, not assumed:
 *  - a handle of this process (open or not yet closed) on the file: NORMCACHE_EINVAL,
 *    "'<path>' is open in this process (1 handle): close it before compacting it";
 *  - another process that has it open (a normcache or LMDB process holding its lock
 *    file): NORMCACHE_ESTORAGE, "cannot compact '<path>': another process has it open
 *    (pid <pid>); compact it when no process uses it".
 * Either way nothing is written: the file, its lock file and the other handles and
 * processes go on as before. While the call runs, this process's normcache_open of the
 * same file waits for it.
 *
 * *out_json (when out_json is not NULL) receives {"bytes_before": <n>, "bytes_after":
 * <n>}, the file's size before and after, to be freed with normcache_free; out_json and
 * out_len are both NULL when the report is not wanted. On failure *out_json is NULL.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (a NULL or empty path ("empty cache path"), a
 * path with a NUL byte inside its length ("cache path contains a NUL byte") or not
 * UTF-8 ("path is not valid UTF-8"), options that are not an object or hold an unknown
 * option or a bad value, out_json without out_len, a directory or other file that is
 * not a regular file ("cannot compact '<path>': not a regular file"), the file open in
 * this process); NORMCACHE_EJSON (options not JSON); NORMCACHE_EREADONLY ("read_only":
 * true); NORMCACHE_ENOTCACHE (a file that is not LMDB ("'<path>' is not a normcache
 * cache: not an LMDB file"), an empty file (a cache not made yet), an LMDB file without normcache's databases, a truncated
 * cache ("'<path>' is truncated: <n> bytes, but its pages end at byte <n>"), a newer
 * format; a lock file the call created beside it is removed); NORMCACHE_ESTORAGE (no
 * such file ("cannot compact '<path>': cannot stat it: No such file or directory"),
 * another process has it open, a directory that cannot be written, a full disk, an
 * I/O error); NORMCACHE_ENOMEM. Thread-safe.
 */
int normcache_compact(const char *path, size_t path_len, const char *options_json, size_t options_len,
                      char **out_json, size_t *out_len);

/* ---------------------------------------------------------------------------
 * GraphQL operations
 *
 * A response comes in with the operation that asked for it; normcache splits it into
 * records keyed `Type:id` (by the key rules) or by response path, merges them, and
 * later rebuilds the data of any operation whose fields are all present — or lists
 * exactly what is missing. Formats follow Apollo iOS's normalized cache: entity records
 * `<group or typename>:<id>` (key fields joined with `+`, `\` and `+` escaped), other
 * objects under their response path from the nearest keyed parent or root
 * (`QUERY_ROOT.hero.friends.0`), fields under their storage key (the schema name, with
 * arguments sorted: `hero(episode:JEDI)`), changed fields as `recordKey.fieldKey`.
 *
 * Storage keys in detail: the schema field name (never the alias), and with arguments
 * `name:value` pairs sorted by name (by UTF-8 bytes), joined by `,`, in parentheses:
 * `hero(episode:JEDI,name:R2)`. Strings and enums unquoted, `null` as `a:null`, integers
 * in decimal, floats as the shortest text that round-trips (`2.0`), `true`/`false`. An
 * input object as `[name:k:v,...]`, its own pairs sorted, nested objects alike
 * (`[o:[a:x:s],z:1]`); a list of input objects as each object's sorted pairs in turn
 * (`reviews:[commentary:x,stars:1,stars:2]`); any other list as `[1, 2]` with a null
 * element as `<null>`. A variable absent from the variables takes its declared default,
 * or else drops the argument, list element or object field that holds it.
 * One departure from Apollo iOS: inside a string value the characters `,` `:` `[` `]`
 * `(` `)` and `\` are written after a `\`, and a string that reads `null` or `<null>`
 * gets a leading `\`, so a string can no longer pass for other arguments:
 * `search(q: "cats,topic:dogs")` is `search(q:cats\,topic\:dogs)` and
 * `search(q: "cats", topic: "dogs")` is `search(q:cats,topic:dogs)`. Strings without those
 * characters keep Apollo's key exactly; enum values are names and cannot hold them. As in
 * Apollo, `1` and `"1"` (or `true` and `"true"`) give the same text, which matters only
 * for custom scalars, and a list of input objects does not mark where one object ends.
 *
 * GraphQL errors carry "GraphQL error at line L, column C: ..." in their message.
 * ------------------------------------------------------------------------- */

/** A prepared operation. Opaque; from normcache_prepare, released by normcache_op_free. */
typedef struct normcache_op normcache_op;

/**
 * normcache_load_schema — load a schema (SDL) into a cache handle.
 *
 * Object, interface, union, enum, input and scalar types, `implements`, `extend`, and
 * Apollo's directives: `extend type Dog @typePolicy(keyFields: "id")`,
 * `extend interface Pet @typePolicy(keyFields: "id")`,
 * `extend type Query @fieldPolicy(forField: "dog", keyArgs: "id")`. Operations
 * prepared afterwards on this handle are validated against it and use its types and
 * rules; rules given to normcache_configure stay on top of the schema's, and are checked
 * against it here as normcache_configure checks them when a schema is loaded (see
 * there). When one does not fit, the schema is not loaded and the handle keeps what it
 * had.
 *
 * On a handle whose rules are the file's saved rules (see "Saved rules"), the first
 * normcache_load_schema or normcache_configure replaces them all: the handle then has
 * exactly the rules it is given, as if the file had none saved.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, NULL sdl with a
 * length); NORMCACHE_ESCHEMA (malformed SDL, unknown types, a key field that is not a
 * field, a policy that conflicts with an inherited one; line and column in the message;
 * or configured rules that name what the schema lacks: "the key rules configured before
 * the schema do not fit it: " and normcache_configure's message, with its byte offset).
 */
int normcache_load_schema(normcache *cache, const char *sdl, size_t sdl_len);

/**
 * normcache_configure — add key rules without SDL.
 *
 * `config_json`: {"typePolicies": {"Pet": {"keyFields": ["id"], "uniqueKeyGroup": "Pet"}},
 * "fieldPolicies": {"Query.dog": {"keyArgs": ["id"]}}, "possibleTypes": {"Pet": ["Dog",
 * "Cat"]}, "defaultKeyFields": ["id"], "storeMutationRoot": false}, every member
 * optional. They apply to operations prepared afterwards on this handle.
 *
 * "storeMutationRoot": true brings back Apollo's storing of a mutation's root: the
 * record MUTATION_ROOT and the objects without a key below it, whose keys hold the root
 * fields' arguments (`MUTATION_ROOT.login(email:a@b,password:hunter2)`). By default
 * (false) they are not stored; see normcache_normalize.
 *
 * "documents" gives entity rules for plain JSON documents (normcache_put_document):
 * {"typeMember": "__typename", "prefixes": {"GET /articles": "ArticlePage"},
 * "types": {"ArticlePage": {"members": {"articles": "Article"}},
 * "Article": {"keyFields": ["id"], "members": {"author": "User"}}}}, every member
 * optional. An object's type is the string value of its typeMember member, else the
 * type of its position: for the document's top-level value (or each element of a
 * top-level list) the type of the longest prefix that starts the document key, for a
 * member of an object of type T the type types.T.members names (each element of a list
 * there alike). A typed object whose type has key fields (types.T.keyFields, else
 * typePolicies, else defaultKeyFields) and that has each of them as a string or a number
 * is an entity, keyed as a GraphQL object is (`Article:7`, a uniqueKeyGroup replacing
 * the type). These types need not be types of the schema and are not checked against it.
 *
 * The names are checked against the schema, with the checks normcache_load_schema gives
 * `@typePolicy` and `@fieldPolicy`: every type that typePolicies, fieldPolicies and
 * possibleTypes name must be a type of the schema, key fields fields of their type, a
 * field policy's field a field of its type, and its key arguments arguments of that
 * field. They are checked where both are known: here when a schema is loaded, else at
 * the next normcache_load_schema, which fails if they do not fit. Without a schema
 * nothing can be checked, and a misspelt name only keys nothing. A failed call adds
 * none of its rules. The message gives the byte offset of the policy or list at fault
 * and, for a name within two edits of a known one (ignoring case), the likely one:
 * "configuration error at byte 29: typePolicies names type 'Articel', which the schema
 * lacks (did you mean 'Article'?)", "key field 'uuid' of typePolicies.Article is not a
 * field of 'Article'", "fieldPolicies.Query.artcle names no field of 'Query'", "key
 * argument 'slug' of fieldPolicies.Query.article is not an argument of 'Query.article'".
 * On a handle whose rules are the file's saved rules, the first call replaces them all,
 * as normcache_load_schema does.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, an unknown member or a
 * value of the wrong type, with its byte offset; a policy that conflicts with one
 * inherited through the schema); NORMCACHE_ESCHEMA (with a schema loaded, a type, key
 * field, field or key argument the schema lacks, as above); NORMCACHE_EJSON.
 */
int normcache_configure(normcache *cache, const char *config_json, size_t config_len);

/* ---------------------------------------------------------------------------
 * Saved rules
 *
 * The rules a handle is given — the SDL of its last normcache_load_schema and every
 * normcache_configure JSON, in the order given — can be saved in the cache file, so
 * that every process, binding and tool that opens it keys records the same way without
 * loading them by hand. A handle opened on a file with saved rules takes them as its
 * own (normcache_open's "rules" option: "saved", the default), and normcache_prepare
 * works with no normcache_load_schema or normcache_configure. Its first
 * normcache_load_schema or normcache_configure replaces them all; a process that brings
 * its rules thus uses exactly its rules, and the same ones as the file when it brings
 * the same text in the same order. The key resolver (normcache_set_key_resolver) is
 * code: it is neither saved nor replaced.
 *
 * normcache_stats shows the fingerprint of the handle's rules ("rules_fingerprint") and
 * of the file's ("saved_rules_fingerprint"): 16 hexadecimal digits of a 64-bit hash of
 * the SDL and configuration bytes, equal exactly when the texts and their order are.
 * Under "rules": "strict", normcache_prepare and every write (normcache_put, remove,
 * write, execute, put_document, invalidate, ...; not normcache_save_rules or
 * normcache_clear_saved_rules) check in their transaction that the two are equal (no
 * rules and none saved are equal too), and otherwise fail with NORMCACHE_EINVAL and
 * "the rules of this handle (fingerprint <own or none>) differ from the rules saved in
 * '<path>' (fingerprint <saved or none>), and it was opened with "rules": "strict": give
 * it no rules of its own to use the saved ones, or save its rules in the file".
 *
 * Saved rules that are damaged make normcache_open fail with NORMCACHE_ENOTCACHE ("'<path>'
 * is damaged: its saved rules ...; open it with the option "rules": "own" to clear or
 * replace them"), as do saved rules that no longer load ("'<path>' has saved rules that do
 * not load: <the schema or configuration error>; ..."). Saved rules are an entry of
 * the file's meta database; the file's format version is the same with or without.
 * ------------------------------------------------------------------------- */

/**
 * normcache_save_rules — save this handle's rules in the cache file.
 *
 * Stores the SDL and configurations the handle was given (see "Saved rules") in the
 * file's meta database in one transaction, replacing any rules saved before. Handles
 * open already keep their rules; handles opened afterwards, in any process, take these.
 * Allowed under "rules": "strict" whatever the saved rules are: saving is how a file's
 * rules change. Thread-safe; it waits for other writers, as a write does.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, inherited handle, a
 * handle without rules: "this handle has no rules to save: load a schema or configure
 * rules first"); NORMCACHE_EREADONLY; NORMCACHE_ESTORAGE; NORMCACHE_ENOMEM.
 */
int normcache_save_rules(normcache *cache);

/**
 * normcache_clear_saved_rules — remove the rules saved in the cache file.
 *
 * One transaction. Open handles keep their rules; handles opened afterwards start with
 * none, as before any normcache_save_rules. Allowed under "rules": "strict".
 *
 * Returns NORMCACHE_OK; NORMCACHE_NOTFOUND (the file had no saved rules; nothing is
 * written); NORMCACHE_EINVAL (NULL or closed handle, inherited handle);
 * NORMCACHE_EREADONLY; NORMCACHE_ESTORAGE.
 */
int normcache_clear_saved_rules(normcache *cache);

/** One object of a response, as a key resolver sees it; valid only during the call. */
typedef struct normcache_object normcache_object;
/** Where a key resolver puts its answer, with normcache_key_set; valid only during the call. */
typedef struct normcache_key normcache_key;

/**
 * normcache_key_resolver — the programmatic key rule (Apollo's cacheKeyInfo).
 *
 * Called for every object a write or normalize meets, before the declarative rules,
 * with the object's typename (NUL-terminated; NULL and 0 when the response has no
 * __typename) and a view of the object: its members by name (normcache_object_member)
 * or listed in response order (normcache_object_member_count,
 * normcache_object_member_at). To give the object a key, call normcache_key_set; to
 * leave it to the other rules, don't. Return NORMCACHE_OK; any other value fails the
 * write (or normalize) with NORMCACHE_ECALLBACK, and nothing is written; a callback
 * that fails may say why with normcache_callback_error first. The callback runs on
 * the thread of the call and may call the library, reads and writes alike:
 * normalizing happens before the write takes its transaction. A callback that closes
 * the handle of the write it serves makes that write fail with NORMCACHE_EINVAL,
 * writing nothing.
 *
 * Threads: operations may be used from several threads at once, so one resolver may
 * run on several threads at the same time, and re-entrantly on one thread (when it
 * calls a write that meets another object); it must be safe for both.
 */
typedef int (*normcache_key_resolver)(void *context, const char *typename_, size_t typename_len,
                                      const normcache_object *object, normcache_key *key);

/**
 * normcache_set_key_resolver — set (or, with NULL, remove) the key resolver.
 *
 * `context` is passed to every call as it is. Operations prepared afterwards on this
 * handle use the resolver (and `context`), so both must stay valid as long as those
 * operations are used, even after the handle is closed; normcache_set_key_resolver_v2
 * tells the caller when that is over. Safe to call while other threads use the handle:
 * calls in progress and operations prepared before keep the resolver they had.
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, inherited handle).
 */
int normcache_set_key_resolver(normcache *cache, normcache_key_resolver resolver, void *context);

/** Releases a callback's context; the library calls it once, when it holds the context no more. */
typedef void (*normcache_destroy)(void *context);

/**
 * normcache_set_key_resolver_v2 — set (or remove) the key resolver, with a destructor
 * for its context (as sqlite3_create_function_v2's xDestroy).
 *
 * As normcache_set_key_resolver, and `destroy` (which may be NULL) is called with
 * `context` exactly once, when the library holds the resolver no more: after it is
 * replaced or removed, the handle is closed, and every operation prepared with it is
 * freed. It runs on the thread that drops the last hold (in normcache_op_free,
 * normcache_close, a later normcache_set_key_resolver*, or at the end of a call on
 * another thread that was still using a freed operation), outside the library's locks;
 * it must not use the handle or operation being released.
 * With a NULL `resolver`, nothing holds `context` and `destroy` is called before this
 * call returns; when this call fails, `destroy` is called before it returns too.
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, inherited handle).
 */
int normcache_set_key_resolver_v2(normcache *cache, normcache_key_resolver resolver, void *context,
                                  normcache_destroy destroy);

/**
 * normcache_callback_error — a failing callback's reason.
 *
 * Called by a callback the library is running (a key resolver, a fetch callback, a
 * clock), on the thread it runs on, before it returns a status other than NORMCACHE_OK:
 * the error message of the call that the callback fails (normcache_errmsg) then ends
 * with `message` instead of the returned status, e.g. "the key resolver failed at
 * feed.0: KeyError: 'uuid'". A clock has no status: a clock that gives a reason fails
 * the call whatever time it returns. The text
 * is copied; bytes that are not UTF-8 are replaced by U+FFFD. Calling it again replaces
 * the reason, and an empty message takes it back; a callback that returns NORMCACHE_OK
 * leaves no reason behind.
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (no callback of the library running on this
 * thread, or a NULL message with a non-zero length).
 */
int normcache_callback_error(const char *message, size_t message_len);

/**
 * normcache_object_member — a member of the object a key resolver is given, by name.
 *
 * On NORMCACHE_OK, *out_json points at the member's JSON text in the response (strings
 * with their quotes, objects and lists with their brackets), *out_len its length; the
 * text is not NUL-terminated and lives only until the resolver returns. `name` is the
 * member's decoded name (UTF-8 bytes, escapes resolved). A response that repeats a name
 * in one object (JSON allows it) gives the first; normcache_object_member_at lists
 * every one.
 *
 * `object` must be the one a resolver running on the calling thread was given (an
 * outer resolver's object stays usable while a write it makes runs another resolver);
 * any other pointer (an object kept past its call or passed to another thread, a
 * normcache_key) is refused without being read. The outputs are cleared to NULL/0 first.
 *
 * Returns NORMCACHE_OK; NORMCACHE_NOTFOUND (no such member); NORMCACHE_EINVAL (NULL
 * object or out-parameter, NULL name with a non-zero length, an object that is not one
 * of a resolver running on this thread).
 * Threads: on the resolver's own thread, during its call.
 */
int normcache_object_member(const normcache_object *object, const char *name, size_t name_len,
                            const char **out_json, size_t *out_len);

/**
 * normcache_object_member_count — how many members the object a key resolver is given
 * has, repeated names included: the indexes normcache_object_member_at takes are 0 to
 * *out_count - 1.
 *
 * *out_count is set to 0 first. `object` as for normcache_object_member.
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL object or out_count, an object that is
 * not one of a resolver running on this thread).
 * Threads: on the resolver's own thread, during its call.
 */
int normcache_object_member_count(const normcache_object *object, size_t *out_count);

/**
 * normcache_object_member_at — the member at `index` (0 is the first) of the object a
 * key resolver is given, in response order: to list the members.
 *
 * On NORMCACHE_OK, *out_name points at the member's name as JSON text in the response
 * (a string with its quotes, escapes as the response wrote them: "e\u00e9" stays so),
 * *out_name_len its length, and *out_json and *out_len at its value's JSON text, as
 * normcache_object_member gives it. The texts are not NUL-terminated and live only until
 * the resolver returns. A name that the response repeats in one object is listed at each
 * of its places (normcache_object_member finds the first). Finding a member walks the
 * ones before it, so listing an object of n members takes about n*n/2 steps: fine for
 * the objects of a response, not meant for thousands of members.
 *
 * All four outputs are cleared to NULL/0 first, and stay so unless NORMCACHE_OK.
 * `object` as for normcache_object_member.
 *
 * Returns NORMCACHE_OK; NORMCACHE_NOTFOUND (`index` is not below the member count, no
 * message); NORMCACHE_EINVAL (NULL object or out-parameter, an object that is not one of
 * a resolver running on this thread).
 * Threads: on the resolver's own thread, during its call.
 */
int normcache_object_member_at(const normcache_object *object, size_t index,
                               const char **out_name, size_t *out_name_len,
                               const char **out_json, size_t *out_len);

/**
 * normcache_key_set — a key resolver's answer: the object's key is `<group>:<id>`,
 * with `group` the typename when NULL/0. The strings are copied. Calling it again
 * replaces the answer. Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL key, empty id, text
 * that is not UTF-8).
 */
int normcache_key_set(normcache_key *key, const char *id, size_t id_len, const char *group, size_t group_len);

/**
 * normcache_prepare — parse, validate and compile an operation of a document.
 *
 * `operation_name` (length 0: the only operation of the document) picks the operation.
 * A document without operations prepares one of its fragments instead, for
 * normcache_read_fragment and normcache_write_fragment: the one `operation_name`
 * names, or its only fragment. The operation keeps the schema and rules of the handle
 * as they are now, and stays valid after the handle is closed. Release it with
 * normcache_op_free.
 *
 * The document is checked with or without a schema (unique names, known fragments, no
 * fragment cycles, defined variables); with a schema loaded, also against it: known
 * fields and arguments, possible type conditions, and every variable used where its
 * declared type is allowed (GraphQL's rule: `$n: String` passed to an `Int` argument
 * is "variable '$n' of type 'String' is used in a position expecting type 'Int'"; a
 * nullable variable fits a non-null argument only when the variable or the argument
 * has a default; lists fit level by level).
 *
 * Preparing takes time linear in the document's length (fragments are measured, not
 * inlined, before the depth is checked); a document past the handle's
 * "max_document_bytes" or "max_document_tokens" (normcache_open) is refused with
 * NORMCACHE_EDOCUMENT after at most one pass over it, and one whose selections nest
 * deeper than 512 levels once its fragments are inlined ("the operation nests deeper
 * than 512 levels once its fragments are inlined") before they are.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, NULL out_op; opened
 * with "rules": "strict", rules that differ from the file's saved rules: see "Saved
 * rules"); NORMCACHE_ENOTCACHE (under "strict", damaged saved rules);
 * NORMCACHE_EDOCUMENT (malformed or invalid document, unknown operation name, several
 * operations (or, without operations, several fragments) and no name; line and column
 * in the message; a document past a limit). *out_op is NULL on failure.
 */
int normcache_prepare(normcache *cache, const char *document, size_t document_len,
                      const char *operation_name, size_t name_len, normcache_op **out_op);

/**
 * normcache_op_document — the document to send to the server for an operation.
 *
 * The operation (and the fragments it uses) with `__typename` added to every selection
 * set but the root, and the key fields that the schema's type policies need.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or freed operation, NULL out-parameters).
 */
int normcache_op_document(normcache_op *op, char **out_document, size_t *out_len);

/**
 * normcache_op_free — release a prepared operation.
 *
 * NULL returns NORMCACHE_OK; a freed operation returns NORMCACHE_EINVAL. Calls using
 * the operation on other threads finish with it; when the operation held the last hold
 * on a key resolver set with normcache_set_key_resolver_v2, its destroy runs then.
 */
int normcache_op_free(normcache_op *op);

/**
 * normcache_normalize — the records of a response, without touching any cache.
 *
 * `response_json` is a GraphQL response ({"data": ..., "errors": ...}); `variables_json`
 * a JSON object or NULL/0. *out_records receives the records in the JSON notation
 * above ({} for a response without data): exactly the records normcache_write stores
 * for the same response (one code path makes both).
 *
 * A mutation's root fields are not stored: their storage keys hold the arguments a
 * mutation is sent with (a password, a card number) and their values what the server
 * answered to them (a token). A mutation's response gives the records of the entities
 * it returns (objects with a key, `User:1`) and of the objects without a key below them
 * (`User:1.profile`), but neither MUTATION_ROOT nor the objects without a key between
 * it and the first entity (`MUTATION_ROOT.login(email:a@b,password:hunter2)`), whose
 * keys start with the root's. The whole response is still checked as for a query. A
 * normcache_read of a mutation therefore answers NORMCACHE_MISS with its root fields
 * missing. "storeMutationRoot": true (normcache_configure) stores them as Apollo does.
 * A subscription's root, SUBSCRIPTION_ROOT, is stored as a query's QUERY_ROOT: its
 * arguments say what to listen to, and reading the last event back is its use.
 *
 * The response's top level holds only "data", "errors" and "extensions". "data" null
 * or absent beside "errors" (a request error, or a field error that nulled the root)
 * gives {} and is no error. Anything else there is NORMCACHE_EDATA: a response passed
 * without its envelope (the data object alone: "the response has no 'data' envelope:
 * its member 'feed' is a field of the operation; pass {"data": <this object>}"),
 * another member ("unexpected member 'result' at the top of the response: a GraphQL
 * response holds only 'data', 'errors' and 'extensions'"), or neither "data" nor
 * "errors". The variables must fit the operation: a variable it does not declare
 * ("variable '$frist' is not declared by operation 'Feed' (it declares: $first)"), a
 * non-null variable without a default that is missing, or a value of another type is
 * NORMCACHE_EINVAL.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or freed operation, NULL out-parameters,
 * a fragment instead of an operation, variables that do not fit the operation);
 * NORMCACHE_EJSON (malformed response or variables); NORMCACHE_EDATA (a response
 * without its envelope or with another top-level member, a selected field missing, a
 * null in a non-null position, a value of the wrong shape; the message names the
 * response path);
 * NORMCACHE_ECALLBACK (the key resolver failed; its reason in the message);
 * NORMCACHE_ENOMEM.
 */
int normcache_normalize(normcache_op *op, const char *variables_json, size_t variables_len,
                        const char *response_json, size_t response_len,
                        char **out_records, size_t *out_len);

/**
 * normcache_write_options, normcache_normalize_ex flag: refuse key fallbacks.
 *
 * A key fallback is an object of a type that a declarative key rule covers
 * (@typePolicy, one inherited from an interface, configure's typePolicies or
 * defaultKeyFields), which the key resolver, if any, gave no key, and which the rule
 * cannot key: a key field is absent from the object,
 * or null, a boolean, an object or a list, or the operation selects a key field's
 * response key for another field (an alias, or arguments). By default such an object
 * is keyed by its response path, as Apollo iOS does (`QUERY_ROOT.feed.2` rather than
 * `Article:7`), and the call counts it (normcache_normalize_ex, and key_fallbacks in
 * normcache_write_options). With this flag the first one fails the call with
 * NORMCACHE_EDATA, as Apollo Client does, and nothing is written; the message names the
 * object's response path, its type, the key fields it lacks (with what was found in
 * their place) and the path key it would have had:
 *
 *   invalid response data at feed.2: Article lacks its key field 'id'; strict keys
 *   refuse the fallback to its path key 'QUERY_ROOT.feed(first:3).2'
 *
 * The root object of a write or a fragment write is keyed by the call and never falls
 * back. Records given by key (normcache_put_ex) and documents have no key fallbacks.
 */
#define NORMCACHE_WRITE_STRICT_KEYS 1u

/**
 * normcache_normalize_ex — normcache_normalize, with the key fallbacks counted or refused.
 *
 * As normcache_normalize. `flags` is NORMCACHE_WRITE_STRICT_KEYS or 0: with it, a key
 * fallback fails the call with NORMCACHE_EDATA (see NORMCACHE_WRITE_STRICT_KEYS). When
 * `out_key_fallbacks` is not NULL it receives the number of objects keyed by their
 * path for want of their key fields, the number a write of the same response counts
 * (0 on any return but NORMCACHE_OK).
 *
 * Returns the codes of normcache_normalize, and NORMCACHE_EINVAL for unknown flags.
 */
int normcache_normalize_ex(normcache_op *op, const char *variables_json, size_t variables_len,
                           const char *response_json, size_t response_len, unsigned flags,
                           size_t *out_key_fallbacks, char **out_records, size_t *out_len);

/**
 * normcache_write — normalize a response and merge its records in one transaction.
 *
 * As normcache_normalize, then as normcache_put: *out_changed (when not NULL) receives
 * the changed fields. It stores exactly what normcache_normalize returns: of a
 * mutation, by default, the entities and not MUTATION_ROOT (see there). All or
 * nothing: the key resolver runs before the transaction begins, and any failure leaves
 * the cache as it was.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, NULL or freed
 * operation, a fragment instead of an operation, variables that do not fit the
 * operation); NORMCACHE_EJSON; NORMCACHE_EDATA; NORMCACHE_ECALLBACK (all three as
 * normcache_normalize); NORMCACHE_EREADONLY;
 * NORMCACHE_ENOTCACHE (damaged file); NORMCACHE_ESTORAGE; NORMCACHE_ENOMEM.
 */
int normcache_write(normcache *cache, normcache_op *op,
                    const char *variables_json, size_t variables_len,
                    const char *response_json, size_t response_len,
                    char **out_changed, size_t *out_len);

/** normcache_read flag: on a miss, return the data with the missing parts null. */
#define NORMCACHE_READ_PARTIAL 1u
/**
 * normcache_read_ex flag: count every field fresh, whatever its age or expiry (absent
 * data still misses): a re-read that must not send anyone to the network.
 */
#define NORMCACHE_READ_IGNORE_FRESHNESS 2u

/**
 * normcache_read — rebuild an operation's data from the cache.
 *
 * On NORMCACHE_OK *out_json receives the `data` object. On NORMCACHE_MISS it receives
 * {"data":null,"missing":[...]}: what the cache lacks, or holds too stale, in document
 * order, each entry an object:
 *
 *     {"path":["hero","friends",2],"reason":"absent","record":"Droid:2001"}
 *     {"path":["feed"],"reason":"absent","record":"QUERY_ROOT","field":"feed(first:3)"}
 *     {"path":["feed",0,"title"],"reason":"stale","record":"Article:7","field":"title",
 *      "writtenAt":1764000000,"expiredAt":1764001800}
 *
 * "path" is the response path (a missing record at the path of the reference to it);
 * "reason" is "absent" (not in the cache), "stale" (past its expiry; see Freshness
 * below) or "invalidated" (normcache_invalidate); "record" is the record the read
 * looked in (for an absent record, its key) and "field" the storage key of the field
 * it looked for (none for an absent record); a stale or invalidated field also gives
 * when it was written and when it expired, in seconds since 1970. With
 * NORMCACHE_READ_PARTIAL in `flags`, "data" holds the data with those parts null. A
 * stored null is data. A stale field is always a miss here: normcache_read_ex returns
 * stale data to a caller that allows it.
 *
 * Returns NORMCACHE_OK; NORMCACHE_MISS; NORMCACHE_EINVAL (NULL or closed handle or
 * operation, unknown flags, variables that do not fit the operation, as for
 * normcache_normalize); NORMCACHE_EJSON (malformed variables); NORMCACHE_EDATA (a
 * stored null in a non-null position); NORMCACHE_ENOTCACHE; NORMCACHE_ESTORAGE;
 * NORMCACHE_ENOMEM.
 */
int normcache_read(normcache *cache, normcache_op *op,
                   const char *variables_json, size_t variables_len, unsigned flags,
                   char **out_json, size_t *out_len);

/**
 * normcache_read_fragment — read one object at a record key through a fragment.
 *
 * Direct cache access, as Apollo's readFragment: `fragment` is prepared from a document
 * of fragments alone (`fragment F on Dog { name owner { id } }`; operation_name picks
 * one of several). Outputs and codes as normcache_read, for the object at `key`; a
 * record that is not there is one miss at the root of the data ({"data":null,
 * "missing":[{"path":[],"reason":"absent","record":"Dog:9"}]}, also with
 * NORMCACHE_READ_PARTIAL). Preparing an
 * operation and passing it here is NORMCACHE_EINVAL, as is the converse with
 * normcache_read.
 */
int normcache_read_fragment(normcache *cache, normcache_op *fragment, const char *key, size_t key_len,
                            const char *variables_json, size_t variables_len, unsigned flags,
                            char **out_json, size_t *out_len);

/**
 * normcache_write_fragment — write one object at a record key through a fragment.
 *
 * Direct cache access, as Apollo's writeFragment: `data_json` is the object the
 * fragment selects ({"name": "Rex", "owner": {"id": "7", "__typename": "User"}}); it is
 * normalized as the record `key` (objects below it keyed by the rules or by path from
 * `key`) and merged in one transaction. Outputs and codes as normcache_write; `data_json`
 * has no {"data": ...} envelope, and a fragment, which declares no variables, takes any.
 */
int normcache_write_fragment(normcache *cache, normcache_op *fragment, const char *key, size_t key_len,
                             const char *data_json, size_t data_len,
                             const char *variables_json, size_t variables_len,
                             char **out_changed, size_t *out_len);

/* ---------------------------------------------------------------------------
 * Freshness
 *
 * Every field a write stores carries the time it was written, and may carry the time
 * it expires. A read judges each field it uses when it uses it:
 *
 *     expiry = min(written-at + max age, the stored expiry)     (either may be absent)
 *
 * From its expiry on (now >= expiry) a field is stale. A stale field is a miss
 * ("reason":"stale"), unless the read allows max_stale seconds and the field expired
 * no more than max_stale seconds ago: then it is returned, the read answers
 * NORMCACHE_STALE and lists it. A field with neither a max age nor a stored expiry
 * never expires.
 *
 * The stored expiry comes from the write (normcache_write_ex, normcache_put_ex,
 * normcache_write_fragment_ex): the earliest of
 *   - now + max_age, when the call gives max_age;
 *   - the response's caching headers, per RFC 9111 for a private cache:
 *     Cache-Control: no-store stores nothing (NORMCACHE_NOTSTORED); no-cache, and
 *     max-age=0, store data that is stale at once; max-age=N with Age: A and Date: D
 *     stores now + N - max(A, now - D) (Age and Date absent: 0); without max-age,
 *     Expires: E stores now + (E - D) - max(A, now - D) (Date absent: E - A), and an
 *     Expires that is not a valid HTTP-date ("0") means already expired. Other
 *     directives (private, public, must-revalidate, s-maxage, stale-while-revalidate,
 *     extensions) are accepted and have no effect. A max-age above 2147483648 counts
 *     as 2147483648; two different max-age values make the data stale at once (RFC
 *     9111 4.2.1); an Age list counts by its first member. A malformed Cache-Control, Age or
 *     Date value is NORMCACHE_EINVAL naming the header and the byte.
 * or from normcache_invalidate, which sets it to now (unless the field expired
 * before) and marks the field "invalidated". Each field a write carries gets that
 * write's times (the other fields of the record keep theirs); a field written again
 * with the same value gets fresh times without being reported changed.
 *
 * The max age of a field comes from the rules in force when the field is read, so that
 * changing a rule changes freshness without rewriting data. Rules are written per
 * schema coordinate, in SDL (Apollo's `@cacheControl(maxAge: 60)` or
 * `@cacheControl(inheritMaxAge: true)` on a type or a field, Apollo Kotlin's
 * `extend type Query @cacheControlField(name: "feed", maxAge: 60)`) and in
 * normcache_configure ({"maxAges": {"Article": 1800, "Query.feed": 60,
 * "Article.author": "inherit"}, "defaultMaxAge": 3600}); a configured coordinate
 * replaces the schema's. The max age of a field f of type T on an object of type P,
 * reached through the field p (the "parent field"), is, as Apollo Kotlin's
 * SchemaCoordinatesMaxAgeProvider (mirroring Apollo Server) resolves it:
 *   1. the rule of "P.f" — P being the object's typename when the read knows it, else
 *      the declared type, then the interfaces of each, breadth first: its max age, or
 *      with "inherit" the max age of p;
 *   2. else the rule of "T" (then T's interfaces): its max age, or with "inherit" the
 *      max age of p;
 *   3. else, for a root field or a field of an object, union or interface type, the
 *      default max age ("defaultMaxAge"; none: never expires);
 *   4. else (a scalar or enum field below the root) the max age of p;
 * and then, except for a root field, the lower of that and the max age of p: a field
 * is never fresher than the path that reaches it. The root object's own max age is the
 * default. With no rule and no default at all, reads skip the age check (a field then
 * expires only by a stored expiry).
 *
 * Times are seconds since 1970 from the handle's clock: the system's, or one a test
 * sets (normcache_set_clock).
 * ------------------------------------------------------------------------- */

/** A clock: the time now in seconds since 1970 (normcache_set_clock). */
typedef int64_t (*normcache_clock)(void *context);

/**
 * normcache_set_clock — replace the handle's clock (a testing aid).
 *
 * Writes stamp fields with the clock's time and reads judge freshness by it, so a test
 * can read data "31 minutes later" without waiting. `clock` is called with `context`
 * once for each read or write a call makes (normcache_execute: once for its cache read
 * and once for the network's answer), outside every lock of the library, from the
 * thread making the call. `context` stays the caller's: it must stay valid while calls
 * on the handle may ask this clock, that is until the clock is replaced and the calls
 * in flight have returned, or the handle is closed. A clock that cannot answer says why with
 * normcache_callback_error (and returns anything): the call that asked for the time
 * fails with NORMCACHE_ECALLBACK, "the cache's clock failed: <reason>". A time below 0
 * fails it too. NULL brings back the system clock. The clock belongs to this handle:
 * other handles on the same file keep theirs.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle).
 */
int normcache_set_clock(normcache *cache, normcache_clock clock, void *context);

/**
 * How a write stores what it carries (normcache_write_ex, normcache_put_ex,
 * normcache_write_fragment_ex, normcache_put_document, a fetch's reply): the lifetime of
 * the fields it writes, and whether key fallbacks are refused.
 *
 * The struct grows at its end. `size` says how much of it the caller has: at least the
 * first version (up to expires_len; sizeof was 80 on LP64), which a caller built against
 * it passes and which is still taken, with flags 0 and no count. A member past `size`
 * is never read nor written.
 */
typedef struct normcache_write_options {
    /** sizeof(normcache_write_options): lets later versions add members. */
    size_t size;
    /** Seconds the written fields stay fresh (0: stale at once); -1: none. */
    int64_t max_age;
    /** The response's Cache-Control header value; NULL: absent. */
    const char *cache_control;
    size_t cache_control_len;
    /** The response's Age header value; NULL: absent. */
    const char *age;
    size_t age_len;
    /** The response's Date header value (an HTTP-date); NULL: absent. */
    const char *date;
    size_t date_len;
    /** The response's Expires header value (an HTTP-date); NULL: absent. */
    const char *expires;
    size_t expires_len;
    /**
     * NORMCACHE_WRITE_STRICT_KEYS or 0 (added after the first version). Documents have
     * no key fallbacks: normcache_put_document and normcache_execute_document accept
     * the flag and it changes nothing there.
     */
    unsigned flags;
    /**
     * When not NULL, receives the number of key fallbacks of the write (see
     * NORMCACHE_WRITE_STRICT_KEYS; added after the first version): set to 0 as soon as
     * `size` is checked, and to the count when the call returns NORMCACHE_OK (0 for
     * NORMCACHE_NOTSTORED and for normcache_put_ex). Only the write calls fill it;
     * normcache_put_document and a fetch's reply headers leave it at 0.
     */
    size_t *key_fallbacks;
    /**
     * The response's ETag header value ("v1" with its quotes, or W/"v1"); NULL: absent
     * (added after `key_fallbacks`). A document keeps it (normcache_put_document, a
     * fetch's reply for normcache_execute_document, normcache_refresh_document) and
     * normcache_get_document gives it back as "etag", so that a stale document can be
     * revalidated with If-None-Match; the other writes ignore it. A document's write
     * checks it as RFC 9110's entity-tag, at most 1024 bytes: a malformed one fails the
     * call with NORMCACHE_EINVAL ("malformed ETag 'v1': expected '"' at byte 0 ...") and
     * nothing is written.
     */
    const char *etag;
    size_t etag_len;
} normcache_write_options;

/** The largest max_age accepted: 2147483647 seconds (about 68 years, HTTP's own bound). */
#define NORMCACHE_MAX_AGE_LIMIT 2147483647

/**
 * normcache_write_ex — normcache_write with a lifetime for what it stores.
 *
 * As normcache_write; the fields the response carries get the expiry `options` gives
 * (see Freshness above). `options` NULL is normcache_write. With
 * `Cache-Control: no-store` nothing is written and nothing is normalized: the call
 * returns NORMCACHE_NOTSTORED and *out_changed (when not NULL) receives [].
 *
 * With NORMCACHE_WRITE_STRICT_KEYS in options->flags, a key fallback fails the call
 * with NORMCACHE_EDATA and nothing is written; without it, options->key_fallbacks (when
 * not NULL) receives their count.
 *
 * Returns NORMCACHE_OK; NORMCACHE_NOTSTORED; NORMCACHE_EINVAL (as normcache_write, and
 * options->size smaller than the first version of the struct, max_age below -1 or
 * above NORMCACHE_MAX_AGE_LIMIT, a malformed Cache-Control, Age or Date value, a
 * header given as NULL with a non-zero length or not UTF-8, unknown flags);
 * NORMCACHE_EDATA (also a key fallback under NORMCACHE_WRITE_STRICT_KEYS); the other
 * codes of normcache_write.
 */
int normcache_write_ex(normcache *cache, normcache_op *op,
                       const char *variables_json, size_t variables_len,
                       const char *response_json, size_t response_len,
                       const normcache_write_options *options,
                       char **out_changed, size_t *out_len);

/**
 * normcache_put_ex — normcache_put with a lifetime for what it stores.
 *
 * As normcache_put; the fields `records_json` gives get the time of the write and the
 * expiry `options` gives, as normcache_write_ex gives them (see Freshness above); the
 * other fields of the records it merges with keep their times. `options` NULL is
 * normcache_put. With `Cache-Control: no-store` nothing is written and nothing is
 * parsed: the call returns NORMCACHE_NOTSTORED and *out_changed (when not NULL)
 * receives []. NORMCACHE_WRITE_STRICT_KEYS changes nothing here (records come with
 * their keys), and options->key_fallbacks receives 0.
 *
 * Returns NORMCACHE_OK; NORMCACHE_NOTSTORED; the codes of normcache_put, and
 * NORMCACHE_EINVAL for bad options, as normcache_write_ex checks them.
 */
int normcache_put_ex(normcache *cache, const char *records_json, size_t records_len,
                     const normcache_write_options *options, char **out_changed, size_t *out_len);

/**
 * normcache_write_fragment_ex — normcache_write_fragment with a lifetime for what it
 * stores, and key fallbacks counted or refused.
 *
 * As normcache_write_fragment; the fields `data_json` carries (the object at `key` and
 * the records below it) get the expiry `options` gives, and options->flags and
 * options->key_fallbacks work as for normcache_write_ex (the object at `key` is keyed by
 * the call; the objects below it may fall back). `options` NULL is
 * normcache_write_fragment. With `Cache-Control: no-store` nothing is written and
 * nothing is normalized: NORMCACHE_NOTSTORED, *out_changed (when not NULL) [].
 *
 * Returns NORMCACHE_OK; NORMCACHE_NOTSTORED; the codes of normcache_write_fragment, and
 * NORMCACHE_EINVAL for bad options and NORMCACHE_EDATA for a key fallback under
 * NORMCACHE_WRITE_STRICT_KEYS, as normcache_write_ex gives them.
 */
int normcache_write_fragment_ex(normcache *cache, normcache_op *fragment, const char *key, size_t key_len,
                                const char *data_json, size_t data_len,
                                const char *variables_json, size_t variables_len,
                                const normcache_write_options *options,
                                char **out_changed, size_t *out_len);

/** How a read judges stale data (normcache_read_ex). */
typedef struct normcache_read_options {
    /** sizeof(normcache_read_options): lets later versions add members. */
    size_t size;
    /** NORMCACHE_READ_PARTIAL, NORMCACHE_READ_IGNORE_FRESHNESS, or 0. */
    unsigned flags;
    /** Seconds past its expiry a stale field may be and still be returned; -1: never. */
    int64_t max_stale;
} normcache_read_options;

/**
 * normcache_read_ex — read an operation (or a fragment at a key), stale data allowed,
 * with every part of the result.
 *
 * With `key` NULL/0, `op` is an operation read as normcache_read reads it; with a key,
 * `op` is a fragment read at that record as normcache_read_fragment reads it.
 * `options` NULL: partial off, stale fields are misses. *out_json always receives one
 * object:
 *
 *     {"data":{...}|null,"missing":[...],"stale":[...],
 *      "oldestWrittenAt":1764000000|null,"earliestExpiry":1764001800|null}
 *
 * "data" is the data (on NORMCACHE_MISS null, or with NORMCACHE_READ_PARTIAL the data
 * with the missing parts null); "missing" lists what the cache lacks or holds too
 * stale, as normcache_read does; "stale" lists the stale fields returned, entries of
 * the same form ("reason" "stale" or "invalidated", with "writtenAt" and
 * "expiredAt"); "oldestWrittenAt" is when the oldest field the read used was written
 * (a host shows "updated 12 minutes ago") and "earliestExpiry" the earliest time one
 * of them expires or expired (a host schedules its refresh there); null when the read
 * used no field, or no field it used ever expires.
 *
 * Returns NORMCACHE_OK (all the data, all fresh); NORMCACHE_STALE (all the data, some
 * stale within max_stale); NORMCACHE_MISS (something absent or too stale); the errors
 * of normcache_read, and NORMCACHE_EINVAL for NULL out_json or out_len,
 * options->size smaller than the first version of the struct, unknown flags or
 * max_stale below -1.
 */
int normcache_read_ex(normcache *cache, normcache_op *op, const char *key, size_t key_len,
                      const char *variables_json, size_t variables_len,
                      const normcache_read_options *options,
                      char **out_json, size_t *out_len);

/** normcache_invalidate flag: `key` is a prefix; every record whose key starts with it. */
#define NORMCACHE_INVALIDATE_PREFIX 1u

/**
 * normcache_invalidate — mark data stale without deleting it.
 *
 * As Relay's invalidateRecord and Apollo Client's INVALIDATE: the field `field` (its
 * storage key, exact bytes, as normcache_remove_field takes it) of the record `key`,
 * every field of the record when `field` is NULL/0, or with
 * NORMCACHE_INVALIDATE_PREFIX every field of every record whose key starts with `key`
 * (then `field` must be NULL/0), expires now. Reads then miss it with the reason
 * "invalidated", or return it stale to a read that allows max_stale; writing a field
 * again makes it fresh. A field that expired before keeps its earlier expiry. One
 * atomic transaction. When `out_count` is not NULL it receives the number of fields
 * marked.
 *
 * Returns NORMCACHE_OK when something was marked; NORMCACHE_NOTFOUND when nothing
 * matched (nothing is written); NORMCACHE_EINVAL (NULL or closed handle, a key or field
 * that is empty or not UTF-8, unknown flags, a field with the prefix flag);
 * NORMCACHE_EREADONLY; NORMCACHE_ENOTCACHE (a damaged record); NORMCACHE_ESTORAGE;
 * NORMCACHE_ENOMEM.
 */
int normcache_invalidate(normcache *cache, const char *key, size_t key_len,
                         const char *field, size_t field_len, unsigned flags,
                         uint64_t *out_count);

/* ---------------------------------------------------------------------------
 * Fetching: run an operation the way a client does
 *
 * normcache_execute reads the cache and calls the host's fetch callback as a fetch
 * policy says, writes what the network answers, and hands back results. Every policy
 * is two choices — when to read the cache (never, first, or only when the network
 * fails) and when to go to the network (never, always, on a miss, on a miss or stale
 * data) — and whether the answer is written:
 *
 *   policy                             cache read        network            writes
 *   NORMCACHE_CACHE_FIRST (default)    first             on a miss          yes
 *   NORMCACHE_CACHE_ONLY               first             never              -
 *   NORMCACHE_NETWORK_ONLY             never             always             yes
 *   NORMCACHE_NO_STORE                 never             always             no
 *   NORMCACHE_NETWORK_FIRST            on fetch failure  always             yes
 *   NORMCACHE_CACHE_AND_NETWORK        first             always             yes
 *   NORMCACHE_STALE_WHILE_REVALIDATE   first             on a miss or stale yes
 *
 * A cache read allows stale data within max_stale (a "miss" is absent data, or data
 * stale beyond it). A usable cached result (complete, or stale within max_stale) that
 * the network follows is handed on first. Mutations always go to the network (and are
 * written unless the policy is NORMCACHE_NO_STORE); subscriptions are refused.
 *
 * After a fetch the reply is normalized, written (unless the policy, or the reply's
 * Cache-Control: no-store, says not to) and read back in the same write transaction,
 * so a network result is exactly the user's selection: the fields the network document
 * added for the cache (__typename, key fields) are never in it. A result not written is
 * read back from a transaction that is then dropped; a mutation's root, which is not
 * stored (see normcache_normalize), is read back the same way. A network result counts
 * every field fresh, and its expiry follows the reply's headers (as normcache_write_ex).
 *
 * When the fetch fails (the callback reports an error: NORMCACHE_EFETCH), a usable
 * cached result — the one read before, or for NORMCACHE_NETWORK_FIRST one read then —
 * is the answer, with "fetchError" set to the callback's message; with none the call
 * returns NORMCACHE_EFETCH. A reply that cannot be written (not JSON, not a GraphQL
 * response, not the operation's shape, malformed caching headers) fails the call with
 * the code normcache_write would give, and nothing is written. A reply with GraphQL
 * "errors" follows the error policy: NORMCACHE_ERRORS_NONE (default) writes nothing and
 * fails with NORMCACHE_EGRAPHQL, naming the first error; NORMCACHE_ERRORS_IGNORE writes
 * and returns the data as if there were none; NORMCACHE_ERRORS_ALL writes and returns
 * the data with "errors" beside it. A reply whose "data" is null (or absent) beside
 * its errors writes nothing and gives a network result with "data" null and one
 * "missing" entry for the whole data ({"path":[],"reason":"absent","record":"QUERY_ROOT"}),
 * status NORMCACHE_MISS.
 *
 * A result is one JSON object:
 *
 *     {"source":"cache"|"network","data":{...}|null,"missing":[...],"stale":[...],
 *      "oldestWrittenAt":n|null,"earliestExpiry":n|null,"errors":[...]|null,
 *      "fetchError":"..."|null}
 *
 * "data", "missing", "stale" and the times as normcache_read_ex gives them (a network
 * result's "stale" is empty); "errors" the response's GraphQL errors under
 * NORMCACHE_ERRORS_ALL; "fetchError" the failed fetch's message when cached data
 * stands in for the network's. Its status is NORMCACHE_OK, NORMCACHE_STALE or
 * NORMCACHE_MISS, as the read's.
 * ------------------------------------------------------------------------- */

/** The fetch policies of normcache_execute (table above). */
typedef enum normcache_policy {
    NORMCACHE_CACHE_FIRST = 0,
    NORMCACHE_CACHE_ONLY = 1,
    NORMCACHE_NETWORK_ONLY = 2,
    NORMCACHE_NO_STORE = 3,
    NORMCACHE_NETWORK_FIRST = 4,
    NORMCACHE_CACHE_AND_NETWORK = 5,
    NORMCACHE_STALE_WHILE_REVALIDATE = 6
} normcache_policy;

/** What normcache_execute does with a response that carries GraphQL "errors" (Apollo's error policies). */
typedef enum normcache_error_policy {
    /** Write nothing; fail with NORMCACHE_EGRAPHQL. */
    NORMCACHE_ERRORS_NONE = 0,
    /** Write and return the data as if there were no errors. */
    NORMCACHE_ERRORS_IGNORE = 1,
    /** Write and return the data with the errors beside it. */
    NORMCACHE_ERRORS_ALL = 2
} normcache_error_policy;

/** How normcache_execute runs. */
typedef struct normcache_execute_options {
    /** sizeof(normcache_execute_options): lets later versions add members. */
    size_t size;
    /** A normcache_policy. */
    int policy;
    /** A normcache_error_policy. */
    int error_policy;
    /** Seconds past its expiry cached data may be and still be used; -1: never. */
    int64_t max_stale;
} normcache_execute_options;

/**
 * What normcache_execute asks of the network: the operation (document, name,
 * variables), or for normcache_execute_document the document's key (the host knows
 * what URL it stands for), the operation members then NULL/0. Valid during the fetch
 * callback only.
 */
typedef struct normcache_fetch_request {
    /** The network document (normcache_op_document): send this. */
    const char *document;
    size_t document_len;
    /** The operation's name; NULL/0 for an anonymous operation. */
    const char *operation_name;
    size_t operation_name_len;
    /** The variables as a JSON object ({} when none were given); NULL/0 for a document. */
    const char *variables_json;
    size_t variables_len;
    /** For normcache_execute_document, the document's key; NULL/0 for an operation. */
    const char *key;
    size_t key_len;
} normcache_fetch_request;

/** Where a fetch callback puts its answer; valid during the callback only. */
typedef struct normcache_fetch_reply normcache_fetch_reply;

/**
 * normcache_fetch_reply_set — answer a fetch with the response.
 *
 * `body` is the response body (a GraphQL response), copied. `headers`, when not NULL,
 * carries the response's Cache-Control, Age, Date and Expires values (and a max_age of
 * the host's), as normcache_write_ex takes them; they set the expiry of what is
 * written. Call it once, from the fetch callback, with the reply it was given.
 *
 * headers->flags apply to the reply's write: with NORMCACHE_WRITE_STRICT_KEYS a key
 * fallback in the reply fails the execute call with NORMCACHE_EDATA, and nothing is
 * written. headers->key_fallbacks is set to 0 and not filled: execute does not count.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (a reply that is not the one of a fetch
 * callback running on this thread, a reply already answered, a NULL body with a
 * non-zero length, headers->size too small, a max_age out of range, a header not
 * UTF-8 or unknown flags, as normcache_write_ex checks them). Malformed header values
 * fail the execute call when the reply is written.
 */
int normcache_fetch_reply_set(normcache_fetch_reply *reply, const char *body, size_t body_len,
                              const normcache_write_options *headers);

/**
 * normcache_fetch_reply_error — answer a fetch with a failure (the network is down,
 * the server answered 503).
 *
 * `message` (UTF-8; invalid bytes are replaced) says why; it becomes the call's
 * errmsg, or the result's "fetchError" when cached data stands in.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (as normcache_fetch_reply_set).
 */
int normcache_fetch_reply_error(normcache_fetch_reply *reply, const char *message, size_t message_len);

/**
 * A fetch callback: sends request->document with its variables and answers through
 * `reply` (normcache_fetch_reply_set or normcache_fetch_reply_error), then returns
 * NORMCACHE_OK. It runs on the calling thread, outside every lock and transaction of
 * the library, so it may use the cache (read, write, even execute). Returning anything
 * else is a failed fetch (NORMCACHE_EFETCH, its message the one given through
 * normcache_fetch_reply_error or normcache_callback_error, if any); returning
 * NORMCACHE_OK without an answer fails the call with NORMCACHE_ECALLBACK.
 */
typedef int (*normcache_fetch)(void *context, const normcache_fetch_request *request, normcache_fetch_reply *reply);

/**
 * A result callback: gets each result of normcache_execute as it comes (a cached one
 * first, for the policies that follow it with the network's), with its status.
 * `result_json` is valid during the call only, and is not followed by a NUL byte: use
 * `result_len`.
 */
typedef void (*normcache_result_callback)(void *context, int status, const char *result_json, size_t result_len);

/**
 * normcache_execute — run an operation under a fetch policy (see Fetching above).
 *
 * `options` NULL is cache-first, fresh data only, error policy none. `fetch` is called
 * with `fetch_context` when the policy goes to the network (it may be NULL: a call that
 * then needs the network fails with NORMCACHE_EINVAL, "fetch is NULL, but the call goes
 * to the network"); `on_result`, when not NULL, is called with `result_context`
 * and every result as it comes. *out_json (when out_json is not NULL) receives the last
 * result, which is also the last one on_result got.
 *
 * Returns the last result's status: NORMCACHE_OK, NORMCACHE_STALE or NORMCACHE_MISS;
 * NORMCACHE_EFETCH (the fetch failed and no cached data stands in; the message is the
 * callback's); NORMCACHE_EGRAPHQL; NORMCACHE_ECALLBACK (the fetch callback returned
 * without an answer); NORMCACHE_EINVAL (NULL or closed handle, NULL or freed
 * operation, a fragment or a subscription, options->size too small, an unknown policy
 * or error policy, max_stale below -1, a NULL fetch when the call goes to the network,
 * variables that do not fit the operation); and the codes of normcache_write_ex for a
 * reply that cannot be written. On any error nothing is written by the call (writes
 * the callbacks made themselves stay).
 */
int normcache_execute(normcache *cache, normcache_op *op, const char *variables_json, size_t variables_len,
                      const normcache_execute_options *options,
                      normcache_fetch fetch, void *fetch_context,
                      normcache_result_callback on_result, void *result_context,
                      char **out_json, size_t *out_len);

/* ---------------------------------------------------------------------------
 * Plain JSON documents (REST)
 *
 * Any JSON value can be stored under a key of the caller's choosing
 * ("GET /articles?page=1") with a lifetime, and got back whole, as written (numbers
 * keep their digits, members their order), with its freshness. A document is a record
 * with one field, "$document", holding the text (and "$etag" when its write gave an
 * ETag; "$shape" when stored with entities): it is listed (normcache_search),
 * removed (normcache_remove, normcache_remove_prefix) and invalidated
 * (normcache_invalidate) by key or prefix like any record. Max-age rules do not apply
 * to documents; their lifetime is the one their write gives.
 * ------------------------------------------------------------------------- */

/**
 * normcache_put_document — store a JSON value as the document `key`.
 *
 * `json` is checked and kept as written; a document already there is replaced in one
 * transaction. `options` (NULL: no lifetime, the document never expires) gives its
 * expiry as for normcache_write_ex: max_age, Cache-Control, Age, Date, Expires.
 *
 * When the entity rules (normcache_configure's "documents") find entities in it, each
 * entity's members are merged as fields into its record (`Article:7`), as a GraphQL
 * write merges an object, in the same transaction and with the same expiry, entities
 * inside entities stored as references; the document keeps a reference in each
 * entity's place and the members each entity had ("$document" and "$shape" fields, as
 * normcache_get shows them). A write of the same entity through another document, an
 * operation or normcache_put then reads back in this document too. An entity keyed as
 * this document or as another stored document, and an entity with an empty member name,
 * fail the call with NORMCACHE_EINVAL ("the entity 'T:1' of the document 'GET /t' has
 * the key of a document") and nothing is written.
 *
 * Returns NORMCACHE_OK; NORMCACHE_NOTSTORED (Cache-Control: no-store; nothing written);
 * NORMCACHE_EINVAL (NULL or closed handle, a key that is empty or not UTF-8, a record of
 * fields under `key` — "'Article:7' is a record of fields, not a document" —, bad
 * options as for normcache_write_ex); NORMCACHE_EJSON (json malformed);
 * NORMCACHE_EREADONLY; NORMCACHE_ENOTCACHE; NORMCACHE_ESTORAGE; NORMCACHE_ENOMEM.
 */
int normcache_put_document(normcache *cache, const char *key, size_t key_len,
                           const char *json, size_t json_len, const normcache_write_options *options);

/**
 * normcache_get_document — the document `key`, with its freshness.
 *
 * *out_json receives the object normcache_read_ex gives, "data" being the document as
 * written (a document stored with entities: as compact JSON, each entity with the
 * members the document gave entities at its place — the elements of a list share the
 * union of theirs — and the values its record holds now; a member its record lacks,
 * or whose value holds an entity where the document had none, is left out): {"data":<document>|null,"missing":[...],"stale":[...],
 * "oldestWrittenAt":n,"earliestExpiry":n|null}, and "etag":"<entity-tag>" last when
 * the document was stored with one (options->etag), stale or not. An absent document is one "missing"
 * entry {"path":[],"reason":"absent","record":"<key>"}; a stale one names "stale" or
 * "invalidated" with "writtenAt" and "expiredAt". Of a document stored with entities,
 * every entity field it uses is judged as well and reported at its path in the
 * document, with its record and member name ("field"); an entity whose record is gone
 * is an "absent" entry at its path with no "field". `options` as for normcache_read_ex
 * (max_stale; NORMCACHE_READ_PARTIAL returns a too-stale document's text in "data").
 *
 * Returns NORMCACHE_OK; NORMCACHE_STALE; NORMCACHE_MISS; NORMCACHE_EINVAL (NULL or
 * closed handle, NULL out_json or out_len, a key empty or not UTF-8, a record of fields under `key`, bad
 * options); NORMCACHE_ENOTCACHE; NORMCACHE_ESTORAGE; NORMCACHE_ENOMEM.
 */
int normcache_get_document(normcache *cache, const char *key, size_t key_len,
                           const normcache_read_options *options, char **out_json, size_t *out_len);

/**
 * normcache_execute_document — run a fetch policy for the document `key`.
 *
 * As normcache_execute, for a document: the fetch callback is asked with request->key
 * set and answers the body with its caching headers (or a max_age of the host's), which
 * is stored as normcache_put_document stores it, per the policy (with the headers'
 * etag, which a result then gives as "etag"; see normcache_refresh_document). The classic REST flow —
 * "show the articles from the cache while they are younger than 30 minutes, else call
 * the API and keep the answer" — is NORMCACHE_CACHE_FIRST with the reply's headers
 * carrying max_age 1800 (or the server's Cache-Control: max-age=1800). A network
 * result's "data" is the body as it came. A record of fields under `key` is refused
 * (NORMCACHE_EINVAL) before the fetch is asked. A body that is not JSON fails the call with
 * NORMCACHE_EJSON and nothing is written; options->error_policy does not apply.
 */
int normcache_execute_document(normcache *cache, const char *key, size_t key_len,
                               const normcache_execute_options *options,
                               normcache_fetch fetch, void *fetch_context,
                               normcache_result_callback on_result, void *result_context,
                               char **out_json, size_t *out_len);

/**
 * normcache_refresh_document — renew a stored document's freshness after a 304.
 *
 * Revalidation: the host sends the request again with If-None-Match: <the "etag" that
 * normcache_get_document gave>; a 304 Not Modified answer says the stored document is
 * still the server's. This call then gives the document the lifetime the 304's headers
 * give (`options`: Cache-Control, Age, Date, Expires, max_age, exactly as for
 * normcache_put_document), as if it had been written again now — its written-at time
 * becomes now and an invalidation is lifted — without rewriting its body, in one
 * transaction. options->etag, when given, replaces the stored entity-tag; otherwise the
 * stored one stays. `options` NULL gives no lifetime (the document never expires).
 *
 * A document stored with entities is re-stamped whole: every entity field that the
 * document's own write stamped (its written-at time is the document's) gets the new
 * times too, entities inside entities alike; a field written since by anything else (an
 * operation, normcache_put, another document) keeps its own times.
 *
 * normcache_execute_document does not revalidate by itself (its fetch callback is not
 * given the entity-tag): a host that revalidates reads the document, sends the request
 * with If-None-Match, and calls this on a 304 or normcache_put_document on a 200.
 *
 * Returns NORMCACHE_OK; NORMCACHE_MISS (no document under `key`: nothing written, the
 * host fetches it whole); NORMCACHE_NOTSTORED (Cache-Control: no-store; nothing
 * changed); NORMCACHE_EINVAL (NULL or closed handle, a key empty or not UTF-8, a record of
 * fields under `key`, bad options as for normcache_put_document);
 * NORMCACHE_EREADONLY; NORMCACHE_ENOTCACHE; NORMCACHE_ESTORAGE; NORMCACHE_ENOMEM.
 */
int normcache_refresh_document(normcache *cache, const char *key, size_t key_len,
                               const normcache_write_options *options);

/* ---------------------------------------------------------------------------
 * Apollo caches
 *
 * Records move between normcache and Apollo's caches in one call each way; the
 * translation lives here, so every binding and the command line share it. What maps
 * to what, and what cannot be carried over, is in docs/apollo-interchange.md.
 * ------------------------------------------------------------------------- */

/** Apollo Client's cache.extract() JSON: {"ROOT_QUERY":{"hero({\"episode\":\"JEDI\"})":{"__ref":"Droid:2001"}},...}. */
#define NORMCACHE_FORMAT_APOLLO_CLIENT 1
/**
 * Apollo iOS's SQLite cache, the rows of its `records` table as a JSON object of record
 * key to the record's text: {"QUERY_ROOT":"{\"hero(episode:JEDI)\":{\"$reference\":\"Droid:2001\"}}"}.
 * Reading and writing the SQLite file itself is the caller's (the Python package and
 * the command line do it).
 */
#define NORMCACHE_FORMAT_APOLLO_IOS 2

/**
 * normcache_import — merge the records of an Apollo cache into the cache.
 *
 * `data` is in `format` (NORMCACHE_FORMAT_*). For Apollo Client: ROOT_QUERY,
 * ROOT_MUTATION and ROOT_SUBSCRIPTION become QUERY_ROOT, MUTATION_ROOT and
 * SUBSCRIPTION_ROOT; {"__ref":k} becomes {"$reference":k}; a field key
 * name({"arg":value,...}) becomes name(arg:value,...) as normcache writes it; an
 * inline object with "__typename" becomes the record normcache keys by its path
 * (QUERY_ROOT.stats) and the field refers to it; __META is left out; any other field
 * key is kept as it is. For Apollo iOS each record's text is put as it is.
 *
 * The records are merged as normcache_put merges them, in one atomic, durable
 * transaction; `out_changed` and `out_len` as for normcache_put (both may be NULL).
 * All or nothing: malformed data, or a reference to a record `data` does not hold,
 * writes nothing.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, an unknown format, NULL
 * data with a non-zero length, an empty record key or field name); NORMCACHE_EJSON
 * (malformed JSON, a record that is not an object, an Apollo iOS record whose text is
 * not a JSON object, a malformed __ref; the message names the record, the field and the
 * byte offset); NORMCACHE_EDATA (a reference to a record `data` does not hold: "apollo-client
 * import: field 'hero' of record 'ROOT_QUERY' refers to 'Droid:9', which the file does
 * not hold; nothing was imported"); the codes of normcache_put.
 */
int normcache_import(normcache *cache, int format, const char *data, size_t data_len,
                     char **out_changed, size_t *out_len);

/**
 * normcache_export — every record of the cache, as of one moment, in an Apollo format.
 *
 * On NORMCACHE_OK *out_json receives the records in `format` (NORMCACHE_FORMAT_*), to
 * be released with normcache_free; records in key order. For Apollo Client a record keyed by its path
 * from the record that refers to it (QUERY_ROOT.stats, referred to by QUERY_ROOT's
 * field stats) is written inline there, and the other translations of normcache_import
 * are made backwards. Argument values are typed by the cache's schema when it has one (a
 * String, ID or enum value as a JSON string); where it does not say, a value that reads as
 * a number, true, false or null is written as that JSON literal. On failure *out_json is NULL.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, an unknown format, NULL
 * out_json or out_len); NORMCACHE_ENOTCACHE (a damaged record); NORMCACHE_ESTORAGE;
 * NORMCACHE_ENOMEM.
 */
int normcache_export(normcache *cache, int format, char **out_json, size_t *out_len);

/* ---------------------------------------------------------------------------
 * Watchers and the commit log
 *
 * Every commit that changes data notes what it changed — the fields of stored records
 * ("Post:1.title"), whole records created, replaced or removed, key prefixes removed, or
 * "everything" (normcache_clear, or a commit too large to list) — and keeps that, in the
 * same transaction as the data, in a bounded log inside the cache file: the last 1024
 * commits that changed data, and at most 16 MiB of pages of them (a single commit of
 * more than 4 MiB of keys is logged as "everything"). A commit that takes the log past a
 * bound trims it at once to 7/8 of both (896 commits, 14 MiB), so that the commits
 * between two trims write their entry and nothing more. Writes, puts, fragment writes,
 * documents, removes of records, fields and prefixes, clear, invalidation and document
 * refreshes all note their changes the same way. Commits are numbered by LMDB's
 * transaction id, which every process sees and which only grows; a commit that changes
 * nothing (a rewrite of the same values) is not logged and wakes no watcher.
 *
 * A watcher holds an operation (or a fragment at a record key) with its variables and
 * a callback. It reads at once, noting what the read used: each record it looked for
 * (found or not) and each field it looked up (present or not). After a commit that
 * changes one of those — found through an index from what reads used to watchers, not
 * a scan of all watchers — it reads again and calls the callback when the result
 * differs from the last one it got. Watchers' reads never miss for age: stale data is
 * returned (NORMCACHE_STALE) and listed in "stale"; "earliestExpiry" says when the
 * data starts to go stale, for the host to refresh on its own timer. A watcher never
 * fetches.
 *
 * Commits made in this process (through any handle on the same file) reach the
 * watchers of every handle of the file by themselves, after the commit. Commits made
 * by other processes reach them when normcache_dispatch_changes is called: a process
 * that wants them waits with normcache_wait_commit (or polls normcache_last_commit on
 * its own timer) and then dispatches. A process that has fallen behind the log (more
 * commits than it keeps: 896 to 1024, fewer when they are large; or a commit it cannot
 * read) reads every watcher again: correct, only slower.
 *
 * Callbacks of one file run one at a time, with no lock of the library held: on the
 * thread whose commit, normcache_watch or normcache_dispatch_changes finds no delivery
 * in progress; that thread also delivers what other threads' commits queue meanwhile.
 * A callback may read, write (its own commit is delivered after it returns), start
 * watchers and stop them, itself included. A callback that blocks delays every
 * delivery of the file in this process, never a write.
 * ------------------------------------------------------------------------- */

/** A watcher, made by normcache_watch and ended by normcache_unwatch. */
typedef struct normcache_watcher normcache_watcher;

/**
 * A watcher's callback: gets each new result of the watched read, with its status.
 * On NORMCACHE_OK, NORMCACHE_STALE or NORMCACHE_MISS, `result_json` is the whole
 * result as normcache_read_ex gives it: {"data": <data, partial on a miss>,
 * "missing": [...], "stale": [...], "oldestWrittenAt": <s>|null, "earliestExpiry":
 * <s>|null}. When the read failed (a damaged record, out of memory), `status` is
 * that error's code, `result_json` is NULL and `result_len` 0, and normcache_errmsg
 * gives the message during the call. `result_json` is valid during the call only and
 * not followed by a NUL byte: use `result_len`.
 */
typedef void (*normcache_watch_callback)(void *context, int status, const char *result_json, size_t result_len);

/**
 * normcache_watch — watch an operation's data (or a fragment's at a record key).
 *
 * `op` is an operation (key NULL/0) or a fragment (key the record to read it at);
 * `variables_json` as for normcache_read. `callback` is called with `context` with the
 * current result at once (before this returns, unless another thread is delivering),
 * then with every different result after commits that change what the last read used
 * (see the section above). The watcher keeps its own reference to the operation:
 * normcache_op_free may be called right after.
 *
 * On success *out_watcher receives the watcher, to be ended with normcache_unwatch;
 * on failure it is set to NULL and the callback is never called.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, NULL or freed
 * operation, NULL callback or out_watcher, a fragment without a key, an operation with
 * one, an empty key, variables that do not fit the operation); NORMCACHE_EJSON
 * (variables not JSON); NORMCACHE_ENOMEM.
 */
int normcache_watch(normcache *cache, normcache_op *op, const char *variables_json, size_t variables_len,
                    const char *key, size_t key_len, normcache_watch_callback callback, void *context,
                    normcache_watcher **out_watcher);

/**
 * normcache_unwatch — end a watcher and release it.
 *
 * After it returns the callback is not called again, except that a call of the
 * watcher's own callback in progress on this thread (normcache_unwatch from inside it)
 * returns as usual. Safe from any thread and from inside any callback. Closing the
 * cache handle ends its watchers too (they are called no more), but each must still be
 * released with normcache_unwatch. NULL is allowed and returns NORMCACHE_OK.
 * In a child process after fork(), a watcher of the parent is released without
 * touching the parent's state.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (a watcher already released or never made).
 */
int normcache_unwatch(normcache_watcher *watcher);

/**
 * normcache_last_commit — the id of the newest commit to the cache file, by any process.
 *
 * The newest commit a read begun now sees. Ids only grow; a commit of any process
 * makes it larger. Cheap: the begin and end of a read transaction (about a
 * microsecond, no system call).
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, NULL out_commit).
 */
int normcache_last_commit(normcache *cache, uint64_t *out_commit);

/**
 * normcache_changes_since — what the commits after `commit` changed, from the log.
 *
 * *out_json receives {"through": <the newest commit>, "complete": <bool>,
 * "commits": [{"commit": <id>, "fields": ["Post:1.title", ...], "records":
 * ["Post:2", ...], "prefixes": ["Comment:", ...], "all": <bool>}, ...]}, oldest first,
 * only commits that changed data: "fields" the fields changed in records that were
 * stored before, "records" those created, replaced or removed as a whole (every field
 * may have changed), "prefixes" the key prefixes removed. "complete" is false when the log no longer reaches
 * back to `commit` (or the file has no log: one opened read-only before any writer of
 * this version): anything may have changed. "all" is true for a clear, or a commit too
 * large to list. Release it with normcache_free; on failure *out_json is NULL.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, NULL out_json or
 * out_len); NORMCACHE_ENOTCACHE (a damaged log entry); NORMCACHE_ESTORAGE;
 * NORMCACHE_ENOMEM.
 */
int normcache_changes_since(normcache *cache, uint64_t commit, char **out_json, size_t *out_len);

/**
 * normcache_trim — evict the least recently written records down to a size.
 *
 * Removes whole records, oldest first (a record's age is the newest written-at time of
 * its fields), until the cache's data ("data_bytes" of normcache_stats: the pages the
 * records and the meta database hold) is at most `max_bytes`, or only the root records
 * (QUERY_ROOT, MUTATION_ROOT, SUBSCRIPTION_ROOT) and retained keys (normcache_retain)
 * are left, in one write transaction: a
 * process killed during it leaves all of it or nothing. Evicted records are simply
 * gone; reads that need them miss. Each eviction is a removal in the commit log
 * (normcache_changes_since lists the keys under "records") and wakes the watchers
 * that depend on it. It holds the file's single writer lock while it runs: it walks
 * the records twice per round (reads are not held up). `max_bytes` 0 evicts every
 * record but the roots and the retained keys.
 *
 * On success *out_json receives a report, to be freed with normcache_free:
 * {"records": <evicted>, "bytes": <their key, record and entry bytes>,
 *  "data_bytes_before": <bytes>, "data_bytes_after": <bytes>,
 *  "groups": {"User:": 2, "QUERY_ROOT": 1}} — records evicted per key group (a key's
 * text through its first ':', or up to a '.' that comes first). *out_len receives its
 * length. On failure *out_json is NULL and nothing is evicted.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed cache, NULL out_json or out_len,
 * max_bytes negative); NORMCACHE_EREADONLY; NORMCACHE_ESTORAGE; NORMCACHE_ENOTCACHE
 * (a damaged record).
 */
int normcache_trim(normcache *cache, int64_t max_bytes, char **out_json, size_t *out_len);

/**
 * normcache_wait_commit — wait for a commit newer than `after`, by any process.
 *
 * Returns at once when the file already has one. Otherwise it polls
 * normcache_last_commit — every 0.1 ms at first, backing off to every 5 ms — until one
 * lands or `timeout_ms` pass (0: look once). LMDB offers no commit notification that
 * other processes can wait on portably (its lock file's memory layout is private, and
 * a FIFO or futex beside it would be a second protocol every writer must follow), and
 * a poll costs no system call, so a commit is seen within about 5 ms, at the cost of
 * at most 200 wake-ups a second while waiting. normcache_interrupt stops it. *out_commit (when out_commit is
 * not NULL) receives the newest commit's id, also on a timeout.
 *
 * Returns NORMCACHE_OK (a newer commit exists); NORMCACHE_TIMEOUT; NORMCACHE_INTERRUPTED;
 * NORMCACHE_EINVAL (NULL or closed handle, a negative timeout).
 */
int normcache_wait_commit(normcache *cache, uint64_t after, int timeout_ms, uint64_t *out_commit);

/**
 * normcache_dispatch_changes — hand other processes' commits to this process's watchers.
 *
 * Reads the log for the commits made since the watchers of the file in this process
 * last heard, wakes the watchers they touch, and delivers their new results (on this
 * thread, unless another thread is delivering). This process's own commits need no
 * dispatch. *out_commit (when not NULL) receives the newest commit now handed over.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle).
 */
int normcache_dispatch_changes(normcache *cache, uint64_t *out_commit);

/* ---------------------------------------------------------------------------
 * Garbage collection and retain counts
 *
 * normcache_gc removes the records no root reaches. The roots are QUERY_ROOT,
 * MUTATION_ROOT, SUBSCRIPTION_ROOT, every plain JSON document (normcache_put_document;
 * the entities its skeleton refers to are reached through it) and every key retained
 * with normcache_retain; a record reaches the records its field values refer to
 * ({"$reference": ...}, in lists and nested values too). Asked to, it also removes the
 * fields stale beyond a grace period and the fields holding a dangling reference, and
 * the records left without fields.
 *
 * It never loads the store into memory: one pass over the records in key order finds
 * the roots and marks, depth first, the 64-bit hashes of the keys they reach (8 bytes a
 * key in a table at most half full, plus the keys still to visit); a second pass
 * removes and edits. Both run in ONE write transaction: readers of every process never
 * wait for it and see the cache before or after it, never between; writers of every
 * process wait until it commits, for about its "elapsed_us" (measured: 1M records,
 * half unreachable, see docs/performance.md). Two keys of the same hash can only keep
 * garbage: a record kept for a hash that the walk visited under another key makes the
 * collection start again with another hash seed, and after three such attempts it
 * fails with NORMCACHE_ESTORAGE, removing nothing. A process killed in the middle
 * leaves nothing half-done: the transaction was never committed.
 *
 * Every removal is noted like any write's: records removed appear under "records" in
 * normcache_changes_since, fields removed under "fields", and the watchers that used
 * them are woken.
 * ------------------------------------------------------------------------- */

/** normcache_gc_options.flags: report what would be removed, write nothing (a read transaction). */
#define NORMCACHE_GC_DRY_RUN 1u
/**
 * normcache_gc_options.flags: remove every field of a reachable record whose value holds
 * a reference to a record that is absent (or that this collection leaves without
 * fields). The whole field goes, as in Apollo Kotlin: a list holding one dangling
 * reference is removed with its other elements, and a later read misses the field. A
 * record left without fields is removed; references to it dangle until the next run.
 */
#define NORMCACHE_GC_DANGLING 2u

/**
 * What normcache_gc removes besides unreachable records.
 *
 * The struct grows at its end. `size` says how much of it the caller has (at least
 * sizeof of this first version); a member past `size` is never read.
 */
typedef struct normcache_gc_options {
    /** sizeof(normcache_gc_options): lets later versions add members. */
    size_t size;
    /** NORMCACHE_GC_DRY_RUN, NORMCACHE_GC_DANGLING, or 0. */
    unsigned flags;
    /**
     * Seconds: remove every field whose stored expiry (from its write's max-age or
     * Cache-Control, or from normcache_invalidate) lies at least this long in the past
     * by the handle's clock (expiry + stale_grace <= now). Max-age rules (configure,
     * @cacheControl) are not applied: reads apply them, and can override them. -1: keep
     * stale fields.
     */
    int64_t stale_grace;
} normcache_gc_options;

/**
 * normcache_gc — remove unreachable records (and, as `options` ask, stale and dangling
 * fields) in one write transaction.
 *
 * `options` NULL: unreachable records only. *out_json receives the report, one object
 * with members in this order:
 *
 *     {"dry_run":false,"removed_records":2,"unreachable_records":2,"emptied_records":0,
 *      "removed_fields":1,"stale_fields":1,"dangling_fields":0,"kept_records":3,
 *      "groups":{"Book:":{"records":2,"fields":1}},"mark_set_bytes":32768,"elapsed_us":120}
 *
 * "removed_records" = "unreachable_records" (no root reaches them) + "emptied_records"
 * (reachable, every field removed); "removed_fields" = "stale_fields" +
 * "dangling_fields", the fields removed from reachable records (emptied ones
 * included); "kept_records" the records left; "groups" the removals per key group (as
 * normcache_key_groups names them), groups without removals left out, in byte order;
 * "mark_set_bytes" the mark table's size; "elapsed_us" the time taken, in microseconds.
 * A dry run reports the same figures and writes nothing. Release it with normcache_free;
 * on failure *out_json is NULL.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, NULL out_json or
 * out_len, options->size below sizeof, an unknown flag, stale_grace below -1);
 * NORMCACHE_EREADONLY (not for a dry run); NORMCACHE_ENOTCACHE (a damaged record);
 * NORMCACHE_ESTORAGE; NORMCACHE_ENOMEM; NORMCACHE_ECALLBACK (the handle's clock failed).
 */
int normcache_gc(normcache *cache, const normcache_gc_options *options, char **out_json, size_t *out_len);

/**
 * normcache_retain — retain a record key: a root of normcache_gc until released as often.
 *
 * The count is kept in the cache file (shared by every handle and process, kept across
 * reopens); the key need not name a record yet. *out_count (when not NULL) receives the
 * new count.
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, a key that is empty,
 * not UTF-8 or longer than 504 bytes, a count already at UINT32_MAX);
 * NORMCACHE_EREADONLY; NORMCACHE_ESTORAGE.
 */
int normcache_retain(normcache *cache, const char *key, size_t key_len, uint32_t *out_count);

/**
 * normcache_release — release a retained key once.
 *
 * *out_count (when not NULL) receives the count left; at 0 the key is no longer a root.
 * A key not retained is refused, never taken below zero: NORMCACHE_EINVAL with the
 * message "'KEY' is not retained".
 *
 * Returns NORMCACHE_OK; NORMCACHE_EINVAL (NULL or closed handle, a bad key as for
 * normcache_retain, a key not retained); NORMCACHE_EREADONLY; NORMCACHE_ESTORAGE.
 */
int normcache_release(normcache *cache, const char *key, size_t key_len, uint32_t *out_count);

#ifdef __cplusplus
}
#endif

#endif /* NORMCACHE_H */
