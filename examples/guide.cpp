// The program of the C++ guide (docs/guides/cpp.md): a schema, an operation with
// variables, the document to send, a write, reads that hit and miss, exceptions, a key
// resolver and threads sharing one cache, on app.cache in the current folder.
#include <normcache.hpp>

#include <atomic>
#include <iostream>
#include <thread>
#include <vector>

static const char *const SCHEMA = R"(
    type Query { feed(first: Int!): [Article!]! }
    type Article { id: ID! title: String! author: User! }
    type User { uuid: ID! name: String! }
)";
static const char *const RESPONSE = R"({"data": {"feed": [{"__typename": "Article", "id": "1", "title": "Hello",
    "author": {"__typename": "User", "uuid": "u-7", "name": "Ada"}}]}})";

int main()
{
    try {
        // A first cache: options are JSON; every object with an id is stored as Type:id.
        NormCache::Cache cache("app.cache", R"({"durability": "full"})");
        cache.clear(); // an empty cache, so that every run prints the same
        cache.configure(R"({"defaultKeyFields": ["id"]})");

        // A key function for what the rules do not key: a User by its uuid, which the query selects.
        cache.set_key_resolver([](std::optional<std::string_view> type, const NormCache::ObjectView &object)
                                   -> std::optional<NormCache::ResolvedKey> {
            std::optional<std::string_view> uuid = object.member("uuid"); // raw JSON text: "\"u-7\""
            if (type != "User" || !uuid) {
                return std::nullopt;
            }
            return NormCache::ResolvedKey(std::string(uuid->substr(1, uuid->size() - 2)), std::nullopt);
        });

        // The GraphQL flow: a schema, an operation prepared once (after the rules), the document to send.
        cache.load_schema(SCHEMA);
        NormCache::Operation feed =
            cache.prepare("query Feed($n: Int!) { feed(first: $n) { title author { uuid name } } }");
        std::cout << "send: " << feed.document() << "\n";
        std::vector<std::string> changed = cache.write(feed, RESPONSE, R"({"n": 1})");
        std::cout << "changed: " << changed.size() << " fields, the first " << changed.front() << "\n";
        std::cout << "read: " << cache.read(feed, R"({"n": 1})").json << "\n";
        NormCache::FullReadResult more = cache.read_result(feed, R"({"n": 2})");
        if (more.status == NormCache::ReadStatus::miss) {
            std::cout << "miss: " << more.missing.at(0).record << " " << more.missing.at(0).field.value_or("")
                      << "\n";
        }
        std::cout << "get User:u-7: " << cache.get("User:u-7").value_or("none") << "\n";

        // Exceptions: one class per error kind, with the status code and the library's message.
        try {
            cache.prepare("{ feed(first: 1) { headline } }");
        } catch (const NormCache::DocumentError &error) {
            std::cout << "error " << error.code() << ": " << error.what() << "\n";
        }

        // Threads: one cache, four readers at once.
        std::atomic<int> hits{0};
        std::vector<std::thread> readers;
        for (int i = 0; i < 4; i++) {
            readers.emplace_back([&cache, &feed, &hits] {
                for (int j = 0; j < 1000; j++) {
                    hits += cache.read(feed, R"({"n": 1})").hit ? 1 : 0;
                }
            });
        }
        for (std::thread &reader : readers) {
            reader.join();
        }
        std::cout << "threads: " << hits << " reads hit\n";
    } catch (const NormCache::Error &error) {
        std::cerr << error.what() << "\n";
        return 1;
    }
}
