/// A recursive-descent parser of GraphQL documents (GraphQL specification, October
/// 2021): executable documents (operations, fragments) and the type system (SDL:
/// schema, types, extensions, directive definitions). Errors name the line and column;
/// nesting deeper than `maxDepth` is an error, not a stack overflow.
struct GraphQLParser {
    /// The deepest nesting of selection sets, list and object values and list types.
    static let maxDepth = 256

    /// The places a directive may be defined for (§3.13).
    static let directiveLocations: Set<String> = [
        "QUERY", "MUTATION", "SUBSCRIPTION", "FIELD", "FRAGMENT_DEFINITION", "FRAGMENT_SPREAD", "INLINE_FRAGMENT",
        "VARIABLE_DEFINITION", "SCHEMA", "SCALAR", "OBJECT", "FIELD_DEFINITION", "ARGUMENT_DEFINITION", "INTERFACE",
        "UNION", "ENUM", "ENUM_VALUE", "INPUT_OBJECT", "INPUT_FIELD_DEFINITION",
    ]

    private var lexer: GraphQLLexer
    private var token: GraphQLToken
    private var depth = 0
    /// The fragment names met so far, each once, and the number of each.
    private var fragmentNames: [String] = []
    private var fragmentNameNumbers: [String: Int] = [:]

    /// Parses an executable document: operations and fragments only; with `limits`,
    /// one of more bytes or tokens is refused (see `DocumentLimits`).
    static func parseExecutable(_ source: [UInt8], limits: DocumentLimits? = nil) throws(NormCacheError) -> GraphQLDocument {
        try limits?.checkBytes(source)
        var parser = try GraphQLParser(source, errorCode: .document, limits: limits)
        return try parser.parseDocument(executable: true)
    }

    /// Parses a type system document (SDL): schema, type and directive definitions and
    /// extensions only.
    static func parseSchema(_ source: [UInt8]) throws(NormCacheError) -> GraphQLDocument {
        var parser = try GraphQLParser(source, errorCode: .schema)
        return try parser.parseDocument(executable: false)
    }

    private init(_ source: [UInt8], errorCode: NormCacheError.Code, limits: DocumentLimits? = nil) throws(NormCacheError) {
        lexer = try GraphQLLexer(source, errorCode: errorCode, limits: limits)
        token = try lexer.next()
    }

    // MARK: Documents

    private mutating func parseDocument(executable: Bool) throws(NormCacheError) -> GraphQLDocument {
        var definitions: [GraphQLDefinition] = []
        repeat {
            let start = token
            let definition = try parseDefinition()
            switch (definition, executable) {
            case (.operation, false), (.fragment, false):
                throw error("a schema may not contain operations or fragments", at: start.location)
            case (.schema, true), (.type, true), (.directive, true):
                throw error("an executable document may not contain type system definitions", at: start.location)
            default:
                definitions.append(definition)
            }
        } while token.kind != .endOfInput
        return GraphQLDocument(definitions: definitions, fragmentNames: fragmentNames)
    }

    private mutating func parseDefinition() throws(NormCacheError) -> GraphQLDefinition {
        if token.kind == .leftBrace {
            let location = token.location
            return .operation(OperationDefinition(kind: .query, name: nil, variables: [], directives: [],
                                                  selections: try parseSelectionSet(), location: location))
        }
        if token.kind == .string || token.kind == .blockString {
            let description = try parseStringValue()
            return try parseTypeSystemDefinition(description: description)
        }
        guard token.kind == .name else { throw unexpected("a definition") }
        switch lexer.text(token) {
        case "query", "mutation", "subscription": return .operation(try parseOperation())
        case "fragment": return .fragment(try parseFragmentDefinition())
        case "extend": return try parseExtension()
        default: return try parseTypeSystemDefinition(description: nil)
        }
    }

    // MARK: Operations and fragments

    private mutating func parseOperation() throws(NormCacheError) -> OperationDefinition {
        let location = token.location
        guard let kind = OperationKind(rawValue: lexer.text(token)) else { throw unexpected("'query', 'mutation' or 'subscription'") }
        try advance()
        let name = token.kind == .name ? try parseName() : nil
        var variables: [VariableDefinition] = []
        if try skip(.leftParen) {
            repeat {
                let variableLocation = token.location
                try expect(.dollar)
                let variableName = try parseName()
                try expect(.colon)
                let type = try parseTypeReference()
                let defaultValue = try skip(.equals) ? try parseValue(constant: true) : nil
                variables.append(VariableDefinition(name: variableName, type: type, defaultValue: defaultValue,
                                                    directives: try parseDirectives(constant: true), location: variableLocation))
            } while !(try skip(.rightParen))
        }
        let directives = try parseDirectives(constant: false)
        return OperationDefinition(kind: kind, name: name, variables: variables, directives: directives,
                                   selections: try parseSelectionSet(), location: location)
    }

