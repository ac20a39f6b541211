import Glibc
import TestSupport
import Testing
@testable import NormCache

/// `NormalizedCache.compact(path:)`: a cache file rewritten in place without its free
/// pages, refused while this process has it open (other processes: tests/cli/test_compact.py).
@Suite struct InPlaceCompactionTests {
    private func size(_ path: String) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : -1
    }

    @Test func aClearedCacheShrinksToAFewPagesAndKeepsWhatItHolds() throws {
        let test = try TestCache()
        let big = String(repeating: "x", count: 1000)
        _ = try test.cache.put(json: "{" + (0..<2000).map { #""R:\#($0)": {"v": "\#(big)"}"# }.joined(separator: ",") + "}")
        _ = try test.cache.put(json: #"{"Pet:1": {"name": "Rex"}}"#)
        #expect(try test.cache.removeAll(withPrefix: "R:") == 2000)
        let before = size(test.path)
        test.cache.close()
        let sizes = try NormalizedCache.compact(path: test.path)
        #expect(sizes.before == before && sizes.after == size(test.path))
        #expect(sizes.after <= 12 * 4096)  // meta pages, roots and the commit log of the put and the removal
        let reopened = try test.reopen()
        defer { reopened.close() }
        #expect(try reopened.record("Pet:1") == #"{"name":"Rex"}"#)
        #expect(try reopened.stats().records == 1)
    }

    @Test func aFileOpenInThisProcessIsRefusedAndUnchanged() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"Pet:1": {"name": "Rex"}}"#)
        let second = try test.reopen()
        #expect(throws: NormCacheError(.invalidArgument, "'\(test.path)' is open in this process (2 handles): close it before compacting it")) {
            try NormalizedCache.compact(path: test.path)
        }
        second.close()
        #expect(throws: NormCacheError(.invalidArgument, "'\(test.path)' is open in this process (1 handle): close it before compacting it")) {
            try NormalizedCache.compact(path: test.path)
        }
        #expect(try test.cache.record("Pet:1") == #"{"name":"Rex"}"#)
    }

    @Test func badPathsAreRefused() throws {
        #expect(throws: NormCacheError(.invalidArgument, "empty cache path")) { try NormalizedCache.compact(path: "") }
        #expect(throws: NormCacheError(.invalidArgument, "cache path contains a NUL byte")) { try NormalizedCache.compact(path: "a\0b") }
        #expect(throws: NormCacheError(.storage, "cannot compact '/nonexistent/a.cache': cannot stat it: No such file or directory")) {
            try NormalizedCache.compact(path: "/nonexistent/a.cache")
        }
        #expect(throws: NormCacheError(.invalidArgument, "cannot compact '/tmp': not a regular file")) { try NormalizedCache.compact(path: "/tmp") }
    }

    @Test func aTruncatedCacheAndTheReadOnlyOptionAreRefusedAndChangeNothing() throws {
        let test = try TestCache()
        let big = String(repeating: "x", count: 1000)
        _ = try test.cache.put(json: "{" + (0..<500).map { #""R:\#($0)": {"v": "\#(big)"}"# }.joined(separator: ",") + "}")
        test.cache.close()
        var readOnly = CacheOptions()
        readOnly.readOnly = true
        #expect(throws: NormCacheError(.readOnly, "cannot compact '\(test.path)' with the option read_only: compacting rewrites the file")) {
            try NormalizedCache.compact(path: test.path, options: readOnly)
        }
        let half = size(test.path) / 2
        #expect(truncate(test.path, off_t(half)) == 0)
        #expect {
            try NormalizedCache.compact(path: test.path)
        } throws: { error in
            let error = error as? NormCacheError
            return error?.code == .notACache && error?.message.hasPrefix("'\(test.path)' is truncated: \(half) bytes, but its pages end at byte ") == true
        }
        #expect(size(test.path) == half)
        #expect(access(test.path + ".compact-\(getpid())", F_OK) != 0)
    }
}
