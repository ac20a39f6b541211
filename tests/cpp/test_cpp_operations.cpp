// test_cpp_operations.cpp — the GraphQL operations of the C++17 binding
// bindings/cpp/normcache.hpp: schema and rules (saved in the file too), Operation (RAII, moves, document()),
// normalize, write, read with hits, misses and partial data, fragments, the C++ key
// resolver and its lifetime, and the exception of each failure, with exact outputs.

#include "test_support.hpp"
#include "../c/star_wars_schema.h"

#include <memory>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace {

using NormCache::Cache;
using NormCache::ObjectView;
using NormCache::Operation;
using NormCache::ReadResult;
using NormCache::ResolvedKey;
using test_support::Strings;
using test_support::Token;

using test_support::fail;
using test_support::fresh_path;
using test_support::show;

/// Shows a read result in a failure message: hit or miss, and its JSON.
std::string show(const ReadResult &result)
{
    return std::string(result.hit ? "hit " : "miss ") + show(result.json);
}

/// A new cache in the temporary directory, with fast durability.
Cache fresh_cache() { return Cache(fresh_path(), R"({"durability": "fast"})"); }

// ---------------------------------------------------------------------------
// Fixtures

const char *const hero_query = "{ hero { name friends { name } } }";

const char *const hero_response =
    R"({"data": {"hero": {"__typename": "Droid", "id": "2001", "name": "R2-D2", "friends": [)"
    R"({"__typename": "Human", "id": "1000", "name": "Luke"}]}}})";

const char *const hero_records =
    R"({"Human:1000":{"name":"Luke","id":"1000","__typename":"Human"},)"
    R"("Droid:2001":{"name":"R2-D2","friends":[{"$reference":"Human:1000"}],"id":"2001","__typename":"Droid"},)"
    R"("QUERY_ROOT":{"hero":{"$reference":"Droid:2001"}}})";

const Strings hero_changed = {"Human:1000.name", "Human:1000.id", "Human:1000.__typename",
                              "Droid:2001.name", "Droid:2001.friends", "Droid:2001.id",
                              "Droid:2001.__typename", "QUERY_ROOT.hero"};

/// A cache with the Star Wars schema loaded.
Cache schema_cache()
{
    Cache cache = fresh_cache();
    cache.load_schema(star_wars_schema);
    return cache;
}

/// A hit with `json`.
ReadResult hit(const std::string &json) { return ReadResult{true, json}; }
/// A miss with `json`.
ReadResult miss(const std::string &json) { return ReadResult{false, json}; }

// ---------------------------------------------------------------------------
// Tests

/// Operation is move-only, moves cannot throw; ReadResult is a plain value.
void test_type_traits()
{
    static_assert(!std::is_copy_constructible_v<Operation>);
    static_assert(!std::is_copy_assignable_v<Operation>);
    static_assert(std::is_nothrow_move_constructible_v<Operation>);
    static_assert(std::is_nothrow_move_assignable_v<Operation>);
    static_assert(std::is_nothrow_destructible_v<Operation>);
    static_assert(std::is_nothrow_default_constructible_v<Operation>);
    static_assert(std::is_nothrow_move_constructible_v<Cache>);
    static_assert(std::is_nothrow_move_assignable_v<Cache>);
    static_assert(std::is_nothrow_destructible_v<Cache>);
    static_assert(std::is_same_v<decltype(ReadResult::hit), bool>);
    static_assert(std::is_same_v<decltype(ReadResult::json), std::string>);
    static_assert(std::is_same_v<decltype(Cache::normalize(std::declval<const Operation &>(), "")),
                                 std::string>);
    static_assert(std::is_same_v<ResolvedKey, std::pair<std::string, std::optional<std::string>>>);
}

/// The network document has __typename and the key fields added, exactly.
void test_prepare_and_document()
{
    Cache cache = schema_cache();
    const Operation op = cache.prepare(hero_query);
    CHECK(op.valid());
    CHECK(op.native_handle() != nullptr);
    CHECK_EQ(op.document(),
             std::string("{\n  hero {\n    name\n    friends {\n      name\n      id\n      __typename\n"
                         "    }\n    id\n    __typename\n  }\n}"));

    // A name picks one operation of several.
    const Operation named = cache.prepare("query A { hero { name } } query B { droid(id: 1) { name } }",
                                          std::string_view("B"));
    CHECK_EQ(named.document(),
             std::string("query B {\n  droid(id: 1) {\n    name\n    id\n    __typename\n  }\n}"));
}

