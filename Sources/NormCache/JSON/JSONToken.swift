/// One value of a scanned JSON document, in a flat array (a "tape"): containers are
/// followed by their contents, and `end` is the index just past a value's subtree,
/// so a whole value can be skipped in one step.
struct JSONToken {
    /// The kind of value.
    enum Kind: UInt8 {
        case null, `false`, `true`, number, string, array, object
    }

    /// The kind of value.
    var kind: Kind
    /// For strings: whether the text holds escapes that decoding must resolve.
    var hasEscapes: Bool
    /// Byte offset of the value in the input; for strings, of the first byte after
    /// the opening quote.
    var offset: UInt32
    /// For numbers and strings: the byte length of the raw text (strings without
    /// quotes). For arrays: the element count; for objects: the member count.
    var length: UInt32
    /// The index of the token just past this value and everything inside it.
    var end: UInt32
    /// For arrays and objects: the byte offset of the closing bracket.
    var closeOffset: UInt32 = 0
}
