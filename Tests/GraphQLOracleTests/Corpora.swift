import Foundation
import Testing

/// The GraphQL documents the oracle reads from files, found from this source file's
/// location (`#filePath`): the repository's own Star Wars schema and queries
/// (testdata/starwars), always there, and the public SWAPI schema and its example
/// queries (swapi of the external corpora, ../shared/testdata beside the checkout). The
/// tests that need SWAPI carry `Corpora.swapiIsThere`: they run when it is there, are
/// skipped with the reason when it is not, and fail when it is not and `CI=true`.
enum Corpora {
    /// The checkout: three folders up from this file (Tests/GraphQLOracleTests/Corpora.swift).
    static let checkout: String = {
        var root = "\(#filePath)"
        for _ in 0..<3 { root = String(root[..<(root.lastIndex(of: "/") ?? root.startIndex)]) }
        return root
    }()

    /// The folder of the external corpora: `$NORMCACHE_SHARED_TESTDATA` when it is set
    /// and not empty (point it at a folder that does not exist to run as a user's clone
    /// does), else `../shared/testdata` beside the checkout.
    static let sharedRoot: String = {
        if let value = ProcessInfo.processInfo.environment["NORMCACHE_SHARED_TESTDATA"], !value.isEmpty { return value }
        return checkout + "/../shared/testdata"
    }()

    /// Whether this is a CI run (`CI=true`), where a missing external corpus is a
    /// failure, never a skip.
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// testdata/starwars: the repository's own schema and queries.
    static let starWarsDirectory = checkout + "/testdata/starwars"

    /// swapi of the external corpora.
    static let swapiDirectory = sharedRoot + "/swapi"

    /// The repository's own documents: every `.graphql` file of testdata/starwars,
    /// sorted by name.
    static func starWars() throws -> [CorpusDocument] {
        try documents(in: starWarsDirectory, named: "starwars")
    }

    /// The SWAPI documents: the schema and the eight numbered queries, sorted by name;
    /// none when the folder is missing (the tests that need them carry `swapiIsThere`).
    static func swapi() throws -> [CorpusDocument] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: swapiDirectory, isDirectory: &isDirectory), isDirectory.boolValue else { return [] }
        return try documents(in: swapiDirectory, named: "swapi")
    }

    /// The trait of a test that needs the SWAPI documents: it runs when the folder is
    /// there; when it is not, it is skipped with the reason, or, under `CI=true`, fails
    /// with `MissingCorpus`.
    static let swapiIsThere: ConditionTrait = .enabled(Comment(rawValue:
        "the external corpus swapi is not at \(swapiDirectory) "
            + "(put ../shared/testdata beside the checkout or set NORMCACHE_SHARED_TESTDATA; under CI=true a missing corpus fails)")) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: swapiDirectory, isDirectory: &isDirectory), isDirectory.boolValue { return true }
        if isCI { throw MissingCorpus(corpus: "swapi", folder: swapiDirectory) }
        return false
    }

    /// Every `.graphql` file of `directory`, sorted, named `<name>/<file>`.
    private static func documents(in directory: String, named name: String) throws -> [CorpusDocument] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".graphql") }.sorted()
        return try files.map { file in
            let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))
            return CorpusDocument(name: name + "/" + file, source: String(decoding: data, as: UTF8.self))
        }
    }
}

/// The failure of a test whose external corpus is missing under `CI=true`.
struct MissingCorpus: Error, CustomStringConvertible {
    /// The corpus's folder name under the shared test data.
    let corpus: String
    /// Where it was looked for.
    let folder: String

    /// What the test reports.
    var description: String { "the external corpus \(corpus) is missing at \(folder); CI requires it" }
}
