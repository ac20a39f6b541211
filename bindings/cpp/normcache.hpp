/*
 * normcache.hpp — the C++17 binding of normcache, header-only, over include/normcache.h.
 *
 * One move-only RAII class, NormCache::Cache, wraps an open cache handle, and another,
 * NormCache::Operation, a prepared GraphQL operation; strings go in as
 * std::string_view (any bytes, no NUL needed) and come out as std::string.
 * Every failure of the C interface becomes an exception derived from
 * NormCache::Error, carrying the status code and the library's message; the mapping
 * from codes to exception types lives in one place, detail::throw_error.
 *
 * The Python binding (bindings/python) speaks the same vocabulary: the same exception
 * names (InvalidArgumentError, ClosedError, JSONError, DocumentError, SchemaError,
 * DataError, StorageError, CallbackError, OutOfMemoryError, NotACacheError,
 * ReadOnlyError, Interrupted) and the same argument order: the operation, then the response (or the
 * key and the data), then the variables, which are optional and so come last —
 * write(op, response, variables), normalize(op, response, variables), read(op, variables,
 * partial), write_fragment(fragment, key, data, variables), read_fragment(fragment, key,
 * variables, partial). The C functions take the variables before the response.
 * Freshness follows that order: write(op, response, variables, WriteOptions),
 * put(records, WriteOptions), write_fragment(fragment, key, data, variables,
 * WriteOptions) and read_result(op, variables, ReadOptions, key), as the Python
 * binding's write(op, response, variables, max_age=..., headers=..., strict_keys=...)
 * and read_result(op, variables, ...).
 *
 * Fetching: Cache::execute(op, variables, ExecuteOptions, fetch, on_result) runs an
 * operation under a fetch policy, calling the host's fetch (a callable that may throw)
 * when the policy goes to the network; put_document, get_document and execute_document
 * do the same for plain JSON documents (REST). Exceptions never cross the C interface:
 * every callback runs inside a trampoline that catches them (see Cache::execute).
 *
 * The namespace is NormCache (as the Swift module) rather than normcache because the
 * C header declares `struct normcache` and `typedef ... normcache` at global scope, and
 * C++ forbids a namespace of the same name beside them.
 *
 * Thread safety follows the C interface: one Cache may be used from many threads at
 * once, except that moving, assigning, closing or destroying it must not overlap other
 * calls on the same object. An Operation may be used from many threads at once; moving,
 * assigning or destroying it must not overlap its other uses.
 */
#ifndef NORMCACHE_HPP
#define NORMCACHE_HPP

#include "normcache.h"

#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace NormCache {

/* ---------------------------------------------------------------------------
 * Exceptions
 * ------------------------------------------------------------------------- */

/** A failure of the library: its status code and its message (what() ). */
class Error : public std::runtime_error {
public:
    /** An error with the status `code` and the text `message`. */
    Error(int code, const std::string &message) : std::runtime_error(message), code_(code) {}

    /** The status code, one of the NORMCACHE_E* constants (or an unknown code). */
    int code() const noexcept { return code_; }

private:
    int code_;
};

/** NORMCACHE_EINVAL: a NULL or empty argument, an unknown option, a closed handle. */
class InvalidArgumentError : public Error {
public:
    using Error::Error;
};

/**
 * A closed or moved-from Cache, or an empty (default-constructed or moved-from)
 * Operation, used: thrown by the binding, with NORMCACHE_EINVAL, before it calls the
 * library ("the cache is closed", "the operation is closed").
 */
class ClosedError : public InvalidArgumentError {
public:
    using InvalidArgumentError::InvalidArgumentError;
};

/** NORMCACHE_EJSON: JSON that is malformed, not UTF-8, too deep or of the wrong shape. */
class JSONError : public Error {
public:
    using Error::Error;
};

/** NORMCACHE_EDOCUMENT: a GraphQL document that is malformed or invalid. */
class DocumentError : public Error {
public:
    using Error::Error;
};

/** NORMCACHE_ESCHEMA: a schema that is malformed or invalid. */
class SchemaError : public Error {
public:
    using Error::Error;
};

/** NORMCACHE_EDATA: response data that does not match its operation. */
class DataError : public Error {
public:
    using Error::Error;
};

/** NORMCACHE_ESTORAGE: an I/O, permission, lock or map failure of the storage. */
class StorageError : public Error {
public:
    using Error::Error;
};

/** NORMCACHE_ECALLBACK: a user callback failed. */
class CallbackError : public Error {
public:
    using Error::Error;
};

/** NORMCACHE_ENOMEM: the library could not allocate memory. */
class OutOfMemoryError : public Error {
public:
    using Error::Error;
};

/** NORMCACHE_ENOTCACHE: the file is not a normcache cache, is damaged, or is too new. */
class NotACacheError : public Error {
public:
    using Error::Error;
};

/** NORMCACHE_EREADONLY: a write on a cache opened read-only. */
class ReadOnlyError : public Error {
public:
    using Error::Error;
};

/**
 * NORMCACHE_EFETCH: a fetch failed and no cached data stood in (Cache::execute). A Fetch
 * throws it to say that the network failed (the server is down, it answered 503): the
 * library then falls back to usable cached data, with what() as its fetch_error, or
 * execute throws a FetchError with the same message.
 */
class FetchError : public Error {
public:
    using Error::Error;
    /** A failed fetch, for a Fetch to throw: NORMCACHE_EFETCH with `message`. */
    explicit FetchError(const std::string &message) : Error(NORMCACHE_EFETCH, message) {}
};

/** NORMCACHE_EGRAPHQL: a fetched response carried GraphQL errors under ErrorPolicy::none. */
class GraphQLError : public Error {
public:
    using Error::Error;
};

/** NORMCACHE_INTERRUPTED: Cache::interrupt() stopped the call, which changed nothing. */
class Interrupted : public Error {
public:
    using Error::Error;
};

/** Internals of the binding; not part of its interface. */
namespace detail {

/**
 * Throws the exception type of `code`: with the calling thread's normcache_errmsg()
 * for a failure (a negative code), with normcache_errstr(code) for a status that is
 * not a failure but was not expected, or when the message is empty.
 */
[[noreturn]] inline void throw_error(int code)
{
    const char *library_message = code < 0 ? normcache_errmsg() : "";
    const std::string message =
        library_message[0] != '\0' ? library_message : normcache_errstr(code);
    switch (code) {
    case NORMCACHE_EINVAL: throw InvalidArgumentError(code, message);
    case NORMCACHE_EJSON: throw JSONError(code, message);
    case NORMCACHE_EDOCUMENT: throw DocumentError(code, message);
    case NORMCACHE_ESCHEMA: throw SchemaError(code, message);
    case NORMCACHE_EDATA: throw DataError(code, message);
    case NORMCACHE_ESTORAGE: throw StorageError(code, message);
    case NORMCACHE_ECALLBACK: throw CallbackError(code, message);
    case NORMCACHE_ENOMEM: throw OutOfMemoryError(code, message);
    case NORMCACHE_ENOTCACHE: throw NotACacheError(code, message);
    case NORMCACHE_EREADONLY: throw ReadOnlyError(code, message);
    case NORMCACHE_EFETCH: throw FetchError(code, message);
    case NORMCACHE_EGRAPHQL: throw GraphQLError(code, message);
    case NORMCACHE_INTERRUPTED: throw Interrupted(code, message);
    default: throw Error(code, message);
    }
}

/** Returns when `code` is NORMCACHE_OK; throws its exception otherwise. */
inline void check(int code)
{
    if (code != NORMCACHE_OK) {
        throw_error(code);
    }
}

/** True for NORMCACHE_OK, false for NORMCACHE_NOTFOUND; throws for any other code. */
inline bool check_found(int code)
{
    if (code == NORMCACHE_NOTFOUND) {
        return false;
    }
    check(code);
    return true;
}

/**
 * Reads a JSON array of strings, as the library returns them, into UTF-8 strings:
 * decodes every escape (\" \\ \/ \b \f \n \r \t and \uXXXX, surrogate pairs joined
 * into one code point) and copies other bytes as they are. Whitespace between tokens
 * is allowed. Anything else — a value that is not a string, a raw control character,
 * a lone surrogate, bytes after the array — throws JSONError.
 */
class StringArrayParser {
public:
    /** A parser over `json`, which must outlive it. */
    explicit StringArrayParser(std::string_view json) noexcept : json_(json) {}

    /** The strings of the array. */
    std::vector<std::string> parse()
    {
        std::vector<std::string> strings;
        skip_whitespace();
        expect('[', "no '[' at the start");
        skip_whitespace();
        if (!accept(']')) {
            do {
                skip_whitespace();
                strings.push_back(parse_string());
                skip_whitespace();
            } while (accept(','));
            expect(']', "no ',' or ']' after a string");
        }
        skip_whitespace();
        if (position_ != json_.size()) {
            fail("a byte after the end of the array");
        }
        return strings;
    }

private:
    /** Throws JSONError naming `what` and the current byte offset. */
    [[noreturn]] void fail(const char *what) const
    {
        throw JSONError(NORMCACHE_EJSON, std::string("normcache: ") + what + " at byte " +
                                             std::to_string(position_) +
                                             " of a JSON array of strings");
    }

    /** Moves past JSON whitespace. */
    void skip_whitespace() noexcept
    {
        while (position_ < json_.size() &&
               (json_[position_] == ' ' || json_[position_] == '\t' ||
                json_[position_] == '\n' || json_[position_] == '\r')) {
            ++position_;
        }
    }

    /** Moves past `expected` when it is the next byte; says whether it was. */
    bool accept(char expected) noexcept
    {
        if (position_ < json_.size() && json_[position_] == expected) {
            ++position_;
            return true;
        }
        return false;
    }

    /** Moves past `expected`, or fails with `what`. */
    void expect(char expected, const char *what)
    {
        if (!accept(expected)) {
            fail(what);
        }
    }

    /** The 4 hex digits after "\u", as a number. */
    char32_t parse_hex4()
    {
        char32_t value = 0;
        for (int i = 0; i < 4; ++i, ++position_) {
            const char c = position_ < json_.size() ? json_[position_] : '\0';
            value <<= 4;
            if (c >= '0' && c <= '9') {
                value |= static_cast<char32_t>(c - '0');
            } else if (c >= 'a' && c <= 'f') {
                value |= static_cast<char32_t>(c - 'a' + 10);
            } else if (c >= 'A' && c <= 'F') {
                value |= static_cast<char32_t>(c - 'A' + 10);
            } else {
                fail("a \\u escape without 4 hex digits");
            }
        }
        return value;
    }

    /** The code point of a \u escape whose "\u" was read, joining a surrogate pair. */
    char32_t parse_unicode_escape()
    {
        const char32_t first = parse_hex4();
        if (first >= 0xDC00 && first <= 0xDFFF) {
            fail("a lone low surrogate");
        }
        if (first < 0xD800 || first > 0xDBFF) {
            return first;
        }
        if (!accept('\\') || !accept('u')) {
            fail("a high surrogate without a low one");
        }
        const char32_t second = parse_hex4();
        if (second < 0xDC00 || second > 0xDFFF) {
            fail("a high surrogate without a low one");
        }
        return 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
    }

    /** Appends the UTF-8 encoding of `code_point` (at most U+10FFFF). */
    static void append_utf8(std::string &out, char32_t code_point)
    {
        if (code_point < 0x80) {
            out += static_cast<char>(code_point);
        } else if (code_point < 0x800) {
            out += static_cast<char>(0xC0 | (code_point >> 6));
            out += static_cast<char>(0x80 | (code_point & 0x3F));
        } else if (code_point < 0x10000) {
            out += static_cast<char>(0xE0 | (code_point >> 12));
            out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code_point & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code_point >> 18));
            out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code_point & 0x3F));
        }
    }

    /** The decoded string that starts at the current byte. */
    std::string parse_string()
    {
        std::string out;
        expect('"', "a value that is not a string");
        for (;;) {
            if (position_ >= json_.size()) {
                fail("an unterminated string");
            }
            const char c = json_[position_];
            if (c == '"') {
                ++position_;
                return out;
            }
            if (static_cast<unsigned char>(c) < 0x20) {
                fail("a raw control character in a string");
            }
            ++position_;
            if (c != '\\') {
                out += c;
                continue;
            }
            const char escape = position_ < json_.size() ? json_[position_] : '\0';
            ++position_;
            switch (escape) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': append_utf8(out, parse_unicode_escape()); break;
            default: --position_; fail("an unknown escape");
            }
        }
    }

    std::string_view json_;
    std::size_t position_ = 0;
};

