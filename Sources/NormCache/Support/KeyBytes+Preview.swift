extension KeyBytes {
    /// A key for messages: its text, cut short after 80 bytes with its length said.
    static func preview<Key: Collection>(_ key: Key) -> String where Key.Element == UInt8 {
        let shown = String(decoding: key.prefix(80), as: UTF8.self)
        return key.count > 80 ? "\(shown)… (\(key.count) bytes)" : shown
    }
}
