/// A compact JSON object written member by member, in the order given: the shape of the
/// reports and figures the C interface hands over (`CacheStats`, `EvictionReport`,
/// `GarbageCollectionReport`, and the counts per key group inside the reports). Names
/// and text values are quoted and escaped as `JSONString.appendQuoted` does.
package struct JSONObject {
    private var out: [UInt8] = [UInt8(ascii: "{")]

    /// An object with no members yet.
    package init() {}

    /// The object's bytes, closed.
    package var bytes: [UInt8] { out + [UInt8(ascii: "}")] }

    /// Adds `"name":` and the number `value`.
    package mutating func add(_ name: String, _ value: some BinaryInteger) {
        member(name)
        out.append(contentsOf: String(value).utf8)
    }

    /// Adds a number member per pair, in their order (`"records":2,"bytes":180`).
    package mutating func add(_ numbers: KeyValuePairs<String, Int>) {
        for (name, value) in numbers { add(name, value) }
    }

    /// Adds `"name":true` or `"name":false`.
    package mutating func add(_ name: String, _ value: Bool) {
        member(name)
        out.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Adds `"name":` and the quoted text `value`, or `null` when it is nil.
    package mutating func add(_ name: String, _ value: String?) {
        member(name)
        if let value { JSONString.appendQuoted(value.utf8, to: &out) } else { out.append(contentsOf: "null".utf8) }
    }

    /// Adds `"name":` and the object `body` writes.
    package mutating func add(_ name: String, _ body: (inout JSONObject) -> Void) {
        member(name)
        var inner = JSONObject()
        body(&inner)
        out.append(contentsOf: inner.bytes)
    }

    /// Adds `"name":` and an object of one member per element, in their order, which
    /// `member` adds: a report's counts per key group (`"groups":{"User:":2}`).
    package mutating func add<Element>(_ name: String, membersFor elements: [Element], _ member: (inout JSONObject, Element) -> Void) {
        add(name) { object in
            for element in elements { member(&object, element) }
        }
    }

    /// Writes the comma before any member but the first, and `"name":`.
    private mutating func member(_ name: String) {
        if out.count > 1 { out.append(UInt8(ascii: ",")) }
        JSONString.appendQuoted(name.utf8, to: &out)
        out.append(UInt8(ascii: ":"))
    }
}
