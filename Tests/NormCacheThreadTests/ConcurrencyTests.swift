import TestSupport
import Testing
@testable import NormCache

/// Threads sharing one handle (and a second handle on the same file) while writes
/// move value between fields and records: every read, of one record or of an
/// operation spanning all of them, must see each write whole or not at all. This
/// target is what the ThreadSanitizer run of scripts/test-sanitizers builds and runs.
@Suite struct ConcurrencyTests {
    static let accounts = 8
    static let opening = 100
    static let transfers = 300
    static let reads = 300

    @Test func readsSeeWholeWritesAcrossRecords() throws {
        let test = try TestCache()
        let second = try test.reopen()
        defer { second.close() }
        var setup = "{\"QUERY_ROOT\": {\"accounts\": ["
        setup += (0..<Self.accounts).map { "{\"$reference\": \"Account:\($0)\"}" }.joined(separator: ", ") + "]}"
        for account in 0..<Self.accounts { setup += ", \"Account:\(account)\": {\"id\": \"\(account)\", \"balance\": \(Self.opening)}" }
        _ = try test.cache.put(json: setup + "}")
        let operation = try test.cache.prepare("{ accounts { id balance } }")
        let problems = Problems()

        // Writer `w` owns the accounts i with i % 2 == w, so the two writers never
        // overwrite each other's balances; each transfer is one put of two records.
        let writers: [@Sendable () -> Void] = (0..<2).map { writer in
            let cache = writer == 0 ? test.cache : second
            return {
                var balances = [Int](repeating: Self.opening, count: Self.accounts)
                for step in 0..<Self.transfers {
                    let from = (step * 2 + writer) % Self.accounts, to = (step * 2 + 2 + writer) % Self.accounts
                    let amount = step % 7 + 1
                    balances[from] -= amount
                    balances[to] += amount
                    do {
                        _ = try cache.put(json: "{\"Account:\(from)\": {\"balance\": \(balances[from])}, \"Account:\(to)\": {\"balance\": \(balances[to])}}")
                    } catch {
                        problems.add("writer \(writer): \(error)")
                    }
                }
            }
        }
        let readers: [@Sendable () -> Void] = (0..<3).map { reader in
            let cache = reader == 0 ? second : test.cache
            return {
                for _ in 0..<Self.reads {
                    do {
                        let result = try cache.read(operation, variables: "")
                        guard result.status == .complete, let data = result.data else {
                            problems.add("reader \(reader): a miss")
                            continue
                        }
                        let total = Self.balances(in: data).reduce(0, +)
                        if total != Self.accounts * Self.opening { problems.add("reader \(reader): total \(total) in \(String(decoding: data, as: UTF8.self))") }
                    } catch {
                        problems.add("reader \(reader): \(error)")
                    }
                }
            }
        }
        runOnThreads(writers + readers)
        #expect(problems.list.isEmpty, "\(problems.list.prefix(5))")
        let result = try test.cache.read(operation, variables: "")
        guard result.status == .complete, let data = result.data else {
            Issue.record("the accounts do not read back")
            return
        }
        #expect(Self.balances(in: data).reduce(0, +) == Self.accounts * Self.opening)
    }

    /// The numbers after each `"balance":` in read data.
    static func balances(in data: [UInt8]) -> [Int] {
        let text = String(decoding: data, as: UTF8.self)
        return text.split(separator: "\"balance\":").dropFirst().compactMap { Int($0.prefix { $0 == "-" || $0.isNumber }) }
    }

