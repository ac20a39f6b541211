// swift-tools-version:6.0
import PackageDescription

/// The linker version script that keeps the exported symbols of libnormcache.so to
/// the `normcache_*` functions that include/normcache.h declares, in debug and
/// release alike.
let exportsOnlyTheCInterface: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/CNormCache/exports.map"]),
]

/// Storage fault injection (`StorageFaults`) in debug builds, which the tests are; never
/// in release builds.
let faultInjection: [SwiftSetting] = [.define("NORMCACHE_FAULT_INJECTION", .when(configuration: .debug))]

let package = Package(
    name: "normcache",
    products: [
        .library(name: "normcache", type: .dynamic, targets: ["CNormCache"]),
        .library(name: "NormCache", targets: ["NormCache"]),
        .executable(name: "normcache-cli", targets: ["normcache"]),
    ],
    dependencies: [
        // Test-only: GraphQLSwift's parser is the oracle of GraphQLOracleTests and no
        // dependency of any library or executable target.
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
        // The command line's parser (the CLI only; the library targets never import it).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        // Debian's libsqlite3, for the command line only (Apollo iOS's SQLite cache files).
        .systemLibrary(name: "CSQLite3", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CNormCacheHeader", path: "include"),
        // The CPU's prefetch hint, as a static inline C function.
        .systemLibrary(name: "CPrefetch"),
        // glibc's <malloc.h> (malloc_usable_size), which the Glibc module leaves out.
        .systemLibrary(name: "CMalloc"),
        // The C interface's lookups of handles without a lock (hazard pointers), in C.
        .systemLibrary(name: "CHandleLookup"),
        // The core. `-Xswiftc -DNORMCACHE_INTERNAL_CHECKS` builds it checked (bounds and
        // non-nil checks, no block pool: Support/InternalChecks.swift), as the full test
        // run, the ASan run and the fuzz targets do.
        .target(name: "NormCache", dependencies: ["CLMDB", "CPrefetch", "CMalloc"], swiftSettings: faultInjection),
        .target(
            name: "CNormCache",
            dependencies: ["NormCache", "CNormCacheHeader", "CHandleLookup"],
            exclude: ["exports.map"],
            linkerSettings: exportsOnlyTheCInterface
        ),
        .executableTarget(
            name: "normcache",
            dependencies: ["NormCache", "CSQLite3", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Where the test targets find the repository's own test data and the external
        // corpora (../shared/testdata), and when a missing corpus skips or fails.
        .target(name: "ExternalCorpora", path: "Tests/ExternalCorpora"),
        // What the test targets share: a cache of its own for each test (TestCache).
        .target(name: "TestSupport", dependencies: ["NormCache"], path: "Tests/TestSupport"),
        .testTarget(
            name: "NormCacheTests",
            dependencies: ["NormCache", "CNormCache", "CNormCacheHeader", "CLMDB", "ExternalCorpora", "TestSupport"],
            swiftSettings: faultInjection
        ),
        // The thread tests, apart, so that the ThreadSanitizer run can build them alone.
        .testTarget(name: "NormCacheThreadTests", dependencies: ["NormCache", "TestSupport"]),
        .testTarget(
            name: "GraphQLOracleTests",
            dependencies: ["NormCache", "ExternalCorpora", .product(name: "GraphQL", package: "GraphQL")]
        ),
    ]
)

// NORMCACHE_TEST_TARGET=<name> makes that test target the package's only one, so that the
// test binary holds its suites alone. The ThreadSanitizer run of scripts/test-sanitizers
// sets it to NormCacheThreadTests: Swift Testing names every suite in the binary while it
// gathers the tests, whatever `--filter` says, and once the Swift runtime's type-name cache
// grows it frees memory that ThreadSanitizer never saw allocated.
if let onlyTestTarget = Context.environment["NORMCACHE_TEST_TARGET"] {
    package.targets.removeAll { $0.type == .test && $0.name != onlyTestTarget }
}
