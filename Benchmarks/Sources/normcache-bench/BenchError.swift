/// A failure of the harness: what it was doing, and what went wrong.
struct BenchError: Error, CustomStringConvertible {
    /// The message.
    var description: String

    /// An error with `message`.
    init(_ message: String) { description = message }
}
