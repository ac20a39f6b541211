/// Translates Apollo Client's `cache.extract()` JSON into normcache's records JSON.
///
/// - `ROOT_QUERY`, `ROOT_MUTATION`, `ROOT_SUBSCRIPTION` become `QUERY_ROOT`,
///   `MUTATION_ROOT`, `SUBSCRIPTION_ROOT`; other record keys stay as they are.
/// - `{"__ref": "Human:1000"}` becomes `{"$reference": "Human:1000"}`.
/// - Field keys go through `ApolloClientFieldKey.storageKey`.
/// - An object stored inline that has a `__typename` (an object without an id) becomes
///   the record normcache would have written for it, keyed by its path from its record
///   (`QUERY_ROOT.hero`, `Droid:2001.friends.0`), and the field refers to it. An inline
///   object without `__typename` is a leaf value (a JSON custom scalar) and stays.
/// - `__META` (the extra root ids of `cache.retain`) is left out.
///
/// Any malformed input throws and nothing is made: JSON that is not an object of
/// objects, a `__ref` with other members or not a string, a reference to a record the
/// file does not hold.
struct ApolloClientImport {
    private let document: JSONDocument
    private var records: [[UInt8]] = []
    private var targets = ReferenceTargets()

    private init(_ document: JSONDocument) { self.document = document }

    /// The records JSON of an Apollo Client extract.
    static func records(_ bytes: UnsafeRawBufferPointer) throws(NormCacheError) -> [UInt8] {
        var reader = ApolloClientImport(try JSONDocument(scanning: bytes))
        try reader.readAll()
        try reader.targets.check(.apolloClient)
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (index, record) in reader.records.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: record)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    private mutating func readAll() throws(NormCacheError) {
        let root = document.root
        guard document.tokens[root].kind == .object else {
            throw NormCacheError(.json, "apollo-client import: the file must be a JSON object of record keys (cache.extract()), not \(document.tokens[root].kind)")
        }
        for member in document.members(ofObject: root) {
            let key = document.stringBytes(member.key)
            let kind = document.tokens[member.value].kind
            if key.elementsEqual("__META".utf8) {
                guard kind == .object else { throw NormCacheError(.json, "apollo-client import: __META must be an object, not \(kind)") }
                continue
            }
            guard !key.isEmpty else { throw NormCacheError(.invalidArgument, "apollo-client import: empty record key at byte \(document.tokens[member.key].offset - 1)") }
            guard kind == .object else {
                throw NormCacheError(.json, "apollo-client import: record '\(String(decoding: key, as: UTF8.self))' must be an object of fields, not \(kind)")
            }
            try addRecord(ApolloRootKeys.normcacheKey(key), fieldsAt: member.value, named: key)
        }
    }

    /// Adds the record `key` made of the object at `index`; `name` is the key in the
    /// input, for messages.
    private mutating func addRecord(_ key: [UInt8], fieldsAt index: Int, named name: [UInt8]) throws(NormCacheError) {
        targets.hold(key)
        var out: [UInt8] = []
        JSONString.appendQuoted(key, to: &out)
        out.append(contentsOf: ":{".utf8)
        for (position, field) in document.members(ofObject: index).enumerated() {
            let clientKey = document.stringBytes(field.key)
            guard !clientKey.isEmpty else {
                throw NormCacheError(.invalidArgument, "apollo-client import: empty field name at byte \(document.tokens[field.key].offset - 1) in record '\(String(decoding: name, as: UTF8.self))'")
            }
            let fieldKey = ApolloClientFieldKey.storageKey(clientKey)
            if position > 0 { out.append(UInt8(ascii: ",")) }
            JSONString.appendQuoted(fieldKey, to: &out)
            out.append(UInt8(ascii: ":"))
            let place = { "field '\(String(decoding: clientKey, as: UTF8.self))' of record '\(String(decoding: name, as: UTF8.self))'" }
            try appendValue(field.value, path: (key + [UInt8(ascii: ".")] + fieldKey, name + [UInt8(ascii: ".")] + clientKey),
                            place: place, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        records.append(out)
    }

    /// Appends the value at `index`, found at `path` (the key an inline object there
    /// gets, and its path in the input, for messages), translated.
    private mutating func appendValue(_ index: Int, path: (key: [UInt8], name: [UInt8]), place: @escaping () -> String,
                                      to out: inout [UInt8]) throws(NormCacheError) {
        switch document.tokens[index].kind {
        case .object:
            if let reference = document.member("__ref".utf8, ofObject: index) {
                guard document.tokens[index].length == 1, document.tokens[reference].kind == .string else {
                    throw NormCacheError(.json, "apollo-client import: \(place()) holds a malformed reference at byte \(document.tokens[index].offset): an object with \"__ref\" must have no other member, and its value must be a string")
                }
                let target = ApolloRootKeys.normcacheKey(document.stringBytes(reference))
                targets.refer(to: target, at: place)
                Self.appendReference(target, to: &out)
            } else if document.member("__typename".utf8, ofObject: index) != nil {
                try addRecord(path.key, fieldsAt: index, named: path.name)
                Self.appendReference(path.key, to: &out)
            } else {
                out.append(contentsOf: document.json(index))
            }
        case .array:
            out.append(UInt8(ascii: "["))
            for (position, element) in document.elements(ofArray: index).enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                let segment = [UInt8(ascii: ".")] + Array(String(position).utf8)
                try appendValue(element, path: (path.key + segment, path.name + segment), place: place, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        default:
            out.append(contentsOf: document.json(index))
        }
    }

    /// Appends `{"$reference":"key"}`.
    static func appendReference(_ key: [UInt8], to out: inout [UInt8]) {
        out.append(contentsOf: "{\"$reference\":".utf8)
        JSONString.appendQuoted(key, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}
