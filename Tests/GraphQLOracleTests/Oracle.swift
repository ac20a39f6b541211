import GraphQL
import Testing
@testable import NormCache

/// What one parser made of a document: its canonical summary, or why it rejected it.
enum ParseOutcome: Equatable, CustomStringConvertible {
    case accepted(String)
    case rejected(String)

    var summary: String? {
        if case .accepted(let summary) = self { return summary }
        return nil
    }

    var isAccepted: Bool { summary != nil }

    var description: String {
        switch self {
        case .accepted(let summary): return "accepted:\n" + summary
        case .rejected(let message): return "rejected: " + message
        }
    }
}

/// Which of normcache's two entry points reads a document.
enum DocumentKind: String {
    /// `GraphQLParser.parseExecutable`: operations and fragments.
    case executable
    /// `GraphQLParser.parseSchema`: type system definitions and extensions.
    case typeSystem
}

/// The two parsers side by side.
enum Oracle {
    /// GraphQLSwift's reading of `source`.
    static func theirs(_ source: String) -> ParseOutcome {
        let document: GraphQL.Document
        do {
            document = try GraphQL.parse(source: source, noLocation: true)
        } catch {
            return .rejected("\(error)")
        }
        do {
            return .accepted(try GraphQLSwiftSummary.summarize(document))
        } catch {
            return .rejected("not summarized: \(error)")
        }
    }

    /// The kind of document GraphQLSwift found, when all its definitions are of one kind.
    static func kindByTheirs(_ source: String) -> DocumentKind? {
        guard let document = try? GraphQL.parse(source: source, noLocation: true) else { return nil }
        if GraphQLSwiftSummary.isExecutable(document) { return .executable }
        if GraphQLSwiftSummary.isTypeSystem(document) { return .typeSystem }
        return nil
    }

    /// normcache's reading of `source` through the entry point of `kind`.
    static func ours(_ source: String, as kind: DocumentKind) -> ParseOutcome {
        do throws(NormCacheError) {
            let bytes = Array(source.utf8)
            let document = kind == .executable
                ? try NormCache.GraphQLParser.parseExecutable(bytes)
                : try NormCache.GraphQLParser.parseSchema(bytes)
            return .accepted(NormCacheSummary.summarize(document))
        } catch {
            return .rejected(error.message)
        }
    }

    /// normcache's reading of `source`: through the entry point of the kind GraphQLSwift
    /// found; a document that mixes operations and fragments with type system definitions
    /// (which normcache reads only apart, by design) one definition at a time, each cut
    /// out where GraphQLSwift found it; a document GraphQLSwift rejects through the first
    /// entry point that accepts it.
    static func ours(_ source: String) -> ParseOutcome {
        if let kind = kindByTheirs(source) { return ours(source, as: kind) }
        if let document = try? GraphQL.parse(source: source) {
            let bytes = Array(source.utf8)
            var summaries: [String] = []
            // A definition runs from where it starts to where the next one starts (the ends
            // GraphQLSwift records are not all at the end of the definition).
            let starts = document.definitions.compactMap { $0.loc?.start }
            guard starts.count == document.definitions.count else { return .rejected("GraphQLSwift gave no location") }
            for (index, definition) in document.definitions.enumerated() {
                let end = index + 1 < starts.count ? starts[index + 1] : bytes.count
                let text = String(decoding: bytes[starts[index]..<end], as: UTF8.self)
                let kind: DocumentKind = definition is GraphQL.TypeSystemDefinition ? .typeSystem : .executable
                switch ours(text, as: kind) {
                case .accepted(let summary): summaries.append(summary)
                case .rejected(let message): return .rejected("definition \(summaries.count + 1): \(message)")
                }
            }
            return .accepted(summaries.joined(separator: "\n"))
        }
        let executable = ours(source, as: .executable)
        if executable.isAccepted { return executable }
        let typeSystem = ours(source, as: .typeSystem)
        if typeSystem.isAccepted { return typeSystem }
        return .rejected("as executable: \(executable); as type system: \(typeSystem)")
    }
}

/// A document of the corpus.
struct CorpusDocument: Sendable, CustomTestStringConvertible {
    /// Where it comes from and what it exercises.
    var name: String
    var source: String

    var testDescription: String { name }
}

extension String {
    /// Equality of Unicode scalars, not of canonically equivalent characters.
    func sameScalars(as other: String) -> Bool {
        unicodeScalars.elementsEqual(other.unicodeScalars)
    }
}