/// normalize gives the exact records and touches no cache; write returns the exact
/// changed keys (none when rewritten); read hits with the exact data.
void test_normalize_write_read()
{
    Cache cache = schema_cache();
    const Operation op = cache.prepare(hero_query);
    CHECK_EQ(Cache::normalize(op, hero_response), std::string(hero_records));
    CHECK_EQ(Cache::normalize(op, hero_response, "{}"), std::string(hero_records));
    CHECK_EQ(cache.search(""), Strings{});
    CHECK_EQ(Cache::normalize(op, R"({"errors": [{"message": "boom"}]})"), std::string("{}"));

    CHECK_EQ(cache.write(op, hero_response), hero_changed);
    CHECK_EQ(cache.write(op, hero_response, ""), Strings{});
    CHECK_EQ(cache.search(""), (Strings{"Droid:2001", "Human:1000", "QUERY_ROOT"}));
    CHECK_EQ(cache.get("Human:1000"),
             std::optional<std::string>(R"({"__typename":"Human","id":"1000","name":"Luke"})"));
    CHECK_EQ(cache.read(op), hit(R"({"hero":{"name":"R2-D2","friends":[{"name":"Luke"}]}})"));
    CHECK_EQ(cache.read(op, {}, true), hit(R"({"hero":{"name":"R2-D2","friends":[{"name":"Luke"}]}})"));
}

/// Misses list the exact missing paths; partial fills them with null; variables select.
void test_miss_and_partial()
{
    Cache cache = schema_cache();
    const Operation hero = cache.prepare(hero_query);
    const std::string no_hero = R"([{"path":["hero"],"reason":"absent","record":"QUERY_ROOT","field":"hero"}])";
    CHECK_EQ(cache.read(hero), miss(R"({"data":null,"missing":)" + no_hero + "}"));
    CHECK_EQ(cache.read(hero, {}, true), miss(R"({"data":{"hero":null},"missing":)" + no_hero + "}"));
    cache.write(hero, hero_response);

    const Operation droid = cache.prepare("query ($id: ID!) { droid(id: $id) { name primaryFunction } }");
    const std::string no_function =
        R"([{"path":["droid","primaryFunction"],"reason":"absent","record":"Droid:2001","field":"primaryFunction"}])";
    CHECK_EQ(cache.read(droid, R"({"id": "2001"})"), miss(R"({"data":null,"missing":)" + no_function + "}"));
    CHECK_EQ(cache.read(droid, R"({"id": "2001"})", true),
             miss(R"({"data":{"droid":{"name":"R2-D2","primaryFunction":null}},"missing":)" + no_function + "}"));
    CHECK_EQ(cache.read(droid, R"({"id": "7"})"),
             miss(R"({"data":null,"missing":[{"path":["droid"],"reason":"absent","record":"Droid:7"}]})"));

    CHECK_EQ(cache.write(droid,
                         R"({"data": {"droid": {"__typename": "Droid", "id": "2001", "name": "R2-D2", "primaryFunction": "Astromech"}}})",
                         R"({"id": "2001"})"),
             (Strings{"Droid:2001.primaryFunction", "QUERY_ROOT.droid(id:2001)"}));
    CHECK_EQ(cache.read(droid, R"({"id": "2001"})"),
             hit(R"({"droid":{"name":"R2-D2","primaryFunction":"Astromech"}})"));
}

