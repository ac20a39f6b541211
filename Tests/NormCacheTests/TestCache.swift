import Glibc
@testable import NormCache

/// A fresh cache in its own temporary directory, removed when the test ends.
final class TestCache {
    let directory: String
    let path: String
    var cache: NormalizedCache

    init(options: CacheOptions = CacheOptions(), clock: @escaping @Sendable () -> UInt64 = { 1_700_000_000 }) throws {
        var template = Array("/tmp/normcache-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw NormCacheError(.storage, "mkdtemp failed") }
        directory = String(cString: made)
        path = directory + "/test.cache"
        cache = try NormalizedCache(path: path, options: options, clock: clock)
    }

    /// Opens another handle on the same file.
    func reopen(options: CacheOptions = CacheOptions(), clock: @escaping @Sendable () -> UInt64 = { 1_700_000_000 }) throws -> NormalizedCache {
        try NormalizedCache(path: path, options: options, clock: clock)
    }

    deinit {
        cache.close()
        unlink(path)
        unlink(path + "-lock")
        rmdir(directory)
    }
}
