import ArgumentParser
import NormCache

/// `normcache gc`: garbage collection of a cache file.
struct GCCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Remove the records no root reaches, and optionally stale and dangling fields.",
        discussion: """
            The roots are QUERY_ROOT, MUTATION_ROOT, SUBSCRIPTION_ROOT, every document and every \
            retained key (normcache retain). Runs in one write transaction: readers never wait, \
            writers of every process wait until it commits. Prints what was removed per key group, \
            or with --json the report of normcache_gc.

            EXAMPLE
              normcache gc app.cache --dry-run
              normcache gc app.cache --grace 86400 --dangling --json
            """
    )

    @OptionGroup var file: CacheFile
    @Flag(help: "Report what would be removed; write nothing.")
    var dryRun = false
    @Option(help: ArgumentHelp("Also remove the fields whose stored expiry is at least this many seconds past.", valueName: "seconds"))
    var grace: UInt64?
    @Flag(help: "Also remove the fields that hold a reference to an absent record (a list holding one goes whole).")
    var dangling = false
    @Flag(help: "Print the report as one JSON object.")
    var json = false

    func run() throws {
        let cache = dryRun ? try file.openForReading() : try file.openForWriting(creating: false)
        defer { cache.close() }
        let report = try cache.collectGarbage(GarbageCollectionOptions(dryRun: dryRun, staleGrace: grace, removeDanglingReferences: dangling))
        if json {
            print(String(decoding: report.json, as: UTF8.self))
            return
        }
        let verb = dryRun ? "would remove" : "removed"
        print("\(verb) \(report.removedRecords) records (\(report.unreachableRecords) unreachable, \(report.emptiedRecords) left empty)")
        print("\(verb) \(report.removedFields) fields (\(report.staleFields) stale, \(report.danglingFields) dangling)")
        for group in report.groups {
            print("  \(group.name)  \(group.records) records  \(group.fields) fields")
        }
        print("kept \(report.keptRecords) records in \(Double(report.elapsedMicroseconds) / 1000) ms")
    }
}
