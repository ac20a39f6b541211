import ArgumentParser

/// The harness's command line, parsed by swift-argument-parser: every option of a full
/// run overrides the default of `BenchOptions` (or, with `--smoke`, of its smoke run).
struct BenchArguments: ParsableArguments {
    @Flag(help: "A run of seconds that exercises every workload: tiny sizes, 2 runs (options given too still apply).")
    var smoke = false
    @Option(help: ArgumentHelp("Runs per figure (a full run: at least 5).", valueName: "n"))
    var runs: Count?
    @Option(help: ArgumentHelp("The workloads to run, in this order: \(BenchOptions.allWorkloads.joined(separator: ", ")).",
                               valueName: "w,w..."))
    var only: Workloads?
    @Option(help: ArgumentHelp("Feed sizes (posts).", valueName: "n,n..."))
    var feedSizes: Counts?
    @Option(help: ArgumentHelp("Reads of each query per run of the app workload.", valueName: "n"))
    var appReads: Count?
    @Option(help: ArgumentHelp("Rewrites of each query per run of the app workload.", valueName: "n"))
    var appWrites: Count?
    @Option(help: ArgumentHelp("People in the swapi response.", valueName: "n"))
    var swapiPeople: Count?
    @Option(name: .customLong("large-mb"), help: ArgumentHelp("Size of the large response in MB.", valueName: "n"))
    var largeMegabytes: Count?
    @Option(help: ArgumentHelp("Records of the groups workload (in 10 groups).", valueName: "n"))
    var groupRecords: Count?
    @Option(help: ArgumentHelp("Single-record writes of the small-writes workload.", valueName: "n"))
    var smallWrites: Count?
    @Option(help: ArgumentHelp("Records of the gc workload's store (half of them unreachable).", valueName: "n"))
    var gcRecords: Count?
    @Option(help: ArgumentHelp("Seconds of each concurrency run.", valueName: "s"))
    var concurrencySeconds: Seconds?
    @Option(help: ArgumentHelp("Feed sizes of the scale workload.", valueName: "n,n..."))
    var scaleSizes: Counts?
    @Option(help: ArgumentHelp("Widths of the documents workload's documents.", valueName: "n,n..."))
    var documentSizes: Counts?
    @Option(help: ArgumentHelp("Fragments of the documents workload's large documents.", valueName: "n"))
    var largeDocumentFragments: Count?
    @Option(name: .customLong("out"), help: ArgumentHelp("Where results (table, JSON, chart) and scratch files go.", valueName: "dir"))
    var outputDirectory: String?
    @Option(name: .customLong("repo"), help: ArgumentHelp("The repository root (Benchmarks/python, the Python binding, the SWAPI schema).",
                                                         valueName: "dir"))
    var repository: String?
    @Option(help: ArgumentHelp("The shared library the Python binding loads.", valueName: "path"))
    var library: String?
    @Option(help: ArgumentHelp("The Python interpreter for the Python baselines.", valueName: "path"))
    var python: String?

    /// The run these arguments ask for.
    var options: BenchOptions {
        var options = smoke ? BenchOptions.smoke : BenchOptions()
        if let runs { options.runs = runs.value }
        if let only { options.workloads = only.names }
        if let feedSizes { options.feedSizes = feedSizes.values }
        if let appReads { options.appReads = appReads.value }
        if let appWrites { options.appWrites = appWrites.value }
        if let swapiPeople { options.swapiPeople = swapiPeople.value }
        if let largeMegabytes { options.largeMegabytes = largeMegabytes.value }
        if let groupRecords { options.groupRecords = groupRecords.value }
        if let smallWrites { options.smallWrites = smallWrites.value }
        if let gcRecords { options.gcRecords = gcRecords.value }
        if let concurrencySeconds { options.concurrencySeconds = concurrencySeconds.value }
        if let scaleSizes { options.scaleSizes = scaleSizes.values }
        if let documentSizes { options.documentSizes = documentSizes.values }
        if let largeDocumentFragments { options.largeDocumentFragments = largeDocumentFragments.value }
        if let outputDirectory { options.outputDirectory = outputDirectory }
        if let repository { options.repository = repository }
        if let library { options.library = library }
        if let python { options.python = python }
        return options
    }
}

/// A positive whole number, written with or without `_` separators (`1_000_000`).
struct Count: ExpressibleByArgument {
    /// The number.
    var value: Int

    init?(argument: String) {
        guard let value = Int(argument.split(separator: "_", omittingEmptySubsequences: false).joined()), value > 0 else { return nil }
        self.value = value
    }
}

/// A comma-separated list of positive whole numbers (`1000,10_000`).
struct Counts: ExpressibleByArgument {
    /// The numbers.
    var values: [Int]

    init?(argument: String) {
        let counts = argument.split(separator: ",").map { Count(argument: String($0)) }
        guard !counts.isEmpty, counts.allSatisfy({ $0 != nil }) else { return nil }
        values = counts.compactMap { $0?.value }
    }
}

/// A positive number of seconds.
struct Seconds: ExpressibleByArgument {
    /// The seconds.
    var value: Double

    init?(argument: String) {
        guard let value = Double(argument), value > 0 else { return nil }
        self.value = value
    }
}

/// A comma-separated list of workload names, each one of `BenchOptions.allWorkloads`.
struct Workloads: ExpressibleByArgument {
    /// The names, in the order given.
    var names: [String]

    init?(argument: String) {
        names = argument.split(separator: ",").map(String.init)
        guard !names.isEmpty, names.allSatisfy(BenchOptions.allWorkloads.contains) else { return nil }
    }
}
