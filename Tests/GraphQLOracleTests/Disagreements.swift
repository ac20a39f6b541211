import Testing

/// How the GraphQL specification (October 2021 edition unless said otherwise) reads a
/// document.
enum SpecReading: Sendable {
    /// The document breaks the grammar.
    case invalid
    /// The document is well-formed (and no simpler document means the same).
    case valid
    /// The document means what `equivalent` means; both parsers read `equivalent` alike.
    case sameAs(String)
}

/// Where normcache stands on a document the two parsers do not read alike, or that both
/// read against the specification.
enum OurStanding: Sendable {
    /// normcache reads it as the specification does.
    case conforms
    /// normcache departs from the specification on purpose.
    case byDesign
}

/// A document on which normcache, GraphQLSwift and the specification do not all agree.
struct Disagreement: Sendable, CustomTestStringConvertible {
    var name: String
    var source: String
    /// The section of the specification that decides, and how.
    var section: String
    var spec: SpecReading
    /// Whether GraphQLSwift 4.3.0 reads the document as the specification does.
    var theirsConforms: Bool
    var ours: OurStanding

    var testDescription: String { name }
}

enum Disagreements {
    static let all: [Disagreement] = [
        // MARK: GraphQLSwift is wrong, normcache is right
        Disagreement(
            name: "\\f escape", source: #"{ f(a: "x\fy") }"#,
            section: "§2.9.4 String Value: the escaped character f is U+000C (GraphQLSwift gives U+0012)",
            spec: .sameAs(#"{ f(a: "x\u000Cy") }"#), theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "surrogate pair escape", source: #"{ f(a: "\uD83D\uDE00 \uD800\uDC00 \uDBFF\uDFFF") }"#,
            section: "§2.9.4 String Value: October 2021 only says \\u gives the 16-bit code point; the September 2025 edition "
                + "(§2.9.4) reads a leading and trailing surrogate escape as one supplementary character, as graphql-js "
                + "does; GraphQLSwift rejects any surrogate escape",
            spec: .sameAs("{ f(a: \"\u{1F600} \u{10000} \u{10FFFF}\") }"), theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "block string: a line without indentation before indented lines", source: "{ f(a: \"\"\"\n  x\nzero\n  two\n\"\"\") }",
            section: "§2.9.4 BlockStringValue(): the common indentation is the least one, here 0 (GraphQLSwift takes a later "
                + "line's indentation after a 0 and cuts it from every line)",
            spec: .sameAs(#"{ f(a: "  x\nzero\n  two") }"#), theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "block string: CRLF line ends", source: "{ f(a: \"\"\"\r\n    one\r\n    two\r\n\"\"\") }",
            section: "§2.1.3 Line Terminators and §2.9.4 BlockStringValue(): CR LF is one line terminator (GraphQLSwift "
                + "splits it into two lines)",
            spec: .sameAs(#"{ f(a: "one\ntwo") }"#), theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "integer followed by a name", source: "{ f(a: [123abc]) }",
            section: "§2.9.1 Int Value: an IntValue must not be followed by a NameStart (GraphQLSwift reads [123, abc])",
            spec: .invalid, theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "integer followed by an underscore", source: "{ f(a: [1_000]) }",
            section: "§2.9.1 Int Value: `_` is a NameStart",
            spec: .invalid, theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "hexadecimal integer", source: "{ f(a: [0x1F]) }",
            section: "§2.9.1 Int Value: the specification's own example, 0x123 has no valid lexical representation",
            spec: .invalid, theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "float followed by a name", source: "{ f(a: [1.5e3x, 2.0f]) }",
            section: "§2.9.2 Float Value: a FloatValue must not be followed by a NameStart",
            spec: .invalid, theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "variable in a variable definition's directive", source: "query Q($a: Int @d(x: $b)) { f }",
            section: "§2.10 Variables: VariableDefinition : Variable : Type DefaultValue? Directives[Const]?",
            spec: .invalid, theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "variable in a type's directive", source: "type T @key(fields: $f) { a: Int }",
            section: "§3.6 Objects: ObjectTypeDefinition : ... Directives[Const]?",
            spec: .invalid, theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "variable in a field definition's directive", source: "type T { a: Int @d(x: [$v]) }",
            section: "§3.6 Objects: FieldDefinition : ... Directives[Const]?",
            spec: .invalid, theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "variable in the schema's directive", source: "schema @d(x: {y: $v}) { query: Q }",
            section: "§3.3 Schema: SchemaDefinition : Description? schema Directives[Const]? { ... }",
            spec: .invalid, theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "object type with empty braces", source: "type T {}",
            section: "§3.6 Objects: FieldsDefinition : { FieldDefinition+ }",
            spec: .invalid, theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "interface with empty braces", source: "interface I {}",
            section: "§3.7 Interfaces: FieldsDefinition : { FieldDefinition+ }",
            spec: .invalid, theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "enum with empty braces", source: "enum E {}",
            section: "§3.9 Enums: EnumValuesDefinition : { EnumValueDefinition+ }",
            spec: .invalid, theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "input object with empty braces", source: "input I {}",
            section: "§3.10 Input Objects: InputFieldsDefinition : { InputValueDefinition+ }",
            spec: .invalid, theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "type extension with directives and empty braces", source: "extend type T @d {}",
            section: "§3.6.3 Object Extensions: FieldsDefinition : { FieldDefinition+ }",
            spec: .invalid, theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "schema extension with directives and empty braces", source: "extend schema @d {}",
            section: "§3.3.2 Schema Extension: extend schema Directives[Const]? { RootOperationTypeDefinition+ }",
            spec: .invalid, theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "directive locations after two |", source: "directive @d on | | FIELD",
            section: "§3.13 Directives: DirectiveLocations : `|`? DirectiveLocation | DirectiveLocations | DirectiveLocation",
            spec: .invalid, theirsConforms: false, ours: .conforms),

        // MARK: GraphQLSwift is right, and normcache too since the oracle found these
        Disagreement(
            name: "empty object type extension", source: "extend type T",
            section: "§3.6.3 Object Extensions: an extension has interfaces, directives or fields",
            spec: .invalid, theirsConforms: true, ours: .conforms),
        Disagreement(
            name: "empty interface extension", source: "extend interface I",
            section: "§3.7.1 Interface Extensions: an extension has interfaces, directives or fields",
            spec: .invalid, theirsConforms: true, ours: .conforms),
        Disagreement(
            name: "empty union extension", source: "extend union U",
            section: "§3.8.1 Union Extensions: an extension has directives or members",
            spec: .invalid, theirsConforms: true, ours: .conforms),
        Disagreement(
            name: "empty enum extension", source: "extend enum E",
            section: "§3.9.1 Enum Extensions: an extension has directives or values",
            spec: .invalid, theirsConforms: true, ours: .conforms),
        Disagreement(
            name: "empty input object extension", source: "extend input I",
            section: "§3.10.1 Input Object Extensions: an extension has directives or fields",
            spec: .invalid, theirsConforms: true, ours: .conforms),
        Disagreement(
            name: "empty scalar extension", source: "extend scalar S",
            section: "§3.5.6 Scalar Extensions: ScalarTypeExtension : extend scalar Name Directives[Const]",
            spec: .invalid, theirsConforms: true, ours: .conforms),
        Disagreement(
            name: "empty schema extension", source: "extend schema",
            section: "§3.3.2 Schema Extension: an extension has directives or root operation types",
            spec: .invalid, theirsConforms: true, ours: .conforms),
        Disagreement(
            name: "control characters in a comment", source: "# bell \u{7} nul \u{0} escape \u{1B}\n{ a }",
            section: "§2.1.4 Comments: CommentChar is a SourceCharacter, and §2.1 SourceCharacter excludes U+0000-U+0008, "
                + "U+000B, U+000C and U+000E-U+001F (the September 2025 edition allows any Unicode scalar value)",
            spec: .invalid, theirsConforms: true, ours: .conforms),
        Disagreement(
            name: "block string: indentation before a combining mark", source: "{ f(a: \"\"\"\n  \u{301}x\n  y\n\"\"\") }",
            section: "§2.9.4 BlockStringValue(): indentation counts characters, which are Unicode code points (§2.1); "
                + "normcache counts Swift Characters (grapheme clusters), and a space followed by U+0301 is one of them",
            spec: .sameAs(#"{ f(a: "\u0301x\ny") }"#), theirsConforms: true, ours: .conforms),
        Disagreement(
            name: "block string: escaped triple quote before a combining mark", source: "{ f(a: \"\"\"a\\\"\"\"\u{301}\"\"\") }",
            section: "§2.9.4 String Value: BlockStringCharacter \\\"\"\" is the character sequence \"\"\"; normcache "
                + "replaces it in a Swift String, where the last quote and U+0301 form one Character, so it stays escaped",
            spec: .sameAs(#"{ f(a: "a\"\"\"\u0301") }"#), theirsConforms: true, ours: .conforms),

        // MARK: GraphQLSwift is wrong, normcache fixed since the oracle found these
        Disagreement(
            name: "unknown directive location", source: "directive @d on FIELD | NOWHERE",
            section: "§3.13 Directives: DirectiveLocation is one of the executable and type system locations",
            spec: .invalid, theirsConforms: false, ours: .conforms),
        Disagreement(
            name: "enum values true, false and null", source: "enum E { true } enum F { false } enum G { null }",
            section: "§3.9 Enums: EnumValueDefinition : Description? EnumValue Directives[Const]?, and §2.9.6 EnumValue : "
                + "Name but not true, false or null",
            spec: .invalid, theirsConforms: false, ours: .conforms),

        // MARK: normcache departs on purpose
        Disagreement(
            name: "nesting deeper than 256 levels",
            source: "{ f(a: " + String(repeating: "[", count: 300) + String(repeating: "]", count: 300) + ") }",
            section: "no limit in the specification; normcache's GraphQLParser.maxDepth (256) turns deep nesting into an "
                + "error instead of a stack overflow",
            spec: .valid, theirsConforms: true, ours: .byDesign),
    ]
}