    private mutating func parseFragmentDefinition() throws(NormCacheError) -> FragmentDefinition {
        let location = token.location
        try advance()
        guard token.kind == .name, lexer.text(token) != "on" else { throw unexpected("a fragment name") }
        let name = try parseName()
        try expectKeyword("on")
        let typeCondition = try parseName()
        let directives = try parseDirectives(constant: false)
        return FragmentDefinition(name: name, nameNumber: number(ofFragment: name), typeCondition: typeCondition,
                                  directives: directives, selections: try parseSelectionSet(), location: location)
    }

    /// The number of the fragment name `name` in the document, given at its first appearance.
    private mutating func number(ofFragment name: String) -> Int {
        // One hash of the name: the defaulted subscript's access inserts the next number
        // when the name is new.
        func read(_ slot: inout Int) -> Int { slot }
        let number = read(&fragmentNameNumbers[name, default: fragmentNames.count])
        if number == fragmentNames.count { fragmentNames.append(name) }
        return number
    }

    private mutating func parseSelectionSet() throws(NormCacheError) -> [Selection] {
        let location = token.location
        try expect(.leftBrace)
        try enterNesting(location)
        defer { depth -= 1 }
        var selections: [Selection] = []
        repeat {
            selections.append(try parseSelection())
        } while !(try skip(.rightBrace))
        return selections
    }

    private mutating func parseSelection() throws(NormCacheError) -> Selection {
        let location = token.location
        if try skip(.spread) {
            if token.kind == .name, lexer.text(token) != "on" {
                let name = try parseName()
                return .fragmentSpread(FragmentSpread(name: name, nameNumber: number(ofFragment: name),
                                                      directives: try parseDirectives(constant: false), location: location))
            }
            var typeCondition: String?
            if token.kind == .name {
                try advance()
                typeCondition = try parseName()
            }
            let directives = try parseDirectives(constant: false)
            return .inlineFragment(InlineFragment(typeCondition: typeCondition, directives: directives,
                                                  selections: try parseSelectionSet(), location: location))
        }
        guard token.kind == .name else { throw unexpected("a field, '...' or '}'") }
        var alias: String?
        var name = try parseName()
        if try skip(.colon) {
            alias = name
            name = try parseName()
        }
        let arguments = try parseArguments(constant: false)
        let directives = try parseDirectives(constant: false)
        let selections = token.kind == .leftBrace ? try parseSelectionSet() : nil
        return .field(Field(alias: alias, name: name, arguments: arguments, directives: directives,
                            selections: selections, location: location))
    }

    private mutating func parseArguments(constant: Bool) throws(NormCacheError) -> [Argument] {
        guard try skip(.leftParen) else { return [] }
        var arguments: [Argument] = []
        repeat {
            let location = token.location
            let name = try parseName()
            try expect(.colon)
            arguments.append(Argument(name: name, value: try parseValue(constant: constant), location: location))
        } while !(try skip(.rightParen))
        return arguments
    }

    private mutating func parseDirectives(constant: Bool) throws(NormCacheError) -> [Directive] {
        var directives: [Directive] = []
        while token.kind == .at {
            let location = token.location
            try advance()
            let name = try parseName()
            directives.append(Directive(name: name, arguments: try parseArguments(constant: constant), location: location))
        }
        return directives
    }

    // MARK: Values and types

    private mutating func parseValue(constant: Bool) throws(NormCacheError) -> GraphQLValue {
        let current = token
        switch current.kind {
        case .dollar:
            guard !constant else { throw error("a variable is not allowed in a constant value", at: current.location) }
            try advance()
            return .variable(try parseName())
        case .int:
            try advance()
            return .int(lexer.text(current))
        case .float:
            try advance()
            return .float(lexer.text(current))
        case .string, .blockString:
            return .string(try parseStringValue())
        case .name:
            try advance()
            switch lexer.text(current) {
            case "true": return .boolean(true)
            case "false": return .boolean(false)
            case "null": return .null
            case let name: return .enumValue(name)
            }
        case .leftBracket:
            try advance()
            try enterNesting(current.location)
            defer { depth -= 1 }
            var items: [GraphQLValue] = []
            while !(try skip(.rightBracket)) { items.append(try parseValue(constant: constant)) }
            return .list(items)
        case .leftBrace:
            try advance()
            try enterNesting(current.location)
            defer { depth -= 1 }
            var fields: [(name: String, value: GraphQLValue)] = []
            while !(try skip(.rightBrace)) {
                let name = try parseName()
                try expect(.colon)
                fields.append((name, try parseValue(constant: constant)))
            }
            return .object(fields)
        default:
            throw unexpected("a value")
        }
    }