    @Test func threadsShareOneCache() throws {
        let test = try TestCache()
        let cache = test.cache
        let problems = Problems()
        // Each writer moves value between two fields of one record in one write, so
        // every read must see the sum intact; readers check that invariant.
        _ = try cache.put(json: #"{"Bank:1": {"a": 100, "b": 0}}"#)
        let work: [@Sendable () -> Void] = (0..<8).map { worker in
            {
                for step in 0..<200 {
                    do {
                        if worker < 4 {
                            let a = (worker * 200 + step) % 101
                            _ = try cache.put(json: "{\"Bank:1\": {\"a\": \(a), \"b\": \(100 - a)}, \"W\(worker):\(step)\": {\"s\": \(step)}}")
                        } else {
                            guard let record = try cache.record("Bank:1") else { throw NormCacheError(.storage, "missing") }
                            let numbers = record.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
                            if numbers.count != 2 || numbers[0] + numbers[1] != 100 { throw NormCacheError(.storage, record) }
                        }
                    } catch {
                        problems.add("worker \(worker): \(error)")
                    }
                }
            }
        }
        runOnThreads(work)
        #expect(problems.list.isEmpty, "\(problems.list.prefix(5))")
        for worker in 0..<4 {
            #expect(try cache.keys(withPrefix: "W\(worker):").count == 200)
        }
    }

    @Test func threadsReadingOneOperationWithDifferentVariables() throws {
        let test = try TestCache()
        let cache = test.cache
        try cache.configure(#"{"defaultKeyFields": ["id"]}"#)
        let pet = try cache.prepare("query Pet($id: ID!, $full: Boolean!) { pet(id: $id) { id name owner @include(if: $full) { id } } }")
        for id in 1...2 {
            _ = try cache.write(pet, response: #"{"data": {"pet": {"id": "\#(id)", "name": "P\#(id)", "owner": {"id": "u\#(id)"}}}}"#,
                                variables: #"{"id": "\#(id)", "full": true}"#)
        }
        // The operation keeps the contexts of ended calls for calls with the same
        // variables (`ContextShelf`): no thread may ever read with another's.
        let reads: [(variables: String, data: String)] = [
            (#"{"id": "1", "full": true}"#, #"{"pet":{"id":"1","name":"P1","owner":{"id":"u1"}}}"#),
            (#"{"id": "2", "full": false}"#, #"{"pet":{"id":"2","name":"P2"}}"#),
            (#"{"id": "1", "full": false}"#, #"{"pet":{"id":"1","name":"P1"}}"#),
        ]
        let problems = Problems()
        let work: [@Sendable () -> Void] = (0..<6).map { worker in
            {
                for step in 0..<300 {
                    let (variables, data) = reads[(worker + step) % reads.count]
                    do {
                        let read = String(decoding: try cache.read(pet, variables: variables).data ?? [], as: UTF8.self)
                        if read != data { problems.add("worker \(worker), \(variables): \(read)") }
                    } catch {
                        problems.add("worker \(worker): \(error)")
                    }
                }
            }
        }
        runOnThreads(work)
        #expect(problems.list.isEmpty, "\(problems.list.prefix(5))")
    }
}

/// Read transactions kept between reads (`IdleReadTransactions`) under threads reading
/// one handle at once: each read gets a transaction of its own, and no more than two
/// reader slots stay taken afterwards.
@Suite struct KeptReadTransactionTests {
    @Test func threadsReadingAtOnceKeepAtMostTwoSlots() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"A:1": {"x": 1}, "A:2": {"x": 2}}"#)
        let problems = Problems()
        let cache = test.cache
        runOnThreads((0..<4).map { thread in
            {
                for round in 0..<500 {
                    let key = "A:\(1 + (thread + round) % 2)"
                    do {
                        let expected = key == "A:1" ? #"{"x":1}"# : #"{"x":2}"#
                        let got = try cache.record(key)
                        if got != expected { problems.add("thread \(thread): \(key) read \(got ?? "nil")") }
                    } catch {
                        problems.add("thread \(thread): \(error)")
                    }
                }
            }
        })
        #expect(problems.list == [])
        let stats = try test.cache.stats()
        #expect(stats.readers == 0)
        #expect((1...IdleReadTransactions.capacity).contains(stats.readerSlots))
    }
}
