# The Python quick start of README.md: open a cache, prepare a query, write a response, read it back.
import normcache

# "defaultKeyFields": ["id"] stores every object that has an id once, as the record Type:id.
with normcache.Cache("quickstart.cache", config={"defaultKeyFields": ["id"]}) as cache:
    feed = cache.prepare("{ feed(first: 2) { id title author { id name } } }")
    # feed.document is what to send to the server: the query with __typename added.
    ada = {"__typename": "User", "id": "7", "name": "Ada"}
    response = {"data": {"feed": [
        {"__typename": "Article", "id": "1", "title": "Hello", "author": ada},
        {"__typename": "Article", "id": "2", "title": "Again", "author": ada},
    ]}}
    cache.write(feed, response)
    print(cache.get("Article:1"))  # a record: the author is a reference to User:7
    print(cache.read(feed))        # exactly the selection, rebuilt from the records

    # Another query returns User:7 with a new name: every article that references it sees it.
    user = cache.prepare("query ($id: ID!) { user(id: $id) { id name } }")
    cache.write(user, {"data": {"user": {"__typename": "User", "id": "7", "name": "Ada L."}}}, {"id": "7"})
    print(cache.read(feed))

    try:
        cache.read(cache.prepare("{ feed(first: 3) { id title } }"))
    except normcache.CacheMiss as miss:
        print(miss.paths, miss.missing[0].field)  # another argument is another field: a miss
