// The test targets' shared helpers. This is a plain target (SwiftPM has no test-only
// library), so `swift build -c release` compiles it too; NormCache is compiled for
// testing only in debug builds, and only there can this file reach its internals.
#if DEBUG
import Glibc
@testable import NormCache

/// A fresh cache in its own temporary directory, removed when the test ends.
public final class TestCache {
    /// The temporary directory.
    public let directory: String
    /// The cache file in it.
    public let path: String
    /// The open handle on the file.
    public var cache: NormalizedCache

    /// Opens a new cache file with `options`; its written-at times come from `clock`.
    public init(options: CacheOptions = CacheOptions(), clock: @escaping @Sendable () -> UInt64 = { 1_700_000_000 }) throws {
        var template = Array("/tmp/normcache-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw NormCacheError(.storage, "mkdtemp failed") }
        directory = String(cString: made)
        path = directory + "/test.cache"
        cache = try NormalizedCache(path: path, options: options, clock: { Int64(clock()) })
    }

    /// Opens another handle on the same file.
    public func reopen(options: CacheOptions = CacheOptions(), clock: @escaping @Sendable () -> UInt64 = { 1_700_000_000 }) throws -> NormalizedCache {
        try NormalizedCache(path: path, options: options, clock: { Int64(clock()) })
    }

    deinit {
        cache.close()
        unlink(path)
        unlink(path + "-lock")
        rmdir(directory)
    }
}
#endif