/** The strings of the JSON array `json`; see StringArrayParser. */
inline std::vector<std::string> parse_string_array(std::string_view json)
{
    return StringArrayParser(json).parse();
}

} // namespace detail

/* ---------------------------------------------------------------------------
 * Buffers
 * ------------------------------------------------------------------------- */

/**
 * Owns one output buffer of the C interface and releases it with normcache_free.
 * Pass out() and out_len() as a call's `char **out` and `size_t *out_len`.
 */
class Buffer {
public:
    /** An empty holder. */
    Buffer() noexcept = default;
    /** Not copyable: one holder frees one buffer. */
    Buffer(const Buffer &) = delete;
    /** Not copyable: one holder frees one buffer. */
    Buffer &operator=(const Buffer &) = delete;

    /** Releases the buffer, if any. */
    ~Buffer() { normcache_free(data_); }

    /** Where a call stores the buffer; releases any buffer held before. */
    char **out() noexcept
    {
        normcache_free(data_);
        data_ = nullptr;
        size_ = 0;
        return &data_;
    }

    /** Where a call stores the buffer's length. */
    std::size_t *out_len() noexcept { return &size_; }

    /** The bytes held, valid while this holder lives and holds them. */
    std::string_view view() const noexcept { return {data_, size_}; }

    /** A copy of the bytes held. */
    std::string str() const { return std::string(view()); }

private:
    char *data_ = nullptr;
    std::size_t size_ = 0;
};

/* ---------------------------------------------------------------------------
 * GraphQL operations
 * ------------------------------------------------------------------------- */

/**
 * A prepared GraphQL operation (or fragment): normcache_prepare's result, released
 * with normcache_op_free in the destructor. Move-only. Obtain one from
 * Cache::prepare. It keeps the schema, key rules and key resolver of its cache as they
 * were when it was prepared, and may outlive that Cache. An empty Operation
 * (default-constructed or moved from) holds nothing, and every call that uses it
 * throws ClosedError ("the operation is closed").
 */
class Operation {
public:
    /** An empty holder, as a moved-from one; valid() is false. */
    Operation() noexcept = default;

    /** Takes ownership of `op` (from normcache_prepare; nullptr for an empty holder). */
    explicit Operation(::normcache_op *op) noexcept : op_(op) {}

    /** Not copyable: one object frees one operation. */
    Operation(const Operation &) = delete;
    /** Not copyable: one object frees one operation. */
    Operation &operator=(const Operation &) = delete;

    /** Takes over the operation of `other`, which is left empty. */
    Operation(Operation &&other) noexcept : op_(std::exchange(other.op_, nullptr)) {}

    /** Frees this operation, then takes over the one of `other`, which is left empty. */
    Operation &operator=(Operation &&other) noexcept
    {
        if (this != &other) {
            normcache_op_free(op_);
            op_ = std::exchange(other.op_, nullptr);
        }
        return *this;
    }

    /** Frees the operation, if any. */
    ~Operation() { normcache_op_free(op_); }

    /** Whether this object holds an operation (it is not empty or moved from). */
    bool valid() const noexcept { return op_ != nullptr; }

    /**
     * The document to send to the server: the operation (and the fragments it uses)
     * with `__typename` and the key fields of the schema's type policies added (see
     * normcache_op_document). Throws ClosedError when empty.
     */
    std::string document() const
    {
        Buffer text;
        detail::check(normcache_op_document(live(), text.out(), text.out_len()));
        return text.str();
    }

    /** The C operation, for calls this binding does not wrap; nullptr when empty. */
    ::normcache_op *native_handle() const noexcept { return op_; }

private:
    friend class Cache;

    /** The C operation; throws ClosedError when empty. */
    ::normcache_op *live() const
    {
        if (op_ == nullptr) {
            throw ClosedError(NORMCACHE_EINVAL, "the operation is closed");
        }
        return op_;
    }

    ::normcache_op *op_ = nullptr;
};

/**
 * The result of Cache::read and Cache::read_fragment. On a hit (`hit` true), `json`
 * is the rebuilt `data` object. On a miss (`hit` false), `json` is
 * {"data":null,"missing":[...]}, an entry for each part the cache lacks or holds too
 * stale, in document order:
 * {"path":["hero","friends",2],"reason":"absent"|"stale"|"invalidated","record":"Droid:2001",
 * "field":"name"} ("field" absent for an absent record; "writtenAt" and "expiredAt" for a
 * stale or invalidated field; see normcache_read); with `partial`, "data" holds the
 * data with those parts null instead of null. Stale data is always a miss here:
 * Cache::read_result returns it to a caller that allows it, with the entries as typed
 * FieldReport values.
 */
struct ReadResult {
    bool hit = false; ///< true: the cache held every field, fresh (NORMCACHE_OK); false: NORMCACHE_MISS
    std::string json; ///< the data on a hit; {"data":...,"missing":[...]} on a miss

    /** Equal when both members are. */
    friend bool operator==(const ReadResult &a, const ReadResult &b)
    {
        return a.hit == b.hit && a.json == b.json;
    }
    /** Not equal when a member differs. */
    friend bool operator!=(const ReadResult &a, const ReadResult &b) { return !(a == b); }
};

/* ---------------------------------------------------------------------------
 * Freshness (see the Freshness section of include/normcache.h)
 * ------------------------------------------------------------------------- */

/** What Cache::read_result found: the status normcache_read_ex returned. */
enum class ReadStatus {
    complete, ///< all the data, all of it fresh (NORMCACHE_OK)
    stale,    ///< all the data, some of it stale within max_stale (NORMCACHE_STALE)
    miss      ///< something absent, or stale beyond max_stale (NORMCACHE_MISS)
};

/** How Cache::read_result reads (normcache_read_options). */
struct ReadOptions {
    /** On a miss, return the data with the missing parts null as well. */
    bool partial = false;
    /**
     * Seconds past its expiry a stale field may be and still be returned (the status is
     * then ReadStatus::stale); nullopt, the default: a stale field is a miss. Values
     * above INT64_MAX are read as INT64_MAX (any staleness).
     */
    std::optional<std::uint64_t> max_stale;
};

/** Why a read could not use a field, or returned it stale (a FieldReport's "reason"). */
enum class MissReason {
    absent,     ///< the field, or the record, is not in the cache
    stale,      ///< older than its max age, or past the expiry its write gave
    invalidated ///< invalidated (Cache::invalidate)
};

/** One step of a response path: a response key or a list index. */
using PathSegment = std::variant<std::string, std::size_t>;

/**
 * A part of the data a read could not return fresh: an entry of "missing" (absent,
 * stale or invalidated) or of "stale" (returned stale because the read allowed it), as
 * normcache_read_ex describes them.
 */
struct FieldReport {
    std::vector<PathSegment> path;           ///< where in the data ([] for a document itself)
    MissReason reason = MissReason::absent;  ///< why
    std::string record;                      ///< the record looked in (an absent record: itself)
    std::optional<std::string> field;        ///< the field's storage key; nullopt for an absent record
    std::optional<std::uint64_t> written_at; ///< a stale or invalidated field: when it was written
    std::optional<std::uint64_t> expired_at; ///< a stale or invalidated field: when it became stale

    /** Equal when every member is. */
    friend bool operator==(const FieldReport &a, const FieldReport &b)
    {
        return a.path == b.path && a.reason == b.reason && a.record == b.record && a.field == b.field &&
               a.written_at == b.written_at && a.expired_at == b.expired_at;
    }
    /** Not equal when a member differs. */
    friend bool operator!=(const FieldReport &a, const FieldReport &b) { return !(a == b); }
};

/**
 * The whole result of Cache::read_result, a miss included (never an exception).
 *
 * `json` is normcache_read_ex's object, byte for byte:
 * {"data":{...}|null,"missing":[...],"stale":[...],"oldestWrittenAt":n|null,"earliestExpiry":n|null}
 * ("missing" and "stale" entries as ReadResult describes them, also given as typed
 * FieldReport values in `missing` and `stale`). The two times are also given as numbers: when the oldest field the read used was written, and the earliest
 * time one of them expires or expired, in seconds since 1970 by the cache's clock;
 * nullopt when the read used no field, or no field it used ever expires.
 */
struct FullReadResult {
    ReadStatus status = ReadStatus::miss;           ///< what the read found
    std::string json;                               ///< the library's whole result object
    std::optional<std::uint64_t> oldest_written_at; ///< "oldestWrittenAt"
    std::optional<std::uint64_t> earliest_expiry;   ///< "earliestExpiry"
    std::vector<FieldReport> missing;               ///< "missing", in document order
    std::vector<FieldReport> stale;                 ///< "stale", in document order
    std::optional<std::string> etag = std::nullopt; ///< "etag": a document's entity-tag (get_document)

    /** Equal when every member is. */
    friend bool operator==(const FullReadResult &a, const FullReadResult &b)
    {
        return a.status == b.status && a.json == b.json && a.oldest_written_at == b.oldest_written_at &&
               a.earliest_expiry == b.earliest_expiry && a.missing == b.missing && a.stale == b.stale &&
               a.etag == b.etag;
    }
    /** Not equal when a member differs. */
    friend bool operator!=(const FullReadResult &a, const FullReadResult &b) { return !(a == b); }
};

/**
 * What gc removes besides unreachable records (see normcache_gc_options): a dry run
 * writes nothing; `stale_grace` (seconds) removes the fields whose stored expiry is at
 * least that long past (nullopt keeps them); `dangling` removes the fields holding a
 * reference to an absent record.
 */
struct GCOptions {
    bool dry_run = false;                    ///< report only, write nothing
    std::optional<std::int64_t> stale_grace; ///< seconds past expiry; nullopt: keep stale fields
    bool dangling = false;                   ///< remove fields holding dangling references
};

/**
 * How a write stores what it carries (normcache_write_options): how long it stays fresh
 * — a lifetime of the caller's and the response's caching headers, as the server sent
 * them (nullopt: absent); the fields the write carries expire at the earliest time these
 * give (see normcache_write_ex), and Cache-Control: no-store stores nothing — and
 * whether key fallbacks are refused. The views must stay valid during the call only.
 */
struct WriteOptions {
    /** Seconds the written fields stay fresh (0: stale at once), at most NORMCACHE_MAX_AGE_LIMIT. */
    std::optional<std::uint32_t> max_age;
    /** The response's Cache-Control header value ("max-age=600", "no-cache", "no-store"). */
    std::optional<std::string_view> cache_control;
    /** The response's Age header value (seconds). */
    std::optional<std::string_view> age;
    /** The response's Date header value (an HTTP-date). */
    std::optional<std::string_view> date;
    /** The response's Expires header value (an HTTP-date; "0": already expired). */
    std::optional<std::string_view> expires;
    /**
     * NORMCACHE_WRITE_STRICT_KEYS: an object of a keyed type that lacks its key fields
     * throws DataError (naming its path, its type and the key fields) and nothing is
     * written, instead of being keyed by its path and counted in key_fallbacks.
     */
    bool strict_keys = false;
    /**
     * The response's ETag header value ("v1" with its quotes, or W/"v1"): a document
     * keeps it (put_document, a FetchReply of execute_document, refresh_document) and
     * get_document gives it back; other writes ignore it. A malformed one throws
     * InvalidArgumentError and nothing is written.
     */
    std::optional<std::string_view> etag = std::nullopt;
};

/** What Cache::refresh_document did. */
enum class Refresh {
    refreshed, ///< the document has the new lifetime
    absent,    ///< no document under the key (NORMCACHE_MISS): nothing written
    not_stored ///< Cache-Control: no-store (NORMCACHE_NOTSTORED): nothing changed
};

