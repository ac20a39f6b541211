import ArgumentParser

/// The records a command changes: one record by its key, or a key group by `--prefix`.
struct RecordSelection: ParsableArguments {
    @Argument(help: "The record's key.")
    var key: String?
    @Option(help: ArgumentHelp("Every record whose key starts with this, instead of one record.", valueName: "prefix"))
    var prefix: String?

    func validate() throws {
        guard (key == nil) != (prefix == nil) else { throw ValidationError("give either a KEY or --prefix, not both or neither") }
    }
}
