import CNormCacheABI
import Foundation

/// The results of a run: a table for people, JSON in google-benchmark's shape for
/// tools, and an SVG chart of normcache against its baselines.
struct Report {
    /// The figures in the order measured.
    var figures: [Figure]
    /// The run's options.
    var options: BenchOptions
    /// How long the run took.
    var seconds: Double

    /// One figure as a line of the table.
    static func line(_ figure: Figure) -> String {
        var columns = [
            pad(figure.workload, 13), pad(figure.measure, 58),
            pad(formatValue(figure.normcache.median, figure.unit), 10, right: true),
            pad("±" + format(figure.normcache.spread * 100) + "%", 7, right: true),
            pad(figure.objectsPerSecond.map { format($0 / 1e6) + " M/s" } ?? "", 11, right: true),
            pad(figure.megabytesPerSecond.map { format($0) + " MB/s" } ?? "", 12, right: true),
        ]
        if let baseline = figure.baseline, let name = figure.baselineName {
            columns.append(pad(name, 42))
            columns.append(pad(formatValue(baseline.median, figure.unit), 10, right: true))
            columns.append(pad(format(figure.ratio ?? .nan) + "×", 8, right: true))
        } else {
            columns.append(pad("", 42 + 1 + 10 + 1 + 8))
        }
        if let target = figure.target {
            columns.append(pad(target.text(in: figure.unit), 8, right: true))
            columns.append(figure.met == true ? "met" : "MISSED")
        }
        return columns.joined(separator: " ")
    }

    /// The table: a header, one line per figure, and the machine.
    var table: String {
        let header = [
            pad("workload", 13), pad("measure", 58), pad("median", 10, right: true), pad("spread", 7, right: true),
            pad("objects/s", 11, right: true), pad("MB/s", 12, right: true), pad("baseline (same run)", 42),
            pad("median", 10, right: true), pad("ratio", 8, right: true), pad("target", 8, right: true),
        ].joined(separator: " ")
        return ([header, String(repeating: "-", count: header.count)] + figures.map(Self.line)
                + ["", "\(machine). \(options.runs) runs per figure; ratio: normcache ÷ baseline "
                   + "(for JSON parse, the Python binding against plain Python and ≥ targets: baseline ÷ normcache, a speed-up). Run took \(format(seconds)) s."]).joined(separator: "\n")
    }

    /// The machine: CPU model, cores, memory, kernel.
    var machine: String {
        "\(Self.cpuModel), \(ProcessInfo.processInfo.activeProcessorCount) cores, "
            + "\(ProcessInfo.processInfo.physicalMemory >> 30) GiB, Linux \(Self.kernel)"
    }

    /// Writes results.txt, results.json and results.svg into `directory`.
    func save(to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try table.write(toFile: directory + "/results.txt", atomically: true, encoding: .utf8)
        try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
            .write(to: URL(fileURLWithPath: directory + "/results.json"))
        try Chart(figures: figures, machine: machine).svg.write(toFile: directory + "/results.svg", atomically: true, encoding: .utf8)
    }

    /// google-benchmark's JSON shape: `context`, then `benchmarks` with one aggregate
    /// (the median) per figure, plus the baseline, ratio and target of each.
    var json: [String: Any] {
        let context: [String: Any] = [
            "date": ISO8601DateFormatter().string(from: Date()),
            "host_name": ProcessInfo.processInfo.hostName,
            "executable": Bench.executablePath,
            "num_cpus": ProcessInfo.processInfo.activeProcessorCount,
            "cpu_model": Self.cpuModel,
            "kernel": Self.kernel,
            "library_version": String(cString: normcache_version()),
            "library_build_type": "release",
            "runs": options.runs,
            "run_seconds": seconds,
        ]
        let benchmarks = figures.enumerated().map { index, figure -> [String: Any] in
            let name = "\(figure.workload)/\(figure.measure)" + (figure.baselineName.map { " vs \($0)" } ?? "")
            let scale = figure.unit == .seconds ? 1e3 : 1
            var entry: [String: Any] = [
                "name": name + "_median", "run_name": name, "family_index": index, "per_family_instance_index": 0,
                "run_type": "aggregate", "aggregate_name": "median", "repetitions": figure.normcache.values.count,
                "threads": 1, "iterations": 1,
                "real_time": figure.normcache.median * scale, "cpu_time": figure.normcache.median * scale,
                "time_unit": figure.unit == .seconds ? "ms" : "bytes",
                "min": figure.normcache.min * scale, "max": figure.normcache.max * scale,
                "values": figure.normcache.values.map { $0 * scale },
            ]
            if let rate = figure.objectsPerSecond { entry["items_per_second"] = rate }
            if let rate = figure.megabytesPerSecond { entry["bytes_per_second"] = rate * 1e6 }
            if let baseline = figure.baseline, let baselineName = figure.baselineName {
                entry["baseline"] = baselineName
                entry["baseline_median"] = baseline.median * scale
                entry["baseline_values"] = baseline.values.map { $0 * scale }
                entry["ratio"] = figure.ratio ?? 0
            }
            if let target = figure.target {
                entry["target"] = target.text(in: figure.unit)
                entry["target_met"] = figure.met ?? false
            }
            return entry
        }
        return ["context": context, "benchmarks": benchmarks]
    }

    private static var cpuModel: String {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let line = info.split(separator: "\n").first { $0.hasPrefix("model name") }
        return line.map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown CPU"
    }

    private static var kernel: String {
        var name = utsname()
        uname(&name)
        return withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

/// `text` padded with spaces to `width` characters (truncated when longer).
func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
    if text.count >= width { return String(text.prefix(width)) }
    let fill = String(repeating: " ", count: width - text.count)
    return right ? fill + text : text + fill
}
