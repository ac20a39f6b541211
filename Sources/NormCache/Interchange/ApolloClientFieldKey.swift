/// Field keys between Apollo Client's notation, `hero({"episode":"JEDI"})` (the name
/// and the arguments as JSON with sorted keys), and normcache's, `hero(episode:JEDI)`
/// (`FieldStorageKey`).
///
/// A key of any other form — a `keyArgs` key (`feed:{"type":"news"}`), a directive's
/// (`feed@connection({"key":"x"})`), parentheses around what is not a JSON object — is
/// carried over as it is, both ways.
enum ApolloClientFieldKey {
    /// The normcache storage key of an Apollo Client field key.
    static func storageKey(_ key: [UInt8]) -> [UInt8] {
        guard let (name, inner) = split(key) else { return key }
        let fields: [(name: String, value: ArgumentValue)]? = inner.withUnsafeBytes { bytes in
            guard let document = try? JSONDocument(scanning: bytes), document.tokens[document.root].kind == .object,
                  case .object(let fields) = ArgumentValue(json: document, document.root), !fields.isEmpty
            else { return nil }
            return fields
        }
        guard let fields else { return key }
        return Array(FieldStorageKey.make(name: String(decoding: name, as: UTF8.self), resolved: fields).utf8)
    }

    /// The Apollo Client field key of a normcache storage key, its arguments as
    /// `StorageKeyArguments` writes them; `isText` says what the schema types as text, for
    /// the field's name and a value's path (nil: it does not say).
    static func clientKey(_ key: [UInt8], isText: (_ field: String, _ path: [String]) -> Bool? = { _, _ in nil }) -> [UInt8] {
        guard let (name, inner) = split(key) else { return key }
        let field = String(decoding: name, as: UTF8.self)
        guard let arguments = StorageKeyArguments.json(inner, isText: { isText(field, $0) }) else { return key }
        return Array(name) + [UInt8(ascii: "(")] + arguments + [UInt8(ascii: ")")]
    }

    /// The name and the text between the parentheses of `name(...)`, when the key has
    /// that form and the name is a GraphQL name.
    private static func split(_ key: [UInt8]) -> (name: ArraySlice<UInt8>, inner: [UInt8])? {
        guard let open = key.firstIndex(of: UInt8(ascii: "(")), open > 0, key.last == UInt8(ascii: ")"),
              isName(key[..<open])
        else { return nil }
        return (key[..<open], Array(key[(open + 1)..<(key.count - 1)]))
    }

    /// Whether `bytes` is a GraphQL name (`[_A-Za-z][_0-9A-Za-z]*`).
    private static func isName(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let first = bytes.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return bytes.allSatisfy { byte in
            byte == UInt8(ascii: "_") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        }
    }
}