/**
 * What a write with WriteOptions did (Cache::write, put, write_fragment): whether it
 * stored the response (false when the response said Cache-Control: no-store: nothing
 * was written, `changed` is empty), the changed "recordKey.fieldKey" strings, in input
 * order, and how many objects of a keyed type were keyed by their path for want of
 * their key fields (see NORMCACHE_WRITE_STRICT_KEYS).
 */
struct WriteResult {
    bool stored = false;              ///< false: NORMCACHE_NOTSTORED, nothing written
    std::vector<std::string> changed; ///< the changed fields, as write returns them
    std::size_t key_fallbacks = 0;    ///< objects keyed by path for want of key fields

    /** Equal when every member is. */
    friend bool operator==(const WriteResult &a, const WriteResult &b)
    {
        return a.stored == b.stored && a.changed == b.changed && a.key_fallbacks == b.key_fallbacks;
    }
    /** Not equal when a member differs. */
    friend bool operator!=(const WriteResult &a, const WriteResult &b) { return !(a == b); }
};

/**
 * What Cache::normalize_result gives: the records a write of the response stores, as
 * normalize returns them, and how many objects it keyed by path for want of their key
 * fields.
 */
struct NormalizeResult {
    std::string records;           ///< the records JSON, as normalize returns it
    std::size_t key_fallbacks = 0; ///< objects keyed by path for want of key fields
};

/**
 * A clock for Cache::set_clock: returns the time now in seconds since 1970. A testing
 * aid: writes stamp fields with its time and reads judge freshness by it. It is called
 * at most once per call on the cache, on the calling thread, outside the library's
 * locks, and may be called from several threads at once. A time below 0 fails the call
 * that asked with CallbackError ("the cache's clock answered -5: ..."); an exception it
 * throws fails it with CallbackError "the cache's clock failed: " and its what(), and
 * never reaches the library.
 */
using Clock = std::function<std::int64_t()>;

/**
 * One object of a response, as a key resolver sees it (normcache_object): its members by
 * name (member) or in response order (size, member_at, names). Valid only during the
 * resolver's call, on its thread: keep neither it nor the views it returns (a view kept
 * and used later throws InvalidArgumentError). A response that repeats a name in one
 * object: member() finds the first, the listing gives each.
 */
class ObjectView {
public:
    /** A view of `object`, which must be the one the resolver was given. */
    explicit ObjectView(const ::normcache_object *object) noexcept : object_(object) {}

    /**
     * The raw JSON text of the member `name` (strings with their quotes, objects and
     * lists with their brackets), or nullopt when the object has no such member.
     * Valid until the resolver returns. Throws the Error of a failure.
     */
    std::optional<std::string_view> member(std::string_view name) const
    {
        const char *json = nullptr;
        std::size_t length = 0;
        const int code = normcache_object_member(object_, name.data(), name.size(), &json, &length);
        if (code == NORMCACHE_NOTFOUND) {
            return std::nullopt;
        }
        detail::check(code);
        return std::string_view(json, length);
    }

    /**
     * The number of members, repeated names included (normcache_object_member_count).
     * Throws the Error of a failure.
     */
    std::size_t size() const
    {
        std::size_t count = 0;
        detail::check(normcache_object_member_count(object_, &count));
        return count;
    }

    /**
     * The member at `index` (0 is the first) in response order: its name and its value,
     * both raw JSON text (the name a string with its quotes and the escapes of the
     * response, `"e\u00e9"`; the value as member() gives it), valid until the resolver
     * returns (normcache_object_member_at). Throws std::out_of_range when `index` is not
     * below size(), and the Error of a failure. Finding a member walks those before it.
     */
    std::pair<std::string_view, std::string_view> member_at(std::size_t index) const
    {
        const char *name = nullptr;
        std::size_t name_length = 0;
        const char *json = nullptr;
        std::size_t length = 0;
        const int code = normcache_object_member_at(object_, index, &name, &name_length, &json, &length);
        if (code == NORMCACHE_NOTFOUND) {
            throw std::out_of_range("normcache: member index " + std::to_string(index) +
                                    " is past the last member");
        }
        detail::check(code);
        return {std::string_view(name, name_length), std::string_view(json, length)};
    }

    /**
     * The member names, decoded to UTF-8 (escapes resolved), in response order; a name
     * the response repeats appears as often. Throws the Error of a failure.
     */
    std::vector<std::string> names() const
    {
        // The names' JSON texts, joined by commas, are a JSON array of strings.
        std::string array = "[";
        const std::size_t count = size();
        for (std::size_t index = 0; index < count; ++index) {
            array += index == 0 ? "" : ",";
            array += member_at(index).first;
        }
        return detail::parse_string_array(array + "]");
    }

    /** The C object, for calls this binding does not wrap. */
    const ::normcache_object *native_handle() const noexcept { return object_; }

private:
    const ::normcache_object *object_;
};

/**
 * A key resolver's answer: the id, and the key group (nullopt: the typename). The
 * object's record key is then `<group>:<id>`.
 */
using ResolvedKey = std::pair<std::string, std::optional<std::string>>;

/**
 * A key resolver (Apollo's cacheKeyInfo), called for every object a write or normalize
 * meets, before the declarative rules, with the object's __typename (nullopt when the
 * response has none) and a view of the object. It returns the object's key, or nullopt
 * to leave the object to the other rules. Throwing anything fails the call with
 * CallbackError, whose message ends with what() of a std::exception ("the key resolver
 * failed at feed.0: no id"); nothing is written. It may be called from every thread that
 * writes or normalizes, at once, and re-entrantly when it calls the library itself.
 */
using KeyResolver = std::function<std::optional<ResolvedKey>(std::optional<std::string_view> typename_,
                                                             const ObjectView &object)>;

namespace detail {

/** Hands `message` to the library as the reason of the failing callback (its errmsg). */
inline void report_callback_error(const char *message) noexcept
{
    if (message != nullptr) {
        normcache_callback_error(message, std::char_traits<char>::length(message));
    }
}

/**
 * The C resolver over a KeyResolver (`context`). Catches everything: an exception (or
 * a failing normcache_key_set) becomes NORMCACHE_ECALLBACK with its message given to
 * normcache_callback_error, and never crosses into C.
 */
inline int resolver_trampoline(void *context, const char *typename_, std::size_t typename_len,
                               const ::normcache_object *object, ::normcache_key *key) noexcept
{
    try {
        const KeyResolver &resolver = *static_cast<const KeyResolver *>(context);
        std::optional<std::string_view> type_name;
        if (typename_ != nullptr) {
            type_name = std::string_view(typename_, typename_len);
        }
        const std::optional<ResolvedKey> answer = resolver(type_name, ObjectView(object));
        if (!answer) {
            return NORMCACHE_OK;
        }
        const std::string &id = answer->first;
        const std::optional<std::string> &group = answer->second;
        if (normcache_key_set(key, id.data(), id.size(), group ? group->data() : nullptr,
                              group ? group->size() : 0) != NORMCACHE_OK) {
            report_callback_error(normcache_errmsg());
            return NORMCACHE_ECALLBACK;
        }
        return NORMCACHE_OK;
    } catch (const std::exception &error) {
        report_callback_error(error.what());
    } catch (...) {
        report_callback_error("an exception that is not a std::exception");
    }
    return NORMCACHE_ECALLBACK;
}

/** The normcache_destroy of a KeyResolver context: deletes it. */
inline void destroy_resolver(void *context) noexcept { delete static_cast<KeyResolver *>(context); }

/**
 * The C clock over a Clock (`context`). Catches everything: an exception is handed to
 * the library with normcache_callback_error (its what()), which fails the call that
 * asked for the time with "the cache's clock failed: <what()>", and never crosses into C.
 */
inline std::int64_t clock_trampoline(void *context) noexcept
{
    try {
        return (*static_cast<const Clock *>(context))();
    } catch (const std::exception &error) {
        report_callback_error(error.what());
    } catch (...) {
        report_callback_error("an exception that is not a std::exception");
    }
    return -1;
}

/** A header value for normcache_write_options: NULL/0 when absent, never NULL when given. */
inline void set_header(const std::optional<std::string_view> &value, const char *&pointer, std::size_t &length) noexcept
{
    // value_or, not value->: GCC 12 at -O3 with sanitizers warns (-Wmaybe-uninitialized)
    // that a disengaged optional's string_view may be read, through the guarded `->`.
    const std::string_view text = value.value_or(std::string_view());
    pointer = value.has_value() ? (text.data() != nullptr ? text.data() : "") : nullptr;
    length = text.size();
}

/**
 * The number after `name` in the tail of normcache_read_ex's object (`name` is
 * `,"oldestWrittenAt":` or `,"earliestExpiry":`, searched from the end), or nullopt for
 * null. Throws JSONError when the tail is not of that form.
 */
inline std::optional<std::uint64_t> result_time(std::string_view json, std::string_view name)
{
    const std::size_t at = json.rfind(name);
    if (at == std::string_view::npos) {
        throw JSONError(NORMCACHE_EJSON, "normcache: a read result without " + std::string(name));
    }
    std::size_t position = at + name.size();
    if (json.substr(position, 4) == "null") {
        return std::nullopt;
    }
    std::uint64_t value = 0;
    const std::size_t start = position;
    for (; position < json.size() && json[position] >= '0' && json[position] <= '9'; ++position) {
        const auto digit = static_cast<std::uint64_t>(json[position] - '0');
        if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
            throw JSONError(NORMCACHE_EJSON, "normcache: a read result's " + std::string(name) + " is too large");
        }
        value = value * 10 + digit;
    }
    if (position == start) {
        throw JSONError(NORMCACHE_EJSON, "normcache: a read result's " + std::string(name) + " is not a number");
    }
    return value;
}

} // namespace detail

/* ---------------------------------------------------------------------------
 * Fetching (see the Fetching section of include/normcache.h)
 * ------------------------------------------------------------------------- */

/**
 * The fetch policies of Cache::execute (normcache_policy): when to read the cache and
 * when to go to the network, and whether the answer is written.
 */
enum class Policy {
    cache_first = NORMCACHE_CACHE_FIRST,                      ///< the cache; the network on a miss (the default)
    cache_only = NORMCACHE_CACHE_ONLY,                        ///< the cache alone (a mutation still fetches)
    network_only = NORMCACHE_NETWORK_ONLY,                    ///< the network, always; written
    no_store = NORMCACHE_NO_STORE,                            ///< the network, always; nothing written
    network_first = NORMCACHE_NETWORK_FIRST,                  ///< the network; the cache when the fetch fails
    cache_and_network = NORMCACHE_CACHE_AND_NETWORK,          ///< usable cached data first, then the network's
    stale_while_revalidate = NORMCACHE_STALE_WHILE_REVALIDATE ///< the cache; the network on a miss or stale data
};

/** What Cache::execute does with GraphQL "errors" in a response (normcache_error_policy). */
enum class ErrorPolicy {
    none = NORMCACHE_ERRORS_NONE,     ///< write nothing; throw GraphQLError naming the first error
    ignore = NORMCACHE_ERRORS_IGNORE, ///< write and return the data as if there were no errors
    all = NORMCACHE_ERRORS_ALL        ///< write and return the data, with the errors in ExecuteResult::errors
};

/**
 * How Cache::execute runs (normcache_execute_options): ExecuteOptions{} is cache-first
 * with fresh data only and ErrorPolicy::none; ExecuteOptions{Policy::network_first, 60}
 * allows data 60 s stale.
 */
struct ExecuteOptions {
    /** Options with the policy `policy_`, `max_stale_` and the error policy `error_policy_`. */
    constexpr ExecuteOptions(Policy policy_ = Policy::cache_first,
                             std::optional<std::uint64_t> max_stale_ = std::nullopt,
                             ErrorPolicy error_policy_ = ErrorPolicy::none) noexcept
        : policy(policy_), max_stale(max_stale_), error_policy(error_policy_)
    {
    }

    /** The fetch policy. */
    Policy policy = Policy::cache_first;
    /**
     * Seconds past its expiry cached data may be and still be used (its result's status
     * is then ReadStatus::stale); nullopt, the default: only fresh data. Values above
     * INT64_MAX are read as INT64_MAX.
     */
    std::optional<std::uint64_t> max_stale;
    /** What a response with GraphQL errors does. */
    ErrorPolicy error_policy = ErrorPolicy::none;
};

