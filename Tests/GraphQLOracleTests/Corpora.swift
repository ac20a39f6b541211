import Foundation

/// The SWAPI schema and queries in ../shared/testdata/swapi: the schema and the eight
/// numbered queries, read when the tests run.
enum SWAPI {
    /// shared/testdata/swapi, found from this source file.
    static let directory: String = {
        var root = "\(#filePath)"
        for _ in 0..<3 { root = String(root[..<(root.lastIndex(of: "/") ?? root.startIndex)]) }
        return root + "/../shared/testdata/swapi"
    }()

    /// The documents of the folder: every `.graphql` file, sorted by name.
    static func documents() throws -> [CorpusDocument] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".graphql") }.sorted()
        return try names.map { name in
            let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
            return CorpusDocument(name: "swapi/" + name, source: String(decoding: data, as: UTF8.self))
        }
    }
}
