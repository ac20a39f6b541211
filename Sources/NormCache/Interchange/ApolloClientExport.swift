/// Translates normcache's records into Apollo Client's `cache.extract()` JSON, the
/// reverse of `ApolloClientImport`: root keys renamed, `$reference` to `__ref`, field
/// keys through `ApolloClientFieldKey.clientKey`, and a record keyed by its path from
/// the one record that refers to it (`QUERY_ROOT.hero`, referred to by `QUERY_ROOT`'s
/// field `hero` and by nothing else) written inline there, as Apollo Client stores an
/// object without an id. A record referred to from elsewhere too stays a record. With a
/// schema, argument values are typed by it (`ArgumentTypes`).
struct ApolloClientExport {
    private let records: [[UInt8]: [UInt8]]
    private let types: ArgumentTypes?
    /// The keys of the records written inline.
    private var inlined: Set<[UInt8]> = []

    private init(records: [[UInt8]: [UInt8]], types: ArgumentTypes?) {
        self.records = records
        self.types = types
    }

    /// The extract of `records` (key and record JSON, in key order), argument values typed
    /// by `schema` when there is one.
    static func extract(_ records: [(key: [UInt8], json: [UInt8])], schema: Schema?) throws(NormCacheError) -> [UInt8] {
        var byKey: [[UInt8]: [UInt8]] = [:]
        for record in records { byKey[record.key] = record.json }
        var export = ApolloClientExport(records: byKey, types: schema.map(ArgumentTypes.init))
        var referrers: [[UInt8]: Int] = [:]
        var atTheirPath: Set<[UInt8]> = []
        for record in records {
            try export.forEachField(of: record.key) { (path, value, document) in
                export.countReferences(value, path: path, in: document, referrers: &referrers, atTheirPath: &atTheirPath)
            }
        }
        export.inlined = atTheirPath.filter { referrers[$0] == 1 }
        var out: [UInt8] = [UInt8(ascii: "{")]
        var first = true
        for record in records where !export.inlined.contains(record.key) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONString.appendQuoted(ApolloRootKeys.clientKey(record.key), to: &out)
            out.append(UInt8(ascii: ":"))
            try export.appendFields(of: record.key, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Calls `body` with the path (`key.field`), the value token and the document of
    /// each field of the record `key`.
    private func forEachField(of key: [UInt8],
                              _ body: ([UInt8], Int, JSONDocument) throws(NormCacheError) -> Void) throws(NormCacheError) {
        guard let json = records[key] else { return }
        try json.withBytes { (bytes) throws(NormCacheError) in
            let document = try JSONDocument(scanning: bytes)
            for field in document.members(ofObject: document.root) {
                try body(key + [UInt8(ascii: ".")] + document.stringBytes(field.key), field.value, document)
            }
        }
    }

    /// The record at `path` when the value at `index` refers to it and it is written inline.
    private func inlineTarget(_ index: Int, path: [UInt8], in document: JSONDocument) -> [UInt8]? {
        guard let target = Self.reference(index, in: document), target == path, inlined.contains(target) else { return nil }
        return target
    }

    /// Counts the references of the value at `index` (and of its list elements) by
    /// target, and notes the targets that are the record at `path`.
    private func countReferences(_ index: Int, path: [UInt8], in document: JSONDocument, referrers: inout [[UInt8]: Int],
                                 atTheirPath: inout Set<[UInt8]>) {
        if let target = Self.reference(index, in: document) {
            referrers[target, default: 0] += 1
            if target == path, records[target] != nil { atTheirPath.insert(target) }
        } else if document.tokens[index].kind == .array {
            for (position, element) in document.elements(ofArray: index).enumerated() {
                countReferences(element, path: path + [UInt8(ascii: ".")] + Array(String(position).utf8), in: document,
                                referrers: &referrers, atTheirPath: &atTheirPath)
            }
        }
    }

    /// Appends the fields of the record `key` as an Apollo Client object.
    private func appendFields(of key: [UInt8], to out: inout [UInt8]) throws(NormCacheError) {
        out.append(UInt8(ascii: "{"))
        var first = true
        try forEachField(of: key) { (path, value, document) throws(NormCacheError) in
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            let fieldKey = Array(path[(key.count + 1)...])
            let typeName = types?.typeName(ofRecord: key, in: document)
            let clientKey = ApolloClientFieldKey.clientKey(fieldKey) { field, argument in
                typeName.flatMap { types?.isText(typeName: $0, field: field, path: argument) }
            }
            JSONString.appendQuoted(clientKey, to: &out)
            out.append(UInt8(ascii: ":"))
            try appendValue(value, path: path, in: document, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Appends the value at `index`, found at `path`, translated.
    private func appendValue(_ index: Int, path: [UInt8], in document: JSONDocument, to out: inout [UInt8]) throws(NormCacheError) {
        if let target = inlineTarget(index, path: path, in: document) {
            try appendFields(of: target, to: &out)
        } else if let target = Self.reference(index, in: document) {
            out.append(contentsOf: "{\"__ref\":".utf8)
            JSONString.appendQuoted(ApolloRootKeys.clientKey(target), to: &out)
            out.append(UInt8(ascii: "}"))
        } else if document.tokens[index].kind == .array {
            out.append(UInt8(ascii: "["))
            for (position, element) in document.elements(ofArray: index).enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                try appendValue(element, path: path + [UInt8(ascii: ".")] + Array(String(position).utf8), in: document, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        } else {
            out.append(contentsOf: document.json(index))
        }
    }

    /// The key a `{"$reference": key}` value at `index` refers to, or nil.
    static func reference(_ index: Int, in document: JSONDocument) -> [UInt8]? {
        let token = document.tokens[index]
        guard token.kind == .object, token.length == 1, let value = document.member("$reference".utf8, ofObject: index),
              document.tokens[value].kind == .string
        else { return nil }
        return document.stringBytes(value)
    }
}
