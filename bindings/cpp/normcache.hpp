/*
 * normcache.hpp — the C++17 binding of normcache, header-only, over include/normcache.h.
 *
 * One move-only RAII class, NormCache::Cache, wraps an open cache handle; strings go
 * in as std::string_view (any bytes, no NUL needed) and come out as std::string.
 * Every failure of the C interface becomes an exception derived from
 * NormCache::Error, carrying the status code and the library's message; the mapping
 * from codes to exception types lives in one place, detail::throw_error.
 *
 * The namespace is NormCache (as the Swift module) rather than normcache because the
 * C header declares `struct normcache` and `typedef ... normcache` at global scope, and
 * C++ forbids a namespace of the same name beside them.
 *
 * Thread safety follows the C interface: one Cache may be used from many threads at
 * once, except that moving, assigning, closing or destroying it must not overlap other
 * calls on the same object.
 */
#ifndef NORMCACHE_HPP
#define NORMCACHE_HPP

#include "normcache.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
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

/** NORMCACHE_EINVAL: a NULL or empty argument, an unknown option, a closed cache. */
class InvalidArgument : public Error {
public:
    using Error::Error;
};

/** NORMCACHE_EJSON: JSON that is malformed, not UTF-8, too deep or of the wrong shape. */
class JsonError : public Error {
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
class OutOfMemory : public Error {
public:
    using Error::Error;
};

/** NORMCACHE_ENOTCACHE: the file is not a normcache cache, is damaged, or is too new. */
class NotACache : public Error {
public:
    using Error::Error;
};

/** NORMCACHE_EREADONLY: a write on a cache opened read-only. */
class ReadOnly : public Error {
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
    case NORMCACHE_EINVAL: throw InvalidArgument(code, message);
    case NORMCACHE_EJSON: throw JsonError(code, message);
    case NORMCACHE_EDOCUMENT: throw DocumentError(code, message);
    case NORMCACHE_ESCHEMA: throw SchemaError(code, message);
    case NORMCACHE_EDATA: throw DataError(code, message);
    case NORMCACHE_ESTORAGE: throw StorageError(code, message);
    case NORMCACHE_ECALLBACK: throw CallbackError(code, message);
    case NORMCACHE_ENOMEM: throw OutOfMemory(code, message);
    case NORMCACHE_ENOTCACHE: throw NotACache(code, message);
    case NORMCACHE_EREADONLY: throw ReadOnly(code, message);
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

/**
 * Reads a JSON array of strings, as the library returns them, into UTF-8 strings:
 * decodes every escape (\" \\ \/ \b \f \n \r \t and \uXXXX, surrogate pairs joined
 * into one code point) and copies other bytes as they are. Whitespace between tokens
 * is allowed. Anything else — a value that is not a string, a raw control character,
 * a lone surrogate, bytes after the array — throws JsonError.
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
    /** Throws JsonError naming `what` and the current byte offset. */
    [[noreturn]] void fail(const char *what) const
    {
        throw JsonError(NORMCACHE_EJSON, std::string("normcache: ") + what + " at byte " +
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
 * The cache
 * ------------------------------------------------------------------------- */

/**
 * An open cache: normcache_open in the constructor, normcache_close in close() or,
 * quietly, in the destructor. Move-only. Record methods take and return the JSON
 * notation of include/normcache.h. A closed (or moved-from) Cache throws
 * InvalidArgument from every method but close(), is_open() and native_handle().
 */
class Cache {
public:
    /**
     * Opens (and, unless read-only, creates) the cache at `path` with `options_json`
     * (empty: the defaults; see normcache_open for the options). Throws the Error of
     * the failure: InvalidArgument, JsonError, NotACache, StorageError, OutOfMemory.
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

    /** Takes over the handle of `other`, which is left closed. */
    Cache(Cache &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

    /** Closes this cache quietly, then takes over the handle of `other`. */
    Cache &operator=(Cache &&other) noexcept
    {
        if (this != &other) {
            normcache_close(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }

    /** Closes the cache, ignoring any error (call close() to see one). */
    ~Cache() { normcache_close(handle_); }

    /** Closes the cache; does nothing when it is already closed. Throws on failure. */
    void close() { detail::check(normcache_close(std::exchange(handle_, nullptr))); }

    /** Whether the cache is open (not closed, not moved from). */
    bool is_open() const noexcept { return handle_ != nullptr; }

    /** The C handle, for calls this binding does not wrap; nullptr when closed. */
    ::normcache *native_handle() const noexcept { return handle_; }

    /**
     * Merges `records_json` into the cache in one atomic write and returns the raw
     * JSON array of changed "recordKey.fieldKey" strings, in input order.
     */
    std::string put_json(std::string_view records_json)
    {
        Buffer changed;
        detail::check(normcache_put(handle_, records_json.data(), records_json.size(),
                                    changed.out(), changed.out_len()));
        return changed.str();
    }

    /** Merges `records_json` into the cache and returns the changed keys, in input order. */
    std::vector<std::string> put(std::string_view records_json)
    {
        return detail::parse_string_array(put_json(records_json));
    }

    /** The record at `key` as a JSON object of its fields, or nullopt when there is none. */
    std::optional<std::string> get(std::string_view key)
    {
        Buffer record;
        const int code = normcache_get(handle_, key.data(), key.size(), record.out(),
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
        const int code = normcache_remove(handle_, key.data(), key.size());
        if (code == NORMCACHE_NOTFOUND) {
            return false;
        }
        detail::check(code);
        return true;
    }

    /** Deletes every record whose key starts with `prefix` (not empty); returns how many. */
    std::uint64_t remove_prefix(std::string_view prefix)
    {
        std::uint64_t count = 0;
        detail::check(normcache_remove_prefix(handle_, prefix.data(), prefix.size(), &count));
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
        detail::check(normcache_search(handle_, prefix.data(), prefix.size(),
                                       after ? after->data() : nullptr, after ? after->size() : 0,
                                       limit, keys.out(), keys.out_len()));
        return detail::parse_string_array(keys.view());
    }

    /** Deletes every record. */
    void clear() { detail::check(normcache_clear(handle_)); }

    /** Facts about the cache as a JSON object (see normcache_stats). */
    std::string stats()
    {
        Buffer json;
        detail::check(normcache_stats(handle_, json.out(), json.out_len()));
        return json.str();
    }

    /** The version of the loaded library, "MAJOR.MINOR.PATCH". */
    static std::string version() { return normcache_version(); }

private:
    ::normcache *handle_ = nullptr;
};

} // namespace NormCache

#endif /* NORMCACHE_HPP */
