import ArgumentParser
import Foundation

/// normcache-bench: the perf harness (see `BenchArguments`, `normcache-bench --help` and
/// the README). `--child MODE ...` is how it runs itself as a child process.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "normcache-bench",
        abstract: "The perf harness: normcache against raw LMDB, simdjson, Foundation and Python baselines.",
        discussion: """
            Writes DIR/results.txt, DIR/results.json (google-benchmark's shape) and
            DIR/results.svg.

            Besides its C calls against raw LMDB and simdjson, feed times each write
            again with the changed keys reported (normcache_write's out_changed: what
            Python's default write and watchers pay; target: at most 1.2x the same
            write), and the Python binding's default calls, write(op, response) and
            read(op), against the C calls under them made in the same Python process
            (target: at most 1.3x) and against their floors (the C call plus
            marshal.loads of what the call returns).

            app times app-shaped queries (a GitHub client's pull request and repository
            views, nested single objects 4-5 deep with 10-30 fields each, and 40 objects
            in single fields against the same 40 in a list) read and rewritten through
            the C interface, against raw LMDB gets of the same records (targets: an
            object in a single field at most 1.5x a list element; a small read under
            5 us), and the first calls through a newly prepared operation (prepare, the
            first write, the first read with no write before it) against the same
            calls made again.

            EXAMPLE
              normcache-bench --smoke --out /tmp/bench
              normcache-bench --only feed,groups --runs 7
            """
    )

    @OptionGroup var arguments: BenchArguments

    func run() throws {
        do {
            try Self.runHarness(arguments.options)
        } catch {
            FileHandle.standardError.write(Data("normcache-bench: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }

    /// Runs the workloads `options` name and saves the report.
    static func runHarness(_ options: BenchOptions) throws {
        let bench = try Bench(options: options)
        let started = monotonicSeconds()
        let workloads: [String: () throws -> Void] = [
            "feed": bench.runFeed, "app": bench.runApp, "swapi": bench.runSwapi, "large": bench.runLarge, "groups": bench.runGroups,
            "small-writes": bench.runSmallWrites, "concurrency": bench.runConcurrency, "scale": bench.runScale,
            "freshness": bench.runFreshness, "documents": bench.runDocuments, "watchers": bench.runWatchers,
            "eviction": bench.runEviction, "gc": bench.runGC,
        ]
        for name in options.workloads {
            bench.progress("== \(name)")
            try workloads[name]!()
        }
        bench.cleanUp()
        let report = Report(figures: bench.figures, options: options, seconds: monotonicSeconds() - started)
        try report.save(to: options.outputDirectory)
        print(report.table)
        let missed = bench.figures.filter { $0.met == false }
        print("\(bench.figures.filter { $0.met == true }.count) targets met, \(missed.count) missed; "
              + "saved \(options.outputDirectory)/results.{txt,json,svg}")
    }
}

/// Runs a child mode (`--child MODE ARGUMENTS...`); returns the exit status.
func runChild(_ arguments: [String]) -> Int32 {
    do {
        guard let mode = arguments.first else { throw BenchError("--child needs a mode") }
        try ChildModes.run(mode, Array(arguments.dropFirst()))
        return 0
    } catch {
        FileHandle.standardError.write(Data("normcache-bench: \(error)\n".utf8))
        return 1
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--child" { exit(runChild(Array(arguments.dropFirst()))) }
BenchCommand.main(arguments)
