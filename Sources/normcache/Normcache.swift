import ArgumentParser
import Glibc
import NormCache

/// `normcache`: inspects, edits, copies and feeds normcache cache files, and runs the
/// demo and the perf harness.
@main
struct Normcache: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "normcache",
        abstract: "Inspect and edit normcache cache files.",
        discussion: """
            The cache file comes first, as with sqlite3 and mdb_stat: normcache stats app.cache. \
            Commands that only read open the file read-only, so they work on a cache that other \
            processes are using; --json prints what a script would parse.

            EXAMPLE
              normcache keys app.cache Pet: --limit 10
              normcache get app.cache Pet:7 --follow 1

            \(ExitStatus.table)
            """,
        version: "\(NormalizedCache.version)",
        subcommands: [
            StatsCommand.self, KeysCommand.self, GetCommand.self, RemoveCommand.self, TrimCommand.self, DumpCommand.self, LoadCommand.self,
            CopyCommand.self, CompactCommand.self, ChangesCommand.self, ImportCommand.self, ExportCommand.self, InvalidateCommand.self,
            GCCommand.self, RetainCommand.self, ReleaseCommand.self, PrepareCommand.self, NormalizeCommand.self, WriteCommand.self,
            ReadCommand.self, RulesCommand.self, BenchCommand.self, DemoCommand.self,
        ]
    )

    /// Runs the command line; a failure prints `normcache: <message>` on standard error
    /// and exits with its `ExitStatus`.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let failure as CommandFailure {
            fail(failure)
        } catch let error as NormCacheError {
            fail(CommandFailure(error))
        } catch {
            exit(withError: error)
        }
    }

    private static func fail(_ failure: CommandFailure) -> Never {
        fflush(nil)
        Output.error("normcache: \(failure.message)")
        Glibc.exit(failure.status.rawValue)
    }
}
