import Glibc
import Testing

/// Where the test targets find their material, from this source file's location
/// (`#filePath`): the repository's own `testdata/`, always there, and the external
/// corpora (JSONTestSuite, the public SWAPI schema and queries) in `../shared/testdata`
/// beside the checkout. A test that reads an external corpus carries `required(_:)`:
/// it runs when the corpus is there, is skipped with the reason when it is not, and
/// fails when it is not and `CI=true`, so CI never skips silently.
public enum ExternalCorpus {
    /// The checkout: three folders up from this file (Tests/ExternalCorpora/ExternalCorpus.swift).
    public static let checkout: String = {
        var root = "\(#filePath)"
        for _ in 0..<3 { root = String(root[..<(root.lastIndex(of: "/") ?? root.startIndex)]) }
        return root
    }()

    /// The folder of the external corpora: `$NORMCACHE_SHARED_TESTDATA` when it is set
    /// and not empty (point it at a folder that does not exist to run as a user's clone
    /// does), else `../shared/testdata` beside the checkout.
    public static let sharedRoot: String = {
        if let value = getenv("NORMCACHE_SHARED_TESTDATA"), value.pointee != 0 { return String(cString: value) }
        return checkout + "/../shared/testdata"
    }()

    /// Whether this is a CI run (`CI=true`), where a missing external corpus is a
    /// failure, never a skip.
    public static let isCI: Bool = getenv("CI").map { String(cString: $0) == "true" } ?? false

    /// A file or folder under the external corpora (`sharedRoot`).
    public static func path(_ relative: String) -> String {
        sharedRoot + "/" + relative
    }

    /// A file or folder of the repository's own test material, `testdata/<relative>`.
    public static func own(_ relative: String) -> String {
        checkout + "/testdata/" + relative
    }

    /// The trait of a test that reads the external corpus in the folder `corpus` of
    /// `sharedRoot` ("JSONTestSuite", "swapi"): the test runs when the folder is there;
    /// when it is not, it is skipped with the reason, or, under `CI=true`, fails with
    /// `MissingCorpus`.
    public static func required(_ corpus: String) -> ConditionTrait {
        let folder = path(corpus)
        let reason = "the external corpus \(corpus) is not at \(folder) "
            + "(put ../shared/testdata beside the checkout or set NORMCACHE_SHARED_TESTDATA; under CI=true a missing corpus fails)"
        return .enabled(Comment(rawValue: reason)) {
            if isDirectory(folder) { return true }
            if isCI { throw MissingCorpus(corpus: corpus, folder: folder) }
            return false
        }
    }

    /// Whether `path` is a directory.
    public static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }
}

/// The failure of a test whose external corpus is missing under `CI=true`.
public struct MissingCorpus: Error, CustomStringConvertible {
    /// The corpus's folder name under the shared test data.
    public let corpus: String
    /// Where it was looked for.
    public let folder: String

    /// What the test reports.
    public var description: String { "the external corpus \(corpus) is missing at \(folder); CI requires it" }
}
