import Glibc
import TestSupport
import Testing
@testable import NormCache

/// Watchers in one process, ported from Apollo iOS's `WatchQueryTests` (a watched query
/// is read again from the cache when a record it depends on changes through another
/// query's write, and not for unrelated writes) and Apollo Client's `cache.watch`
/// (a result is delivered only when it differs): every path that changes data wakes
/// the watchers it touches, callbacks may re-enter, and a cancelled watcher hears no more.
@Suite struct WatcherTests {
    static let heroAndFriends = "query HeroAndFriendsNames($episode: String) { hero(episode: $episode) { __typename id name friends { __typename id name } } }"
    static let heroResponse = #"{"data": {"hero": {"__typename": "Droid", "id": "2001", "name": "R2-D2", "friends": [{"__typename": "Human", "id": "1000", "name": "Luke Skywalker"}, {"__typename": "Human", "id": "1002", "name": "Han Solo"}]}}}"#

    /// A cache holding R2-D2 and friends for `episode: "JEDI"`, and the watched query.
    func heroCache() throws -> (TestCache, PreparedOperation) {
        let test = try TestCache()
        try test.cache.configure(#"{"defaultKeyFields": ["id"]}"#)
        let query = try test.cache.prepare(Self.heroAndFriends)
        _ = try test.cache.write(query, response: Self.heroResponse, variables: #"{"episode": "JEDI"}"#)
        return (test, query)
    }

    @Test func theFirstResultIsDeliveredAtOnce() throws {
        let (test, query) = try heroCache()
        let seen = Deliveries()
        let watcher = try test.cache.watch(query, variables: #"{"episode": "JEDI"}"#, seen.record)
        defer { watcher.cancel() }
        #expect(seen.data == [#"{"hero":{"__typename":"Droid","id":"2001","name":"R2-D2","friends":[{"__typename":"Human","id":"1000","name":"Luke Skywalker"},{"__typename":"Human","id":"1002","name":"Han Solo"}]}}"#])
        #expect(seen.results.first?.status == .complete)
    }

    @Test func aWriteOfAnotherQueryThatChangesADependedOnFieldWakesIt() throws {
        let (test, query) = try heroCache()
        let seen = Deliveries()
        let watcher = try test.cache.watch(query, variables: #"{"episode": "JEDI"}"#, seen.record)
        defer { watcher.cancel() }
        let heroName = try test.cache.prepare("query HeroName { human(id: 1000) { __typename id name } }")
        _ = try test.cache.write(heroName, response: #"{"data": {"human": {"__typename": "Human", "id": "1000", "name": "Luke"}}}"#)
        #expect(seen.data.count == 2)
        #expect(seen.data.last == #"{"hero":{"__typename":"Droid","id":"2001","name":"R2-D2","friends":[{"__typename":"Human","id":"1000","name":"Luke"},{"__typename":"Human","id":"1002","name":"Han Solo"}]}}"#)
    }

    @Test func anUnrelatedWriteDoesNotWakeIt() throws {
        let (test, query) = try heroCache()
        let seen = Deliveries()
        let watcher = try test.cache.watch(query, variables: #"{"episode": "JEDI"}"#, seen.record)
        defer { watcher.cancel() }
        #expect(watcher.reads == 1)
        _ = try test.cache.put(json: #"{"Human:1000": {"height": 1.72}, "Starship:3000": {"name": "Falcon"}}"#)
        _ = try test.cache.put(json: #"{"QUERY_ROOT": {"hero(episode:EMPIRE)": {"$reference": "Human:1000"}}}"#)
        #expect(seen.data.count == 1)
        #expect(watcher.reads == 1)
    }

    @Test func aRewriteWithTheSameValuesDeliversNothing() throws {
        let (test, query) = try heroCache()
        let seen = Deliveries()
        let watcher = try test.cache.watch(query, variables: #"{"episode": "JEDI"}"#, seen.record)
        defer { watcher.cancel() }
        _ = try test.cache.write(query, response: Self.heroResponse, variables: #"{"episode": "JEDI"}"#)
        #expect(seen.data.count == 1)
    }

    @Test func aMissingFieldThatArrivesWakesIt() throws {
        let test = try TestCache()
        let query = try test.cache.prepare("{ hero { name appearsIn } }")
        _ = try test.cache.put(json: #"{"QUERY_ROOT": {"hero": {"$reference": "Droid:2001"}}, "Droid:2001": {"name": "R2-D2"}}"#)
        let seen = Deliveries()
        let watcher = try test.cache.watch(query, seen.record)
        defer { watcher.cancel() }
        #expect(seen.results.first?.status == .miss)
        #expect(seen.results.first?.missing.map(\.field) == ["appearsIn"])
        _ = try test.cache.put(json: #"{"Droid:2001": {"appearsIn": ["JEDI"]}}"#)
        #expect(seen.results.last?.status == .complete)
        #expect(seen.data.last == #"{"hero":{"name":"R2-D2","appearsIn":["JEDI"]}}"#)
    }

    @Test func aMissingRecordThatArrivesWakesIt() throws {
        let test = try TestCache()
        let query = try test.cache.prepare("{ hero { name } }")
        _ = try test.cache.put(json: #"{"QUERY_ROOT": {"hero": {"$reference": "Droid:2001"}}}"#)
        let seen = Deliveries()
        let watcher = try test.cache.watch(query, seen.record)
        defer { watcher.cancel() }
        #expect(seen.results.first?.missing == [FieldReport(path: [.key("hero")], reason: .absent, record: "Droid:2001", field: nil)])
        _ = try test.cache.put(json: #"{"Droid:2001": {"name": "R2-D2"}}"#)
        #expect(seen.data.last == #"{"hero":{"name":"R2-D2"}}"#)
    }

    @Test func everyPathThatChangesDataWakesIt() throws {
        let (test, query) = try heroCache()
        let seen = Deliveries()
        let watcher = try test.cache.watch(query, variables: #"{"episode": "JEDI"}"#, seen.record)
        defer { watcher.cancel() }
        #expect(try test.cache.removeField("name", of: "Human:1002"))
        #expect(seen.results.last?.missing.map(\.field) == ["name"])
        _ = try test.cache.put(json: #"{"Human:1002": {"name": "Han"}}"#)
        #expect(seen.results.last?.status == .complete)
        #expect(try test.cache.remove("Human:1002"))
        #expect(seen.results.last?.missing.map(\.record) == ["Human:1002"])
        _ = try test.cache.put(json: #"{"Human:1002": {"__typename": "Human", "id": "1002", "name": "Han"}}"#)
        #expect(try test.cache.removeAll(withPrefix: "Human:") == 2)
        #expect(seen.results.last?.missing.map(\.record) == ["Human:1000", "Human:1002"])
        _ = try test.cache.write(query, response: Self.heroResponse, variables: #"{"episode": "JEDI"}"#)
        #expect(seen.results.last?.status == .complete)
        #expect(try test.cache.invalidate("Droid:2001", field: "name") == 1)
        #expect(seen.results.last?.status == .stale)
        #expect(seen.results.last?.stale.map(\.field) == ["name"])
        try test.cache.clear()
        #expect(seen.results.last?.missing == [FieldReport(path: [.key("hero")], reason: .absent, record: "QUERY_ROOT", field: "hero(episode:JEDI)")])
        // The first result, then one per change above: remove field, put, remove, put,
        // remove by prefix, write, invalidate, clear.
        #expect(seen.results.count == 9)
    }

    @Test func aWriteThroughAnotherHandleOfTheFileWakesIt() throws {
        let (test, query) = try heroCache()
        let other = try test.reopen()
        defer { other.close() }
        let seen = Deliveries()
        let watcher = try test.cache.watch(query, variables: #"{"episode": "JEDI"}"#, seen.record)
        defer { watcher.cancel() }
        _ = try other.put(json: #"{"Droid:2001": {"name": "Artoo"}}"#)
        #expect(seen.data.last?.contains(#""name":"Artoo""#) == true)
    }

    @Test func aCancelledWatcherHearsNoMore() throws {
        let (test, query) = try heroCache()
        let seen = Deliveries()
        let watcher = try test.cache.watch(query, variables: #"{"episode": "JEDI"}"#, seen.record)
        watcher.cancel()
        watcher.cancel()
        #expect(watcher.isCancelled)
        _ = try test.cache.put(json: #"{"Droid:2001": {"name": "Artoo"}}"#)
        #expect(seen.data.count == 1)
        #expect(test.cache.store.changeHub.count == 0)
    }

    @Test func closingTheHandleEndsItsWatchers() throws {
        let (test, query) = try heroCache()
        let other = try test.reopen()
        let seen = Deliveries()
        let watcher = try other.watch(query, variables: #"{"episode": "JEDI"}"#, seen.record)
        other.close()
        #expect(watcher.isCancelled)
        _ = try test.cache.put(json: #"{"Droid:2001": {"name": "Artoo"}}"#)
        #expect(seen.data.count == 1)
    }

    @Test func aCallbackMayWriteReadWatchAndCancel() throws {
        let (test, query) = try heroCache()
        let cache = test.cache
        let seen = Deliveries()
        let inner = Deliveries()
        let holder = WatcherBox()
        defer {
            // The callback holds the box that holds its watcher: cancelled and let go.
            holder.watcher?.cancel()
            holder.inner?.cancel()
            holder.watcher = nil
            holder.inner = nil
        }
        holder.watcher = try cache.watch(query, variables: #"{"episode": "JEDI"}"#) { result in
            seen.record(result)
            guard seen.results.count == 2 else { return }
            // Re-entering: a write (queued after this callback), a read, a new watch and a cancel.
            _ = try? cache.put(json: #"{"Human:1002": {"name": "Han"}}"#)
            #expect((try? cache.read(query, variables: #"{"episode": "JEDI"}"#))?.status == .complete)
            holder.inner = try? cache.watch(query, variables: #"{"episode": "JEDI"}"#, inner.record)
            holder.watcher?.cancel()
        }
        _ = try cache.put(json: #"{"Droid:2001": {"name": "Artoo"}}"#)
        #expect(seen.results.count == 2)
        #expect(inner.data.count == 1)
        #expect(inner.data.first?.contains(#""name":"Han""#) == true)
    }

    @Test func aFragmentAtAKeyIsWatched() throws {
        let (test, _) = try heroCache()
        let fragment = try test.cache.prepare("fragment HumanName on Human { name }")
        let seen = Deliveries()
        let watcher = try test.cache.watch(fragment, at: "Human:1000", seen.record)
        defer { watcher.cancel() }
        _ = try test.cache.put(json: #"{"Human:1002": {"name": "Han"}}"#)
        _ = try test.cache.put(json: #"{"Human:1000": {"name": "Luke"}}"#)
        #expect(seen.data == [#"{"name":"Luke Skywalker"}"#, #"{"name":"Luke"}"#])
    }

    @Test func badArgumentsAreRefusedAtOnce() throws {
        let (test, query) = try heroCache()
        let fragment = try test.cache.prepare("fragment HumanName on Human { name }")
        let seen = Deliveries()
        #expect(throws: NormCacheError(.invalidArgument, "'HumanName' is a fragment, not an operation: read or write it at a record key (a fragment read or write)")) {
            try test.cache.watch(fragment, seen.record)
        }
        #expect(throws: NormCacheError(.invalidArgument, "empty record key")) { try test.cache.watch(fragment, at: "", seen.record) }
        #expect(throws: NormCacheError.self) { try test.cache.watch(query, variables: "{", seen.record) }
        test.cache.close()
        #expect(throws: NormCacheError(.invalidArgument, "the cache '\(test.path)' is closed")) {
            try test.cache.watch(query, variables: #"{"episode": "JEDI"}"#, seen.record)
        }
        #expect(seen.results.isEmpty)
    }

    @Test func aWatcherReportsStaleDataAndItsEarliestExpiryInsteadOfMissing() throws {
        let now = Counter(start: 1_700_000_000)
        let test = try TestCache(clock: { now.value })
        try test.cache.configure(#"{"maxAges": {"Query.hero": 60}}"#)
        let query = try test.cache.prepare("{ hero { name } }")
        _ = try test.cache.put(json: #"{"QUERY_ROOT": {"hero": {"$reference": "Droid:2001"}}, "Droid:2001": {"name": "R2-D2"}}"#)
        now.value += 120
        let seen = Deliveries()
        let watcher = try test.cache.watch(query, seen.record)
        defer { watcher.cancel() }
        #expect(seen.results.first?.status == .stale)
        #expect(seen.results.first?.earliestExpiry == 1_700_000_060)
        #expect(seen.data.first == #"{"hero":{"name":"R2-D2"}}"#)
    }

    @Test func aBlockedCallbackHoldsUpNoOtherThreadsCommitsThatItGetsInOrderOnceItReturns() throws {
        var options = CacheOptions()
        options.durability = .fast
        let test = try TestCache(options: options)
        let cache = test.cache
        let query = try cache.prepare("{ counter { gate w0 w1 w2 w3 } }")
        _ = try cache.put(json: #"{"QUERY_ROOT": {"counter": {"$reference": "Counter:1"}}, "Counter:1": {"gate": 0, "w0": 0, "w1": 0, "w2": 0, "w3": 0}}"#)
        let seen = Deliveries()
        let entered = Signal(), release = Signal(), written = Signal()
        let watcher = try cache.watch(query) { result in
            seen.record(result)
            guard Self.counts(result) == ["gate": 1, "w0": 0, "w1": 0, "w2": 0, "w3": 0] else { return }
            entered.post()
            _ = release.wait(seconds: 60)
        }
        defer { watcher.cancel() }
        // The gate's commit delivers on its own thread, whose callback then blocks.
        let gate = startThread { _ = try? cache.put(json: #"{"Counter:1": {"gate": 1}}"#) }
        try #require(entered.wait(seconds: 60))
        let blockedAt = try cache.lastCommit()
        // Four other threads write and commit 25 times each, all while it blocks.
        var writers: [pthread_t] = []
        for writer in 0..<4 {
            writers.append(startThread {
                for value in 1...25 { _ = try? cache.put(json: #"{"Counter:1": {"w\#(writer)": \#(value)}}"#) }
                written.post()
            })
        }
        let finished = (0..<4).filter { _ in written.wait(seconds: 60) }.count
        #expect(finished == 4)
        #expect(try cache.lastCommit() == blockedAt + 100)
        #expect(seen.results.count == 2)
        release.post()
        pthread_join(gate, nil)
        for writer in writers { pthread_join(writer, nil) }
        // Then the queued commits reach it: each delivery newer than the one before, the
        // last one with every write.
        let delivered = seen.results.dropFirst(2).map { Self.counts(.success($0)) }
        #expect(!delivered.isEmpty)
        #expect(delivered.last == ["gate": 1, "w0": 25, "w1": 25, "w2": 25, "w3": 25])
        for (before, after) in zip([["gate": 1, "w0": 0, "w1": 0, "w2": 0, "w3": 0]] + delivered, delivered) {
            #expect(before != after && after.allSatisfy { name, value in value >= before[name] ?? 0 })
        }
    }

    /// The numbers of a `{"counter":{...}}` result by field name (empty for an error).
    static func counts(_ result: Result<ReadResult, NormCacheError>) -> [String: Int] {
        guard let data = try? result.get().data else { return [:] }
        var counts: [String: Int] = [:]
        for member in String(decoding: data, as: UTF8.self).split(whereSeparator: { "{},".contains($0) }) {
            let parts = member.split(separator: ":")
            if parts.count == 2, let value = Int(parts[1]) { counts[String(parts[0].dropFirst().dropLast())] = value }
        }
        return counts
    }
}

/// What a watcher's callback got, from any thread.
final class Deliveries: @unchecked Sendable {
    private let lock = Mutex()
    private var got: [Result<ReadResult, NormCacheError>] = []

    /// The callback.
    var record: Watcher.Callback {
        { [self] result in lock.withLock { got.append(result) } }
    }

    /// The results delivered (errors left out).
    var results: [ReadResult] {
        lock.withLock { got.compactMap { try? $0.get() } }
    }

    /// The data of the results delivered, as text.
    var data: [String] {
        results.map { $0.data.map { String(decoding: $0, as: UTF8.self) } ?? "null" }
    }
}

/// Watchers a callback reaches.
final class WatcherBox: @unchecked Sendable {
    var watcher: Watcher?
    var inner: Watcher?
}

/// A signal between threads (a POSIX semaphore): each post lets one wait return.
final class Signal: @unchecked Sendable {
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init() { sem_init(semaphore, 0, 0) }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Lets one wait return.
    func post() { sem_post(semaphore) }

    /// Whether a post came within `seconds`.
    func wait(seconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_sec += seconds
        while sem_timedwait(semaphore, &deadline) != 0 {
            guard errno == EINTR else { return false }
        }
        return true
    }
}

/// Runs `body` on a new pthread, to be joined.
func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    var thread = pthread_t()
    pthread_create(&thread, nil, { raw in
        Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
        return nil
    }, Unmanaged.passRetained(Body(body)).toOpaque())
    return thread
}
