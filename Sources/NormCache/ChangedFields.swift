/// The fields a write changed, as `recordKey.fieldKey` names in the order of the input
/// (what `write`, `put`, `writeFragment` and `importRecords` return).
///
/// A write of a large response can change a hundred thousand fields, so the names are
/// kept in one block of bytes: a name becomes a `String` only when it is read, and the C
/// interface hands them over as JSON without making any.
public struct ChangedFields: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// The names' UTF-8 bytes, one after another.
    private var bytes: [UInt8] = []
    /// Where each name ends in `bytes`.
    private var ends: [Int] = []

    /// No changed fields.
    public init() {}

    /// The changed fields `names`, in this order.
    public init<Names: Sequence>(_ names: Names) where Names.Element == String {
        for name in names { append(name.utf8) }
    }

    /// The changed fields written out: `["Pet:1.name", "Pet:1.age"]`.
    public init(arrayLiteral names: String...) {
        self.init(names)
    }

    /// Room for `count` names of `bytes` bytes in all.
    init(reservingNames count: Int, bytes: Int) {
        self.bytes.reserveCapacity(bytes)
        ends.reserveCapacity(count)
    }

    public var startIndex: Int { 0 }

    public var endIndex: Int { ends.count }

    /// The name at `position`.
    public subscript(position: Int) -> String {
        let range = (position == 0 ? 0 : ends[position - 1])..<ends[position]
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    /// The names as an array literal shows them.
    public var description: String { Array(self).description }

    /// Appends the name `record.field`.
    mutating func append(record: UnsafeRawBufferPointer, field: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: record)
        bytes.append(UInt8(ascii: "."))
        bytes.append(contentsOf: field)
        ends.append(bytes.count)
    }

    private mutating func append(_ name: String.UTF8View) {
        bytes.append(contentsOf: name)
        ends.append(bytes.count)
    }

    /// The names as a compact JSON array of strings (`["Pet:1.name","Pet:1.age"]`) in a
    /// malloc'd, NUL-terminated block that the caller releases with `free`.
    package func jsonBlock() throws(NormCacheError) -> (start: UnsafeMutableRawPointer, count: Int) {
        var out = ByteBuffer(capacity: bytes.count + 3 * ends.count + 3)
        out.append(UInt8(ascii: "["))
        bytes.withUnsafeBytes { names in
            var start = 0
            for (index, end) in ends.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out.appendQuoted(UnsafeRawBufferPointer(rebasing: names[start..<end]))
                start = end
            }
        }
        out.append(UInt8(ascii: "]"))
        return try out.takeBlock(while: "listing the changed fields")
    }
}
