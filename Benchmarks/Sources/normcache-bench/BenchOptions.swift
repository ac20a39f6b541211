/// What a run of the harness measures, and where: the values of its command line
/// (`BenchArguments`).
struct BenchOptions {
    /// Runs per figure (at least 5 in a full run).
    var runs = 5
    /// The workloads to run, in this order.
    var workloads = BenchOptions.allWorkloads
    /// Feed sizes (posts).
    var feedSizes = [1_000, 10_000, 100_000]
    /// Reads of each query per run of the app workload.
    var appReads = 2_000
    /// Rewrites of each query per run of the app workload.
    var appWrites = 200
    /// People in the swapi response.
    var swapiPeople = 5_000
    /// Size of the large response in MB.
    var largeMegabytes = 50
    /// Records of the groups workload (in 10 groups).
    var groupRecords = 1_000_000
    /// Single-record writes of the small-writes workload.
    var smallWrites = 10_000
    /// Puts per run of the watchers workload.
    var watcherWrites = 1_000
    /// Another process's commits whose way to a watcher the watchers workload times.
    var watcherCrossProcessCommits = 200
    /// Puts of 100 new records of the eviction workload.
    var evictionPuts = 400
    /// Records of the gc workload's store (half of them unreachable).
    var gcRecords = 1_000_000
    /// Seconds of each concurrency run.
    var concurrencySeconds = 10.0
    /// Feed sizes of the scale workload.
    var scaleSizes = [1_000, 10_000, 100_000, 1_000_000]
    /// Widths of the documents workload's documents (each measured against a quarter of it).
    var documentSizes = [800, 3_200, 12_800]
    /// Fragments of the documents workload's large documents.
    var largeDocumentFragments = 25_600
    /// Where results (table, JSON, chart) and scratch files go.
    var outputDirectory = "bench-results"
    /// The repository root (for `Benchmarks/python/*.py`, the Python binding and the SWAPI schema).
    var repository = "."
    /// The shared library the Python binding loads.
    var library = "build/libnormcache.so"
    /// The Python interpreter for the Python baselines.
    var python = "python3"

    /// Every workload, in the order of the issue.
    static let allWorkloads = ["feed", "app", "freshness", "swapi", "large", "groups", "small-writes", "concurrency", "scale", "documents", "watchers", "eviction", "gc"]

    /// A run of seconds that exercises every workload: tiny sizes, few runs.
    static var smoke: BenchOptions {
        var options = BenchOptions()
        options.runs = 2
        options.feedSizes = [500]
        options.appReads = 20
        options.appWrites = 5
        options.swapiPeople = 200
        options.largeMegabytes = 2
        options.groupRecords = 20_000
        options.smallWrites = 100
        options.watcherWrites = 50
        options.watcherCrossProcessCommits = 10
        options.evictionPuts = 40
        options.gcRecords = 2_000
        options.concurrencySeconds = 0.5
        options.scaleSizes = [200, 2_000]
        options.documentSizes = [100, 400]
        options.largeDocumentFragments = 1_600
        return options
    }
}
