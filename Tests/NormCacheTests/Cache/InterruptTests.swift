import TestSupport
import Testing
@testable import NormCache

/// `NormalizedCache.interrupt`: a call running on the handle stops at its next check with
/// `.interrupted` and changes nothing; the interrupt ends with the calls it stopped.
@Suite struct InterruptTests {
    static let interrupted = NormCacheError(
        .interrupted, "interrupted: interrupt() was called on the cache handle while this call ran; nothing was changed")

    @Test func aWriteInterruptedByItsKeyResolverWritesNothing() throws {
        let test = try TestCache()
        let cache = test.cache
        #expect(try cache.put(json: #"{"QUERY_ROOT.a": {"b": 0}}"#) == ["QUERY_ROOT.a.b"])
        let objects = Counter(start: 0)
        // The resolver holds the cache: it is removed at the end, or the two leak.
        defer { cache.setKeyResolver(nil) }
        cache.setKeyResolver { _, _ in
            objects.value += 1
            if objects.value == 2 { cache.interrupt() }
            return nil
        }
        let op = try cache.prepare("{ a { b c { d } } }")
        #expect(throws: Self.interrupted) {
            try cache.write(op, #"{"data": {"a": {"b": 1, "c": {"d": 2}}}}"#)
        }
        #expect(try cache.keys(withPrefix: "") == ["QUERY_ROOT.a"])
        #expect(try cache.record("QUERY_ROOT.a") == #"{"b":0}"#)
        #expect(try cache.write(op, #"{"data": {"a": {"b": 1, "c": {"d": 2}}}}"#) == ["QUERY_ROOT.a.c.d", "QUERY_ROOT.a.b", "QUERY_ROOT.a.c", "QUERY_ROOT.a"])
    }

    @Test func aPutAndAReadInterruptedByTheClock() throws {
        let test = try TestCache()
        let cache = test.cache
        #expect(try cache.put(json: #"{"QUERY_ROOT": {"a": 1}}"#) == ["QUERY_ROOT.a"])
        let op = try cache.prepare("{ a }")
        cache.setClock {
            cache.interrupt()
            return 1_700_000_000
        }
        #expect(throws: Self.interrupted) { try cache.put(json: #"{"QUERY_ROOT": {"a": 2}, "B:1": {"c": 3}}"#) }
        #expect(throws: Self.interrupted) { try cache.read(op) }
        #expect(throws: Self.interrupted) { try cache.put(json: #"{"B:1": {"c": 3}}"#, options: WriteOptions()) }
        cache.setClock(nil)
        #expect(try cache.keys(withPrefix: "") == ["QUERY_ROOT"])
        #expect(try cache.read(op).data == Array(#"{"a":1}"#.utf8))
    }

    @Test func anInterruptWhileNothingRunsDoesNothing() throws {
        let test = try TestCache()
        test.cache.interrupt()
        test.cache.interrupt()
        #expect(try test.cache.put(json: #"{"A:1": {"x": 1}}"#) == ["A:1.x"])
        let op = try test.cache.prepare("{ a }")
        #expect(op.document == "{\n  a\n}")
    }

    @Test func anotherHandlesCallInsideACallbackIsNotInterrupted() throws {
        let test = try TestCache()
        let other = try TestCache()
        let cache = test.cache
        let otherCache = other.cache
        defer { cache.setKeyResolver(nil) }
        cache.setKeyResolver { _, _ in
            cache.interrupt()
            // A call of another handle, made while this handle's write is interrupted.
            _ = try? otherCache.put(json: #"{"Other:1": {"x": 1}}"#)
            return nil
        }
        let op = try cache.prepare("{ a { b } }")
        #expect(throws: Self.interrupted) { try cache.write(op, #"{"data": {"a": {"b": 1}}}"#) }
        #expect(try other.cache.record("Other:1") == #"{"x":1}"#)
        #expect(try cache.keys(withPrefix: "") == [])
    }
}
