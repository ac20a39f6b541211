/// The shape of a document stored with entities: for each position of the document (a
/// path of member names, list indices left out), the members its entities had there,
/// and the way down to the positions below that hold entities. A read of the document
/// gives each entity exactly the members it had in the document, with the values its
/// record holds now.
///
/// Stored as the document record's `$shape` field: a tree of objects (`FieldValue` tag
/// 6) whose members are member names and whose values are the shapes below them, e.g.
/// `{"articles":{"id":{},"title":{},"author":{"id":{},"name":{}}}}`. The positions of a
/// list share one shape, the union of its elements' members, in order of first appearance.
enum DocumentShape {
    /// The shape of a position below which the document had no entity: an empty object.
    static var empty: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: emptyBytes.utf8Start, count: emptyBytes.utf8CodeUnitCount) }

    /// `FieldValue`'s empty object: tag 6, no members, a body of 0 bytes.
    private static let emptyBytes: StaticString = "\u{06}\u{00}\u{00}\u{00}\u{00}\u{00}"

    /// Whether the shape `node` lists no member: no entity was below its position.
    static func isEmpty(_ node: UnsafeRawBufferPointer) -> Bool {
        node.count > 1 && node[1] == 0
    }

    /// The members of the shape `node` (an encoded object) with the shape below each, in
    /// order; nil when the bytes are not a shape (a damaged record).
    static func members(of node: UnsafeRawBufferPointer) -> [(name: UnsafeRawBufferPointer, shape: UnsafeRawBufferPointer)]? {
        var reader = ByteReader(node)
        guard reader.readByte() == FieldValue.Tag.object.rawValue, let count = reader.readVarint(),
              let bodyLength = reader.readUInt32(), let body = reader.readBytes(Int(bodyLength)), reader.isAtEnd else { return nil }
        var inner = ByteReader(body)
        var members: [(UnsafeRawBufferPointer, UnsafeRawBufferPointer)] = []
        for _ in 0..<count {
            guard let nameLength = inner.readLength(), let name = inner.readBytes(nameLength) else { return nil }
            let start = inner.offset
            guard FieldValue.skip(&inner) else { return nil }
            members.append((name, UnsafeRawBufferPointer(rebasing: body[start..<inner.offset])))
        }
        return inner.isAtEnd ? members : nil
    }

    /// Builds a shape while a document is normalized: node 0 is the document's top level.
    struct Builder {
        private struct Node {
            /// Member names in order of first appearance, the node below each, and
            /// whether an entity had the member (else it leads to entities below).
            var names: [[UInt8]] = []
            var children: [Int] = []
            var onEntity: [Bool] = []
            var lookup: [[UInt8]: Int] = [:]
            /// Whether an entity sits at this position.
            var holdsEntity = false
        }

        private var nodes = [Node()]

        /// The node of the document's top level.
        static let top = 0

        /// The node below `node` at the member `name`, made if new; `onEntity`: the
        /// member is one of an entity's.
        mutating func child(of node: Int, named name: [UInt8], onEntity: Bool) -> Int {
            if let position = nodes[node].lookup[name] {
                if onEntity { nodes[node].onEntity[position] = true }
                return nodes[node].children[position]
            }
            let child = nodes.count
            nodes.append(Node())
            nodes[node].lookup[name] = nodes[node].names.count
            nodes[node].names.append(name)
            nodes[node].children.append(child)
            nodes[node].onEntity.append(onEntity)
            return child
        }

        /// Notes that an entity sits at `node`.
        mutating func markEntity(_ node: Int) { nodes[node].holdsEntity = true }

        /// Appends the shape as an encoded object: each node keeps the members its
        /// entities had and those that lead to an entity.
        func encode(into out: inout ByteBuffer) throws(NormCacheError) {
            var leadsToEntity = nodes.map(\.holdsEntity)
            // A child's index is above its parent's: going down from the last, every
            // node's children are settled before it.
            for index in nodes.indices.reversed() where nodes[index].children.contains(where: { leadsToEntity[$0] }) {
                leadsToEntity[index] = true
            }
            try encode(Self.top, leadsToEntity, into: &out)
        }

        private func encode(_ index: Int, _ leadsToEntity: [Bool], into out: inout ByteBuffer) throws(NormCacheError) {
            let node = nodes[index]
            let kept = node.names.indices.filter { node.onEntity[$0] || leadsToEntity[node.children[$0]] }
            let bodyStart = FieldValue.beginContainer(.object, count: UInt32(kept.count), in: &out)
            for position in kept {
                node.names[position].withUnsafeBytes { out.appendLengthPrefixed($0) }
                try encode(node.children[position], leadsToEntity, into: &out)
            }
            try FieldValue.endContainer(bodyStart: bodyStart, in: &out, context: "the document's shape")
        }
    }
}