/// Fragments: the document, write_fragment's changed keys, read_fragment hits and misses,
/// a fragment picked by name; a fragment with read or an operation with read_fragment is
/// InvalidArgumentError.
void test_fragments()
{
    Cache cache = schema_cache();
    const Operation fragment =
        cache.prepare("fragment DroidParts on Droid { name primaryFunction friends { name } }");
    CHECK_EQ(fragment.document(),
             std::string("fragment DroidParts on Droid {\n  name\n  primaryFunction\n  friends {\n    name\n"
                         "    id\n    __typename\n  }\n  id\n  __typename\n}"));
    CHECK_EQ(cache.write_fragment(fragment, "Droid:2001",
                                  R"({"__typename": "Droid", "id": "2001", "name": "R2-D2", "primaryFunction": "Astromech",)"
                                  R"( "friends": [{"__typename": "Human", "id": "1000", "name": "Luke"}]})"),
             (Strings{"Human:1000.name", "Human:1000.id", "Human:1000.__typename", "Droid:2001.name",
                      "Droid:2001.primaryFunction", "Droid:2001.friends", "Droid:2001.id",
                      "Droid:2001.__typename"}));
    CHECK_EQ(cache.read_fragment(fragment, "Droid:2001"),
             hit(R"({"name":"R2-D2","primaryFunction":"Astromech","friends":[{"name":"Luke"}]})"));
    const std::string no_droid = R"({"data":null,"missing":[{"path":[],"reason":"absent","record":"Droid:9"}]})";
    CHECK_EQ(cache.read_fragment(fragment, "Droid:9"), miss(no_droid));
    CHECK_EQ(cache.read_fragment(fragment, "Droid:9", {}, true), miss(no_droid));

    // A record with a field missing: the miss names it; partial gives the rest.
    cache.put(R"({"Droid:3": {"__typename": "Droid", "id": "3", "name": "C-3PO", "friends": []}})");
    const std::string no_function =
        R"([{"path":["primaryFunction"],"reason":"absent","record":"Droid:3","field":"primaryFunction"}])";
    CHECK_EQ(cache.read_fragment(fragment, "Droid:3"), miss(R"({"data":null,"missing":)" + no_function + "}"));
    CHECK_EQ(cache.read_fragment(fragment, "Droid:3", "", true),
             miss(R"({"data":{"name":"C-3PO","primaryFunction":null,"friends":[]},"missing":)" + no_function + "}"));

    // One fragment of several, by name (the others used by it).
    const Operation named = cache.prepare(
        "fragment A on Human { name } fragment B on Human { ...A }", std::string_view("B"));
    CHECK_EQ(cache.read_fragment(named, "Human:1000"), hit(R"({"name":"Luke"})"));
    CHECK_THROWS_WITH(cache.prepare("fragment A on Human { name } fragment B on Human { ...A }"),
                      NormCache::DocumentError, NORMCACHE_EDOCUMENT, "name the fragment to use (A, B)");
    CHECK_EQ(cache.write_fragment(named, "Human:1000", R"({"__typename": "Human", "id": "1000", "name": "Luke"})"),
             Strings{});
    CHECK_EQ(cache.write_fragment(named, "Human:1000", R"({"__typename": "Human", "id": "1000", "name": "Luke S."})"),
             Strings{"Human:1000.name"});

    const Operation query = cache.prepare(hero_query);
    CHECK_THROWS_WITH(cache.read(fragment), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                      "'DroidParts' is a fragment");
    CHECK_THROWS_WITH(cache.read_fragment(query, "Droid:2001"), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                      "is an operation, not a fragment");
    CHECK_THROWS_WITH(cache.write_fragment(query, "Droid:2001", "{}"), NormCache::InvalidArgumentError,
                      NORMCACHE_EINVAL, "");
}

/// configure gives key rules without SDL, for operations prepared afterwards only.
void test_configure()
{
    Cache cache = fresh_cache();
    const Operation before = cache.prepare("{ pet { id name } }");
    cache.configure(R"({"typePolicies": {"Dog": {"keyFields": ["id"]}}})");
    const Operation after = cache.prepare("{ pet { id name } }");
    const char *const response = R"({"data": {"pet": {"__typename": "Dog", "id": "5", "name": "Rex"}}})";
    CHECK_EQ(Cache::normalize(after, response),
             std::string(R"({"Dog:5":{"id":"5","name":"Rex","__typename":"Dog"},"QUERY_ROOT":{"pet":{"$reference":"Dog:5"}}})"));
    CHECK_EQ(Cache::normalize(before, response),
             std::string(R"({"QUERY_ROOT.pet":{"id":"5","name":"Rex","__typename":"Dog"},"QUERY_ROOT":{"pet":{"$reference":"QUERY_ROOT.pet"}}})"));
}

