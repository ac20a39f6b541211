extension RecordView {
    /// Appends the record as the JSON object of its fields, in stored order (by the bytes
    /// of their keys), references as `{"$reference": key}`; false when an entry or a
    /// value is damaged (`out` is then partly written).
    func appendJSON(to out: inout ByteBuffer) -> Bool {
        out.append(UInt8(ascii: "{"))
        for index in 0..<count {
            guard let field = entry(at: index) else { return false }
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.appendQuoted(field.key)
            out.append(UInt8(ascii: ":"))
            var reader = ByteReader(field.value)
            guard case .written = FieldValue.appendJSON(from: &reader, to: &out), reader.isAtEnd else { return false }
        }
        out.append(UInt8(ascii: "}"))
        return true
    }
}
