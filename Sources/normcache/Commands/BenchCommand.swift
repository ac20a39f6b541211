import ArgumentParser
import Glibc

/// `normcache bench`: runs the perf harness, `normcache-bench`, with the arguments given.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run the perf harness (normcache-bench) with the arguments that follow.",
        discussion: """
            The harness is found as $NORMCACHE_BENCH, else as normcache-bench beside this \
            program (CMake builds both into build/ and installs both), else on PATH. When it is \
            not built, bench says how to build it and exits with status 5. Every argument after \
            bench goes to the harness (normcache bench --help shows its own options); its exit \
            status is bench's.

            EXAMPLE
              normcache bench --smoke --out /tmp/bench
            """
    )

    @Argument(parsing: .allUnrecognized, help: "The harness's arguments (see normcache-bench --help).")
    var arguments: [String] = []

    /// How to build the harness, for the failure when it is missing.
    static let howToBuild = """
        the perf harness normcache-bench is not built. Build it with CMake (needs simdjson, Debian's libsimdjson-dev):
          cmake -S . -B build -G Ninja -DNORMCACHE_BUILD_BENCH=ON && cmake --build build --target normcache-bench
        or run ./scripts/bench, which builds it and runs it; or point NORMCACHE_BENCH at a harness built elsewhere
        """

    func run() throws {
        guard let harness = Self.harness() else { throw CommandFailure(.unavailable, Self.howToBuild) }
        let argv = ([harness] + arguments).map { strdup($0) } + [nil]
        fflush(nil)
        execv(harness, argv)
        throw CommandFailure(.unavailable, "cannot run '\(harness)': \(String(cString: strerror(errno)))")
    }

    /// The harness's path, or nil when there is none.
    static func harness() -> String? {
        if let path = getenv("NORMCACHE_BENCH").map({ String(cString: $0) }), !path.isEmpty {
            return access(path, X_OK) == 0 ? path : nil
        }
        var directories: [String] = []
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 {
            let own = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            directories.append(String(own[..<(own.lastIndex(of: "/") ?? own.startIndex)]))
        }
        if let path = getenv("PATH") { directories += String(cString: path).split(separator: ":").map(String.init) }
        return directories.map { $0 + "/normcache-bench" }.first { access($0, X_OK) == 0 }
    }
}
