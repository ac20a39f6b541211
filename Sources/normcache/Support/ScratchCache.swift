import Glibc
import NormCache

/// A cache in a temporary directory of its own, for the commands that need a cache to
/// work with but none to keep (`prepare`, `normalize`); removed when the body ends.
enum ScratchCache {
    /// Runs `body` with a new, empty cache opened with `options`.
    static func with<R>(options: CacheOptions = CacheOptions(), _ body: (NormalizedCache) throws -> R) throws -> R {
        var template = Array("/tmp/normcache-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CommandFailure(.storage, "cannot make a temporary directory: \(String(cString: strerror(errno)))")
        }
        let directory = String(cString: made), path = directory + "/scratch.cache"
        defer {
            unlink(path)
            unlink(path + "-lock")
            rmdir(directory)
        }
        let cache = try NormalizedCache(path: path, options: options)
        defer { cache.close() }
        return try body(cache)
    }
}