/**
 * What the library asks of the network (normcache_fetch_request), valid during the
 * Fetch call only. For an operation: the network document to send (with __typename and
 * key fields added), its operation name (nullopt: anonymous) and the variables as a JSON
 * object ("{}" when none were given); `key` is nullopt. For a document
 * (execute_document): `key`, the document's key (the host knows what URL it stands
 * for); the others empty.
 */
struct FetchRequest {
    std::string_view document;                      ///< the network document; empty for a document
    std::optional<std::string_view> operation_name; ///< the operation's name; nullopt when anonymous
    std::string_view variables_json;                ///< the variables as a JSON object; empty for a document
    std::optional<std::string_view> key;            ///< the document's key; nullopt for an operation
};

/**
 * A Fetch's answer: the response body (a GraphQL response, or for a document any JSON
 * value) and its caching headers as the server sent them, which set how long what is
 * written stays fresh (as WriteOptions; the earliest expiry wins). Owns its strings, so
 * that a Fetch can build it from a response it then drops.
 */
struct FetchReply {
    std::string body;                               ///< the response body
    std::optional<std::uint32_t> max_age;           ///< seconds fresh, the host's limit (0: stale at once)
    std::optional<std::string> cache_control;       ///< the Cache-Control header's value
    std::optional<std::string> age;                 ///< the Age header's value
    std::optional<std::string> date;                ///< the Date header's value
    std::optional<std::string> expires;             ///< the Expires header's value
    bool strict_keys = false;                       ///< refuse key fallbacks in the body's write (DataError)
    std::optional<std::string> etag = std::nullopt; ///< the ETag header's value, kept with a document
};

/**
 * The host's network call: sends `request` and returns the response. To say that the
 * network failed, throw FetchError (or return nothing else): the library may fall back
 * to cached data. Any other exception fails the execute call and is rethrown by it (see
 * Cache::execute).
 */
using Fetch = std::function<FetchReply(const FetchRequest &request)>;

/** Where a result of Cache::execute came from. */
enum class Source {
    cache,  ///< read from the cache
    network ///< the network's answer, read back as the user's selection
};

/**
 * One result of Cache::execute or execute_document.
 *
 * `json` is the library's result object, byte for byte:
 * {"source":"cache"|"network","data":{...}|null,"missing":[...],"stale":[...],
 * "oldestWrittenAt":n|null,"earliestExpiry":n|null,"errors":[...]|null,"fetchError":"..."|null}
 * ("missing" and "stale" entries as ReadResult describes them). The other members are
 * taken from it.
 */
struct ExecuteResult {
    ReadStatus status = ReadStatus::miss;           ///< complete, stale (within max_stale) or miss
    Source source = Source::cache;                  ///< "source"
    std::string json;                               ///< the whole result object
    std::optional<std::uint64_t> oldest_written_at; ///< "oldestWrittenAt"
    std::optional<std::uint64_t> earliest_expiry;   ///< "earliestExpiry"
    std::optional<std::string> errors;              ///< "errors" as the server wrote them (ErrorPolicy::all)
    std::optional<std::string> fetch_error;         ///< "fetchError": why the network failed, when the cache stood in
    std::vector<FieldReport> missing;               ///< "missing", in document order
    std::vector<FieldReport> stale;                 ///< "stale", in document order

    /** Equal when every member is. */
    friend bool operator==(const ExecuteResult &a, const ExecuteResult &b)
    {
        return a.status == b.status && a.source == b.source && a.json == b.json &&
               a.oldest_written_at == b.oldest_written_at && a.earliest_expiry == b.earliest_expiry &&
               a.errors == b.errors && a.fetch_error == b.fetch_error && a.missing == b.missing &&
               a.stale == b.stale;
    }
    /** Not equal when a member differs. */
    friend bool operator!=(const ExecuteResult &a, const ExecuteResult &b) { return !(a == b); }
};

/** Gets each result of Cache::execute as it comes (a cached one first, then the network's). */
using ResultCallback = std::function<void(const ExecuteResult &result)>;

namespace detail {

/** Throws JSONError for a result of the library that is not of the form this binding reads. */
[[noreturn]] inline void bad_result(const char *what)
{
    throw JSONError(NORMCACHE_EJSON, std::string("normcache: a result object ") + what);
}

/** The first position at or after `position` that is not JSON whitespace. */
inline std::size_t skip_space(std::string_view json, std::size_t position) noexcept
{
    while (position < json.size() &&
           (json[position] == ' ' || json[position] == '\t' || json[position] == '\n' || json[position] == '\r')) {
        ++position;
    }
    return position;
}

/** The position just after the JSON string whose opening quote is at `position`. */
inline std::size_t skip_string(std::string_view json, std::size_t position)
{
    for (++position; position < json.size(); ++position) {
        if (json[position] == '\\') {
            ++position;
        } else if (json[position] == '"') {
            return position + 1;
        }
    }
    bad_result("has an unterminated string");
}

/**
 * The position just after the JSON value that starts at `position` (valid JSON, as the
 * library writes it; a document's value as written, spaces included): a string, an
 * object or array with everything in it, or a number or literal.
 */
inline std::size_t skip_value(std::string_view json, std::size_t position)
{
    if (position < json.size() && json[position] == '"') {
        return skip_string(json, position);
    }
    if (position < json.size() && (json[position] == '{' || json[position] == '[')) {
        std::size_t depth = 0;
        while (position < json.size()) {
            const char c = json[position];
            if (c == '"') {
                position = skip_string(json, position);
                continue;
            }
            ++position;
            if (c == '{' || c == '[') {
                ++depth;
            } else if ((c == '}' || c == ']') && --depth == 0) {
                return position;
            }
        }
        bad_result("has an unterminated object or array");
    }
    while (position < json.size() && json[position] != ',' && json[position] != '}' && json[position] != ']' &&
           json[position] != ' ' && json[position] != '\t' && json[position] != '\n' && json[position] != '\r') {
        ++position;
    }
    return position;
}

/**
 * The JSON text of the member `name` of the top-level object `json` (a result of the
 * library); a member nested deeper never matches. Throws JSONError when there is none.
 */
inline std::string_view top_level_member(std::string_view json, std::string_view name)
{
    std::size_t position = skip_space(json, 0);
    if (position >= json.size() || json[position] != '{') {
        bad_result("is not a JSON object");
    }
    position = skip_space(json, position + 1);
    while (position < json.size() && json[position] == '"') {
        const std::size_t name_end = skip_string(json, position);
        const std::string_view found = json.substr(position + 1, name_end - position - 2);
        position = skip_space(json, name_end);
        if (position >= json.size() || json[position] != ':') {
            bad_result("lacks a ':' after a member name");
        }
        const std::size_t value = skip_space(json, position + 1);
        const std::size_t value_end = skip_value(json, value);
        if (found == name) {
            return json.substr(value, value_end - value);
        }
        position = skip_space(json, value_end);
        if (position < json.size() && json[position] == ',') {
            position = skip_space(json, position + 1);
        }
    }
    bad_result(("lacks the member '" + std::string(name) + "'").c_str());
}

/** A time member's text: nullopt for null, else the number. Throws JSONError for anything else. */
inline std::optional<std::uint64_t> json_time(std::string_view text)
{
    if (text == "null") {
        return std::nullopt;
    }
    std::uint64_t value = 0;
    const char *end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc() || stop != end) {
        bad_result("has a time that is not a number");
    }
    return value;
}

/** The decoded text of the JSON string `text`. */
inline std::string json_string(std::string_view text)
{
    return parse_string_array("[" + std::string(text) + "]").at(0);
}

/** The JSON texts of the elements of the array `json`. Throws JSONError for anything else. */
inline std::vector<std::string_view> array_elements(std::string_view json)
{
    std::vector<std::string_view> elements;
    std::size_t position = skip_space(json, 0);
    if (position >= json.size() || json[position] != '[') {
        bad_result("has a list that is not a JSON array");
    }
    position = skip_space(json, position + 1);
    while (position < json.size() && json[position] != ']') {
        const std::size_t end = skip_value(json, position);
        elements.push_back(json.substr(position, end - position));
        position = skip_space(json, end);
        if (position < json.size() && json[position] == ',') {
            position = skip_space(json, position + 1);
        }
    }
    return elements;
}

/** The reports of the entry list `entries` ("missing" or "stale" of a read's result). */
inline std::vector<FieldReport> field_reports(std::string_view entries)
{
    std::vector<FieldReport> reports;
    for (const std::string_view entry : array_elements(entries)) {
        FieldReport report;
        for (const std::string_view segment : array_elements(top_level_member(entry, "path"))) {
            if (!segment.empty() && segment.front() == '"') {
                report.path.emplace_back(json_string(segment));
            } else {
                std::size_t index = 0;
                const auto [stop, error] = std::from_chars(segment.data(), segment.data() + segment.size(), index);
                if (error != std::errc() || stop != segment.data() + segment.size()) {
                    bad_result("has a path step that is neither a string nor an index");
                }
                report.path.emplace_back(index);
            }
        }
        const std::string reason = json_string(top_level_member(entry, "reason"));
        report.reason = reason == "stale"         ? MissReason::stale
                        : reason == "invalidated" ? MissReason::invalidated
                                                  : MissReason::absent;
        report.record = json_string(top_level_member(entry, "record"));
        if (entry.find(R"("field":)") != std::string_view::npos) {
            report.field = json_string(top_level_member(entry, "field"));
        }
        if (entry.find(R"("writtenAt":)") != std::string_view::npos) {
            report.written_at = json_time(top_level_member(entry, "writtenAt"));
            report.expired_at = json_time(top_level_member(entry, "expiredAt"));
        }
        reports.push_back(std::move(report));
    }
    return reports;
}

/**
 * The reports of the list `name` (`,"missing":` or `,"stale":`) of a read's whole result
 * `json`: found from the end, after the data, where the result's own member is the last.
 */
inline std::vector<FieldReport> result_reports(std::string_view json, std::string_view name)
{
    const std::size_t at = json.rfind(name);
    if (at == std::string_view::npos) {
        bad_result(("lacks the list " + std::string(name)).c_str());
    }
    const std::size_t start = at + name.size();
    return field_reports(json.substr(start, skip_value(json, start) - start));
}

/** The ReadStatus of a read's status `code`; throws the exception of any other code. */
inline ReadStatus read_status(int code)
{
    switch (code) {
    case NORMCACHE_OK: return ReadStatus::complete;
    case NORMCACHE_STALE: return ReadStatus::stale;
    case NORMCACHE_MISS: return ReadStatus::miss;
    default: throw_error(code);
    }
}

/** The FullReadResult of a read's status `code` and whole result `json` (any other code throws). */
inline FullReadResult full_read_result(int code, std::string_view json)
{
    FullReadResult result;
    result.status = read_status(code);
    result.json = std::string(json);
    result.oldest_written_at = result_time(json, R"(,"oldestWrittenAt":)");
    result.earliest_expiry = result_time(json, R"(,"earliestExpiry":)");
    result.missing = result_reports(json, R"(,"missing":)");
    result.stale = result_reports(json, R"(,"stale":)");
    // Last when present: after "earliestExpiry", which no document text can follow.
    const std::size_t etag = json.rfind(R"(,"etag":)");
    if (etag != std::string_view::npos && etag > json.rfind(R"(,"earliestExpiry":)")) {
        const std::size_t start = etag + std::string_view(R"(,"etag":)").size();
        result.etag = json_string(json.substr(start, json.size() - 1 - start));
    }
    return result;
}

/** The ExecuteResult of one result `json` of the library, with the status `code`. */
inline ExecuteResult execute_result(int code, std::string_view json)
{
    ExecuteResult result;
    result.status = read_status(code);
    result.source = top_level_member(json, "source") == "\"network\"" ? Source::network : Source::cache;
    result.json = std::string(json);
    result.oldest_written_at = json_time(top_level_member(json, "oldestWrittenAt"));
    result.earliest_expiry = json_time(top_level_member(json, "earliestExpiry"));
    const std::string_view errors = top_level_member(json, "errors");
    if (errors != "null") {
        result.errors = std::string(errors);
    }
    const std::string_view fetch_error = top_level_member(json, "fetchError");
    if (fetch_error != "null") {
        result.fetch_error = json_string(fetch_error);
    }
    // Found from the start: the server's "errors" may follow them and hold any text.
    result.missing = field_reports(top_level_member(json, "missing"));
    result.stale = field_reports(top_level_member(json, "stale"));
    return result;
}

