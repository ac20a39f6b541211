/// Max-age rules given as JSON, in the same `configure` object as the key rules:
///
///     {"maxAges": {"Article": 1800, "Query.feed": 60, "Reader.book": "inherit"},
///      "defaultMaxAge": 3600}
///
/// `maxAges` maps schema coordinates (`Type` of an object, interface or union; `Type.field`
/// of an object or interface) to a number of seconds, an integer from 0 to 2147483647, or
/// to `"inherit"` (the parent field's max age); a coordinate given here replaces the
/// schema's rule of the same name. `defaultMaxAge` (seconds, or `null`: never) replaces
/// the default max age. A value of another kind (negative, a fraction, an exponent, too
/// large, another string, a boolean) is an `.invalidArgument` error at its byte offset.
///
/// With a schema, the coordinates are checked against it (`.schema` errors at the byte
/// offset of the rule, with a close name): the type must be one of the schema's, of a
/// kind that takes the rule, and the field a field of it. Without a schema the check
/// waits for the schema (`CacheRules.load` replays every configuration over it).
extension MaxAgeRules {
    /// The members of a configuration object that are max-age rules; `KeyRules.configure`
    /// leaves them to `configure(document:schema:)`.
    static let configurationMembers = ["maxAges", "defaultMaxAge"]

    /// Adds the max-age rules of a scanned configuration JSON object (its other members
    /// are the key rules'), checked against `schema` if any.
    mutating func configure(document: JSONDocument, schema: Schema?) throws(NormCacheError) {
        let reader = ConfigurationReader(document: document, schema: schema)
        for (member, value) in try reader.members(of: document.root, "the configuration") {
            if member == "maxAges" {
                for (coordinate, setting) in try reader.members(of: value, "maxAges") {
                    coordinates[coordinate] = try Self.rule(coordinate, reader, setting)
                }
            } else if member == "defaultMaxAge" {
                guard document.tokens[value].kind != .null else { defaultMaxAge = nil; continue }
                guard let seconds = Self.seconds(reader, value) else {
                    throw reader.error("defaultMaxAge must be an integer from 0 to \(Self.maximumSeconds) or null", value)
                }
                defaultMaxAge = seconds
            }
        }
    }

    /// The rule `maxAges` gives `coordinate` at `index`: a number of seconds or
    /// `"inherit"`; the coordinate checked (`check`).
    private static func rule(_ coordinate: String, _ reader: ConfigurationReader, _ index: Int) throws(NormCacheError) -> MaxAge {
        let rule: MaxAge
        if reader.document.string(index, equals: "inherit") {
            rule = .inherit
        } else if let seconds = seconds(reader, index) {
            rule = .seconds(seconds)
        } else {
            throw reader.error("maxAges.\(coordinate) must be an integer from 0 to \(maximumSeconds) or \"inherit\"", index)
        }
        try check(coordinate, reader, index)
        return rule
    }

    /// The seconds of the JSON number at `index`; nil for anything but a number written
    /// as digits only within range.
    private static func seconds(_ reader: ConfigurationReader, _ index: Int) -> UInt32? {
        guard reader.document.tokens[index].kind == .number else { return nil }
        return seconds(decimal: reader.document.rawText(index))
    }

    /// Fails when `coordinate` is not `Type` or `Type.field`, or, with a schema, names
    /// what the schema lacks or what takes no max age.
    private static func check(_ coordinate: String, _ reader: ConfigurationReader, _ index: Int) throws(NormCacheError) {
        let parts = coordinate.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2, !parts.contains(where: \.isEmpty) else {
            throw reader.error("max age '\(coordinate)' must be named 'Type' or 'Type.field'", index)
        }
        guard let type = try reader.schemaType(parts[0], "maxAges", index) else { return }
        let kinds: [TypeDefinition.Kind] = parts.count == 1 ? [.object, .interface, .union] : [.object, .interface]
        guard kinds.contains(type.kind) else {
            let allowed = parts.count == 1 ? "an object, interface or union type" : "an object or interface type"
            throw reader.error("maxAges.\(coordinate) names \(describe(type.kind)) '\(type.name)', which is not \(allowed)", index, code: .schema)
        }
        if parts.count == 2, type.fields[parts[1]] == nil {
            let hint = NameSuggestion.hint(for: parts[1], among: type.fields.keys)
            throw reader.error("maxAges.\(coordinate) names no field of '\(type.name)'\(hint)", index, code: .schema)
        }
    }
}