    private mutating func parseTypeReference() throws(NormCacheError) -> TypeReference {
        let location = token.location
        var type: TypeReference
        if try skip(.leftBracket) {
            try enterNesting(location)
            let inner = try parseTypeReference()
            depth -= 1
            try expect(.rightBracket)
            type = .list(inner)
        } else {
            type = .named(try parseName())
        }
        if try skip(.bang) { type = .nonNull(type) }
        return type
    }

    private mutating func parseStringValue() throws(NormCacheError) -> String {
        let current = token
        try advance()
        let raw = lexer.source[current.start..<current.end]
        if current.kind == .blockString {
            return GraphQLStringValue.blockString(raw.dropFirst(3).dropLast(3))
        }
        guard let value = GraphQLStringValue.string(raw.dropFirst().dropLast()) else {
            throw error("invalid Unicode escape (a lone surrogate) in a string", at: current.location)
        }
        return value
    }

    // MARK: Type system

    private mutating func parseTypeSystemDefinition(description: String?) throws(NormCacheError) -> GraphQLDefinition {
        guard token.kind == .name else { throw unexpected("a type system definition") }
        switch lexer.text(token) {
        case "schema": return try parseSchemaDefinition(isExtension: false)
        case "directive": return .directive(try parseDirectiveDefinition(description: description))
        default: return .type(try parseTypeDefinition(description: description, isExtension: false))
        }
    }

    private mutating func parseExtension() throws(NormCacheError) -> GraphQLDefinition {
        try advance()
        guard token.kind == .name else { throw unexpected("what to extend") }
        if lexer.text(token) == "schema" { return try parseSchemaDefinition(isExtension: true) }
        return .type(try parseTypeDefinition(description: nil, isExtension: true))
    }

    private mutating func parseSchemaDefinition(isExtension: Bool) throws(NormCacheError) -> GraphQLDefinition {
        let location = token.location
        try advance()
        let directives = try parseDirectives(constant: true)
        var operationTypes: [(operation: OperationKind, type: String)] = []
        if try skip(.leftBrace) {
            repeat {
                guard token.kind == .name, let operation = OperationKind(rawValue: lexer.text(token)) else {
                    throw unexpected("'query', 'mutation' or 'subscription'")
                }
                try advance()
                try expect(.colon)
                operationTypes.append((operation, try parseName()))
            } while !(try skip(.rightBrace))
        } else if !isExtension || directives.isEmpty {
            throw unexpected(isExtension ? "directives or '{'" : "'{'")
        }
        return .schema(SchemaDefinition(isExtension: isExtension, directives: directives,
                                        operationTypes: operationTypes, location: location))
    }

    private mutating func parseTypeDefinition(description: String?, isExtension: Bool) throws(NormCacheError) -> TypeDefinition {
        let location = token.location
        guard let kind = TypeDefinition.Kind(rawValue: lexer.text(token)) else {
            throw unexpected("'schema', 'scalar', 'type', 'interface', 'union', 'enum', 'input' or 'directive'")
        }
        try advance()
        var definition = TypeDefinition(kind: kind, isExtension: isExtension, name: try parseName(), description: description,
                                        interfaces: [], directives: [], fields: [], unionMembers: [], enumValues: [],
                                        location: location)
        if kind == .object || kind == .interface, token.kind == .name, lexer.text(token) == "implements" {
            try advance()
            _ = try skip(.ampersand)
            repeat { definition.interfaces.append(try parseName()) } while try skip(.ampersand)
        }
        definition.directives = try parseDirectives(constant: true)
        switch kind {
        case .scalar:
            break
        case .object, .interface:
            if token.kind == .leftBrace { definition.fields = try parseFieldDefinitions(input: false) }
        case .input:
            if token.kind == .leftBrace { definition.fields = try parseFieldDefinitions(input: true) }
        case .union:
            if try skip(.equals) {
                _ = try skip(.pipe)
                repeat { definition.unionMembers.append(try parseName()) } while try skip(.pipe)
            }
        case .enum:
            if try skip(.leftBrace) {
                repeat {
                    let valueLocation = token.location
                    let valueDescription = token.kind == .string || token.kind == .blockString ? try parseStringValue() : nil
                    let nameToken = token
                    let name = try parseName()
                    guard name != "true", name != "false", name != "null" else {
                        throw error("'\(name)' cannot be an enum value", at: nameToken.location)
                    }
                    definition.enumValues.append(EnumValueDefinition(name: name, description: valueDescription,
                                                                     directives: try parseDirectives(constant: true),
                                                                     location: valueLocation))
                } while !(try skip(.rightBrace))
            }
        }
        if isExtension, definition.interfaces.isEmpty, definition.directives.isEmpty, definition.fields.isEmpty,
           definition.unionMembers.isEmpty, definition.enumValues.isEmpty {
            throw error("an extension of '\(definition.name)' must add directives, interfaces, fields, members or values", at: location)
        }
        return definition
    }

