import Foundation

/// The state of one harness run: options, scratch files, and the figures so far.
final class Bench {
    /// The command line.
    let options: BenchOptions
    /// Scratch files (caches, response files), removed at the end.
    let scratch: String
    /// The figures measured so far, in order.
    private(set) var figures: [Figure] = []
    private var scratchFiles = 0

    /// A run with `options`; makes the output and scratch directories.
    init(options: BenchOptions) throws {
        self.options = options
        scratch = options.outputDirectory + "/scratch"
        try? FileManager.default.removeItem(atPath: scratch)
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    /// Records a figure and prints its line.
    func add(_ figure: Figure) {
        figures.append(figure)
        progress("  \(Report.line(figure))")
    }

    /// Prints a progress line on stderr.
    func progress(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// A path for a new scratch cache or file (nothing exists there).
    func freshPath(_ name: String) -> String {
        scratchFiles += 1
        let path = "\(scratch)/\(scratchFiles)-\(name)"
        removeCache(path)
        return path
    }

    /// Removes a cache file and its lock file.
    func removeCache(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: path + "-lock")
    }

    /// Writes `bytes` to a new scratch file; returns its path.
    func scratchFile(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = freshPath(name)
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw BenchError("cannot write \(path)")
        }
        return path
    }

    /// A path inside the repository.
    func repositoryPath(_ relative: String) -> String {
        options.repository + "/" + relative
    }

    /// Runs `runs` rounds; each round calls every step once, in order, so normcache and
    /// its baselines share the machine's slow and fast phases. Returns each step's series.
    func interleave(_ steps: [() throws -> Double], label: String) throws -> [Series] {
        var series = Array(repeating: Series(), count: steps.count)
        for run in 0..<options.runs {
            progress("  \(label): run \(run + 1)/\(options.runs)")
            for (index, step) in steps.enumerated() { series[index].append(try step()) }
        }
        return series
    }

    /// Runs a program and returns its standard output; its standard error goes to
    /// this program's, and a non-zero exit is an error.
    func runProgram(_ executable: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.contains("/") ? executable : "/usr/bin/env")
        process.arguments = executable.contains("/") ? arguments : [executable] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("\(executable) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus) (its messages are above)")
        }
        return outputData
    }

    /// Runs this harness again as a child process in `mode` (fresh memory, fresh
    /// environment) and returns the JSON object it prints.
    func runChild(_ mode: String, _ arguments: [String]) throws -> [String: Any] {
        let output = try runProgram(Self.executablePath, ["--child", mode] + arguments)
        guard let object = try JSONSerialization.jsonObject(with: output) as? [String: Any] else {
            throw BenchError("child \(mode) printed no JSON object")
        }
        return object
    }

    /// This program's path.
    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Removes the scratch files.
    func cleanUp() {
        try? FileManager.default.removeItem(atPath: scratch)
    }
}
