import ExternalCorpora
import Foundation
import Testing

/// The GraphQL documents the oracle reads from files, where `ExternalCorpus` finds
/// them: the repository's own Star Wars schema and queries
/// (testdata/starwars), always there, and the public SWAPI schema and its example
/// queries (swapi of the external corpora, ../shared/testdata beside the checkout). The
/// tests that need SWAPI carry `Corpora.swapiIsThere`: they run when it is there, are
/// skipped with the reason when it is not, and fail when it is not and `CI=true`.
enum Corpora {
    /// testdata/starwars: the repository's own schema and queries.
    static let starWarsDirectory = ExternalCorpus.own("starwars")

    /// swapi of the external corpora.
    static let swapiDirectory = ExternalCorpus.path("swapi")

    /// The repository's own documents: every `.graphql` file of testdata/starwars,
    /// sorted by name.
    static func starWars() throws -> [CorpusDocument] {
        try documents(in: starWarsDirectory, named: "starwars")
    }

    /// The SWAPI documents: the schema and the eight numbered queries, sorted by name;
    /// none when the folder is missing (the tests that need them carry `swapiIsThere`).
    static func swapi() throws -> [CorpusDocument] {
        guard ExternalCorpus.isDirectory(swapiDirectory) else { return [] }
        return try documents(in: swapiDirectory, named: "swapi")
    }

    /// The trait of a test that needs the SWAPI documents (`ExternalCorpus.required`).
    static let swapiIsThere = ExternalCorpus.required("swapi")

    /// Every `.graphql` file of `directory`, sorted, named `<name>/<file>`.
    private static func documents(in directory: String, named name: String) throws -> [CorpusDocument] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".graphql") }.sorted()
        return try files.map { file in
            let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))
            return CorpusDocument(name: name + "/" + file, source: String(decoding: data, as: UTF8.self))
        }
    }
}