/// save_rules keeps the rules in the file: a handle that brings none keys by them; a
/// strict one that brings others is refused; clear_saved_rules says whether there were any.
void test_saved_rules()
{
    const std::string path = fresh_path();
    {
        Cache cache(path);
        CHECK_THROWS_EXACT(cache.save_rules(), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                           "this handle has no rules to save: load a schema or configure rules first");
        cache.configure(R"({"typePolicies": {"Dog": {"keyFields": ["id"]}}})");
        cache.save_rules();
    }
    Cache plain(path);
    const char *const response = R"({"data": {"pet": {"__typename": "Dog", "id": "5", "name": "Rex"}}})";
    CHECK_EQ(Cache::normalize(plain.prepare("{ pet { id name } }"), response),
             std::string(R"({"Dog:5":{"id":"5","name":"Rex","__typename":"Dog"},"QUERY_ROOT":{"pet":{"$reference":"Dog:5"}}})"));
    Cache strict(path, R"({"rules": "strict"})");
    strict.configure(R"({"defaultKeyFields": ["id"]})");
    CHECK_THROWS_WITH(strict.prepare("{ pet { id name } }"), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                      "and it was opened with \"rules\": \"strict\"");
    CHECK(strict.clear_saved_rules());
    CHECK(!plain.clear_saved_rules());
}

/// Each failure throws its exception type with the exact code and the library's message.
/// The open options max_document_bytes and max_document_tokens bound what prepare takes:
/// DocumentError with the limit, the figure and the option, one past each; at them it prepares.
void test_document_limits()
{
    const char *const document = "{ hero { name, id } }"; // 21 bytes, 7 tokens
    Cache bytes(fresh_path(), R"({"max_document_bytes": 20})");
    CHECK_THROWS_EXACT(bytes.prepare(document), NormCache::DocumentError, NORMCACHE_EDOCUMENT,
                       "the document is 21 bytes long, more than the limit of 20 (option max_document_bytes)");
    Cache tokens(fresh_path(), R"({"max_document_tokens": 6})");
    CHECK_THROWS_EXACT(tokens.prepare(document), NormCache::DocumentError, NORMCACHE_EDOCUMENT,
                       "GraphQL error at line 1, column 21: the document has more than 6 tokens, the limit "
                       "(option max_document_tokens)");
    Cache both(fresh_path(), R"({"max_document_bytes": 21, "max_document_tokens": 7})");
    CHECK_EQ(both.prepare(document).document(), std::string("{\n  hero {\n    name\n    id\n    __typename\n  }\n}"));
    CHECK_THROWS_EXACT(Cache(fresh_path(), R"({"max_document_bytes": -1})"), NormCache::InvalidArgumentError,
                       NORMCACHE_EINVAL, "option 'max_document_bytes' must be an integer of at least 1");
}

