import ArgumentParser
import NormCache

/// `normcache copy`: a consistent, compacted copy of a cache that may be in use.
struct CopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy a cache, even one in use, to a new file.",
        discussion: """
            The copy holds the records as of one moment, compacted (LMDB's mdb_env_copyfd2 with \
            MDB_CP_COMPACT, as mdb_copy -c), while other processes go on reading and writing. \
            The source is opened read-only; DEST must not exist, and gets the \
            source's permission bits.

            EXAMPLE
              normcache copy app.cache backup.cache
            """
    )

    @OptionGroup var file: CacheFile
    @Argument(help: "The new file to write.")
    var destination: String

    func run() throws {
        guard !InputFile.exists(destination) else {
            throw CommandFailure(.badInput, "'\(destination)' exists: copy writes a new file")
        }
        let cache = try file.openForReading()
        defer { cache.close() }
        try cache.copy(to: destination)
        print("copied '\(file.cache)' to '\(destination)'")
    }
}