/** A max_stale for the C options structs: -1 for nullopt, values above INT64_MAX as INT64_MAX. */
inline std::int64_t native_max_stale(const std::optional<std::uint64_t> &max_stale) noexcept
{
    constexpr auto most = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    return max_stale ? static_cast<std::int64_t>(*max_stale < most ? *max_stale : most) : -1;
}

/** The normcache_execute_options of `options`. */
inline ::normcache_execute_options native_execute_options(const ExecuteOptions &options) noexcept
{
    ::normcache_execute_options native{};
    native.size = sizeof native;
    native.policy = static_cast<int>(options.policy);
    native.error_policy = static_cast<int>(options.error_policy);
    native.max_stale = native_max_stale(options.max_stale);
    return native;
}

/** The normcache_read_options of `options`. */
inline ::normcache_read_options native_read_options(const ReadOptions &options) noexcept
{
    ::normcache_read_options native{};
    native.size = sizeof native;
    native.flags = options.partial ? NORMCACHE_READ_PARTIAL : 0u;
    native.max_stale = native_max_stale(options.max_stale);
    return native;
}

/** The normcache_write_options of `options`, whose views it points at. */
inline ::normcache_write_options native_write_options(const WriteOptions &options) noexcept
{
    ::normcache_write_options native{};
    native.size = sizeof native;
    native.max_age = options.max_age ? static_cast<std::int64_t>(*options.max_age) : -1;
    set_header(options.cache_control, native.cache_control, native.cache_control_len);
    set_header(options.age, native.age, native.age_len);
    set_header(options.date, native.date, native.date_len);
    set_header(options.expires, native.expires, native.expires_len);
    native.flags = options.strict_keys ? NORMCACHE_WRITE_STRICT_KEYS : 0u;
    set_header(options.etag, native.etag, native.etag_len);
    return native;
}

/** An optional string as the optional view WriteOptions takes. */
inline std::optional<std::string_view> view_of(const std::optional<std::string> &text) noexcept
{
    return text ? std::optional<std::string_view>(*text) : std::nullopt;
}

/** A (pointer, length) text of the C interface as a view; nullopt for NULL. */
inline std::optional<std::string_view> text_of(const char *text, std::size_t length) noexcept
{
    return text != nullptr ? std::optional<std::string_view>(std::string_view(text, length)) : std::nullopt;
}

/**
 * One execute call's callbacks, the context of both trampolines, and what they caught:
 * the exceptions are kept here, never thrown through the library, and rethrown by
 * finish once the C call has returned.
 */
struct Execution {
    const Fetch *fetch;                     ///< the caller's fetch (may be empty)
    const ResultCallback *on_result;        ///< the caller's result callback (may be empty)
    std::exception_ptr fetch_failure = {};  ///< what the fetch threw, other than FetchError
    std::exception_ptr result_failure = {}; ///< what on_result threw first

    /** The last result of the call that returned `code` and `json`; rethrows what a callback threw. */
    ExecuteResult finish(int code, std::string_view json) const
    {
        if (fetch_failure) {
            std::rethrow_exception(fetch_failure);
        }
        if (result_failure) {
            std::rethrow_exception(result_failure);
        }
        return execute_result(code, json);
    }
};

/**
 * The C fetch callback over an Execution (`context`): calls the Fetch and answers with
 * its FetchReply. Catches everything (see Cache::execute): a FetchError is answered as
 * a failed fetch; any other exception, or a reply the library refuses, is kept in the
 * Execution and the reply left unanswered, which fails the call without a fallback.
 */
inline int fetch_trampoline(void *context, const ::normcache_fetch_request *request,
                            ::normcache_fetch_reply *reply) noexcept
{
    Execution &execution = *static_cast<Execution *>(context);
    try {
        const FetchRequest cpp_request{text_of(request->document, request->document_len).value_or(""),
                                       text_of(request->operation_name, request->operation_name_len),
                                       text_of(request->variables_json, request->variables_len).value_or(""),
                                       text_of(request->key, request->key_len)};
        const FetchReply answer = (*execution.fetch)(cpp_request);
        const ::normcache_write_options headers = native_write_options(
            WriteOptions{answer.max_age, view_of(answer.cache_control), view_of(answer.age), view_of(answer.date),
                         view_of(answer.expires), answer.strict_keys, view_of(answer.etag)});
        check(normcache_fetch_reply_set(reply, answer.body.data(), answer.body.size(), &headers));
    } catch (const FetchError &error) {
        const char *message = error.what();
        normcache_fetch_reply_error(reply, message, std::char_traits<char>::length(message));
    } catch (...) {
        execution.fetch_failure = std::current_exception();
    }
    return NORMCACHE_OK;
}

/**
 * The C result callback over an Execution (`context`): hands the result to the
 * ResultCallback. The first exception it throws is kept, and later results are not
 * delivered.
 */
inline void result_trampoline(void *context, int status, const char *json, std::size_t length) noexcept
{
    Execution &execution = *static_cast<Execution *>(context);
    if (execution.result_failure) {
        return;
    }
    try {
        (*execution.on_result)(execute_result(status, std::string_view(json, length)));
    } catch (...) {
        execution.result_failure = std::current_exception();
    }
}

} // namespace detail

/* ---------------------------------------------------------------------------
 * Watchers
 * ------------------------------------------------------------------------- */

/** A watcher's callback: gets each new result of the watched read (see Cache::watch). */
using WatchCallback = std::function<void(const FullReadResult &result)>;

/**
 * A watched read, from Cache::watch: normcache_unwatch in close() or, quietly, in the
 * destructor. Move-only. Its callback gets the read's result at once, then each
 * different result after a commit that changes what the last read used (see
 * normcache_watch). A callback must not throw into the library: an exception it
 * throws (or a failed read) ends the watch, and close() rethrows it.
 */
class Watcher {
public:
    /** A watcher that watches nothing (is_active() is false). */
    Watcher() = default;
    Watcher(const Watcher &) = delete;
    Watcher &operator=(const Watcher &) = delete;
    /** Takes over `other`'s watch. */
    Watcher(Watcher &&other) noexcept : watcher_(other.watcher_), state_(std::move(other.state_)) { other.watcher_ = nullptr; }
    /** Ends this watch (quietly) and takes over `other`'s. */
    Watcher &operator=(Watcher &&other) noexcept
    {
        if (this != &other) {
            normcache_unwatch(watcher_);
            watcher_ = other.watcher_;
            state_ = std::move(other.state_);
            other.watcher_ = nullptr;
        }
        return *this;
    }
    /** Ends the watch; never throws (what a callback threw is dropped). */
    ~Watcher() { normcache_unwatch(watcher_); }

    /** Whether the watch runs: started, not closed, its callback never threw. */
    bool is_active() const noexcept { return watcher_ != nullptr && state_ && !state_->failure; }

    /** Ends the watch (safe from inside its callback); rethrows what its callback threw. */
    void close()
    {
        ::normcache_watcher *watcher = watcher_;
        watcher_ = nullptr;
        normcache_unwatch(watcher);
        if (state_ && state_->failure) {
            std::exception_ptr failure = state_->failure;
            state_->failure = nullptr;
            std::rethrow_exception(failure);
        }
    }

    /** The C watcher, owned by this object (nullptr when closed). */
    ::normcache_watcher *native_handle() const noexcept { return watcher_; }

private:
    friend class Cache;

    /** What the C callback reaches: the callback and the first exception it threw. */
    struct State {
        WatchCallback callback;
        std::exception_ptr failure = nullptr;
    };

    /** The C callback over a State: hands each result on; keeps the first exception. */
    static void trampoline(void *context, int status, const char *json, std::size_t length) noexcept
    {
        State &state = *static_cast<State *>(context);
        if (state.failure) {
            return;
        }
        try {
            if (status < 0) {
                detail::throw_error(status);
            }
            state.callback(detail::full_read_result(status, std::string_view(json, length)));
        } catch (...) {
            state.failure = std::current_exception();
        }
    }

    ::normcache_watcher *watcher_ = nullptr;
    std::unique_ptr<State> state_;
};

/* ---------------------------------------------------------------------------
 * The cache
 * ------------------------------------------------------------------------- */

/**
 * An open cache: normcache_open in the constructor, normcache_close in close() or,
 * quietly, in the destructor. Move-only. Record methods take and return the JSON
 * notation of include/normcache.h. A closed (or moved-from) Cache throws ClosedError
 * ("the cache is closed") from every method but close(), is_open(), native_handle() and
 * the static ones.
 *
 * GraphQL: load_schema and configure set the key rules (save_rules keeps them in the
 * file for every handle that opens it), prepare compiles an Operation,
 * write and read store and rebuild its responses, read_fragment and write_fragment
 * reach one record through a fragment. Variables are a JSON object, or empty for none.
 *
 * Freshness: write with WriteOptions gives what it stores a lifetime, read_result
 * returns stale data within a max_stale and the times of what it read, invalidate and
 * invalidate_prefix mark data stale, and set_clock sets the time a test runs at. The
 * max-age rules come from the schema (@cacheControl) and configure ("maxAges",
 * "defaultMaxAge").
 *
 * Fetching: execute runs an operation as a client does, under a Policy, reading the
 * cache and calling a Fetch as the policy says and writing what the network answers;
 * put_document, get_document and execute_document keep plain JSON documents (REST).
 */
class Cache {
public:
    /**
     * Opens (and, unless read-only, creates) the cache at `path` with `options_json`
     * (empty: the defaults; see normcache_open for the options). Throws the Error of
     * the failure: InvalidArgumentError, JSONError, NotACacheError, StorageError,
     * OutOfMemoryError.
     */
    explicit Cache(std::string_view path, std::string_view options_json = {})
    {
        detail::check(normcache_open(path.data(), path.size(), options_json.data(),
                                     options_json.size(), &handle_));
    }

    /** Not copyable: one object closes one handle. */
    Cache(const Cache &) = delete;
    /** Not copyable: one object closes one handle. */
    Cache &operator=(const Cache &) = delete;

    /** Takes over the handle of `other` (and the clocks it set), which is left closed. */
    Cache(Cache &&other) noexcept
        : handle_(std::exchange(other.handle_, nullptr)), clocks_(std::move(other.clocks_))
    {
    }

