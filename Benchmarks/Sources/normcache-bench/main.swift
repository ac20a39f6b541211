import Foundation

/// normcache-bench: the perf harness. See `BenchOptions.usage` and the README.
func runHarness() -> Int32 {
    var arguments = Array(CommandLine.arguments.dropFirst())
    do {
        if arguments.first == "--child" {
            arguments.removeFirst()
            guard let mode = arguments.first else { throw BenchError("--child needs a mode") }
            try ChildModes.run(mode, Array(arguments.dropFirst()))
            return 0
        }
        let options = try BenchOptions.parse(arguments)
        let bench = try Bench(options: options)
        let started = monotonicSeconds()
        let workloads: [String: () throws -> Void] = [
            "feed": bench.runFeed, "swapi": bench.runSwapi, "large": bench.runLarge, "groups": bench.runGroups,
            "small-writes": bench.runSmallWrites, "concurrency": bench.runConcurrency, "scale": bench.runScale,
            "freshness": bench.runFreshness,
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
        return 0
    } catch {
        FileHandle.standardError.write(Data("normcache-bench: \(error)\n".utf8))
        return 1
    }
}

exit(runHarness())
