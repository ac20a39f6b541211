/// The fields a write changed, as `recordKey.fieldKey` names in the order of the input
/// (what `write`, `put`, `writeFragment` and `importRecords` return).
///
/// A write of a large response can change a hundred thousand fields, so the names are
/// kept in one block of bytes (from the `BlockPool`, like the write's own), already in
/// the form the C interface hands over: a JSON array of strings. A name becomes a
/// `String` only when it is read. Copies share the block, which never changes once made.
public struct ChangedFields: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// The names' block.
    private final class Names: @unchecked Sendable {
        /// The names as a JSON array of strings: `["Pet:1.name","Pet:1.age"]`.
        var text = ByteBuffer()
        /// Where each name's closing quote is in `text`.
        var ends = PlainArray<Int>()
        /// Whether a name holds a character JSON escapes (`"`, `\`, a control character).
        var escaped = false

        /// No names yet.
        init() {}

        /// `text` holding "[]".
        static let empty: Names = {
            let names = Names()
            names.text.append("[]")
            return names
        }()
    }

    private let names: Names

    /// No changed fields.
    public init() {
        self.init(names: .empty)
    }

    /// The changed fields `names`, in this order.
    public init<Names: Sequence>(_ names: Names) where Names.Element == String {
        self.init(quoting: names.map { (name: String) -> [UInt8] in Array(name.utf8) })
    }

    /// The changed fields written out: `["Pet:1.name", "Pet:1.age"]`.
    public init(arrayLiteral names: String...) {
        self.init(names)
    }

    /// The `count` names `record.field` that `name` gives for 0 up to `count`, in that
    /// order, `bytes` bytes in all (the dots included), quoted in one pass into a block of
    /// their size, unless a name needs an escape; throws `.outOfMemory` when the block
    /// cannot be had.
    init(count: Int, bytes byteCount: Int,
         name: (Int) -> (record: UnsafeRawBufferPointer, field: UnsafeRawBufferPointer)) throws(NormCacheError) {
        let made = Names()
        let capacity = byteCount &+ 3 &* count &+ 2
        try made.ends.reserve(count, while: "listing the changed fields")
        guard let base = made.text.reserve(capacity) else {
            throw .outOfMemory(allocating: capacity, while: "listing the changed fields")
        }
        base.storeBytes(of: UInt8(ascii: "["), as: UInt8.self)
        var offset = 1
        for index in 0..<count {
            let (record, field) = name(index)
            precondition(offset &+ record.count &+ field.count &+ 5 <= capacity, "changed field names past their \(capacity) bytes")
            if index > 0 {
                base.storeBytes(of: UInt8(ascii: ","), toByteOffset: offset, as: UInt8.self)
                offset &+= 1
            }
            base.storeBytes(of: UInt8(ascii: "\""), toByteOffset: offset, as: UInt8.self)
            offset &+= 1
            let nameStart = offset
            if let source = record.baseAddress { (base + offset).copyMemory(from: source, byteCount: record.count) }
            offset &+= record.count
            base.storeBytes(of: UInt8(ascii: "."), toByteOffset: offset, as: UInt8.self)
            offset &+= 1
            if let source = field.baseAddress { (base + offset).copyMemory(from: source, byteCount: field.count) }
            offset &+= field.count
            guard JSONString.plainPrefix(base + nameStart, offset &- nameStart) == offset &- nameStart else {
                self.init(quoting: (0..<count).map { index in
                    let (record, field) = name(index)
                    return Array(record) + [UInt8(ascii: ".")] + Array(field)
                })
                return
            }
            made.ends.append(offset)
            base.storeBytes(of: UInt8(ascii: "\""), toByteOffset: offset, as: UInt8.self)
            offset &+= 1
        }
        base.storeBytes(of: UInt8(ascii: "]"), toByteOffset: offset, as: UInt8.self)
        made.text.advance(by: offset &+ 1)
        self.init(names: made)
    }

    private init(names: Names) {
        self.names = names
    }

    /// The changed fields `names` (UTF-8), in this order, each quoted and escaped.
    private init(quoting names: [[UInt8]]) {
        let made = Names()
        made.text.append(UInt8(ascii: "["))
        for (index, name) in names.enumerated() {
            if index > 0 { made.text.append(UInt8(ascii: ",")) }
            let start = made.text.count
            made.text.appendQuoted(name)
            made.escaped = made.escaped || made.text.count - start != name.count + 2
            made.ends.append(made.text.count - 1)
        }
        made.text.append(UInt8(ascii: "]"))
        self.init(names: made)
    }

    public var startIndex: Int { 0 }

    public var endIndex: Int { names.ends.count }

    /// The name at `position`.
    public subscript(position: Int) -> String {
        precondition(position >= 0 && position < names.ends.count, "changed field \(position) outside 0..<\(names.ends.count)")
        let start = position == 0 ? 2 : names.ends[position - 1] + 3
        let quoted = UnsafeRawBufferPointer(rebasing: names.text.bytes[start..<names.ends[position]])
        return names.escaped ? String(decoding: JSONString.unescape(quoted), as: UTF8.self) : String(decoding: quoted, as: UTF8.self)
    }

    /// The names as an array literal shows them.
    public var description: String { Array(self).description }

    public static func == (left: ChangedFields, right: ChangedFields) -> Bool {
        left.names === right.names || left.names.text.bytes.elementsEqual(right.names.text.bytes)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes: names.text.bytes)
    }

    /// The names as a compact JSON array of strings (`["Pet:1.name","Pet:1.age"]`) in a
    /// malloc'd, NUL-terminated block that the caller releases with `free`.
    package func jsonBlock() throws(NormCacheError) -> (start: UnsafeMutableRawPointer, count: Int) {
        var out = ByteBuffer(capacity: names.text.count + 1)
        out.append(names.text.bytes)
        return try out.takeBlock(while: "listing the changed fields")
    }
}
