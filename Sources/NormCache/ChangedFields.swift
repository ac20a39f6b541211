/// The fields a write changed, as `recordKey.fieldKey` names in the order of the input
/// (what `write`, `put`, `writeFragment` and `importRecords` return).
///
/// A write of a large response can change a hundred thousand fields, so the names are
/// kept in one block of bytes, already in the form the C interface hands over: JSON
/// strings separated by commas (`"Pet:1.name","Pet:1.age"`). A name becomes a `String`
/// only when it is read, and the C interface's JSON array is that block in brackets.
public struct ChangedFields: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// The names as JSON strings, separated by commas.
    private var text: [UInt8] = []
    /// Where each name's closing quote is in `text`.
    private var ends: [Int] = []
    /// Whether a name holds a character JSON escapes (`"`, `\`, a control character).
    private var escaped = false

    /// No changed fields.
    public init() {}

    /// The changed fields `names`, in this order.
    public init<Names: Sequence>(_ names: Names) where Names.Element == String {
        self.init(quoting: names.map { (name: String) -> [UInt8] in Array(name.utf8) })
    }

    /// The changed fields written out: `["Pet:1.name", "Pet:1.age"]`.
    public init(arrayLiteral names: String...) {
        self.init(names)
    }

    /// The `count` names `record.field` that `name` gives for 0 up to `count`, in that
    /// order, `bytes` bytes in all (the dots included): quoted straight into storage of
    /// their size, in one pass, unless a name needs an escape.
    init(count: Int, bytes byteCount: Int,
         name: (Int) -> (record: UnsafeRawBufferPointer, field: UnsafeRawBufferPointer)) {
        let capacity = byteCount + 3 * count
        var plain = true
        var ends = [Int](repeating: 0, count: count)
        let text = [UInt8](unsafeUninitializedCapacity: capacity) { storage, written in
            guard let base = UnsafeMutableRawPointer(storage.baseAddress) else { return }
            var offset = 0
            for index in 0..<count {
                let (record, field) = name(index)
                precondition(offset &+ record.count &+ field.count &+ 4 <= capacity, "changed field names past their \(capacity) bytes")
                if index > 0 {
                    base.storeBytes(of: UInt8(ascii: ","), toByteOffset: offset, as: UInt8.self)
                    offset &+= 1
                }
                base.storeBytes(of: UInt8(ascii: "\""), toByteOffset: offset, as: UInt8.self)
                offset &+= 1
                guard Self.copyPlain(record, to: base + offset) else { plain = false; return }
                offset &+= record.count
                base.storeBytes(of: UInt8(ascii: "."), toByteOffset: offset, as: UInt8.self)
                offset &+= 1
                guard Self.copyPlain(field, to: base + offset) else { plain = false; return }
                offset &+= field.count
                ends[index] = offset
                base.storeBytes(of: UInt8(ascii: "\""), toByteOffset: offset, as: UInt8.self)
                offset &+= 1
            }
            written = offset
        }
        guard plain else {
            self.init(quoting: (0..<count).map { index in
                let (record, field) = name(index)
                return Array(record) + [UInt8(ascii: ".")] + Array(field)
            })
            return
        }
        self.init(text: text, ends: ends, escaped: false)
    }

    /// Copies `bytes` to `out` and says whether none of them needs a JSON escape (false
    /// with only some copied). The check reads the source, not the bytes just stored,
    /// which a load wider than the stores would wait for.
    @inline(__always)
    private static func copyPlain(_ bytes: UnsafeRawBufferPointer, to out: UnsafeMutableRawPointer) -> Bool {
        guard let start = bytes.baseAddress else { return true }
        return JSONString.plainPrefix(start, bytes.count, copyingTo: out) == bytes.count
    }

    private init(text: [UInt8], ends: [Int], escaped: Bool) {
        self.text = text
        self.ends = ends
        self.escaped = escaped
    }

    /// The changed fields `names` (UTF-8), in this order, each quoted and escaped.
    private init(quoting names: [[UInt8]]) {
        var out = ByteBuffer()
        var ends: [Int] = []
        var escaped = false
        for (index, name) in names.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            let start = out.count
            out.appendQuoted(name)
            escaped = escaped || out.count - start != name.count + 2
            ends.append(out.count - 1)
        }
        self.init(text: Array(out.bytes), ends: ends, escaped: escaped)
    }

    public var startIndex: Int { 0 }

    public var endIndex: Int { ends.count }

    /// The name at `position`.
    public subscript(position: Int) -> String {
        let range = (position == 0 ? 1 : ends[position - 1] + 3)..<ends[position]
        return text.withUnsafeBytes { text in
            let quoted = UnsafeRawBufferPointer(rebasing: text[range])
            return escaped ? String(decoding: JSONString.unescape(quoted), as: UTF8.self) : String(decoding: quoted, as: UTF8.self)
        }
    }

    /// The names as an array literal shows them.
    public var description: String { Array(self).description }

    /// The names as a compact JSON array of strings (`["Pet:1.name","Pet:1.age"]`) in a
    /// malloc'd, NUL-terminated block that the caller releases with `free`.
    package func jsonBlock() throws(NormCacheError) -> (start: UnsafeMutableRawPointer, count: Int) {
        var out = ByteBuffer(capacity: text.count + 3)
        out.append(UInt8(ascii: "["))
        text.withUnsafeBytes { out.append($0) }
        out.append(UInt8(ascii: "]"))
        return try out.takeBlock(while: "listing the changed fields")
    }
}
