// swift-tools-version:6.0
import PackageDescription

/// The Swift quick start of README.md and the program of the Swift guide
/// (docs/guides/swift.md), a package of its own as an app's would be: it depends on
/// normcache (here by path; an app names the repository's URL) and imports the library
/// product NormCache. `swift run --package-path examples/swift QuickStart` (or `Guide`)
/// runs one.
let package = Package(
    name: "normcache-quickstart",
    dependencies: [
        .package(name: "normcache", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "QuickStart",
            dependencies: [.product(name: "NormCache", package: "normcache")]
        ),
        .executableTarget(
            name: "Guide",
            dependencies: [.product(name: "NormCache", package: "normcache")]
        ),
    ]
)
