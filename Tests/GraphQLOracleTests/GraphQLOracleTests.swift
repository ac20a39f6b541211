import GraphQL
import Testing
@testable import NormCache

/// normcache's GraphQL parser against an independent one: GraphQLSwift's GraphQL package
/// (4.3.x, a test-only dependency of this target alone) reads the same documents, and
/// the two syntax trees, each turned into the same canonical summary, must match. The
/// documents are the repository's own Star Wars schema and queries (testdata/starwars),
/// the public SWAPI schema and queries when the external corpora are there (`Corpora`),
/// GraphQLSwift's kitchen sinks, examples of the GraphQL specification (October 2021)
/// and edge cases; malformed documents GraphQLSwift rejects must be rejected by
/// normcache too; the documents on which the two differ are listed, with the section of
/// the specification that decides, in `Disagreements`.
@Suite struct GraphQLOracleTests {
    // MARK: The corpus: both accept, with the same syntax tree

    @Test(arguments: try Corpora.starWars())
    func starWars(_ document: CorpusDocument) {
        Self.expectAgreement(document)
    }

    @Test(Corpora.swapiIsThere, arguments: try Corpora.swapi())
    func swapi(_ document: CorpusDocument) {
        Self.expectAgreement(document)
    }

    @Test(arguments: EdgeCases.documents)
    func edgeCase(_ document: CorpusDocument) {
        Self.expectAgreement(document)
    }

