/// The harness's command line.
struct BenchOptions {
    /// Runs per figure (at least 5 in a full run).
    var runs = 5
    /// The workloads to run, in this order.
    var workloads = BenchOptions.allWorkloads
    /// Feed sizes (posts).
    var feedSizes = [1_000, 10_000, 100_000]
    /// People in the swapi response.
    var swapiPeople = 5_000
    /// Size of the large response in MB.
    var largeMegabytes = 50
    /// Records of the groups workload (in 10 groups).
    var groupRecords = 1_000_000
    /// Single-record writes of the small-writes workload.
    var smallWrites = 10_000
    /// Seconds of each concurrency run.
    var concurrencySeconds = 10.0
    /// Feed sizes of the scale workload.
    var scaleSizes = [1_000, 10_000, 100_000, 1_000_000]
    /// Where results (table, JSON, chart) and scratch files go.
    var outputDirectory = "bench-results"
    /// The repository root (for `Benchmarks/python/*.py`, the Python binding and the SWAPI schema).
    var repository = "."
    /// The shared library the Python binding loads.
    var library = "build/libnormcache.so"
    /// The Python interpreter for the Python baselines.
    var python = "python3"

    /// Every workload, in the order of the issue.
    static let allWorkloads = ["feed", "freshness", "swapi", "large", "groups", "small-writes", "concurrency", "scale"]

    /// A run of seconds that exercises every workload: tiny sizes, few runs.
    static var smoke: BenchOptions {
        var options = BenchOptions()
        options.runs = 2
        options.feedSizes = [500]
        options.swapiPeople = 200
        options.largeMegabytes = 2
        options.groupRecords = 20_000
        options.smallWrites = 100
        options.concurrencySeconds = 0.5
        options.scaleSizes = [200, 2_000]
        return options
    }

    /// The usage text.
    static let usage = """
        usage: normcache-bench [--smoke] [--runs N] [--only W,W...] [--feed-sizes N,N...]
                               [--swapi-people N] [--large-mb N] [--group-records N]
                               [--small-writes N] [--concurrency-seconds S] [--scale-sizes N,N...]
                               [--out DIR] [--repo DIR] [--library PATH] [--python PATH]
        workloads: \(allWorkloads.joined(separator: ", "))
        Writes DIR/results.txt, DIR/results.json (google-benchmark's shape) and DIR/results.svg.
        """

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws -> BenchOptions {
        var options = arguments.contains("--smoke") ? BenchOptions.smoke : BenchOptions()
        var remaining = arguments.filter { $0 != "--smoke" }[...]
        func value(_ flag: String) throws -> String {
            guard let next = remaining.popFirst() else { throw BenchError("\(flag) needs a value\n\(usage)") }
            return next
        }
        func number(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let number = Int(text.replacingOccurrences("_", "")), number > 0 else {
                throw BenchError("\(flag): '\(text)' is not a positive whole number")
            }
            return number
        }
        func numbers(_ flag: String) throws -> [Int] {
            try value(flag).split(separator: ",").map { part in
                guard let number = Int(String(part).replacingOccurrences("_", "")), number > 0 else {
                    throw BenchError("\(flag): '\(part)' is not a positive whole number")
                }
                return number
            }
        }
        while let flag = remaining.popFirst() {
            switch flag {
            case "--runs": options.runs = try number(flag)
            case "--only":
                options.workloads = try value(flag).split(separator: ",").map(String.init)
                if let unknown = options.workloads.first(where: { !allWorkloads.contains($0) }) {
                    throw BenchError("--only: unknown workload '\(unknown)'\n\(usage)")
                }
            case "--feed-sizes": options.feedSizes = try numbers(flag)
            case "--swapi-people": options.swapiPeople = try number(flag)
            case "--large-mb": options.largeMegabytes = try number(flag)
            case "--group-records": options.groupRecords = try number(flag)
            case "--small-writes": options.smallWrites = try number(flag)
            case "--concurrency-seconds":
                let text = try value(flag)
                guard let seconds = Double(text), seconds > 0 else { throw BenchError("\(flag): '\(text)' is not a positive number") }
                options.concurrencySeconds = seconds
            case "--scale-sizes": options.scaleSizes = try numbers(flag)
            case "--out": options.outputDirectory = try value(flag)
            case "--repo": options.repository = try value(flag)
            case "--library": options.library = try value(flag)
            case "--python": options.python = try value(flag)
            case "--help", "-h": throw BenchError(usage)
            default: throw BenchError("unknown argument '\(flag)'\n\(usage)")
            }
        }
        return options
    }
}

extension String {
    /// The string with every `target` replaced by `replacement` (no Foundation needed).
    func replacingOccurrences(_ target: Character, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
