import Glibc
import TestSupport
import Testing

@testable import NormCache

/// `NormalizedCache.releaseMemory()`, each in a process of its own: the block pool is the
/// process's, and the other tests use it at the same time.
@Suite struct MemoryReleaseTests {
    @Test func releasingMemoryFreesTheBlocksALargeReadLetGoAndThenNothing() async {
        await #expect(processExitsWith: .success) {
            let test = try TestCache()
            let operation = try test.cache.prepare("query Big { big { id blob } }")
            let blob = String(repeating: "ab", count: 150_000)
            _ = try test.cache.write(operation, response: #"{"data": {"big": {"__typename": "Big", "id": "1", "blob": "\#(blob)"}}}"#)
            _ = NormalizedCache.releaseMemory()
            let result = try test.cache.read(operation)
            guard let data = result.data, String(decoding: data, as: UTF8.self).contains(blob) else { exit(3) }
            let released = NormalizedCache.releaseMemory()
            #if NORMCACHE_INTERNAL_CHECKS
            // The checked build's pool keeps nothing.
            guard released == 0 else { exit(4) }
            #else
            // At least the read's output block (its 300,000 bytes of blob and the rest).
            guard released >= 300_000 else { exit(4) }
            #endif
            guard NormalizedCache.releaseMemory() == 0 else { exit(5) }
        }
    }
}
