/// Max-age rules from SDL, as Apollo Server and Apollo Kotlin write them:
///
///     type Query { feed: [Article] @cacheControl(maxAge: 60) }
///     type Article @cacheControl(maxAge: 1800) { id: ID! reader: Reader @cacheControl(inheritMaxAge: true) }
///     extend type Article @cacheControlField(name: "title", maxAge: 300)
///
/// `@cacheControl(maxAge: Int, inheritMaxAge: Boolean, scope: CacheControlScope)` on an
/// object, interface or union type sets the rule of the type (`Article`), on a field of
/// an object or interface the rule of the field (`Article.reader`); the repeatable
/// `@cacheControlField(name: String!, maxAge: Int, inheritMaxAge: Boolean, scope: ...)` on
/// an object or interface sets the rule of its field `name`, for schemas one does not own.
/// A field's own `@cacheControl` wins over a `@cacheControlField` naming it, and of several
/// `@cacheControlField` naming one field the last does (as in Apollo Kotlin). `scope`
/// means nothing to a client cache; `@cacheControl` without `maxAge` and without
/// `inheritMaxAge: true` (bare, or with `scope` only, as Apollo Server allows) sets no rule.
/// The directives are known by these names (an `@link` import that renames them is not
/// followed); their definitions, `enum CacheControlScope` and `extend schema @link(...)`
/// may be in the SDL or not.
extension MaxAgeRules {
    /// The arguments `@cacheControl` takes (`@cacheControlField` takes `name` as well).
    private static let cacheControlArguments = ["maxAge", "inheritMaxAge", "scope"]

    /// The rules of the schema's `@cacheControl` and `@cacheControlField` directives. A
    /// misplaced or repeated `@cacheControl`, an argument of the wrong kind (`maxAge` not
    /// an integer from 0 to 2147483647, `inheritMaxAge` not a boolean), an unknown
    /// argument, `maxAge` given with `inheritMaxAge: true`, or a `@cacheControlField`
    /// without a `name` of a field of its type is a `.schema` error at the directive.
    init(schema: Schema) throws(NormCacheError) {
        for type in schema.types.values.sorted(by: { $0.name < $1.name }) {
            var typeRuleAt: SourceLocation?
            for directive in type.directives {
                switch directive.name {
                case "cacheControl":
                    guard type.kind == .object || type.kind == .interface || type.kind == .union else {
                        throw Self.error("@cacheControl may not be used on \(Self.describe(type.kind)) '\(type.name)'", at: directive.location)
                    }
                    try Self.once(directive, after: &typeRuleAt, on: type.name)
                    if let rule = try Self.maxAge(of: directive, on: type.name) { coordinates[type.name] = rule }
                case "cacheControlField":
                    guard type.kind == .object || type.kind == .interface else {
                        throw Self.error("@cacheControlField may not be used on \(Self.describe(type.kind)) '\(type.name)'", at: directive.location)
                    }
                    guard let value = directive.arguments.first(where: { $0.name == "name" })?.value,
                          case .string(let field) = value, !field.isEmpty else {
                        throw Self.error("@cacheControlField on '\(type.name)' needs a string argument 'name'", at: directive.location)
                    }
                    guard type.fields[field] != nil else {
                        let hint = NameSuggestion.hint(for: field, among: type.fields.keys)
                        throw Self.error("@cacheControlField on '\(type.name)' names '\(field)', which is not a field of '\(type.name)'\(hint)",
                                         at: directive.location)
                    }
                    if let rule = try Self.maxAge(of: directive, on: type.name) { coordinates[type.name + "." + field] = rule }
                default:
                    break
                }
            }
            let fields = type.fields.values.sorted { ($0.location.line, $0.location.column) < ($1.location.line, $1.location.column) }
            for field in fields {
                let coordinate = type.name + "." + field.name
                var fieldRuleAt: SourceLocation?
                for directive in field.directives where directive.name == "cacheControl" {
                    guard type.kind == .object || type.kind == .interface else {
                        throw Self.error("@cacheControl may not be used on a field of \(Self.describe(type.kind)) '\(type.name)'",
                                         at: directive.location)
                    }
                    try Self.once(directive, after: &fieldRuleAt, on: coordinate)
                    if let rule = try Self.maxAge(of: directive, on: coordinate) { coordinates[coordinate] = rule }
                }
            }
        }
    }

    /// The rule a `@cacheControl` or `@cacheControlField` directive on `subject` gives;
    /// nil when it gives none.
    private static func maxAge(of directive: Directive, on subject: String) throws(NormCacheError) -> MaxAge? {
        let what = "@\(directive.name) on '\(subject)'"
        var seconds: UInt32?
        var inherits = false
        for argument in directive.arguments {
            switch (argument.name, argument.value) {
            case ("maxAge", .null), ("inheritMaxAge", .null), ("scope", _):
                break
            case ("maxAge", let value):
                guard case .int(let text) = value, let parsed = Self.seconds(decimal: text.utf8) else {
                    throw error("maxAge of \(what) must be an integer from 0 to \(maximumSeconds), not \(GraphQLPrinter.print(value))",
                                at: directive.location)
                }
                seconds = parsed
            case ("inheritMaxAge", .boolean(let value)):
                inherits = value
            case ("inheritMaxAge", let value):
                throw error("inheritMaxAge of \(what) must be true or false, not \(GraphQLPrinter.print(value))", at: directive.location)
            case ("name", _) where directive.name == "cacheControlField":
                break
            default:
                let known = (directive.name == "cacheControlField" ? ["name"] : []) + cacheControlArguments
                throw error("\(what) has an unknown argument '\(argument.name)' (known: \(known.joined(separator: ", ")))", at: directive.location)
            }
        }
        if seconds != nil, inherits {
            throw error("\(what) has both maxAge and inheritMaxAge: true (give one)", at: directive.location)
        }
        return seconds.map(MaxAge.seconds) ?? (inherits ? .inherit : nil)
    }

    /// Fails when `@cacheControl` was already given on `subject` (at `earlier`), which
    /// GraphQL forbids for a directive that is not repeatable; else notes where it is.
    private static func once(_ directive: Directive, after earlier: inout SourceLocation?, on subject: String) throws(NormCacheError) {
        if let earlier {
            throw error("@cacheControl is given more than once on '\(subject)' (first at \(earlier))", at: directive.location)
        }
        earlier = directive.location
    }

    private static func error(_ message: String, at location: SourceLocation) -> NormCacheError {
        NormCacheError(.schema, "GraphQL error at \(location): \(message)")
    }
}
