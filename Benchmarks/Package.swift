// swift-tools-version:6.0
import PackageDescription

/// The perf harness, a package of its own so that a program that depends on normcache
/// never builds simdjson or Foundation: normcache through its C interface against raw
/// LMDB, simdjson (Debian's libsimdjson-dev), Foundation and two Python baselines.
let package = Package(
    name: "normcache-benchmarks",
    products: [
        .executable(name: "normcache-bench", targets: ["normcache-bench"]),
    ],
    dependencies: [
        .package(name: "normcache", path: ".."),
        // The command line's parser (the same version as the CLI's, Package.swift).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The harness's own modules of liblmdb (the raw LMDB baseline) and of normcache's
        // C header, include/normcache.h: the library's CLMDB and CNormCacheHeader are no
        // products of it, and target names must be unique across the package graph.
        .systemLibrary(name: "CRawLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"])]),
        .systemLibrary(name: "CNormCacheABI"),
        // simdjson's DOM parse and walk behind a C interface (simdjson is C++).
        .target(name: "CSimdjsonWalk", linkerSettings: [.linkedLibrary("simdjson")]),
        .executableTarget(
            name: "normcache-bench",
            dependencies: [
                // libnormcache.so, called through the C header.
                .product(name: "normcache", package: "normcache"),
                // The public Swift API, for the JSON reader alone (JSONValidation), which
                // the C interface does not offer.
                .product(name: "NormCache", package: "normcache"),
                "CNormCacheABI", "CRawLMDB", "CSimdjsonWalk",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ],
    cxxLanguageStandard: .cxx17
)
