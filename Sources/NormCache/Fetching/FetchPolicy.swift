/// How `NormalizedCache.execute` uses the cache and the network (the names are those of
/// Apollo's fetching guides). Every policy is one `FetchBehavior`: when to read the
/// cache, when to go to the network, and whether to keep what comes back.
public enum FetchPolicy: String, CaseIterable, Sendable {
    /// Cached data if it is complete and fresh (or stale within `maxStale`), else fetch,
    /// write and return the network's. The default.
    case cacheFirst = "cache_first"
    /// Cached data, or the miss; never fetches.
    case cacheOnly = "cache_only"
    /// Fetch, write, return; the cache is not read.
    case networkOnly = "network_only"
    /// Fetch and return; nothing is written (Apollo iOS's fetchIgnoringCacheCompletely).
    case noStore = "no_store"
    /// Fetch, write, return; when the fetch fails, cached data (stale allowed within
    /// `maxStale`) with the fetch error beside it.
    case networkFirst = "network_first"
    /// Cached data first if there is any, then the network's.
    case cacheAndNetwork = "cache_and_network"
    /// Cached data at once (stale allowed within `maxStale`); when any of it was stale,
    /// or it missed, a fetch whose result follows.
    case staleWhileRevalidate = "stale_while_revalidate"
}

/// What `execute` does with a response that carries GraphQL `errors` (Apollo's error
/// policies).
public enum ErrorPolicy: String, CaseIterable, Sendable {
    /// Nothing is written and the call fails (`.graphQL`), naming the first error. The default.
    case none
    /// The data is written and returned as if there were no errors.
    case ignore
    /// The data is written and returned with the errors beside it.
    case all
}
