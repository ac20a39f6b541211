/// The two choices every fetch policy is made of (Apollo iOS 2.x's `FetchBehavior`):
/// when to read the cache, and when to go to the network; and whether the network's
/// answer is kept. `Execution` runs any of them with one code path.
struct FetchBehavior: Equatable {
    /// When the cache is read.
    enum CacheRead: Equatable {
        /// Never.
        case never
        /// Before the network, whose use then depends on what the cache gave.
        case first
        /// Only when the network fails.
        case onNetworkFailure
    }

    /// When the network is asked, after what the cache gave (if it was read first).
    enum NetworkFetch: Equatable {
        /// Never.
        case never
        /// Always.
        case always
        /// When the cache missed (absent data, or stale beyond `maxStale`).
        case onMiss
        /// When the cache missed or gave stale data.
        case onStaleOrMiss
    }

    let cacheRead: CacheRead
    let network: NetworkFetch
    /// Whether the network's answer is written.
    let writes: Bool

    /// The behaviour of `policy`; a mutation always goes to the network (and is written
    /// unless the policy is `noStore`).
    init(_ policy: FetchPolicy, isMutation: Bool) {
        guard !isMutation else {
            self.init(cacheRead: .never, network: .always, writes: policy != .noStore)
            return
        }
        switch policy {
        case .cacheFirst: self.init(cacheRead: .first, network: .onMiss, writes: true)
        case .cacheOnly: self.init(cacheRead: .first, network: .never, writes: false)
        case .networkOnly: self.init(cacheRead: .never, network: .always, writes: true)
        case .noStore: self.init(cacheRead: .never, network: .always, writes: false)
        case .networkFirst: self.init(cacheRead: .onNetworkFailure, network: .always, writes: true)
        case .cacheAndNetwork: self.init(cacheRead: .first, network: .always, writes: true)
        case .staleWhileRevalidate: self.init(cacheRead: .first, network: .onStaleOrMiss, writes: true)
        }
    }

    private init(cacheRead: CacheRead, network: NetworkFetch, writes: Bool) {
        self.cacheRead = cacheRead
        self.network = network
        self.writes = writes
    }

    /// Whether the network is asked after the cache gave `status`.
    func fetches(after status: ReadResult.Status) -> Bool {
        switch network {
        case .never: false
        case .always: true
        case .onMiss: status == .miss
        case .onStaleOrMiss: status != .complete
        }
    }
}