    /** Closes this cache quietly (then drops its clocks), then takes over the handle of `other`. */
    Cache &operator=(Cache &&other) noexcept
    {
        if (this != &other) {
            normcache_close(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
            clocks_ = std::move(other.clocks_);
        }
        return *this;
    }

    /** Closes the cache, ignoring any error (call close() to see one); then drops its clocks. */
    ~Cache() { normcache_close(handle_); }

    /**
     * Closes the cache; does nothing when it is already closed. The clocks set with
     * set_clock(Clock) are destroyed once the library has let go of the handle. Throws on
     * failure.
     */
    void close()
    {
        const int code = normcache_close(std::exchange(handle_, nullptr));
        if (code == NORMCACHE_OK) {
            clocks_.clear();
        }
        detail::check(code);
    }

    /** Whether the cache is open (not closed, not moved from). */
    bool is_open() const noexcept { return handle_ != nullptr; }

    /**
     * Stops the calls running on this cache on other threads (normcache_interrupt): each
     * throws Interrupted at its next check, having changed nothing; with no call running,
     * does nothing. Throws ClosedError when the cache is closed. A signal handler calls
     * normcache_interrupt(native_handle()) itself: this method may throw.
     */
    void interrupt() const
    {
        if (normcache_interrupt(live()) != NORMCACHE_OK) {
            throw ClosedError(NORMCACHE_EINVAL, "the cache is closed");
        }
    }

    /** The C handle, for calls this binding does not wrap; nullptr when closed. */
    ::normcache *native_handle() const noexcept { return handle_; }

    /**
     * Begins a write transaction for the calling thread (normcache_begin; see
     * "Transactions" in normcache.h): this thread's calls on this cache run inside it
     * until commit() or rollback(), and it holds the file's single writer lock. Prefer
     * the RAII Transaction. Throws InvalidArgument when this thread has one open.
     */
    void begin() { detail::check(normcache_begin(live())); }

    /** Commits the calling thread's transaction (normcache_commit); it has ended either way. */
    void commit() { detail::check(normcache_commit(live())); }

    /** Drops the calling thread's transaction (normcache_rollback). */
    void rollback() { detail::check(normcache_rollback(live())); }

    /**
     * Merges `records_json` into the cache in one atomic write and returns the raw
     * JSON array of changed "recordKey.fieldKey" strings, in input order.
     */
    std::string put_json(std::string_view records_json)
    {
        Buffer changed;
        detail::check(normcache_put(live(), records_json.data(), records_json.size(),
                                    changed.out(), changed.out_len()));
        return changed.str();
    }

    /** Merges `records_json` into the cache and returns the changed keys, in input order. */
    std::vector<std::string> put(std::string_view records_json)
    {
        return detail::parse_string_array(put_json(records_json));
    }

    /** The Apollo cache formats of import_records and export_records. */
    enum class Format : int {
        /** Apollo Client's cache.extract() JSON. */
        apollo_client = NORMCACHE_FORMAT_APOLLO_CLIENT,
        /** Apollo iOS's SQLite rows as a JSON object of record key to record text. */
        apollo_ios = NORMCACHE_FORMAT_APOLLO_IOS,
    };

    /**
     * Merges the records of an Apollo cache, `data` in `format`, in one atomic write and
     * returns the changed "recordKey.fieldKey" strings; malformed data, or a reference to
     * a record `data` does not hold, throws and writes nothing. See normcache_import.
     */
    std::vector<std::string> import_records(Format format, std::string_view data)
    {
        Buffer changed;
        detail::check(normcache_import(live(), static_cast<int>(format), data.data(), data.size(),
                                       changed.out(), changed.out_len()));
        return detail::parse_string_array(changed.str());
    }

    /** Every record of the cache, as of one moment, in `format`. See normcache_export. */
    std::string export_records(Format format)
    {
        Buffer json;
        detail::check(normcache_export(live(), static_cast<int>(format), json.out(), json.out_len()));
        return json.str();
    }

    /** The record at `key` as a JSON object of its fields, or nullopt when there is none. */
    std::optional<std::string> get(std::string_view key)
    {
        Buffer record;
        const int code = normcache_get(live(), key.data(), key.size(), record.out(),
                                       record.out_len());
        if (code == NORMCACHE_NOTFOUND) {
            return std::nullopt;
        }
        detail::check(code);
        return record.str();
    }

    /** Deletes the record at `key`; true when there was one. */
    bool remove(std::string_view key)
    {
        return detail::check_found(normcache_remove(live(), key.data(), key.size()));
    }

    /**
     * Deletes the field `field` of the record at `key` (its storage key as stored, byte
     * for byte: `feed(first:10)` of `QUERY_ROOT`), so that the next read of it misses;
     * a record left without fields is deleted. True when the field was there; false when
     * the record or the field was absent. See normcache_remove_field.
     */
    bool remove_field(std::string_view key, std::string_view field)
    {
        return detail::check_found(
            normcache_remove_field(live(), key.data(), key.size(), field.data(), field.size()));
    }

    /** Deletes every record whose key starts with `prefix` (not empty); returns how many. */
    std::uint64_t remove_prefix(std::string_view prefix)
    {
        std::uint64_t count = 0;
        detail::check(normcache_remove_prefix(live(), prefix.data(), prefix.size(), &count));
        return count;
    }

    /**
     * The keys that start with `prefix` (empty: all), in byte order, strictly after
     * `after` when given, at most `limit` of them (0: no limit).
     */
    std::vector<std::string> search(std::string_view prefix,
                                    std::optional<std::string_view> after = std::nullopt,
                                    std::size_t limit = 0)
    {
        Buffer keys;
        detail::check(normcache_search(live(), prefix.data(), prefix.size(),
                                       after ? after->data() : nullptr, after ? after->size() : 0,
                                       limit, keys.out(), keys.out_len()));
        return detail::parse_string_array(keys.view());
    }

    /** Deletes every record. */
    void clear() { detail::check(normcache_clear(live())); }

    /** Facts about the cache as a JSON object (see normcache_stats). */
    std::string stats()
    {
        Buffer json;
        detail::check(normcache_stats(live(), json.out(), json.out_len()));
        return json.str();
    }

    /** Each key group's records, bytes and oldest and newest write, as the JSON array of normcache_key_groups. */
    std::string key_groups()
    {
        Buffer json;
        detail::check(normcache_key_groups(live(), json.out(), json.out_len()));
        return json.str();
    }

    /**
     * Removes the records no root reaches (QUERY_ROOT, MUTATION_ROOT, SUBSCRIPTION_ROOT,
     * documents, retained keys) in one write transaction, and what `options` ask; returns
     * the report, the JSON object normcache_gc documents ("removed_records", "groups", ...).
     * Throws InvalidArgumentError (a negative stale_grace), ReadOnlyError, StorageError,
     * NotACacheError, ClosedError.
     */
    std::string gc(const GCOptions &options = GCOptions())
    {
        normcache_gc_options c_options = {sizeof c_options, 0u, -1};
        if (options.dry_run)
            c_options.flags |= NORMCACHE_GC_DRY_RUN;
        if (options.dangling)
            c_options.flags |= NORMCACHE_GC_DANGLING;
        if (options.stale_grace)
            c_options.stale_grace = *options.stale_grace < 0 ? -2 : *options.stale_grace;
        Buffer json;
        detail::check(normcache_gc(live(), &c_options, json.out(), json.out_len()));
        return json.str();
    }

    /**
     * Retains the record key `key` (a root of gc until released as often; the count is
     * kept in the file, shared by every process); returns the new count. Throws
     * InvalidArgumentError (an empty, non-UTF-8 or over-504-byte key), ReadOnlyError,
     * ClosedError.
     */
    std::uint32_t retain(std::string_view key)
    {
        std::uint32_t count = 0;
        detail::check(normcache_retain(live(), key.data(), key.size(), &count));
        return count;
    }

    /**
     * Releases `key` once; returns the count left. Throws InvalidArgumentError ("'KEY' is
     * not retained") for a key not retained: a count never goes below zero.
     */
    std::uint32_t release(std::string_view key)
    {
        std::uint32_t count = 0;
        detail::check(normcache_release(live(), key.data(), key.size(), &count));
        return count;
    }

    /**
     * Writes a compacted, consistent copy of the cache to the new file `path`, while
     * other threads and processes go on writing (see normcache_copy). Throws
     * InvalidArgumentError when `path` exists, is empty or holds a NUL byte, StorageError when
     * it cannot be created.
     */
    void copy_to(std::string_view path) { detail::check(normcache_copy(live(), path.data(), path.size())); }

    /**
     * Shrinks the cache file at `path` in place, without its free pages, when no handle
     * and no process has it open; `options_json` the options it is opened with (empty:
     * the defaults; "max_readers" applies, see normcache_compact). Returns the report,
     * {"bytes_before": n, "bytes_after": n}. Throws InvalidArgumentError (an empty path,
     * a directory, the file open in this process), ReadOnlyError ("read_only": true),
     * NotACacheError (not a cache, truncated), StorageError (no such file, another
     * process has it open: the message names the file and the pid). Nothing is changed
     * when it throws.
     */
    static std::string compact(std::string_view path, std::string_view options_json = {})
    {
        Buffer json;
        detail::check(normcache_compact(path.data(), path.size(), options_json.data(), options_json.size(), json.out(),
                                        json.out_len()));
        return json.str();
    }

    /**
     * Evicts the least recently written records, whole, until the data ("data_bytes" of
     * stats()) is at most `max_bytes` or only the roots are left, in one atomic write;
     * returns the report as a JSON object (see normcache_trim). Throws
     * InvalidArgumentError for a negative `max_bytes`, ReadOnlyError, StorageError, or
     * ClosedError.
     */
    std::string trim(std::int64_t max_bytes)
    {
        Buffer json;
        detail::check(normcache_trim(live(), max_bytes, json.out(), json.out_len()));
        return json.str();
    }

    /* GraphQL operations ------------------------------------------------------ */

    /**
     * Loads a schema (SDL, with Apollo's @typePolicy and @fieldPolicy) for the
     * operations prepared afterwards. Throws SchemaError (line and column in the
     * message), or ClosedError.
     */
    void load_schema(std::string_view sdl)
    {
        detail::check(normcache_load_schema(live(), sdl.data(), sdl.size()));
    }

    /**
     * Adds key rules without SDL: {"typePolicies": ..., "fieldPolicies": ...,
     * "possibleTypes": ..., "defaultKeyFields": ..., "storeMutationRoot": ...} (see
     * normcache_configure), for the operations prepared afterwards. Throws
     * InvalidArgumentError, JSONError or ClosedError.
     */
    void configure(std::string_view config_json)
    {
        detail::check(normcache_configure(live(), config_json.data(), config_json.size()));
    }

    /**
     * Saves this handle's rules (its schema's SDL and its configurations) in the cache
     * file, for every handle opened on it afterwards (see normcache_save_rules and
     * "Saved rules" in normcache.h). Throws InvalidArgumentError (no rules to save),
     * ReadOnlyError, StorageError or ClosedError.
     */
    void save_rules() { detail::check(normcache_save_rules(live())); }

    /**
     * Removes the rules saved in the cache file; true when there were some. Throws
     * ReadOnlyError, StorageError or ClosedError.
     */
    bool clear_saved_rules() { return detail::check_found(normcache_clear_saved_rules(live())); }

    /**
     * Parses, validates and compiles the operation `name` of `document` (nullopt: its
     * only operation; a document of fragments alone gives the fragment `name`, or its
     * only one, for read_fragment and write_fragment). Throws DocumentError (line and
     * column in the message; also for a document past the open options
     * max_document_bytes or max_document_tokens) or ClosedError.
     */
    Operation prepare(std::string_view document,
                      std::optional<std::string_view> name = std::nullopt)
    {
        ::normcache_op *op = nullptr;
        detail::check(normcache_prepare(live(), document.data(), document.size(),
                                        name ? name->data() : nullptr, name ? name->size() : 0,
                                        &op));
        return Operation(op);
    }

    /**
     * The records of `response_json` ({"data": ..., "errors": ...}) for `operation`,
     * as a JSON object of records, touching no cache ({} without data). Throws
     * JSONError, DataError (the message names the response path), CallbackError (a
     * key resolver failed) or ClosedError (an empty Operation).
     */
    static std::string normalize(const Operation &operation, std::string_view response_json,
                                 std::string_view variables_json = {})
    {
        Buffer records;
        detail::check(normcache_normalize(operation.live(), variables_json.data(),
                                          variables_json.size(), response_json.data(),
                                          response_json.size(), records.out(),
                                          records.out_len()));
        return records.str();
    }

    /**
     * Normalizes `response_json` for `operation` and merges its records in one atomic
     * write; returns the changed "recordKey.fieldKey" strings, in input order. All or
     * nothing. Throws as normalize and put do.
     */
    std::vector<std::string> write(const Operation &operation, std::string_view response_json,
                                   std::string_view variables_json = {})
    {
        Buffer changed;
        detail::check(normcache_write(live(), operation.live(), variables_json.data(),
                                      variables_json.size(), response_json.data(),
                                      response_json.size(), changed.out(), changed.out_len()));
        return detail::parse_string_array(changed.view());
    }

    /**
     * Normalizes `response_json` for `operation` and merges its records as write does,
     * with the lifetime `options` gives (a max_age of the caller's and the response's
     * caching headers; see WriteOptions and normcache_write_ex). Returns whether the
     * response was stored (not with Cache-Control: no-store, which writes and
     * normalizes nothing) and the changed keys. The variables come before the options
     * here (pass "" for none). Throws as write does, and InvalidArgumentError for a
     * max_age above NORMCACHE_MAX_AGE_LIMIT or a malformed Cache-Control, Age or Date
     * value (the message names the header and the byte); nothing is written then.
     */
    WriteResult write(const Operation &operation, std::string_view response_json,
                      std::string_view variables_json, const WriteOptions &options)
    {
        return write_with(options, [&](const ::normcache_write_options &native, Buffer &changed) {
            return normcache_write_ex(live(), operation.live(), variables_json.data(), variables_json.size(),
                                      response_json.data(), response_json.size(), &native, changed.out(),
                                      changed.out_len());
        });
    }

    /**
     * Merges `records_json` as put does, with the lifetime `options` gives
     * (normcache_put_ex): the fields it gives are stamped, the records' other fields keep
     * their times. Returns whether it was stored (not with Cache-Control: no-store, which
     * writes and parses nothing) and the changed keys; key_fallbacks is 0. Throws as put
     * does, and InvalidArgumentError for bad options, as write with WriteOptions.
     */
    WriteResult put(std::string_view records_json, const WriteOptions &options)
    {
        return write_with(options, [&](const ::normcache_write_options &native, Buffer &changed) {
            return normcache_put_ex(live(), records_json.data(), records_json.size(), &native, changed.out(),
                                    changed.out_len());
        });
    }

    /**
     * The records of `response_json` as normalize gives them, and how many objects were
     * keyed by path for want of their key fields (normcache_normalize_ex); with
     * `strict_keys` the first such object throws DataError instead. Throws as normalize.
     */
    static NormalizeResult normalize_result(const Operation &operation, std::string_view response_json,
                                            std::string_view variables_json = {}, bool strict_keys = false)
    {
        Buffer records;
        std::size_t fallbacks = 0;
        detail::check(normcache_normalize_ex(operation.live(), variables_json.data(), variables_json.size(),
                                             response_json.data(), response_json.size(),
                                             strict_keys ? NORMCACHE_WRITE_STRICT_KEYS : 0u, &fallbacks,
                                             records.out(), records.out_len()));
        return NormalizeResult{records.str(), fallbacks};
    }

    /**
     * Rebuilds the data of `operation` from the cache: a hit, or a miss with the
     * missing paths (and, with `partial`, the data with those parts null); see
     * ReadResult. Throws JSONError (variables), DataError (a stored null in a non-null
     * position), InvalidArgumentError (a fragment), ClosedError, NotACacheError,
     * StorageError.
     */
    ReadResult read(const Operation &operation, std::string_view variables_json = {},
                    bool partial = false)
    {
        Buffer json;
        const int code = normcache_read(live(), operation.live(), variables_json.data(),
                                        variables_json.size(), partial ? NORMCACHE_READ_PARTIAL : 0u,
                                        json.out(), json.out_len());
        return read_outcome(code, json);
    }

    /**
     * Watches `operation` (with a `key`: a fragment at that record) with
     * `variables_json`: `callback` gets the result now, then each different result after
     * a commit of this process that changes what the last read used; other processes'
     * commits after dispatch_changes() (see normcache_watch). Reads never miss for age:
     * stale data comes with ReadStatus::stale. Throws as read_result does;
     * InvalidArgumentError for an empty callback.
     */
    Watcher watch(const Operation &operation, std::string_view variables_json, WatchCallback callback,
                  std::optional<std::string_view> key = std::nullopt)
    {
        if (!callback) {
            throw InvalidArgumentError(NORMCACHE_EINVAL, "the watch callback is empty");
        }
        Watcher watcher;
        watcher.state_ = std::make_unique<Watcher::State>(Watcher::State{std::move(callback)});
        const char *key_data = key ? (key->data() != nullptr ? key->data() : "") : nullptr;
        detail::check(normcache_watch(live(), operation.live(), variables_json.data(), variables_json.size(), key_data,
                                      key ? key->size() : 0, &Watcher::trampoline, watcher.state_.get(), &watcher.watcher_));
        return watcher;
    }

    /**
     * What this handle has read and written since it opened: normcache_metrics's JSON
     * object ({"reads":n,"hits":n,"misses":n,"stale_reads":n,"writes":n,"changed_fields":n}).
     */
    std::string metrics() const
    {
        Buffer json;
        detail::check(normcache_metrics(live(), json.out(), json.out_len()));
        return std::string(json.view());
    }

    /** The id of the newest commit to the file, by any process (normcache_last_commit). */
    std::uint64_t last_commit() const
    {
        std::uint64_t commit = 0;
        detail::check(normcache_last_commit(live(), &commit));
        return commit;
    }

    /** What the commits after `commit` changed: normcache_changes_since's JSON object. */
    std::string changes_since(std::uint64_t commit) const
    {
        Buffer json;
        detail::check(normcache_changes_since(live(), commit, json.out(), json.out_len()));
        return std::string(json.view());
    }

    /**
     * Waits up to `timeout` for a commit newer than `after`, by any process: the newest
     * commit's id, or nullopt when the time ran out (normcache_wait_commit). Throws
     * Interrupted when interrupt() stops it.
     */
    std::optional<std::uint64_t> wait_commit(std::uint64_t after, std::chrono::milliseconds timeout) const
    {
        if (timeout.count() < 0 || timeout.count() > std::numeric_limits<int>::max()) {
            throw InvalidArgumentError(NORMCACHE_EINVAL, "timeout out of range: 0 to INT_MAX milliseconds");
        }
        std::uint64_t newest = 0;
        const int code = normcache_wait_commit(live(), after, static_cast<int>(timeout.count()), &newest);
        if (code == NORMCACHE_TIMEOUT) {
            return std::nullopt;
        }
        detail::check(code);
        return newest;
    }

    /** Hands other processes' commits to this process's watchers; the newest handed over. */
    std::uint64_t dispatch_changes()
    {
        std::uint64_t newest = 0;
        detail::check(normcache_dispatch_changes(live(), &newest));
        return newest;
    }

    /**
     * Reads `operation`, or with a `key` the object at that record through a fragment
     * (as read_fragment), and returns the whole result, a miss or stale data included:
     * the status, normcache_read_ex's object and its two times (see FullReadResult).
     * `options` sets partial data and how stale a returned field may be. Throws as read
     * and read_fragment do (never for a miss); InvalidArgumentError for a fragment
     * without a key, an operation with one, or a key that is empty or not UTF-8.
     */
    FullReadResult read_result(const Operation &operation, std::string_view variables_json = {},
                               const ReadOptions &options = {},
                               std::optional<std::string_view> key = std::nullopt)
    {
        const ::normcache_read_options native = detail::native_read_options(options);
        const char *key_data = key ? (key->data() != nullptr ? key->data() : "") : nullptr;
        Buffer json;
        const int code = normcache_read_ex(live(), operation.live(), key_data, key ? key->size() : 0,
                                           variables_json.data(), variables_json.size(), &native,
                                           json.out(), json.out_len());
        return detail::full_read_result(code, json.view());
    }

    /**
     * Reads the object at the record `key` through `fragment` (prepared from a document
     * of fragments alone), as read does; a record that is not there misses every field
     * the fragment selects. Throws as read; InvalidArgumentError for an operation.
     */
    ReadResult read_fragment(const Operation &fragment, std::string_view key,
                             std::string_view variables_json = {}, bool partial = false)
    {
        Buffer json;
        const int code = normcache_read_fragment(
            live(), fragment.live(), key.data(), key.size(), variables_json.data(),
            variables_json.size(), partial ? NORMCACHE_READ_PARTIAL : 0u, json.out(),
            json.out_len());
        return read_outcome(code, json);
    }

    /**
     * Writes `data_json`, the object `fragment` selects, as the record `key` (objects
     * below it keyed by the rules or by path from `key`) in one atomic write; returns
     * the changed keys as write does. Throws as write; InvalidArgumentError for an operation.
     */
    std::vector<std::string> write_fragment(const Operation &fragment, std::string_view key,
                                            std::string_view data_json,
                                            std::string_view variables_json = {})
    {
        Buffer changed;
        detail::check(normcache_write_fragment(live(), fragment.live(), key.data(),
                                               key.size(), data_json.data(), data_json.size(),
                                               variables_json.data(), variables_json.size(),
                                               changed.out(), changed.out_len()));
        return detail::parse_string_array(changed.view());
    }

    /**
     * Writes `data_json` through `fragment` as write_fragment does, with the lifetime and
     * the key rule `options` give (normcache_write_fragment_ex); returns as write with
     * WriteOptions does. Throws as write_fragment, and as write with WriteOptions.
     */
    WriteResult write_fragment(const Operation &fragment, std::string_view key, std::string_view data_json,
                               std::string_view variables_json, const WriteOptions &options)
    {
        return write_with(options, [&](const ::normcache_write_options &native, Buffer &changed) {
            return normcache_write_fragment_ex(live(), fragment.live(), key.data(), key.size(), data_json.data(),
                                               data_json.size(), variables_json.data(), variables_json.size(),
                                               &native, changed.out(), changed.out_len());
        });
    }

    /**
     * Sets the key resolver of the operations prepared afterwards (an empty function
     * removes it; operations prepared before keep theirs). See KeyResolver: an
     * exception it throws fails the write or normalize with CallbackError, carrying its
     * what().
     *
     * The library owns the resolver from here (normcache_set_key_resolver_v2): it lives
     * while this cache uses it or an Operation prepared with it lives — also after the
     * Cache is closed or destroyed — and is destroyed once, on the thread that lets go of
     * it last (a later set_key_resolver, close() or ~Cache, ~Operation). May be called
     * while other threads use the cache. Throws ClosedError (a closed cache), or
     * InvalidArgumentError when the library refuses the handle (the resolver is
     * destroyed then too).
     */
    void set_key_resolver(KeyResolver resolver)
    {
        ::normcache *handle = live();
        if (!resolver) {
            detail::check(normcache_set_key_resolver_v2(handle, nullptr, nullptr, nullptr));
            return;
        }
        auto *context = new KeyResolver(std::move(resolver));
        // From here the library owns `context`, and destroys it even when this call fails.
        detail::check(normcache_set_key_resolver_v2(handle, detail::resolver_trampoline, context,
                                                    detail::destroy_resolver));
    }

    /**
     * Sets a key resolver written against the C interface (normcache_set_key_resolver):
     * `resolver` is called with `context` as it is, without a std::function between, for
     * a resolver shared with C code. The caller owns `context`: it must stay valid while
     * this cache uses the resolver and while any Operation prepared with it lives. A null
     * `resolver` removes it. Throws ClosedError (a closed cache), or InvalidArgumentError
     * when the library refuses the handle.
     */
    void set_key_resolver(::normcache_key_resolver resolver, void *context)
    {
        detail::check(normcache_set_key_resolver(live(), resolver, context));
    }

    /* Freshness ---------------------------------------------------------------- */

    /**
     * Marks the field `field` (its storage key, exact bytes, as remove_field takes it) of
     * the record `key` stale without deleting it, or every field of the record when
     * `field` is nullopt: reads then miss it with the reason "invalidated", or return it
     * to a read_result whose max_stale allows it, until it is written again. One atomic
     * write. Returns how many fields were marked; 0 when the record or field is absent
     * (nothing is written). Throws InvalidArgumentError (an empty or non-UTF-8 key or
     * field), ReadOnlyError, CallbackError (the clock failed), ClosedError.
     */
    std::uint64_t invalidate(std::string_view key, std::optional<std::string_view> field = std::nullopt)
    {
        std::uint64_t count = 0;
        const char *field_data = field ? (field->data() != nullptr ? field->data() : "") : nullptr;
        detail::check_found(normcache_invalidate(live(), key.data(), key.size(), field_data,
                                                 field ? field->size() : 0, 0u, &count));
        return count;
    }

    /**
     * Marks every field of every record whose key starts with `prefix` (not empty) stale,
     * as invalidate does; returns how many fields were marked (0 when no key matched).
     * Throws as invalidate does.
     */
    std::uint64_t invalidate_prefix(std::string_view prefix)
    {
        std::uint64_t count = 0;
        detail::check_found(normcache_invalidate(live(), prefix.data(), prefix.size(), nullptr, 0,
                                                 NORMCACHE_INVALIDATE_PREFIX, &count));
        return count;
    }

    /**
     * Replaces this cache's clock with `clock` (an empty function brings back the system
     * clock); see Clock. Other Caches, also on the same file, keep theirs.
     *
     * Lifetime: the Cache owns the function. The C interface has no destructor for a
     * clock's context, and a call on another thread may still be inside the clock that a
     * later set_clock replaces, so every function set stays alive until the cache is
     * closed (close(), ~Cache, or a move-assignment over it), after the library has let go
     * of the handle; each set_clock keeps one more. A moved-to Cache takes them over.
     * set_clock must not overlap another set_clock, close() or a move of the same object.
     * Throws ClosedError, or InvalidArgumentError when the library refuses the handle.
     */
    void set_clock(Clock clock)
    {
        ::normcache *handle = live();
        if (!clock) {
            detail::check(normcache_set_clock(handle, nullptr, nullptr));
            return;
        }
        auto owned = std::make_unique<Clock>(std::move(clock));
        clocks_.reserve(clocks_.size() + 1); // so that keeping it cannot fail once the library has it
        detail::check(normcache_set_clock(handle, detail::clock_trampoline, owned.get()));
        clocks_.push_back(std::move(owned));
    }

    /**
     * Sets a clock written against the C interface (normcache_set_clock): `clock` is
     * called with `context` as it is. The caller owns `context`: it must stay valid until
     * the clock is replaced and no call on another thread can still be in it, or the
     * cache is closed. A null `clock` brings back the system clock. Throws ClosedError,
     * or InvalidArgumentError when the library refuses the handle.
     */
    void set_clock(::normcache_clock clock, void *context)
    {
        detail::check(normcache_set_clock(live(), clock, context));
    }

    /* Fetching ------------------------------------------------------------------ */

    /**
     * Runs `operation` with `variables_json` (empty: none) as a client does, under
     * `options.policy` (see Policy and the Fetching section of normcache.h): reads the
     * cache, calls `fetch` when the policy goes to the network, writes what it answers
     * (unless the policy or the reply's Cache-Control: no-store says not to), and
     * returns the last result. `on_result`, when set, gets every result as it comes: a
     * usable cached one first for the policies that follow it with the network's.
     *
     * `fetch` may be empty only when nothing goes to the network (Policy::cache_only for
     * a query; InvalidArgumentError "fetch is NULL, but the call goes to the network"
     * otherwise). It runs on this thread, outside every lock of the library, and may use
     * this cache (read, write, even execute).
     *
     * Exceptions from the callbacks never unwind through the library; each is caught in
     * the C trampoline that called it:
     *  - a FetchError the fetch throws is the network failing: the library gets its
     *    what() as the fetch's error (normcache_fetch_reply_error) and falls back to
     *    usable cached data, whose result then carries fetch_error; with none, execute
     *    throws FetchError with that message;
     *  - any other exception the fetch throws (a bug, std::bad_alloc, the host's own
     *    types) is not a network failure and must not be hidden behind cached data: the
     *    trampoline keeps it and answers nothing, the library fails the call
     *    (NORMCACHE_ECALLBACK) writing nothing and falling back to nothing, and execute
     *    rethrows the original exception, its type intact, once the C call has returned;
     *  - a FetchReply the library refuses (a max_age above NORMCACHE_MAX_AGE_LIMIT, a
     *    header that is not UTF-8) is thrown as that InvalidArgumentError, the same way;
     *  - an exception from on_result is kept and rethrown once the call has returned; the
     *    call runs to its end (what it writes stays written) and later results are not
     *    delivered.
     * Throws FetchError, GraphQLError (ErrorPolicy::none), JSONError or DataError (a
     * reply that cannot be written; nothing is written), InvalidArgumentError (bad
     * options, variables or headers, a fragment, a subscription), ClosedError, and the
     * errors of write.
     */
    ExecuteResult execute(const Operation &operation, std::string_view variables_json,
                          const ExecuteOptions &options, const Fetch &fetch,
                          const ResultCallback &on_result = {})
    {
        const ::normcache_execute_options native = detail::native_execute_options(options);
        detail::Execution execution{&fetch, &on_result};
        Buffer json;
        const int code = normcache_execute(
            live(), operation.live(), variables_json.data(), variables_json.size(), &native,
            fetch ? detail::fetch_trampoline : nullptr, &execution,
            on_result ? detail::result_trampoline : nullptr, &execution, json.out(), json.out_len());
        return execution.finish(code, json.view());
    }

    /**
     * Stores `json` (any JSON value, kept as written: digits, spaces, member order) as
     * the document `key` ("GET /articles?page=1"), replacing one there, with the
     * lifetime `options` gives (none by default: it never expires). Returns false when
     * the options say Cache-Control: no-store (nothing is written). With entity rules
     * (configure's "documents"), the entities found in it are merged into their records
     * in the same write (see normcache_put_document). Throws JSONError,
     * InvalidArgumentError (an empty or non-UTF-8 key, a record of fields under `key`,
     * bad options, an entity keyed as a document), ReadOnlyError, ClosedError.
     */
    bool put_document(std::string_view key, std::string_view json, const WriteOptions &options = {})
    {
        const ::normcache_write_options native = detail::native_write_options(options);
        const int code = normcache_put_document(live(), key.data(), key.size(), json.data(), json.size(), &native);
        if (code != NORMCACHE_OK && code != NORMCACHE_NOTSTORED) {
            detail::throw_error(code);
        }
        return code == NORMCACHE_OK;
    }

    /**
     * The document `key` with its freshness, a miss included (never an exception for
     * one): the status and normcache_get_document's object, whose "data" is the
     * document as written, or as its entities' records hold them now for a document
     * stored with entities ({"data":<document>|null,"missing":[...],"stale":[...],
     * "oldestWrittenAt":n,"earliestExpiry":n|null}), and the two times. An absent
     * document is a miss with one "missing" entry {"path":[],"reason":"absent",
     * "record":"<key>"}. `etag` is the entity-tag the document was stored with, if any.
     * `options` as for read_result (max_stale, partial). Throws
     * InvalidArgumentError (an empty or non-UTF-8 key, a record of fields), ClosedError.
     */
    FullReadResult get_document(std::string_view key, const ReadOptions &options = {})
    {
        const ::normcache_read_options native = detail::native_read_options(options);
        Buffer json;
        const int code = normcache_get_document(live(), key.data(), key.size(), &native, json.out(), json.out_len());
        return detail::full_read_result(code, json.view());
    }

    /**
     * Renews the freshness of the document `key` after a 304 Not Modified (see
     * normcache_refresh_document): the lifetime `options` gives (the 304's headers),
     * stamped now, without rewriting the body; entity fields the document's own write
     * stamped are re-stamped too. `options.etag`, when given, replaces the stored one.
     * Returns Refresh::absent when there is no such document, Refresh::not_stored for
     * Cache-Control: no-store. Throws InvalidArgumentError (an empty or non-UTF-8 key, a
     * record of fields, bad options), ReadOnlyError, ClosedError.
     */
    Refresh refresh_document(std::string_view key, const WriteOptions &options = {})
    {
        const ::normcache_write_options native = detail::native_write_options(options);
        const int code = normcache_refresh_document(live(), key.data(), key.size(), &native);
        switch (code) {
        case NORMCACHE_OK: return Refresh::refreshed;
        case NORMCACHE_MISS: return Refresh::absent;
        case NORMCACHE_NOTSTORED: return Refresh::not_stored;
        default: detail::throw_error(code);
        }
    }

    /**
     * Runs a fetch policy for the document `key`, as execute does for an operation: the
     * fetch gets a FetchRequest whose `key` is set (the document and variables empty)
     * and answers the body with its caching headers (or a max_age of the host's), which
     * is stored as put_document stores it. The REST flow "the cache while younger than
     * 30 minutes, else the API" is Policy::cache_first with a reply whose max_age is
     * 1800. A network result's data is the body as it came. `options.error_policy` does
     * not apply. Throws as execute does; JSONError for a body that is not JSON (nothing
     * is written).
     */
    ExecuteResult execute_document(std::string_view key, const ExecuteOptions &options, const Fetch &fetch,
                                   const ResultCallback &on_result = {})
    {
        const ::normcache_execute_options native = detail::native_execute_options(options);
        detail::Execution execution{&fetch, &on_result};
        Buffer json;
        const int code = normcache_execute_document(
            live(), key.data(), key.size(), &native, fetch ? detail::fetch_trampoline : nullptr, &execution,
            on_result ? detail::result_trampoline : nullptr, &execution, json.out(), json.out_len());
        return execution.finish(code, json.view());
    }

    /** The version of the loaded library, "MAJOR.MINOR.PATCH". */
    static std::string version() { return normcache_version(); }

    /**
     * The version of the loaded library as one integer, MAJOR * 1000000 + MINOR * 1000 +
     * PATCH, to compare with NORMCACHE_VERSION_NUMBER of the header compiled against.
     */
    static int version_number() noexcept { return normcache_version_number(); }

    /**
     * Frees the memory the library keeps between calls (normcache_release_memory): the
     * large blocks that writes and reads let go, kept so that the next call faults in no
     * fresh pages. Returns the bytes of memory the freed blocks held. Process-wide;
     * thread-safe.
     */
    static std::size_t release_memory() noexcept
    {
        std::size_t released = 0;
        normcache_release_memory(&released);
        return released;
    }

private:
    /** The ReadResult of a read's `code` and output; throws on a failure. */
    static ReadResult read_outcome(int code, const Buffer &json)
    {
        if (code != NORMCACHE_OK && code != NORMCACHE_MISS) {
            detail::throw_error(code);
        }
        return ReadResult{code == NORMCACHE_OK, json.str()};
    }

    /**
     * Runs a write that takes normcache_write_options: `call(native, changed)` makes the
     * C call with `options` as the library takes them, counting the key fallbacks;
     * returns its WriteResult, or throws on a failure.
     */
    template <typename Call>
    static WriteResult write_with(const WriteOptions &options, Call call)
    {
        ::normcache_write_options native = detail::native_write_options(options);
        std::size_t fallbacks = 0;
        native.key_fallbacks = &fallbacks;
        Buffer changed;
        const int code = call(static_cast<const ::normcache_write_options &>(native), changed);
        if (code != NORMCACHE_OK && code != NORMCACHE_NOTSTORED) {
            detail::throw_error(code);
        }
        return WriteResult{code == NORMCACHE_OK, detail::parse_string_array(changed.view()), fallbacks};
    }

    /** The C handle; throws ClosedError when the cache is closed or moved from. */
    ::normcache *live() const
    {
        if (handle_ == nullptr) {
            throw ClosedError(NORMCACHE_EINVAL, "the cache is closed");
        }
        return handle_;
    }

    ::normcache *handle_ = nullptr;
    /** Every Clock set on this handle, kept until it is closed (see set_clock). */
    std::vector<std::unique_ptr<Clock>> clocks_;
};

/**
 * A write transaction as a scope: the constructor begins it on `cache` for the calling
 * thread, commit() commits it, and the destructor rolls it back unless it was committed
 * (it never throws: a failed rollback is ignored, as the transaction has ended anyway).
 *
 *     NormCache::Transaction tx(cache);
 *     cache.put_json(...);
 *     cache.remove("A:1");
 *     tx.commit();
 *
 * Use it on one thread (the transaction belongs to the thread that began it); it cannot
 * be copied or moved.
 */
class Transaction {
public:
    /** Begins a transaction on `cache`, which must outlive this object. */
    explicit Transaction(Cache &cache) : cache_(cache) { cache_.begin(); }

    Transaction(const Transaction &) = delete;
    Transaction &operator=(const Transaction &) = delete;

    /** Rolls the transaction back unless it was committed or rolled back. */
    ~Transaction()
    {
        if (open_ && cache_.native_handle() != nullptr) {
            normcache_rollback(cache_.native_handle());
        }
    }

    /** Commits; the transaction has ended whether this returns or throws. */
    void commit()
    {
        open_ = false;
        cache_.commit();
    }

    /** Drops everything the transaction wrote. */
    void rollback()
    {
        open_ = false;
        cache_.rollback();
    }

private:
    Cache &cache_;
    bool open_ = true;
};

} // namespace NormCache

#endif /* NORMCACHE_HPP */
