/// The programmatic key rule, first in the resolution order (DESIGN.md, "Key
/// resolution order"), like Apollo's `cacheKeyInfo(for:object:)`: given an object's
/// typename (nil when the response does not say) and a view of the object, it answers
/// with an id and an optional key group, or nil for "no key from me" (the declarative
/// rules then decide). It runs for every object normalized; an error it throws fails
/// the write with a `.callback` error, and nothing is written.
public typealias KeyResolver = @Sendable (_ typename: String?, _ object: ResponseObject) throws -> CacheKeyInfo?

/// A key resolver's answer: the record key is `<group or typename>:<id>`.
public struct CacheKeyInfo: Equatable, Sendable {
    /// The id, used as it is.
    public var id: String
    /// The key group that replaces the typename, if any.
    public var group: String?

    /// An answer with this id and group.
    public init(id: String, group: String? = nil) {
        self.id = id
        self.group = group
    }
}

/// One object of a response as a key resolver sees it: its members, by response key or
/// by position in the response, as the JSON text they have in the response (no copy:
/// valid only during the call).
///
/// A response may repeat a member name (JSON allows it): a lookup by name finds the
/// first, and the listing (`memberCount`, `member(at:)`, `names`) gives every one, in
/// response order.
public struct ResponseObject {
    let document: JSONDocument
    let index: Int

    /// The JSON text of the member `name` (strings with their quotes), or nil.
    public func json(_ name: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        document.member(name, ofObject: index).map { document.json($0) }
    }

    /// The JSON text of the member `name`, or nil.
    public subscript(name: String) -> String? {
        document.member(name.utf8, ofObject: index).map { String(decoding: document.json($0), as: UTF8.self) }
    }

    /// The number of members, repeated names included.
    public var memberCount: Int { Int(document.tokens[index].length) }

    /// The member at `position` in response order (0 is the first), or nil when
    /// `position` is negative or not below `memberCount`: its name as JSON text (a
    /// string with its quotes, escapes as in the response) and its value as JSON text
    /// (as `json(_:)` gives it). Finding it walks the members before it.
    public func member(at position: Int) -> (name: UnsafeRawBufferPointer, json: UnsafeRawBufferPointer)? {
        guard position >= 0, position < memberCount else { return nil }
        var members = document.members(ofObject: index).dropFirst(position).makeIterator()
        return members.next().map { (document.json($0.key), document.json($0.value)) }
    }

    /// The member names, decoded (escapes resolved), in response order; a repeated name
    /// appears as often as the response repeats it.
    public var names: [String] {
        document.members(ofObject: index).map { String(decoding: document.stringBytes($0.key), as: UTF8.self) }
    }
}