    /// `{ field(args): Type @dir ... }` of an object or interface, or `{ name: Type = default @dir ... }` of an input.
    private mutating func parseFieldDefinitions(input: Bool) throws(NormCacheError) -> [FieldDefinition] {
        try expect(.leftBrace)
        var fields: [FieldDefinition] = []
        repeat {
            fields.append(try parseFieldDefinition(input: input))
        } while !(try skip(.rightBrace))
        return fields
    }

    private mutating func parseFieldDefinition(input: Bool) throws(NormCacheError) -> FieldDefinition {
        let location = token.location
        let description = token.kind == .string || token.kind == .blockString ? try parseStringValue() : nil
        let name = try parseName()
        let arguments = input ? [] : try parseArgumentDefinitions()
        try expect(.colon)
        let type = try parseTypeReference()
        var defaultValue: GraphQLValue?
        if input, try skip(.equals) { defaultValue = try parseValue(constant: true) }
        return FieldDefinition(name: name, description: description, arguments: arguments, type: type,
                               defaultValue: defaultValue, directives: try parseDirectives(constant: true), location: location)
    }

    private mutating func parseArgumentDefinitions() throws(NormCacheError) -> [FieldDefinition] {
        guard try skip(.leftParen) else { return [] }
        var arguments: [FieldDefinition] = []
        repeat {
            arguments.append(try parseFieldDefinition(input: true))
        } while !(try skip(.rightParen))
        return arguments
    }

    private mutating func parseDirectiveDefinition(description: String?) throws(NormCacheError) -> DirectiveDefinition {
        let location = token.location
        try advance()
        try expect(.at)
        let name = try parseName()
        let arguments = try parseArgumentDefinitions()
        var isRepeatable = false
        if token.kind == .name, lexer.text(token) == "repeatable" {
            isRepeatable = true
            try advance()
        }
        try expectKeyword("on")
        _ = try skip(.pipe)
        var locations: [String] = []
        repeat {
            let locationToken = token
            let name = try parseName()
            guard Self.directiveLocations.contains(name) else {
                throw error("unknown directive location '\(name)'", at: locationToken.location)
            }
            locations.append(name)
        } while try skip(.pipe)
        return DirectiveDefinition(name: name, description: description, arguments: arguments,
                                   isRepeatable: isRepeatable, locations: locations, location: location)
    }

    // MARK: Tokens

    private mutating func advance() throws(NormCacheError) {
        token = try lexer.next()
    }

    private mutating func parseName() throws(NormCacheError) -> String {
        guard token.kind == .name else { throw unexpected("a name") }
        let name = lexer.text(token)
        try advance()
        return name
    }

    private mutating func expect(_ kind: GraphQLToken.Kind) throws(NormCacheError) {
        guard token.kind == kind else { throw unexpected(kind.description) }
        try advance()
    }

    private mutating func expectKeyword(_ keyword: String) throws(NormCacheError) {
        guard token.kind == .name, lexer.text(token) == keyword else { throw unexpected("'\(keyword)'") }
        try advance()
    }

    /// Consumes the token when it is of `kind`; returns whether it did.
    private mutating func skip(_ kind: GraphQLToken.Kind) throws(NormCacheError) -> Bool {
        guard token.kind == kind else { return false }
        try advance()
        return true
    }

    private mutating func enterNesting(_ location: SourceLocation) throws(NormCacheError) {
        depth += 1
        guard depth <= Self.maxDepth else {
            throw error("nested deeper than \(Self.maxDepth) levels", at: location)
        }
    }

    private func unexpected(_ expected: String) -> NormCacheError {
        let found: String
        switch token.kind {
        case .name, .int, .float: found = "'\(lexer.text(token))'"
        default: found = token.kind.description
        }
        return error("expected \(expected), found \(found)", at: token.location)
    }

    private func error(_ message: String, at location: SourceLocation) -> NormCacheError {
        lexer.error(message, at: location)
    }
}
