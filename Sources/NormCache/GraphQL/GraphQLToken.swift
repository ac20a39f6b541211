/// One lexical token of a GraphQL document (GraphQL specification, October 2021, §2.1).
struct GraphQLToken: Equatable {
    /// The kind of token.
    enum Kind: Equatable {
        case endOfInput
        case bang, dollar, ampersand, leftParen, rightParen, spread, colon, equals, at
        case leftBracket, rightBracket, leftBrace, pipe, rightBrace
        case name, int, float, string, blockString
    }

    /// The kind of token.
    var kind: Kind
    /// Byte offset of the token's first byte.
    var start: Int
    /// Byte offset just past the token.
    var end: Int
    /// Where the token starts, for messages.
    var location: SourceLocation
}

/// A position in a GraphQL source: line and column, both from 1. Columns count
/// Unicode scalars, as the specification's examples and other tools do.
public struct SourceLocation: Equatable, Sendable, CustomStringConvertible {
    /// The line, from 1.
    public var line: Int
    /// The column, from 1.
    public var column: Int

    public var description: String { "line \(line), column \(column)" }
}

extension GraphQLToken.Kind: CustomStringConvertible {
    var description: String {
        switch self {
        case .endOfInput: return "end of input"
        case .bang: return "'!'"
        case .dollar: return "'$'"
        case .ampersand: return "'&'"
        case .leftParen: return "'('"
        case .rightParen: return "')'"
        case .spread: return "'...'"
        case .colon: return "':'"
        case .equals: return "'='"
        case .at: return "'@'"
        case .leftBracket: return "'['"
        case .rightBracket: return "']'"
        case .leftBrace: return "'{'"
        case .pipe: return "'|'"
        case .rightBrace: return "'}'"
        case .name: return "a name"
        case .int: return "an integer"
        case .float: return "a float"
        case .string: return "a string"
        case .blockString: return "a block string"
        }
    }
}
