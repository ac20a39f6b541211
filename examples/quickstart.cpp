// The C++ quick start of README.md: open a cache, prepare a query, write a response, read it back.
#include <normcache.hpp>

#include <iostream>

int main()
{
    try {
        NormCache::Cache cache("quickstart.cache");
        // Every object that has an id is stored once, as the record Type:id.
        cache.configure(R"({"defaultKeyFields": ["id"]})");

        NormCache::Operation feed = cache.prepare("{ feed(first: 2) { id title author { id name } } }");
        // feed.document() is what to send to the server: the query with __typename added.
        cache.write(feed, R"({"data": {"feed": [
            {"__typename": "Article", "id": "1", "title": "Hello",
             "author": {"__typename": "User", "id": "7", "name": "Ada"}},
            {"__typename": "Article", "id": "2", "title": "Again",
             "author": {"__typename": "User", "id": "7", "name": "Ada"}}]}})");
        std::cout << *cache.get("Article:1") << "\n"; // the author is a reference to User:7
        std::cout << cache.read(feed).json << "\n";   // exactly the selection, rebuilt

        // Another query returns User:7 with a new name: every article that references it sees it.
        NormCache::Operation user = cache.prepare("query ($id: ID!) { user(id: $id) { id name } }");
        cache.write(user, R"({"data": {"user": {"__typename": "User", "id": "7", "name": "Ada L."}}})",
                    R"({"id": "7"})");
        std::cout << cache.read(feed).json << "\n";

        // Another argument is another field: a miss (hit is false), with what is missing.
        NormCache::ReadResult more = cache.read(cache.prepare("{ feed(first: 3) { id title } }"));
        if (!more.hit) {
            std::cout << more.json << "\n";
        }
    } catch (const NormCache::Error &error) { // one subclass per error kind, with code() and what()
        std::cerr << error.what() << "\n";
        return 1;
    }
}
