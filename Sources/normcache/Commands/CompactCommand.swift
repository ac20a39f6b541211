import ArgumentParser
import NormCache

/// `normcache compact`: shrinks a cache file that no process has open.
struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Shrink a cache file that no process has open.",
        discussion: """
            LMDB never gives freed pages back: a cache keeps its size after remove or clear. \
            compact writes a compacted copy to CACHE.compact-<pid> in the same directory (with \
            the same permission bits), syncs it, renames it over CACHE and makes the lock file \
            anew. It holds the lock file's lock throughout: it refuses (exit status 4) when \
            another process has the cache open, and a process that starts to open it meanwhile \
            waits, then opens the compacted file. To shrink a cache in use, copy it instead.

            EXAMPLE
              normcache compact app.cache
            """
    )

    @OptionGroup var file: CacheFile

    func run() throws {
        guard InputFile.exists(file.cache) else { throw CommandFailure(.storage, "cannot open '\(file.cache)': no such file") }
        let sizes = try NormalizedCache.compact(path: file.cache)
        print("compacted '\(file.cache)': \(sizes.before) bytes -> \(sizes.after) bytes")
    }
}