void test_errors()
{
    Cache cache = schema_cache();
    CHECK_THROWS_WITH(cache.load_schema("type Query {"), NormCache::SchemaError, NORMCACHE_ESCHEMA,
                      "GraphQL error at line 1, column 13");
    CHECK_THROWS_WITH(cache.configure(R"({"typePolicies": 5})"), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                      "typePolicies must be a JSON object");
    CHECK_THROWS_WITH(cache.configure(R"({"typePolicies": )"), NormCache::JSONError, NORMCACHE_EJSON, "byte 17");
    CHECK_THROWS_WITH(cache.prepare("{ hero { }"), NormCache::DocumentError, NORMCACHE_EDOCUMENT,
                      "GraphQL error at line 1, column 10");
    CHECK_THROWS_WITH(cache.prepare("{ nope }"), NormCache::DocumentError, NORMCACHE_EDOCUMENT,
                      "field 'nope' is not defined on type 'Query'");
    CHECK_THROWS_WITH(cache.prepare("query A { hero { name } } query B { hero { name } }"),
                      NormCache::DocumentError, NORMCACHE_EDOCUMENT, "");
    CHECK_THROWS_WITH(cache.prepare("query A { hero { name } }", std::string_view("C")), NormCache::DocumentError,
                      NORMCACHE_EDOCUMENT, "");

    const Operation op = cache.prepare("{ hero { name } }");
    const char *const no_name = R"({"data": {"hero": {"__typename": "Droid", "id": "1"}}})";
    CHECK_THROWS_WITH(cache.write(op, no_name), NormCache::DataError, NORMCACHE_EDATA,
                      "invalid response data at hero.name: the response has no 'name'");
    CHECK_THROWS_WITH(Cache::normalize(op, no_name), NormCache::DataError, NORMCACHE_EDATA,
                      "invalid response data at hero.name: the response has no 'name'");
    CHECK_THROWS_WITH(cache.write(op, R"({"data": )"), NormCache::JSONError, NORMCACHE_EJSON, "");
    CHECK_THROWS_WITH(cache.write(op, "{}", "[]"), NormCache::JSONError, NORMCACHE_EJSON, "");
    CHECK_THROWS_WITH(cache.read(op, "[]"), NormCache::JSONError, NORMCACHE_EJSON,
                      "variables must be a JSON object");
    CHECK_EQ(cache.search(""), Strings{});

    // A closed cache: ClosedError from every operations method; static normalize still works.
    cache.close();
    const char *const closed = "the cache is closed";
    CHECK_THROWS_EXACT(cache.load_schema(star_wars_schema), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.configure("{}"), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.prepare("{ a }"), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.write(op, hero_response), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.read(op), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.read_fragment(op, "A:1"), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.write_fragment(op, "A:1", "{}"), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.set_key_resolver([](auto, const ObjectView &) { return std::optional<ResolvedKey>(); }),
                       NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_THROWS_EXACT(cache.set_key_resolver(nullptr), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
    CHECK_EQ(Cache::normalize(op, R"({"data": {"hero": null}})"), std::string(R"({"QUERY_ROOT":{"hero":null}})"));
}

/// Moving hands the operation over; a moved-from or empty Operation throws ClosedError;
/// move-assignment frees the target's own; an Operation outlives its Cache.
void test_operation_moves()
{
    const std::string path = fresh_path();
    Operation kept;
    CHECK(!kept.valid());
    CHECK(kept.native_handle() == nullptr);
    CHECK_THROWS_EXACT(kept.document(), NormCache::ClosedError, NORMCACHE_EINVAL, "the operation is closed");
    {
        Cache cache(path);
        Operation first = cache.prepare("{ a }");
        ::normcache_op *first_handle = first.native_handle();
        Operation second(std::move(first));
        CHECK(!first.valid());
        CHECK(first.native_handle() == nullptr);
        CHECK(second.native_handle() == first_handle);
        CHECK_EQ(second.document(), std::string("{\n  a\n}"));
        const char *const closed = "the operation is closed";
        CHECK_THROWS_EXACT(first.document(), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
        CHECK_THROWS_EXACT(Cache::normalize(first, R"({"data": {"a": 1}})"), NormCache::ClosedError,
                           NORMCACHE_EINVAL, closed);
        CHECK_THROWS_EXACT(cache.write(first, R"({"data": {"a": 1}})"), NormCache::ClosedError, NORMCACHE_EINVAL,
                           closed);
        CHECK_THROWS_EXACT(cache.read(first), NormCache::ClosedError, NORMCACHE_EINVAL, closed);
        CHECK_THROWS_EXACT(cache.read_fragment(first, "A:1"), NormCache::ClosedError, NORMCACHE_EINVAL, closed);

        Operation third = cache.prepare("{ b }");
        ::normcache_op *third_handle = third.native_handle();
        third = std::move(second);
        CHECK(!second.valid());
        CHECK(third.native_handle() == first_handle);
        CHECK_EQ(normcache_op_free(third_handle), NORMCACHE_EINVAL); // freed by the assignment
        Operation &same = third;                                     // self-move-assignment keeps the operation
        third = std::move(same);
        CHECK(third.native_handle() == first_handle);
        kept = std::move(third);
    }
    // The Cache is gone; the operation works on another handle of the same file.
    Cache reopened(path);
    CHECK_EQ(reopened.write(kept, R"({"data": {"a": 1}})"), Strings{"QUERY_ROOT.a"});
    CHECK_EQ(reopened.read(kept), hit(R"({"a":1})"));
}

/// The C++ key resolver: typename and members as given, keys with and without a group,
/// nullopt leaves the object to the rules, and the library may be called from it.
void test_key_resolver()
{
    Cache cache = fresh_cache();
    cache.put(R"({"Other:1": {"v": 1}})");
    std::vector<std::string> seen;
    cache.set_key_resolver([&seen, &cache](std::optional<std::string_view> type_name,
                                           const ObjectView &object) -> std::optional<ResolvedKey> {
        const std::optional<std::string_view> id = object.member("id");
        const std::optional<std::string_view> b = object.member("b");
        seen.push_back(std::string(type_name.value_or("(none)")) + " id=" +
                       std::string(id.value_or("(none)")) + " b=" + std::string(b.value_or("(none)")));
        CHECK(!object.member("missing"));
        CHECK(object.native_handle() != nullptr);
        CHECK_EQ(cache.get("Other:1"), std::optional<std::string>(R"({"v":1})")); // calling back works
        if (!id) {
            return std::nullopt;
        }
        if (type_name == std::optional<std::string_view>("A")) {
            return ResolvedKey(std::string(*id), std::string("Node"));
        }
        return ResolvedKey(std::string(*id), std::nullopt);
    });
    const Operation op = cache.prepare("{ a { id b { c } } x { id } }");
    const char *const response =
        R"({"data": {"a": {"__typename": "A", "id": 7, "b": {"c": [1, 2]}}, "x": {"__typename": "X", "id": "q"}}})";
    CHECK_EQ(Cache::normalize(op, response),
             std::string(R"({"Node:7.b":{"c":[1,2]},"Node:7":{"id":7,"b":{"$reference":"Node:7.b"},"__typename":"A"},)"
                         R"("X:\"q\"":{"id":"q","__typename":"X"},)"
                         R"("QUERY_ROOT":{"a":{"$reference":"Node:7"},"x":{"$reference":"X:\"q\""}}})"));
    CHECK_EQ(seen, (Strings{"A id=7 b={\"c\": [1, 2]}", "(none) id=(none) b=(none)", "X id=\"q\" b=(none)"}));
    CHECK_EQ(cache.write(op, response),
             (Strings{"Node:7.b.c", "Node:7.id", "Node:7.b", "Node:7.__typename", "X:\"q\".id", "X:\"q\".__typename",
                      "QUERY_ROOT.a", "QUERY_ROOT.x"}));
    CHECK_EQ(cache.read(op), hit(R"({"a":{"id":7,"b":{"c":[1,2]}},"x":{"id":"q"}})"));
}

