import Glibc

/// A JSON text scanned once into a flat array of tokens (RFC 8259, strict).
///
/// The scanner validates everything up front — grammar, UTF-8, escapes, numbers,
/// nesting depth — and records where each value is; strings are decoded only when
/// asked. It never recurses, so hostile nesting costs a clear error, not the stack.
/// The document borrows `bytes`: they must outlive it.
struct JSONDocument {
    /// The deepest nesting of arrays and objects accepted.
    static let maxDepth = 512

    /// The scanned text.
    let bytes: UnsafeRawBufferPointer
    /// The values of the text in document order; `tokens[0]` is the top-level value.
    let tokens: JSONTape

    /// The top-level value.
    var root: Int { 0 }

    /// Scans `bytes`, or throws a `.json` error naming the byte offset of the problem.
    init(scanning bytes: UnsafeRawBufferPointer) throws(NormCacheError) {
        self.bytes = bytes
        guard bytes.count < Int(UInt32.max) else {
            throw NormCacheError(.json, "JSON input of \(bytes.count) bytes is larger than the 4 GiB limit")
        }
        var scanner = JSONScanner(bytes: bytes)
        tokens = try scanner.scanDocument()
    }

    /// The members of the object at `index`, as (key token, value token) index pairs.
    func members(ofObject index: Int) -> LazyMapSequence<JSONChildren, (key: Int, value: Int)> {
        JSONChildren(tokens: tokens.buffer, container: index).lazy.map { (key: $0 - 1, value: $0) }
    }

    /// The element token indices of the array at `index`.
    func elements(ofArray index: Int) -> JSONChildren {
        JSONChildren(tokens: tokens.buffer, container: index)
    }

    /// The raw bytes of a number, or of a string between its quotes (escapes unresolved).
    @inline(__always)
    func rawText(_ index: Int) -> UnsafeRawBufferPointer {
        rawText(of: tokens[index])
    }

    /// The raw bytes of a number or string token (see `rawText(_:)`).
    @inline(__always)
    func rawText(of token: JSONToken) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: bytes.baseAddress.map { $0 + Int(token.offset) }, count: Int(token.length))
    }

    /// The JSON text of the value at `index` as it stands in the input (strings with
    /// their quotes, containers with their brackets).
    func json(_ index: Int) -> UnsafeRawBufferPointer {
        let token = tokens[index]
        let start = Int(token.offset)
        let end: Int
        switch token.kind {
        case .string: return UnsafeRawBufferPointer(rebasing: bytes[(start - 1)..<(start + Int(token.length) + 1)])
        case .array, .object: end = Int(token.closeOffset) + 1
        default: end = start + Int(token.length)
        }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// The decoded UTF-8 bytes of the string at `index`.
    func stringBytes(_ index: Int) -> [UInt8] {
        let raw = rawText(index)
        guard tokens[index].hasEscapes else { return Array(raw) }
        return JSONString.unescape(raw)
    }

    /// The decoded UTF-8 bytes of the string at `index`: the input's own bytes when the
    /// string has no escapes (no copy), else a decoded copy appended to `buffer` (valid
    /// until `buffer` changes). Throws `.outOfMemory` when `buffer` cannot hold the copy.
    @inline(__always)
    func stringBytes(_ index: Int, into buffer: inout ByteBuffer) throws(NormCacheError) -> UnsafeRawBufferPointer {
        guard tokens[index].hasEscapes else { return rawText(index) }
        return try unescapedBytes(index, into: &buffer)
    }

    /// `stringBytes(_:into:)` of a string with escapes, out of line.
    private func unescapedBytes(_ index: Int, into buffer: inout ByteBuffer) throws(NormCacheError) -> UnsafeRawBufferPointer {
        let start = buffer.count
        buffer.append(contentsOf: stringBytes(index))
        try buffer.check(while: "unescaping a string of the JSON")
        return UnsafeRawBufferPointer(rebasing: buffer.bytes[start...])
    }

    /// Calls `body` with the decoded UTF-8 bytes of the string at `index`: the input's
    /// own bytes when the string has no escapes (no copy), else a decoded copy.
    @inline(__always)
    func withStringBytes<R, E: Error>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        guard tokens[index].hasEscapes else { return try body(rawText(index)) }
        return try stringBytes(index).withBytes(body)
    }

    /// Whether the string at `index` decodes to exactly the bytes `expected`.
    func string<Bytes: Collection>(_ index: Int, equalsBytes expected: Bytes) -> Bool where Bytes.Element == UInt8 {
        let token = tokens[index]
        guard token.kind == .string else { return false }
        if !token.hasEscapes {
            guard Int(token.length) == expected.count else { return false }
            let raw = rawText(index)
            return expected.withContiguousStorageIfAvailable { contiguous in
                contiguous.isEmpty || memcmp(raw.baseAddress!, contiguous.baseAddress!, contiguous.count) == 0
            } ?? raw.elementsEqual(expected)
        }
        return stringBytes(index).elementsEqual(expected)
    }

    /// The value token of the member `name` of the object at `index`, or nil.
    func member<Name: Collection>(_ name: Name, ofObject index: Int) -> Int? where Name.Element == UInt8 {
        for member in members(ofObject: index) where string(member.key, equalsBytes: name) { return member.value }
        return nil
    }

    /// Whether the string at `index` decodes to exactly `expected`: a length check, then
    /// words of bytes, where a string without escapes is compared in place.
    @inline(__always)
    func string(_ index: Int, equals expected: StaticString) -> Bool {
        let token = tokens[index]
        guard token.kind == .string else { return false }
        let expectedBytes = UnsafeRawBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount)
        if !token.hasEscapes { return KeyBytes.equal(rawText(of: token), expectedBytes) }
        return stringBytes(index).withUnsafeBytes { KeyBytes.equal($0, expectedBytes) }
    }
}

/// The value token indices directly inside one array or object, in document order
/// (for an object, each member's key token sits just before its value).
///
/// It borrows the tape's tokens, as the document borrows its bytes: it is walked while
/// the document that made it lives, and making one counts no references.
struct JSONChildren: Sequence, IteratorProtocol {
    private let tokens: UnsafeBufferPointer<JSONToken>
    private let keyed: Bool
    private var nextValue: Int
    private var remaining: Int

    init(tokens: UnsafeBufferPointer<JSONToken>, container: Int) {
        self.tokens = tokens
        keyed = tokens[container].kind == .object
        nextValue = container + (keyed ? 2 : 1)
        remaining = Int(tokens[container].length)
    }

    mutating func next() -> Int? {
        guard remaining > 0 else { return nil }
        remaining -= 1
        let value = nextValue
        nextValue = Int(tokens[value].end) + (keyed ? 1 : 0)
        return value
    }
}
