/// Apollo iOS's records — the rows of its SQLite `records` table as a JSON object of
/// record key to record text (`{"QUERY_ROOT": "{\"hero\":{\"$reference\":\"Droid:2001\"}}"}`)
/// — to and from normcache's records JSON. normcache keys records and fields as Apollo
/// iOS does and writes references as it does, so each record passes as it is; what is
/// checked is that every record text is a JSON object and every reference is held.
enum ApolloIOSRecords {
    /// The records JSON of Apollo iOS's rows.
    static func records(_ bytes: UnsafeRawBufferPointer) throws(NormCacheError) -> [UInt8] {
        let rows = try JSONDocument(scanning: bytes)
        guard rows.tokens[rows.root].kind == .object else {
            throw NormCacheError(.json, "apollo-ios import: the rows must be a JSON object of record key to record text, not \(rows.tokens[rows.root].kind)")
        }
        var targets = ReferenceTargets()
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (position, row) in rows.members(ofObject: rows.root).enumerated() {
            let key = rows.stringBytes(row.key)
            let name = String(decoding: key, as: UTF8.self)
            guard !key.isEmpty else { throw NormCacheError(.invalidArgument, "apollo-ios import: row \(position + 1) has an empty key") }
            guard rows.tokens[row.value].kind == .string else {
                throw NormCacheError(.json, "apollo-ios import: the record of key '\(name)' must be text, not \(rows.tokens[row.value].kind)")
            }
            let text = rows.stringBytes(row.value)
            try text.withBytes { (bytes) throws(NormCacheError) in
                let record: JSONDocument
                do throws(NormCacheError) {
                    record = try JSONDocument(scanning: bytes)
                } catch {
                    throw NormCacheError(.json, "apollo-ios import: the record of key '\(name)' is not JSON: \(error.message)")
                }
                guard record.tokens[record.root].kind == .object else {
                    throw NormCacheError(.json, "apollo-ios import: the record of key '\(name)' must be a JSON object of fields, not \(record.tokens[record.root].kind)")
                }
                for field in record.members(ofObject: record.root) {
                    let fieldName = String(decoding: record.stringBytes(field.key), as: UTF8.self)
                    noteReferences(field.value, in: record, into: &targets) { "field '\(fieldName)' of record '\(name)'" }
                }
            }
            targets.hold(key)
            if position > 0 { out.append(UInt8(ascii: ",")) }
            JSONString.appendQuoted(key, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: text)
        }
        try targets.check(.apolloIOS)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Notes the references in the value at `index` and its list elements.
    private static func noteReferences(_ index: Int, in document: JSONDocument, into targets: inout ReferenceTargets,
                                       place: @escaping () -> String) {
        if let target = ApolloClientExport.reference(index, in: document) {
            targets.refer(to: target, at: place)
        } else if document.tokens[index].kind == .array {
            for element in document.elements(ofArray: index) { noteReferences(element, in: document, into: &targets, place: place) }
        }
    }

    /// Apollo iOS's rows of `records` (key and record JSON, in key order).
    static func rows(_ records: [(key: [UInt8], json: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (position, record) in records.enumerated() {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            JSONString.appendQuoted(record.key, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONString.appendQuoted(record.json, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