/// The listing of the object a resolver is given: size(), member_at() with both texts as
/// the response wrote them, std::out_of_range past the end, names() decoded; a view kept
/// past its call is refused with InvalidArgumentError, never read.
void test_key_resolver_listing()
{
    Cache cache = fresh_cache();
    std::vector<Strings> members;
    std::vector<Strings> names;
    const ::normcache_object *kept = nullptr;
    cache.set_key_resolver([&](std::optional<std::string_view>, const ObjectView &object) -> std::optional<ResolvedKey> {
        Strings listed;
        for (std::size_t index = 0; index < object.size(); ++index) {
            const auto [name, json] = object.member_at(index);
            listed.push_back(std::string(name) + " " + std::string(json));
        }
        members.push_back(listed);
        names.push_back(object.names());
        try {
            object.member_at(object.size());
            fail(__FILE__, __LINE__, "member_at(size()) threw nothing");
        } catch (const std::out_of_range &error) {
            CHECK_EQ(std::string(error.what()),
                     "normcache: member index " + std::to_string(object.size()) + " is past the last member");
        }
        kept = object.native_handle();
        return std::nullopt;
    });
    const Operation op = cache.prepare("{ a { id b { c } } }");
    cache.write(op, R"({"data": {"a": {"__typename":"A","id":7,"b":{"c":1},"eé":"x"}}})");
    CHECK_EQ(members.size(), std::size_t{2});
    CHECK_EQ(members[0], (Strings{R"("__typename" "A")", R"("id" 7)", R"("b" {"c":1})", R"("eé" "x")"}));
    CHECK_EQ(members[1], Strings{R"("c" 1)"});
    CHECK_EQ(names[0], (Strings{"__typename", "id", "b", "e\xc3\xa9"}));
    CHECK_EQ(names[1], Strings{"c"});

    const ObjectView stale(kept);
    const std::string refused = "object is not the object of a key resolver running on this thread";
    CHECK_THROWS_EXACT(stale.size(), NormCache::InvalidArgumentError, NORMCACHE_EINVAL, refused);
    CHECK_THROWS_EXACT(stale.member_at(0), NormCache::InvalidArgumentError, NORMCACHE_EINVAL, refused);
    CHECK_THROWS_EXACT(stale.member("id"), NormCache::InvalidArgumentError, NORMCACHE_EINVAL, refused);
}