    @Test func theOwnCorpusIsAllThere() throws {
        let starWars = try Corpora.starWars()
        #expect(starWars.map(\.name) == ["starwars/01_fields.graphql", "starwars/02_nesting.graphql", "starwars/03_arguments.graphql",
                                          "starwars/04_aliases.graphql", "starwars/05_fragments.graphql", "starwars/06_variables.graphql",
                                          "starwars/07_relay.graphql", "starwars/schema.graphql"])
        #expect(Oracle.kindByTheirs(starWars.last?.source ?? "") == .typeSystem)
        #expect(starWars.dropLast().allSatisfy { Oracle.kindByTheirs($0.source) == .executable })
        #expect(EdgeCases.documents.count >= 30)
        #expect(Malformed.documents.count >= 20)
    }

    @Test(Corpora.swapiIsThere) func theCorpusIsAllThere() throws {
        let swapi = try Corpora.swapi()
        #expect(swapi.map(\.name) == ["swapi/01_basic_query.graphql", "swapi/02_nested_fields.graphql", "swapi/03_nested_fields.graphql",
                                      "swapi/04_all_starships.graphql", "swapi/05_argument.graphql", "swapi/06_fragments.graphql",
                                      "swapi/07_fragments.graphql", "swapi/08_introspection.graphql", "swapi/schema.graphql"])
        #expect(swapi.last.map { $0.source.utf8.count > 10_000 } == true)
        #expect(Oracle.kindByTheirs(swapi.last?.source ?? "") == .typeSystem)
    }

    /// Documents that mix operations with type system definitions are well-formed (§2.2),
    /// but normcache reads executable documents and schemas apart, by design: whole, such
    /// a document is rejected.
    @Test func mixedDocumentsAreReadApart() {
        let mixed = [CorpusDocument(name: "mixed", source: "type Query { a: Int }\nquery Q { a }")]
        #expect(mixed.allSatisfy { Oracle.kindByTheirs($0.source) == nil })
        for document in mixed {
            #expect(Oracle.theirs(document.source).isAccepted)
            #expect(!Oracle.ours(document.source, as: .executable).isAccepted)
            #expect(!Oracle.ours(document.source, as: .typeSystem).isAccepted)
        }
    }

    // MARK: Malformed documents

    @Test(arguments: Malformed.documents)
    func malformed(_ document: CorpusDocument) throws {
        let theirs = Oracle.theirs(document.source)
        try #require(!theirs.isAccepted, "GraphQLSwift accepts \(document.name): \(theirs)")
        for kind in [DocumentKind.executable, .typeSystem] {
            let ours = Oracle.ours(document.source, as: kind)
            #expect(!ours.isAccepted, "normcache accepts \(document.name) as \(kind.rawValue): \(ours)")
        }
    }

    // MARK: Disagreements

    @Test(arguments: Disagreements.all)
    func disagreement(_ disagreement: Disagreement) throws {
        if case .sameAs(let equivalent) = disagreement.spec {
            Self.expectAgreement(CorpusDocument(name: disagreement.name + " (equivalent)", source: equivalent))
        }
        let theirs = Self.conforms(Oracle.theirs(disagreement.source), to: disagreement.spec, reading: Oracle.theirs)
        #expect(theirs == disagreement.theirsConforms,
                "GraphQLSwift now \(theirs ? "reads" : "no longer reads") \(disagreement.name) as the specification does: \(Oracle.theirs(disagreement.source))")
        let outcome = Self.oursStrict(disagreement.source, spec: disagreement.spec)
        let ours = Self.conforms(outcome, to: disagreement.spec, reading: { Oracle.ours($0) })
        switch disagreement.ours {
        case .conforms:
            #expect(ours, "normcache departs from \(disagreement.section): \(outcome)")
        case .byDesign:
            #expect(!ours, "normcache now follows \(disagreement.section): \(outcome)")
        }
    }

    // MARK: Mutated documents

    /// Documents of the corpus with a few characters deleted, inserted or repeated
    /// (deterministically): whatever GraphQLSwift rejects, normcache rejects too, but for
    /// the known normcache bugs listed in `Disagreements`; whatever both accept, they read
    /// alike, but for block strings and `\f` (GraphQLSwift's bugs).
    @Test func mutatedDocuments() throws {
        var generator = SplitMix64(seed: 2021)
        let seeds = try (Corpora.starWars() + Corpora.swapi() + EdgeCases.documents)
            .filter { $0.source.utf8.count < 3000 }
        var counts = (bothAccept: 0, bothReject: 0, onlyTheirs: 0)
        for seed in seeds {
            for _ in 0..<25 {
                let text = Self.mutate(seed.source, using: &generator)
                // GraphQLSwift traps on a \u escape cut short by the end of the input.
                if text.unicodeScalars.suffix(8).contains("\\") { continue }
                let theirs = Oracle.theirs(text)
                let ours = Oracle.ours(text)
                switch (theirs, ours) {
                case (.accepted(let expected), .accepted(let actual)):
                    counts.bothAccept += 1
                    if !text.contains("\"\"\"") && !text.contains("\\f") {
                        #expect(actual.sameScalars(as: expected), "mutant of \(seed.name) read differently:\n\(text)\n\(Self.difference(actual, expected))")
                    }
                case (.rejected, .rejected):
                    counts.bothReject += 1
                case (.accepted, .rejected):
                    counts.onlyTheirs += 1  // normcache is stricter: numbers followed by names, empty braces, ...
                case (.rejected, .accepted):
                    Issue.record("GraphQLSwift rejects a mutant of \(seed.name) that normcache accepts:\n\(text)\n\(theirs)")
                }
            }
        }
        #expect(counts.bothAccept > 100 && counts.bothReject > 100, "\(counts)")
    }

    // MARK: The printer

    /// Every operation of the executable corpus, printed by normcache's GraphQLPrinter
    /// with the fragments it uses, reads the same in both parsers, and as the operation
    /// it was printed from.
    @Test func printedOperationsReadAlike() throws {
        var printed = 0
        for document in try Corpora.starWars() + Corpora.swapi() + EdgeCases.documents {
            guard Oracle.kindByTheirs(document.source) == .executable,
                  let parsed = try? NormCache.GraphQLParser.parseExecutable(Array(document.source.utf8)) else { continue }
            let fragments = parsed.definitions.compactMap { definition -> NormCache.FragmentDefinition? in
                if case .fragment(let fragment) = definition { return fragment }
                return nil
            }
            for case .operation(let operation) in parsed.definitions {
                let text = NormCache.GraphQLPrinter.print(operation, fragments: fragments)
                let theirs = Oracle.theirs(text)
                let ours = Oracle.ours(text, as: .executable)
                #expect(ours == theirs, "\(document.name): the printed text reads differently:\n\(text)")
                let original = NormCacheSummary.summarize(NormCache.GraphQLDocument(definitions: [.operation(operation)]))
                let summary = ours.summary ?? ""
                #expect(summary == original || summary.hasPrefix(original + "\n"),
                        "\(document.name): the printed operation differs:\n\(text)\n\(Self.difference(ours.summary ?? "", original))")
                printed += 1
            }
        }
        #expect(printed > 30)
    }

    // MARK: Helpers

    static func expectAgreement(_ document: CorpusDocument, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let theirs = Oracle.theirs(document.source)
        let ours = Oracle.ours(document.source)
        guard case .accepted(let expected) = theirs else {
            Issue.record("GraphQLSwift rejects \(document.name): \(theirs)", sourceLocation: sourceLocation)
            return
        }
        guard case .accepted(let actual) = ours else {
            Issue.record("normcache rejects \(document.name): \(ours)", sourceLocation: sourceLocation)
            return
        }
        #expect(!actual.isEmpty, sourceLocation: sourceLocation)
        #expect(actual.sameScalars(as: expected), "\(document.name): \(difference(actual, expected))", sourceLocation: sourceLocation)
    }

    /// normcache's outcome for a disagreement: a document the specification rejects must
    /// be rejected through both entry points.
    static func oursStrict(_ source: String, spec: SpecReading) -> ParseOutcome {
        if case .invalid = spec {
            for kind in [DocumentKind.executable, .typeSystem] {
                let outcome = Oracle.ours(source, as: kind)
                if outcome.isAccepted { return outcome }
            }
            return .rejected("through both entry points")
        }
        return Oracle.ours(source)
    }

    static func conforms(_ outcome: ParseOutcome, to spec: SpecReading, reading: (String) -> ParseOutcome) -> Bool {
        switch spec {
        case .invalid: return !outcome.isAccepted
        case .valid: return outcome.isAccepted
        case .sameAs(let equivalent):
            guard let actual = outcome.summary, let expected = reading(equivalent).summary else { return false }
            return actual.sameScalars(as: expected)
        }
    }

    /// The first line where two summaries differ.
    static func difference(_ actual: String, _ expected: String) -> String {
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(actualLines.count, expectedLines.count) {
            let left = index < actualLines.count ? String(actualLines[index]) : "(nothing)"
            let right = index < expectedLines.count ? String(expectedLines[index]) : "(nothing)"
            if !left.sameScalars(as: right) { return "line \(index + 1): normcache `\(left)`, GraphQLSwift `\(right)`" }
        }
        return "no difference"
    }

    static let pieces = ["{", "}", "(", ")", "[", "]", ":", "=", "@", "$", "!", "|", "&", "...", "\"", "\"\"\"", "#", "\n", ",", " ",
                         "on", "0", "-", ".", "1e", "\\", "\u{1}", "\r", "\t", "a", "true", "null", "\\u", "extend", "type",
                         "query", "fragment", "schema", "implements", "repeatable", "directive", "union", "enum", "input"]

    /// One or two deletions, insertions of a token or repetitions of a stretch.
    static func mutate(_ source: String, using generator: inout SplitMix64) -> String {
        var scalars = Array(source.unicodeScalars)
        for _ in 0..<Int.random(in: 1...2, using: &generator) {
            let position = scalars.isEmpty ? 0 : Int.random(in: 0..<scalars.count, using: &generator)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0:
                let length = min(Int.random(in: 1...4, using: &generator), scalars.count - position)
                if length > 0 { scalars.removeSubrange(position..<position + length) }
            case 1:
                scalars.insert(contentsOf: pieces.randomElement(using: &generator)!.unicodeScalars, at: position)
            default:
                let length = min(Int.random(in: 1...8, using: &generator), scalars.count - position)
                if length > 0 { scalars.insert(contentsOf: scalars[position..<position + length], at: position) }
            }
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }
}

/// A small deterministic random number generator (SplitMix64).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
