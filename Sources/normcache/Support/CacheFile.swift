import ArgumentParser
import NormCache

/// The cache file argument that most commands take first.
struct CacheFile: ParsableArguments {
    @Argument(help: "The cache file.")
    var cache: String

    /// Opens the cache read-only (it must exist), for commands that only read, with
    /// `base`'s other options.
    func openForReading(_ base: CacheOptions = CacheOptions()) throws(NormCacheError) -> NormalizedCache {
        var options = base
        options.readOnly = true
        return try NormalizedCache(path: cache, options: options)
    }

    /// Opens the cache for writing, with the saved rules unless `rules` says otherwise;
    /// creates the file when it does not exist and `creating`, else fails with a storage
    /// error. `base` gives the other options.
    func openForWriting(creating: Bool, rules: CacheOptions.Rules = .saved, _ base: CacheOptions = CacheOptions()) throws -> NormalizedCache {
        guard creating || InputFile.exists(cache) else { throw CommandFailure(.storage, "cannot open '\(cache)': no such file") }
        var options = base
        options.rules = rules
        return try NormalizedCache(path: cache, options: options)
    }
}