/// Anything the resolver throws, and an answer the library refuses, fail the call with
/// CallbackError whose message ends with the reason (what(), or the library's message
/// for the refused answer); nothing is written; the exception never reaches C.
void test_key_resolver_failures()
{
    Cache cache = fresh_cache();
    cache.set_key_resolver([](std::optional<std::string_view> type_name,
                              const ObjectView &object) -> std::optional<ResolvedKey> {
        if (type_name == std::optional<std::string_view>("Std")) {
            throw std::runtime_error("no key for you");
        }
        if (type_name == std::optional<std::string_view>("Int")) {
            throw 42;
        }
        if (type_name == std::optional<std::string_view>("Empty")) {
            return ResolvedKey("", std::nullopt);
        }
        return ResolvedKey(std::string(object.member("c").value_or("top")), std::nullopt);
    });
    const Operation op = cache.prepare("{ a { b { c } } }");
    const std::string fine = R"({"data": {"a": {"__typename": "Fine", "b": {"__typename": "Fine", "c": 1}}}})";
    const std::pair<const char *, const char *> cases[] = {
        {"Std", "no key for you"},
        {"Int", "an exception that is not a std::exception"},
        {"Empty", "empty id"},
    };
    for (const auto &[type, reason] : cases) {
        const std::string failing =
            std::string(R"({"data": {"a": {"__typename": "Fine", "b": {"__typename": ")") + type +
            R"(", "c": 1}}}})";
        const std::string message = std::string("the key resolver failed at a.b: ") + reason;
        CHECK_THROWS_EXACT(cache.write(op, failing), NormCache::CallbackError, NORMCACHE_ECALLBACK, message);
        CHECK_THROWS_EXACT(Cache::normalize(op, failing), NormCache::CallbackError, NORMCACHE_ECALLBACK, message);
        CHECK_EQ(cache.search(""), Strings{});
    }
    CHECK_EQ(cache.write(op, fine), (Strings{"Fine:1.c", "Fine:1.__typename", "Fine:top.b",
                                             "Fine:top.__typename", "QUERY_ROOT.a"}));
}

/// A resolver that keys every object with an "id" as `<group>:<id>`, and holds `token`
/// (the only owner of it once the caller lets go).
NormCache::KeyResolver keyed_as(std::string group, std::shared_ptr<Token> token = nullptr)
{
    return [group = std::move(group), token = std::move(token)](
               std::optional<std::string_view>, const ObjectView &object) -> std::optional<ResolvedKey> {
        const std::optional<std::string_view> id = object.member("id");
        if (!id) {
            return std::nullopt;
        }
        return ResolvedKey(std::string(*id), group);
    };
}

/// Operations keep the resolver of their prepare time, also after their Cache is closed,
/// moved or destroyed; an empty function removes it; the library destroys each resolver
/// exactly once, when the cache and every operation prepared with it have let go.
void test_key_resolver_lifetime()
{
    const char *const response = R"({"data": {"a": {"id": 1}}})";
    const std::string document = "{ a { id } }";
    const auto keyed_records = [](const std::string &key) {
        return R"({")" + key + R"(":{"id":1},"QUERY_ROOT":{"a":{"$reference":")" + key + R"("}}})";
    };

    int destroyed = 0;
    Operation first;
    Operation second;
    {
        Cache cache = fresh_cache();
        cache.set_key_resolver(keyed_as("A", std::make_shared<Token>(&destroyed)));
        first = cache.prepare(document);
        second = cache.prepare(document);
        cache.set_key_resolver(keyed_as("B")); // the cache lets go of A; two operations hold it
        const Operation with_b = cache.prepare(document);
        cache.set_key_resolver(nullptr);
        const Operation without = cache.prepare(document);
        CHECK_EQ(destroyed, 0);
        CHECK_EQ(Cache::normalize(first, response), keyed_records("A:1"));
        CHECK_EQ(Cache::normalize(with_b, response), keyed_records("B:1"));
        CHECK_EQ(Cache::normalize(without, response),
                 std::string(R"({"QUERY_ROOT.a":{"id":1},"QUERY_ROOT":{"a":{"$reference":"QUERY_ROOT.a"}}})"));

        // Moved, then move-assigned over another: the operations of both still work.
        Cache moved(std::move(cache));
        CHECK_EQ(moved.write(first, response), (Strings{"A:1.id", "QUERY_ROOT.a"}));
        Cache target = fresh_cache();
        target.set_key_resolver(keyed_as("T"));
        const Operation on_target = target.prepare(document);
        target = std::move(moved);
        CHECK_EQ(target.write(on_target, response), (Strings{"T:1.id", "QUERY_ROOT.a"}));
        target.close();
        CHECK_EQ(Cache::normalize(on_target, response), keyed_records("T:1"));
    }
    // Every Cache is gone; the operations keep their resolver, and it is still alive.
    CHECK_EQ(destroyed, 0);
    CHECK_EQ(Cache::normalize(first, response), keyed_records("A:1"));
    Cache other = fresh_cache();
    CHECK_EQ(other.write(second, response), (Strings{"A:1.id", "QUERY_ROOT.a"}));
    first = Operation();
    CHECK_EQ(destroyed, 0);
    second = Operation(); // the last hold
    CHECK_EQ(destroyed, 1);

    // Without operations: destroyed when replaced, or when the cache closes.
    int replaced = 0;
    int closed = 0;
    Cache cache = fresh_cache();
    cache.set_key_resolver(keyed_as("R", std::make_shared<Token>(&replaced)));
    cache.set_key_resolver(keyed_as("C", std::make_shared<Token>(&closed)));
    CHECK_EQ(replaced, 1);
    CHECK_EQ(closed, 0);
    cache.close();
    CHECK_EQ(closed, 1);
    CHECK_EQ(replaced, 1);
}

