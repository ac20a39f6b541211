import Glibc
import Testing
@testable import NormCache

/// Threads sharing one handle (and a second handle on the same file) while writes
/// move value between records: every read of an operation, which spans all the
/// records, must see each write whole or not at all. CI also runs this suite under
/// ThreadSanitizer (scripts/test-sanitizers).
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
                        _ = try cache.put(bytes: Array("{\"Account:\(from)\": {\"balance\": \(balances[from])}, \"Account:\(to)\": {\"balance\": \(balances[to])}}".utf8))
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
                        guard case .data(let data) = try cache.read(operation, variables: "") else {
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
        guard case .data(let data) = try test.cache.read(operation, variables: "") else {
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
}

/// Problems threads report, collected under a lock.
final class Problems: @unchecked Sendable {
    private let lock = Mutex()
    private var problems: [String] = []

    func add(_ problem: String) { lock.withLock { problems.append(problem) } }
    var list: [String] { lock.withLock { problems } }
}
