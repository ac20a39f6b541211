import NormCache

/// The exit statuses of `normcache`, one per kind of outcome, so that a script can tell
/// them apart. They are documented in `normcache --help` and the man page.
enum ExitStatus: Int32 {
    /// The command did what it was asked.
    case ok = 0
    /// An unexpected failure (argument-parser's `EXIT_FAILURE` for errors of no other kind).
    case failure = 1
    /// What was asked for is not there: a record, a field, the data of a read (a miss).
    case notFound = 2
    /// The input is wrong: malformed JSON, GraphQL, schema or configuration, a bad dump
    /// line, response data that does not fit its operation, a missing input file.
    case badInput = 3
    /// The cache file could not be used: missing, not a cache, damaged, read-only, I/O.
    case storage = 4
    /// A tool the command runs is not built (`bench` without `normcache-bench`).
    case unavailable = 5
    /// The command line is wrong (argument-parser's `EX_USAGE`).
    case usage = 64

    /// The table of statuses for the help text.
    static var table: String {
        """
        EXIT STATUS
          0   ok
          1   unexpected failure
          2   not found: no such record or field, or a read that missed
          3   bad input: malformed JSON, GraphQL, schema, configuration or dump line; a missing input file
          4   storage error: the cache cannot be opened or used (missing, not a cache, damaged, read-only, I/O)
          5   unavailable: a tool the command runs is not built (bench)
          64  usage: the command line is wrong
        """
    }
}

/// A failure a command reports: its exit status and what to print on standard error.
struct CommandFailure: Error {
    /// The exit status.
    var status: ExitStatus
    /// The message, without the program's name.
    var message: String

    /// A failure with `status` and `message`.
    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The failure of a core error: its kind chooses the status.
    init(_ error: NormCacheError) {
        switch error.code {
        case .invalidArgument, .json, .document, .schema, .data: status = .badInput
        case .storage, .notACache, .readOnly, .outOfMemory: status = .storage
        default: status = .failure
        }
        message = error.message
    }
}
