/// A commit of this process that changed data: its id (the LMDB transaction id, which
/// every process sees) and what it changed.
struct Commit {
    /// The commit's id.
    let id: UInt64
    /// What it changed.
    let changes: ChangeSet
}