/// A handle the library refuses: set_key_resolver throws, and the library has destroyed
/// the resolver it was handed, once.
void test_key_resolver_refused()
{
    Cache cache = fresh_cache();
    CHECK_EQ(normcache_close(cache.native_handle()), NORMCACHE_OK); // behind the binding's back
    int destroyed = 0;
    CHECK_THROWS_EXACT(cache.set_key_resolver(keyed_as("X", std::make_shared<Token>(&destroyed))),
                       NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "the cache handle is closed or was never opened");
    CHECK_EQ(destroyed, 1);
}

/// A C resolver: keys every object by its "id" member under the group `Node`, and counts
/// its calls in the int its context points at.
int node_by_id(void *context, const char *, size_t, const ::normcache_object *object, ::normcache_key *key)
{
    ++*static_cast<int *>(context);
    const char *id = nullptr;
    std::size_t id_length = 0;
    if (normcache_object_member(object, "id", 2, &id, &id_length) != NORMCACHE_OK) {
        return NORMCACHE_OK;
    }
    return normcache_key_set(key, id, id_length, "Node", 4);
}

/// A resolver written against the C interface goes in as it is, with the caller's
/// context; a null one removes it; a closed cache refuses it.
void test_key_resolver_from_c()
{
    Cache cache = fresh_cache();
    int calls = 0;
    cache.set_key_resolver(node_by_id, &calls);
    const Operation keyed = cache.prepare("{ a { id } }");
    CHECK_EQ(Cache::normalize(keyed, R"({"data": {"a": {"id": 7}}})"),
             std::string(R"({"Node:7":{"id":7},"QUERY_ROOT":{"a":{"$reference":"Node:7"}}})"));
    CHECK_EQ(calls, 1);
    cache.set_key_resolver(nullptr, nullptr);
    const Operation plain = cache.prepare("{ a { id } }");
    CHECK_EQ(Cache::normalize(plain, R"({"data": {"a": {"id": 7}}})"),
             std::string(R"({"QUERY_ROOT.a":{"id":7},"QUERY_ROOT":{"a":{"$reference":"QUERY_ROOT.a"}}})"));
    CHECK_EQ(calls, 1);
    cache.close();
    CHECK_THROWS_EXACT(cache.set_key_resolver(node_by_id, &calls), NormCache::ClosedError, NORMCACHE_EINVAL,
                       "the cache is closed");
}

} // namespace

int main()
{
    test_type_traits();
    test_prepare_and_document();
    test_normalize_write_read();
    test_miss_and_partial();
    test_fragments();
    test_configure();
    test_saved_rules();
    test_errors();
    test_document_limits();
    test_operation_moves();
    test_key_resolver();
    test_key_resolver_listing();
    test_key_resolver_failures();
    test_key_resolver_from_c();
    test_key_resolver_lifetime();
    test_key_resolver_refused();
    return 0;
}
