// test_support.hpp — what the C++ tests share: checks that print file:line and what
// differed, then exit with 1; and fresh cache paths in one temporary directory per run.
#ifndef NORMCACHE_TEST_SUPPORT_HPP
#define NORMCACHE_TEST_SUPPORT_HPP

#include "normcache.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <typeinfo>
#include <unistd.h>
#include <vector>

namespace test_support {

using Strings = std::vector<std::string>;

/// Prints where and what failed, and ends the program with status 1.
[[noreturn]] inline void fail(const char *file, int line, const std::string &what)
{
    std::cerr << file << ':' << line << ": " << what << '\n';
    std::exit(1);
}

/// Shows a value in a failure message: strings quoted, vectors bracketed, optionals or "nullopt".
inline std::string show(const std::string &value) { return '"' + value + '"'; }
inline std::string show(const Strings &values)
{
    std::string out = "{";
    for (const auto &value : values) {
        out += (out.size() > 1 ? ", " : "") + show(value);
    }
    return out + "}";
}
inline std::string show(const std::optional<std::string> &value)
{
    return value ? show(*value) : "nullopt";
}
template <typename T> std::string show(const T &value)
{
    std::ostringstream out;
    out << value;
    return out.str();
}

/// Counts its own destruction in `*count`: held by a callback (a key resolver, a clock)
/// through a shared_ptr, it tells a test when the library or the binding destroyed that
/// callback.
struct Token {
    int *count; ///< where the destruction is counted

    /// A token counting into `*counter`.
    explicit Token(int *counter) noexcept : count(counter) {}
    Token(const Token &) = delete;
    Token &operator=(const Token &) = delete;
    /// Counts one destruction.
    ~Token() { ++*count; }
};

/// A directory made with mkdtemp under $TMPDIR (else /tmp), removed with all it holds
/// when the program ends.
struct TempDir {
    std::filesystem::path path; ///< the directory

    /// Makes the directory; exits when it cannot.
    TempDir()
    {
        const char *base = std::getenv("TMPDIR");
        std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") +
                              "/normcache-cpp-test-XXXXXX";
        if (mkdtemp(pattern.data()) == nullptr) {
            std::perror("mkdtemp");
            std::exit(1);
        }
        path = pattern;
    }

    /// Removes the directory and everything in it.
    ~TempDir() { std::filesystem::remove_all(path); }
};

/// The temporary directory of this run, made on first use.
inline const std::filesystem::path &temp_dir()
{
    static const TempDir dir;
    return dir.path;
}

/// A path in the temporary directory that no earlier call returned.
inline std::string fresh_path()
{
    static int counter = 0;
    return (temp_dir() / ("cache-" + std::to_string(++counter) + ".cache")).string();
}

/// What is wrong with `error` for a check that expects exactly the type `type` (called
/// `type_name`), the status `code`, and a message that is `text` (when `exact`) or
/// contains it; "" when nothing is.
inline std::string mismatch(const NormCache::Error &error, const std::type_info &type, const char *type_name,
                            int code, const std::string &text, bool exact)
{
    const std::string message = error.what();
    if (typeid(error) != type) {
        return std::string(typeid(error).name()) + ", expected " + type_name + ": " + message;
    }
    if (error.code() != code) {
        return "status " + std::to_string(error.code()) + ", expected " + std::to_string(code) + ": " + message;
    }
    const bool matches = exact ? message == text : message.find(text) != std::string::npos;
    if (!matches) {
        return show(message) + ", expected " + (exact ? "" : "a message with ") + show(text);
    }
    return "";
}

} // namespace test_support

#define CHECK(condition)                                           \
    do {                                                           \
        if (!(condition)) {                                        \
            fail(__FILE__, __LINE__, "check failed: " #condition); \
        }                                                          \
    } while (0)

/// Fails unless `got == expected`, showing both.
#define CHECK_EQ(got, expected)                                                                   \
    do {                                                                                          \
        const auto &got_ = (got);                                                                 \
        const auto &expected_ = (expected);                                                       \
        if (!(got_ == expected_)) {                                                               \
            fail(__FILE__, __LINE__, #got " is " + show(got_) + ", expected " + show(expected_)); \
        }                                                                                         \
    } while (0)

/// Fails unless `statement` throws exactly `Type` (not a subclass) with status `code`
/// and a message that is `text` (when `exact`) or contains it.
#define CHECK_THROWS_MESSAGE(statement, Type, expected_code, text, exact)                        \
    do {                                                                                         \
        try {                                                                                    \
            statement;                                                                           \
            fail(__FILE__, __LINE__, #statement " threw nothing, expected " #Type);              \
        } catch (const NormCache::Error &error_) {                                               \
            const std::string wrong_ =                                                           \
                test_support::mismatch(error_, typeid(Type), #Type, expected_code, text, exact); \
            if (!wrong_.empty()) {                                                               \
                fail(__FILE__, __LINE__, #statement " threw " + wrong_);                         \
            }                                                                                    \
        }                                                                                        \
    } while (0)

/// Fails unless `statement` throws exactly `Type` with status `code` and a message that
/// contains `text`.
#define CHECK_THROWS_WITH(statement, Type, expected_code, text) \
    CHECK_THROWS_MESSAGE(statement, Type, expected_code, text, false)

/// Fails unless `statement` throws exactly `Type` with status `code` and the message `text`.
#define CHECK_THROWS_EXACT(statement, Type, expected_code, text) \
    CHECK_THROWS_MESSAGE(statement, Type, expected_code, text, true)

/// Fails unless `statement` throws exactly `Type` (not a subclass) with status `code`.
#define CHECK_THROWS(statement, Type, expected_code) CHECK_THROWS_WITH(statement, Type, expected_code, "")

#endif
