import ArgumentParser
import Glibc
import NormCache

/// `normcache changes`: what the commits of every process changed, from the commit log.
struct ChangesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "Print what the commits after a given one changed, from the cache's commit log.",
        discussion: """
            Each commit that changed data is printed on a line: its id, then the fields it changed \
            in records stored before (Pet:1.age), the records it created, replaced or removed \
            whole, the key prefixes it removed, or "everything" (a clear). The log keeps the last \
            896 to 1024 such commits (fewer when they are large); asked about older ones, the \
            command says the log is incomplete. \
            Without --since it starts at the newest commit, so only --follow prints anything. \
            --follow waits for more (polling every 5 ms at most) until --timeout seconds pass \
            without a commit, or for ever. --json prints each batch as normcache_changes_since's \
            object.

            EXAMPLE
              normcache changes app.cache --since 0
              normcache changes app.cache --follow --json
            """
    )

    @OptionGroup var file: CacheFile
    @Option(help: "The commit after which to start (default: the newest).")
    var since: UInt64?
    @Flag(help: "Keep waiting for commits and print them as they come.")
    var follow = false
    @Option(help: "With --follow: stop after this many seconds without a commit.")
    var timeout: Double?
    @Flag(help: "Print each batch as one JSON object.")
    var json = false

    func validate() throws {
        if let timeout, !(timeout >= 0 && timeout <= 86_400) {
            throw ValidationError("--timeout must be between 0 and 86400 seconds, not \(timeout)")
        }
        if timeout != nil && !follow { throw ValidationError("--timeout needs --follow") }
    }

    func run() throws {
        let cache = try file.openForReading()
        defer { cache.close() }
        var seen = try since ?? cache.lastCommit()
        while true {
            let changes = try cache.changes(since: seen)
            if !changes.commits.isEmpty || !changes.complete || (!follow && json) { show(changes) }
            seen = changes.through
            guard follow else { return }
            let wait = timeout.map { Int($0 * 1000) } ?? 60_000
            guard try cache.waitForCommit(after: seen, timeoutMilliseconds: wait) != nil || timeout == nil else { return }
        }
    }

    private func show(_ changes: CommitChanges) {
        if json {
            print(String(decoding: changes.json, as: UTF8.self))
        } else {
            if !changes.complete { print("(the log no longer holds every commit up to \(changes.through): anything may have changed)") }
            for commit in changes.commits { print(Self.line(commit)) }
        }
        fflush(nil)
    }

    /// One commit as a line: `12  fields Pet:1.age Pet:1.name  records Pet:2`.
    static func line(_ commit: LoggedCommit) -> String {
        var parts = ["\(commit.id)"]
        if commit.all { parts.append("everything") }
        for (name, keys) in [("fields", commit.fields), ("records", commit.records), ("prefixes", commit.prefixes)] where !keys.isEmpty {
            parts.append(([name] + keys).joined(separator: " "))
        }
        return parts.joined(separator: "  ")
    }
}
