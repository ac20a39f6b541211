/// What the commits after a given one changed, from the commit log
/// (`NormalizedCache.changes(since:)`).
public struct CommitChanges: Equatable, Sendable {
    /// The newest commit covered: the file's newest when the changes were read.
    public var through: UInt64
    /// Whether `commits` holds every commit that changed data after the one asked
    /// about; false when the log no longer reaches back that far (it keeps at most the
    /// last 1024 commits and 16 MiB of pages of them, trimmed to 7/8 of both when a
    /// commit passes a bound) or the file has no log: anything may have changed.
    public var complete: Bool
    /// The logged commits that changed data, oldest first.
    public var commits: [LoggedCommit]

    /// Changes of every part.
    public init(through: UInt64, complete: Bool, commits: [LoggedCommit]) {
        self.through = through
        self.complete = complete
        self.commits = commits
    }

    /// The changes as the JSON object of `normcache_changes_since`:
    /// `{"through":12,"complete":true,"commits":[{"commit":12,"fields":["Post:1.title"],"records":[],"prefixes":[],"all":false}]}`.
    public var json: [UInt8] {
        var out = ByteBuffer()
        out.append(#"{"through":"#)
        out.append(contentsOf: String(through).utf8)
        out.append(#","complete":"#)
        out.append(complete ? "true" : "false")
        out.append(#","commits":["#)
        for (index, commit) in commits.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(#"{"commit":"#)
            out.append(contentsOf: String(commit.id).utf8)
            for (name, keys) in [(#","fields":["#, commit.fields), (#"],"records":["#, commit.records), (#"],"prefixes":["#, commit.prefixes)] {
                out.append(contentsOf: name.utf8)
                for (position, key) in keys.enumerated() {
                    if position > 0 { out.append(UInt8(ascii: ",")) }
                    out.appendQuoted(key.utf8)
                }
            }
            out.append(#"],"all":"#)
            out.append(commit.all ? "true" : "false")
            out.append(UInt8(ascii: "}"))
        }
        out.append("]}")
        return out.array
    }
}

/// One commit of the log and what it changed.
public struct LoggedCommit: Equatable, Sendable {
    /// The commit's id (as `NormalizedCache.lastCommit` counts).
    public var id: UInt64
    /// The fields it changed in records that it did not create (`records` has those),
    /// `recordKey.fieldKey` (`Post:1.title`), in the order the commit noted them.
    public var fields: [String]
    /// The records it created, replaced or removed as a whole: every field of each may
    /// have changed.
    public var records: [String]
    /// The key prefixes whose records it removed.
    public var prefixes: [String]
    /// Whether anything may have changed (a clear, or a commit too large to log key by
    /// key).
    public var all: Bool

    /// A commit of every part.
    public init(id: UInt64, fields: [String] = [], records: [String] = [], prefixes: [String] = [], all: Bool = false) {
        self.id = id
        self.fields = fields
        self.records = records
        self.prefixes = prefixes
        self.all = all
    }
}
