/// The binary form of one field value: a JSON value in which references to other
/// records are marked as such. Each value starts with a tag byte:
///
/// | tag | value | payload |
/// |-----|-------|---------|
/// | 0 | null | — |
/// | 1 | false | — |
/// | 2 | true | — |
/// | 3 | number | varint length, the number's JSON text as written |
/// | 4 | string | varint length, UTF-8 bytes |
/// | 5 | list | varint count, UInt32 body length, the elements |
/// | 6 | object (custom scalar) | varint count, UInt32 body length, (varint key length, key, value) per member, in input order |
/// | 7 | reference | varint length, the record key |
///
/// Lists and objects carry their body length so a reader can skip them in place.
enum FieldValue {
    /// The tag byte that starts each encoded value.
    enum Tag: UInt8 {
        case null = 0
        case `false`, `true`, number, string, list, object, reference
    }

    /// The deepest nesting a stored value may have (matches the JSON scanner's limit).
    static var maxDepth: Int { JSONDocument.maxDepth }
}
