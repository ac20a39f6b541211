/// The fragment definitions of a parsed document by position (their index in document
/// order), and the position each spread names. The parser numbers every fragment name
/// once (`GraphQLDocument.fragmentNames`), so a spread finds its fragment by two array
/// reads instead of hashing its name: the walks over the spreads of a document of
/// thousands of fragments (validation, `InlinedDepth`, the compiler) then keep
/// per-fragment state in arrays indexed by position, not in tables keyed by name.
///
/// When names repeat (a document validation refuses), a name's position is that of its
/// first fragment.
struct DocumentFragments {
    /// The fragment definitions, in document order.
    let definitions: [FragmentDefinition]
    /// For each fragment name number, the position of the first fragment of that name,
    /// or -1 when no fragment has it.
    private let positionByName: [Int]

    /// The fragments of `document`.
    init(_ document: GraphQLDocument) {
        var definitions: [FragmentDefinition] = []
        definitions.reserveCapacity(document.definitions.count)
        for case .fragment(let fragment) in document.definitions { definitions.append(fragment) }
        self.init(definitions, nameCount: document.fragmentNames.count)
    }

    /// `definitions`, fragments of one document (all or some of them, as the network
    /// document keeps those it uses), whose names are numbered below `nameCount`
    /// (by default, past the largest number among them).
    init(_ definitions: [FragmentDefinition], nameCount: Int? = nil) {
        let nameCount = nameCount ?? definitions.reduce(0) { max($0, $1.nameNumber + 1) }
        var positionByName = Array(repeating: -1, count: nameCount)
        for (position, fragment) in definitions.enumerated() where positionByName[fragment.nameNumber] < 0 {
            positionByName[fragment.nameNumber] = position
        }
        self.definitions = definitions
        self.positionByName = positionByName
    }

    /// How many fragments there are.
    var count: Int { definitions.count }

    /// The position of the first fragment named by name number `nameNumber`, or nil.
    func position(ofName nameNumber: Int) -> Int? {
        guard nameNumber < positionByName.count else { return nil }
        let position = positionByName[nameNumber]
        return position < 0 ? nil : position
    }

    /// The position of the fragment `spread` names, or nil when there is none.
    func position(of spread: FragmentSpread) -> Int? {
        position(ofName: spread.nameNumber)
    }

    /// The fragment `spread` names, or nil when there is none.
    subscript(spread: FragmentSpread) -> FragmentDefinition? {
        position(of: spread).map { definitions[$0] }
    }
}
